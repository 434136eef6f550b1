#!/bin/sh
# Runs every fuzz target for SECONDS each (default 60) with the limits of fuzz/README.md.
# Usage: fuzz/run-all.sh [SECONDS] [extra libFuzzer flags...]   (from the repository root)
set -u
seconds=${1:-60}
[ $# -gt 0 ] && shift
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/gpuplan/target-fuzz}
for t in $(cargo +nightly fuzz list); do
    mkdir -p "fuzz/corpus/$t"
    echo "== $t"
    nice -n 5 cargo +nightly fuzz run -s none --release "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=1 -max_len=65536 "$@" 2>&1 |
        grep -E '^#[0-9]+.*DONE|^Done|SUMMARY|panicked|ERROR' || true
done
