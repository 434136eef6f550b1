#!/usr/bin/env bash
# How live the workbench is (issue 68; docs/performance.md, "Live: bench/live.sh"). Per log and
# round, the workbench in a pseudo-terminal (tmux, 120x40, the screen read with capture-pane
# every 20 ms; bench/live.py drives it) and the command line, each with fresh empty data, config
# and cache folders (GPUPLAN_DATA_DIR, GPUPLAN_CONFIG_DIR, GPUPLAN_CACHE_DIR):
#   first    seconds from gpuplan's start until the Contracts pane's `saving  $…/yr` is on screen
#   final    until that line no longer says `⧗ <step>…: not final`, nothing is fitting or
#            recomputing and the header's spinner is gone, and it stays so for 2 s
#   growth   a class's growth slider one step (→, then ←, alternately), until the Contracts pane
#            has moved and is final again (its saving may not move at its four digits)
#   price    the first cluster's price one step (5 %): a re-audit; where the plan does not price
#            that cluster (the public traces), an MFU step instead, `mfu`, timed to the MFU
#            pane's new figure (the MFU sliders do not move the saving, by design)
#   horizon  the forecast horizon one month, alternately up and down: a refit
#   report   gpuplan report --logs LOG --format json, cold (empty cache) and warm (cache kept)
#   audit    gpuplan audit LOG --format json, warm
# Rounds are interleaved (every log once a round, this shared VM's speed drifts); the table per
# log gives medians, the steps' p50 and p95 (nearest rank: the largest of fewer than 20
# presses), report/audit warm, and the issue's targets beside them. Logs, each skipped with a
# line saying where to get it when missing:
#   sample   the shipped sample-data/jobs-90d.csv
#   openb    $BENCH_DATA/traces/openb_pod_list_default.csv (Alibaba clusterdata,
#            cluster-trace-gpu-v2023/csv/)
#   dlrm     $BENCH_DATA/traces/disaggregated_DLRM_trace.csv (cluster-trace-gpu-v2025/)
#   philly   $BENCH_PHILLY, default ../shared/data/philly/jobs.json (Microsoft's philly-traces)
#   1m       $BENCH_DATA/jobs-1m.csv: `gpuplan sample --jobs 1000000 --seed 11`, made once
#   BENCH_RUNS=3 BENCH_LOGS="sample openb dlrm philly 1m" BENCH_STEPS=6 bash bench/live.sh
# GPUPLAN=path times another gpuplan binary (a "before" build; nothing is built then). About
# 8 minutes at BENCH_RUNS=3 on 2 cores; the measurements also go to $BENCH_DATA/live.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${BENCH_DATA:-$HOME/.cache/gpuplan/bench}"
runs="${BENCH_RUNS:-3}"
logs="${BENCH_LOGS:-sample openb dlrm philly 1m}"
steps="${BENCH_STEPS:-6}"
python="${BENCH_PYTHON:-python3}"
philly="${BENCH_PHILLY:-../shared/data/philly/jobs.json}"
for tool in tmux "$python"; do
  command -v "$tool" > /dev/null || { echo "bench/live.sh: $tool is needed" >&2; exit 2; }
done
if [ -z "${GPUPLAN:-}" ]; then
  cargo build --release --quiet --bin gpuplan
  GPUPLAN="${CARGO_TARGET_DIR:-target}/release/gpuplan"
fi
# tmux starts the workbench in its own folder: every path absolute.
gpuplan=$(realpath "$GPUPLAN")
mkdir -p "$data"

work=$(mktemp -d "${TMPDIR:-/tmp}/gpuplan-live.XXXXXX")
socket="gpuplan-live-$$" # a tmux server of this run's own: killing it ends every session it started
cleanup() {
  tmux -L "$socket" kill-server 2> /dev/null || true
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$socket" # the server leaves its socket behind
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log_of() {
  case "$1" in
    sample) echo "$PWD/sample-data/jobs-90d.csv" ;;
    openb) echo "$data/traces/openb_pod_list_default.csv" ;;
    dlrm) echo "$data/traces/disaggregated_DLRM_trace.csv" ;;
    philly) realpath -m "$philly" ;;
    1m) echo "$data/jobs-1m.csv" ;;
    *) echo "bench/live.sh: unknown log $1 (sample openb dlrm philly 1m)" >&2; exit 2 ;;
  esac
}
where_of() {
  case "$1" in
    openb) echo "Alibaba clusterdata cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv" ;;
    dlrm) echo "Alibaba clusterdata cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv" ;;
    philly) echo "Microsoft's philly-traces as jobs.json; set BENCH_PHILLY" ;;
    1m) echo "gpuplan sample did not write it" ;;
    *) echo "the repository's own sample" ;;
  esac
}

have=()
for name in $logs; do
  file=$(log_of "$name")
  if [ "$name" = 1m ] && [ ! -s "$file" ]; then
    "$gpuplan" sample --jobs 1000000 --seed 11 -o "$file.part" && mv "$file.part" "$file"
  fi
  if [ -s "$file" ]; then
    have+=("$name")
  else
    echo "== skipped $name: no $file ($(where_of "$name"))"
  fi
done
[ "${#have[@]}" -gt 0 ] || { echo "bench/live.sh: no log to measure" >&2; exit 2; }

results="$data/live.tsv"
: > "$results"
echo "gpuplan: $gpuplan; $(nproc) cores, $(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576 )) GiB;" \
  "load $(cut -d' ' -f1-3 /proc/loadavg); $runs rounds, $steps presses a step and round; logs: ${have[*]}"
for round in $(seq "$runs"); do
  for name in "${have[@]}"; do
    file=$(log_of "$name")
    common=(--gpuplan "$gpuplan" --log "$file" --name "$name" --round "$round" --results "$results" --work "$work")
    "$python" bench/live.py workbench "${common[@]}" --socket "$socket" --steps "$steps" ||
      echo "  $name round $round: the workbench run failed (above)"
    "$python" bench/live.py cli "${common[@]}" || echo "  $name round $round: the command-line runs failed (above)"
    rm -rf "${work:?}"/*
  done
done
"$python" bench/live.py table --results "$results" --logs "${have[*]}"
