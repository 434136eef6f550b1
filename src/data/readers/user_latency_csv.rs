//! A CSV of latency measurements to where the users are, named by a plan's
//! `[inference] users_csv`: one row per (serving location, user location).
//!
//! Columns, by header name (case and spaces ignored): `location` (or `city`, `region`),
//! `users_frac` (or `share`), one of `round_trip_ms` (or `rtt_ms`) and `one_way_ms`, and
//! optionally `from` (or `inference_location`). Fields may be quoted (`"Washington, D.C."`).
//! A file of more than `MAX_ROWS` rows is refused: it is a table of cities, not a log.

use crate::model::transit::UserLatency;

const MAX_ROWS: usize = 100_000;

/// What went wrong, and where: 1-based line and column (the field's number).
#[derive(Debug, Clone, PartialEq)]
pub struct CsvProblem {
    pub line: usize,
    pub column: Option<usize>,
    pub message: String,
}

fn problem(line: usize, column: Option<usize>, message: impl Into<String>) -> CsvProblem {
    CsvProblem {
        line,
        column,
        message: message.into(),
    }
}

/// The fields of one line; quotes group commas and `""` is a quote.
fn fields(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', true) => quoted = false,
            ('"', false) if field.trim().is_empty() => {
                field.clear();
                quoted = true;
            }
            (',', false) => out.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed on its line".into());
    }
    out.push(field);
    Ok(out.into_iter().map(|f| f.trim().to_string()).collect())
}

fn normalized(header: &str) -> String {
    header
        .trim()
        .trim_start_matches('\u{feff}')
        .to_ascii_lowercase()
        .replace([' ', '-'], "_")
}

fn find(headers: &[String], names: &[&str]) -> Option<usize> {
    headers.iter().position(|h| names.contains(&h.as_str()))
}

fn number(text: &str, line: usize, column: usize, name: &str) -> Result<Option<f64>, CsvProblem> {
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(Some(v)),
        _ => Err(problem(
            line,
            Some(column),
            format!("column {name}: expected a non-negative number, found {text:?}"),
        )),
    }
}

/// The measurements in `text`.
pub fn read_user_latencies(text: &str) -> Result<Vec<UserLatency>, CsvProblem> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((header_index, header_line)) = lines.next() else {
        return Err(problem(1, None, "the file is empty: expected a header row"));
    };
    let headers: Vec<String> = fields(header_line)
        .map_err(|e| problem(header_index + 1, None, e))?
        .iter()
        .map(|h| normalized(h))
        .collect();
    let location = find(&headers, &["location", "city", "region"]);
    let share = find(&headers, &["users_frac", "share"]);
    let rtt = find(&headers, &["round_trip_ms", "rtt_ms"]);
    let one_way = find(&headers, &["one_way_ms"]);
    let from = find(&headers, &["from", "inference_location"]);
    let (Some(location), Some(share)) = (location, share) else {
        return Err(problem(
            header_index + 1,
            None,
            format!(
                "expected columns location and users_frac, and round_trip_ms or one_way_ms; found {}",
                headers.join(", ")
            ),
        ));
    };
    if rtt.is_none() && one_way.is_none() {
        return Err(problem(
            header_index + 1,
            None,
            "expected a round_trip_ms or a one_way_ms column",
        ));
    }
    let mut rows = Vec::new();
    for (index, text) in lines {
        let line = index + 1;
        if rows.len() == MAX_ROWS {
            return Err(problem(
                line,
                None,
                format!("more than {MAX_ROWS} rows: expected a table of user locations"),
            ));
        }
        let cells = fields(text).map_err(|e| problem(line, None, e))?;
        let cell = |i: Option<usize>| i.and_then(|i| cells.get(i)).map_or("", String::as_str);
        let place = cell(Some(location));
        if place.is_empty() {
            return Err(problem(
                line,
                Some(location + 1),
                "column location: expected a city or region",
            ));
        }
        let users_frac = number(cell(Some(share)), line, share + 1, "users_frac")?
            .ok_or_else(|| problem(line, Some(share + 1), "column users_frac: expected a share of users"))?;
        if users_frac > 1.0 {
            return Err(problem(
                line,
                Some(share + 1),
                format!("column users_frac: expected a share from 0 to 1 (write 35 % as 0.35), found {users_frac}"),
            ));
        }
        let round_trip_ms = match rtt {
            Some(i) => number(cell(Some(i)), line, i + 1, "round_trip_ms")?,
            None => None,
        };
        let one_way_ms = match one_way {
            Some(i) => number(cell(Some(i)), line, i + 1, "one_way_ms")?,
            None => None,
        };
        if round_trip_ms.is_none() && one_way_ms.is_none() {
            return Err(problem(line, None, "expected a round_trip_ms or a one_way_ms value"));
        }
        rows.push(UserLatency {
            location: place.to_string(),
            users_frac,
            round_trip_ms: if one_way_ms.is_some() { None } else { round_trip_ms },
            one_way_ms,
            from: Some(cell(from).to_string()).filter(|f| !f.is_empty()),
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measurements_read_by_header_with_quoted_places() {
        let text = "From,City,Share,RTT ms\nus-east,\"Washington, D.C.\",0.4,12\nus-east,London,0.35,76.5\n";
        let rows = read_user_latencies(text).expect("reads");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].location, "Washington, D.C.");
        assert_eq!(rows[0].from.as_deref(), Some("us-east"));
        assert_eq!(rows[1].round_trip_ms, Some(76.5));
        assert_eq!(rows[1].one_way(), Some(38.25));
    }

    #[test]
    fn bad_rows_name_their_line_and_column() {
        let e = read_user_latencies("location,users_frac,one_way_ms\nTokyo,35,20\n").expect_err("percent");
        assert_eq!((e.line, e.column), (2, Some(2)));
        assert!(e.message.contains("0.35"), "{}", e.message);
        let e = read_user_latencies("location,users_frac,one_way_ms\nTokyo,0.3,fast\n").expect_err("text");
        assert_eq!((e.line, e.column), (2, Some(3)));
        let e = read_user_latencies("city,ms\n").expect_err("columns");
        assert!(e.message.contains("found city, ms"), "{}", e.message);
        let e = read_user_latencies("").expect_err("empty");
        assert_eq!(e.line, 1);
        let e = read_user_latencies("location,users_frac,rtt_ms\n\"Oslo,0.1,5\n").expect_err("quote");
        assert!(e.message.contains("quoted"), "{}", e.message);
    }
}
