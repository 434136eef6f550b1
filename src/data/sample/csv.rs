//! The rows as CSV, formatted by hand: this is the 10M-row path.

use std::borrow::Borrow;
use std::io::{self, Write};

use super::{Defect, SampleRow};
use crate::data::canonical::MS_PER_SECOND;

/// The CSV header [`write_csv`] writes.
pub const HEADER: &str = "job_id,cluster,name,user,queue,state,start,end,gpus,gpu_type,gpu_util_pct,label";

/// What the start of a row broken with `Defect::UnparseableTime` says instead of a time.
pub(super) const GARBLED_TIMES: [&str; 3] = ["2024-13-45T25:61:00Z", "not-a-time", "0000-00-00T00:00:00Z"];

/// Writes the header and the rows as CSV.
pub fn write_csv(rows: &[SampleRow], out: &mut impl Write) -> io::Result<()> {
    write_csv_iter(rows, out).map(|_| ())
}

/// Writes the header and rows from any iterator (e.g. [`rows`](super::rows)) as CSV, formatting into a
/// 64 KiB buffer of its own; returns the number of rows written.
pub fn write_csv_iter<I>(rows: I, out: &mut impl Write) -> io::Result<u64>
where
    I: IntoIterator,
    I::Item: Borrow<SampleRow>,
{
    const FLUSH_AT: usize = 64 * 1024;
    let mut buf = Vec::with_capacity(FLUSH_AT + 1024);
    buf.extend_from_slice(HEADER.as_bytes());
    buf.push(b'\n');
    let mut written = 0u64;
    for row in rows {
        push_csv_row(&mut buf, row.borrow());
        written += 1;
        if buf.len() >= FLUSH_AT {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    out.flush()?;
    Ok(written)
}

fn push_csv_row(buf: &mut Vec<u8>, row: &SampleRow) {
    push_u64(buf, row.job_id);
    buf.push(b',');
    // Names come from fixed tables: no commas or quotes, nothing to escape.
    buf.extend_from_slice(row.cluster.as_bytes());
    buf.push(b',');
    buf.extend_from_slice(row.name.as_bytes());
    buf.push(b',');
    buf.extend_from_slice(row.user.as_bytes());
    buf.push(b',');
    buf.extend_from_slice(row.queue.as_bytes());
    buf.push(b',');
    buf.extend_from_slice(row.state.as_bytes());
    buf.push(b',');
    if row.defect == Some(Defect::UnparseableTime) {
        let garbled = GARBLED_TIMES[(row.job_id % GARBLED_TIMES.len() as u64) as usize];
        buf.extend_from_slice(garbled.as_bytes());
    } else {
        push_time(buf, row.start_ms);
    }
    buf.push(b',');
    if let Some(end) = row.end_ms {
        push_time(buf, end);
    }
    buf.push(b',');
    push_number(buf, row.gpus);
    buf.push(b',');
    buf.extend_from_slice(row.gpu_type.as_bytes());
    buf.push(b',');
    push_tenths(buf, row.gpu_util_pct);
    buf.push(b',');
    if let Some(label) = row.label {
        buf.extend_from_slice(label.as_str().as_bytes());
    }
    buf.push(b'\n');
}

fn push_u64(buf: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

fn push_padded(buf: &mut Vec<u8>, value: u32, width: usize) {
    let mut digits = [b'0'; 10];
    let mut v = value;
    for i in (0..width).rev() {
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    buf.extend_from_slice(&digits[..width]);
}

/// Whole numbers without a decimal point, anything else in Rust's shortest form (0.25, 0.5).
pub(super) fn push_number(buf: &mut Vec<u8>, value: f64) {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        if value < 0.0 {
            buf.push(b'-');
        }
        push_u64(buf, value.abs() as u64);
    } else {
        // Writing to a Vec cannot fail.
        let _ = write!(buf, "{value}");
    }
}

/// One decimal (`73.4`, `80.0`); `NaN` for a broken value.
pub(super) fn push_tenths(buf: &mut Vec<u8>, value: f64) {
    if !value.is_finite() {
        buf.extend_from_slice(b"NaN");
        return;
    }
    let tenths = (value * 10.0).round() as i64;
    if tenths < 0 {
        buf.push(b'-');
    }
    push_u64(buf, tenths.unsigned_abs() / 10);
    buf.push(b'.');
    buf.push(b'0' + (tenths.unsigned_abs() % 10) as u8);
}

/// `YYYY-MM-DDTHH:MM:SSZ` (UTC); years outside 0–9999 fall back to Rust's formatting.
pub(super) fn push_time(buf: &mut Vec<u8>, ms: i64) {
    let secs = ms.div_euclid(MS_PER_SECOND);
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let second_of_day = secs.rem_euclid(86_400) as u32;
    if !(0..=9999).contains(&year) {
        let _ = write!(buf, "{year}-");
    } else {
        push_padded(buf, year as u32, 4);
        buf.push(b'-');
    }
    push_padded(buf, month, 2);
    buf.push(b'-');
    push_padded(buf, day, 2);
    buf.push(b'T');
    push_padded(buf, second_of_day / 3600, 2);
    buf.push(b':');
    push_padded(buf, second_of_day / 60 % 60, 2);
    buf.push(b':');
    push_padded(buf, second_of_day % 60, 2);
    buf.push(b'Z');
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}
