#!/usr/bin/env python3
"""A job log with a known future, for bench/forecast-vs-statsforecast.sh and the commitment
backtests: a GPU fleet whose serving grows 60 % over its first 180 days (and on at the same pace),
with daily and weekly swings, beside lumpy training gangs and work-hours burst jobs.

    python3 bench/growth_log.py --days 240 > growth-240d.csv

Inference: replicas of one GPU each, scaled every hour to the demand
    40 x (1 + 0.6 t / 180 days) x (1 + 0.25 sin(daily)) x (0.8 on weekends) + noise,
started and stopped whole (the newest stopped first), so the hourly series a reader builds is
that demand, rounded. Training: a gang of 32 or 64 GPUs every 9 days on average, for 2 to 10
days. Burst: 1 to 4 GPUs for 1 to 6 hours, on weekdays' working hours. Deterministic for a seed.
"""
import argparse
import datetime as dt
import math
import random
import sys

START = dt.datetime(2026, 1, 5, tzinfo=dt.timezone.utc)  # a Monday


def iso(hours):
    return (START + dt.timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def inference_demand(hour, rng):
    days = hour / 24.0
    level = 40.0 * (1.0 + 0.6 * days / 180.0)
    daily = 1.0 + 0.25 * math.sin(2 * math.pi * (hour % 24 - 8) / 24.0)
    weekly = 0.8 if (hour // 24) % 7 >= 5 else 1.0
    return max(0, round(level * daily * weekly + rng.gauss(0.0, 1.5)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=240)
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    hours = args.days * 24
    out = sys.stdout
    out.write("job_id,cluster,name,user,queue,state,start,end,gpus,gpu_type,gpu_util_pct,label\n")
    next_id = 1

    def job(name, start_h, end_h, gpus, label, util):
        nonlocal next_id
        end = iso(end_h) if end_h < hours else ""
        state = "COMPLETED" if end else "RUNNING"
        out.write(f"{next_id},growth-h100,{name},svc,prod,{state},{iso(start_h)},{end},{gpus},h100-sxm,{util:.1f},{label}\n")
        next_id += 1

    running = []  # start hours of the live replicas, oldest first
    for hour in range(hours):
        want = inference_demand(hour, rng)
        while len(running) < want:
            running.append(hour)
        while len(running) > want:
            started = running.pop()
            job(f"serve-growth-{next_id}", started, hour, 1, "inference", 55.0)
    for started in running:
        job(f"serve-growth-{next_id}", started, hours, 1, "inference", 55.0)

    hour = rng.expovariate(1 / (9 * 24))
    while hour < hours:
        length = rng.uniform(2, 10) * 24
        job(f"pretrain-{next_id}", hour, min(hour + length, hours), rng.choice([32, 64]), "training", 85.0)
        hour += rng.expovariate(1 / (9 * 24))

    for day in range(args.days):
        if day % 7 >= 5:
            continue
        for _ in range(rng.randint(6, 14)):
            start = day * 24 + rng.uniform(8, 17)
            job(f"notebook-{next_id}", start, min(start + rng.uniform(1, 6), hours), rng.randint(1, 4), "burst", 20.0)


if __name__ == "__main__":
    main()
