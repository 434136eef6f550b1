#!/usr/bin/env bash
# The Prometheus benchmark of docs/utilization.md ("Utilization from Prometheus in practice"): a fleet of GPUS GPUs
# over DAYS days at one sample a minute, written as dcgm-exporter's OpenMetrics, backfilled
# into a local Prometheus with promtool, then `gpuplan audit --prometheus` (hourly series per
# cluster, aggregated on the server) against pulling the raw samples (range queries of the
# metric itself at the samples' one-minute step, split under the 11,000-point limit).
# Reports the backfill's time, gpuplan's time, peak RSS and bytes received, and the raw pull's
# time and bytes, interleaved over ROUNDS rounds (medians).
#
#   GPUS=512 DAYS=30 ROUNDS=3 bash bench/prometheus-pull.sh
set -euo pipefail
cd "$(dirname "$0")/.."
gpus="${GPUS:-512}"
days="${DAYS:-30}"
rounds="${ROUNDS:-3}"
clusters=4
data="${BENCH_DATA:-$HOME/.cache/gpuplan/bench}/prometheus-${gpus}x${days}"
target="${CARGO_TARGET_DIR:-target}/release"
command -v prometheus >/dev/null && command -v promtool >/dev/null || {
  echo "bench/prometheus-pull.sh: needs prometheus and promtool (apt-get install prometheus)" >&2
  exit 2
}
cargo build --release --quiet --bin gpuplan
mkdir -p "$data"
start=1704067200 # 2024-01-01T00:00:00Z
end=$((start + days * 86400))

if [ ! -d "$data/tsdb" ]; then
  echo "writing $gpus GPUs x $days days x 1440 samples ($((gpus * days * 1440)) samples) as OpenMetrics"
  python3 - "$gpus" "$days" "$start" "$clusters" > "$data/samples.om" <<'PY'
import sys
gpus, days, start, clusters = (int(a) for a in sys.argv[1:5])
out = sys.stdout
out.write("# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n")
per_host = 8
for g in range(gpus):
    host, gpu = divmod(g, per_host)
    cluster = host % clusters
    labels = f'cluster="c{cluster}",Hostname="gpu{host:04d}",gpu="{gpu}",modelName="NVIDIA H100 80GB HBM3"'
    prefix = f"DCGM_FI_PROF_GR_ENGINE_ACTIVE{{{labels}}} "
    lines = []
    for m in range(days * 1440):
        value = ((m // 60) * 7 + g * 3) % 11 / 10
        lines.append(f"{prefix}{value} {start + m * 60 + 30}\n")
    out.write("".join(lines))
out.write("# EOF\n")
PY
  ls -l "$data/samples.om"
  t0=$(date +%s.%N)
  /usr/bin/time -f "backfill peak RSS %M KiB" promtool tsdb create-blocks-from openmetrics -q "$data/samples.om" "$data/tsdb"
  t1=$(date +%s.%N)
  printf 'backfill: %.1f s\n' "$(echo "$t1 - $t0" | bc)"
  rm -f "$data/samples.om"
fi

# A job log with a job on each cluster through the window, so every cluster is audited.
{
  echo "job_id,cluster,name,start,end,gpus"
  for c in $(seq 0 $((clusters - 1))); do
    echo "$c,c$c,serve-$c,$(date -u -d @$start +%FT%TZ),$(date -u -d @$end +%FT%TZ),1"
  done
} > "$data/jobs.csv"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 15s\n' > "$data/prometheus.yml"
prometheus --config.file="$data/prometheus.yml" --storage.tsdb.path="$data/tsdb" \
  --web.listen-address="127.0.0.1:$port" --storage.tsdb.retention.time=100y >"$data/prometheus.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
url="http://127.0.0.1:$port"
until curl -sf "$url/-/ready" >/dev/null; do sleep 0.5; done

since=$(date -u -d @$start +%FT%TZ)
until_=$(date -u -d @$end +%FT%TZ)
raw_pull() {
  # The samples themselves: every series at its own one-minute step, 10,000 points a query.
  local from=$((start + 60)) bytes=0 queries=0
  while [ "$from" -le "$end" ]; do
    local to=$((from + 9999 * 60)); [ "$to" -gt "$end" ] && to=$end
    b=$(curl -s -o /dev/null -w '%{size_download}' "$url/api/v1/query_range" \
      --data-urlencode 'query=DCGM_FI_PROF_GR_ENGINE_ACTIVE' --data-urlencode "start=$from" \
      --data-urlencode "end=$to" --data-urlencode step=60)
    bytes=$((bytes + b)); queries=$((queries + 1)); from=$((to + 60))
  done
  echo "$bytes $queries"
}
for round in $(seq "$rounds"); do
  t0=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$data/rss" "$target/gpuplan" audit "$data/jobs.csv" --since "$since" --until "$until_" \
    --prometheus "$url" --format json > "$data/audit.json"
  t1=$(date +%s.%N)
  read -r raw_bytes raw_queries < <(raw_pull)
  t2=$(date +%s.%N)
  pulled=$(python3 -c 'import json,sys,re; r=json.load(open(sys.argv[1])); n=[x for x in r["measurement_notes"] if "bytes received" in x][0]; print(re.sub(r"[^0-9 ]","",n.split(" queries")[0]).strip(), re.sub(r"[^0-9]","",n.split(", ")[-1]))' "$data/audit.json")
  printf 'round %d: gpuplan %.2f s, peak RSS %d KiB, queries+bytes %s | raw samples %.2f s, %d queries, %d bytes\n' \
    "$round" "$(echo "$t1 - $t0" | bc)" "$(cat "$data/rss")" "$pulled" "$(echo "$t2 - $t1" | bc)" "$raw_queries" "$raw_bytes"
done
