//! A starting plan written from what an audit of the user's own logs saw: the built-in plan's
//! assumptions with its `[[clusters]]` replaced by one per cluster of the logs (its observed
//! peak as capacity, the accelerator its log names, that accelerator's catalog list price) and
//! its `[[logs]]` by the logs read. Every figure not read from the logs is marked as an
//! assumption to confirm, in a comment beside it and in `price_source`.

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

use super::error::ConfigError;
use crate::model::audit_settings::assumed_price_source;
use crate::model::catalog::Term;

/// One cluster as an audit saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct ObservedCluster {
    pub name: String,
    /// The GPUs the audit sized it at: its node list's, else the most its jobs held at once
    /// (whole GPUs).
    pub capacity_gpus: f64,
    /// The catalog's id of the accelerator its log names; None when the log names none the
    /// catalog knows.
    pub accelerator: Option<String>,
    /// The GPU type as the log names it.
    pub gpu_type: Option<String>,
    pub usd_per_gpu_hour: f64,
    /// Where that price comes from (a catalog offer, or the fallback rate).
    pub price_source: String,
    /// Its models, when it holds more than one: written as `[[clusters.models]]`.
    pub models: Vec<ObservedModel>,
}

/// One model of a mixed cluster as the audit sized and priced it.
#[derive(Debug, Clone, PartialEq)]
pub struct ObservedModel {
    pub model: String,
    pub gpus: f64,
    pub usd_per_gpu_hour: f64,
    /// Priced at the fallback rate: neither the catalog nor the plan prices it.
    pub at_fallback_rate: bool,
    pub price_source: String,
}

/// The accelerator written for a cluster whose log names none the catalog knows.
pub const ASSUMED_ACCELERATOR: &str = "h100-sxm";

/// `default_toml` (a plan) with its clusters and logs replaced by `clusters` and `logs`
/// (paths, each with its mapping file if any).
pub fn plan_from_logs(
    default_toml: &str,
    clusters: &[ObservedCluster],
    logs: &[(String, Option<String>)],
) -> Result<String, ConfigError> {
    let mut doc: DocumentMut = default_toml.parse().map_err(ConfigError::OriginalNotToml)?;
    doc.remove("clusters");
    doc.remove("logs");
    let mut tables = ArrayOfTables::new();
    for (i, c) in clusters.iter().enumerate() {
        let mut t = Table::new();
        let header = if i == 0 {
            "\n# ---------------------------------------------------------------------------\n\
             # Clusters, as `gpuplan plan new --logs` saw them in the logs. CONFIRM EACH ONE:\n\
             # capacity is the most GPUs the jobs held at once (the cluster may own more),\n\
             # the price is a catalog list price for the accelerator the log names, and the\n\
             # term and deployment are guesses (on demand, on VMs). Replace them with your\n\
             # contract's figures.\n\
             # ---------------------------------------------------------------------------\n"
        } else {
            "\n"
        };
        t.decor_mut().set_prefix(header);
        t.insert("name", value(c.name.as_str()));
        let accelerator = c.accelerator.as_deref().unwrap_or(ASSUMED_ACCELERATOR);
        t.insert("accelerator", value(accelerator));
        let accelerator_note = match (&c.accelerator, &c.gpu_type) {
            (Some(_), _) if c.models.len() > 1 => {
                "the catalog accelerator of most of its GPUs; each model's own below".to_string()
            }
            (Some(_), Some(gpu_type)) => format!("the log's GPU type: {gpu_type}"),
            (None, Some(gpu_type)) => format!("ASSUMED: the log's GPU type {gpu_type} is not in the catalog"),
            (_, None) => "ASSUMED: the log names no GPU type".to_string(),
        };
        set_comment(&mut t, "accelerator", &accelerator_note);
        // A mixed cluster's GPUs and price are its models' (rounded as each is written), so
        // the two add up exactly as the plan's check asks.
        let models: Vec<(&ObservedModel, f64)> = c
            .models
            .iter()
            .map(|m| (m, round_cents_tenths(m.usd_per_gpu_hour)))
            .collect();
        let (gpus, usd) = if models.len() > 1 {
            let gpus: f64 = models.iter().map(|(m, _)| m.gpus).sum();
            let cost: f64 = models.iter().map(|(m, usd)| m.gpus * usd).sum();
            (gpus, cost / gpus)
        } else {
            (c.capacity_gpus, c.usd_per_gpu_hour)
        };
        t.insert("gpus", gpus_value(gpus));
        set_comment(
            &mut t,
            "gpus",
            "ASSUMED: as the audit sized it (node list, else the observed peak)",
        );
        t.insert("usd_per_gpu_hour", value(round_cents_tenths(usd)));
        set_comment(&mut t, "usd_per_gpu_hour", "ASSUMED: a list price, not your contract's");
        t.insert("term", value(Term::OnDemand.label()));
        set_comment(&mut t, "term", "ASSUMED");
        t.insert("deployment", value("vm"));
        set_comment(&mut t, "deployment", "ASSUMED");
        t.insert("price_source", value(assumed_price_source(&c.price_source)));
        if models.len() > 1 {
            let mut lines = ArrayOfTables::new();
            for (model, usd) in &models {
                let mut m = Table::new();
                m.insert("model", value(model.model.as_str()));
                m.insert("gpus", gpus_value(model.gpus));
                m.insert("usd_per_gpu_hour", value(*usd));
                let note = if model.at_fallback_rate {
                    "ASSUMED: the catalog cannot price it; the fallback rate: give its price"
                } else {
                    "ASSUMED: a list price, not your contract's"
                };
                set_comment(&mut m, "usd_per_gpu_hour", note);
                m.insert("price_source", value(assumed_price_source(&model.price_source)));
                lines.push(m);
            }
            t.insert("models", Item::ArrayOfTables(lines));
        }
        tables.push(t);
    }
    if !tables.is_empty() {
        doc.insert("clusters", Item::ArrayOfTables(tables));
    }
    let mut log_tables = ArrayOfTables::new();
    for (i, (path, mapping)) in logs.iter().enumerate() {
        let mut t = Table::new();
        if i == 0 {
            t.decor_mut()
                .set_prefix("\n# The logs the clusters above were read from.\n");
        }
        t.insert("path", value(path.as_str()));
        if let Some(mapping) = mapping {
            t.insert("mapping", value(mapping.as_str()));
        }
        log_tables.push(t);
    }
    if !log_tables.is_empty() {
        doc.insert("logs", Item::ArrayOfTables(log_tables));
    }
    Ok(doc.to_string())
}

/// The observed peak as it was measured: a whole count is written as an integer, a peak of
/// shared GPUs keeps its hundredths, and neither is rounded up (a rounded-up capacity is paid
/// for every month).
fn gpus_value(peak_gpus: f64) -> Item {
    let hundredths = ((peak_gpus * 100.0).round() / 100.0).max(1.0);
    if hundredths.fract() == 0.0 {
        value(hundredths as i64)
    } else {
        value(hundredths)
    }
}

/// A price kept to a tenth of a cent: list prices are quoted so.
fn round_cents_tenths(usd: f64) -> f64 {
    (usd * 1000.0).round() / 1000.0
}

fn set_comment(table: &mut Table, key: &str, comment: &str) {
    if let Some(v) = table.get_mut(key).and_then(Item::as_value_mut) {
        v.decor_mut().set_suffix(format!("  # {comment}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::plan_file::DEFAULT_PLAN_TOML;

    #[test]
    fn the_logs_clusters_replace_the_built_in_ones_and_every_guess_says_so() {
        let clusters = [
            ObservedCluster {
                name: "gpu-a100".into(),
                capacity_gpus: 47.5,
                accelerator: Some("a100-80gb".into()),
                gpu_type: Some("a100".into()),
                usd_per_gpu_hour: 3.4315,
                price_source: "AWS list price".into(),
                models: Vec::new(),
            },
            ObservedCluster {
                name: "old-v100".into(),
                capacity_gpus: 8.0,
                accelerator: None,
                gpu_type: Some("V100".into()),
                usd_per_gpu_hour: 12.29,
                price_source: "seed 001 fallback".into(),
                models: Vec::new(),
            },
        ];
        let text = plan_from_logs(DEFAULT_PLAN_TOML, &clusters, &[("/data/jobs.csv".into(), None)]).expect("plan");
        let plan: toml::Value = toml::from_str(&text).expect("valid TOML");
        let written = plan["clusters"].as_array().expect("clusters");
        assert_eq!(written.len(), 2, "the built-in clusters are gone:\n{text}");
        assert_eq!(
            written[0]["gpus"].as_float(),
            Some(47.5),
            "a peak of shared GPUs is not rounded up"
        );
        assert_eq!(written[1]["gpus"].as_integer(), Some(8), "a whole peak stays a count");
        assert_eq!(written[0]["accelerator"].as_str(), Some("a100-80gb"));
        assert_eq!(written[0]["usd_per_gpu_hour"].as_float(), Some(3.432));
        assert_eq!(written[1]["accelerator"].as_str(), Some(ASSUMED_ACCELERATOR));
        assert!(text.contains("ASSUMED: the log's GPU type V100 is not in the catalog"));
        assert!(
            written[1]["price_source"]
                .as_str()
                .expect("source")
                .starts_with("ASSUMED")
        );
        assert_eq!(plan["logs"][0]["path"].as_str(), Some("/data/jobs.csv"));
        assert!(!text.contains("us-east-h100\""), "{text}");
    }
}
