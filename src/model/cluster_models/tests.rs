use super::*;
use crate::model::audit_settings::WindowSpec;

fn settings() -> AuditSettings {
    let catalog = crate::config::catalog::builtin().catalog;
    AuditSettings::for_plan(&catalog, None, WindowSpec::default(), None)
}

fn typed(model: &str, busy: &[f64]) -> TypedRuns {
    TypedRuns {
        model: model.to_string(),
        gpu_hours: busy.iter().sum(),
        largest_run_gpus: busy.iter().copied().fold(0.0, f64::max),
        busy: busy.to_vec(),
    }
}

#[test]
fn two_named_models_are_each_sized_to_their_own_peak_and_priced_at_their_own_price() {
    let settings = settings();
    let a100 = typed("a100-80gb", &[4.0, 4.0, 0.0, 0.0]);
    let h100 = typed("h100-sxm", &[0.0, 2.0, 6.0, 6.0]);
    let busy = [4.0, 6.0, 6.0, 6.0];
    let typed = [a100, h100];
    let runs = ClusterRuns {
        busy: &busy,
        gpu_hours: 22.0,
        largest_run_gpus: 6.0,
        typed: &typed,
    };
    let models = cluster_models(&runs, None, &settings);
    let [a, h] = models.lines.as_slice() else {
        panic!("two lines: {:?}", models.lines)
    };
    assert_eq!((a.gpus, a.peak_gpus, a.gpu_hours), (4.0, 4.0, 8.0));
    assert_eq!((h.gpus, h.peak_gpus, h.gpu_hours), (6.0, 6.0, 14.0));
    assert_eq!(a.gpu_hours + h.gpu_hours, runs.gpu_hours);
    assert_eq!(
        a.usd_per_gpu_hour,
        settings.unlisted_price(Some("a100-80gb")).usd_per_gpu_hour
    );
    assert_eq!(
        h.usd_per_gpu_hour,
        settings.unlisted_price(Some("h100-sxm")).usd_per_gpu_hour
    );
    assert_ne!(a.usd_per_gpu_hour, h.usd_per_gpu_hour);
    // The cluster holds each model's peak: more than the cluster's own peak of 6.
    assert_eq!(models.capacity_gpus(), 10.0);
    let cost: f64 = models.lines.iter().map(|l| l.gpus * l.usd_per_gpu_hour).sum();
    assert!((models.usd_per_gpu_hour() * models.capacity_gpus() - cost).abs() < 1e-9);
    assert_eq!(models.priced_as().as_deref(), Some("h100-sxm"));
    assert!(
        models.price_source(None).contains("4 a100-80gb at"),
        "{}",
        models.price_source(None)
    );
    assert_eq!(models.spread, None);
}

#[test]
fn runs_naming_no_model_go_to_the_only_model_or_are_spread_and_said() {
    let settings = settings();
    let busy = [2.0, 2.0];
    let only = [typed("a100-80gb", &[1.0, 1.0])];
    let runs = ClusterRuns {
        busy: &busy,
        gpu_hours: 4.0,
        largest_run_gpus: 2.0,
        typed: &only,
    };
    let one = cluster_models(&runs, None, &settings);
    assert_eq!(one.lines.len(), 1);
    assert_eq!((one.lines[0].gpus, one.lines[0].gpu_hours), (2.0, 4.0));
    assert_eq!(one.spread, None);
    let two = [typed("a100-80gb", &[1.0, 0.0]), typed("h100-sxm", &[0.0, 1.0])];
    let runs = ClusterRuns {
        busy: &[3.0, 3.0],
        gpu_hours: 6.0,
        largest_run_gpus: 2.0,
        typed: &two,
    };
    let spread = cluster_models(&runs, None, &settings);
    let hours: f64 = spread.lines.iter().map(|l| l.gpu_hours).sum();
    assert!((hours - 6.0).abs() < 1e-12, "{hours}");
    assert!(
        spread.spread.as_deref().is_some_and(|s| s.contains("4 GPU-h")),
        "{:?}",
        spread.spread
    );
    let nothing = ClusterRuns {
        busy: &[1.5],
        gpu_hours: 1.5,
        largest_run_gpus: 1.5,
        typed: &[],
    };
    let unnamed = cluster_models(&nothing, None, &settings);
    assert_eq!(unnamed.lines[0].model, UNNAMED_MODEL);
    assert_eq!(unnamed.lines[0].gpus, 2.0);
    assert_eq!(unnamed.lines[0].usd_per_gpu_hour, settings.default_usd_per_gpu_hour);
}

#[test]
fn a_node_list_sizes_each_model_and_what_the_catalog_cannot_price_is_named() {
    let settings = settings();
    let list = NodeInventory {
        cluster: None,
        source: "nodes.csv".into(),
        gpus_by_model: vec![("T4".into(), 8.0), ("G2".into(), 2.0)],
        nodes: 3,
        duplicate_nodes: Vec::new(),
    };
    let runs = ClusterRuns {
        busy: &[5.0],
        gpu_hours: 5.0,
        largest_run_gpus: 1.0,
        typed: &[],
    };
    let models = cluster_models(&runs, Some(&list), &settings);
    let t4 = settings.unlisted_price(Some("T4")).usd_per_gpu_hour;
    let fallback = settings.default_usd_per_gpu_hour;
    assert!((models.usd_per_gpu_hour() - (8.0 * t4 + 2.0 * fallback) / 10.0).abs() < 1e-12);
    assert_eq!(models.capacity_gpus(), 10.0);
    assert_eq!(models.priced_as().as_deref(), Some("t4"));
    assert_eq!((models.lines[0].gpu_hours, models.lines[1].gpu_hours), (4.0, 1.0));
    let source = models.price_source(Some(&list));
    assert!(
        source.contains("2 G2 at the fallback") && source.contains("nodes.csv"),
        "{source}"
    );
    assert!(models.spread.is_some());
}
