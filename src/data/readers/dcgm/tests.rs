use std::path::Path;

use chrono::NaiveDateTime;

use super::text::{parse_sample_time_ms, parse_util};
use super::wide::series_of;
use super::*;
use crate::data::readers::reject::RejectReason;

const LONG: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/dcgm/dcgm_long_mixed.csv"
));
const WIDE_UTIL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/dcgm/DCGM_FI_DEV_GPU_UTIL.csv"
));
const WIDE_SM: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/dcgm/DCGM_FI_PROF_SM_ACTIVE.csv"
));

fn utc_ms(iso: &str) -> i64 {
    NaiveDateTime::parse_from_str(iso, "%Y-%m-%dT%H:%M:%S")
        .expect("test time")
        .and_utc()
        .timestamp_millis()
}

fn strings(frame: &DataFrame, name: &str) -> Vec<String> {
    let column = frame.column(name).expect("column").str().expect("string column");
    column.iter().map(|v| v.unwrap_or("").to_string()).collect()
}

fn utils(frame: &DataFrame) -> Vec<Option<f64>> {
    frame
        .column(UTIL_FRAC)
        .expect("column")
        .f64()
        .expect("f64")
        .iter()
        .collect()
}

fn times(frame: &DataFrame) -> Vec<i64> {
    let physical = frame
        .column(TIME)
        .expect("column")
        .cast(&DataType::Int64)
        .expect("cast");
    physical.i64().expect("i64").iter().map(|v| v.expect("time")).collect()
}

fn lines(frame: &DataFrame) -> Vec<u64> {
    frame
        .column(SOURCE_LINE)
        .expect("column")
        .u64()
        .expect("u64")
        .iter()
        .map(|v| v.expect("line"))
        .collect()
}

#[test]
fn frame_has_the_utilization_schema() {
    let (frame, _) = read_dcgm_long(Path::new("dcgm.csv"), LONG).expect("readable");
    assert_eq!(frame.schema().as_ref(), &utilization_schema());
    let (empty, _) = read_dcgm_long(Path::new("dcgm.csv"), "time,host,gpu,metric,value\n").expect("header only");
    assert_eq!(empty.height(), 0);
    assert_eq!(empty.schema().as_ref(), &utilization_schema());
}

#[test]
fn long_mixed_metrics_keep_the_best_per_gpu_in_its_unit() {
    let out = read_dcgm_long_detailed(Path::new("dcgm.csv"), LONG).expect("readable");
    let frame = &out.frame;
    // node01 exports GR_ENGINE_ACTIVE (ratio) beside GPU_UTIL (percent): the ratio wins.
    // node02 exports only GPU_UTIL: its percentages are divided by 100.
    assert_eq!(
        strings(frame, HOST),
        ["node01", "node01", "node01", "node02", "node02", "node02"]
    );
    assert_eq!(strings(frame, GPU), ["0", "1", "0", "0", "0", "0"]);
    assert_eq!(
        utils(frame),
        [Some(0.92), Some(0.15), Some(0.9), Some(0.45), None, Some(1.0)]
    );
    assert_eq!(out.metrics[&UtilMetric::GrEngineActive], 3);
    assert_eq!(out.metrics[&UtilMetric::GpuUtil], 3);
    assert_eq!(out.superseded_samples, 3);
    assert_eq!(out.ignored_samples, 2);
    // Offsets are honoured: 12:00+02:00 is 10:00 UTC; epoch seconds and Z read too.
    let t = times(frame);
    assert_eq!(t[0], utc_ms("2024-03-01T10:00:00"));
    assert_eq!(t[2], utc_ms("2024-03-01T10:01:00"));
    assert_eq!(t[3], utc_ms("2024-03-01T10:00:00"));
    assert_eq!(t[4], utc_ms("2024-03-01T10:01:00"));
    assert_eq!(lines(frame), [2, 3, 6, 9, 10, 11]);
}

#[test]
fn long_bad_values_and_times_are_quarantined_with_lines() {
    let out = read_dcgm_long_detailed(Path::new("dcgm.csv"), LONG).expect("readable");
    let q = &out.quarantine;
    assert_eq!(q.counts[&RejectReason::UnparseableNumber], 2);
    assert_eq!(q.counts[&RejectReason::UnparseableTime], 1);
    assert_eq!(q.counts[&RejectReason::MalformedRow], 1);
    let at = |line: u64| q.samples.iter().find(|s| s.line == line).expect("sample at line");
    assert!(at(12).detail.contains("999865.0000000001"), "{}", at(12).detail);
    assert_eq!(at(13).reason, RejectReason::UnparseableNumber);
    assert_eq!(at(14).reason, RejectReason::UnparseableTime);
    assert_eq!(at(15).reason, RejectReason::MalformedRow);
    assert_eq!(at(12).file, "dcgm.csv");
}

#[test]
fn long_header_aliases_any_order_and_no_gpu_column() {
    let text = "Value,Hostname,TIMESTAMP,__name__\n\
                0.5,n1,1709287200,DCGM_FI_PROF_SM_ACTIVE\n\
                0.25,n1,1709287260.5,dcgm_fi_prof_sm_active\n";
    let out = read_dcgm_long_detailed(Path::new("x.csv"), text).expect("readable");
    assert_eq!(utils(&out.frame), [Some(0.5), Some(0.25)]);
    assert_eq!(strings(&out.frame, GPU), [ALL_GPUS, ALL_GPUS]);
    assert_eq!(
        times(&out.frame),
        [utc_ms("2024-03-01T10:00:00"), utc_ms("2024-03-01T10:01:00") + 500]
    );
    // Detection reads the header with the long reader's own rule: Prometheus' `__name__` export
    // is a long layout, not a job log.
    assert_eq!(
        detected("d.csv", "Value,Hostname,TIMESTAMP,__name__"),
        Some(crate::data::readers::formats::LogFormat::DcgmLong)
    );
    assert_eq!(
        detected("d.csv", "time,host,gpu,metric,value,"),
        Some(crate::data::readers::formats::LogFormat::DcgmLong)
    );
    assert_ne!(
        detected("d.csv", "Time,node01,node02"),
        Some(crate::data::readers::formats::LogFormat::DcgmLong)
    );
}

#[test]
fn percent_and_ratio_units() {
    assert_eq!(parse_util("87", UtilMetric::GpuUtil), Ok(Some(0.87)));
    assert_eq!(parse_util("0.87", UtilMetric::SmActive), Ok(Some(0.87)));
    assert_eq!(parse_util("1.004", UtilMetric::GrEngineActive), Ok(Some(1.0)));
    assert!(parse_util("87", UtilMetric::SmActive).is_err());
    assert!(parse_util("-3", UtilMetric::GpuUtil).is_err());
    assert!(parse_util("NaN", UtilMetric::GpuUtil).is_err());
    assert!(parse_util("999865.0000000001", UtilMetric::GpuUtil).is_err());
    for null in ["", "NA", "N/A", "NULL", "None", "null"] {
        assert_eq!(parse_util(null, UtilMetric::GpuUtil), Ok(None), "{null}");
    }
}

#[test]
fn time_forms() {
    let ten = utc_ms("2024-03-01T10:00:00");
    for form in [
        "2024-03-01T10:00:00Z",
        "2024-03-01T12:00:00+02:00",
        "2024-03-01T05:00:00-05:00",
        "2024-03-01 12:00:00+02:00",
        "2024-03-01T12:00:00+0200",
        "2024-03-01T10:00:00",
        "2024-03-01 10:00:00 UTC",
        "2024-03-01T10:00:00.000Z",
        "1709287200",
        "1709287200000",
    ] {
        assert_eq!(parse_sample_time_ms(form), Some(ten), "{form}");
    }
    assert_eq!(parse_sample_time_ms("1709287200.25"), Some(ten + 250));
    assert_eq!(parse_sample_time_ms("yesterday"), None);
    assert_eq!(parse_sample_time_ms("NaN"), None);
    assert_eq!(parse_sample_time_ms("2024-03-01"), None);
    assert_eq!(parse_sample_time_ms("2024-02-30T10:00:00Z"), None);
}

#[test]
fn wide_percent_file_reads_per_host_series() {
    let path = Path::new("exports/DCGM_FI_DEV_GPU_UTIL.csv");
    let out = read_dcgm_wide_detailed(path, WIDE_UTIL, None).expect("readable");
    let frame = &out.frame;
    assert_eq!(frame.schema().as_ref(), &utilization_schema());
    assert_eq!(
        strings(frame, HOST),
        [
            "node01", "node01", "node02", "node01", "node01", "node02", "node01", "node02"
        ]
    );
    assert_eq!(strings(frame, GPU), ["0", "1", "all", "0", "1", "all", "0", "all"]);
    assert_eq!(
        utils(frame),
        [
            Some(0.97),
            Some(0.12),
            Some(0.5),
            Some(0.99),
            None,
            Some(0.0),
            Some(1.0),
            None
        ]
    );
    assert_eq!(out.metrics[&UtilMetric::GpuUtil], 8);
    assert_eq!(times(frame)[0], utc_ms("2024-03-01T10:00:00"));
    assert_eq!(lines(frame), [2, 2, 2, 3, 3, 3, 4, 4]);
    // Row 4's node01/gpu1 cell is out of range; row 5's time is bad.
    let q = &out.quarantine;
    assert_eq!(q.counts[&RejectReason::UnparseableNumber], 1);
    assert_eq!(q.counts[&RejectReason::UnparseableTime], 1);
    let lines: Vec<u64> = q.samples.iter().map(|s| s.line).collect();
    assert_eq!(lines, [4, 5]);
    assert!(q.samples[0].detail.contains("node01/gpu1"), "{}", q.samples[0].detail);
}

#[test]
fn wide_ratio_file_with_label_names_offsets_and_trailing_commas() {
    let path = Path::new("DCGM_FI_PROF_SM_ACTIVE.csv");
    let out = read_dcgm_wide_detailed(path, WIDE_SM, None).expect("readable");
    let frame = &out.frame;
    assert_eq!(strings(frame, HOST), ["node07", "node07", "node07", "node07"]);
    assert_eq!(strings(frame, GPU), ["0", "1", "0", "1"]);
    assert_eq!(utils(frame), [Some(0.81), Some(0.4), Some(0.77), Some(0.0)]);
    assert_eq!(
        times(frame),
        [
            utc_ms("2024-03-01T10:00:00"),
            utc_ms("2024-03-01T10:00:00"),
            utc_ms("2024-03-01T10:00:30"),
            utc_ms("2024-03-01T10:00:30")
        ]
    );
    assert_eq!(out.quarantine.total(), 0);
}

#[test]
fn wide_metric_from_the_caller_and_other_metrics_ignored() {
    let text = "Time,node01/0\n2024-03-01T10:00:00Z,0.5\n";
    let (frame, _) =
        read_dcgm_wide(Path::new("util.csv"), text, Some("DCGM_FI_PROF_GR_ENGINE_ACTIVE")).expect("metric");
    assert_eq!(utils(&frame), [Some(0.5)]);
    let err = read_dcgm_wide(Path::new("util.csv"), text, None)
        .expect_err("no metric")
        .to_string();
    assert!(err.contains("util.csv") && err.contains("metric"), "{err}");
    let clocks = "Time,node01,node02\n2024-03-01T10:00:00Z,1593,1593\n2024-03-01T10:01:00Z,1593,\n";
    let out = read_dcgm_wide_detailed(Path::new("DCGM_FI_DEV_MEM_CLOCK.csv"), clocks, None).expect("ignored");
    assert_eq!(out.frame.height(), 0);
    assert_eq!(out.ignored_samples, 3);
    assert_eq!(out.frame.schema().as_ref(), &utilization_schema());
}

#[test]
fn wide_detection_and_names() {
    assert_eq!(
        detected("DCGM_FI_DEV_GPU_UTIL.csv", "Time,node01,node02"),
        Some(crate::data::readers::formats::LogFormat::DcgmWide)
    );
    assert_eq!(
        detected("dcgm_fi_prof_sm_active-2024-03.csv", "\"Time\",\"node01\""),
        Some(crate::data::readers::formats::LogFormat::DcgmWide)
    );
    assert_ne!(
        detected("util.csv", "Time,node01,node02"),
        Some(crate::data::readers::formats::LogFormat::DcgmWide)
    );
    assert_eq!(
        detected("DCGM_FI_DEV_GPU_UTIL.csv", "time,host,gpu,metric,value"),
        Some(crate::data::readers::formats::LogFormat::DcgmLong)
    );
    assert_eq!(
        metric_in_file_name("DCGM_FI_DEV_GPU_UTIL_2024_03.csv").as_deref(),
        Some("DCGM_FI_DEV_GPU_UTIL")
    );
    assert_eq!(
        metric_in_file_name("a-dcgm_fi_prof_sm_active.csv").as_deref(),
        Some("DCGM_FI_PROF_SM_ACTIVE")
    );
    assert_eq!(metric_in_file_name("gpu.csv"), None);
    let pair = |h: &str, g: &str| (h.to_string(), g.to_string());
    assert_eq!(series_of("node01"), pair("node01", ALL_GPUS));
    assert_eq!(series_of("10.0.0.7:9400"), pair("10.0.0.7:9400", ALL_GPUS));
    assert_eq!(series_of("node01:gpu3"), pair("node01", "3"));
    assert_eq!(series_of("node01 GPU3"), pair("node01", "3"));
    assert_eq!(series_of("node01/gpu3"), pair("node01", "3"));
    assert_eq!(
        series_of("DCGM_FI_DEV_GPU_UTIL{gpu=\"2\", Hostname=\"n9\"}"),
        pair("n9", "2")
    );
}

#[test]
fn unreadable_files_give_one_clear_error() {
    let empty = read_dcgm_long(Path::new("d.csv"), "").expect_err("empty").to_string();
    assert!(empty.contains("d.csv") && empty.contains("empty"), "{empty}");
    let not_long = read_dcgm_long(Path::new("d.csv"), "time,host,value\n")
        .expect_err("no metric")
        .to_string();
    assert!(not_long.contains("d.csv") && not_long.contains("metric"), "{not_long}");
    let not_wide = read_dcgm_wide(Path::new("DCGM_FI_DEV_GPU_UTIL.csv"), "host,value\n", None)
        .expect_err("no time")
        .to_string();
    assert!(not_wide.contains("Time"), "{not_wide}");
}

#[test]
fn a_header_error_names_the_header_line_past_blank_lines() {
    let long = read_dcgm_long(Path::new("d.csv"), "\n\n  \ntime,host,value\n")
        .expect_err("no metric")
        .to_string();
    assert!(long.starts_with("d.csv:4: not a DCGM long export"), "{long}");
    let wide = read_dcgm_wide(Path::new("DCGM_FI_DEV_GPU_UTIL.csv"), "\nhost,value\n", None)
        .expect_err("no time")
        .to_string();
    assert!(
        wide.starts_with("DCGM_FI_DEV_GPU_UTIL.csv:2: not a DCGM wide export"),
        "{wide}"
    );
}

/// What production detection makes of a file named `name` whose first line is `header` (with a
/// row under it).
fn detected(name: &str, header: &str) -> Option<crate::data::readers::formats::LogFormat> {
    let text = format!("{header}\n2024-03-01T10:00:00Z,h,0,DCGM_FI_DEV_GPU_UTIL,1\n");
    crate::data::readers::detect::detect_format(Path::new(name), text.as_bytes()).ok()
}
