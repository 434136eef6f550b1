#!/usr/bin/env bash
# The figures of issue 44 on logs of three shapes (docs/performance.md, "Logs of other shapes"):
#   sample  `gpuplan sample --jobs 10000000 --seed 11` (the project's own generator)
#   short   bench/shapes.py short: millions of one-GPU jobs of minutes, submit column
#   gang    bench/shapes.py gang: gang jobs of 8 to 1,024 GPUs, hours to days, deep queues,
#           several attempts a job
# Per shape and round, every contender runs once, back to back (this shared VM's speed drifts):
#   report   gpuplan report --no-cache --logs FILE --format json
#   audit    gpuplan audit --no-cache FILE --format json        (cold: reads the bytes)
#   first    gpuplan audit FILE, empty cache folder              (reads the bytes, keeps the read)
#   second   gpuplan audit FILE again                           (warm: the cache)
#   floor    examples/polars_floor FILE                         (a bare Polars scan and group-by)
# and prints the median of each round's ratios: report/audit, second/first, audit/floor, with
# the medians of wall seconds and the peak RSS (/usr/bin/time).
#   BENCH_RUNS=3 BENCH_SHAPES="sample short gang" bash bench/shapes.sh
# GPUPLAN=path runs another gpuplan binary (a "before" build) against the same floor.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${BENCH_DATA:-$HOME/.cache/gpuplan/bench}"
runs="${BENCH_RUNS:-3}"
shapes="${BENCH_SHAPES:-sample short gang}"
rows="${BENCH_ROWS:-10000000}"
target="${CARGO_TARGET_DIR:-target}/release"
python="${BENCH_PYTHON:-python3}"
mkdir -p "$data"
cargo build --release --quiet --bin gpuplan --example polars_floor
gpuplan="${GPUPLAN:-$target/gpuplan}"
case "$data$target$gpuplan" in *" "*) echo "bench/shapes.sh: paths with spaces are not supported" >&2; exit 2;; esac

log_of() {
  case "$1" in
    sample) echo "$data/jobs-10m.csv" ;;
    *) echo "$data/jobs-$1-10m.csv" ;;
  esac
}
floor_columns_of() { # the floor's JOB,CLUSTER,START,END,GPUS in each shape's header
  case "$1" in
    sample) echo "job_id,cluster,start,end,gpus" ;;
    short) echo "JobID,Cluster,StartTime,EndTime,NumGPUs" ;;
    gang) echo "job_id,pool,start,end,gpu_count" ;;
  esac
}
for shape in $shapes; do
  file=$(log_of "$shape")
  [ -s "$file" ] && continue
  case "$shape" in
    sample) "$target/gpuplan" sample --jobs "$rows" --days 90 --clusters 8 --seed 11 -o "$file" ;;
    short | gang) "$python" bench/shapes.py "$shape" "$rows" "$file" ;;
    *) echo "bench/shapes.sh: unknown shape $shape" >&2; exit 2 ;;
  esac
done

cache="$data/shapes-cache"
timed() { # label, then the command: appends "label seconds kib" to $results
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o "$data/time.txt" "$@" > /dev/null 2>&1
  read -r seconds kib < "$data/time.txt"
  echo "$label $seconds $kib" >> "$results"
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "gpuplan: $gpuplan; $(nproc) cores, $(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576 )) GiB; $runs rounds"
for shape in $shapes; do
  file=$(log_of "$shape")
  results="$data/shapes-$shape.txt"
  : > "$results"
  for round in $(seq "$runs"); do
    timed "$round report" "$gpuplan" report --no-cache --logs "$file" --format json
    timed "$round audit" "$gpuplan" audit --no-cache "$file" --format json
    rm -rf "$cache"
    GPUPLAN_CACHE_DIR="$cache" timed "$round first" "$gpuplan" audit "$file" --format json
    GPUPLAN_CACHE_DIR="$cache" timed "$round second" "$gpuplan" audit "$file" --format json
    FLOOR_COLUMNS=$(floor_columns_of "$shape") timed "$round floor" "$target/examples/polars_floor" "$file"
  done
  rm -rf "$cache"
  echo "== $shape: $file ($(( $(wc -l < "$file") - 1 )) rows, $(( $(stat -c %s "$file") / 1000000 )) MB)"
  printf '  %-8s %9s %13s\n' "what" "median s" "peak RSS MiB"
  for what in report audit first second floor; do
    s=$(awk -v w="$what" '$2 == w {print $3}' "$results" | median)
    m=$(awk -v w="$what" '$2 == w && $4 > m {m = $4} END {print int(m / 1024)}' "$results")
    printf '  %-8s %9s %13s\n' "$what" "$s" "$m"
  done
  ratio() { # median over rounds of a/b, with the range
    awk -v a="$1" -v b="$2" '$2 == a {x[$1] = $3} $2 == b {y[$1] = $3} END {for (r in x) print x[r] / y[r]}' "$results" |
      sort -n | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f (%.2f-%.2f)", m, v[1], v[NR]}'
  }
  echo "  report/audit $(ratio report audit) (target <= 2)"
  echo "  second/first $(ratio second first) (target <= 0.3)"
  echo "  second/audit $(ratio second audit) (the warm reopen against the --no-cache audit)"
  echo "  audit/floor  $(ratio audit floor) (target <= 1.5)"
done
