#!/usr/bin/env bash
# The forecast benchmark of docs/forecast.md: `gpuplan backtest` beside statsforecast (Nixtla)
# on the same hourly series and the same origins (bench/forecast_compare.py), one row per
# series and class: gpuplan's MAE over statsforecast's best MSTL variant's, and each one's
# interval coverage (gpuplan's at the first week of leads and the last), and each one's 80 %
# interval score (Winkler: width plus 2/α times the miss), gpuplan's over the best MSTL variant's.
#
# Python is optional: `pip install statsforecast` (2.x); without it the script says so and
# stops. Series, each skipped with a message when its file is absent:
#   sample   the shipped sample-data/jobs-90d.csv, 14 days held out
#   growth   bench/growth_log.py --days 240 (a known future), 60 days held out
#   philly   Microsoft's Philly trace, jobs.json ($PHILLY_JOBS, default ../shared/data/philly)
#   dlrm     Alibaba clusterdata cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv
#            ($DLRM_TRACE), converted by bench/dlrm_to_jobs.py, 7 days held out
#   openb    Alibaba clusterdata cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv
#            ($OPENB_PODS), 14 days held out
# BENCH_ORIGINS (default 8) origins per backtest.
set -euo pipefail
cd "$(dirname "$0")/.."
py="${BENCH_PYTHON:-python3}"
data="${BENCH_DATA:-$HOME/.cache/gpuplan/bench}"
origins="${BENCH_ORIGINS:-8}"
if ! "$py" -c 'import statsforecast' 2>/dev/null; then
  echo "bench/forecast-vs-statsforecast.sh: statsforecast is not installed for $py;" \
    "pip install statsforecast (or set BENCH_PYTHON) to run this benchmark" >&2
  exit 0
fi
mkdir -p "$data"
target="${CARGO_TARGET_DIR:-target}/release"
cargo build --release --quiet --bin gpuplan
gpuplan="$target/gpuplan"

[ -s "$data/growth-240d.csv" ] || python3 bench/growth_log.py --days 240 > "$data/growth-240d.csv"
series=("sample sample-data/jobs-90d.csv --holdout-days 14"
        "growth $data/growth-240d.csv --all-time --holdout-days 60")
philly="${PHILLY_JOBS:-../shared/data/philly/jobs.json}"
if [ -s "$philly" ]; then series+=("philly $philly --all-time --holdout-days 14")
else echo "philly: skipped, no $philly (set PHILLY_JOBS)" >&2; fi
if [ -n "${DLRM_TRACE:-}" ] && [ -s "$DLRM_TRACE" ]; then
  python3 bench/dlrm_to_jobs.py "$DLRM_TRACE" > "$data/dlrm-2025.csv"
  series+=("dlrm $data/dlrm-2025.csv --all-time --holdout-days 7")
else echo "dlrm: skipped, set DLRM_TRACE to disaggregated_DLRM_trace.csv" >&2; fi
if [ -n "${OPENB_PODS:-}" ] && [ -s "$OPENB_PODS" ]; then
  series+=("openb $OPENB_PODS --all-time --holdout-days 14")
else echo "openb: skipped, set OPENB_PODS to openb_pod_list_default.csv" >&2; fi

echo "| series | class | origins | gpuplan MAE | statsforecast best MSTL MAE | ratio | seasonal naive MAE | gpuplan 80 % (first, last week) | gpuplan 95 % (first, last week) | statsforecast 80 % / 95 % | gpuplan 80 % interval score | statsforecast's best 80 % interval score | ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for row in "${series[@]}"; do
  read -r name file rest <<< "$row"
  # shellcheck disable=SC2086
  "$gpuplan" backtest "$file" $rest --origins "$origins" --format json \
    --series-csv "$data/$name-series.csv" > "$data/$name-backtest.json"
  "$py" bench/forecast_compare.py "$name" "$data/$name-backtest.json" "$data/$name-series.csv" --markdown
done
