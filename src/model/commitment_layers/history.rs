//! The layers backtested on the audit's own history, class by class: fit the forecast on all
//! but the last days, size the layers at that cut-off, and price the held-out days as they
//! happened (`score`), beside hindsight and today's matcher run on the same history.

use super::flat::flat_ladder;
use super::fleet::{class_paths, gpus_per_fleet_gpu, horizon_months_of, offer_months, price_change, tier_menu};
use super::score::{CommitmentScore, score_commitments};
use crate::model::catalog::Catalog;
use crate::model::contracts::match_class;
use crate::model::fleet::AuditReport;
use crate::model::fleet_contracts::{ContractsReport, MatchTerms, class_demand, hours_per_point};
use crate::model::forecast::{ClassAssumptions, DemandSeries, fit_series};
use crate::model::plan::Plan;
use crate::model::workload::WorkloadClass;

/// Each matched class's commitment score over the last `holdout_days` of the audit; a class
/// that cannot be scored says why.
pub fn backtest_commitments(
    audit: &AuditReport,
    contracts: &ContractsReport,
    plan: &Plan,
    catalog: &Catalog,
    holdout_days: u32,
) -> Vec<(WorkloadClass, Result<CommitmentScore, String>)> {
    let Some(offers) = catalog.contracts.as_ref().map(|c| &c.offers) else {
        return Vec::new();
    };
    let hours_per_month = contracts.hours_per_month;
    let terms = MatchTerms::of(plan, audit);
    let hours = hours_per_point(audit);
    contracts
        .classes
        .iter()
        .map(|class| {
            let score = (|| {
                let fleet = class_demand(audit, class.class);
                let series = DemandSeries {
                    start_ms: audit.window.start_ms,
                    hours_per_point: hours.max(1.0) as u32,
                    gpus: fleet,
                };
                let points_per_day = series.points_per_day();
                let holdout = holdout_days as usize * points_per_day;
                if holdout == 0 || series.gpus.len() < holdout + 2 * points_per_day {
                    return Err(format!("{holdout_days} held-out days leave under two days to fit"));
                }
                let fleet_gpu_hours = series.gpus.iter().sum::<f64>() * hours;
                let factor = gpus_per_fleet_gpu(class, fleet_gpu_hours).ok_or("no demand in the history")?;
                let change = price_change(plan, catalog, &class.accelerator);
                let menu = tier_menu(class, offers, hours_per_month, &change)?;
                let cut = series.gpus.len() - holdout;
                let train = DemandSeries {
                    gpus: series.gpus[..cut].to_vec(),
                    ..series.clone()
                };
                let fit = fit_series(&train, (cut / points_per_day).max(1) as u32);
                let paths = class_paths(
                    &fit,
                    class.class,
                    ClassAssumptions::default(),
                    factor,
                    hours_per_month,
                    horizon_months_of(&menu),
                );
                let scaled = |gpus: &[f64]| gpus.iter().map(|g| g * factor).collect::<Vec<f64>>();
                let history = scaled(&train.gpus);
                let memory = |id: &str| catalog.accelerator(id).map(|a| a.memory_gb);
                let gang_gpus = class.largest_gang_gpus.unwrap_or(1.0);
                let request = terms.request(class.class, &history, hours, &class.accelerator, gang_gpus);
                let flat_mix = match_class(&request, offers, memory).map_err(|e| e.to_string())?;
                let flat = flat_ladder(&flat_mix.best_mix, &menu, |id| {
                    offer_months(offers, id, hours_per_month)
                });
                Ok(score_commitments(
                    &class.accelerator,
                    &menu,
                    &paths,
                    &scaled(&series.gpus[cut..]),
                    &flat,
                ))
            })();
            (class.class, score)
        })
        .collect()
}
