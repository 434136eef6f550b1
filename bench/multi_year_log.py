#!/usr/bin/env python3
"""Six years of hourly GPU demand in one of four regimes, written as a job log gpuplan reads, for
bench/multi-year.sh: three years of history to commit on and three of future to score the
commitments against (12 and 36 months after yearly origins).

    python3 bench/multi_year_log.py --regime growing --years 6 > growing.csv

The demand is defined here, hour by hour, with no model of gpuplan's forecaster:

  steady     serving at 160 GPUs with daily (+-20 %) and weekly (weekends -15 %) swings.
  growing    serving from 60 GPUs, compounding +45 % a year, with the same swings.
  declining  serving from 240 GPUs, shrinking 30 % a year (a model being retired), same swings.
  lumpy      gang training: gangs of 32 to 256 GPUs arriving every 8 days on average for 2 to 14
             days, in busy and quiet quarters (a quiet quarter's arrivals are a third as often),
             over a base of 8-GPU fine-tuning runs.

Serving is replicas of one GPU scaled every hour to the demand (started and stopped whole, the
newest stopped first), with an autoregressive noise (sd 3 % of the level, hour-to-hour
correlation 0.9), labelled inference. Training jobs are labelled training. Every job is on one
h100-sxm cluster. Deterministic for a seed.
"""
import argparse
import datetime as dt
import math
import random
import sys

START = dt.datetime(2020, 8, 3, tzinfo=dt.timezone.utc)  # a Monday; six years end before today
HOURS_PER_YEAR = 8766
REGIMES = ("steady", "growing", "declining", "lumpy")


def iso(hours):
    return (START + dt.timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def swings(hour):
    """The daily and weekly shape of serving demand, around 1."""
    daily = 1.0 + 0.2 * math.sin(2 * math.pi * (hour % 24 - 8) / 24.0)
    weekly = 0.85 if (hour // 24) % 7 >= 5 else 1.0
    return daily * weekly


def serving_level(regime, hour):
    years = hour / HOURS_PER_YEAR
    if regime == "steady":
        return 160.0
    if regime == "growing":
        return 60.0 * 1.45**years
    if regime == "declining":
        return 240.0 * 0.70**years
    raise ValueError(regime)


class Log:
    def __init__(self, out, hours, cluster):
        self.out = out
        self.hours = hours
        self.cluster = cluster
        self.next_id = 1
        out.write("job_id,cluster,name,user,queue,state,start,end,gpus,gpu_type,gpu_util_pct,label\n")

    def job(self, name, start_h, end_h, gpus, label, util):
        end = iso(min(end_h, self.hours))
        self.out.write(
            f"{self.next_id},{self.cluster},{name}-{self.next_id},team,prod,COMPLETED,{iso(start_h)},{end},"
            f"{gpus},h100-sxm,{util:.1f},{label}\n"
        )
        self.next_id += 1


def serving(log, regime, rng):
    noise = 0.0
    running = []  # start hours of the live replicas, oldest first
    for hour in range(log.hours):
        noise = 0.9 * noise + math.sqrt(1 - 0.81) * rng.gauss(0.0, 0.03)
        want = max(0, round(serving_level(regime, hour) * swings(hour) * (1.0 + noise)))
        while len(running) < want:
            running.append(hour)
        while len(running) > want:
            log.job("serve", running.pop(), hour, 1, "inference", 55.0)
    for started in running:
        log.job("serve", started, log.hours, 1, "inference", 55.0)


def gang_training(log, rng):
    quarter_hours = HOURS_PER_YEAR / 4
    busy = [rng.random() < 0.6 for _ in range(int(log.hours / quarter_hours) + 2)]
    hour = 0.0
    while hour < log.hours:
        mean_gap = 8 * 24 if busy[int(hour / quarter_hours)] else 24 * 24
        hour += rng.expovariate(1 / mean_gap)
        if hour >= log.hours:
            break
        length = rng.uniform(2, 14) * 24
        log.job("pretrain", hour, hour + length, rng.choice([32, 64, 64, 128, 256]), "training", 85.0)
    hour = 0.0
    while hour < log.hours:
        hour += rng.expovariate(1 / 36)
        log.job("finetune", hour, hour + rng.uniform(6, 72), 8, "training", 80.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--regime", choices=REGIMES, required=True)
    parser.add_argument("--years", type=float, default=6.0)
    parser.add_argument("--seed", type=int, default=57)
    args = parser.parse_args()
    rng = random.Random(f"{args.regime}-{args.seed}")
    log = Log(sys.stdout, int(args.years * HOURS_PER_YEAR), f"{args.regime}-h100")
    if args.regime == "lumpy":
        gang_training(log, rng)
    else:
        serving(log, args.regime, rng)


if __name__ == "__main__":
    main()
