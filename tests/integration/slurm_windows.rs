//! Figures a person can trust on any window: the jobs a real Slurm ran (recorded by
//! `slurm_live`) audited over windows from one second to a year, each ending at the recording's
//! last instant or in the middle of a run. Every share stays within 0–100 %, no cost is
//! negative, no step holds more GPUs than the node has, and what the jobs held adds up.

use crate::common;

use serde_json::Value;

const LIVE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/slurm/live-22.05.txt");
/// The node's GPUs: no instant of the recording held more.
const NODE_GPUS: f64 = 8.0;

fn audit(since: &str, until: &str) -> Value {
    let run = common::gpuplan(&["audit", LIVE, "--since", since, "--until", until, "--format", "json"]);
    assert_eq!(run.code, 0, "{since}..{until}: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

fn within_one(value: &Value, what: &str) -> f64 {
    let x = value.as_f64().unwrap_or_else(|| panic!("{what} is a number: {value}"));
    assert!((0.0..=1.0 + 1e-12).contains(&x), "{what} = {x}");
    x
}

#[test]
fn every_share_stays_physical_from_one_second_to_a_year() {
    // 22:00:34 is the recording's last instant; 22:00:21 falls inside five runs.
    let ends = ["2026-11-25T22:00:34Z", "2026-11-25T22:00:21Z"];
    let spans_s = [
        1i64,
        2,
        7,
        30,
        59,
        60,
        61,
        600,
        3_600,
        86_400,
        7 * 86_400,
        90 * 86_400,
        365 * 86_400,
    ];
    for until in ends {
        let until_s = chrono::DateTime::parse_from_rfc3339(until).expect("time").timestamp();
        for span in spans_s {
            let since = chrono::DateTime::from_timestamp(until_s - span, 0)
                .expect("time")
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string();
            let a = audit(&since, until);
            let what = format!("{span} s to {until}");
            let mut share_sum = 0.0;
            for class in ["training", "inference", "burst"] {
                share_sum += within_one(
                    &a["classes"][class]["gpu_hours_share"],
                    &format!("{what} {class} share"),
                );
            }
            assert!(
                share_sum == 0.0 || (share_sum - 1.0).abs() < 1e-9,
                "{what}: shares sum to {share_sum}"
            );
            for c in a["clusters"].as_array().expect("clusters") {
                let alloc = within_one(&c["allocation_frac"], &format!("{what} allocation"));
                let util = within_one(&c["utilization_frac"], &format!("{what} utilization"));
                within_one(&c["non_training_time_frac"], &format!("{what} non-training time"));
                within_one(
                    &c["non_training_utilization_frac"],
                    &format!("{what} non-training util"),
                );
                assert!(
                    util <= alloc + 1e-9,
                    "{what}: utilization {util} above allocation {alloc}"
                );
                let peak = c["peak_concurrent_gpus"].as_f64().expect("peak");
                assert!((0.0..=NODE_GPUS).contains(&peak), "{what}: peak {peak}");
                let cost = c["monthly_cost_usd"].as_f64().expect("cost");
                let stranded = c["non_training_idle_usd_per_month"].as_f64().expect("seed 001");
                assert!(
                    cost >= 0.0 && (0.0..=cost + 1e-6).contains(&stranded),
                    "{what}: {cost} {stranded}"
                );
                // GPU-hours held never exceed the capacity's hours over the window.
                let held = c["gpu_hours"].as_f64().expect("GPU-hours");
                let capacity = c["capacity_gpus"].as_f64().expect("capacity");
                assert!(
                    held <= capacity * span as f64 / 3600.0 + 1e-9,
                    "{what}: {held} GPU-h on {capacity} GPUs"
                );
            }
        }
    }
}
