#!/usr/bin/env bash
# What hashing every byte of a log costs the cache of reads (issue 54): the cold open of a log
# by a build whose key samples the bytes (BASE, e.g. main's binary) against one whose key hashes
# them all (NEW, this tree's), rounds interleaved, and the warm reopen against NEW's cold open.
# Per round, in empty cache folders: BASE `audit FILE` (cold), NEW `audit FILE` (cold), NEW
# `audit FILE` again (warm). Prints each round and the medians of NEW/BASE cold (target within
# 1.05) and of warm/cold (target at most 0.3).
#   BASE=/tmp/gpuplan-main BENCH_RUNS=3 bash bench/cache-hash.sh ~/.cache/gpuplan/bench/jobs-10m.csv
# To isolate the hash, BASE is this tree built with `describe_file` in data/read_cache/key.rs
# hashing main's 256 sampled blocks of 64 KiB instead of every byte (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:?a log to open}
base=${BASE:?BASE=the gpuplan binary to compare against}
new=${NEW:-${CARGO_TARGET_DIR:-target}/release/gpuplan}
runs=${BENCH_RUNS:-3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
wall() { # the command's wall seconds, its output dropped; cache folder $1
  local cache=$1
  shift
  local start end
  start=$(date +%s.%N)
  GPUPLAN_CACHE_DIR=$cache "$@" > /dev/null 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: > "$scratch/cold" && : > "$scratch/warm"
for round in $(seq 1 "$runs"); do
  rm -rf "$scratch/a" "$scratch/b"
  base_cold=$(wall "$scratch/a" "$base" audit "$file" --format json)
  new_cold=$(wall "$scratch/b" "$new" audit "$file" --format json)
  new_warm=$(wall "$scratch/b" "$new" audit "$file" --format json)
  printf 'round %s: base cold %.2f s, new cold %.2f s, new warm %.2f s\n' "$round" "$base_cold" "$new_cold" "$new_warm"
  echo "$new_cold / $base_cold" | bc -l >> "$scratch/cold"
  echo "$new_warm / $new_cold" | bc -l >> "$scratch/warm"
done
printf 'new cold / base cold: median %.3f (target <= 1.05)\n' "$(median < "$scratch/cold")"
printf 'new warm / new cold: median %.3f (target <= 0.3)\n' "$(median < "$scratch/warm")"
