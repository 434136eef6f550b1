//! Slurm's ways of writing one value: times (`Unknown`, ISO, epoch seconds), durations
//! (`[D-]HH:MM:SS`), GPUs in TRES and GRES strings, GPU utilization in `TRESUsageInAve`.

use chrono::{DateTime, NaiveDateTime};

use super::rows::Reject;
use crate::data::canonical::MAX_JOB_GPUS;
use crate::data::readers::reject::RejectReason;

/// A job's GPU utilization from `TRESUsageInAve`'s `gres/gpuutil` (percent). Slurm sums the
/// percentage over a step's GPUs, so a value above 100 is divided by the GPU count.
pub(super) fn gpu_util_of(tres: Option<&str>, gpus: f64) -> Option<f64> {
    let value: f64 = split_outside_parens(tres?)
        .into_iter()
        .find_map(|item| item.trim().strip_prefix("gres/gpuutil="))?
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
    let per_gpu = if value > 100.0 && gpus > 1.0 {
        value / gpus
    } else {
        value
    };
    Some((per_gpu / 100.0).clamp(0.0, 1.0))
}

pub(super) enum SlurmTime {
    At(i64),
    Unknown,
    Invalid,
}

pub(super) fn parse_slurm_time(raw: &str) -> SlurmTime {
    let s = raw.trim();
    if s.is_empty() || ["unknown", "none", "n/a"].iter().any(|m| s.eq_ignore_ascii_case(m)) {
        return SlurmTime::Unknown;
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        return match s.parse::<i64>().ok().and_then(|secs| secs.checked_mul(1000)) {
            Some(ms) => SlurmTime::At(ms),
            None => SlurmTime::Invalid,
        };
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, format) {
            return SlurmTime::At(t.and_utc().timestamp_millis());
        }
    }
    match DateTime::parse_from_rfc3339(s) {
        Ok(t) => SlurmTime::At(t.timestamp_millis()),
        Err(_) => SlurmTime::Invalid,
    }
}

/// Slurm's `[D-]HH:MM:SS`, `HH:MM:SS`, `MM:SS` or `MM:SS.mmm`, in milliseconds.
/// `UNLIMITED`, `INVALID` and `Partition_Limit` say nothing about a duration: `None`.
pub(crate) fn parse_elapsed_ms(raw: &str) -> Result<Option<i64>, ()> {
    let s = raw.trim();
    if ["unlimited", "invalid", "partition_limit", "unknown"]
        .iter()
        .any(|m| s.eq_ignore_ascii_case(m))
    {
        return Ok(None);
    }
    let number = |part: &str| -> Result<i64, ()> {
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(());
        }
        part.parse::<u32>().map(i64::from).map_err(|_| ())
    };
    let (days, clock) = match s.split_once('-') {
        Some((d, rest)) => (number(d)?, rest),
        None => (0, s),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    let (hours, minutes, seconds) = match parts.as_slice() {
        [h, m, sec] => (number(h)?, number(m)?, *sec),
        [m, sec] => (0, number(m)?, *sec),
        _ => return Err(()),
    };
    let (whole, millis) = match seconds.split_once('.') {
        Some((w, frac)) => {
            let frac_digits: String = frac.chars().chain("000".chars()).take(3).collect();
            (number(w)?, number(&frac_digits)?)
        }
        None => (number(seconds)?, 0),
    };
    Ok(Some(
        (((days * 24 + hours) * 60 + minutes) * 60 + whole) * 1000 + millis,
    ))
}

#[derive(Debug, Default, PartialEq)]
pub(super) struct Gpus {
    pub(super) count: f64,
    pub(super) gpu_type: Option<String>,
}

fn gpu_count(raw: &str) -> Result<f64, Reject> {
    match raw.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && (0.0..=MAX_JOB_GPUS).contains(&n) => Ok(n),
        Ok(n) if n < 0.0 => Err((RejectReason::NegativeGpus, format!("GPU count {raw}"))),
        _ => Err((RejectReason::UnparseableNumber, format!("GPU count \"{raw}\""))),
    }
}

/// `billing=8,cpu=8,gres/gpu=4,gres/gpu:h100=4,mem=96G,node=1` → 4 GPUs of type h100.
pub(super) fn gpus_from_tres(raw: &str) -> Result<Gpus, Reject> {
    let mut untyped: Option<f64> = None;
    let mut typed_total = 0.0;
    let mut types: Vec<String> = Vec::new();
    for entry in raw.split(',') {
        let Some((key, value)) = entry.split_once('=') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        if key == "gres/gpu" {
            untyped = Some(untyped.unwrap_or(0.0) + gpu_count(value)?);
        } else if let Some(gpu_type) = key.strip_prefix("gres/gpu:") {
            typed_total += gpu_count(value)?;
            if !gpu_type.is_empty() && !types.iter().any(|t| t == gpu_type) {
                types.push(gpu_type.to_string());
            }
        }
    }
    Ok(Gpus {
        count: untyped.unwrap_or(typed_total),
        gpu_type: join_types(types),
    })
}

/// `gpu:a100:8`, `gpu:8`, `gpu:a100:4(IDX:0-3)`, `gpu:2(IDX:0,2),mps:100` → GPUs and type.
pub(super) fn gpus_from_gres(raw: &str) -> Result<Gpus, Reject> {
    let mut count = 0.0;
    let mut types: Vec<String> = Vec::new();
    for item in split_outside_parens(raw) {
        let spec = item.split('(').next().unwrap_or("").trim();
        let mut parts = spec.split(':');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        if name != "gpu" && name != "gres/gpu" {
            continue;
        }
        let rest: Vec<&str> = parts.collect();
        let (gpu_type, n) = match rest.as_slice() {
            [] => (None, 1.0),
            [one] if one.trim().parse::<f64>().is_ok() => (None, gpu_count(one)?),
            [one] => (Some(*one), 1.0),
            [gpu_type, n, ..] => (Some(*gpu_type), gpu_count(n)?),
        };
        count += n;
        if let Some(t) = gpu_type.map(str::trim).filter(|t| !t.is_empty())
            && !types.iter().any(|seen| seen == t)
        {
            types.push(t.to_string());
        }
    }
    Ok(Gpus {
        count,
        gpu_type: join_types(types),
    })
}

fn join_types(mut types: Vec<String>) -> Option<String> {
    types.sort();
    (!types.is_empty()).then(|| types.join("+"))
}

fn split_outside_parens(raw: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut from = 0;
    for (i, c) in raw.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(&raw[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    items.push(&raw[from..]);
    items
}
