#!/usr/bin/env bash
# Reading a node's own utilization (docs/utilization.md, "From the node itself"): `gpuplan audit`
# of a one-job log beside one node's recording, against the same samples written as a DCGM long
# export (the reader the issue measures against). bench/node_recordings_gen.py writes the three
# layouts sample for sample; every contender measures the same cluster to the same figure.
#
# Shapes (SHAPES, default all four):
#   query-day   nvidia-smi --query-gpu ... --format=csv -lms 500, 8 GPUs, 1 day        (1,382,400 rows)
#   dmon-day    nvidia-smi dmon -s pucm --gpm-metrics 1,2,3,5 -o DT, 64 GPUs, 1 s, 1 day (5,529,600 rows)
#   dmon-week8  the same dmon, 8 GPUs for a week                                       (4,838,400 rows)
#   dmon-week   the dmon of dmon-day for a week                                         (38,707,200 rows)
# Each round runs every contender of a shape once (a shared VM's speed drifts over minutes, so the
# drift falls on all alike); the median of BENCH_RUNS rounds (default 3), peak RSS from
# /usr/bin/time. The DCGM reader holds a file's text and its samples, so on dmon-week it is run
# only with DCGM_WEEK=1 (it needs well over 10 GiB).
set -euo pipefail
cd "$(dirname "$0")/.."
data="${BENCH_DATA:-$HOME/.cache/gpuplan/bench/node}"
runs="${BENCH_RUNS:-3}"
shapes="${SHAPES:-query-day dmon-day dmon-week8 dmon-week}"
target="${CARGO_TARGET_DIR:-target}/release"
mkdir -p "$data"
case "$data$target" in *" "*) echo "bench/node-recordings.sh: paths with spaces are not supported" >&2; exit 2;; esac
cargo build --release --quiet --bin gpuplan
gpuplan="$target/gpuplan"

plan="$data/plan.toml"
[ -s "$plan" ] || { "$gpuplan" plan new -o "$plan" >/dev/null 2>&1; printf '\n[hosts]\nlab = ["node17"]\n' >> "$plan"; }

# layout GPUs seconds interval_ms file
generate() {
  [ -s "$data/$5" ] || { echo "writing $5" >&2; python3 bench/node_recordings_gen.py "$1" "$2" "$3" "$4" "$data/$5.tmp" && mv "$data/$5.tmp" "$data/$5"; }
}
jobs_for_days() {
  local file="$data/jobs-$1d.csv"
  [ -s "$file" ] || printf 'job_id,cluster,name,start,end,gpus\n1,lab,pretrain-node17,2026-11-26T00:00:00Z,%s,8\n' \
    "$(date -u -d "2026-11-26 + $1 days" +%Y-%m-%dT%H:%M:%SZ)" > "$file"
  echo "$file"
}
rows_of() { grep -vc -e '^#' -e '^timestamp' -e '^time,' "$1"; }

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "$(nproc) cores, $(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576 )) GiB; $runs rounds; $("$gpuplan" --version)"
for shape in $shapes; do
  case "$shape" in
    dmon-day) generate dmon 64 86400 1000 node17.dmon.txt; generate dcgm 64 86400 1000 node17-dmon-day-dcgm.csv
              node="node17.dmon.txt"; dcgm="node17-dmon-day-dcgm.csv"; days=1 ;;
    query-day) generate query 8 86400 500 node17.csv; generate dcgm 8 86400 500 node17-query-day-dcgm.csv
               node="node17.csv"; dcgm="node17-query-day-dcgm.csv"; days=1 ;;
    dmon-week8) mkdir -p "$data/week8"; generate dmon 8 604800 1000 week8/node17.dmon.txt
                generate dcgm 8 604800 1000 node17-dmon-week8-dcgm.csv
                node="week8/node17.dmon.txt"; dcgm="node17-dmon-week8-dcgm.csv"; days=7 ;;
    dmon-week) mkdir -p "$data/week"; generate dmon 64 604800 1000 week/node17.dmon.txt
               node="week/node17.dmon.txt"; dcgm=""; days=7
               if [ "${DCGM_WEEK:-0}" = 1 ]; then generate dcgm 64 604800 1000 node17-dmon-week-dcgm.csv; dcgm="node17-dmon-week-dcgm.csv"; fi ;;
    *) echo "unknown shape $shape" >&2; exit 2 ;;
  esac
  jobs=$(jobs_for_days "$days")
  labels=("job log alone" "$node"); files=("" "$data/$node")
  if [ -n "$dcgm" ]; then labels+=("$dcgm (DCGM long)"); files+=("$data/$dcgm"); fi
  results="$data/rounds-$shape.txt"; : > "$results"
  for round in $(seq "$runs"); do
    for i in "${!files[@]}"; do
      # shellcheck disable=SC2086 # an empty file name is no argument
      /usr/bin/time -f "%e %M" -o "$data/time.txt" "$gpuplan" audit "$jobs" ${files[$i]} --plan "$plan" --no-cache --format json > "$data/out-$i.json" 2>/dev/null
      read -r seconds kib < "$data/time.txt"
      echo "$round $i $seconds $kib" >> "$results"
    done
  done
  # The same cluster measured to the same figure by every reader.
  figures=$(for i in "${!files[@]}"; do [ "$i" = 0 ] || python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['clusters'][0]['utilization_frac'], 9))" "$data/out-$i.json"; done | sort -u | tr '\n' ' ')
  echo
  echo "== $shape: lab's measured utilization $figures"
  printf '%-40s %12s %10s %14s %12s\n' "input" "rows" "median s" "rows/s" "peak RSS MiB"
  base=""
  for i in "${!files[@]}"; do
    s=$(awk -v i="$i" '$2 == i {print $3}' "$results" | median)
    m=$(awk -v i="$i" '$2 == i && $4 > m {m = $4} END {print int(m / 1024)}' "$results")
    if [ "$i" = 0 ]; then rows=0; rate="-"; else rows=$(rows_of "${files[$i]}"); rate=$(awk -v r="$rows" -v s="$s" 'BEGIN {printf "%.0f", r / s}'); fi
    printf '%-40s %12s %10s %14s %12s\n' "${labels[$i]}" "$rows" "$s" "$rate" "$m"
    if [ "$i" = 1 ]; then base=$rate; fi
    if [ "$i" = 2 ]; then echo "ratio: $node reads $(awk -v a="$base" -v b="$rate" 'BEGIN {printf "%.2f", a / b}') times the DCGM long reader's rows per second"; fi
  done
done
