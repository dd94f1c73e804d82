#!/usr/bin/env bash
# The fleet path on real engines (issue 23): installs pyspark and chdb, at
# pinned versions, from PyPI into target/ci-venv if they are missing there
# (scripts/ci-python.sh), finds Java 17 or later for Spark, builds falseok
# with --features parquet (debug, as the tests do; FALSEOK=path/to/falseok
# skips the build), and runs tests/engines/fleet_check.py: Spark (local mode)
# and ClickHouse (chDB, in-process) count the Parquet exports of every sample,
# plain and partitioned, exactly as `scan` does, and every ClickHouse and Spark
# recipe of docs/export.md runs and agrees with `scan`.
# Closes with "N passed, N failed"; exits non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned for reproducibility; docs/export.md names the same versions.
PYSPARK=4.3.0
CHDB=4.4.0

# Spark 4 runs on Java 17 or later: $JAVA_HOME if it has one, else the java
# on PATH, else a JDK under /usr/lib/jvm; CI (root, no Java) installs
# Debian's headless JRE.
java_major() { "$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1; }
java_ok() { [ -x "$1/bin/java" ] && [ "$(java_major "$1/bin/java")" -ge 17 ] 2>/dev/null; }
find_java_home() {
    if [ -n "${JAVA_HOME:-}" ] && java_ok "$JAVA_HOME"; then echo "$JAVA_HOME"; return; fi
    if command -v java >/dev/null; then
        local home
        home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
        if java_ok "$home"; then echo "$home"; return; fi
    fi
    local d
    for d in /usr/lib/jvm/java-17-openjdk-* /usr/lib/jvm/java-21-openjdk-* /usr/lib/jvm/*; do
        if java_ok "$d"; then echo "$d"; return; fi
    done
}
home=$(find_java_home)
if [ -z "$home" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >&2
    home=$(find_java_home)
fi
if [ -z "$home" ]; then
    echo "fleet-check: Spark needs Java 17 or later: set JAVA_HOME or install openjdk-17-jre-headless" >&2
    exit 2
fi
export JAVA_HOME=$home

# The engines live in CI's own virtual environment (scripts/ci-python.sh:
# target/ci-venv), never in the user's Python; a venv holding another
# version gets the pinned one.
py=$(bash scripts/ci-python.sh "pyspark==$PYSPARK:pyspark" "chdb==$CHDB:chdb")

if [ -z "${FALSEOK:-}" ]; then
    cargo build --quiet --features parquet
    target=$(cargo metadata --format-version 1 --no-deps | "$py" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
    FALSEOK="$target/debug/falseok"
fi
exec "$py" tests/engines/fleet_check.py "$FALSEOK"
