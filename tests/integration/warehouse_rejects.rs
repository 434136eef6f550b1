//! What a file's reader sets aside, the warehouse's statement sets aside (docs/warehouse.md,
//! "What is sent"): rows of DuckDB over a CSV, audited through the statement and in process,
//! give the same rows set aside, window and utilization; a table of seconds from a trace's start
//! is refused with why, then placed with `--time-origin`.

use serde_json::Value;

use crate::common::gpuplan_with;
use crate::warehouse_fixture::{audit_json, duckdb_flags, engines_with};

/// Rows a file's reader sets aside for what they hold are set aside by the statement too: a
/// start in 1970 (which had stretched the window over 56 years), utilization of 98,869.9 %
/// and of -5 %; utilization of 103 % is read as 100 %. Until 2026-11-28 the statement kept
/// them all: no row set aside, the window from 1970, the clusters' utilization near nothing.
#[test]
fn what_a_file_sets_aside_the_statement_sets_aside() {
    let Some(engines) = engines_with("lib/libduckdb.so") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let csv = home.path().join("odd.csv");
    std::fs::write(
        &csv,
        "job_id,cluster,name,queue,start,end,gpus,gpu_util_pct\n\
         1,alpha,train-a,batch,2026-06-01 00:00:00,2026-06-01 10:00:00,8,50\n\
         2,alpha,train-b,batch,2026-06-01 01:00:00,2026-06-01 05:00:00,4,103\n\
         3,alpha,serve-c,prod,2026-06-01 02:00:00,2026-06-01 12:00:00,2,98869.9\n\
         4,alpha,eval-d,dev,1970-01-01 00:00:10,1970-01-01 02:00:00,1,40\n\
         5,beta,train-e,batch,2026-06-01 00:00:00,2026-06-02 00:00:00,8,-5\n\
         6,beta,train-f,batch,2026-06-01 03:00:00,2026-06-01 09:00:00,8,70\n",
    )
    .expect("csv");
    let file = csv.display().to_string();
    let in_process = audit_json(home.path(), &[&file], None);
    let from = format!("read_csv('{file}')");
    let flags = duckdb_flags(&from);
    let warehouse = audit_json(home.path(), &flags, Some(&engines.join("lib")));
    let reasons = |audit: &Value| -> Vec<String> {
        let mut reasons: Vec<String> = (audit["rejected_samples"].as_array().into_iter().flatten())
            .map(|r| r["reason"].as_str().unwrap_or_default().to_string())
            .collect();
        reasons.sort();
        reasons
    };
    assert_eq!(
        reasons(&in_process),
        [
            "time_out_of_range",
            "utilization_out_of_range",
            "utilization_out_of_range"
        ]
    );
    assert_eq!(reasons(&warehouse), reasons(&in_process), "{warehouse:#}");
    for field in ["rows_rejected_total", "jobs_total", "runs_total", "window"] {
        assert_eq!(warehouse[field], in_process[field], "{field}");
    }
    let close = |a: &Value, b: &Value| (a.as_f64().unwrap_or(f64::NAN) - b.as_f64().unwrap_or(0.0)).abs() < 1e-9;
    assert!(close(&warehouse["gpu_hours_total"], &in_process["gpu_hours_total"]));
    for (mine, theirs) in (warehouse["clusters"].as_array().into_iter().flatten())
        .zip(in_process["clusters"].as_array().into_iter().flatten())
    {
        assert_eq!(mine["name"], theirs["name"]);
        assert!(
            close(&mine["utilization_frac"], &theirs["utilization_frac"]),
            "{}: {} against {}",
            mine["name"],
            mine["utilization_frac"],
            theirs["utilization_frac"]
        );
    }
    // Job 2's 103 % counts as its GPUs all busy: alpha's mean is 7/15 (8 GPUs at 50 % for 10 h,
    // 4 at 100 % for 4 h: 56 of 120 GPU-hours), not more.
    let alpha = &in_process["clusters"][0];
    assert!(
        close(&alpha["utilization_frac"], &serde_json::json!(56.0 / 120.0)),
        "{alpha:#}"
    );
}

/// A table of seconds from a trace's start (every time before 2000) is refused with why, as a
/// file is, and audited as the file is once the trace's start is given.
#[test]
fn seconds_from_a_trace_s_start_are_refused_with_why_then_placed() {
    let Some(engines) = engines_with("lib/libduckdb.so") else {
        return;
    };
    let home = tempfile::tempdir().expect("tempdir");
    let csv = home.path().join("relative.csv");
    std::fs::write(&csv, "job_id,cluster,start,end,gpus\n1,a,10,7200,8\n2,a,20,3600,4\n").expect("csv");
    let file = csv.display().to_string();
    let from = format!("read_csv('{file}')");
    let lib = engines.join("lib").display().to_string();
    let env = [("GPUPLAN_ADBC_PATH", lib.as_str())];
    let flags = duckdb_flags(&from);
    let refused = gpuplan_with(home.path(), &[&["audit", "--all-time"][..], &flags].concat(), &env);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("every row was set aside (time outside 2000..now+1d: 2)")
            && refused.stderr.contains("--time-origin"),
        "{}",
        refused.stderr
    );
    let placed = [&flags[..], &["--time-origin", "2026-01-01"]].concat();
    let warehouse = audit_json(home.path(), &placed, Some(&engines.join("lib")));
    let in_process = audit_json(home.path(), &[&file, "--time-origin", "2026-01-01"], None);
    for field in ["jobs_total", "runs_total", "window", "gpu_hours_total"] {
        assert_eq!(warehouse[field], in_process[field], "{field}");
    }
}
