#!/usr/bin/env bash
# The audit benchmark of docs/performance.md: `gpuplan audit` of a generated
# 10,000,000-row job log against the engine floor (a plain Polars scan and group-by of the
# same file, examples/polars_floor.rs) and DuckDB (when `python3 -c 'import duckdb'` works:
# `pip install duckdb`) running bench/duckdb_audit.sql, the same validation, classification
# and per-class sums, and, for reference, a bare count-and-sum group-by. Median of 5 rounds;
# peak RSS from /usr/bin/time. gpuplan runs with --no-cache: every round reads the bytes, as the
# floor and DuckDB do (the reopen from the cache is bench/shapes.sh's "second").
set -euo pipefail
cd "$(dirname "$0")/.."
data="${BENCH_DATA:-$HOME/.cache/gpuplan/bench}"
runs="${BENCH_RUNS:-5}"
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

# The contenders, by label; each round runs every one once, so a slow spell of the machine
# (a shared VM's speed drifts by a fifth over minutes) falls on all of them alike.
case "$file$target$data" in *" "*) echo "bench/audit-10m.sh: paths with spaces are not supported" >&2; exit 2;; esac
labels=("gpuplan audit" "Polars floor (streaming)")
commands=("$target/gpuplan audit --no-cache $file --format json" "$target/examples/polars_floor $file")
if python3 -c 'import duckdb' 2>/dev/null; then
  version=$(python3 -c 'import duckdb; print(duckdb.__version__)')
  labels+=("DuckDB $version, same audit" "DuckDB $version, group-by")
  commands+=("python3 $data/duckdb_audit.py $file bench/duckdb_audit.sql" "python3 $data/duckdb_groupby.py $file")
fi

rows=$(( $(wc -l < "$file") - 1 ))
echo "input: $file ($rows rows, $(( $(stat -c %s "$file") / 1000000 )) MB) on $(nproc) cores, $(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576 )) GiB; $runs rounds"
results="$data/rounds.txt"
: > "$results"
for round in $(seq "$runs"); do
  for i in "${!commands[@]}"; do
    # shellcheck disable=SC2086 # the commands are word lists
    /usr/bin/time -f "%e %M" -o "$data/time.txt" ${commands[$i]} > /dev/null 2>&1
    read -r seconds kib < "$data/time.txt"
    echo "$round $i $seconds $kib" >> "$results"
  done
done

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '%-30s %10s %14s\n' "what" "median s" "peak RSS MiB"
for i in "${!commands[@]}"; do
  s=$(awk -v i="$i" '$2 == i {print $3}' "$results" | median)
  m=$(awk -v i="$i" '$2 == i && $4 > m {m = $4} END {print int(m / 1024)}' "$results")
  printf '%-30s %10s %14s\n' "${labels[$i]}" "$s" "$m"
done
# gpuplan against the floor, round by round (each pair ran back to back).
ratio=$(awk '$2 == 0 {a[$1] = $3} $2 == 1 {f[$1] = $3} END {for (r in a) print a[r] / f[r]}' "$results" | median)
echo "gpuplan audit / Polars floor, median of the rounds' ratios: $(printf '%.2f' "$ratio")"
[ -n "${version:-}" ] || echo "DuckDB: not installed (pip install duckdb)"
