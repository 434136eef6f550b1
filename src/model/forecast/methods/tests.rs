//! Each candidate against statsforecast's forecast of the same series
//! (tests/fixtures/forecast-reference.json, written by bench/forecast_reference.py).

use super::*;

/// The script's deterministic stand-in for noise, between -0.5 and 0.5.
fn wobble(i: usize) -> f64 {
    ((i * 7919) % 101) as f64 / 101.0 - 0.5
}

fn trending() -> Vec<f64> {
    (0..120).map(|i| 20.0 + 0.4 * i as f64 + 6.0 * wobble(i)).collect()
}

fn seasonal() -> Vec<f64> {
    (0..28 * 24)
        .map(|h| {
            let weekend = if (h / 24) % 7 >= 5 { -12.0 } else { 0.0 };
            100.0 + 0.02 * h as f64 + 15.0 * (std::f64::consts::TAU * h as f64 / 24.0).sin() + weekend + 4.0 * wobble(h)
        })
        .collect()
}

#[derive(serde::Deserialize)]
struct Reference {
    cases: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    method: String,
    series: String,
    horizon: usize,
    mean: Vec<f64>,
}

fn reference(method: &str) -> (Vec<f64>, usize, Vec<f64>) {
    let text = include_str!("../../../../tests/fixtures/forecast-reference.json");
    let reference: Reference = serde_json::from_str(text).expect("the committed reference parses");
    let case = reference
        .cases
        .into_iter()
        .find(|c| c.method == method)
        .expect("the reference holds the method");
    let history = if case.series == "trending" {
        trending()
    } else {
        seasonal()
    };
    (history, case.horizon, case.mean)
}

/// The largest gap between `ours` and `theirs`, over the reference's mean absolute value.
fn worst_gap(ours: &[f64], theirs: &[f64]) -> f64 {
    assert_eq!(ours.len(), theirs.len());
    let scale = theirs.iter().map(|v| v.abs()).sum::<f64>() / theirs.len() as f64;
    ours.iter().zip(theirs).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) / scale
}

fn check(method: ForecastMethod, reference_name: &str, tolerance_frac: f64) {
    let (history, horizon, want) = reference(reference_name);
    let seasons = Seasons {
        points_per_day: 24,
        periods: if history.len() > 500 { vec![24, 168] } else { Vec::new() },
    };
    let (_, got) = run(&[method], &history, &seasons, horizon).remove(0);
    let got = got.unwrap_or_else(|e| panic!("{method:?}: {e}"));
    let gap = worst_gap(&got, &want);
    assert!(
        gap <= tolerance_frac,
        "{method:?} against statsforecast's {reference_name}: off by {:.4} % of the level\nours   {:?}\ntheirs {:?}",
        100.0 * gap,
        &got[..4],
        &want[..4]
    );
}

#[test]
fn the_benchmarks_match_statsforecast_exactly() {
    check(ForecastMethod::Drift, "drift", 1e-9);
    check(ForecastMethod::SeasonalNaiveDay, "seasonal_naive_day", 1e-9);
    check(ForecastMethod::SeasonalNaiveWeek, "seasonal_naive_week", 1e-9);
    check(ForecastMethod::Level, "level", 1e-9);
}

#[test]
fn theta_matches_statsforecast() {
    for (kind, name) in [
        (ThetaKind::Standard, "theta"),
        (ThetaKind::Optimized, "theta_optimized"),
    ] {
        let (history, horizon, want) = reference(name);
        let got = fit_theta(&history, kind).expect("fits").forecast(horizon);
        // statsforecast stops its Nelder-Mead search at a tolerance; ours solves the level exactly.
        let gap = worst_gap(&got, &want);
        assert!(
            gap < 1e-3,
            "{name}: {:.4} %\nours {:?}\ntheirs {:?}",
            100.0 * gap,
            &got[..4],
            &want[..4]
        );
    }
}

#[test]
fn exponential_smoothing_matches_statsforecast() {
    for (model, name) in [
        (TrendModel::EtsLevel, "ets_level"),
        (TrendModel::EtsTrend, "ets_trend"),
        (TrendModel::EtsDamped, "ets_damped"),
    ] {
        let (history, horizon, want) = reference(name);
        let got = trend_forecast(model, &history, horizon).expect("fits");
        // Two optimizers of the same likelihood: within a percent of the level.
        let gap = worst_gap(&got, &want);
        assert!(
            gap < 0.01,
            "{name}: {:.3} %\nours {:?}\ntheirs {:?}",
            100.0 * gap,
            &got[..4],
            &want[..4]
        );
    }
}

#[test]
fn the_mstl_decomposition_matches_statsforecast() {
    let (history, _, theirs) = reference("mstl_deseasonalized");
    let ours = decompose(&history, &[24, 168]).expect("decomposes");
    // stlrs smooths at every few points and interpolates between (R's default); statsmodels at
    // every point: within half a percent of the level.
    assert!(worst_gap(&ours.deseasonalized, &theirs) < 0.005);
    let (_, horizon, theirs_ahead) = reference("mstl_seasons_ahead");
    let ahead = ours.seasons_ahead(horizon);
    let gap = ahead
        .iter()
        .zip(&theirs_ahead)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(
        gap < 0.5,
        "the seasons ahead differ by {gap} GPUs at most (the daily wave spans 30)"
    );
}

#[test]
fn mstl_trend_models_match_statsforecast_on_its_decomposition() {
    // On statsforecast's own decomposition, each trend model plus its seasons must give
    // statsforecast's MSTL forecast: the trend models checked apart from the decomposition.
    let (_, _, deseasonalized) = reference("mstl_deseasonalized");
    let (_, _, seasons_ahead) = reference("mstl_seasons_ahead");
    for (model, name, tolerance) in [
        (TrendModel::EtsLevel, "mstl_ets_level", 0.01),
        (TrendModel::EtsDamped, "mstl_ets_damped", 0.01),
        (TrendModel::EtsTrend, "mstl_ets_trend", 0.01),
        (TrendModel::Theta, "mstl_theta", 1e-3),
        // Three parameters for statsforecast's Nelder-Mead to stop short on; two solved exactly here.
        (TrendModel::ThetaOptimized, "mstl_theta_optimized", 5e-3),
    ] {
        let (_, horizon, want) = reference(name);
        let trend = trend_forecast(model, &deseasonalized, horizon).expect("fits");
        let got: Vec<f64> = trend.iter().zip(&seasons_ahead).map(|(t, s)| t + s).collect();
        let gap = worst_gap(&got, &want);
        assert!(
            gap < tolerance,
            "{name}: {:.3} %\nours {:?}\ntheirs {:?}",
            100.0 * gap,
            &got[..4],
            &want[..4]
        );
    }
}

#[test]
fn mstl_methods_run_end_to_end_near_statsforecast() {
    // Decomposition and trend together: an undamped trend's slope is sensitive to small
    // differences in the series it is fitted on, so the whole method within 3 %.
    check(ForecastMethod::MstlEts, "mstl_ets_level", 0.01);
    check(ForecastMethod::MstlTheta, "mstl_theta", 0.01);
    check(ForecastMethod::MstlThetaOptimized, "mstl_theta_optimized", 0.01);
    check(ForecastMethod::MstlEtsDamped, "mstl_ets_damped", 0.01);
    check(ForecastMethod::MstlEtsTrend, "mstl_ets_trend", 0.03);
}

#[test]
fn seasons_follow_the_history_length() {
    assert_eq!(Seasons::for_history(2 * 24 - 1, 24).periods, Vec::<usize>::new());
    assert_eq!(Seasons::for_history(2 * 24, 24).periods, vec![24]);
    assert_eq!(Seasons::for_history(14 * 24 - 1, 24).periods, vec![24]);
    assert_eq!(Seasons::for_history(14 * 24, 24).periods, vec![24, 168]);
    assert_eq!(Seasons::for_history(30, 1).periods, vec![7]);
    assert_eq!(Seasons::for_history(14 * 24, 24).label(), "daily, weekly");
    assert_eq!(
        ForecastMethod::MstlTheta.label_with_seasons("daily, weekly"),
        "MSTL (daily, weekly) + Theta"
    );
    assert_eq!(ForecastMethod::Drift.label_with_seasons("daily"), "drift");
}

#[test]
fn every_short_name_fits_the_workbench_row() {
    for method in CANDIDATES
        .into_iter()
        .chain([ForecastMethod::NoDemand, ForecastMethod::Combination])
    {
        assert!(method.short().chars().count() <= 12, "{method:?}");
    }
}

#[test]
fn a_method_without_its_season_says_why() {
    let seasons = Seasons::for_history(5 * 24, 24);
    let (_, result) = run(&[ForecastMethod::SeasonalNaiveWeek], &trending(), &seasons, 3).remove(0);
    assert_eq!(result, Err(MethodError::NoWeek));
}

#[test]
fn no_method_forecasts_below_zero() {
    let falling: Vec<f64> = (0..30 * 24).map(|h| (500.0 - h as f64).max(0.0) + 1.0).collect();
    let seasons = Seasons::for_history(falling.len(), 24);
    for (method, points) in run(&CANDIDATES, &falling, &seasons, 24 * 30) {
        let points = points.unwrap_or_else(|e| panic!("{method:?}: {e}"));
        assert!(points.iter().all(|p| *p >= 0.0), "{method:?}");
    }
}

/// What makes the memo exact: a method's first points ahead do not depend on how far ahead it
/// is asked, so a kept longer forecast serves a shorter one bit for bit.
#[test]
fn memo_serves_a_shorter_horizon_exactly() {
    let history = seasonal();
    let parts = decompose(&history, &[24, 168]).expect("the series decomposes");
    for model in [
        TrendModel::EtsLevel,
        TrendModel::EtsDamped,
        TrendModel::EtsTrend,
        TrendModel::Theta,
        TrendModel::ThetaOptimized,
    ] {
        let long = trend_forecast(model, &parts.deseasonalized, 400).expect("fits");
        let short = trend_forecast(model, &parts.deseasonalized, 37).expect("fits");
        assert_eq!(short, long[..37], "{model:?}");
        assert_eq!(parts.seasons_ahead(37), parts.seasons_ahead(400)[..37], "{model:?}");
    }
}

/// A second run of the same history is served from the memo, and equals the first; a history
/// one point different is fitted afresh.
#[test]
fn a_second_run_of_a_history_is_the_memos_and_the_same() {
    let mut history = seasonal();
    history[5] += 0.123_456_789;
    let seasons = Seasons::for_history(history.len(), 24);
    let methods = [
        ForecastMethod::MstlEtsDamped,
        ForecastMethod::MstlTheta,
        ForecastMethod::Drift,
    ];
    let key = memo::fit_key(ForecastMethod::MstlEtsDamped, &history, &seasons.periods);
    assert_eq!(memo::kept(key, 1), None, "nothing fitted yet");
    let first = run(&methods, &history, &seasons, 48);
    assert!(memo::kept(key, 48).is_some(), "the damped trend's forecast is kept");
    assert!(memo::kept(key, 49).is_none(), "no longer than it was fitted");
    let again = run(&methods, &history, &seasons, 30);
    for ((m1, a), (m2, b)) in first.iter().zip(&again) {
        assert_eq!(m1, m2);
        assert_eq!(a.as_ref().unwrap()[..30], b.as_ref().unwrap()[..]);
    }
    history[6] += 1e-9;
    let other = memo::fit_key(ForecastMethod::MstlEtsDamped, &history, &seasons.periods);
    assert_ne!(key, other);
    assert_eq!(memo::kept(other, 1), None);
}
