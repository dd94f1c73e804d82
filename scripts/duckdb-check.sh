#!/usr/bin/env bash
# A real engine reads the export (issue 15): installs DuckDB from PyPI into
# target/ci-venv if it is missing there (scripts/ci-python.sh), builds
# falseok with --features parquet (debug, as the tests do;
# FALSEOK=path/to/falseok skips the build), and runs
# tests/engines/duckdb_check.py: DuckDB's counts over the NDJSON and Parquet
# exports (plain and partitioned) of every sample equal `scan`'s totals, and
# every DuckDB recipe of docs/export.md runs and agrees with `scan`.
# Closes with "N passed, N failed"; exits non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."
# DuckDB lives in CI's own virtual environment (scripts/ci-python.sh:
# target/ci-venv), never in the user's Python.
py=$(bash scripts/ci-python.sh duckdb:duckdb)
if [ -z "${FALSEOK:-}" ]; then
    cargo build --quiet --features parquet
    target=$(cargo metadata --format-version 1 --no-deps | "$py" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
    FALSEOK="$target/debug/falseok"
fi
exec "$py" tests/engines/duckdb_check.py "$FALSEOK"
