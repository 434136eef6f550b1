//! Prometheus HTTP API answers (`/api/v1/query_range`, `/api/v1/labels`) into plain series.
//! Thanos, Mimir and VictoriaMetrics answer in the same shape.
//!
//! A success is `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{…},
//! "values":[[<unix seconds>,"<value>"],…]}]}}`; a failure is `{"status":"error","errorType":
//! "bad_data","error":"…"}` whatever the HTTP status. Values are strings because Prometheus
//! writes `NaN`, `+Inf` and `-Inf`: those points are counted and left out, never summed.
//!
//! A success may carry `warnings` (Thanos' and Mimir's partial responses, a store or querier
//! that did not answer) and, since Prometheus 3, `infos`: both are kept, for the audit to say.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One series of a range query: its labels and its finite points in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub labels: BTreeMap<String, String>,
    /// (unix milliseconds, value).
    pub points: Vec<(i64, f64)>,
    /// Instants whose value was NaN or infinite, left out of `points`.
    pub non_finite_ms: Vec<i64>,
}

impl Series {
    /// A series from label pairs and points, for tests.
    #[cfg(test)]
    pub fn of(labels: &[(&str, &str)], points: &[(i64, f64)]) -> Series {
        Series {
            labels: labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            points: points.to_vec(),
            non_finite_ms: Vec::new(),
        }
    }
}

/// A range query's result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Matrix {
    pub series: Vec<Series>,
    /// Points whose value was NaN or infinite, left out.
    pub non_finite_points: u64,
    /// What the server warned about (e.g. partial responses from Thanos or Mimir).
    pub warnings: Vec<String>,
    /// What the server noted without warning (Prometheus 3's `infos`).
    pub infos: Vec<String>,
}

/// Why an answer is not a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseError {
    /// The server said no: a PromQL error, a timeout on its side, too many points.
    Api { error_type: String, error: String },
    /// Not the API's JSON at all: an HTML login page, a proxy's error, a truncated body.
    NotTheApi { what: String },
}

impl std::fmt::Display for ResponseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResponseError::Api { error_type, error } => {
                write!(f, "the server refused the query ({error_type}): {error}")
            }
            ResponseError::NotTheApi { what } => write!(f, "the answer is not the Prometheus API's JSON: {what}"),
        }
    }
}

#[derive(Deserialize)]
struct Envelope<T> {
    status: String,
    data: Option<T>,
    #[serde(rename = "errorType")]
    error_type: Option<String>,
    error: Option<String>,
    // Some servers write `null` where there is nothing to say.
    #[serde(default)]
    warnings: Option<Vec<String>>,
    #[serde(default)]
    infos: Option<Vec<String>>,
}

/// What a success said beside its data.
#[derive(Debug, Default)]
struct Remarks {
    warnings: Vec<String>,
    infos: Vec<String>,
}

#[derive(Deserialize)]
struct MatrixData {
    #[serde(rename = "resultType")]
    result_type: String,
    result: Vec<RawSeries>,
}

#[derive(Deserialize)]
struct RawSeries {
    #[serde(default)]
    metric: BTreeMap<String, String>,
    #[serde(default)]
    values: Vec<(f64, String)>,
}

/// What a body that is not JSON looks like, for the message: HTML, empty, or its first bytes.
fn describe_body(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(200)]);
    let trimmed = text.trim_start();
    if body.is_empty() {
        "an empty body".to_string()
    } else if trimmed.starts_with('<') {
        "an HTML page (a login page or a proxy? the URL should be the server's root, e.g. http://host:9090)".to_string()
    } else {
        let first_line: String = trimmed.lines().next().unwrap_or("").chars().take(80).collect();
        format!("it begins '{first_line}'")
    }
}

fn envelope<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<(T, Remarks), ResponseError> {
    let parsed: Envelope<T> = serde_json::from_slice(body).map_err(|e| ResponseError::NotTheApi {
        what: if body.trim_ascii_start().starts_with(b"{") {
            format!("{e}")
        } else {
            describe_body(body)
        },
    })?;
    if parsed.status != "success" {
        return Err(ResponseError::Api {
            error_type: parsed.error_type.unwrap_or_else(|| "unknown".to_string()),
            error: parsed.error.unwrap_or_else(|| format!("status '{}'", parsed.status)),
        });
    }
    let data = parsed.data.ok_or_else(|| ResponseError::NotTheApi {
        what: "a success without data".to_string(),
    })?;
    let remarks = Remarks {
        warnings: parsed.warnings.unwrap_or_default(),
        infos: parsed.infos.unwrap_or_default(),
    };
    Ok((data, remarks))
}

/// A `query_range` answer.
pub fn parse_matrix(body: &[u8]) -> Result<Matrix, ResponseError> {
    let (data, remarks): (MatrixData, _) = envelope(body)?;
    if data.result_type != "matrix" {
        return Err(ResponseError::NotTheApi {
            what: format!("a '{}' result where a range query gives a matrix", data.result_type),
        });
    }
    let mut matrix = Matrix {
        warnings: remarks.warnings,
        infos: remarks.infos,
        ..Matrix::default()
    };
    for raw in data.result {
        let mut points = Vec::with_capacity(raw.values.len());
        let mut non_finite_ms = Vec::new();
        for (seconds, value) in raw.values {
            match value.parse::<f64>() {
                Ok(v) if v.is_finite() && seconds.is_finite() => points.push(((seconds * 1000.0).round() as i64, v)),
                Ok(_) => {
                    matrix.non_finite_points += 1;
                    if seconds.is_finite() {
                        non_finite_ms.push((seconds * 1000.0).round() as i64);
                    }
                }
                Err(_) => {
                    return Err(ResponseError::NotTheApi {
                        what: format!(
                            "the value '{}' is not a number",
                            value.chars().take(40).collect::<String>()
                        ),
                    });
                }
            }
        }
        matrix.series.push(Series {
            labels: raw.metric,
            points,
            non_finite_ms,
        });
    }
    Ok(matrix)
}

/// A `/api/v1/labels` answer: label names.
pub fn parse_labels(body: &[u8]) -> Result<Vec<String>, ResponseError> {
    envelope::<Vec<String>>(body).map(|(names, _)| names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_matrix_with_nan_and_inf_keeps_the_finite_points() {
        let body = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"cluster":"a"},"values":[[1700000000,"0.5"],[1700003600.5,"NaN"],[1700007200,"+Inf"],[1700010800,"0.25"]]},
            {"metric":{},"values":[]}]},"warnings":["partial response"]}"#;
        let m = parse_matrix(body).expect("matrix");
        assert_eq!(m.series.len(), 2);
        assert_eq!(m.series[0].labels["cluster"], "a");
        assert_eq!(
            m.series[0].points,
            vec![(1_700_000_000_000, 0.5), (1_700_010_800_000, 0.25)]
        );
        assert_eq!(m.non_finite_points, 2);
        assert_eq!(m.series[0].non_finite_ms, vec![1_700_003_600_500, 1_700_007_200_000]);
        assert_eq!(m.warnings, vec!["partial response".to_string()]);
    }

    #[test]
    fn warnings_and_infos_are_kept_whatever_the_server() {
        // Thanos with partial_response: the data it could reach, and why the rest is missing.
        let thanos = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"cluster":"eu-west"},"values":[[1700000000,"0.5"]]}]},
            "warnings":["partial response: fetch series for {cluster=\"ap-south\"}: receive series from store 10.0.0.7:10901: rpc error: code = Unavailable"]}"#;
        let m = parse_matrix(thanos).expect("matrix");
        assert_eq!(m.series.len(), 1);
        assert_eq!(m.warnings.len(), 1);
        assert!(
            m.warnings[0].starts_with("partial response: fetch series"),
            "{:?}",
            m.warnings
        );
        assert!(m.infos.is_empty());
        // Prometheus 3: an info annotation beside a warning.
        let prom3 = br#"{"status":"success","data":{"resultType":"matrix","result":[]},
            "warnings":["PromQL warning: encountered a mix of histograms and floats"],
            "infos":["PromQL info: metric might not be a counter, name does not end in _total"]}"#;
        let m = parse_matrix(prom3).expect("matrix");
        assert_eq!(
            m.warnings,
            ["PromQL warning: encountered a mix of histograms and floats"]
        );
        assert_eq!(
            m.infos,
            ["PromQL info: metric might not be a counter, name does not end in _total"]
        );
        // Null where there is nothing to say, and the fields absent: no remarks.
        let quiet = br#"{"status":"success","data":{"resultType":"matrix","result":[]},"warnings":null,"infos":null}"#;
        let m = parse_matrix(quiet).expect("matrix");
        assert!(m.warnings.is_empty() && m.infos.is_empty());
        let m = parse_matrix(br#"{"status":"success","data":{"resultType":"matrix","result":[]}}"#).expect("matrix");
        assert!(m.warnings.is_empty() && m.infos.is_empty());
    }

    #[test]
    fn errors_say_what_the_server_said() {
        let err = parse_matrix(br#"{"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected"}"#)
            .expect_err("error");
        assert_eq!(
            err.to_string(),
            "the server refused the query (bad_data): 1:5: parse error: unexpected"
        );
        let html = parse_matrix(b"<!DOCTYPE html><html><body>Sign in</body></html>").expect_err("html");
        assert!(html.to_string().contains("an HTML page"), "{html}");
        assert!(
            parse_matrix(b"")
                .expect_err("empty")
                .to_string()
                .contains("an empty body")
        );
        let vector =
            parse_matrix(br#"{"status":"success","data":{"resultType":"vector","result":[]}}"#).expect_err("vector");
        assert!(vector.to_string().contains("'vector' result"));
        let truncated =
            parse_matrix(br#"{"status":"success","data":{"resultType":"matrix","result":[{"#).expect_err("truncated");
        assert!(truncated.to_string().contains("EOF"), "{truncated}");
    }

    fn recorded(name: &str) -> Vec<u8> {
        let path = format!("{}/tests/fixtures/prometheus/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn recorded_answers_of_a_real_server() {
        let sums = parse_matrix(&recorded("sum_by_cluster.json")).expect("matrix");
        assert_eq!(sums.series.len(), 1);
        assert_eq!(sums.series[0].labels["cluster"], "alpha");
        // Hour 0 of the backfill: GPUs at 0, 0.3, 0.5 and 0.8.
        assert_eq!(sums.series[0].points[0], (1_709_254_800_000, 1.6));
        assert_eq!(sums.series[0].points.len(), 6);
        let counts = parse_matrix(&recorded("count_by_host.json")).expect("matrix");
        let hosts: Vec<&str> = counts.series.iter().map(|s| s.labels["hostname"].as_str()).collect();
        assert_eq!(hosts, ["b-gpu01", "b-gpu02"]);
        let bad = parse_matrix(&recorded("bad_query_http400.json")).expect_err("parse error");
        assert!(
            bad.to_string()
                .starts_with("the server refused the query (bad_data): 1:12: parse error"),
            "{bad}"
        );
        let wide = parse_matrix(&recorded("too_many_points_http400.json")).expect_err("too many points");
        assert!(wide.to_string().contains("11,000 points per timeseries"), "{wide}");
        assert_eq!(
            parse_labels(&recorded("labels.json")).expect("labels"),
            ["__name__", "gpu", "hostname"]
        );
    }

    #[test]
    fn labels() {
        let names = parse_labels(br#"{"status":"success","data":["Hostname","__name__","gpu"]}"#).expect("labels");
        assert_eq!(names, ["Hostname", "__name__", "gpu"]);
    }
}
