#!/usr/bin/env python3
"""Reference forecasts for the unit tests of src/model/forecast/methods (tests.rs), computed with
Nixtla's statsforecast, the field's standard tool, on two deterministic series the tests rebuild
the same way. Writes tests/fixtures/forecast-reference.json; commit that file, not the library.

    python3 -m venv ~/.cache/gpuplan/bench-venv
    ~/.cache/gpuplan/bench-venv/bin/pip install statsforecast
    ~/.cache/gpuplan/bench-venv/bin/python bench/forecast_reference.py
"""
import json
import math
import os
import sys

import numpy as np
import statsforecast
from statsforecast.mstl import mstl
from statsforecast.models import (
    MSTL,
    AutoETS,
    OptimizedTheta,
    RandomWalkWithDrift,
    SeasonalNaive,
    Theta,
    WindowAverage,
)


def wobble(i):
    """A deterministic stand-in for noise, between -0.5 and 0.5 (the tests compute the same)."""
    return ((i * 7919) % 101) / 101.0 - 0.5


def trending():
    """120 points of a noisy line: for the non-seasonal methods."""
    return [20.0 + 0.4 * i + 6.0 * wobble(i) for i in range(120)]


def seasonal():
    """Four weeks of hours: a level growing slowly, a daily wave, quieter weekends, noise."""
    out = []
    for h in range(28 * 24):
        weekend = -12.0 if (h // 24) % 7 >= 5 else 0.0
        out.append(100.0 + 0.02 * h + 15.0 * math.sin(2 * math.pi * h / 24) + weekend + 4.0 * wobble(h))
    return out


def forecast(model, y, h):
    return [float(v) for v in model.forecast(y=np.asarray(y, dtype=float), h=h)["mean"]]


def main():
    a, b = trending(), seasonal()
    cases = [
        ("theta", "trending", 24, Theta(season_length=1)),
        ("theta_optimized", "trending", 24, OptimizedTheta(season_length=1)),
        ("drift", "trending", 24, RandomWalkWithDrift()),
        ("ets_level", "trending", 24, AutoETS(model="ANN")),
        ("ets_trend", "trending", 24, AutoETS(model="AAN", damped=False)),
        ("ets_damped", "trending", 24, AutoETS(model="AAN", damped=True)),
        ("seasonal_naive_day", "seasonal", 48, SeasonalNaive(season_length=24)),
        ("seasonal_naive_week", "seasonal", 200, SeasonalNaive(season_length=168)),
        ("level", "seasonal", 24, WindowAverage(window_size=len(b))),
        ("mstl_ets_trend", "seasonal", 72, MSTL(season_length=[24, 168], trend_forecaster=AutoETS(model="AAN", damped=False))),
        ("mstl_ets_damped", "seasonal", 72, MSTL(season_length=[24, 168], trend_forecaster=AutoETS(model="AAN", damped=True))),
        ("mstl_ets_level", "seasonal", 72, MSTL(season_length=[24, 168], trend_forecaster=AutoETS(model="ANN"))),
        ("mstl_theta", "seasonal", 72, MSTL(season_length=[24, 168], trend_forecaster=Theta(season_length=1))),
        ("mstl_theta_optimized", "seasonal", 72,
         MSTL(season_length=[24, 168], trend_forecaster=OptimizedTheta(season_length=1))),
    ]
    series = {"trending": a, "seasonal": b}
    out = {
        "generator": f"bench/forecast_reference.py with statsforecast {statsforecast.__version__}",
        "cases": [
            {"method": name, "series": which, "horizon": h, "mean": forecast(model, series[which], h)}
            for name, which, h, model in cases
        ],
    }
    # statsforecast's MSTL decomposition of the seasonal series (daily and weekly), so the tests
    # can check the decomposition and the trend models apart: the series less its seasons, and
    # the seasons' last cycles carried 72 points ahead.
    parts = mstl(np.asarray(b, dtype=float), [24, 168])
    ahead = [
        float(parts["seasonal24"][len(b) - 24 + t % 24] + parts["seasonal168"][len(b) - 168 + t % 168])
        for t in range(72)
    ]
    out["cases"] += [
        {"method": "mstl_deseasonalized", "series": "seasonal", "horizon": 0,
         "mean": [float(v) for v in parts["trend"] + parts["remainder"]]},
        {"method": "mstl_seasons_ahead", "series": "seasonal", "horizon": 72, "mean": ahead},
    ]
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "forecast-reference.json")
    with open(path, "w") as f:
        # One case a line: reviewable diffs.
        f.write('{"generator": %s,\n "cases": [\n' % json.dumps(out["generator"]))
        f.write(",\n".join("  " + json.dumps(c) for c in out["cases"]))
        f.write("\n ]}\n")
    print(f"wrote {os.path.normpath(path)}", file=sys.stderr)


if __name__ == "__main__":
    main()
