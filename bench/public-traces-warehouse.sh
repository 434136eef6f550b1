#!/usr/bin/env bash
# The public traces through the engine, whole (docs/warehouse.md; the tests audit slices:
# tests/integration/warehouse_traces.rs). Each trace is written as Parquet as its publisher's
# columns, then audited twice and compared:
#
#   in-process  gpuplan audit --no-cache TRACE --all-time --format json
#   DuckDB      gpuplan audit --warehouse-driver duckdb --warehouse-from "read_parquet('P')"
#                 --mapping M --all-time --format json
#               (M: what `gpuplan mapping init TRACE` prints), on every DuckDB line installed
#               (~/.cache/gpuplan/engines/duckdb-*/lib, .ci/engines.sh), each alone (HOME moved).
#
#   openb     openb_pod_list_default.csv (Alibaba clusterdata, cluster-trace-gpu-v2023/csv/)
#   DLRM      disaggregated_DLRM_trace.csv (Alibaba clusterdata, cluster-trace-gpu-v2025/)
#   Philly    jobs.json (Microsoft's philly-traces, cluster_job_log as jobs with attempts): one row
#             per attempt, the job's id, GPUs and submit time on each, times as published
#
# Prints per trace and engine the rows, the wall seconds and peak RSS of both audits, and whether
# they agree: every figure to a billionth, the largest jobs job by job (ties broken by job id
# on both sides), and how many of the listed jobs share their GPU-hours with another (ties).
#
#   bash bench/public-traces-warehouse.sh
#
# TRACES (default ~/.cache/gpuplan/bench/traces) holds the three files; missing ones are taken
# from CLUSTERDATA_GIT (a git directory of Alibaba's clusterdata repository) and PHILLY_JOBS
# (default shared/data/philly/jobs.json) when given, else the trace is skipped with where to get
# it. GPUPLAN=path runs another binary (else cargo builds it). BENCH_PYTHON: Python with pyarrow
# (default the bench venv: ~/.cache/gpuplan/bench-venv/bin/pip install pyarrow). ENGINES: where
# .ci/engines.sh put the engines.
set -euo pipefail
cd "$(dirname "$0")/.."
traces="${TRACES:-$HOME/.cache/gpuplan/bench/traces}"
engines="${ENGINES:-$HOME/.cache/gpuplan/engines}"
python="${BENCH_PYTHON:-$HOME/.cache/gpuplan/bench-venv/bin/python}"
philly_jobs="${PHILLY_JOBS:-shared/data/philly/jobs.json}"
mkdir -p "$traces"
case "$traces" in *" "* | *"'"*) echo "public-traces-warehouse.sh: paths with spaces or quotes are not supported" >&2; exit 2 ;; esac
"$python" -c 'import pyarrow' 2>/dev/null || {
  echo "public-traces-warehouse.sh: $python lacks pyarrow (BENCH_PYTHON, or: ~/.cache/gpuplan/bench-venv/bin/pip install pyarrow)" >&2
  exit 2
}
if [[ -z "${GPUPLAN:-}" ]]; then
  cargo build --release --quiet
  GPUPLAN="${CARGO_TARGET_DIR:-target}/release/gpuplan"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The published files, from where they are.
fetch() { # file path-in-clusterdata
  [[ -f "$traces/$1" ]] && return 0
  if [[ -n "${CLUSTERDATA_GIT:-}" ]]; then
    git --git-dir="$CLUSTERDATA_GIT" show "HEAD:$2" >"$traces/$1.part" && mv "$traces/$1.part" "$traces/$1"
    return 0
  fi
  echo "== skipped $1: put it in $traces (Alibaba's clusterdata repository, $2), or set CLUSTERDATA_GIT" >&2
  return 1
}
have=()
fetch openb_pod_list_default.csv cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv && have+=(openb)
fetch disaggregated_DLRM_trace.csv cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv && have+=(dlrm)
if [[ -f "$traces/philly/jobs.json" ]] || { [[ -f "$philly_jobs" ]] && mkdir -p "$traces/philly" && cp "$philly_jobs" "$traces/philly/jobs.json"; }; then
  have+=(philly)
else
  echo "== skipped Philly: put Microsoft's philly-traces jobs as $traces/philly/jobs.json, or set PHILLY_JOBS" >&2
fi

# Parquet as published: CSV columns as read (empty and NaN null); Philly one row per attempt.
"$python" - "$traces" <<'EOF'
import json, os, sys
import pyarrow as pa, pyarrow.csv as csv, pyarrow.parquet as pq
traces = sys.argv[1]
nulls = csv.ConvertOptions(null_values=["", "NaN", "nan"], strings_can_be_null=True)
for name in ["openb_pod_list_default", "disaggregated_DLRM_trace"]:
    src, dst = f"{traces}/{name}.csv", f"{traces}/{name}.parquet"
    if os.path.exists(src) and not os.path.exists(dst):
        pq.write_table(csv.read_csv(src, convert_options=nulls), dst)
src, dst = f"{traces}/philly/jobs.json", f"{traces}/philly/jobs.parquet"
if os.path.exists(src) and not os.path.exists(dst):
    rows = {"job_id": [], "cluster": [], "gpus": [], "submit": [], "start": [], "end": []}
    for job in json.load(open(src)):
        for attempt in job.get("attempts") or [{}]:
            rows["job_id"].append(job.get("id"))
            rows["cluster"].append("jobs")  # the in-process reader names the cluster after the file
            rows["gpus"].append(float(job["num_gpus"]) if job.get("num_gpus") is not None else None)
            rows["submit"].append(job.get("submitted_time"))
            rows["start"].append(attempt.get("start_time"))
            rows["end"].append(attempt.get("end_time"))
    pq.write_table(pa.table(rows), dst)
EOF

# Seconds and peak RSS of one audit; its JSON in $work/OUT.json.
timed() { # out env... -- args...
  local out="$1"
  shift
  local env=()
  while [[ "$1" != "--" ]]; do env+=("$1"); shift; done
  shift
  env "${env[@]}" /usr/bin/time -f "%e %M" -o "$work/$out.time" "$GPUPLAN" audit --no-cache "$@" \
    --all-time --format json >"$work/$out.json" 2>"$work/$out.err" || {
    echo "failed: $(tail -n 2 "$work/$out.err")"
    return 1
  }
  awk '{printf "%6.2f s %6.0f MB", $1, $2 / 1024}' "$work/$out.time"
}

# Equal to a billionth, the largest jobs job by job: prints "equal (N tied)" or the first difference.
compare() { # a.json b.json
  "$python" - "$1" "$2" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def strip(r):
    r = dict(r)
    for key in ["inputs", "rejected_samples"]:
        r.pop(key, None)
    return r, [{k: v for k, v in j.items() if k != "source_line"} for j in r.pop("top_jobs", None) or []]
def differs(x, y, path):
    if isinstance(x, bool) or isinstance(y, bool) or not all(isinstance(v, (int, float)) for v in (x, y)):
        if isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y)):
                if k not in x or k not in y:
                    return f"{path}.{k}: on one side only"
                d = differs(x[k], y[k], f"{path}.{k}")
                if d:
                    return d
            return None
        if isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return f"{path}: {len(x)} items against {len(y)}"
            return next((d for i, (u, v) in enumerate(zip(x, y)) if (d := differs(u, v, f"{path}[{i}]"))), None)
        return None if x == y else f"{path}: {str(x)[:80]} against {str(y)[:80]}"
    return None if abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1.0) else f"{path}: {x} against {y}"
(ra, ta), (rb, tb) = strip(a), strip(b)
d = differs(ra, rb, "audit")
if not d and len(ta) != len(tb):
    d = f"top_jobs: {len(ta)} against {len(tb)}"
for i, (x, y) in enumerate(zip(ta, tb)):
    d = d or differs(x, y, f"top_jobs[{i}]")
ties = sum(1 for x in ta if any(y is not x and (y["cluster"], y["class"], y["gpu_hours"]) == (x["cluster"], x["class"], x["gpu_hours"]) for y in ta))
print(f"DIFFERS at {d}" if d else f"equal ({ties} of {len(ta)} largest jobs tied)")
EOF
}

printf '%-8s %-14s %10s  %-20s %-20s %s\n' trace engine rows in-process DuckDB agreement
for trace in "${have[@]}"; do
  case "$trace" in
    openb) file="$traces/openb_pod_list_default.csv"; parquet="$traces/openb_pod_list_default.parquet"; mapping=yes ;;
    dlrm) file="$traces/disaggregated_DLRM_trace.csv"; parquet="$traces/disaggregated_DLRM_trace.parquet"; mapping=yes ;;
    philly) file="$traces/philly/jobs.json"; parquet="$traces/philly/jobs.parquet"; mapping=no ;;
  esac
  extra=()
  if [[ "$mapping" == yes ]]; then
    "$GPUPLAN" mapping init "$file" >"$work/$trace.toml" 2>/dev/null
    extra=(--mapping "$work/$trace.toml")
  fi
  inproc="$(timed "$trace-file" HOME="$HOME" -- "$file")" || continue
  rows="$("$python" -c "import pyarrow.parquet as pq, sys; print(pq.ParquetFile(sys.argv[1]).metadata.num_rows)" "$parquet")"
  for lib in "$engines"/duckdb-*/lib; do
    [[ -f "$lib/libduckdb.so" ]] || continue
    line="$(basename "$(dirname "$lib")")"
    env=(GPUPLAN_ADBC_PATH="$lib" HOME="$work")
    [[ -f "$lib/../preload" ]] && env+=(LD_PRELOAD="$(cat "$lib/../preload")")
    if warehouse="$(timed "$trace-$line" "${env[@]}" -- --warehouse-driver duckdb \
      --warehouse-from "read_parquet('$parquet')" "${extra[@]}")"; then
      agreement="$(compare "$work/$trace-file.json" "$work/$trace-$line.json")"
    else
      agreement="$warehouse"
      warehouse="-"
    fi
    printf '%-8s %-14s %10s  %-20s %-20s %s\n' "$trace" "$line" "$rows" "$inproc" "$warehouse" "$agreement"
  done
done
