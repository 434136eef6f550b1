#!/usr/bin/env bash
# The commitments scored over years (docs/board.md, "Scored over years"): four regimes of six
# years of hourly demand (bench/multi_year_log.py: three years of history, three of future),
# each policy priced over the 12 and 36 months after yearly origins against hindsight, prices
# held, and the price bet on the catalog's dated H100 prices (bench/multi_year_catalog.py).
# Prints a Markdown table per regime. Logs and reports go to $BENCH_DATA/multi-year.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${BENCH_DATA:-$HOME/.cache/gpuplan/bench}/multi-year"
target="${CARGO_TARGET_DIR:-target}/release"
cargo build --release --quiet --bin gpuplan
mkdir -p "$data"
python3 bench/multi_year_catalog.py catalogs "$data/config"
for regime in steady growing declining lumpy; do
  [ -s "$data/$regime.csv" ] || python3 bench/multi_year_log.py --regime "$regime" > "$data/$regime.csv"
done
echo "input: $data/{steady,growing,declining,lumpy}.csv on $(nproc) cores"
GPUPLAN_CONFIG_DIR="$data/config" python3 bench/multi_year.py --gpuplan "$target/gpuplan" --data "$data" "$@"
