//! The demand forecast the Forecast pane shows. The fits (the slow part) come from the worker,
//! once per audit and horizon; every plan edit reshapes them here, on the UI thread, with the
//! pipeline's own `forecast_for_plan`, so a growth slider never waits for a refit; the
//! commitment layers are sized on the shaped forecast the same way (`commitment_report`, keeping the layers of classes a step did not move).

use super::forecast_field::{ForecastField, day_after};
use super::{App, Effect};
use crate::model::commitment_layers::{
    ClassLayers, CommitmentInputs, CommitmentReport, PolicySelection, commitment_report_keeping,
};
use crate::model::fleet_contracts::ContractsReport;
use crate::model::forecast::{FleetFits, ForecastReport, ForecastScope, PlanAssumptions, shape_fleet};
use crate::model::plan::{CommitmentsPlan, GROWTH_RANGE, PlanPriceChange};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ForecastState {
    pub generation: u64,
    /// What the latest fit request asked for: the horizon in days and whether the log's
    /// incomplete tail is kept; None after a new audit.
    pub requested: Option<FitRequest>,
    pub fits: Option<FleetFits>,
    /// The fits shaped by the plan on screen.
    pub shown: Option<ForecastReport>,
    /// What of the plan `shown` was shaped by: an edit that leaves it alone (an MFU step with
    /// the `[training]` run not counted) reshapes nothing.
    pub shaped_by: Option<PlanAssumptions>,
    pub working: bool,
    pub error: Option<String>,
    /// Each class's commitment layers on the shown forecast (the Contracts pane).
    pub commitments: Option<CommitmentReport>,
    /// Each class's commitment policy, chosen by its backtest on the fits and on the contract
    /// matching and prices of the request that brought them (`FitRequest`).
    pub selection: Vec<PolicySelection>,
    /// What `commitments` were sized from; the same inputs size nothing again.
    pub committed_for: Option<LayersKey>,
}

/// What a fit is asked for: a refit follows a change of the horizon or of the tail kept; a
/// change of what the policies' backtest prices (the contract matching, the plan's price
/// changes and trust) chooses the policies again on the kept fits, as `report` does for the
/// plan it is given. A growth or MFU step changes none of it.
#[derive(Debug, Clone, PartialEq)]
pub struct FitRequest {
    pub horizon_days: u32,
    pub keep_incomplete_tail: bool,
    contracts: Option<ContractsReport>,
    price_changes: Vec<PlanPriceChange>,
    price_trust: Option<CommitmentsPlan>,
}

/// What the layers read: the fits (by generation), the plan's assumptions, the contract
/// matching and the plan's price changes.
#[derive(Debug, Clone, PartialEq)]
pub struct LayersKey {
    generation: u64,
    assumptions: PlanAssumptions,
    contracts: ContractsReport,
    price_changes: Vec<PlanPriceChange>,
    price_trust: Option<CommitmentsPlan>,
}

impl App {
    /// Asks the worker to fit the audit's series and choose the policies when there is an audit
    /// and what they read (`FitRequest`) differs from the last request's.
    pub fn request_forecast(&mut self) -> Option<Effect> {
        self.fleet.as_ref()?;
        let days = self.plan.forecast_horizon_days();
        let request = FitRequest {
            horizon_days: days,
            keep_incomplete_tail: self.plan.keeps_incomplete_tail(),
            contracts: self.derived.contracts.clone(),
            price_changes: self.plan.price_changes.clone(),
            price_trust: self.plan.commitments,
        };
        if self.forecast.requested.as_ref() == Some(&request) {
            return None;
        }
        self.forecast.requested = Some(request);
        self.forecast.generation += 1;
        self.forecast.working = true;
        Some(Effect::FitForecast {
            generation: self.forecast.generation,
            horizon_days: days,
            plan: Box::new(self.plan.clone()),
        })
    }

    /// Shapes the kept fits by the plan on screen (growth, planned runs) as the pipeline's
    /// `forecast_for_plan` does: no refit, and nothing at all when what the forecast reads of
    /// the plan did not change. Fits of another horizon stay on screen, shaped, until the new
    /// ones land.
    pub fn reshape_forecast(&mut self) {
        let Some(fits) = self.forecast.fits.as_ref() else {
            return;
        };
        let assumptions = PlanAssumptions::of(&self.plan, &self.catalog, fits);
        if self.forecast.shaped_by.as_ref() != Some(&assumptions) {
            self.forecast.shown = Some(shape_fleet(fits, ForecastScope::Fleet, &assumptions));
            self.forecast.shaped_by = Some(assumptions);
        }
        self.relayer();
    }

    /// Sizes the commitment layers on the shown forecast with the pipeline's own
    /// `commitment_report`, when what they read changed (a growth slider, a cluster edit, new
    /// fits); none without fits or a contract matching.
    fn relayer(&mut self) {
        let (Some(fits), Some(assumptions), Some(contracts)) = (
            self.forecast.fits.as_ref(),
            self.forecast.shaped_by.as_ref(),
            self.derived.contracts.as_ref(),
        ) else {
            self.forecast.commitments = None;
            self.forecast.committed_for = None;
            return;
        };
        let key = LayersKey {
            generation: self.forecast.generation,
            assumptions: assumptions.clone(),
            contracts: contracts.clone(),
            price_changes: self.plan.price_changes.clone(),
            price_trust: self.plan.commitments,
        };
        if self.forecast.committed_for.as_ref() == Some(&key) {
            return;
        }
        // A growth step moves one class: the other classes' layers read nothing that changed.
        let kept: Vec<ClassLayers> = match (&self.forecast.committed_for, &self.forecast.commitments) {
            (Some(old), Some(report))
                if old.generation == key.generation
                    && old.contracts == key.contracts
                    && old.price_changes == key.price_changes
                    && old.price_trust == key.price_trust
                    && old.assumptions.planned == key.assumptions.planned =>
            {
                report
                    .classes
                    .iter()
                    .filter(|l| old.assumptions.growth.get(l.class) == key.assumptions.growth.get(l.class))
                    .cloned()
                    .collect()
            }
            _ => Vec::new(),
        };
        let inputs = CommitmentInputs {
            assumptions,
            contracts,
            plan: &self.plan,
            catalog: &self.catalog,
            selection: &self.forecast.selection,
        };
        self.forecast.commitments = commitment_report_keeping(fits, &inputs, &kept);
        self.forecast.committed_for = Some(key);
    }

    /// The fits landed: keep them and shape them.
    pub fn forecast_fitted(&mut self, fits: FleetFits, selection: Vec<PolicySelection>) {
        self.forecast.fits = Some(fits);
        self.forecast.selection = selection;
        self.forecast.working = false;
        self.forecast.error = None;
        self.forecast.shaped_by = None;
        self.reshape_forecast();
    }

    /// What a `[forecast]` value the plan leaves out stands at: a growth, the factor the fitted
    /// forecast amounts to (on the slider's tenth-steps, so the first step lands on a round
    /// factor); the `[training]` run's start, the horizon's first whole day.
    pub fn forecast_default(&self, field: ForecastField) -> Option<f64> {
        match field {
            ForecastField::Growth(class) => {
                let (low, high) = GROWTH_RANGE;
                let fitted = self.forecast.shown.as_ref().and_then(|shown| {
                    let series = &shown.classes.iter().find(|c| c.class == class)?.forecast;
                    series.fitted_growth_per_year()
                });
                Some((fitted.unwrap_or(1.0).clamp(low, high) * 10.0).round() / 10.0)
            }
            ForecastField::TrainingStart => {
                let fits = self.forecast.fits.as_ref()?;
                Some(day_after(fits.fleet[0].horizon_start_ms))
            }
            _ => None,
        }
    }
}
