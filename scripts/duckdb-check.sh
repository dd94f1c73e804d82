#!/usr/bin/env bash
# A real engine reads the export (issue 15): installs DuckDB from PyPI if it
# is missing, builds tracelint with --features parquet (debug, as the tests
# do; TRACELINT=path/to/tracelint skips the build), and runs
# tests/engines/duckdb_check.py: DuckDB's counts over the NDJSON and Parquet
# exports (plain and partitioned) of every sample equal `scan`'s totals, and
# every DuckDB recipe of docs/export.md runs and agrees with `scan`.
# Closes with "N passed, N failed"; exits non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! python3 -c 'import duckdb' 2>/dev/null; then
    python3 -m pip install --quiet --disable-pip-version-check duckdb 2>&1 | grep -v 'Running pip as the .root. user' || true
    python3 -c 'import duckdb'
fi
if [ -z "${TRACELINT:-}" ]; then
    cargo build --quiet --features parquet
    target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
    TRACELINT="$target/debug/tracelint"
fi
exec python3 tests/engines/duckdb_check.py "$TRACELINT"
