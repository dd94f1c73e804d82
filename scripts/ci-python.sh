#!/usr/bin/env bash
# The Python of falseok's own CI tools, in a virtual environment of its
# own under the target folder ($CARGO_TARGET_DIR, else target/):
# target/ci-venv, made on first use with `python3 -m venv`. Never the
# user's Python: nothing is installed outside it.
#
#   scripts/ci-python.sh [PACKAGE:MODULE ...]
#
# installs each PACKAGE (from PyPI, with the venv's own pip) whose MODULE
# the venv cannot import yet (a PACKAGE pinned as NAME==VERSION also when
# the venv holds another version), and prints the venv's python on stdout (what
# pip says goes to stderr). `.ci/run` (pyyaml), scripts/duckdb-check.sh
# (duckdb) and scripts/fleet-check.sh (pyspark, chdb) run their Python
# through it; `rm -rf target/ci-venv` starts over.
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
    # NAME==VERSION pins: a venv holding another version gets the pinned one.
    pinned=true
    case "$package" in
      *==*) pinned=$("$py" -c "import importlib.metadata as m; print(str(m.version('${package%%==*}') == '${package#*==}').lower())" 2>/dev/null || echo false) ;;
    esac
    if ! "$pinned" || ! "$py" -c "import $module" 2>/dev/null; then
        # No wheel cache: pyspark alone is a 300 MB download that CI would
        # otherwise keep twice (cache and venv); a CI run once ran out of disk here.
        "$py" -m pip install --quiet --disable-pip-version-check --no-cache-dir "$package" >&2
        "$py" -c "import $module"
    fi
done
# An absolute path: callers may change folder.
(cd "$(dirname "$py")" && echo "$PWD/$(basename "$py")")
