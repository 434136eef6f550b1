#!/usr/bin/env python3
"""Alibaba's GPU-disaggregated DLRM inference trace (clusterdata, cluster-trace-gpu-v2025,
disaggregated_DLRM_trace.csv; NSDI '25, Yang et al.) as a gpuplan job log: one row per instance
that holds GPUs (the HN role), its scheduled time as the start and its deletion as the end,
both counted in seconds from the trace's start. An instance there before the trace began starts
at 0; one still there at its end has no end (running). The trace publishes no dates: day 0 is
taken as 2025-01-06, a Monday. Every instance serves (the trace's own words: all are
latency-sensitive inference), on A100s (the paper's GPU nodes).

    python3 bench/dlrm_to_jobs.py disaggregated_DLRM_trace.csv > dlrm-2025.csv
"""
import csv
import datetime as dt
import sys

DAY0 = dt.datetime(2025, 1, 6, tzinfo=dt.timezone.utc)


def seconds(text):
    text = (text or "").strip()
    if not text or text.lower() == "nan":
        return None
    return float(text)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["job_id", "cluster", "name", "user", "state", "start", "end", "gpus", "gpu_type", "label"])
    iso = lambda s: (DAY0 + dt.timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%SZ")
    for row in rows:
        gpus = float(row["gpu_request"] or 0)
        if gpus <= 0:
            continue
        start = seconds(row["scheduled_time"])
        if start is None:
            start = seconds(row["creation_time"]) or 0.0
        end = seconds(row["deletion_time"])
        out.writerow([
            row["instance_sn"], "dlrm", row["app_name"], row["app_name"],
            "COMPLETED" if end is not None else "RUNNING",
            iso(start), iso(end) if end is not None else "", gpus, "a100-80gb", "inference",
        ])


if __name__ == "__main__":
    main()
