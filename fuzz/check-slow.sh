#!/bin/sh
# Times every slow-unit-* and timeout-* artifact of the long run alone, one Polars thread, with
# the 1 s limit: run it on an otherwise idle machine. Prints each input's time; exits 1 when one
# is slower than 1 s (a real finding: fix it and keep it as a test).
# Usage (repository root): fuzz/check-slow.sh
set -u
target_dir=${CARGO_TARGET_DIR:-$HOME/.cache/gpuplan/target-fuzz}
bin_dir=$target_dir/x86_64-unknown-linux-gnu/release
status=0
for artifact in fuzz/artifacts/*/slow-unit-* fuzz/artifacts/*/timeout-*; do
    [ -f "$artifact" ] || continue
    t=$(basename "$(dirname "$artifact")")
    line=$(POLARS_MAX_THREADS=1 "$bin_dir/$t" -timeout=1 -rss_limit_mb=2048 -runs=1 "$artifact" 2>&1 |
        grep -E '^Executed|ERROR: libFuzzer' | head -1)
    echo "$t $(basename "$artifact"): $line"
    case $line in Executed*) ;; *) status=1 ;; esac
done
exit $status
