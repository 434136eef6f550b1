//! Times each phase of an audit on one log: `cargo run --release --example audit_phases FILE`.
//! A profiling aid for the benchmark in README.md ("Performance").

use std::path::PathBuf;
use std::time::Instant;

use gpuplan::config::catalog::builtin;
use gpuplan::data::audit::{AuditSettings, WindowSpec, audit};
use gpuplan::data::load::load_logs;

fn rss_mb() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(|l| l.split_whitespace().nth(1).unwrap_or("?").to_string())
        })
        .map_or("?".into(), |kb| {
            format!("{} MB peak", kb.parse::<u64>().unwrap_or(0) / 1024)
        })
}

fn main() {
    let Some(path) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: audit_phases FILE");
        std::process::exit(2);
    };
    let started = Instant::now();
    let rules = builtin().catalog.classification.expect("built-in rules");
    let logs = match load_logs(&[path], None, None, gpuplan::data::tabular::Detail::Audit(&rules)) {
        Ok(logs) => logs,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    println!(
        "load: {:.2} s, {} rows, {}",
        started.elapsed().as_secs_f64(),
        logs.jobs.height(),
        rss_mb()
    );
    let settings = AuditSettings {
        window: WindowSpec::default(),
        hours_per_month: 730.0,
        clusters: Vec::new(),
        default_usd_per_gpu_hour: 12.29,
        default_price_source: "seed".into(),
        min_utilization_frac: 0.4,
    };
    let t = Instant::now();
    match audit(&logs.jobs, &logs.quarantine, &rules, &settings) {
        Ok(report) => println!(
            "audit: {:.2} s, {} jobs, {}",
            t.elapsed().as_secs_f64(),
            report.jobs_total,
            rss_mb()
        ),
        Err(e) => eprintln!("{e}"),
    }
}
