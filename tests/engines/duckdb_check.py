#!/usr/bin/env python3
"""A real engine reads the export: DuckDB (its Python package) loads the
NDJSON and the Parquet export of every sample, plain and partitioned, and its
counts of rows, hidden and flagged errors must equal `falseok scan --format
json` totals. Then every ```sql duckdb block of docs/export.md runs over the
partitioned Parquet export of each sample and its numbers are checked against
the same scan report, so a recipe that stops working fails CI.

Usage: duckdb_check.py FALSEOK_BINARY   (scripts/duckdb-check.sh builds it
and installs DuckDB). Prints one line per failed check and closes with
"N passed, N failed"; exits 1 on any failure.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[2]
# One sample per detected format, blessed from the registry (FormatInfo.sample) by
# the Rust tests (tests/cli/util.rs), and the Peri database after the fix.
SAMPLES = [
    line.strip()
    for line in (ROOT / "tests/golden/samples.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
] + ["sample-traces/peri-postfix.db"]
COLUMNS = json.loads((ROOT / "schema/export-v3.schema.json").read_text())["required"]


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def run(self, name, fn):
        """One check: `fn` returns a list of problems (empty: passed)."""
        try:
            problems = fn()
        except Exception as e:  # a broken query is a failed check, not a crash
            problems = [f"{type(e).__name__}: {e}"]
        if problems:
            self.failed += 1
            print(f"FAIL {name}")
            for p in problems[:20]:
                print(f"    {p}")
        else:
            self.passed += 1
            print(f"ok   {name}")


def falseok(binary, *args, stdout=None):
    out = subprocess.run([binary, *args], cwd=ROOT, stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE)
    if out.returncode != 0:
        raise RuntimeError(f"falseok {' '.join(args)} exited {out.returncode}: {out.stderr.decode()}")
    return out.stdout


def recipes():
    """The ```sql duckdb blocks of docs/export.md, by their `-- recipe:` name."""
    text = (ROOT / "docs/export.md").read_text()
    found = {}
    for block in re.findall(r"^```sql duckdb\n(.*?)^```", text, re.S | re.M):
        m = re.match(r"-- recipe: ([a-z0-9-]+)\n", block)
        if not m:
            raise SystemExit(f"docs/export.md: a duckdb block without a '-- recipe: NAME' first line:\n{block}")
        found[m.group(1)] = block
    return found


def totals_problems(con, relation, t):
    got = con.execute(
        f"SELECT count(*), count_if(hidden), count_if(flagged), count_if(error), count_if(NOT paired) FROM {relation}"
    ).fetchone()
    want = (t["calls"], t["hidden_errors"], t["flagged_errors"], t["errors"], t["unpaired_calls"])
    names = ("rows", "hidden", "flagged", "errors", "unpaired")
    return [f"{n}: duckdb {g}, scan {w}" for n, g, w in zip(names, got, want) if g != w]


def columns_problems(con, relation):
    names = [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()]
    names = [n for n in names if n != "date"]
    return [] if names == COLUMNS else [f"columns {names} != contract {COLUMNS}"]


def partition_problems(con, relation):
    bad = con.execute(
        f"SELECT count(*) FROM {relation} "
        "WHERE date IS DISTINCT FROM CAST(ts AT TIME ZONE 'UTC' AS DATE)"
    ).fetchone()[0]
    return [f"{bad} rows in the wrong date partition"] if bad else []


def hidden_per_tool_per_day(con, sql, report):
    """Summed over days: scan's hidden errors per tool."""
    rows = con.execute(sql).fetchall()
    got = Counter()
    for _date, tool, _calls, _errors, hidden in rows:
        got[tool] += hidden
    want = Counter({t["tool"]: t["hidden_errors"] for t in report["tools"] if t["hidden_errors"]})
    return [] if got == want else [f"per tool: duckdb {dict(got)}, scan {dict(want)}"]


def worst_categories(con, sql, report):
    """Errors and hidden errors of each category: scan's categories summed over tools."""
    rows = con.execute(sql).fetchall()
    errors, hidden = Counter(), Counter()
    for c in report["categories"]:
        errors[c["category"]] += c["errors"]
        hidden[c["category"]] += c["hidden_errors"]
    p = []
    if len(rows) != min(10, len(errors)):
        p.append(f"{len(rows)} categories, scan has {len(errors)}")
    for category, n, h, *_ in rows:
        if (n, h) != (errors[category], hidden[category]):
            p.append(f"{category}: duckdb {n} errors {h} hidden, scan {errors[category]} errors {hidden[category]} hidden")
    ranked = sorted(errors, key=lambda c: (-hidden[c], -errors[c], c))[:10]
    if [r[0] for r in rows] != ranked:
        p.append(f"order {[r[0] for r in rows]} != {ranked}")
    return p


def guard_blind_streaks(con, sql, report):
    """Per tool: scan's streaks at or above the threshold, all hidden; one per finding."""
    rows = con.execute(sql).fetchall()
    got = Counter(r[2] for r in rows)
    streaks = report["streaks"]
    p = []
    if streaks["threshold"] != 5:
        p.append(f"scan's streak threshold is {streaks['threshold']}, the recipe says 5")
    want = Counter(
        {s["tool"]: s["hidden_at_or_above_threshold"] for s in streaks["by_tool"] if s["hidden_at_or_above_threshold"]}
    )
    if got != want:
        p.append(f"per tool: duckdb {dict(got)}, scan {dict(want)}")
    findings = sum(1 for f in report["findings"] if f["rule"] == "guard-blind-streak")
    if len(rows) != findings:
        p.append(f"{len(rows)} streaks, scan has {findings} guard-blind-streak findings")
    return p


PARQUET = "read_parquet('calls/*/*.parquet', hive_partitioning = true)"
NDJSON = "read_ndjson('calls-ndjson/*/*.ndjson', hive_partitioning = true)"


def ndjson_recipe_problems(con, sql):
    """docs/export.md says the recipes read NDJSON with read_ndjson(...) in
    place of read_parquet(...): the same rows come out."""
    if PARQUET not in sql:
        return [f"the recipe does not read {PARQUET}"]
    # read_ndjson infers a UUID column from ids that all look like UUIDs:
    # compare the values as text.
    def text(rows):
        return [tuple(None if v is None else str(v) for v in row) for row in rows]

    parquet = text(con.execute(sql).fetchall())
    ndjson = text(con.execute(sql.replace(PARQUET, NDJSON)).fetchall())
    return [] if parquet == ndjson else [f"parquet {parquet[:3]}... != ndjson {ndjson[:3]}..."]


RECIPE_CHECKS = {
    "hidden-per-tool-per-day": hidden_per_tool_per_day,
    "worst-categories": worst_categories,
    "guard-blind-streaks": guard_blind_streaks,
}


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    binary = str(Path(sys.argv[1]).resolve())
    found = recipes()
    expected = set(RECIPE_CHECKS)
    checks = Checks()
    checks.run("docs/export.md has the checked DuckDB recipes", lambda: sorted(f"missing recipe {r}" for r in expected - found.keys()))
    if expected - found.keys():
        print(f"{checks.passed} passed, {checks.failed} failed")
        return 1
    print(f"duckdb {duckdb.__version__}; recipes: {', '.join(found)}")
    with tempfile.TemporaryDirectory() as tmp:
        for sample in SAMPLES:
            work = Path(tmp) / sample.replace("/", "_")
            work.mkdir()
            report = json.loads(falseok(binary, "scan", sample, "--format", "json"))
            t = report["totals"]
            ndjson = work / "calls.ndjson"
            with open(ndjson, "wb") as f:
                falseok(binary, "export", sample, stdout=f)
            falseok(binary, "export", sample, "--format", "parquet", "--out", str(work / "calls.parquet"))
            falseok(binary, "export", sample, "--format", "parquet", "--out", str(work / "calls"), "--partition")
            falseok(binary, "export", sample, "--out", str(work / "calls-ndjson"), "--partition")
            con = duckdb.connect()
            relations = {
                "ndjson": f"read_ndjson('{ndjson}')",
                "parquet": f"read_parquet('{work / 'calls.parquet'}')",
                "partitioned parquet": f"read_parquet('{work / 'calls'}/*/*.parquet', hive_partitioning = true)",
                "partitioned ndjson": f"read_ndjson('{work / 'calls-ndjson'}/*/*.ndjson', hive_partitioning = true)",
            }
            for kind, relation in relations.items():
                checks.run(
                    f"{sample}: {kind}: rows, hidden, flagged, errors, unpaired equal scan",
                    lambda r=relation: totals_problems(con, r, t),
                )
            checks.run(f"{sample}: parquet: the contract's columns in order", lambda: columns_problems(con, relations["parquet"]))
            checks.run(f"{sample}: ndjson: the contract's columns in order", lambda: columns_problems(con, relations["ndjson"]))
            checks.run(
                f"{sample}: partitioned parquet: every row in the partition of its day",
                lambda: partition_problems(con, relations["partitioned parquet"]),
            )
            # The recipes read 'calls/...' relative to where they run.
            os.chdir(work)
            try:
                for name, check in RECIPE_CHECKS.items():
                    checks.run(
                        f"{sample}: recipe {name} agrees with scan",
                        lambda c=check, n=name: c(con, found[n], report),
                    )
                    checks.run(
                        f"{sample}: recipe {name} over the NDJSON partitions gives the same rows",
                        lambda n=name: ndjson_recipe_problems(con, found[n]),
                    )
            finally:
                os.chdir(ROOT)
            con.close()
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
