#!/usr/bin/env python3
"""The commitments scored over years (bench/multi-year.sh runs it): for each regime's six-year log
(bench/multi_year_log.py), `gpuplan backtest --origin-step-days 365` prices every policy over the
12 months (5 yearly origins) and the 36 months (the first 3) after each origin against
hindsight, prices held; the price bet is scored where the catalog's dated prices bracket the
held-out months. At each origin, the policy gpuplan recommends is the one its own backtest
chooses on the log cut at the origin (`gpuplan backtest` with its defaults, as `report` does);
its regret is read at that origin. Prints a Markdown table per regime.

    python3 bench/multi_year.py --gpuplan target/release/gpuplan --data DIR

GPUPLAN_CONFIG_DIR should name the catalog of bench/multi_year_catalog.py.
"""
import argparse
import csv
import json
import pathlib
import statistics
import subprocess
import sys
import time

REGIMES = ("steady", "growing", "declining", "lumpy")
POLICIES = ("on_demand", "flat", "naive_layers", "low_quantile", "layers")
HOLDOUTS = ((12, 365, 5), (36, 1095, 3))  # months, held-out days, yearly origins


def gpuplan(binary, args, out):
    started = time.monotonic()
    with open(out, "w") as f:
        subprocess.run([binary, "backtest", *args, "--format", "json"], stdout=f, check=True)
    return time.monotonic() - started, json.loads(pathlib.Path(out).read_text())


def recommended(binary, log, out):
    """The purchase gpuplan recommends on `log`: `report`'s commitments, as the board prices them."""
    with open(out, "w") as f:
        subprocess.run([binary, "report", "--logs", str(log), "--format", "json"], stdout=f, check=True)
    return json.loads(pathlib.Path(out).read_text())


def commitment(report):
    """The one class carrying the regime's demand, and its commitments' backtest."""
    scored = [c for c in report["classes"] if c.get("commitment")]
    if not scored:
        sys.exit(f"no class scored: {[c.get('commitment_not_scored') for c in report['classes']]}")
    return max(scored, key=lambda c: c["actual_mean_gpus"])["class"], scored


def cut_log(log, cutoff, out):
    """The log as it stood at `cutoff`: jobs started before it, those running cut there."""
    with open(log, newline="") as f, open(out, "w", newline="") as g:
        rows = csv.DictReader(f)
        writer = csv.DictWriter(g, rows.fieldnames)
        writer.writeheader()
        for row in rows:
            if row["start"] < cutoff:
                row["end"] = min(row["end"], cutoff)
                writer.writerow(row)


def pct(value):
    return "-" if value is None else f"{100 * value:.2f} %"


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def regime_table(binary, data, regime):
    log = data / f"{regime}.csv"
    origins, seconds = {}, {}
    for months, days, count in HOLDOUTS:
        args = [str(log), "--all-time", "--holdout-days", str(days), "--origin-step-days", "365",
                "--origins", str(count)]
        seconds[months], report = gpuplan(binary, args, data / f"{regime}-{months}m.json")
        main, scored = commitment(report)
        origins[months] = next(c for c in scored if c["class"] == main)["commitment"]
    chosen = {}
    for origin in origins[12]["per_origin"]:
        cutoff = origin["cutoff"]
        history = data / f"{regime}-to-{cutoff[:10]}.csv"
        cut_log(log, cutoff, history)
        report = recommended(binary, history, data / f"{regime}-chosen-{cutoff[:10]}.json")
        picked = next(c for c in report["commitments"]["classes"] if c["class"] == main)
        chosen[cutoff] = picked["recommended"]["buy"]
    rows = []
    for policy in (*POLICIES, "chosen"):
        cells = []
        for months, _, _ in HOLDOUTS:
            per_origin = origins[months]["per_origin"]
            key = lambda o: f"{chosen[o['cutoff']] if policy == 'chosen' else policy}_regret_frac"
            cells.append(median([o[key(o)] for o in per_origin]))
        rows.append((policy, *cells))
    bets = []
    for months, _, _ in HOLDOUTS:
        bet = origins[months]["price_bet"]
        per = [f"{o['cutoff'][:7]} {pct(o['price_bet_regret_frac'])}" for o in origins[months]["per_origin"]
               if o["price_bet_regret_frac"] is not None]
        if bet["status"] == "scored":
            bets.append(f"{months} months: {pct(bet['regret']['median'])} median ({', '.join(per)}; "
                        f"dated change {100 * bet['dated_change_per_year']:+.1f} %/yr against the bet's "
                        f"{100 * bet['expected_change_per_year']:+.1f} %)")
        else:
            bets.append(f"{months} months: unscored ({bet['why']})")
    return main, rows, chosen, bets, seconds, origins


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpuplan", required=True)
    parser.add_argument("--data", required=True, type=pathlib.Path)
    parser.add_argument("--regimes", nargs="*", default=list(REGIMES))
    args = parser.parse_args()
    for regime in args.regimes:
        main_class, rows, chosen, bets, seconds, origins = regime_table(args.gpuplan, args.data, regime)
        cut = [o["cutoff"][:10] for o in origins[12]["per_origin"]]
        print(f"\n### {regime} ({main_class}; origins {', '.join(cut)}; 36 months from the first 3)\n")
        print("| policy | 12-month regret | 36-month regret |")
        print("|---|---|---|")
        for policy, m12, m36 in rows:
            name = "**chosen**" if policy == "chosen" else policy
            print(f"| {name} | {pct(m12)} | {pct(m36)} |")
        print(f"\nchosen at each origin: {', '.join(chosen[o['cutoff']] for o in origins[12]['per_origin'])}")
        print("price bet (the layers sized on the catalog's trend less those sized with prices held, both priced "
              "on the dated prices): " + "; ".join(bets))
        flat36 = next(r[2] for r in rows if r[0] == "flat")
        chosen36 = next(r[2] for r in rows if r[0] == "chosen")
        verdict = "<=" if chosen36 <= flat36 + 1e-12 else ">"
        print(f"check: chosen's 36-month regret {pct(chosen36)} {verdict} flat's {pct(flat36)}")
        print(f"gpuplan backtest: {seconds[12]:.1f} s (12 months, 5 origins), {seconds[36]:.1f} s (36 months, 3 origins)")


if __name__ == "__main__":
    main()
