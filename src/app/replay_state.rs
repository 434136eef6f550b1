//! The replay the Contracts pane shows: today's clusters against the split, rerun on the
//! worker when what it consumes (the split's pools and scheduling) changes, the last result kept on
//! screen until the newer one lands.

use super::{App, Effect, Field};
use crate::model::split::{ReplayReport, ReplaySetup};
use crate::model::waterfall::{Waterfall, waterfall};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplayState {
    pub generation: u64,
    /// What the latest request replays (pools and scheduling); None after a new audit.
    pub requested: Option<ReplaySetup>,
    pub result: Option<ReplayReport>,
    pub working: bool,
    pub error: Option<String>,
}

impl App {
    /// Asks for a replay when there is an audit and what the replay consumes (the split's pools
    /// and scheduling, `ReplaySetup`, compared whole) changed since the last request.
    pub fn request_replay(&mut self) -> Option<Effect> {
        let fleet = self.fleet.as_ref()?;
        let setup = ReplaySetup::of(&self.plan, self.derived.contracts.as_ref(), &fleet.report);
        if self.replay.requested.as_ref() == Some(&setup) {
            return None;
        }
        self.replay.requested = Some(setup);
        self.replay.generation += 1;
        self.replay.working = true;
        Some(Effect::Replay {
            generation: self.replay.generation,
            plan: Box::new(self.plan.clone()),
        })
    }

    /// The board's waterfall from the contract matching and, once it has landed for the plan
    /// on screen, the replay's split.
    pub fn waterfall(&self) -> Option<Waterfall> {
        let contracts = self.derived.contracts.as_ref()?;
        let replay = self.replay.result.as_ref().filter(|_| !self.replay.working);
        let why_not = match (&self.replay.error, self.replay.working) {
            (Some(e), _) => format!("the replay failed: {e}"),
            (None, true) => "replaying the jobs…".to_string(),
            (None, false) => "no replay yet".to_string(),
        };
        Some(waterfall(contracts, replay, &why_not))
    }

    /// A field's value: the plan's, or for a pool the plan does not size, the size the last
    /// replay used (the contract matcher's base); for a growth the plan leaves to the fit, the
    /// factor the fitted trend amounts to; for the `[training]` run's start, the horizon's.
    pub fn field_value(&self, field: Field) -> Option<f64> {
        use crate::app::field::ForecastField;
        field.get(&self.plan).or_else(|| match field {
            Field::ReplayPool(class) => self
                .replay
                .result
                .as_ref()?
                .split_pools
                .iter()
                .find(|p| p.class == class)
                .map(|p| p.gpus),
            Field::Forecast(ForecastField::Growth(class)) => {
                let (low, high) = crate::model::plan::GROWTH_RANGE;
                let fitted = self.forecast.shown.as_ref().and_then(|shown| {
                    let series = &shown.classes.iter().find(|c| c.class == class)?.forecast;
                    series.fitted_growth_per_year()
                });
                // On the slider's tenth-steps, so the first step lands on a round factor.
                Some((fitted.unwrap_or(1.0).clamp(low, high) * 10.0).round() / 10.0)
            }
            Field::Forecast(ForecastField::TrainingStart) => {
                let fits = self.forecast.fits.as_ref()?;
                Some((fits.fleet[0].horizon_start_ms as f64 / 86_400_000.0).ceil())
            }
            _ => None,
        })
    }
}
