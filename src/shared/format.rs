//! Quantities as the domain writes them: dollars with separators or M/B suffixes, percentages,
//! token volumes.

/// 1234567.8 → "1,234,568".
pub fn thousands(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let rounded = value.abs().round();
    let digits = format!("{rounded:.0}");
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if value < 0.0 && rounded > 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// A capacity in GPUs with the precision it holds: a whole count as "1,024", a capacity of
/// shared GPUs (an observed peak of fractional requests) as "65.59", never rounded to a count
/// it does not hold.
pub fn gpu_count(gpus: f64) -> String {
    let hundredths = (gpus * 100.0).round() / 100.0;
    if !hundredths.is_finite() || hundredths.fract() == 0.0 {
        return thousands(gpus);
    }
    let whole = thousands(hundredths.trunc());
    let cents = format!("{:.2}", hundredths.abs().fract());
    let sign = if hundredths < 0.0 && hundredths.trunc() == 0.0 {
        "-"
    } else {
        ""
    };
    format!("{sign}{whole}{}", &cents[1..])
}

/// At most `max_chars` characters: longer text is cut and ends with `…`.
pub fn truncated(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// At most `max_chars` characters: longer text keeps its start and its end, `…` between (a
/// source's name, where the file at the end of a long path says most).
pub fn middle_truncated(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars {
        return text.to_string();
    }
    let kept = max_chars.saturating_sub(1);
    let head = kept / 2;
    let tail = kept - head;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(count - tail).collect();
    format!("{start}…{end}")
}

/// What the log says, or `–` where it says nothing.
pub fn or_dash(text: Option<&str>) -> String {
    text.map_or_else(|| "–".to_string(), str::to_string)
}

/// Dollars, exact to the dollar: "$1,234,568"; cents below $100.
pub fn usd(value: f64) -> String {
    let body = if value.abs() < 100.0 {
        format!("${:.2}", value.abs())
    } else {
        format!("${}", thousands(value.abs()))
    };
    with_sign(value, "-", body)
}

/// `body` (a magnitude as shown) with `minus` before it when `value` is negative and the shown
/// magnitude is not zero: a figure that rounds to zero is never "-$0.00" or "-0.0 %".
fn with_sign(value: f64, minus: &str, body: String) -> String {
    let shows_a_digit = body.chars().any(|c| matches!(c, '1'..='9'));
    if value < 0.0 && shows_a_digit {
        format!("{minus}{body}")
    } else {
        body
    }
}

/// A signed number at `decimals` places, its sign always shown ("+0.3", "-1.2"),
/// and zero as "+0.0" whichever side of zero it was rounded from.
pub fn signed_fixed(value: f64, decimals: usize) -> String {
    let scale = 10f64.powi(decimals as i32);
    // Adding +0.0 turns a rounded -0.0 into +0.0.
    let rounded = (value * scale).round() / scale + 0.0;
    format!("{rounded:+.decimals$}")
}

/// Dollars, compact for tables: "$4.21M", "$812k", "$12.50".
pub fn usd_compact(value: f64) -> String {
    let v = value.abs();
    let body = if v >= 1e9 {
        format!("${:.2}B", v / 1e9)
    } else if v >= 1e6 {
        format!("${:.2}M", v / 1e6)
    } else if v >= 1e4 {
        format!("${:.0}k", v / 1e3)
    } else if v >= 100.0 {
        format!("${}", thousands(v))
    } else {
        format!("${v:.2}")
    };
    with_sign(value, "-", body)
}

/// An amount that may be negative, with a typographic minus: "−$1.25M", "$812k".
pub fn usd_compact_signed(value: f64) -> String {
    with_sign(value, "−", usd_compact(value.abs()))
}

/// As `usd_compact_signed`, in full: "−$486,540".
pub fn usd_signed(value: f64) -> String {
    with_sign(value, "−", usd(value.abs()))
}

/// 0.4512 → "45.1 %"; halves round away from zero, as a planner rounds (0.0625 → "6.3 %").
pub fn pct(frac: f64) -> String {
    let tenths_of_pct = (frac * 1000.0).round();
    // + 0.0: a fraction that rounds to zero from below is "0.0 %", not "-0.0 %".
    format!("{:.1} %", tenths_of_pct / 10.0 + 0.0)
}

/// A count with an SI suffix: 12.5e9 → "12.5B", 90e6 → "90.0M".
pub fn si(value: f64) -> String {
    let v = value.abs();
    let body = if v >= 1e12 {
        format!("{:.1}T", v / 1e12)
    } else if v >= 1e9 {
        format!("{:.1}B", v / 1e9)
    } else if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{v:.0}")
    };
    with_sign(value, "-", body)
}

/// A signed relative difference: "+0.3 %".
pub fn delta_pct(actual: f64, reference: f64) -> String {
    format!("{} %", signed_fixed((actual / reference - 1.0) * 100.0, 1))
}

/// A count with its noun: `1 point`, `3 points`, `1,204 hosts`.
pub fn count_of(count: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(count as f64), if count == 1 { one } else { many })
}

/// A wait as a person reads it: `0`, `40 s`, `12 min`, `3.5 h`, `2.1 d`; `compact` for a
/// narrow pane: `40s`, `12m`, `3.5h`, `2.1d`.
pub fn wait_text(ms: Option<f64>, compact: bool) -> String {
    let Some(ms) = ms else { return "-".to_string() };
    let s = ms / 1000.0;
    let (value, unit) = if s < 0.5 {
        return "0".to_string();
    } else if s < 90.0 {
        (format!("{s:.0}"), if compact { "s" } else { " s" })
    } else if s < 90.0 * 60.0 {
        (format!("{:.0}", s / 60.0), if compact { "m" } else { " min" })
    } else if s < 48.0 * 3600.0 {
        (format!("{:.1}", s / 3600.0), if compact { "h" } else { " h" })
    } else {
        (format!("{:.1}", s / 86_400.0), if compact { "d" } else { " d" })
    };
    value + unit
}

/// Where a message points, as its prefix: `file:line:column: `, the line and column where
/// known; nothing where no file is named (no input was given), never a blank name.
pub fn file_place(file: &str, line: Option<u64>, column: Option<u64>) -> String {
    if file.is_empty() {
        return String::new();
    }
    let line_part = line.map_or(String::new(), |l| format!(":{l}"));
    let column_part = line.and(column).map_or(String::new(), |c| format!(":{c}"));
    format!("{file}{line_part}{column_part}: ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_name_keeps_its_start_and_its_end() {
        let origin = "duckdb read_parquet('/data/warehouse-2000000/*.parquet')";
        let short = middle_truncated(origin, 30);
        assert_eq!(short.chars().count(), 30);
        assert_eq!(short, "duckdb read_pa…000/*.parquet')");
        assert_eq!(middle_truncated("jobs.csv", 30), "jobs.csv");
        assert_eq!(middle_truncated("abc", 1), "…");
    }

    use super::*;

    #[test]
    fn a_capacity_keeps_the_precision_it_holds() {
        assert_eq!(gpu_count(65.59), "65.59");
        assert_eq!(gpu_count(1_024.0), "1,024");
        assert_eq!(gpu_count(12_345.5), "12,345.50");
        assert_eq!(gpu_count(0.5), "0.50");
        assert_eq!(gpu_count(7.999), "8", "within a hundredth of a count is the count");
    }

    #[test]
    fn dollars_read_as_a_planner_writes_them() {
        assert_eq!(usd(4_212_345.4), "$4,212,345");
        assert_eq!(usd(12.5), "$12.50");
        assert_eq!(usd(-1500.0), "-$1,500");
        assert_eq!(usd_compact(4_212_345.0), "$4.21M");
        assert_eq!(usd_compact(29_700.0), "$30k");
        assert_eq!(usd_compact(1_433.0), "$1,433");
        assert_eq!(thousands(999.4), "999");
        assert_eq!(thousands(1000.0), "1,000");
    }

    #[test]
    fn percentages_volumes_and_deltas() {
        assert_eq!(pct(0.0625), "6.3 %");
        assert_eq!(pct(0.45), "45.0 %");
        assert_eq!(si(12.5e9), "12.5B");
        assert_eq!(si(90e6), "90.0M");
        assert_eq!(delta_pct(4.21, 4.2), "+0.2 %");
    }

    #[test]
    fn a_figure_that_rounds_to_zero_has_no_minus() {
        assert_eq!(usd(-0.001), "$0.00");
        assert_eq!(usd(-0.0), "$0.00");
        assert_eq!(usd_compact(-0.004), "$0.00");
        assert_eq!(usd_signed(-0.004), "$0.00");
        assert_eq!(usd_compact_signed(-0.001), "$0.00");
        assert_eq!(usd_signed(-0.01), "−$0.01");
        assert_eq!(pct(-0.00001), "0.0 %");
        assert_eq!(si(-0.2), "0");
        assert_eq!(delta_pct(100.0, 100.0001), "+0.0 %");
        assert_eq!(signed_fixed(-0.04, 1), "+0.0");
        assert_eq!(signed_fixed(-0.06, 1), "-0.1");
        assert_eq!(signed_fixed(2.346, 2), "+2.35");
    }
}
