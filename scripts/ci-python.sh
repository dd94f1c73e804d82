#!/usr/bin/env bash
# The Python of tracelint's own CI tools, in a virtual environment of its
# own under the target folder ($CARGO_TARGET_DIR, else target/):
# target/ci-venv, made on first use with `python3 -m venv`. Never the
# user's Python: nothing is installed outside it.
#
#   scripts/ci-python.sh [PACKAGE:MODULE ...]
#
# installs each PACKAGE (from PyPI, with the venv's own pip) whose MODULE
# the venv cannot import yet, and prints the venv's python on stdout (what
# pip says goes to stderr). `.ci/run` (pyyaml) and scripts/duckdb-check.sh
# (duckdb) run their Python through it; `rm -rf target/ci-venv` starts over.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
venv="$target/ci-venv"
py="$venv/bin/python"
if [ ! -x "$py" ]; then
    mkdir -p "$target"
    python3 -m venv "$venv" >&2
fi
for want in "$@"; do
    package=${want%%:*}
    module=${want#*:}
    if ! "$py" -c "import $module" 2>/dev/null; then
        "$py" -m pip install --quiet --disable-pip-version-check "$package" >&2
        "$py" -c "import $module"
    fi
done
# An absolute path: callers may change folder.
(cd "$(dirname "$py")" && echo "$PWD/$(basename "$py")")
