//! The layers backtested on the audit's own history, class by class, at the forecast
//! backtest's rolling origins: at each cut-off, fit the forecast on the days before it, size
//! the layers (and seasonal naive's, and today's matcher's flat mix) there, and price the
//! held-out days as they happened (`score`). The regrets are summed up as their median and
//! range over the origins, and the policy with the lowest median chosen (`policy`); the price
//! bet is scored where dated prices cover the held-out days.

use rayon::prelude::*;

use super::CommitmentError;
use super::flat::flat_ladder;
use super::fleet::{
    class_paths, gpus_per_fleet_gpu, holding_flat_offers, horizon_months_of, offer_months, price_change, tier_menu,
};
use super::ladder::TierMenu;
use super::paths::DemandPaths;
use super::policy::{candidates_of, choose_policy, flat_fallback};
use super::score::{OriginInputs, score_origin};
use crate::model::catalog::{Catalog, Term};
use crate::model::contracts::{ContractOffer, match_class};
use crate::model::fleet::{AuditReport, iso_utc};
use crate::model::fleet_contracts::{ClassContracts, ContractsReport, MatchTerms, class_demand, hours_per_point};
use crate::model::forecast::{
    BacktestOrigins, ClassAssumptions, CommitmentBacktest, CommitmentOrigin, DemandSeries, PriceBetScore, RegretSpread,
    backtest_cutoffs, fit_series, naive_season,
};
use crate::model::plan::{HOURS_PER_YEAR, Plan};
use crate::model::price_trend::price_at;
use crate::model::workload::WorkloadClass;

const MS_PER_HOUR: f64 = 3_600_000.0;

/// Each matched class's commitments over the `holdout_days` after each of the `origins`
/// cut-offs (the forecast backtest's); a class that cannot be scored says why.
pub fn backtest_commitments(
    audit: &AuditReport,
    contracts: &ContractsReport,
    plan: &Plan,
    catalog: &Catalog,
    holdout_days: u32,
    origins: BacktestOrigins,
) -> Vec<(WorkloadClass, String, Result<CommitmentBacktest, CommitmentError>)> {
    let Some(offers) = catalog.contracts.as_ref().map(|c| &c.offers) else {
        return Vec::new();
    };
    let history = History {
        audit,
        plan,
        catalog,
        offers,
        hours_per_month: contracts.hours_per_month,
        terms: MatchTerms::of(plan, audit),
        holdout_days,
        origins,
    };
    contracts
        .classes
        .iter()
        .map(|class| (class.class, class.accelerator.clone(), history.class_backtest(class)))
        .collect()
}

/// What every class's backtest reads.
struct History<'a> {
    audit: &'a AuditReport,
    plan: &'a Plan,
    catalog: &'a Catalog,
    offers: &'a [ContractOffer],
    hours_per_month: f64,
    terms: MatchTerms,
    holdout_days: u32,
    origins: BacktestOrigins,
}

impl History<'_> {
    fn class_backtest(&self, class: &ClassContracts) -> Result<CommitmentBacktest, CommitmentError> {
        let hours = hours_per_point(self.audit);
        let series = DemandSeries {
            start_ms: self.audit.window.start_ms,
            hours_per_point: hours.max(1.0) as u32,
            gpus: class_demand(self.audit, class.class),
        };
        let ppd = series.points_per_day();
        let holdout = self.holdout_days as usize * ppd;
        let cutoffs = backtest_cutoffs(series.gpus.len(), ppd, holdout, self.origins);
        if holdout == 0 || cutoffs.is_empty() {
            return Err(CommitmentError::TooShort {
                holdout_days: self.holdout_days,
            });
        }
        let fleet_gpu_hours = series.gpus.iter().sum::<f64>() * hours;
        let factor = gpus_per_fleet_gpu(class, fleet_gpu_hours).ok_or(CommitmentError::NoDemand)?;
        let change = price_change(self.plan, self.catalog, &class.accelerator);
        let menu = tier_menu(class, self.offers, self.hours_per_month, &change)?;
        let dated = self.catalog.price_change(&class.accelerator, Term::OnDemand);
        let observed = dated.map(|row| row.observed.as_slice()).unwrap_or_default();
        let point_ms = f64::from(series.hours_per_point) * MS_PER_HOUR;
        let scored: Vec<Result<(CommitmentOrigin, Option<f64>), CommitmentError>> = cutoffs
            .par_iter()
            .map(|&cut| {
                let start_ms = series.start_ms + (cut as f64 * point_ms) as i64;
                let end_ms = start_ms + (holdout as f64 * point_ms) as i64;
                let dated_change = dated_change_per_year(observed, start_ms, end_ms);
                let origin = self.origin(class, &series, &menu, factor, cut, holdout, dated_change)?;
                Ok((origin, dated_change))
            })
            .collect();
        let scored: Vec<(CommitmentOrigin, Option<f64>)> = scored.into_iter().collect::<Result<_, _>>()?;
        let per_origin: Vec<CommitmentOrigin> = scored.iter().map(|(o, _)| o.clone()).collect();
        let spread = |f: fn(&CommitmentOrigin) -> f64| {
            RegretSpread::of(&per_origin.iter().map(f).collect::<Vec<_>>()).ok_or(CommitmentError::Unpriced)
        };
        let layers_regret = spread(|o| o.layers_regret_frac)?;
        let flat_regret = spread(|o| o.flat_regret_frac)?;
        let naive_layers_regret = spread(|o| o.naive_layers_regret_frac)?;
        let low_quantile_regret = spread(|o| o.low_quantile_regret_frac)?;
        let on_demand_regret = spread(|o| o.on_demand_regret_frac)?;
        let price_bet = price_bet_score(
            &scored,
            menu.renewal_bet.change_per_year,
            observed.is_empty(),
            &class.accelerator,
        );
        let mut backtest = CommitmentBacktest {
            accelerator: class.accelerator.clone(),
            origins: per_origin.len(),
            layers_beat_flat: layers_regret.median <= flat_regret.median + 1e-12,
            layers_regret,
            flat_regret,
            naive_layers_regret,
            low_quantile_regret,
            on_demand_regret,
            redecided_regret: spread(|o| o.redecided_regret_frac)?,
            chosen_by: flat_fallback(String::new(), self.holdout_days),
            price_bet,
            per_origin,
        };
        backtest.chosen_by = choose_policy(&candidates_of(&backtest), backtest.origins, self.holdout_days);
        Ok(backtest)
    }

    /// One cut-off: the forecast, naive and flat sized on the `cut` points before it, scored
    /// on the `holdout` after it.
    #[allow(clippy::too_many_arguments)]
    fn origin(
        &self,
        class: &ClassContracts,
        series: &DemandSeries,
        menu: &TierMenu,
        factor: f64,
        cut: usize,
        holdout: usize,
        dated_change_per_year: Option<f64>,
    ) -> Result<CommitmentOrigin, CommitmentError> {
        let hours = f64::from(series.hours_per_point);
        let scaled = |gpus: &[f64]| gpus.iter().map(|g| g * factor).collect::<Vec<f64>>();
        let history = scaled(&series.gpus[..cut]);
        let memory = |id: &str| self.catalog.accelerator(id).map(|a| a.memory_gb);
        let gang_gpus = class.largest_gang_gpus.unwrap_or(1.0);
        let request = self
            .terms
            .request(class.class, &history, hours, &class.accelerator, gang_gpus);
        let flat_mix = match_class(&request, self.offers, memory)?;
        let flat = flat_ladder(&flat_mix.best_mix, menu, |id| {
            offer_months(self.offers, id, self.hours_per_month)
        });
        let menu = holding_flat_offers(menu, &flat.0);
        let months = horizon_months_of(&menu);
        let forecast_from = |points: usize| {
            let train = DemandSeries {
                gpus: series.gpus[..points].to_vec(),
                ..series.clone()
            };
            let fit = fit_series(&train, (points / series.points_per_day()).max(1) as u32);
            class_paths(
                &fit,
                class.class,
                ClassAssumptions::default(),
                factor,
                self.hours_per_month,
                months,
            )
        };
        let forecast = forecast_from(cut);
        let naive = naive_paths(&history, series.points_per_day(), &forecast);
        let actual = scaled(&series.gpus[cut..cut + holdout]);
        let inputs = OriginInputs {
            menu: &menu,
            forecast: &forecast,
            naive: &naive,
            actual: &actual,
            flat: &flat,
            dated_change_per_year,
        };
        let cutoff = iso_utc(series.start_ms + (cut as f64 * hours * MS_PER_HOUR) as i64);
        Ok(score_origin(cutoff, &inputs, |month| {
            let seen = cut + month * forecast.points_per_month;
            (seen < cut + holdout).then(|| forecast_from(seen))
        }))
    }
}

/// Seasonal naive's forecast as known demand over the forecast's horizon: the history's last
/// season (a week where it holds two, else a day) repeated.
fn naive_paths(history: &[f64], points_per_day: usize, forecast: &DemandPaths) -> DemandPaths {
    let season = naive_season(history.len(), points_per_day);
    forecast.season_repeated(&history[history.len().saturating_sub(season)..], 1.0)
}

/// The yearly change the dated prices show between two instants; None unless they bracket both.
fn dated_change_per_year(
    observed: &[crate::model::price_trend::DatedPrice],
    start_ms: i64,
    end_ms: i64,
) -> Option<f64> {
    let (start, end) = (price_at(observed, start_ms)?, price_at(observed, end_ms)?);
    let years = (end_ms - start_ms) as f64 / (HOURS_PER_YEAR * MS_PER_HOUR);
    let change = (end / start).powf(1.0 / years) - 1.0;
    (years > 0.0 && change.is_finite()).then_some(change)
}

/// The price bet's regret over the origins the dated prices cover, or why it is unscored.
fn price_bet_score(
    scored: &[(CommitmentOrigin, Option<f64>)],
    expected_change_per_year: f64,
    no_dated_prices: bool,
    accelerator: &str,
) -> PriceBetScore {
    let covered: Vec<(f64, f64)> = scored
        .iter()
        .filter_map(|(o, dated)| Some((o.price_bet_regret_frac?, (*dated)?)))
        .collect();
    let regret = RegretSpread::of(&covered.iter().map(|c| c.0).collect::<Vec<_>>());
    let dated = RegretSpread::of(&covered.iter().map(|c| c.1).collect::<Vec<_>>());
    match (regret, dated) {
        (Some(regret), Some(dated)) => PriceBetScore::Scored {
            expected_change_per_year,
            dated_change_per_year: dated.median,
            regret,
        },
        _ => PriceBetScore::Unscored {
            why: if no_dated_prices {
                format!("the catalog dates no {accelerator} on-demand prices (`observed`)")
            } else {
                format!("no dated {accelerator} on-demand prices bracket the held-out days")
            },
        },
    }
}
