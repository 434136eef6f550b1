#!/usr/bin/env bash
# Real SQL engines for the "audit over SQL" tests, from package registries only (npm, PyPI):
#
#   $DEST/duckdb-1.4/lib/libduckdb.so       DuckDB 1.4.5, the long-term-support line; ADBC entrypoint
#                                           `duckdb_adbc_init` (npm @duckdb/node-bindings-linux-x64, package/libduckdb.so)
#   $DEST/duckdb-1.5/lib/libduckdb.so       DuckDB 1.5.6, the newest npm carries (the same package)
#   $DEST/duckdb-2.0/lib/libduckdb.so       DuckDB 2.0.1, the newest PyPI carries. No C library is published for
#                                           2.0: this is the Python wheel's extension module (_duckdb.cpython-*.so),
#                                           which holds all of DuckDB and exports `duckdb_adbc_init`. Its Python
#                                           data (PyExc_*, _Py_NoneStruct) is bound when it is opened, so a
#                                           process without libpython (gpuplan) opens it with libpython preloaded:
#                                           LD_PRELOAD="$(cat $DEST/duckdb-2.0/preload)" (the venv's libpython)
#   $DEST/lib/libduckdb.so                  the default DuckDB (gpuplan looks here first): a link to the LTS
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
# Every DuckDB line the warehouse tests run on (line, registry, version); the first is the default.
DUCKDB_LINES=(
  "1.4 npm 1.4.5-r.1"   # DuckDB v1.4.5, the long-term-support line
  "1.5 npm 1.5.6-r.1"   # DuckDB v1.5.6, the newest npm carries
  "2.0 pypi 2.0.1"      # DuckDB v2.0.1, the newest PyPI carries (the wheel's extension module)
)
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

# 1. The venv (also provides the pip that fetches the ADBC drivers' and DuckDB 2.0's wheels).
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

# 2. ADBC drivers from their wheels: the .so inside each (no install). Flight SQL's is Go-built
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

# 3. DuckDB, each line in its own folder: npm's tarball carries package/libduckdb.so beside
#    package/duckdb.node; PyPI's wheel (a zip) carries _duckdb.cpython-*.so.
duckdb_line() { # line registry version
  local line="$1" registry="$2" version="$3" dir="$DEST/duckdb-$1/lib" work="$tmp/duckdb-$1"
  if stamp_ok "duckdb-$line" "$registry:$version" && [[ -f "$dir/libduckdb.so" ]] && check_lib "$dir/libduckdb.so" duckdb_adbc_init \
    && { [[ "$registry" != pypi ]] || [[ -f "$(cat "$DEST/duckdb-$line/preload" 2>/dev/null)" ]]; }; then
    echo "== duckdb $line: $version already in $dir/libduckdb.so"
    return
  fi
  mkdir -p "$dir" "$work"
  case "$registry" in
    npm)
      echo "== duckdb $line: npm pack $DUCKDB_NPM_PKG@$version"
      local tgz
      tgz="$(cd "$work" && npm pack --silent "$DUCKDB_NPM_PKG@$version" | tail -n 1)"
      tar -xzf "$work/$tgz" -C "$work" package/libduckdb.so
      mv -f "$work/package/libduckdb.so" "$work/libduckdb.so"
      ;;
    pypi)
      echo "== duckdb $line: pip download duckdb==$version"
      "$DEST/venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-input \
        --no-deps --only-binary=:all: --dest "$work" "duckdb==$version"
      "$DEST/venv/bin/python" - "$work" <<'EOF'
import glob, shutil, sys, zipfile
(whl,) = glob.glob(f"{sys.argv[1]}/duckdb-*.whl")
with zipfile.ZipFile(whl) as z:
    (member,) = [n for n in z.namelist() if n.startswith("_duckdb.") and n.endswith(".so")]
    with z.open(member) as src, open(f"{sys.argv[1]}/libduckdb.so", "wb") as dst:
        shutil.copyfileobj(src, dst)
EOF
      # The module refers to Python's data (PyExc_ImportError, _Py_NoneStruct), which the
      # loader binds when the library is opened: a process without libpython (gpuplan) opens
      # it with the venv's libpython preloaded (LD_PRELOAD). Its path goes in `preload`.
      "$DEST/venv/bin/python" - >"$work/preload" <<'EOF'
import os, sysconfig
name = sysconfig.get_config_var("INSTSONAME")
folders = [sysconfig.get_config_var("LIBDIR"), "/usr/lib/x86_64-linux-gnu", "/usr/local/lib", "/usr/lib"]
found = [os.path.join(f, name) for f in folders if f and os.path.isfile(os.path.join(f, name))]
if not found:
    raise SystemExit(f"engines.sh: DuckDB 2.0's module needs {name} (Debian: apt-get install libpython3.X)")
print(found[0])
EOF
      ;;
  esac
  check_lib "$work/libduckdb.so" duckdb_adbc_init
  mv -f "$work/libduckdb.so" "$dir/libduckdb.so"
  if [[ -f "$work/preload" ]]; then mv -f "$work/preload" "$DEST/duckdb-$line/preload"; fi
  echo "$registry:$version" >"$DEST/.stamp-duckdb-$line"
}
for entry in "${DUCKDB_LINES[@]}"; do
  read -r line registry version <<<"$entry"
  duckdb_line "$line" "$registry" "$version"
done
# The default DuckDB, where gpuplan looks for `duckdb` first: the first line, linked (replacing
# the file an older engines.sh put there).
default_line="${DUCKDB_LINES[0]%% *}"
ln -sfn "../duckdb-$default_line/lib/libduckdb.so" "$DEST/lib/libduckdb.so.new"
mv -fT "$DEST/lib/libduckdb.so.new" "$DEST/lib/libduckdb.so"
rm -f "$DEST/.stamp-duckdb"

echo "== engines in $DEST ($(du -sh "$DEST" --exclude=.tmp.* | cut -f1)):"
for entry in "${DUCKDB_LINES[@]}"; do
  echo "   $DEST/duckdb-${entry%% *}/lib/libduckdb.so  (DuckDB ${entry##* }; entrypoint duckdb_adbc_init; db option path)"
done
echo "   $DEST/lib/libduckdb.so  (the default: a link to DuckDB $default_line)"
echo "   $DEST/lib/libadbc_driver_flightsql.so  (ADBC $ADBC_VERSION; entrypoint AdbcDriverInit; db option uri)"
echo "   $DEST/lib/libadbc_driver_postgresql.so  (ADBC $ADBC_VERSION; entrypoint AdbcDriverInit; db option uri)"
echo "   $DEST/venv/bin/sail  ($("$DEST/venv/bin/sail" --version); sail flight server --ip 127.0.0.1 --port N -C DIR)"
