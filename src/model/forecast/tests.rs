use super::*;
use crate::shared::random::Xoshiro256StarStar;

const DAY_MS: i64 = 86_400_000;

fn hourly(gpus: Vec<f64>) -> DemandSeries {
    DemandSeries {
        start_ms: 1_735_689_600_000, // 2025-01-01
        hours_per_point: 1,
        gpus,
    }
}

/// A standard normal draw (Box-Muller) from the project's generator.
fn normal(rng: &mut Xoshiro256StarStar) -> f64 {
    let u1 = rng.next_f64().max(1e-12);
    let u2 = rng.next_f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn daily_wave(hour: usize) -> f64 {
    (hour as f64 * std::f64::consts::TAU / 24.0).sin()
}

fn no_growth() -> ClassAssumptions<'static> {
    ClassAssumptions::default()
}

fn assert_sound(forecast: &SeriesForecast) {
    for day in &forecast.daily {
        let values = [day.lo95, day.lo80, day.mean_gpus, day.hi80, day.hi95, day.peak_gpus];
        assert!(values.iter().all(|v| v.is_finite() && *v >= 0.0), "{day:?}");
        assert!(
            day.lo95 <= day.lo80 && day.lo80 <= day.mean_gpus && day.mean_gpus <= day.hi80 && day.hi80 <= day.hi95,
            "{day:?}"
        );
    }
}

#[test]
fn a_trend_with_daily_and_weekly_seasons_is_forecast_within_tolerance() {
    // 60 days: 100 GPUs growing 0.5 a day, a daily wave of ±20 and quieter weekends.
    let truth = |h: usize| {
        let weekend = if (h / 24) % 7 >= 5 { -15.0 } else { 0.0 };
        100.0 + 0.5 * h as f64 / 24.0 + 20.0 * daily_wave(h) + weekend
    };
    let series = hourly((0..60 * 24).map(truth).collect());
    let fit = fit_series(&series, 14);
    assert!(
        fit.method.carries_trend() || fit.method == ForecastMethod::Combination,
        "{:?}",
        fit.method
    );
    let forecast = shape_forecast(&fit, WorkloadClass::Inference, no_growth());
    assert_eq!(forecast.daily.len(), 14);
    assert_sound(&forecast);
    for (d, day) in forecast.daily.iter().enumerate() {
        let hours = (60 + d) * 24..(61 + d) * 24;
        let want = hours.clone().map(truth).sum::<f64>() / 24.0;
        assert!(
            (day.mean_gpus - want).abs() < 0.05 * want,
            "day {d}: {} against {want}",
            day.mean_gpus
        );
        assert_eq!(day.basis, Basis::Data);
    }
    // Past the history's reach (60 days) the days are held, not the data's.
    let long = shape_forecast(&fit_series(&series, 90), WorkloadClass::Inference, no_growth());
    assert_eq!(long.data_days, 60);
    assert_eq!(long.daily[59].basis, Basis::Data);
    assert_eq!(long.daily[60].basis, Basis::Held);
}

#[test]
fn intervals_cover_near_their_nominal_rate_on_noise() {
    let mut rng = Xoshiro256StarStar::seed_from_u64(7);
    let mut inside80 = 0usize;
    let mut inside95 = 0usize;
    let mut total = 0usize;
    for _ in 0..12 {
        let series: Vec<f64> = (0..(42 + 7) * 24)
            .map(|h| (200.0 + 30.0 * daily_wave(h) + 12.0 * normal(&mut rng)).max(0.0))
            .collect();
        let score = backtest_series(&hourly(series), 7, BacktestOrigins::rolling(1)).expect("backtest");
        inside80 += (score.coverage_80 * 168.0).round() as usize;
        inside95 += (score.coverage_95 * 168.0).round() as usize;
        total += 168;
    }
    let c80 = inside80 as f64 / total as f64;
    let c95 = inside95 as f64 / total as f64;
    assert!((0.70..=0.92).contains(&c80), "80 % interval covered {c80}");
    assert!((0.88..=0.995).contains(&c95), "95 % interval covered {c95}");
}

#[test]
fn a_flat_noisy_series_gets_no_invented_trend() {
    let mut rng = Xoshiro256StarStar::seed_from_u64(3);
    let series: Vec<f64> = (0..90 * 24).map(|_| 64.0 + 4.0 * normal(&mut rng)).collect();
    let forecast = shape_forecast(&fit_series(&hourly(series), 365), WorkloadClass::Burst, no_growth());
    assert_sound(&forecast);
    let first = forecast.daily[0].mean_gpus;
    let last = forecast.daily[364].mean_gpus;
    assert!((first - 64.0).abs() < 3.0, "{first}");
    assert!((last - first).abs() < 3.0, "a year on: {last} from {first}");
}

#[test]
fn growth_replaces_the_fitted_trend() {
    let series: Vec<f64> = (0..28 * 24).map(|h| 100.0 + 10.0 * daily_wave(h)).collect();
    let fit = fit_series(&hourly(series), 365);
    let assumptions = ClassAssumptions {
        growth_per_year: Some(3.0),
        planned: &[],
    };
    let forecast = shape_forecast(&fit, WorkloadClass::Inference, assumptions);
    assert_sound(&forecast);
    assert!(forecast.daily.iter().all(|d| d.basis == Basis::Growth));
    let ratio = forecast.daily[364].mean_gpus / forecast.daily[0].mean_gpus;
    assert!((ratio - 3.0).abs() < 0.1, "{ratio}");
}

#[test]
fn planned_runs_add_their_gpus_on_their_days() {
    let series: Vec<f64> = (0..20 * 24).map(|h| 10.0 + daily_wave(h)).collect();
    let s = hourly(series);
    let fit = fit_series(&s, 30);
    let start_ms = s.end_ms() + 5 * DAY_MS;
    let runs = [PlannedRun {
        name: "pretrain".to_string(),
        class: WorkloadClass::Training,
        gpus: 512.0,
        start_ms,
        end_ms: start_ms + 3 * DAY_MS,
    }];
    let assumptions = ClassAssumptions {
        growth_per_year: None,
        planned: &runs,
    };
    let training = shape_forecast(&fit, WorkloadClass::Training, assumptions);
    let inference = shape_forecast(&fit, WorkloadClass::Inference, assumptions);
    for d in 0..30 {
        let inside = (5..8).contains(&d);
        assert_eq!(
            training.daily[d].planned_gpus,
            if inside { 512.0 } else { 0.0 },
            "day {d}"
        );
        assert_eq!(inference.daily[d].planned_gpus, 0.0);
        let lift = training.daily[d].mean_gpus - inference.daily[d].mean_gpus;
        assert!((lift - training.daily[d].planned_gpus).abs() < 1e-9);
        assert!(training.daily[d].lo95 >= training.daily[d].planned_gpus);
    }
}

#[test]
fn every_degenerate_series_gets_an_answer_and_names_its_method() {
    let cases = [
        (vec![], ForecastMethod::NoDemand),
        (vec![0.0; 500], ForecastMethod::NoDemand),
        (vec![8.0], ForecastMethod::Level),
        (vec![16.0; 2000], ForecastMethod::Level),
        (vec![f64::NAN, 3.0, f64::INFINITY, -4.0], ForecastMethod::Level),
    ];
    for (series, method) in cases {
        let fit = fit_series(&hourly(series.clone()), 30);
        assert_eq!(fit.method, method, "{series:?}");
        let forecast = shape_forecast(&fit, WorkloadClass::Training, no_growth());
        assert_eq!(forecast.daily.len(), 30);
        assert_sound(&forecast);
    }
    // A gang runs or it does not: its intervals span idle to busy, whichever method wins.
    let gang: Vec<f64> = (0..40 * 24)
        .map(|h| if (h / 24) % 10 < 6 { 512.0 } else { 0.0 })
        .collect();
    let forecast = shape_forecast(&fit_series(&hourly(gang), 7), WorkloadClass::Training, no_growth());
    assert_sound(&forecast);
    assert!(
        forecast.daily.iter().all(|d| d.lo95 <= 1.0 && d.hi95 >= 500.0),
        "{:?}",
        forecast.daily
    );
}

#[test]
fn a_backtest_on_too_short_a_history_says_so() {
    let err = backtest_series(&hourly(vec![1.0; 24 * 3]), 7, BacktestOrigins::rolling(8)).expect_err("too short");
    assert!(err.to_string().contains("hold out fewer days"), "{err}");
}

#[test]
fn a_backtest_of_a_clean_seasonal_series_beats_seasonal_naive_or_ties() {
    let series: Vec<f64> = (0..56 * 24)
        .map(|h| 50.0 + 0.2 * h as f64 / 24.0 + 8.0 * daily_wave(h))
        .collect();
    let score = backtest_series(&hourly(series), 14, BacktestOrigins::rolling(4)).expect("backtest");
    assert_eq!(score.season_points, 168);
    assert!(score.mae_gpus <= score.seasonal_naive_mae_gpus + 1e-6, "{score:?}");
    assert!(score.beats_seasonal_naive, "{score:?}");
    // The damped trend gives back a little of a straight line's slope: near 1, not far above.
    assert!(score.mase.is_some_and(|m| m < 1.5), "{score:?}");
}

/// `days` of hours: a daily wave of ±`wave` GPUs, quieter weekends (−`weekend`), on `base`.
fn seasonal_shape(h: usize, wave: f64, weekend: f64) -> f64 {
    let weekend = if (h / 24) % 7 >= 5 { -weekend } else { 0.0 };
    wave * daily_wave(h) + weekend
}

#[test]
fn selection_carries_a_clean_linear_trend_with_seasons() {
    let mut rng = Xoshiro256StarStar::seed_from_u64(11);
    let series: Vec<f64> = (0..70 * 24)
        .map(|h| 100.0 + 0.8 * h as f64 / 24.0 + seasonal_shape(h, 15.0, 10.0) + normal(&mut rng))
        .collect();
    let fit = fit_fan(&series, 24, 30 * 24);
    let chosen = match (fit.method, &fit.selection) {
        (ForecastMethod::Combination, Some(s)) => s.combined.clone(),
        (method, _) => vec![method],
    };
    assert!(
        chosen.iter().all(|m| m.carries_trend() && *m != ForecastMethod::Drift),
        "{chosen:?}: {:?}",
        fit.selection
    );
}

#[test]
fn selection_repeats_the_season_when_the_season_itself_wanders() {
    // A seasonal random walk: each hour is the same hour a week earlier plus a step. Nothing
    // but the last week says what the next one holds; seasonal naive is the right forecast.
    let mut rng = Xoshiro256StarStar::seed_from_u64(5);
    let mut series: Vec<f64> = (0..168).map(|h| 200.0 + seasonal_shape(h, 40.0, 30.0)).collect();
    for h in 168..70 * 24 {
        let step = 6.0 * normal(&mut rng);
        series.push(series[h - 168] + step);
    }
    let fit = fit_fan(&series, 24, 14 * 24);
    assert_eq!(fit.method, ForecastMethod::SeasonalNaiveWeek, "{:?}", fit.selection);
}

#[test]
fn selection_takes_the_level_of_white_noise() {
    let mut rng = Xoshiro256StarStar::seed_from_u64(9);
    let series: Vec<f64> = (0..60 * 24).map(|_| 80.0 + 10.0 * normal(&mut rng)).collect();
    let fit = fit_fan(&series, 24, 14 * 24);
    assert_eq!(fit.method, ForecastMethod::Level, "{:?}", fit.selection);
}

#[test]
fn the_output_names_the_method_and_its_error_beside_seasonal_naive() {
    let series: Vec<f64> = (0..40 * 24).map(|h| 50.0 + seasonal_shape(h, 8.0, 5.0)).collect();
    let fit = fit_series(&hourly(series), 30);
    let selection = fit.selection.clone().expect("cross-validated");
    assert_eq!(selection.seasons, "daily, weekly");
    assert!(selection.origins >= 2, "{selection:?}");
    assert!(selection.seasonal_naive_mae_gpus.is_some());
    assert_eq!(selection.mae_gpus, selection.candidates[0].mae_gpus);
    let json = serde_json::to_value(shape_forecast(&fit, WorkloadClass::Inference, no_growth())).expect("json");
    assert!(
        json["cross_validation"]["candidates"]
            .as_array()
            .is_some_and(|c| c.len() >= 8)
    );
}

#[test]
fn intervals_hold_at_the_first_lead_and_the_last() {
    // Forty simulated series (a growing level, daily and weekly swings, an hourly disturbance
    // that lingers for a day or so, noise), each forecast 28 days past an origin and scored
    // against what followed: the 80 % and 95 % intervals in their bands at the first day of
    // leads and at the last.
    let (mut first, mut last) = ([0usize; 2], [0usize; 2]);
    let mut total = 0usize;
    for seed in 0..40 {
        let mut rng = Xoshiro256StarStar::seed_from_u64(100 + seed);
        let mut disturbance = 0.0;
        let series: Vec<f64> = (0..(84 + 28) * 24)
            .map(|h| {
                disturbance = 0.96 * disturbance + 3.0 * normal(&mut rng);
                let level = 300.0 + 0.5 * h as f64 / 24.0;
                (level + seasonal_shape(h, 40.0, 25.0) + disturbance + 6.0 * normal(&mut rng)).max(0.0)
            })
            .collect();
        let cut = 84 * 24;
        let fan = fit_fan(&series[..cut], 24, 28 * 24).points;
        let inside = |t: usize, wide: bool| {
            let (p, a) = (fan[t], series[cut + t]);
            let (lo, hi) = if wide { (p.lo95, p.hi95) } else { (p.lo80, p.hi80) };
            usize::from(lo <= a && a <= hi)
        };
        for t in 0..24 {
            first[0] += inside(t, false);
            first[1] += inside(t, true);
            last[0] += inside(27 * 24 + t, false);
            last[1] += inside(27 * 24 + t, true);
        }
        total += 24;
    }
    let share = |k: usize| k as f64 / total as f64;
    // The bands at the last day. The first day's errors are scaled by the same line
    // through a few origins' errors as the last day's, and on these series it errs wide (about
    // 90 % and 99 % held): never narrower than the band, at most that much wider.
    let bands = [
        ("first day", first, 0.72..=0.92, 0.90..=0.995),
        ("last day", last, 0.72..=0.88, 0.90..=0.98),
    ];
    for (name, hits, band80, band95) in bands {
        assert!(band80.contains(&share(hits[0])), "{name}: 80 % held {}", share(hits[0]));
        assert!(band95.contains(&share(hits[1])), "{name}: 95 % held {}", share(hits[1]));
    }
}

#[test]
fn a_growing_series_is_not_flattened_to_seasonal_naive_ninety_days_on() {
    // 180 days of serving that grows 60 % with daily and weekly swings; the forecast 90 days on
    // must carry the growth, well above repeating the last week.
    let mut rng = Xoshiro256StarStar::seed_from_u64(41);
    let demand = |h: usize| {
        40.0 * (1.0 + 0.6 * h as f64 / (180.0 * 24.0))
            * (1.0 + 0.25 * daily_wave(h))
            * if (h / 24) % 7 >= 5 { 0.8 } else { 1.0 }
    };
    let series: Vec<f64> = (0..180 * 24)
        .map(|h| (demand(h) + 1.5 * normal(&mut rng)).max(0.0))
        .collect();
    let fit = fit_series(&hourly(series.clone()), 90);
    let forecast = shape_forecast(&fit, WorkloadClass::Inference, no_growth());
    let days_61_to_90 = forecast.daily[60..90].iter().map(|d| d.mean_gpus).sum::<f64>() / 30.0;
    let naive = series[series.len() - 168..].iter().sum::<f64>() / 168.0;
    let truth = (240 * 24..270 * 24).map(demand).sum::<f64>() / (30.0 * 24.0);
    assert!(
        days_61_to_90 > naive * 1.08,
        "days 61-90: {days_61_to_90:.1} against seasonal naive's {naive:.1} (truth {truth:.1})"
    );
    assert!(
        (days_61_to_90 - truth).abs() < 0.05 * truth,
        "{days_61_to_90:.1} against {truth:.1}"
    );
}

#[test]
fn origins_a_year_apart_step_back_a_whole_year_from_the_last() {
    let ppd = 24;
    let (days, holdout_days) = (6 * 365, 365);
    let yearly = |wanted| BacktestOrigins {
        wanted,
        step_days: Some(365),
    };
    let cutoffs = backtest_cutoffs(days * ppd, ppd, holdout_days * ppd, yearly(8));
    // The last leaves exactly the held-out year; the others a year apart, each with two weeks to fit.
    assert_eq!(cutoffs.last(), Some(&((days - holdout_days) * ppd)));
    assert_eq!(cutoffs.len(), 5);
    assert!(cutoffs.windows(2).all(|w| w[1] - w[0] == 365 * ppd), "{cutoffs:?}");
    assert!(cutoffs[0] >= 14 * ppd);
    assert_eq!(
        backtest_cutoffs(days * ppd, ppd, holdout_days * ppd, yearly(3)).len(),
        3
    );
    // Without a step, origins step back a week at most.
    let rolling = backtest_cutoffs(days * ppd, ppd, holdout_days * ppd, BacktestOrigins::rolling(3));
    assert!(rolling.windows(2).all(|w| w[1] - w[0] == 7 * ppd), "{rolling:?}");
    // A step that leaves one origin is refused, and names its option; one origin asked is not.
    let err = check_origins(400 * ppd, ppd, 30, yearly(8)).expect_err("a year's step in 400 days");
    assert_eq!(err.flag(), "--origin-step-days");
    assert!(err.to_string().contains("365 days apart"), "{err}");
    assert!(check_origins(400 * ppd, ppd, 30, yearly(1)).is_ok());
    assert!(check_origins(800 * ppd, ppd, 30, yearly(8)).is_ok());
    assert!(check_origins(400 * ppd, ppd, 30, BacktestOrigins::rolling(8)).is_ok());
}

#[test]
fn intervals_hold_their_rate_on_the_dlrm_trace() {
    // Alibaba's DLRM 2025 serving trace, hourly (tests/fixtures/dlrm-2025), backtested as
    // docs/forecast.md records it: 7 days held out after each of 8 origins.
    let text = include_str!("../../../tests/fixtures/dlrm-2025/hourly-inference-gpus.csv");
    let gpus: Vec<f64> = text
        .lines()
        .skip(1)
        .map(|line| line.split(',').nth(1).and_then(|g| g.parse().ok()).expect("time,gpus"))
        .collect();
    assert_eq!(gpus.len(), 744);
    let score = backtest_series(&hourly(gpus), 7, BacktestOrigins::rolling(8)).expect("backtest");
    assert_eq!(score.origins, 8);
    let (c80, c95) = (score.coverage_80, score.coverage_95);
    assert!((0.70..=0.90).contains(&c80), "80 % interval covered {c80}");
    // Counting the origins' few independent errors twice held 99.4 % of the hours in the 95 % band.
    assert!((0.88..=0.99).contains(&c95), "95 % interval covered {c95}");
    assert!(c80 < c95, "{c80} {c95}");
}
