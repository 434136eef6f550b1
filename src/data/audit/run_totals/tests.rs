use super::*;

#[test]
fn a_running_job_holds_one_whole_gpu_at_least_and_a_shared_one_its_share() {
    use crate::model::resolution::Resolution;
    let minute = 60_000;
    let mut occupancy = Occupancy::new(3);
    let span = |gpus: f64, class: usize| RunSpan {
        from_ms: 0,
        to_ms: 2 * minute,
        class,
        gpus,
        utilized_gpus: gpus,
        gpu_floor: gpus.clamp(0.0, 1.0),
    };
    // An eight-GPU burst job, a half-GPU one, and an inference job of one GPU.
    occupancy.add_span(span(8.0, 2), Resolution::FINEST, 3 * minute);
    occupancy.add_span(span(0.5, 2), Resolution::FINEST, 3 * minute);
    occupancy.add_span(span(1.0, 1), Resolution::FINEST, 3 * minute);
    let series = occupancy.integrate();
    assert_eq!(series.busy_by_class[2], [8.5, 8.5, 0.0]);
    assert_eq!(series.floor_by_class[2], [1.5, 1.5, 0.0]);
    assert_eq!(series.floor_by_class[1], [1.0, 1.0, 0.0]);
    assert_eq!(series.floor_by_class[0], [0.0, 0.0, 0.0]);
}
use crate::model::workload::WorkloadClass;

/// `n` one-GPU-hour runs, two per job (run `i` of job `i / 2`), the jobs in two clusters.
fn runs(n: usize) -> (DataFrame, JobClasses) {
    let hour = 3_600_000i64;
    let cluster_of_job = |job: usize| if job.is_multiple_of(3) { "b" } else { "a" };
    let clusters: Vec<&str> = (0..n).map(|i| cluster_of_job(i / 2)).collect();
    let starts: Vec<i64> = (0..n).map(|i| (i % 48) as i64 * hour).collect();
    let ends: Vec<i64> = starts.iter().map(|s| s + hour).collect();
    let frame = df![
        c::CLUSTER => clusters,
        c::START => starts,
        c::END => ends,
        c::GPUS => vec![1.0; n],
        c::GPU_UTIL_FRAC => vec![0.5; n],
    ]
    .expect("frame");
    let jobs = n.div_ceil(2);
    let classes = JobClasses {
        job_of_run: (0..n).map(|i| (i / 2) as u32).collect(),
        class: (0..jobs)
            .map(|j| {
                if j.is_multiple_of(2) {
                    WorkloadClass::Training
                } else {
                    WorkloadClass::Burst
                }
            })
            .collect(),
        rule: vec![0; jobs],
        rule_class: vec![None; jobs],
        label_class: vec![None; jobs],
        unknown_label: HashMap::new(),
    };
    (frame, classes)
}

#[test]
fn an_unknown_label_s_gpu_hours_add_up_across_the_halves() {
    for n in [10, PARALLEL_MIN_RUNS + 7] {
        let (frame, mut jobs) = runs(n);
        // Every odd job carries an unknown label (code 3): half the runs, one GPU-hour each.
        jobs.unknown_label = (1..jobs.class.len() as u32).step_by(2).map(|job| (job, 3)).collect();
        let expected: f64 = jobs.job_of_run.iter().filter(|&&job| job % 2 == 1).count() as f64;
        let totals = run_totals(&frame, &jobs, 1, &Window::from_ms(0, 48 * 3_600_000)).expect("totals");
        let hours = totals.unknown_label_gpu_hours.get(&3).copied().unwrap_or(0.0);
        assert!((hours - expected).abs() < 1e-6, "{hours} for {n}, expected {expected}");
    }
}

#[test]
fn two_halves_add_up_to_every_run_and_number_jobs_clusters_alike() {
    for n in [10, PARALLEL_MIN_RUNS + 7] {
        let (frame, jobs) = runs(n);
        let totals = run_totals(&frame, &jobs, 1, &Window::from_ms(0, 48 * 3_600_000)).expect("totals");
        let names: Vec<String> = totals.clusters.iter().map(|c| c.name.clone()).collect();
        assert_eq!(names, ["b", "a"], "{n}");
        let runs: u64 = totals.clusters.iter().map(|c| c.runs).sum();
        assert_eq!(runs, n as u64);
        let hours: f64 = totals.clusters.iter().flat_map(|c| c.gpu_hours).sum();
        assert!((hours - n as f64).abs() < 1e-6, "{hours} for {n}");
        assert!((totals.rule_gpu_hours[0] - n as f64).abs() < 1e-6);
        // The halves' occupancies merge: GPU-minutes over the window equal the GPU-hours.
        for cluster in totals.clusters {
            let hours: f64 = cluster.gpu_hours.iter().sum();
            let gpu_minutes: f64 = cluster.occupancy.integrate().busy_by_class.iter().flatten().sum();
            assert!((gpu_minutes / 60.0 - hours).abs() < 1e-6, "{} for {n}", cluster.name);
        }
        for (job, &cluster) in totals.job_cluster.iter().enumerate() {
            let name = &names[cluster as usize - 1];
            assert_eq!(name, if job.is_multiple_of(3) { "b" } else { "a" }, "job {job} of {n}");
            let runs_of_job = [2 * job, 2 * job + 1].into_iter().filter(|&r| r < n).count();
            assert_eq!(totals.job_window_gpu_hours[job], runs_of_job as f64, "job {job}");
        }
    }
}

#[test]
fn runs_outside_the_window_count_nowhere() {
    let (frame, jobs) = runs(40);
    // The window holds hours 10 to 12: runs starting at hours 9..=12 touch it.
    let totals = run_totals(&frame, &jobs, 1, &Window::from_ms(10 * 3_600_000, 12 * 3_600_000)).expect("totals");
    let runs: u64 = totals.clusters.iter().map(|c| c.runs).sum();
    assert_eq!(runs, 4);
    let hours: f64 = totals.clusters.iter().flat_map(|c| c.gpu_hours).sum();
    assert!((hours - 2.0).abs() < 1e-9, "{hours}");
    // Runs 9 to 12 (jobs 4 to 6) touch it; those at its edges hold no GPU-hours in it.
    assert_eq!(totals.job_cluster.iter().filter(|&&c| c > 0).count(), 3);
}
