#!/bin/sh
# The long run of issue 15: each TARGET until 10 million executions or 30 CPU-minutes of its
# own process, whichever comes first, with the limits of fuzz/README.md (2 GiB, 64 KiB inputs,
# no input slower than 1 s). CPU time is read from /proc, so a run that shares the machine
# still gets its full half hour; at the limit the fuzzer gets SIGINT and prints its final
# statistics (exit 72; 0 is the run count reached).
#
# libFuzzer's -timeout counts wall time, so a fuzzer sharing the machine with a build would
# report inputs that take milliseconds as timeouts. On a shared machine run it with
# FUZZ_TIMEOUT=60 (10 s was not enough beside a cold build): every input slower than 1 s of wall
# time is still written as a slow-unit-* artifact (-report_slow_units=1), and
# fuzz/check-slow.sh then times each one alone.
# Usage (repository root, after `cargo +nightly fuzz build --release -s none`):
#   fuzz/long-run.sh TARGET...        one line per target is appended to fuzz/long-runs.log
set -u
# The targets that read a file write each input to a scratch file under $TMPDIR. On a disk that
# is slow enough to matter: the focus run got 11 % of a core with /tmp on ext4 and ran 5 times
# the executions a second on tmpfs. So tmpfs unless the caller chose.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    export TMPDIR=/dev/shm
fi
target_dir=${CARGO_TARGET_DIR:-$HOME/.cache/gpuplan/target-fuzz}
bin_dir=$target_dir/x86_64-unknown-linux-gnu/release
runs=${FUZZ_RUNS:-10000000}
cpu_limit_s=${FUZZ_CPU_SECONDS:-1800}
ticks=$(getconf CLK_TCK)
mkdir -p fuzz/logs
for t in "$@"; do
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    log=fuzz/logs/$t.log
    started=$(date +%s)
    # One Polars thread: the run is one CPU's worth of work, as libFuzzer is.
    POLARS_MAX_THREADS=1 nice -n "${FUZZ_NICE:-0}" "$bin_dir/$t" "fuzz/corpus/$t" "fuzz/seeds/$t" \
        -runs="$runs" -rss_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-1}" -report_slow_units=1 \
        -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="fuzz/artifacts/$t/" >"$log" 2>&1 &
    pid=$!
    cpu_s=0
    while kill -0 "$pid" 2>/dev/null; do
        sleep 5
        stat=$(cat "/proc/$pid/stat" 2>/dev/null) || break
        cpu_s=$(echo "$stat" | awk -v t="$ticks" '{print int(($14 + $15) / t)}')
        if [ "$cpu_s" -ge "$cpu_limit_s" ]; then
            kill -INT "$pid"
            break
        fi
    done
    wait "$pid"
    code=$?
    wall_s=$(($(date +%s) - started))
    executed=$(grep -o 'number_of_executed_units: *[0-9]*' "$log" | tail -1 | awk '{print $2}')
    slowest=$(grep -o 'slowest_unit_time_sec: *[0-9]*' "$log" | tail -1 | awk '{print $2}')
    peak=$(grep -o 'peak_rss_mb: *[0-9]*' "$log" | tail -1 | awk '{print $2}')
    crashes=$(ls "fuzz/artifacts/$t" | grep -vc '^slow-unit-')
    slow=$(ls "fuzz/artifacts/$t" | grep -c '^slow-unit-')
    printf '%s %s executions=%s cpu_s>=%s wall_s=%s slowest_s=%s peak_rss_mb=%s exit=%s artifacts=%s slow_units=%s\n' \
        "$(date -u +%FT%TZ)" "$t" "${executed:-?}" "$cpu_s" "$wall_s" "${slowest:-?}" "${peak:-?}" \
        "$code" "$crashes" "$slow" | tee -a fuzz/long-runs.log
done
