//! A fleet partitioned by cluster audits one cluster at a time to the same numbers as the
//! whole log at once: the shipped sample, split into `cluster=NAME/` Parquet folders.

use std::path::PathBuf;

use gpuplan::config::catalog::builtin;
use gpuplan::data::audit::partitioned::{audit_partitioned, cluster_partitions};
use gpuplan::data::audit::{AuditSettings, WindowSpec, audit};
use gpuplan::data::readers::load::load_logs;
use gpuplan::data::readers::tabular::Detail;
use polars::prelude::*;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/jobs-90d.csv");

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn per_cluster_audits_merge_to_the_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let whole = CsvReadOptions::default()
        .with_infer_schema_length(Some(0))
        .try_into_reader_with_file_path(Some(PathBuf::from(SAMPLE)))
        .expect("reader")
        .finish()
        .expect("the sample reads");
    let clusters = whole
        .column("cluster")
        .expect("cluster")
        .str()
        .expect("text")
        .unique()
        .expect("unique");
    let names: Vec<String> = clusters.iter().flatten().map(str::to_string).collect();
    for name in &names {
        let mut part = whole
            .clone()
            .lazy()
            .filter(col("cluster").eq(lit(name.as_str())))
            .collect()
            .expect("filter");
        // Written the hive way: the cluster is in the folder's name, not in the files.
        part.drop_in_place("cluster").expect("a cluster column");
        let folder = dir.path().join(format!("cluster={name}"));
        std::fs::create_dir_all(&folder).expect("folder");
        let file = std::fs::File::create(folder.join("part-00000.parquet")).expect("file");
        ParquetWriter::new(file).finish(&mut part).expect("parquet");
    }

    let catalog = builtin().catalog;
    let rules = catalog.classification.as_ref().expect("rules");
    let settings = AuditSettings::for_plan(&catalog, None, WindowSpec::default(), None);
    let partitions = cluster_partitions(dir.path()).expect("partitioned by cluster");
    assert_eq!(partitions.len(), 4);
    let (parts, files) = audit_partitioned(&partitions, None, rules, &settings).expect("partitioned audit");
    assert_eq!(files.len(), 4);

    let loaded = load_logs(&[PathBuf::from(SAMPLE)], None, None, Detail::Audit(rules)).expect("the sample loads");
    let once = audit(&loaded.jobs, &loaded.quarantine, rules, &settings).expect("audit");

    assert_eq!(parts.window, once.window);
    assert_eq!(parts.jobs_total, once.jobs_total);
    assert_eq!(parts.runs_total, once.runs_total);
    assert_eq!(parts.rows_rejected, once.rows_rejected);
    assert!(close(parts.gpu_hours_total, once.gpu_hours_total));
    for class in gpuplan::model::workload::WorkloadClass::ALL {
        let (a, b) = (parts.classes.get(class), once.classes.get(class));
        assert_eq!(a.jobs, b.jobs, "{class:?}");
        assert!(close(a.gpu_hours, b.gpu_hours), "{class:?}");
        assert!(close(a.gpu_hours_share, b.gpu_hours_share), "{class:?}");
        assert!(
            close(a.mean_util_frac.unwrap_or(0.0), b.mean_util_frac.unwrap_or(0.0)),
            "{class:?}"
        );
    }
    assert_eq!(parts.clusters.len(), once.clusters.len());
    for (a, b) in parts.clusters.iter().zip(&once.clusters) {
        assert_eq!(a.name, b.name);
        assert_eq!(a.jobs, b.jobs);
        assert!(close(a.gpu_hours, b.gpu_hours), "{}", a.name);
        assert!(
            close(a.non_training_idle_usd_per_month, b.non_training_idle_usd_per_month),
            "{}",
            a.name
        );
        assert_eq!(a.hourly.busy_gpus.len(), b.hourly.busy_gpus.len());
        assert_eq!(a.flags, b.flags);
    }
    let total = |r: &gpuplan::model::fleet::AuditReport| r.rules.iter().map(|u| u.jobs).sum::<u64>();
    assert_eq!(total(&parts), total(&once));
    assert_eq!(
        parts.label_agreement.as_ref().map(|l| l.matrix),
        once.label_agreement.as_ref().map(|l| l.matrix)
    );
    let labels = |r: &gpuplan::model::fleet::AuditReport| {
        r.unknown_labels
            .iter()
            .map(|u| (u.label.clone(), u.jobs))
            .collect::<Vec<_>>()
    };
    assert_eq!(labels(&parts), labels(&once));
}
