#!/usr/bin/env bash
# The audit benchmark of README.md ("Performance"): `gpuplan audit` of a generated
# 10,000,000-row job log against the engine floor (a plain Polars scan and group-by of the
# same file, examples/polars_floor.rs) and DuckDB (when `python3 -c 'import duckdb'` works:
# `pip install duckdb`) running bench/duckdb_audit.sql, the same validation, classification
# and per-class sums, and, for reference, a bare count-and-sum group-by. Median of 3 runs;
# peak RSS from /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${BENCH_DATA:-$HOME/.cache/gpuplan/bench}"
runs="${BENCH_RUNS:-3}"
mkdir -p "$data"
file="$data/jobs-10m.csv"
target="${CARGO_TARGET_DIR:-target}/release"
cargo build --release --quiet --bin gpuplan --example polars_floor
[ -s "$file" ] || "$target/gpuplan" sample --jobs 10000000 --days 90 --clusters 8 --seed 11 -o "$file"

cat > "$data/duckdb_groupby.py" <<'PY'
import sys, duckdb
duckdb.sql("""select cluster, count(distinct job_id) jobs,
  sum(gpus * epoch(try_cast("end" as timestamp) - try_cast(start as timestamp)) / 3600) gpu_hours
from read_csv('%s', types={'gpus':'DOUBLE','gpu_util_pct':'DOUBLE','job_id':'VARCHAR','start':'VARCHAR','end':'VARCHAR'},
  ignore_errors=true) group by cluster""" % sys.argv[1]).fetchall()
PY
cat > "$data/duckdb_audit.py" <<'PY'
import sys, duckdb
con = duckdb.connect()
con.execute("SET VARIABLE log = ?", [sys.argv[1]])
con.sql(open(sys.argv[2]).read()).fetchall()
PY

# Prints "median_seconds peak_rss_mib" of `runs` runs of a command.
measure() {
  local times=() rss=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$data/time.txt" "$@" > /dev/null 2>&1
    read -r seconds kib < "$data/time.txt"
    times+=("$seconds")
    rss=$(( kib > rss ? kib : rss ))
  done
  printf '%s %d\n' "$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")" $(( rss / 1024 ))
}

rows=$(( $(wc -l < "$file") - 1 ))
echo "input: $file ($rows rows, $(( $(stat -c %s "$file") / 1000000 )) MB) on $(nproc) cores, $(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576 )) GiB"
printf '%-30s %10s %14s\n' "what" "median s" "peak RSS MiB"
read -r s m < <(measure "$target/gpuplan" audit "$file" --format json)
printf '%-30s %10s %14s\n' "gpuplan audit" "$s" "$m"
read -r s m < <(measure "$target/examples/polars_floor" "$file")
printf '%-30s %10s %14s\n' "Polars floor (streaming)" "$s" "$m"
if python3 -c 'import duckdb' 2>/dev/null; then
  version=$(python3 -c 'import duckdb; print(duckdb.__version__)')
  read -r s m < <(measure python3 "$data/duckdb_audit.py" "$file" bench/duckdb_audit.sql)
  printf '%-30s %10s %14s\n' "DuckDB $version, same audit" "$s" "$m"
  read -r s m < <(measure python3 "$data/duckdb_groupby.py" "$file")
  printf '%-30s %10s %14s\n' "DuckDB $version, group-by" "$s" "$m"
else
  echo "DuckDB: not installed (pip install duckdb)"
fi
