//! Times each phase of an audit on one log: `cargo run --release --example audit_phases FILE`.
//! A profiling aid for the benchmark in README.md ("Performance").

use std::path::PathBuf;
use std::time::Instant;

use gpuplan::config::catalog::builtin;
use gpuplan::data::audit::{AuditSettings, WindowSpec, audit_loaded};
use gpuplan::data::readers::load::load_logs;

// The allocator and settings of the gpuplan binary (src/main.rs), so the phases add up to it.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// CPU seconds (user + system) the process has used so far, over all threads.
fn cpu_s() -> f64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

fn rss_mb() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mb = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or("?".to_string(), |kb| (kb / 1024).to_string())
    };
    format!("{} MB resident, {} MB peak", mb("VmRSS"), mb("VmHWM"))
}

fn main() {
    let Some(path) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: audit_phases FILE");
        std::process::exit(2);
    };
    gpuplan::runtime::allocator::tune_for_columns();
    let started = Instant::now();
    let rules = builtin().catalog.classification.expect("built-in rules");
    let logs = match load_logs(
        &[path],
        None,
        None,
        gpuplan::data::readers::tabular::Detail::Audit(&rules),
    ) {
        Ok(logs) => logs,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let load_cpu_s = cpu_s();
    println!(
        "load: {:.2} s ({load_cpu_s:.2} s of CPU), {} rows ({} MB of columns), {}",
        started.elapsed().as_secs_f64(),
        logs.jobs.height(),
        logs.jobs.estimated_size() / 1_000_000,
        rss_mb()
    );
    let settings = AuditSettings {
        window: WindowSpec::default(),
        hours_per_month: 730.0,
        clusters: Vec::new(),
        default_usd_per_gpu_hour: 12.29,
        default_price_source: "seed".into(),
        list_prices: Vec::new(),
        min_utilization_frac: 0.4,
        host_patterns: Default::default(),
        host_utc_offsets_min: Default::default(),
        input_utc_offset_min: None,
        node_inventories: Vec::new(),
        model_prices: Default::default(),
    };
    let t = Instant::now();
    match audit_loaded(&logs, &rules, &settings) {
        Ok(report) => println!(
            "audit: {:.2} s ({:.2} s of CPU), {} jobs, {}",
            t.elapsed().as_secs_f64(),
            cpu_s() - load_cpu_s,
            report.jobs_total,
            rss_mb()
        ),
        Err(e) => eprintln!("{e}"),
    }
}
