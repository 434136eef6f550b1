#!/usr/bin/env bash
# The bounded-memory benchmark of docs/hardening.md: `gpuplan audit --all-time` of the
# 10,000,000-row log of bench/audit-10m.sh, alone and with one more row running from year 1 to
# 9999 (in a second file). The long window is followed in coarser steps, so both should peak at
# the same resident memory. Rounds interleave the two; peak RSS and seconds from /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${BENCH_DATA:-$HOME/.cache/gpuplan/bench}"
runs="${BENCH_RUNS:-3}"
file="$data/jobs-10m.csv"
target="${CARGO_TARGET_DIR:-target}/release"
cargo build --release --quiet --bin gpuplan
[ -s "$file" ] || "$target/gpuplan" sample --jobs 10000000 --days 90 --clusters 8 --seed 11 -o "$file"
outlier="$data/outlier-10000-years.csv"
printf 'job_id,cluster,start,end,gpus\nforever,us-east-h100-1,0001-01-01T00:00:00Z,9999-12-31T00:00:00Z,8\n' > "$outlier"
labels=("10M rows, --all-time" "10M rows + year 1-9999 row, --all-time")
commands=("$target/gpuplan audit $file --all-time --format json" "$target/gpuplan audit $file $outlier --all-time --format json")
echo "input: $file and $outlier on $(nproc) cores; $runs rounds"
for round in $(seq "$runs"); do
  for i in "${!commands[@]}"; do
    # shellcheck disable=SC2086 # the commands are word lists
    /usr/bin/time -f "%e %M" -o "$data/time.txt" ${commands[$i]} > "$data/long-window-$i.json" 2>/dev/null
    read -r seconds kib < "$data/time.txt"
    echo "round $round  ${labels[$i]}: $seconds s, $((kib / 1024)) MiB"
  done
done
python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["window"]; print("window with the outlier:", round(w["days"]), "days,", w["resolution"])' "$data/long-window-1.json"
