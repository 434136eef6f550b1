#!/usr/bin/env python3
"""Job logs of other shapes than `gpuplan sample`'s, for the benchmarks of docs/performance.md.

Independent of gpuplan: the logs are written from numpy's random draws, in column names of
their own that gpuplan maps by its synonyms (as it would a stranger's export).

  short  a fleet dominated by short jobs: millions of one-GPU jobs of minutes (evaluations,
         notebooks, inference batches, CI), Poisson arrivals with a daily swing, a short wait
         between submit and start, no capacity limit (as the issue's independent log).
  gang   long gang jobs with deep queues: 8 to 1,024 GPUs in whole nodes, hours to days,
         submitted in bursts hours before they start, several attempts per job (requeued after
         a node failure or preemption, one row an attempt with the same job id).

    python3 bench/shapes.py SHAPE ROWS OUT.csv [--seed N]

Needs numpy (the bench venv: python3 -m venv ~/.cache/gpuplan/bench-venv && pip install numpy).
"""
import argparse
import sys

import numpy as np

DAY_S = 86_400
WINDOW_START = np.datetime64("2026-03-01T00:00:00", "s")
CHUNK = 1_000_000


def iso(seconds):
    """Seconds from the window's start as ISO 8601 UTC strings."""
    stamps = WINDOW_START + seconds.astype("timedelta64[s]")
    return np.char.add(np.datetime_as_string(stamps, unit="s"), "Z")


def pick(rng, values, weights, n):
    weights = np.asarray(weights, dtype=float)
    return np.asarray(values)[rng.choice(len(values), size=n, p=weights / weights.sum())]


def arrivals(rng, n, days):
    """n arrival times over `days`, denser by day than by night (a daily swing of 3 to 1)."""
    t = np.sort(rng.uniform(0, days * DAY_S, size=n * 2))
    hour = (t % DAY_S) / 3600
    keep = rng.uniform(size=t.size) < (0.5 + 0.5 * np.sin((hour - 9) / 24 * 2 * np.pi) + 0.5) / 1.5
    t = t[keep]
    if t.size < n:
        t = np.sort(np.concatenate([t, rng.uniform(0, days * DAY_S, size=n - t.size)]))
    return np.sort(rng.choice(t, size=n, replace=False)).astype(np.int64)


SHORT_STEMS = ["eval-ckpt", "notebook", "infer-batch", "ci-test", "embed-shard", "sweep-trial", "score-rerank",
               "tokenize", "asr-batch", "distill-eval"]
SHORT_CLUSTERS = ["gcp-l4-east", "aws-a10g-west", "onprem-a100-lab", "azure-h100-serve"]
SHORT_TYPES = {"gcp-l4-east": "l4", "aws-a10g-west": "a10g", "onprem-a100-lab": "a100-sxm4-80gb",
               "azure-h100-serve": "h100-sxm"}


def short(rng, rows, days):
    """One row a job; 82 % one GPU; durations log-normal around 7 minutes, 1 minute to 6 hours."""
    submit = arrivals(rng, rows, days)
    header = "JobID,Cluster,JobName,User,Partition,State,SubmitTime,StartTime,EndTime,NumGPUs,GPUType,GPUUtil"
    yield header
    for lo in range(0, rows, CHUNK):
        n = min(CHUNK, rows - lo)
        sub = submit[lo:lo + n]
        wait = rng.exponential(45, size=n).astype(np.int64)
        dur = np.clip(np.exp(rng.normal(np.log(420), 1.1, size=n)), 60, 6 * 3600).astype(np.int64)
        start = sub + wait
        end = start + dur
        gpus = pick(rng, [1, 2, 4, 8], [82, 10, 6, 2], n)
        cluster = pick(rng, SHORT_CLUSTERS, [40, 25, 20, 15], n)
        gtype = np.vectorize(SHORT_TYPES.get)(cluster)
        stem = pick(rng, SHORT_STEMS, [20, 15, 20, 10, 8, 10, 5, 5, 4, 3], n)
        name = np.char.add(np.char.add(stem, "-"), rng.integers(0, 5000, size=n).astype(str))
        user = np.char.add("u", rng.integers(0, 400, size=n).astype(str))
        part = pick(rng, ["short", "interactive", "batch", "preempt"], [50, 15, 25, 10], n)
        state = pick(rng, ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"], [90, 6, 3, 1], n)
        util = np.round(rng.beta(2, 3, size=n) * 100, 1)
        ids = (5_000_000 + lo + np.arange(n)).astype(str)
        cols = [ids, cluster, name, user, part, state, iso(sub), iso(start), iso(end), gpus.astype(str), gtype,
                util.astype(str)]
        yield from (",".join(r) for r in zip(*cols))


GANG_STEMS = ["pretrain-moe", "pretrain-dense", "sft-run", "rlhf-ppo", "video-diffusion", "long-ctx-ext",
              "multimodal-pt", "eval-suite"]
GANG_CLUSTERS = ["coreweave-h100-a", "coreweave-h100-b", "oci-h200", "onprem-b200"]
GANG_TYPES = {"coreweave-h100-a": "h100-sxm", "coreweave-h100-b": "h100-sxm", "oci-h200": "h200",
              "onprem-b200": "b200"}


def gang(rng, rows, days):
    """Jobs of whole 8-GPU nodes up to 1,024 GPUs, 1 hour to 4 days, submitted in waves (a team
    queues a sweep at once) and waiting hours; 1 to 6 attempts a job, one row each."""
    attempts_per_job = np.minimum(rng.geometric(0.55, size=rows), 6)
    attempts_per_job = attempts_per_job[np.cumsum(attempts_per_job) <= rows]
    short_by = rows - int(attempts_per_job.sum())
    attempts_per_job = np.concatenate([attempts_per_job, np.ones(short_by, dtype=attempts_per_job.dtype)])
    jobs = attempts_per_job.size
    # Waves: a sweep of 1 to 64 jobs submitted within a minute.
    wave_size = rng.integers(1, 65, size=jobs)
    wave_count = int(np.searchsorted(np.cumsum(wave_size), jobs)) + 1
    wave_at = arrivals(rng, wave_count, days)
    wave_of = np.repeat(np.arange(wave_count), wave_size[:wave_count])[:jobs]
    submit_job = wave_at[wave_of] + rng.integers(0, 60, size=jobs)
    nodes = pick(rng, [1, 2, 4, 8, 16, 32, 64, 128], [30, 22, 16, 12, 9, 6, 3, 2], jobs)
    gpus_job = nodes * 8
    stem_job = pick(rng, GANG_STEMS, [10, 10, 20, 15, 10, 8, 7, 20], jobs)
    cluster_job = pick(rng, GANG_CLUSTERS, [35, 30, 20, 15], jobs)
    user_job = np.char.add("team", rng.integers(0, 60, size=jobs).astype(str))
    ids_job = (70_000_000 + np.arange(jobs)).astype(str)
    run = np.repeat(np.arange(jobs), attempts_per_job)
    last = np.zeros(rows, dtype=bool)
    last[np.cumsum(attempts_per_job) - 1] = True
    attempt = np.arange(rows) - np.repeat(np.cumsum(attempts_per_job) - attempts_per_job, attempts_per_job)
    header = "job_id,pool,job_name,owner,qos,status,submit,start,end,gpu_count,gpu_model,sm_active"
    yield header
    # Each attempt starts after a queue wait (deep: hours, growing with the gang's size) that
    # follows the submit or the previous attempt's end.
    dur = np.clip(np.exp(rng.normal(np.log(5 * 3600), 1.2, size=rows)), 3600, 4 * DAY_S).astype(np.int64)
    wait = (rng.exponential(1, size=rows) * (1800 + 300 * nodes[run])).astype(np.int64)
    # The first attempt's start is its submit plus the wait; a later one's is the previous end plus.
    step = wait + np.where(last, dur, (dur * rng.uniform(0.05, 0.9, size=rows)).astype(np.int64))
    offsets = np.cumsum(step) - step
    first = np.repeat(np.cumsum(attempts_per_job) - attempts_per_job, attempts_per_job)
    rel = offsets - offsets[first]
    start = submit_job[run] + rel + wait
    end = start + step - wait
    state = np.where(last, pick(rng, ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"], [80, 8, 7, 5], rows),
                     pick(rng, ["NODE_FAIL", "PREEMPTED", "REQUEUED"], [40, 40, 20], rows))
    util = np.round(rng.beta(5, 2, size=rows), 3)
    for lo in range(0, rows, CHUNK):
        sl = slice(lo, min(rows, lo + CHUNK))
        j = run[sl]
        name = np.char.add(np.char.add(stem_job[j], "-r"), attempt[sl].astype(str))
        cols = [ids_job[j], cluster_job[j], name, user_job[j], pick(rng, ["high", "normal", "low"], [2, 6, 2], j.size),
                state[sl], iso(submit_job[j]), iso(start[sl]), iso(end[sl]), gpus_job[j].astype(str),
                np.vectorize(GANG_TYPES.get)(cluster_job[j]), util[sl].astype(str)]
        yield from (",".join(r) for r in zip(*cols))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("shape", choices=["short", "gang"])
    parser.add_argument("rows", type=int)
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=44)
    parser.add_argument("--days", type=int, default=90)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    lines = {"short": short, "gang": gang}[args.shape](rng, args.rows, args.days)
    with open(args.out, "w", buffering=1 << 22) as out:
        for line in lines:
            out.write(line)
            out.write("\n")
    print(f"{args.out}: {args.shape}, {args.rows} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
