//! The jobs of a live source, read over a fixed window: Slurm's accounting through sacct, or
//! the pods kube-state-metrics saw in Prometheus. Either replaces the logs' files; the window
//! they were read over becomes the audit's.

use super::error::PipelineError;
use super::observer::Observer;
use crate::data::audit::fleet_source::FleetSource;
use crate::data::prometheus::client::PrometheusClient;
use crate::data::prometheus::pull::{PullProgress, pull_pods};
use crate::data::readers::load::load_sacct_log;
use crate::data::readers::tabular::Detail;
use crate::data::slurm::{SacctProgress, pull_sacct};
use crate::model::audit_settings::WindowSpec;
use crate::model::fleet::Window;
use crate::model::plan::{PrometheusSource, SlurmSource};
use crate::model::workload::ClassificationRules;
use crate::shared::format::{count_of, thousands};

/// The fixed window a live source is read over: `--since`/`--until`, else the last `--days`
/// (90) to now; `message` says why `--all-time` cannot be read.
fn live_window(window: WindowSpec, all_time_message: &'static str) -> Result<(i64, i64, WindowSpec), PipelineError> {
    if window.days.is_none() && window.since_ms.is_none() {
        return Err(PipelineError::Window {
            flag: "--all-time",
            message: all_time_message,
        });
    }
    let now_ms = chrono::Utc::now().timestamp_millis();
    let end_ms = window.until_ms.unwrap_or(now_ms);
    let days = window.days.unwrap_or(90.0);
    let start_ms = window.since_ms.unwrap_or(end_ms - (days * 86_400_000.0) as i64);
    if end_ms <= start_ms {
        return Err(PipelineError::Window {
            flag: "--since",
            message: "the window is empty: --since must come before --until",
        });
    }
    let fixed = WindowSpec {
        days: None,
        since_ms: Some(start_ms),
        until_ms: Some(end_ms),
    };
    Ok((start_ms, end_ms, fixed))
}

/// The jobs Slurm's accounting holds over the window, read through sacct a piece at a time.
pub(super) fn read_slurm(
    slurm: &SlurmSource,
    rules: &ClassificationRules,
    window: WindowSpec,
    observer: &mut dyn Observer,
) -> Result<(FleetSource, WindowSpec), PipelineError> {
    let (start_ms, end_ms, fixed) = live_window(
        window,
        "Slurm's accounting is read over a window: give --since (and --until) or --days",
    )?;
    observer.started(&format!("running {}", slurm.sacct), 0, true);
    let mut tell = |p: SacctProgress| {
        observer.phase(format!(
            "sacct: piece {} of {}, {} rows so far",
            p.piece,
            p.pieces,
            thousands(p.rows as f64)
        ))
    };
    let pull = pull_sacct(slurm, start_ms, end_ms, &mut tell).map_err(PipelineError::Slurm)?;
    let clusters = if slurm.clusters.is_empty() {
        "all clusters".to_string()
    } else {
        slurm.clusters.join(", ")
    };
    let calls = count_of(pull.pieces as u64, "call", "calls");
    let shown = format!("sacct ({clusters}, {calls})");
    observer.note(format!(
        "sacct printed {} rows in {calls} ({clusters}): {} runs, {} jobs that never started; first call: {}",
        thousands(pull.rows as f64),
        thousands(pull.log.runs.len() as f64),
        thousands(pull.log.pending.len() as f64),
        pull.first_command
    ));
    if pull.repeated_rows > 0 {
        observer.note(format!(
            "{} rows were printed by more than one call (jobs across a piece's boundary): each kept once",
            thousands(pull.repeated_rows as f64)
        ));
    }
    for cluster in &pull.missing_clusters {
        observer.note(format!(
            "sacct returned no job of cluster {cluster} in the window: not a cluster the accounting database knows, or idle"
        ));
    }
    let lingered = (pull.lingering_calls > 0).then(|| {
        format!(
            "{} exited while a process it started kept its output open: that process was stopped {} s later \
             and the rows already written were read",
            count_of(pull.lingering_calls as u64, "sacct call", "sacct calls"),
            crate::data::slurm::run::OUTPUT_AFTER_EXIT.as_secs()
        )
    });
    let mut loaded = load_sacct_log(pull.log, &shown, "sacct (live)", Detail::Audit(rules))?;
    // An input's warning: said once on standard error, in `inputs[]` and in the workbench.
    if let (Some(text), Some(file)) = (lingered, loaded.files.first_mut()) {
        file.warnings.push(text);
    }
    Ok((FleetSource::from_loaded(loaded), fixed))
}

/// A Kubernetes fleet from Prometheus alone: kube-state-metrics' pods over the window as runs.
pub(super) fn read_pods(
    prometheus: &PrometheusSource,
    rules: &ClassificationRules,
    window: WindowSpec,
    observer: &mut dyn Observer,
) -> Result<(FleetSource, WindowSpec), PipelineError> {
    let (start_ms, end_ms, fixed) = live_window(
        window,
        "with Prometheus and no job log there is no log to span: give --since (and --until) or --days",
    )?;
    let pull_window = Window::from_ms(start_ms, end_ms);
    observer.started("pulling pods from kube-state-metrics", 0, true);
    let client = PrometheusClient::connect(prometheus).map_err(PipelineError::Prometheus)?;
    let shown = client.shown_url();
    let mut tick = |p: PullProgress| observer.phase(format!("pods from {shown}: query {} of {}", p.done, p.total));
    let pods = pull_pods(&client, prometheus, &pull_window, &mut tick).map_err(PipelineError::Prometheus)?;
    let origin = format!("prometheus {} (kube-state-metrics)", client.shown_url());
    let source = FleetSource::from_runs(&pods.runs, &origin, rules)?;
    for note in pods.notes {
        observer.note(note);
    }
    Ok((source, fixed))
}
