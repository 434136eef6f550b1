use std::collections::{BTreeMap, HashMap};

use super::cluster::weekday;
use super::csv::{GARBLED_TIMES, push_number, push_tenths, push_time};
use super::*;
use crate::data::canonical::{MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE};

/// 2024-06-30T00:00:00Z
const END_MS: i64 = 1_719_705_600_000;

fn spec(jobs: usize, seed: u64) -> SampleSpec {
    SampleSpec {
        jobs,
        days: 90,
        clusters: 4,
        seed,
        end_ms: END_MS,
    }
}

fn csv(rows: &[SampleRow]) -> String {
    let mut out = Vec::new();
    write_csv(rows, &mut out).expect("writing to a Vec");
    String::from_utf8(out).expect("CSV is UTF-8")
}

fn gpu_hours(row: &SampleRow, end_ms: i64) -> f64 {
    row.gpus * (row.end_ms.unwrap_or(end_ms) - row.start_ms) as f64 / MS_PER_HOUR
}

#[test]
fn same_seed_same_output_and_another_seed_differs() {
    let a = csv(&generate(&spec(5_000, 7)));
    let b = csv(&generate(&spec(5_000, 7)));
    let c = csv(&generate(&spec(5_000, 8)));
    assert_eq!(a, b);
    assert_ne!(a, c);
    let lazy: Vec<SampleRow> = rows(&spec(5_000, 7)).collect();
    assert_eq!(csv(&lazy), a);
}

#[test]
fn writes_the_requested_number_of_rows() {
    for (jobs, clusters) in [(20_000, 4), (3_000, 1), (12_345, 6)] {
        let spec = SampleSpec {
            jobs,
            days: 90,
            clusters,
            seed: 1,
            end_ms: END_MS,
        };
        assert_eq!(generate(&spec).len(), jobs, "{jobs} jobs on {clusters} clusters");
    }
}

#[test]
fn every_class_is_present_with_plausible_shares() {
    let rows = generate(&spec(20_000, 3));
    let mut count = [0usize; 3];
    let mut hours = [0.0f64; 3];
    for row in rows.iter().filter(|r| r.defect.is_none()) {
        count[row.class as usize] += 1;
        hours[row.class as usize] += gpu_hours(row, END_MS);
    }
    let n = count.iter().sum::<usize>() as f64;
    let h: f64 = hours.iter().sum();
    let row_share = count.map(|c| c as f64 / n);
    let hour_share = hours.map(|x| x / h);
    // Bursts are most of the rows, training most of the GPU-hours.
    assert!((0.005..0.10).contains(&row_share[0]), "training rows {row_share:?}");
    assert!((0.05..0.40).contains(&row_share[1]), "inference rows {row_share:?}");
    assert!(row_share[2] > 0.5, "burst rows {row_share:?}");
    assert!(
        (0.35..0.85).contains(&hour_share[0]),
        "training GPU-hours {hour_share:?}"
    );
    assert!(
        (0.08..0.50).contains(&hour_share[1]),
        "inference GPU-hours {hour_share:?}"
    );
    assert!((0.05..0.40).contains(&hour_share[2]), "burst GPU-hours {hour_share:?}");
    // Every cluster runs all three classes (the training-heavy one only a little inference).
    let plans = clusters(&spec(20_000, 3));
    for cluster in &plans {
        let classes: Vec<SampleClass> = SampleClass::ALL
            .into_iter()
            .filter(|class| rows.iter().any(|r| *r.cluster == cluster.name && r.class == *class))
            .collect();
        assert_eq!(classes.len(), 3, "{} runs {classes:?}", cluster.name);
    }
    // Names follow the workloads.
    assert!(rows.iter().any(|r| r.name.starts_with("pretrain-")));
    assert!(rows.iter().any(|r| r.name.starts_with("sft-")));
    assert!(rows.iter().any(|r| r.name.starts_with("serve-chat-api-")));
    assert!(rows.iter().any(|r| r.name.starts_with("sweep-lr-")));
    assert!(rows.iter().any(|r| r.name.starts_with("eval-")));
    assert!(rows.iter().any(|r| r.name.starts_with("preprocess-")));
    assert!(rows.iter().any(|r| r.name.starts_with("hpo-")));
}

#[test]
fn bad_rows_are_few_but_present_in_every_kind() {
    let rows = generate(&spec(100_000, 11));
    let mut kinds: BTreeMap<Defect, usize> = BTreeMap::new();
    for defect in rows.iter().filter_map(|r| r.defect) {
        *kinds.entry(defect).or_default() += 1;
    }
    let bad: usize = kinds.values().sum();
    let share = bad as f64 / rows.len() as f64;
    assert!((0.0001..0.002).contains(&share), "{bad} bad rows of {}", rows.len());
    assert_eq!(kinds.len(), 4, "{kinds:?}");
    let text = csv(&rows);
    assert!(text.contains(",NaN,"));
    assert!(GARBLED_TIMES.iter().any(|g| text.contains(g)));
    for row in rows.iter().filter(|r| r.defect == Some(Defect::EndBeforeStart)) {
        assert!(row.end_ms.is_some_and(|end| end < row.start_ms));
    }
    for row in rows.iter().filter(|r| r.defect == Some(Defect::NegativeGpus)) {
        assert!(row.gpus < 0.0);
    }
}

#[test]
fn no_instant_holds_more_gpus_than_the_cluster_has() {
    for spec in [
        spec(20_000, 5),
        SampleSpec {
            jobs: 30_000,
            days: 30,
            clusters: 3,
            seed: 9,
            end_ms: END_MS,
        },
    ] {
        let capacity: HashMap<String, u32> = clusters(&spec).into_iter().map(|c| (c.name, c.capacity_gpus)).collect();
        let rows = generate(&spec);
        let mut events: HashMap<&str, Vec<(i64, i64)>> = HashMap::new();
        for row in rows.iter().filter(|r| r.defect.is_none()) {
            let milli = (row.gpus * 1000.0).round() as i64;
            let list = events.entry(&*row.cluster).or_default();
            list.push((row.start_ms, milli));
            list.push((row.end_ms.unwrap_or(spec.end_ms), -milli));
        }
        for (cluster, mut list) in events {
            // Ends before starts at the same instant: a run holds [start, end).
            list.sort_by_key(|&(t, delta)| (t, delta));
            let (mut held, mut peak) = (0i64, 0i64);
            for (_, delta) in list {
                held += delta;
                peak = peak.max(held);
            }
            let cap = i64::from(capacity[cluster]) * 1000;
            assert!(peak <= cap, "{cluster}: {peak} milli-GPUs held, capacity {cap}");
            assert!(
                peak * 10 >= cap * 5,
                "{cluster}: peak {peak} of {cap}: capacity far too large"
            );
        }
    }
}

#[test]
fn one_cluster_averages_below_forty_percent_and_the_mixed_one_above() {
    let spec = spec(20_000, 21);
    let rows = generate(&spec);
    let window_start = spec.end_ms - i64::from(spec.days) * MS_PER_DAY;
    for cluster in clusters(&spec) {
        let mut held_ms = 0.0;
        let mut events = Vec::new();
        for row in rows.iter().filter(|r| r.defect.is_none() && *r.cluster == cluster.name) {
            let start = row.start_ms.max(window_start);
            let end = row.end_ms.unwrap_or(spec.end_ms);
            held_ms += row.gpus * (end - start).max(0) as f64;
            let milli = (row.gpus * 1000.0).round() as i64;
            events.push((start, milli));
            events.push((end, -milli));
        }
        events.sort_unstable();
        let (mut held, mut peak) = (0i64, 0i64);
        for (_, delta) in events {
            held += delta;
            peak = peak.max(held);
        }
        let window_ms = (spec.end_ms - window_start) as f64;
        let of_capacity = held_ms / (f64::from(cluster.capacity_gpus) * window_ms);
        let of_peak = held_ms / (peak as f64 / 1000.0 * window_ms);
        match cluster.profile {
            ClusterProfile::Underused => {
                assert!(of_capacity < 0.40, "{}: {of_capacity:.2} of capacity", cluster.name);
                assert!(of_peak < 0.40, "{}: {of_peak:.2} of peak", cluster.name);
            }
            ClusterProfile::Mixed | ClusterProfile::TrainingHeavy => {
                assert!(of_capacity > 0.45, "{}: {of_capacity:.2} of capacity", cluster.name)
            }
            ClusterProfile::InferenceHeavy => {
                assert!(of_capacity > 0.30, "{}: {of_capacity:.2} of capacity", cluster.name)
            }
        }
    }
}

/// GPUs held by `class` rows in each hour of the window, per cluster.
fn hourly_gpus(rows: &[SampleRow], spec: &SampleSpec, cluster: &str, class: SampleClass) -> Vec<f64> {
    let window_start = spec.end_ms - i64::from(spec.days) * MS_PER_DAY;
    let hours = spec.days as usize * 24;
    let mut held = vec![0.0; hours];
    for row in rows
        .iter()
        .filter(|r| r.defect.is_none() && *r.cluster == *cluster && r.class == class)
    {
        let first = ((row.start_ms - window_start).max(0) / (60 * MS_PER_MINUTE)) as usize;
        let last = ((row.end_ms.unwrap_or(spec.end_ms) - window_start + 60 * MS_PER_MINUTE - 1) / (60 * MS_PER_MINUTE))
            .max(0) as usize;
        for hour in held.iter_mut().take(last.min(hours)).skip(first) {
            *hour += row.gpus;
        }
    }
    held
}

#[test]
fn the_mixed_cluster_has_time_without_training() {
    // Stranded spend is measured in non-training periods: there must be some, not all.
    let spec = spec(20_000, 12);
    let rows = generate(&spec);
    let mixed = clusters(&spec)
        .into_iter()
        .find(|c| c.profile == ClusterProfile::Mixed)
        .expect("a mixed cluster");
    let training = hourly_gpus(&rows, &spec, &mixed.name, SampleClass::Training);
    let idle_share = training.iter().filter(|&&g| g == 0.0).count() as f64 / training.len() as f64;
    assert!(
        (0.05..0.85).contains(&idle_share),
        "no training in {idle_share:.2} of the hours"
    );
    let inference = hourly_gpus(&rows, &spec, &mixed.name, SampleClass::Inference);
    assert!(inference.iter().skip(24).all(|&g| g > 0.0), "services run all the time");
}

#[test]
fn inference_follows_the_users_day() {
    let spec = spec(20_000, 13);
    let rows = generate(&spec);
    for cluster in clusters(&spec)
        .iter()
        .filter(|c| c.profile == ClusterProfile::InferenceHeavy)
    {
        let held = hourly_gpus(&rows, &spec, &cluster.name, SampleClass::Inference);
        let mut by_hour = [0.0; 24];
        for (hour, gpus) in held.iter().enumerate() {
            by_hour[hour % 24] += gpus;
        }
        let most = by_hour.iter().copied().fold(f64::MIN, f64::max);
        let least = by_hour.iter().copied().fold(f64::MAX, f64::min);
        assert!(
            most > 1.3 * least,
            "{}: busiest hour {most:.0}, quietest {least:.0}",
            cluster.name
        );
    }
}

#[test]
fn every_cluster_has_quiet_days() {
    let spec = spec(20_000, 14);
    let rows = generate(&spec);
    let window_start = spec.end_ms - i64::from(spec.days) * MS_PER_DAY;
    for cluster in clusters(&spec) {
        let mut starts = vec![0usize; spec.days as usize];
        for row in rows
            .iter()
            .filter(|r| *r.cluster == cluster.name && r.class == SampleClass::Burst)
        {
            if let Ok(day) = usize::try_from((row.start_ms - window_start).div_euclid(MS_PER_DAY)) {
                starts[day.min(spec.days as usize - 1)] += 1;
            }
        }
        let mut sorted = starts.clone();
        sorted.sort_unstable();
        let median = sorted[sorted.len() / 2];
        let quiet = starts.iter().filter(|&&n| n * 10 <= median).count();
        assert!(
            quiet >= 2,
            "{}: {quiet} quiet days, median {median} burst jobs a day",
            cluster.name
        );
    }
}

#[test]
fn training_jobs_restart_after_preemption() {
    let rows = generate(&spec(20_000, 4));
    let mut jobs: BTreeMap<u64, Vec<&SampleRow>> = BTreeMap::new();
    for row in rows
        .iter()
        .filter(|r| r.class == SampleClass::Training && r.defect.is_none())
    {
        jobs.entry(row.job_id).or_default().push(row);
    }
    let multi: Vec<&Vec<&SampleRow>> = jobs.values().filter(|a| a.len() > 1).collect();
    assert!(
        multi.len() * 4 >= jobs.len(),
        "{} of {} jobs restarted",
        multi.len(),
        jobs.len()
    );
    for attempts in &multi {
        for pair in attempts.windows(2) {
            let end = pair[0].end_ms.expect("an attempt followed by another has ended");
            assert!(pair[1].start_ms > end, "attempts of {} overlap", pair[0].job_id);
            assert!(["PREEMPTED", "NODE_FAIL", "FAILED"].contains(&pair[0].state));
            assert_eq!(pair[0].name, pair[1].name);
            assert_eq!(pair[0].label, pair[1].label);
        }
    }
    assert!(multi.iter().any(|a| a.last().is_some_and(|r| r.state == "COMPLETED")));
    for row in jobs.values().flatten() {
        assert!((8.0..=512.0).contains(&row.gpus));
        assert!((67.0..=98.0).contains(&row.gpu_util_pct), "{}", row.gpu_util_pct);
    }
    let spans: Vec<f64> = jobs
        .values()
        .map(|a| {
            a.iter()
                .map(|r| (r.end_ms.unwrap_or(END_MS) - r.start_ms) as f64)
                .sum::<f64>()
                / MS_PER_DAY as f64
        })
        .collect();
    assert!(spans.iter().any(|&d| d > 5.0));
}

#[test]
fn inference_services_have_overlapping_instances_and_follow_the_day() {
    let rows = generate(&spec(20_000, 6));
    let mut by_service: BTreeMap<String, Vec<&SampleRow>> = BTreeMap::new();
    for row in rows
        .iter()
        .filter(|r| r.class == SampleClass::Inference && r.defect.is_none())
    {
        let stem = row.name.rsplit_once('-').map_or(row.name.as_str(), |(stem, _)| stem);
        by_service
            .entry(format!("{}/{stem}", row.cluster))
            .or_default()
            .push(row);
    }
    assert!(by_service.len() >= 4);
    // One replica comes up while another of the same service still runs.
    let overlapping = by_service.values().filter(|instances| {
        instances.iter().any(|a| {
            instances
                .iter()
                .any(|b| b.start_ms > a.start_ms && b.start_ms < a.end_ms.unwrap_or(END_MS))
        })
    });
    assert!(overlapping.count() * 10 >= by_service.len() * 9);
    let all: Vec<&&SampleRow> = by_service.values().flatten().collect();
    assert!(all.iter().all(|r| (20.0..=70.0).contains(&r.gpu_util_pct)));
    assert!(all.iter().any(|r| r.gpus < 1.0), "some replicas share a GPU");
    assert!(all.iter().all(|r| ["serve", "prod"].contains(&r.queue)));
}

#[test]
fn bursts_are_short_and_evals_come_twice_a_week() {
    let spec = spec(20_000, 8);
    let rows = generate(&spec);
    let burst: Vec<&SampleRow> = rows
        .iter()
        .filter(|r| r.class == SampleClass::Burst && r.defect.is_none() && r.end_ms.is_some())
        .collect();
    let sweep_hours: Vec<f64> = burst
        .iter()
        .filter(|r| r.name.starts_with("sweep-lr-") && r.state == "COMPLETED")
        .map(|r| (r.end_ms.unwrap_or(0) - r.start_ms) as f64 / MS_PER_HOUR)
        .collect();
    let mean = sweep_hours.iter().sum::<f64>() / sweep_hours.len() as f64;
    assert!((3.5..4.5).contains(&mean), "sweeps last {mean:.2} h");
    assert!(burst.iter().all(|r| (1.0..=8.0).contains(&r.gpus)));
    assert!(burst.iter().all(|r| ["dev", "sweep", "eval"].contains(&r.queue)));
    // Evals come in nightly batches twice a week: count the days batches start on.
    let weeks = f64::from(spec.days) / 7.0;
    let mut first_start: BTreeMap<(&str, &str), i64> = BTreeMap::new();
    for row in burst.iter().filter(|r| r.queue == "eval") {
        let step = row.name.split('-').find(|part| part.starts_with("step")).unwrap_or("");
        let start = first_start.entry((&*row.cluster, step)).or_insert(row.start_ms);
        *start = (*start).min(row.start_ms);
    }
    let mut eval_days: BTreeMap<&str, std::collections::BTreeSet<i64>> = BTreeMap::new();
    for ((cluster, _), start) in first_start {
        eval_days
            .entry(cluster)
            .or_default()
            .insert(start.div_euclid(MS_PER_DAY));
    }
    assert_eq!(eval_days.len(), 4);
    for (cluster, days) in eval_days {
        let per_week = days.len() as f64 / weeks;
        assert!(
            (1.2..=2.6).contains(&per_week),
            "{cluster}: evals on {per_week:.1} days a week"
        );
    }
}

#[test]
fn csv_has_the_header_and_formats() {
    let rows = generate(&spec(20_000, 2));
    let text = csv(&rows);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(HEADER));
    let is_time = |s: &str| {
        let b = s.as_bytes();
        b.len() == 20
            && b.iter().enumerate().all(|(i, c)| match i {
                4 | 7 => *c == b'-',
                10 => *c == b'T',
                13 | 16 => *c == b':',
                19 => *c == b'Z',
                _ => c.is_ascii_digit(),
            })
    };
    let (mut labeled, mut censored, mut fractional, mut count) = (0, 0, 0, 0);
    for (line, row) in lines.zip(&rows) {
        count += 1;
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 12, "{line}");
        assert_eq!(fields[0], row.job_id.to_string());
        if row.defect.is_none() {
            assert!(is_time(fields[6]), "{line}");
            assert!(fields[7].is_empty() || is_time(fields[7]), "{line}");
            let gpus: f64 = fields[8].parse().expect("gpus is a number");
            assert!(gpus > 0.0, "{line}");
            let util: f64 = fields[10].parse().expect("utilization is a number");
            assert!((0.0..=100.0).contains(&util), "{line}");
        }
        if fields[7].is_empty() {
            censored += 1;
            assert_eq!(fields[5], "RUNNING", "{line}");
        }
        if fields[8].contains('.') {
            fractional += 1;
        }
        match fields[11] {
            "" => {}
            "training" | "inference" | "burst" => labeled += 1,
            other => panic!("label {other}"),
        }
    }
    assert_eq!(count, rows.len());
    let share = f64::from(labeled) / count as f64;
    assert!((0.25..0.35).contains(&share), "labels on {share:.3} of rows");
    assert!(censored > 0 && fractional > 0);
    // Times survive the round trip to the second.
    let first = &rows[0];
    assert!(text.contains(&format_time(first.start_ms)));
}

fn format_time(ms: i64) -> String {
    let mut buf = Vec::new();
    push_time(&mut buf, ms);
    String::from_utf8(buf).expect("ASCII")
}

#[test]
fn times_format_as_utc() {
    assert_eq!(format_time(0), "1970-01-01T00:00:00Z");
    assert_eq!(format_time(1_700_000_000_000), "2023-11-14T22:13:20Z");
    assert_eq!(format_time(1_709_208_000_999), "2024-02-29T12:00:00Z");
    assert_eq!(format_time(-1_000), "1969-12-31T23:59:59Z");
    assert_eq!(weekday(1_709_208_000_000), 3, "2024-02-29 was a Thursday");
}

#[test]
fn numbers_format_plainly() {
    let mut buf = Vec::new();
    for value in [8.0, 0.5, 0.25, -4.0] {
        push_number(&mut buf, value);
        buf.push(b' ');
    }
    for value in [73.44, 80.0, 0.05, f64::NAN] {
        push_tenths(&mut buf, value);
        buf.push(b' ');
    }
    assert_eq!(
        String::from_utf8(buf).expect("ASCII"),
        "8 0.5 0.25 -4 73.4 80.0 0.1 NaN "
    );
}

#[test]
fn rows_become_a_canonical_frame() {
    let rows = generate(&spec(2_000, 1));
    let runs: Vec<JobRun> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.to_job_run(i as u64 + 2))
        .collect();
    let frame = crate::data::canonical::frame_from_runs(&runs).expect("frame");
    assert_eq!(frame.height(), runs.len());
    assert!(
        runs.iter()
            .all(|r| r.gpu_util_frac.is_none_or(|u| u.is_nan() || (0.0..=1.0).contains(&u)))
    );
}

#[test]
fn degenerate_specs_give_nothing_or_few_rows() {
    assert!(
        generate(&SampleSpec {
            jobs: 100,
            days: 0,
            clusters: 2,
            seed: 1,
            end_ms: END_MS
        })
        .is_empty()
    );
    assert!(
        generate(&SampleSpec {
            jobs: 100,
            days: 30,
            clusters: 0,
            seed: 1,
            end_ms: END_MS
        })
        .is_empty()
    );
    assert!(
        generate(&SampleSpec {
            jobs: 0,
            days: 30,
            clusters: 2,
            seed: 1,
            end_ms: END_MS
        })
        .is_empty()
    );
    let tiny = generate(&SampleSpec {
        jobs: 50,
        days: 3,
        clusters: 2,
        seed: 1,
        end_ms: END_MS + 123,
    });
    assert!(tiny.len() <= 50);
}

#[test]
fn a_hundred_thousand_rows_generate() {
    let spec = spec(100_000, 42);
    let mut out = Vec::new();
    let written = write_csv_iter(rows(&spec), &mut out).expect("writing to a Vec");
    assert_eq!(written, 100_000);
}

/// `cargo test --release --lib data::sample::tests::measure -- --ignored --nocapture`
#[test]
#[ignore = "measurement, not a check"]
fn measure_rows_per_second() {
    let spec = SampleSpec {
        jobs: 1_000_000,
        days: 90,
        clusters: 4,
        seed: 1,
        end_ms: END_MS,
    };
    let started = std::time::Instant::now();
    let mut sink = std::io::sink();
    let written = write_csv_iter(rows(&spec), &mut sink).expect("sink");
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{written} rows in {seconds:.2} s: {:.0} rows/s",
        written as f64 / seconds
    );
    for cluster in clusters(&spec) {
        println!("{cluster:?}");
    }
}
