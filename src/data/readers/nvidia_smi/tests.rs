use std::path::Path;

use polars::prelude::*;

use super::*;
use crate::data::readers::dcgm::{GPU, HOST, METRIC, SAMPLES, UTIL_FRAC, utilization_schema};
use crate::data::readers::reject::RejectReason;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/h200-a");

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(FIXTURE).join(name)
}

/// Every value of every measure, as read.
#[derive(Default)]
struct Collected {
    values: Vec<(i64, String, Measure, MeasureValue)>,
}

impl Readings for Collected {
    fn line(&mut self, r: &LineReading<'_>) {
        for (measure, value) in r.values {
            self.values
                .push((r.time_ms, r.gpu.to_string(), *measure, value.clone()));
        }
    }
}

fn collect(name: &str, layout: RecordingLayout) -> (Collected, Parsed) {
    let path = fixture(name);
    let text = std::fs::read_to_string(&path).expect("fixture");
    let mut sink = Collected::default();
    let parsed = match layout {
        RecordingLayout::Query => read_query(&path, text.as_bytes(), Ok("h200-a"), None, &mut sink),
        RecordingLayout::Dmon => read_dmon(&path, text.as_bytes(), Ok("h200-a"), &mut sink),
    }
    .expect("read");
    (sink, parsed)
}

/// truth.json's phases: name, start and end in UTC milliseconds.
fn phases() -> Vec<(String, i64, i64)> {
    let text = std::fs::read_to_string(fixture("truth.json")).expect("truth.json");
    let truth: serde_json::Value = serde_json::from_str(&text).expect("json");
    let ms = |v: &serde_json::Value| {
        chrono::DateTime::parse_from_rfc3339(v.as_str().expect("time"))
            .expect("rfc 3339")
            .timestamp_millis()
    };
    truth["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().expect("name").to_string(),
                ms(&p["start"]),
                ms(&p["end"]),
            )
        })
        .collect()
}

/// The mean of a measure's values within a phase (the recording's clock is UTC, as truth's).
fn phase_mean(collected: &Collected, measure: Measure, phase: &str) -> f64 {
    let (_, start, end) = phases().into_iter().find(|(n, _, _)| n == phase).expect("phase");
    let values: Vec<f64> = collected
        .values
        .iter()
        .filter(|(t, _, m, _)| *m == measure && (start..end).contains(t))
        .filter_map(|(_, _, _, v)| v.clone().ok().flatten())
        .collect();
    assert!(!values.is_empty(), "{phase}: no {measure:?}");
    values.iter().sum::<f64>() / values.len() as f64
}

/// The phases' means read from the three recordings against truth.json, and against the table
/// the recording's README gives (its means, read from the same files, to one decimal; which
/// side of a phase's bound a sample falls on is not said there, and moves a mean by 0.25 at
/// most here).
#[test]
fn each_phase_reads_as_the_load_ran() {
    let (query, _) = collect("nvidia-smi-query.csv", RecordingLayout::Query);
    let (dmon, _) = collect("dmon.txt", RecordingLayout::Dmon);
    let (gpm, parsed) = collect("dmon-gpm.txt", RecordingLayout::Dmon);
    assert!(parsed.quarantine.total() == 0, "{:?}", parsed.quarantine);
    let readme = [
        ("idle", [0.0, 0.0, 3.3, 3.1, 3.0]),
        ("duty50", [50.4, 50.1, 48.0, 38.9, 37.7]),
        ("full", [97.8, 99.3, 98.7, 95.2, 92.5]),
        ("tiny", [27.7, 27.9, 28.0, 10.9, 0.9]),
    ];
    for (phase, expected) in readme {
        let read = [
            phase_mean(&query, Measure::UtilizationGpu, phase),
            phase_mean(&dmon, Measure::DmonSm, phase),
            phase_mean(&gpm, Measure::Gract, phase),
            phase_mean(&gpm, Measure::Smutil, phase),
            phase_mean(&gpm, Measure::Mmaact, phase),
        ];
        for (got, want) in read.iter().zip(expected) {
            assert!(
                (got - want).abs() <= 0.3,
                "{phase}: read {read:?}, the README says {expected:?}"
            );
        }
    }
    // truth.json: no kernel ran while idle; the any-kernel measures read exactly 0 (GPM's first
    // interval after the warm-up still carries some of it).
    assert_eq!(phase_mean(&query, Measure::UtilizationGpu, "idle"), 0.0);
    assert_eq!(phase_mean(&dmon, Measure::DmonSm, "idle"), 0.0);
    assert!(phase_mean(&gpm, Measure::Gract, "idle") < 5.0);
    // The duty cycle kept kernels running 50.2 % of the time: gract reads it to 5 points, the
    // any-kernel measures to 2.
    assert!((phase_mean(&gpm, Measure::Gract, "duty50") - 50.16).abs() <= 5.0);
    assert!((phase_mean(&query, Measure::UtilizationGpu, "duty50") - 50.16).abs() <= 2.0);
    assert!((phase_mean(&dmon, Measure::DmonSm, "duty50") - 50.16).abs() <= 2.0);
    // Full load: every measure of activity above 95 %.
    for (collected, measure) in [
        (&query, Measure::UtilizationGpu),
        (&dmon, Measure::DmonSm),
        (&gpm, Measure::Gract),
    ] {
        assert!(phase_mean(collected, measure, "full") > 95.0);
    }
    // Tiny kernels: a kernel always queued, the SMs nearly idle. The any-kernel measures read a
    // quarter busy; SM activity less than half that, the tensor cores almost nothing.
    let tiny_util = phase_mean(&query, Measure::UtilizationGpu, "tiny");
    let tiny_sm_active = phase_mean(&gpm, Measure::Smutil, "tiny");
    assert!(tiny_util > 25.0 && tiny_sm_active < 12.0 && tiny_sm_active < tiny_util / 2.0);
    assert!(phase_mean(&gpm, Measure::Mmaact, "tiny") < 1.0);
    // The any-kernel measure swings 0 ↔ 99 sample to sample in the duty cycle and averages right.
    let (_, start, end) = phases().into_iter().find(|(n, _, _)| n == "duty50").expect("duty50");
    let duty: Vec<f64> = query
        .values
        .iter()
        .filter(|(t, ..)| (start..end).contains(t))
        .filter_map(|(.., v)| v.clone().ok().flatten())
        .collect();
    assert!(duty.contains(&0.0) && duty.iter().any(|&v| v >= 99.0));
}

/// At 20:39:44 the GPM recording reads gract 483953272 %: set aside with its line, never a value.
#[test]
fn the_glitch_is_kept_out() {
    let (gpm, _) = collect("dmon-gpm.txt", RecordingLayout::Dmon);
    let glitches: Vec<_> = gpm.values.iter().filter(|(.., v)| v.is_err()).collect();
    assert_eq!(glitches.len(), 1);
    assert_eq!(glitches[0].2, Measure::Gract);
    let recording = read_recording(&fixture("dmon-gpm.txt"), RecordingLayout::Dmon).expect("read");
    assert_eq!(
        recording.quarantine.counts.get(&RejectReason::UnparseableNumber),
        Some(&1)
    );
    let sample = &recording.quarantine.samples[0];
    assert_eq!(sample.line, 152);
    assert!(
        sample.detail.contains("gract: 483953272 % is outside 0–100 %"),
        "{}",
        sample.detail
    );
    let util = recording.frame.column(UTIL_FRAC).expect("util").f64().expect("f64");
    assert!(util.max().is_some_and(|m| m <= 1.0));
    assert!(
        recording.summary().contains("1 GPU by gract"),
        "{}",
        recording.summary()
    );
}

fn strings(frame: &DataFrame, name: &str) -> Vec<String> {
    let column = frame.column(name).expect("column").str().expect("strings");
    column.iter().map(|v| v.unwrap_or("").to_string()).collect()
}

/// Folded a minute a row, the frame still holds every sample: its weights add up to the
/// samples read, and the weighted mean is the samples' mean.
#[test]
fn recordings_fold_into_minutes_without_losing_a_sample() {
    for (name, layout, measure) in [
        ("nvidia-smi-query.csv", RecordingLayout::Query, Measure::UtilizationGpu),
        ("dmon.txt", RecordingLayout::Dmon, Measure::DmonSm),
        ("dmon-gpm.txt", RecordingLayout::Dmon, Measure::Gract),
    ] {
        let (collected, _) = collect(name, layout);
        let values: Vec<f64> = collected
            .values
            .iter()
            .filter(|(_, _, m, _)| *m == measure)
            .filter_map(|(.., v)| v.clone().ok().flatten())
            .collect();
        let recording = read_recording(&fixture(name), layout).expect("read");
        let frame = &recording.frame;
        assert_eq!(frame.schema().as_ref(), &utilization_schema(), "{name}");
        assert_eq!(frame.height(), 4, "{name}: 20:37 to 20:40, four minutes");
        let weights: Vec<u32> = frame
            .column(SAMPLES)
            .expect("samples")
            .u32()
            .expect("u32")
            .into_no_null_iter()
            .collect();
        assert_eq!(
            weights.iter().map(|&w| u64::from(w)).sum::<u64>(),
            values.len() as u64,
            "{name}"
        );
        let util: Vec<f64> = frame
            .column(UTIL_FRAC)
            .expect("util")
            .f64()
            .expect("f64")
            .into_no_null_iter()
            .collect();
        let weighted: f64 = util.iter().zip(&weights).map(|(u, &w)| u * f64::from(w)).sum();
        let mean = values.iter().sum::<f64>() / values.len() as f64 / 100.0;
        assert!((weighted / values.len() as f64 - mean).abs() < 1e-12, "{name}");
        assert_eq!(strings(frame, HOST), vec!["h200-a"; 4]);
        assert_eq!(strings(frame, GPU), vec!["0"; 4]);
        assert_eq!(strings(frame, METRIC), vec![measure.label(); 4]);
        assert_eq!(frame.column(UTC_OFFSET_MIN_NAME).expect("offset").null_count(), 4);
    }
}

const UTC_OFFSET_MIN_NAME: &str = crate::data::readers::dcgm::UTC_OFFSET_MIN;

fn read_text(name: &str, text: &str, layout: RecordingLayout) -> Result<NodeRecording, String> {
    read_recording_text(Path::new(name), text, layout, None).map_err(|e| e.to_string())
}

#[test]
fn several_gpus_units_and_missing_values_in_a_query() {
    let text = "\
timestamp, index, uuid, utilization.gpu [%], power.draw [W]
2026/11/26 20:37:19.985, 0, GPU-a, 45 %, 99.94 W
2026/11/26 20:37:19.985, 1, GPU-b, [N/A], 80.00 W
2026/11/26 20:37:20.485, 0, GPU-a, 55 %, 99.94 W
2026/11/26 20:37:20.485, 1, GPU-b, 10 %, [Not Supported]
timestamp, index, uuid, utilization.gpu [%], power.draw [W]
2026/11/26 20:37:20.985, 1, GPU-b, 30, 80.00 W
2026/11/26 20:37:21, 1, GPU-b
2026/13/26 20:37:21.000, 1, GPU-b, 30, 80.00 W
";
    let recording = read_text("logs/node17.csv", text, RecordingLayout::Query).expect("read");
    assert_eq!(recording.host, Some(("node17".to_string(), HostOrigin::FileName)));
    assert_eq!(strings(&recording.frame, GPU), vec!["0", "1"]);
    let util: Vec<f64> = recording
        .frame
        .column(UTIL_FRAC)
        .expect("u")
        .f64()
        .expect("f")
        .into_no_null_iter()
        .collect();
    assert!(
        (util[0] - 0.5).abs() < 1e-12 && (util[1] - 0.2).abs() < 1e-12,
        "{util:?}"
    );
    assert_eq!(recording.quarantine.counts.get(&RejectReason::MalformedRow), Some(&1));
    assert_eq!(
        recording.quarantine.counts.get(&RejectReason::UnparseableTime),
        Some(&1)
    );
    assert!(
        recording
            .quarantine
            .samples
            .iter()
            .any(|r| r.line == 8 && r.detail.contains("expected 5"))
    );
}

#[test]
fn a_query_without_header_needs_its_field_list() {
    let text = "2026/11/26 20:37:19.985, 0, 45\n2026/11/26 20:37:20.985, 0, 55\n";
    let refused = read_text("node17.csv", text, RecordingLayout::Query).expect_err("no header");
    assert!(
        refused.contains("node17.header") && refused.contains("noheader"),
        "{refused}"
    );
    let read = read_recording_text(
        Path::new("node17.csv"),
        text,
        RecordingLayout::Query,
        Some("timestamp,index,utilization.gpu\n"),
    )
    .expect("with its header file");
    assert_eq!(read.samples, 2);
    let no_util = read_text(
        "node17.csv",
        "timestamp, index, power.draw [W]\n",
        RecordingLayout::Query,
    )
    .expect_err("nothing to measure");
    assert!(
        no_util.contains("no utilization.gpu field") && no_util.contains("--query-gpu="),
        "{no_util}"
    );
}

#[test]
fn dmon_needs_dates_on_its_lines() {
    let time_only = "#Time        gpu     sm\n#HH:MM:SS    Idx      %\n 20:37:19      0     45\n";
    let refused = read_text("node17.dmon.txt", time_only, RecordingLayout::Dmon).expect_err("no date");
    assert!(
        refused.contains("-o T") && refused.contains("-o DT") && refused.contains(":1:"),
        "{refused}"
    );
    let no_time = "# gpu     sm\n# Idx      %\n    0     45\n";
    let refused = read_text("node17.dmon.txt", no_time, RecordingLayout::Dmon).expect_err("no time");
    assert!(refused.contains("without -o DT"), "{refused}");
    let no_util = "#Date Time gpu pwr\n#YYYYMMDD HH:MM:SS Idx W\n 20261126 20:37:19 0 99\n";
    let refused = read_text("node17.dmon.txt", no_util, RecordingLayout::Dmon).expect_err("no sm");
    assert!(refused.contains("-s u"), "{refused}");
}

/// Two GPUs, a selection with only `-s u`, GPM on one GPU only (the other's always `-`), a
/// header block repeated, a line cut short and a line of another tool.
#[test]
fn dmon_per_gpu_measures_and_repeated_headers() {
    let text = "\
#Date       Time        gpu     sm    mem  gract smutil
#YYYYMMDD   HH:MM:SS    Idx      %      %  GPM:%  GPM:%
 20261126   23:59:59      0     80     10      -      -
 20261126   23:59:59      1     40     10      -      -
 20261127   00:00:00      0     80     10     60     50
 20261127   00:00:00      1     40     10      -      -
#Date       Time        gpu     sm    mem  gract smutil
#YYYYMMDD   HH:MM:SS    Idx      %      %  GPM:%  GPM:%
 20261127   00:00:01      0     80     10     70     50
 20261127   00:00:01      1     40
Failed to read GPM metrics
";
    let recording = read_text("node17.dmon.txt", text, RecordingLayout::Dmon).expect("read");
    let series: Vec<(String, Option<Measure>)> = recording.series.iter().map(|(_, g, m)| (g.clone(), *m)).collect();
    assert_eq!(
        series,
        vec![
            ("0".to_string(), Some(Measure::Gract)),
            ("1".to_string(), Some(Measure::DmonSm))
        ]
    );
    // GPU 0: gract 60 and 70 at midnight; its sm samples superseded. GPU 1: sm 40 twice (23:59, 00:00).
    assert_eq!(strings(&recording.frame, GPU), vec!["0", "1", "1"]);
    let util: Vec<f64> = recording
        .frame
        .column(UTIL_FRAC)
        .expect("u")
        .f64()
        .expect("f")
        .into_no_null_iter()
        .collect();
    assert_eq!(util, vec![0.65, 0.4, 0.4]);
    assert_eq!(recording.quarantine.counts.get(&RejectReason::MalformedRow), Some(&2));
}

/// A file given a host column may gather a fleet; one naming more GPUs than any fleet is
/// refused rather than held.
#[test]
fn a_recording_of_too_many_gpus_is_refused() {
    let mut text = String::from("timestamp, host, index, utilization.gpu [%]\n");
    for host in 0..=fold::MAX_SERIES {
        text.push_str(&format!("2026/11/26 20:37:19.985, n{host}, 0, 45 %\n"));
    }
    let refused = read_text("fleet.csv", &text, RecordingLayout::Query).expect_err("too many");
    assert!(refused.contains("more than 100000 GPUs"), "{refused}");
    let fits: String = text.lines().take(1_001).map(|l| format!("{l}\n")).collect();
    let read = read_text("fleet.csv", &fits, RecordingLayout::Query).expect("a thousand GPUs");
    assert_eq!(read.series.len(), 1_000);
    assert_eq!(read.host, None, "the lines name their hosts");
}

/// Each folded minute keeps the span its own samples covered: from its first sample less half
/// their spacing to its last plus half, in milliseconds from the minute's start, so the audit
/// weighs a minute that a job or an hour cuts by the part of that span inside it.
#[test]
fn each_folded_minute_keeps_the_span_its_samples_covered() {
    use crate::data::readers::dcgm::{COVER_FROM_MS, COVER_TO_MS};
    for (name, layout, measure) in [
        ("nvidia-smi-query.csv", RecordingLayout::Query, Measure::UtilizationGpu),
        ("dmon-gpm.txt", RecordingLayout::Dmon, Measure::Gract),
    ] {
        let (collected, _) = collect(name, layout);
        let mut by_minute: std::collections::BTreeMap<i64, Vec<i64>> = Default::default();
        for (time_ms, _, m, value) in &collected.values {
            if *m == measure && matches!(value, Ok(Some(_))) {
                by_minute
                    .entry(time_ms.div_euclid(60_000) * 60_000)
                    .or_default()
                    .push(*time_ms);
            }
        }
        let expected: Vec<(i32, i32)> = by_minute
            .iter()
            .map(|(start, times)| {
                let (first, last) = (times[0] - start, times[times.len() - 1] - start);
                let half = (last - first) / (2 * (times.len() as i64 - 1));
                ((first - half) as i32, (last + half) as i32)
            })
            .collect();
        let frame = read_recording(&fixture(name), layout).expect("read").frame;
        let ints = |column: &str| -> Vec<i32> {
            let values = frame.column(column).expect("cover").i32().expect("i32");
            values.into_no_null_iter().collect()
        };
        let got: Vec<(i32, i32)> = ints(COVER_FROM_MS).into_iter().zip(ints(COVER_TO_MS)).collect();
        assert_eq!(got, expected, "{name}");
        // The query CSV's first minute starts at 20:37:19.985, a sample every ~500 ms.
        if name.ends_with(".csv") {
            assert!((19_700..19_800).contains(&got[0].0), "{got:?}");
            assert!((59_800..60_300).contains(&got[0].1), "{got:?}");
        }
    }
}
