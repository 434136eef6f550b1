#!/usr/bin/env python3
"""gpuplan's backtest beside statsforecast's on the same series and the same origins.

    forecast_compare.py NAME BACKTEST_JSON SERIES_CSV [--markdown]

BACKTEST_JSON is `gpuplan backtest --format json` and SERIES_CSV the `--series-csv` of the same
run: the fleet's hourly GPUs per class. For every fleet class the backtest scored, at each of
its origins, statsforecast fits MSTL (daily and weekly seasons, daily alone under two weeks)
with four trend models (AutoETS, AutoETS with an undamped additive trend, AutoTheta,
AutoARIMA) and seasonal naive on the history before the origin, forecasts the held-out days,
and the same scores are computed: MAE per point averaged over the origins, and the share of
points inside the 80 % and 95 % intervals. Prints one row per class: a JSON line, or with
--markdown a row of bench/forecast-vs-statsforecast.sh's table.
"""
import csv
import datetime as dt
import json
import sys
import warnings

import numpy as np
from statsforecast.models import MSTL, AutoARIMA, AutoETS, AutoTheta, SeasonalNaive

warnings.filterwarnings("ignore")
CLASSES = ["training", "inference", "burst"]


def read_series(path):
    times, cols = [], {c: [] for c in CLASSES}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            times.append(row["time"])
            for c in CLASSES:
                cols[c].append(float(row[c]))
    return times, {c: np.asarray(v) for c, v in cols.items()}


def contenders(train_points, points_per_day):
    day = points_per_day
    seasons = [day, 7 * day] if train_points >= 14 * day else [day]
    naive_season = 7 * day if train_points >= 14 * day else day
    return {
        "MSTL+AutoETS": MSTL(season_length=seasons, trend_forecaster=AutoETS(model="ZZN")),
        "MSTL+ETS(AAN)": MSTL(season_length=seasons, trend_forecaster=AutoETS(model="AAN", damped=False)),
        "MSTL+AutoTheta": MSTL(season_length=seasons, trend_forecaster=AutoTheta()),
        "MSTL+AutoARIMA": MSTL(season_length=seasons, trend_forecaster=AutoARIMA()),
        "SeasonalNaive": SeasonalNaive(season_length=naive_season),
    }


def winkler(lo, hi, actual, alpha):
    """Winkler's interval score, averaged over the points: the width, plus 2/alpha times the
    distance outside (as gpuplan's backtest reports it)."""
    outside = np.maximum(lo - actual, 0.0) + np.maximum(actual - hi, 0.0)
    return float(np.mean((hi - lo) + 2.0 / alpha * outside))


def score(forecast, actual):
    mae = float(np.mean(np.abs(forecast["mean"] - actual)))
    cov, interval = {}, {}
    for level in (80, 95):
        lo, hi = forecast.get(f"lo-{level}"), forecast.get(f"hi-{level}")
        if lo is None:
            cov[level] = interval[level] = float("nan")
        else:
            lo = np.maximum(lo, 0.0)
            cov[level] = float(np.mean((lo - 1e-9 <= actual) & (actual <= hi + 1e-9)))
            interval[level] = winkler(lo, hi, actual, 1.0 - level / 100.0)
    return mae, cov[80], cov[95], interval[80], interval[95]


def markdown_row(d):
    f80, l80 = d["gpuplan_cov80_first_last_week"]
    f95, l95 = d["gpuplan_cov95_first_last_week"]
    cells = [
        d["series"], d["class"], str(d["origins"]), f"{d['gpuplan_mae']:.2f}",
        f"{d['best_mstl_mae']:.2f} ({d['best_mstl']})", f"{d['ratio']:.2f}",
        f"{d['seasonal_naive_mae']:.2f}", f"{d['gpuplan_cov80']:.2f} ({f80:.2f}, {l80:.2f})",
        f"{d['gpuplan_cov95']:.2f} ({f95:.2f}, {l95:.2f})",
        f"{d['best_mstl_cov80']:.2f} / {d['best_mstl_cov95']:.2f}",
        f"{d['gpuplan_interval80']:.1f}", f"{d['best_interval80']:.1f} ({d['best_interval80_model']})",
        f"{d['interval80_ratio']:.2f}",
    ]
    return "| " + " | ".join(cells) + " |"


def main():
    name, backtest_path, series_path = sys.argv[1:4]
    markdown = "--markdown" in sys.argv[4:]
    backtest = json.load(open(backtest_path))
    times, series = read_series(series_path)
    index = {t: i for i, t in enumerate(times)}
    step_hours = (dt.datetime.fromisoformat(times[1].replace("Z", "+00:00"))
                  - dt.datetime.fromisoformat(times[0].replace("Z", "+00:00"))).total_seconds() / 3600
    ppd = max(1, round(24 / step_hours))
    holdout = backtest["holdout_days"] * ppd
    for cls in backtest["classes"]:
        c = cls["class"]
        y = series[c]
        cuts = [index.get(o["cutoff"]) for o in cls["per_origin"]]
        if any(cut is None for cut in cuts):
            print(f"{name}: {c}: an origin is not on the series' grid", file=sys.stderr)
            continue
        results = {}
        for cut in cuts:
            train, actual = y[:cut], y[cut:cut + holdout]
            for label, model in contenders(len(train), ppd).items():
                try:
                    fc = model.forecast(y=train.astype(float), h=holdout, level=[80, 95])
                    results.setdefault(label, []).append(score(fc, actual))
                except Exception as e:  # a model that cannot fit a series counts as absent
                    results.setdefault(label, []).append((float("nan"),) * 5)
                    print(f"{name}: {c}: {label}: {e}", file=sys.stderr)
        mean = lambda label, k: float(np.nanmean([r[k] for r in results[label]]))
        mstl = [k for k in results if k.startswith("MSTL")]
        best = min(mstl, key=lambda k: mean(k, 0))
        # The field's sharpest 80 % interval among the MSTL variants, by interval score.
        sharpest = min(mstl, key=lambda k: mean(k, 3) if not np.isnan(mean(k, 3)) else float("inf"))
        ours = cls["mae_gpus"]
        ours_interval = cls.get("interval_score_80_gpus", float("nan"))
        row = {
            "series": name, "class": c, "origins": len(cuts), "holdout_days": backtest["holdout_days"],
            "gpuplan_mae": ours, "gpuplan_cov80": cls["coverage_80"], "gpuplan_cov95": cls["coverage_95"],
            "gpuplan_cov80_first_last_week": [cls["first_week"]["coverage_80"], cls["last_week"]["coverage_80"]],
            "gpuplan_cov95_first_last_week": [cls["first_week"]["coverage_95"], cls["last_week"]["coverage_95"]],
            "best_mstl": best, "best_mstl_mae": mean(best, 0),
            "best_mstl_cov80": mean(best, 1), "best_mstl_cov95": mean(best, 2),
            "ratio": ours / mean(best, 0) if mean(best, 0) > 0 else float("nan"),
            "seasonal_naive_mae": mean("SeasonalNaive", 0),
            "gpuplan_interval80": ours_interval, "best_interval80": mean(sharpest, 3),
            "best_interval80_model": sharpest,
            "interval80_ratio": ours_interval / mean(sharpest, 3) if mean(sharpest, 3) > 0 else float("nan"),
            "all": {k: round(mean(k, 0), 3) for k in results},
        }
        print(markdown_row(row) if markdown else json.dumps(row))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
