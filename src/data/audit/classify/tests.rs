use super::*;
use crate::data::audit::classify::features::with_run_features;
use crate::data::canonical::{JobRun, frame_from_runs};
use crate::model::workload::LabelSynonyms;

fn rules() -> ClassificationRules {
    let rule = |name: &str, class, name_patterns: &[&str]| ClassRule {
        name: name.into(),
        class,
        name_patterns: name_patterns.iter().map(|s| s.to_string()).collect(),
        queue_patterns: Vec::new(),
        qos: Vec::new(),
        owner_kinds: Vec::new(),
        min_hours: None,
        max_hours: None,
        min_gpus: None,
        max_gpus: None,
        min_util: None,
        max_util: None,
        min_repeats: None,
        min_overlap: None,
    };
    let mut sweep = rule("repeated", WorkloadClass::Burst, &[]);
    sweep.min_repeats = Some(3);
    let mut service = rule("overlapping", WorkloadClass::Inference, &[]);
    service.min_overlap = Some(2.5);
    ClassificationRules {
        schema_version: 1,
        labels: LabelSynonyms {
            training: vec!["train".into()],
            inference: vec!["serve".into()],
            burst: vec!["burst".into()],
            unclassed: vec![],
        },
        rules: vec![
            rule("serving", WorkloadClass::Inference, &["serve"]),
            sweep,
            service,
            rule("default", WorkloadClass::Training, &[]),
        ],
    }
}

fn run(job: &str, name: Option<&str>, label: Option<&str>) -> JobRun {
    JobRun {
        job_id: job.into(),
        cluster: "c".into(),
        name: name.map(str::to_string),
        label: label.map(str::to_string),
        start_ms: 0,
        end_ms: Some(3_600_000),
        gpus: 1.0,
        ..JobRun::default()
    }
}

/// (class, rule name) of each run's job.
fn classes(runs: &[JobRun]) -> Vec<(WorkloadClass, String)> {
    let rules = rules();
    let frame = with_run_features(frame_from_runs(runs).expect("frame").lazy(), &rules)
        .expect("rules")
        .collect()
        .expect("features");
    let jobs = classify_jobs(&frame, &rules, 3_600_000).expect("classified");
    jobs.job_of_run
        .iter()
        .map(|&j| (jobs.class[j as usize], rule_name(&rules, jobs.rule[j as usize])))
        .collect()
}

#[test]
fn labels_win_then_rules_in_order() {
    let got = classes(&[
        run("a", Some("serve-api"), None),
        run("b", Some("serve-api"), Some("TRAIN")),
        run("c", Some("x"), None),
    ]);
    assert_eq!(got[0], (WorkloadClass::Inference, "serving".into()));
    assert_eq!(got[1], (WorkloadClass::Training, LABEL_RULE.into()));
    assert_eq!(got[2], (WorkloadClass::Training, "default".into()));
}

#[test]
fn repeated_stems_are_sweeps_but_unnamed_jobs_are_not() {
    let sweep: Vec<JobRun> = (0..3)
        .map(|i| run(&format!("s{i}"), Some(&format!("lr-sweep-{i}")), None))
        .collect();
    assert!(
        classes(&sweep)
            .iter()
            .all(|(c, r)| *c == WorkloadClass::Burst && r == "repeated")
    );
    let unnamed: Vec<JobRun> = (0..5).map(|i| run(&format!("u{i}"), None, None)).collect();
    assert!(classes(&unnamed).iter().all(|(c, _)| *c == WorkloadClass::Training));
}

#[test]
fn instances_of_one_app_living_together_are_a_service() {
    // Two stems of the same size: one app's instances overlapping, the other one after another.
    let mut runs = Vec::new();
    for i in 0..2 {
        runs.push(run(&format!("a{i}"), Some(&format!("app-{i}")), None));
    }
    for i in 0..2 {
        let mut r = run(&format!("b{i}"), Some(&format!("batch-{i}")), None);
        r.start_ms = i * 3_600_000;
        r.end_ms = Some((i + 1) * 3_600_000);
        runs.push(r);
    }
    let mut overlapping: Vec<JobRun> = (0..3)
        .map(|i| run(&format!("o{i}"), Some(&format!("svc-{i}")), None))
        .collect();
    overlapping.extend(runs);
    let got = classes(&overlapping);
    // Three instances of svc over one hour overlap 3×: a service (but also three repeats of a
    // stem, and "repeated" comes first in the list: order decides).
    assert_eq!(got[0], (WorkloadClass::Burst, "repeated".into()));
    assert_eq!(got[3].1, "default");
    assert_eq!(got[5].1, "default");
}

#[test]
fn attempts_of_one_job_share_its_class() {
    let mut first = run("j", Some("serve-x"), None);
    first.end_ms = Some(1_800_000);
    let mut retry = run("j", None, None);
    retry.start_ms = 1_800_000;
    let got = classes(&[first, retry]);
    assert_eq!(got[0], got[1]);
    assert_eq!(got[0].0, WorkloadClass::Inference);
}
