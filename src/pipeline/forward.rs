//! The forward view of the last audit: its demand forecast (fits kept per audit and horizon,
//! reshaped by the plan), the forecast's backtest with the commitments', and the commitment
//! layers on the forecast. Both faces call these through `Pipeline`.

use super::error::PipelineError;
use super::{AuditStep, Pipeline, StepTimings};
use crate::model::commitment_layers::{
    CommitmentInputs, CommitmentReport, PolicySelection, SELECTION_HOLDOUT_DAYS, backtest_commitments,
    commitment_report, selections,
};
use crate::model::fleet_contracts::{ContractsReport, clusters_today};
use crate::model::forecast::{
    BacktestOrigins, BacktestReport, DemandSeries, FleetFits, ForecastReport, ForecastScope, IncompleteTail,
    MAX_BACKTEST_ORIGINS, PlanAssumptions, backtest_fleet, fit_fleet, fleet_demand, fleet_tail, forecast_for_plan,
};
use crate::model::plan::Plan;

/// What the kept forecast fits were fitted from: the audit, the horizon and each cluster's
/// accelerator (empty for the fleet alone).
pub(super) struct ForecastKey {
    audit_id: u64,
    horizon_days: u32,
    accelerators: Vec<String>,
    keep_tail: bool,
}

impl Pipeline {
    /// The last audit's demand forecast of `scope` over `horizon_days` (the plan's `[forecast]`
    /// horizon when None), shaped by the plan's growth and planned runs.
    pub fn forecast(
        &mut self,
        plan: &Plan,
        horizon_days: Option<u32>,
        scope: ForecastScope,
    ) -> Result<ForecastReport, PipelineError> {
        let audit = self.audit.as_ref().ok_or(PipelineError::NotAudited)?;
        let accelerators = match scope {
            ForecastScope::FleetAndClusters => clusters_today(plan, &self.catalog, &audit.audited.report)
                .into_iter()
                .map(|c| c.accelerator)
                .collect(),
            ForecastScope::Fleet => Vec::new(),
        };
        let days = horizon_days.unwrap_or_else(|| plan.forecast_horizon_days());
        let shape = FitShape {
            days,
            scope,
            accelerators,
            keep_tail: plan.keeps_incomplete_tail(),
        };
        let fits = kept_or_fitted(&mut self.forecast, &mut self.timings, audit, shape);
        Ok(forecast_for_plan(fits, scope, plan, &self.catalog))
    }

    /// The last audit's series fitted over `days` (with `FleetAndClusters`, also per cluster
    /// and per accelerator, `accelerators[i]` running cluster i): what the growth sliders
    /// reshape without a refit.
    pub fn forecast_fits(
        &mut self,
        days: u32,
        scope: ForecastScope,
        accelerators: Vec<String>,
        keep_tail: bool,
    ) -> Result<&FleetFits, PipelineError> {
        let audit = self.audit.as_ref().ok_or(PipelineError::NotAudited)?;
        let shape = FitShape {
            days,
            scope,
            accelerators,
            keep_tail,
        };
        Ok(kept_or_fitted(&mut self.forecast, &mut self.timings, audit, shape))
    }

    /// The last audit's fleet-wide demand per class (training, inference, burst).
    pub fn fleet_demand(&self) -> Result<[DemandSeries; 3], PipelineError> {
        let audit = self.audit.as_ref().ok_or(PipelineError::NotAudited)?;
        Ok(fleet_demand(&audit.audited.report))
    }

    /// The last audit's incomplete tail (model::forecast::tail), kept or left out as `plan` says:
    /// what the audit says and every forecast of the audit leaves out.
    pub fn incomplete_tail(&self, plan: &Plan) -> Result<Option<IncompleteTail>, PipelineError> {
        Ok(fleet_tail(&self.fleet_demand()?, plan.keeps_incomplete_tail()))
    }

    /// The last audit's series scored on their last `holdout_days` days, and the fleet's
    /// classes' commitment layers sized at that cut-off and priced on what happened.
    pub fn backtest(
        &mut self,
        plan: &Plan,
        holdout_days: u32,
        origins: BacktestOrigins,
    ) -> Result<BacktestReport, PipelineError> {
        let contracts = self.contracts(plan);
        let audit = self.audit.as_ref().ok_or(PipelineError::NotAudited)?;
        let report = &audit.audited.report;
        let mut backtest = self
            .timings
            .record("backtest", || backtest_fleet(report, holdout_days, origins))
            .map_err(PipelineError::Backtest)?;
        let Some(contracts) = contracts else {
            return Ok(backtest);
        };
        let catalog = &self.catalog;
        let scores = self.timings.record("commitment backtest", || {
            backtest_commitments(report, &contracts, plan, catalog, holdout_days, origins)
        });
        for class in &mut backtest.classes {
            match scores.iter().find(|(c, _, _)| *c == class.class) {
                Some((_, _, Ok(score))) => class.commitment = Some(score.clone()),
                Some((_, _, Err(why))) => class.commitment_not_scored = Some(why.to_string()),
                None => class.commitment_not_scored = Some("no contract match for the class".to_string()),
            }
        }
        Ok(backtest)
    }

    /// Each matched class's policy, chosen by the commitments' backtest over
    /// `SELECTION_HOLDOUT_DAYS` after each of up to `MAX_BACKTEST_ORIGINS` origins of the last
    /// audit's history; a class that cannot be scored falls back to flat, saying why.
    pub fn policy_selection(
        &mut self,
        plan: &Plan,
        contracts: &ContractsReport,
    ) -> Result<Vec<PolicySelection>, PipelineError> {
        let audit = self.audit.as_ref().ok_or(PipelineError::NotAudited)?;
        let report = &audit.audited.report;
        let catalog = &self.catalog;
        let backtests = self.timings.record("policy selection", || {
            backtest_commitments(
                report,
                contracts,
                plan,
                catalog,
                SELECTION_HOLDOUT_DAYS,
                BacktestOrigins::rolling(MAX_BACKTEST_ORIGINS),
            )
        });
        Ok(selections(&backtests, SELECTION_HOLDOUT_DAYS))
    }

    /// Each matched class's commitments on the last audit's forecast, shaped by the plan's
    /// growth and planned runs over its horizon (the fits the forecast keeps), sized by the
    /// policy its own backtest chose.
    pub fn commitments(
        &mut self,
        plan: &Plan,
        contracts: &ContractsReport,
    ) -> Result<Option<CommitmentReport>, PipelineError> {
        let selection = self.policy_selection(plan, contracts)?;
        let audit = self.audit.as_ref().ok_or(PipelineError::NotAudited)?;
        let days = plan.forecast_horizon_days();
        let shape = FitShape {
            days,
            scope: ForecastScope::Fleet,
            accelerators: Vec::new(),
            keep_tail: plan.keeps_incomplete_tail(),
        };
        let fits = kept_or_fitted(&mut self.forecast, &mut self.timings, audit, shape);
        let catalog = &self.catalog;
        let assumptions = PlanAssumptions::of(plan, catalog, fits);
        let inputs = CommitmentInputs {
            assumptions: &assumptions,
            contracts,
            plan,
            catalog,
            selection: &selection,
        };
        Ok(self.timings.record("commitments", || commitment_report(fits, &inputs)))
    }
}

/// What a fit is asked for: its horizon, its scope, each cluster's accelerator (for
/// `FleetAndClusters`) and whether an incomplete tail is kept.
struct FitShape {
    days: u32,
    scope: ForecastScope,
    accelerators: Vec<String>,
    keep_tail: bool,
}

/// The kept forecast fits when they came from this audit and horizon and hold what `scope`
/// asks (the clusters' accelerators too, for `FleetAndClusters`; the fleet's fits do not
/// depend on them), else new ones, fitted, timed and kept.
fn kept_or_fitted<'a>(
    kept: &'a mut Option<(ForecastKey, FleetFits)>,
    timings: &mut StepTimings,
    audit: &AuditStep,
    shape: FitShape,
) -> &'a FleetFits {
    let FitShape {
        days,
        scope,
        accelerators,
        keep_tail,
    } = shape;
    let serves = |(key, fits): &(ForecastKey, FleetFits)| {
        key.audit_id == audit.id
            && key.horizon_days == days
            && key.keep_tail == keep_tail
            && fits.cover(scope)
            && (scope == ForecastScope::Fleet || key.accelerators == accelerators)
    };
    let entry = match kept.take() {
        Some(entry) if serves(&entry) => entry,
        _ => {
            let report = &audit.audited.report;
            let fits = timings.record("forecast fit", || {
                fit_fleet(report, days, scope, &accelerators, keep_tail)
            });
            let key = ForecastKey {
                audit_id: audit.id,
                horizon_days: days,
                accelerators,
                keep_tail,
            };
            (key, fits)
        }
    };
    &kept.insert(entry).1
}
