#!/usr/bin/env bash
# Real SQL engines for the "audit over SQL" tests, from package registries only (npm, PyPI):
#
#   $DEST/lib/libduckdb.so                  DuckDB's C library; ADBC entrypoint `duckdb_adbc_init`
#                                           (npm @duckdb/node-bindings-linux-x64, file package/libduckdb.so)
#   $DEST/lib/libadbc_driver_flightsql.so   ADBC Flight SQL driver (Go, static); entrypoint `AdbcDriverInit`
#                                           (PyPI adbc-driver-flightsql wheel, adbc_driver_flightsql/libadbc_driver_flightsql.so)
#   $DEST/lib/libadbc_driver_postgresql.so  ADBC PostgreSQL driver (C++, libpq inside); entrypoint `AdbcDriverInit`
#                                           (PyPI adbc-driver-postgresql wheel)
#   $DEST/venv/bin/sail                     Sail (PyPI pysail), a Spark-SQL engine on DataFusion with a Flight SQL
#                                           server: `sail flight server --ip 127.0.0.1 --port N -C DIR`
#
# Usage: .ci/engines.sh [DEST]   (DEST defaults to $HOME/.cache/gpuplan/engines)
# Idempotent: a second run with the same pins checks what is there and downloads nothing.
# Needs: npm (node 18+), tar, python3 (3.9+) with its venv module: on Debian 12 `apt-get install npm python3-venv`
# where missing. x86_64 Linux, glibc >= 2.25 and libstdc++6 (libduckdb.so wants GLIBCXX_3.4.22 at most).
set -euo pipefail

DEST="${1:-$HOME/.cache/gpuplan/engines}"
PYTHON="${PYTHON:-python3}"

DUCKDB_NPM_PKG="@duckdb/node-bindings-linux-x64"
DUCKDB_NPM_VERSION="1.4.5-r.1"     # DuckDB v1.4.5 (LTS; 1.5.x stalls on the audit at millions of rows)
DUCKDB_VERSION="v1.4.5"
ADBC_VERSION="1.13.0"              # ADBC release matching the Rust crates adbc_* 0.25
PYSAIL_VERSION="0.7.2"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "engines.sh: only Linux x86_64 is supported (got $(uname -s)-$(uname -m))" >&2; exit 1 ;;
esac
for tool in npm tar "$PYTHON"; do
  command -v "$tool" >/dev/null || { echo "engines.sh: '$tool' not found (Debian: apt-get install npm python3-venv)" >&2; exit 1; }
done

mkdir -p "$DEST/lib"
DEST="$(cd "$DEST" && pwd)"
tmp="$(mktemp -d "$DEST/.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# Load a shared library with dlopen (ctypes) and resolve its ADBC entrypoint; prints nothing on success.
check_lib() { # path symbol
  "$PYTHON" - "$1" "$2" <<'EOF'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
getattr(lib, sys.argv[2])
EOF
}

stamp_ok() { # name value
  [[ -f "$DEST/.stamp-$1" && "$(cat "$DEST/.stamp-$1")" == "$2" ]]
}

# 1. DuckDB (npm tarball: package/libduckdb.so next to package/duckdb.node).
duck_stamp="$DUCKDB_NPM_PKG@$DUCKDB_NPM_VERSION"
if stamp_ok duckdb "$duck_stamp" && [[ -f "$DEST/lib/libduckdb.so" ]] && check_lib "$DEST/lib/libduckdb.so" duckdb_adbc_init; then
  echo "== duckdb: $DUCKDB_VERSION already in $DEST/lib/libduckdb.so"
else
  echo "== duckdb: npm pack $duck_stamp"
  mkdir -p "$tmp/npm"
  tgz="$(cd "$tmp/npm" && npm pack --silent "$duck_stamp" | tail -n 1)"
  tar -xzf "$tmp/npm/$tgz" -C "$tmp/npm" package/libduckdb.so
  check_lib "$tmp/npm/package/libduckdb.so" duckdb_adbc_init
  mv -f "$tmp/npm/package/libduckdb.so" "$DEST/lib/libduckdb.so"
  echo "$duck_stamp" >"$DEST/.stamp-duckdb"
fi

# 2. The venv (also provides the pip that fetches the Flight SQL driver's wheel).
if [[ -x "$DEST/venv/bin/sail" ]] && [[ "$("$DEST/venv/bin/sail" --version 2>/dev/null)" == "sail $PYSAIL_VERSION" ]]; then
  echo "== sail: pysail $PYSAIL_VERSION already in $DEST/venv"
else
  echo "== sail: pip install pysail==$PYSAIL_VERSION into $DEST/venv"
  rm -rf "$DEST/venv"
  "$PYTHON" -m venv "$DEST/venv"
  "$DEST/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --only-binary=:all: "pysail==$PYSAIL_VERSION"
  [[ "$("$DEST/venv/bin/sail" --version)" == "sail $PYSAIL_VERSION" ]]
fi

# 3. ADBC drivers from their wheels: the .so inside each (no install). Flight SQL's is Go-built
#    and needs only libc; PostgreSQL's carries libpq and needs libstdc++.
adbc_driver() { # name (flightsql | postgresql)
  local name="$1" stamp="adbc-driver-$1==$ADBC_VERSION" lib="libadbc_driver_$1.so"
  if stamp_ok "$name" "$stamp" && [[ -f "$DEST/lib/$lib" ]] && check_lib "$DEST/lib/$lib" AdbcDriverInit; then
    echo "== $name: ADBC $ADBC_VERSION already in $DEST/lib/$lib"
    return
  fi
  echo "== $name: pip download $stamp"
  "$DEST/venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-input \
    --no-deps --only-binary=:all: --dest "$tmp/whl-$name" "$stamp"
  "$DEST/venv/bin/python" - "$tmp/whl-$name" "$name" <<'EOF'
import glob, sys, zipfile
(whl,) = glob.glob(f"{sys.argv[1]}/adbc_driver_{sys.argv[2]}-*.whl")
with zipfile.ZipFile(whl) as z:
    z.extract(f"adbc_driver_{sys.argv[2]}/libadbc_driver_{sys.argv[2]}.so", sys.argv[1])
EOF
  check_lib "$tmp/whl-$name/adbc_driver_$name/$lib" AdbcDriverInit
  mv -f "$tmp/whl-$name/adbc_driver_$name/$lib" "$DEST/lib/$lib"
  echo "$stamp" >"$DEST/.stamp-$name"
}
adbc_driver flightsql
adbc_driver postgresql

echo "== engines in $DEST ($(du -sh "$DEST" --exclude=.tmp.* | cut -f1)):"
echo "   $DEST/lib/libduckdb.so  (DuckDB $DUCKDB_VERSION; entrypoint duckdb_adbc_init; db option path)"
echo "   $DEST/lib/libadbc_driver_flightsql.so  (ADBC $ADBC_VERSION; entrypoint AdbcDriverInit; db option uri)"
echo "   $DEST/lib/libadbc_driver_postgresql.so  (ADBC $ADBC_VERSION; entrypoint AdbcDriverInit; db option uri)"
echo "   $DEST/venv/bin/sail  ($("$DEST/venv/bin/sail" --version); sail flight server --ip 127.0.0.1 --port N -C DIR)"
