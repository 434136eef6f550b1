#!/usr/bin/env bash
# The partitioned benchmark of docs/performance.md: a generated 100,000,000-row job log
# written as Parquet partitioned by cluster (examples/parquet_fleet.rs: 8 clusters,
# cluster=NAME/part-NNNNN.parquet of 1M rows each), audited by `gpuplan audit DIR`, which
# takes one cluster at a time. Wall time and peak RSS from /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${BENCH_DATA:-$HOME/.cache/gpuplan/bench}"
rows="${BENCH_ROWS:-100000000}"
dir="$data/fleet-$rows"
target="${CARGO_TARGET_DIR:-target}/release"
cargo build --release --quiet --bin gpuplan --example parquet_fleet
[ -d "$dir" ] || "$target/examples/parquet_fleet" "$dir" "$rows" 8 11
du -sh "$dir"
/usr/bin/time -f "wall %e s, peak RSS %M KiB" "$target/gpuplan" audit "$dir" --format json > "$data/fleet-audit.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['runs_total'], 'runs,', d['jobs_total'], 'jobs,', round(d['gpu_hours_total']), 'GPU-hours,', len(d['clusters']), 'clusters')" "$data/fleet-audit.json"
