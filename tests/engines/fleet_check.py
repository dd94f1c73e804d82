#!/usr/bin/env python3
"""The fleet path on real engines: Spark (pyspark, local mode) and ClickHouse
(chDB, the ClickHouse engine in-process) read the Parquet export of every
sample, plain and partitioned, and their counts of rows, hidden and flagged
errors must equal `falseok scan --format json` totals. Then every
```sql clickhouse and ```python spark block of docs/export.md runs over the
partitioned export and its numbers are checked against the same scan report,
so a recipe that stops working fails CI. Every sample is one machine of a
fleet dataset (`calls/host=NAME/date=.../`, as docs/export.md lays out
exports from several machines; the continue sample's calls have no time, so
`date=__HIVE_DEFAULT_PARTITION__` sits beside dated partitions), which must
add up to one `scan` of every sample.

Usage:
  fleet_check.py FALSEOK_BINARY
      export every sample and check it (scripts/fleet-check.sh builds the
      binary and installs pyspark and chdb);
  fleet_check.py --dataset DIR SCAN_JSON
      check an existing Parquet dataset (DIR/**/*.parquet, Hive-partitioned
      by `date`, one level of other partitions at most, e.g. host=) against
      the `scan --format json` report of what it should hold: the function
      `check_dataset` does this for any caller (an incremental export, say).

Prints one line per check ("ok" or "FAIL" with the problems) and closes with
"N passed, N failed"; exits 1 on any failure. One SparkSession (local[2])
serves every check.
"""

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# One sample per detected format, blessed from the registry (FormatInfo.sample) by
# the Rust tests (tests/cli/util.rs), and the Peri database after the fix
# (the same list as tests/engines/duckdb_check.py).
SAMPLES = [
    line.strip()
    for line in (ROOT / "tests/golden/samples.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
] + ["sample-traces/peri-postfix.db"]
COLUMNS = json.loads((ROOT / "schema/export-v3.schema.json").read_text())["required"]
DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
# What the recipes read, relative to the folder they run in.
CLICKHOUSE_FILES = "file('calls/*/*.parquet', Parquet)"
SPARK_READ = 'spark.read.parquet("calls")'
START = 0.0
FALSEOK_SECONDS = 0.0  # time spent in falseok's scans and exports
RECIPE_NAMES = ("hidden-per-tool-per-day", "worst-categories", "guard-blind-streaks")


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def run(self, name, fn):
        """One check: `fn` returns a list of problems (empty: passed)."""
        start = time.monotonic()
        try:
            problems = fn()
        except Exception as e:  # a broken query is a failed check, not a crash
            problems = [f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"]
        took = f" ({time.monotonic() - start:.1f} s)" if time.monotonic() - start >= 1 else ""
        if problems:
            self.failed += 1
            print(f"FAIL {name}{took}", flush=True)
            for p in problems[:20]:
                print(f"    {p}", flush=True)
        else:
            self.passed += 1
            print(f"ok   {name}{took}", flush=True)


def falseok(binary, *args, stdout=None):
    global FALSEOK_SECONDS
    start = time.monotonic()
    out = subprocess.run([binary, *args], cwd=ROOT, stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE)
    if out.returncode != 0:
        raise RuntimeError(f"falseok {' '.join(args)} exited {out.returncode}: {out.stderr.decode()}")
    FALSEOK_SECONDS += time.monotonic() - start
    return out.stdout


def recipes(fence, comment):
    """The ```FENCE blocks of docs/export.md, by their `COMMENT recipe: NAME` first line."""
    text = (ROOT / "docs/export.md").read_text()
    found = {}
    for block in re.findall(rf"^```{re.escape(fence)}\n(.*?)^```", text, re.S | re.M):
        m = re.match(rf"{re.escape(comment)} recipe: ([a-z0-9-]+)\n", block)
        if not m:
            raise SystemExit(f"docs/export.md: a ```{fence} block without a '{comment} recipe: NAME' first line:\n{block}")
        found[m.group(1)] = block
    return found


# ---- what scan says, compared with an engine's rows ------------------------------------


def totals_problems(engine, got, t):
    """`got`: (rows, hidden, flagged, errors, unpaired) as the engine counted them."""
    want = (t["calls"], t["hidden_errors"], t["flagged_errors"], t["errors"], t["unpaired_calls"])
    names = ("rows", "hidden", "flagged", "errors", "unpaired")
    return [f"{n}: {engine} {g}, scan {w}" for n, g, w in zip(names, got, want) if g != w]


def hidden_per_tool_per_day(rows, report):
    """Summed over days: scan's hidden errors per tool, and the total."""
    got = Counter()
    for _date, tool, _calls, _errors, hidden in rows:
        got[tool] += hidden
    want = Counter({t["tool"]: t["hidden_errors"] for t in report["tools"] if t["hidden_errors"]})
    p = [] if got == want else [f"per tool: engine {dict(got)}, scan {dict(want)}"]
    if sum(got.values()) != report["totals"]["hidden_errors"]:
        p.append(f"hidden summed {sum(got.values())}, scan's total {report['totals']['hidden_errors']}")
    return p


def worst_categories(rows, report):
    """Errors and hidden errors of each category: scan's categories summed over tools."""
    errors, hidden = Counter(), Counter()
    for c in report["categories"]:
        errors[c["category"]] += c["errors"]
        hidden[c["category"]] += c["hidden_errors"]
    p = []
    if len(rows) != min(10, len(errors)):
        p.append(f"{len(rows)} categories, scan has {len(errors)}")
    for category, n, h, *_ in rows:
        if (n, h) != (errors[category], hidden[category]):
            p.append(f"{category}: engine {n} errors {h} hidden, scan {errors[category]} errors {hidden[category]} hidden")
    ranked = sorted(errors, key=lambda c: (-hidden[c], -errors[c], c))[:10]
    if [r[0] for r in rows] != ranked:
        p.append(f"order {[r[0] for r in rows]} != {ranked}")
    return p


def guard_blind_streaks(rows, report):
    """Per tool: scan's streaks at or above the threshold, all hidden; one per finding."""
    got = Counter(r[2] for r in rows)
    streaks = report["streaks"]
    p = []
    if streaks["threshold"] != 5:
        p.append(f"scan's streak threshold is {streaks['threshold']}, the recipe says 5")
    want = Counter(
        {s["tool"]: s["hidden_at_or_above_threshold"] for s in streaks["by_tool"] if s["hidden_at_or_above_threshold"]}
    )
    if got != want:
        p.append(f"per tool: engine {dict(got)}, scan {dict(want)}")
    findings = sum(1 for f in report["findings"] if f["rule"] == "guard-blind-streak")
    if len(rows) != findings:
        p.append(f"{len(rows)} streaks, scan has {findings} guard-blind-streak findings")
    return p


RECIPE_CHECKS = {
    "hidden-per-tool-per-day": hidden_per_tool_per_day,
    "worst-categories": worst_categories,
    "guard-blind-streaks": guard_blind_streaks,
}


# ---- ClickHouse (chDB) ----------------------------------------------------------------


class ClickHouse:
    name = "clickhouse"

    def __init__(self):
        from chdb import session

        self.session = session.Session()
        # Int64 as JSON numbers, not strings.
        self.session.query("SET output_format_json_quote_64bit_integers = 0")
        self.version = self.rows("SELECT version()")[0][0]

    def rows(self, sql):
        out = self.session.query(sql.strip().rstrip(";"), "JSONCompact")
        text = str(out)
        return [tuple(r) for r in json.loads(text)["data"]] if text.strip() else []

    def totals(self, files):
        return self.rows(
            f"SELECT count(), countIf(hidden), countIf(flagged), countIf(error), countIf(NOT paired) FROM {files}"
        )[0]

    def columns(self, files):
        names = [r[0] for r in self.rows(f"DESCRIBE {files} SETTINGS use_hive_partitioning = 0")]
        return [] if names == COLUMNS else [f"columns {names} != contract {COLUMNS}"]

    def partition_problems(self, files):
        """The day in the path is the UTC date of `ts`, and no day (the default
        partition) is exactly no `ts`."""
        bad = self.rows(
            f"SELECT count() FROM {files} "
            "WHERE NOT (toDateOrNull(extract(_path, '/date=([^/]+)/')) <=> toDate(ts, 'UTC')) "
            "SETTINGS use_hive_partitioning = 0"
        )[0][0]
        return [f"{bad} rows in the wrong date partition"] if bad else []

    def hive_problems(self, folder, glob, has_dated, has_default):
        """What `use_hive_partitioning = 1` makes of `date=`, as docs/export.md
        says: dated partitions alone read as a Date; the default partition never
        reads as a null date. ClickHouse takes the column's type from the first
        file it lists: from a dated one, `Date`, and every query reading `date`
        fails on the default partition (CANNOT_PARSE_DATE); from the default
        partition, `LowCardinality(String)`, every day as its text."""
        files = f"file('{folder}/{glob}', Parquet)"
        sql = (
            f"SELECT toTypeName(date), toString(date), count() FROM {files} "
            "GROUP BY 1, 2 ORDER BY 2 SETTINGS use_hive_partitioning = 1"
        )
        text = ("LowCardinality(String)", DEFAULT_PARTITION)
        if has_default:
            try:
                rows = self.rows(sql)
            except Exception as e:
                ok = has_dated and "CANNOT_PARSE_DATE" in str(e)
                return [] if ok else [f"unexpected error: {str(e).strip().splitlines()[0]}"]
            kinds = {r[0] for r in rows}
            if text[:1] == tuple(kinds) and text in [r[:2] for r in rows]:
                return []
            return [f"the default partition reads as {rows[-3:]}, not as docs/export.md says (update it)"]
        rows = self.rows(sql)
        bad = [r for r in rows if r[0] != "Date"]
        return [f"dated partitions read as {bad}"] if bad else []

    def recipe(self, sql, folder, glob):
        if CLICKHOUSE_FILES not in sql:
            raise ValueError(f"the recipe does not read {CLICKHOUSE_FILES}")
        return self.rows(sql.replace(CLICKHOUSE_FILES, f"file('{folder}/{glob}', Parquet)"))


# ---- Spark ----------------------------------------------------------------------------


def spark_session(tmp):
    """One quiet local SparkSession, on loopback, in UTC, with few shuffle partitions."""
    warnings.filterwarnings("ignore", category=FutureWarning)  # pyspark 4.3 on pandas 3
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    log4j = Path(tmp) / "log4j2.properties"
    log4j.write_text(
        "rootLogger.level = error\n"
        "rootLogger.appenderRef.stderr.ref = console\n"
        "appender.console.type = Console\n"
        "appender.console.name = console\n"
        "appender.console.target = SYSTEM_ERR\n"
        "appender.console.layout.type = PatternLayout\n"
        "appender.console.layout.pattern = spark: %p %c{1}: %m%n\n"
    )
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName("falseok-fleet-check")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        # A short-lived JVM on 2 cores: the quick JIT tier and the serial
        # collector start faster and leave the other core to the work.
        .config(
            "spark.driver.extraJavaOptions",
            f"-Dlog4j2.configurationFile=file:{log4j} -XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
        )
        .config("spark.sql.warehouse.dir", str(Path(tmp) / "spark-warehouse"))
        .getOrCreate()
    )


class Spark:
    name = "spark"

    def __init__(self, tmp):
        self.spark = spark_session(tmp)
        self.version = self.spark.version

    def read(self, path):
        return self.spark.read.parquet(str(path))

    def totals(self, df):
        from pyspark.sql import functions as F

        row = df.agg(
            F.count("*"),
            F.count_if("hidden"),
            F.count_if("flagged"),
            F.count_if("error"),
            F.count_if(~F.col("paired")),
        ).first()
        return tuple(row)

    def columns(self, df):
        names = [n for n in df.columns if n not in ("date", "host")]
        return [] if names == COLUMNS else [f"columns {names} != contract {COLUMNS}"]

    def partition_problems(self, df, has_dated, has_default):
        """Spark reads `date=` as a DateType column and the default partition as
        null; a dataset of the default partition alone gets a `date` of NullType
        ("void")."""
        from pyspark.sql import functions as F

        p = []
        kind = df.schema["date"].dataType.simpleString()
        want = "date" if has_dated else "void"
        if kind != want:
            p.append(f"date is {kind}, expected {want}")
        bad, nulls, missing = df.agg(
            F.count_if(~F.col("date").eqNullSafe(F.to_date("ts"))),
            F.count_if(F.col("date").isNull()),
            F.count_if(F.col("ts").isNull()),
        ).first()
        if bad:
            p.append(f"{bad} rows whose date is not the UTC date of ts")
        if nulls != missing:
            p.append(f"{nulls} null dates, {missing} rows without ts")
        if has_default and not nulls:
            p.append("the default partition did not read as null dates")
        return p

    def recipe(self, setup, block, folder):
        """Runs the setup block (reading `folder` in place of "calls") and a
        recipe block in one namespace; returns the rows of the one DataFrame the
        recipe defines. Its `.show()` output is swallowed."""
        from pyspark.sql import DataFrame

        if SPARK_READ not in setup:
            raise ValueError(f"the setup block does not read {SPARK_READ}")
        namespace = {}
        with contextlib.redirect_stdout(io.StringIO()):
            exec(setup.replace(SPARK_READ, f"spark.read.parquet({str(folder)!r})"), namespace)
            before = set(namespace)
            exec(block, namespace)
        frames = [v for k, v in namespace.items() if k not in before and isinstance(v, DataFrame)]
        if len(frames) != 1:
            raise ValueError(f"the recipe defines {len(frames)} DataFrames, expected one")
        return [tuple(r) for r in frames[0].collect()]

    def sql_recipe(self, df, sql):
        """A DuckDB recipe through spark.sql, with the substitutions docs/export.md names."""
        df.createOrReplaceTempView("calls")
        duck_read = "read_parquet('calls/*/*.parquet', hive_partitioning = true)"
        if duck_read not in sql:
            raise ValueError(f"the DuckDB recipe does not read {duck_read}")
        sql = sql.replace(duck_read, "calls")
        sql = sql.replace("string_agg(DISTINCT tool, ', ' ORDER BY tool)", "concat_ws(', ', array_sort(collect_set(tool)))")
        return [tuple(r) for r in self.spark.sql(sql.strip().rstrip(";")).collect()]


# ---- one dataset, both engines --------------------------------------------------------


def check_dataset(checks, label, folder, report, clickhouse, spark, docs):
    """Checks one Hive-partitioned Parquet dataset (`folder`, as the export's
    `--out DIR --partition` writes it, with at most one more partition level
    above `date=`) against the scan report of what it holds: totals in both
    engines, the partitions, and every recipe of docs/export.md. `docs` is
    (clickhouse recipes, spark setup, spark recipes, duckdb recipes)."""
    ch_recipes, spark_setup, spark_recipes, duck_recipes = docs
    folder = Path(folder).resolve()
    t = report["totals"]
    depth = min(len(p.relative_to(folder).parts) for p in folder.rglob("*.parquet")) if any(folder.rglob("*.parquet")) else 2
    glob = "/".join(["*"] * (depth - 1) + ["*.parquet"])
    days = {p.name for p in folder.rglob("date=*") if p.is_dir()}
    has_default = f"date={DEFAULT_PARTITION}" in days
    has_dated = bool(days - {f"date={DEFAULT_PARTITION}"})
    files = f"file('{folder}/{glob}', Parquet)"

    if clickhouse:
        checks.run(f"{label}: clickhouse: rows, hidden, flagged, errors, unpaired equal scan",
                   lambda: totals_problems("clickhouse", clickhouse.totals(files), t))
        checks.run(f"{label}: clickhouse: every row in the partition of its day",
                   lambda: clickhouse.partition_problems(files))
        checks.run(f"{label}: clickhouse: use_hive_partitioning = 1 reads date= as docs/export.md says",
                   lambda: clickhouse.hive_problems(folder, glob, has_dated, has_default))
        for name in RECIPE_NAMES:
            checks.run(f"{label}: clickhouse recipe {name} agrees with scan",
                       lambda n=name: RECIPE_CHECKS[n](clickhouse.recipe(ch_recipes[n], folder, glob), report))
    if spark:
        df = spark.read(folder)
        checks.run(f"{label}: spark: rows, hidden, flagged, errors, unpaired equal scan",
                   lambda: totals_problems("spark", spark.totals(df), t))
        checks.run(f"{label}: spark: date= discovered, the default partition as null",
                   lambda: spark.partition_problems(df, has_dated, has_default))
        for name in RECIPE_NAMES:
            checks.run(f"{label}: spark recipe {name} agrees with scan",
                       lambda n=name: RECIPE_CHECKS[n](spark.recipe(spark_setup, spark_recipes[n], folder), report))
            checks.run(f"{label}: duckdb recipe {name} through spark.sql agrees with scan",
                       lambda n=name: RECIPE_CHECKS[n](spark.sql_recipe(df, duck_recipes[n]), report))


def load_docs(checks):
    ch = recipes("sql clickhouse", "--")
    spark = recipes("python spark", "#")
    duck = recipes("sql duckdb", "--")
    want = set(RECIPE_NAMES)
    checks.run("docs/export.md has the checked ClickHouse recipes", lambda: sorted(f"missing recipe {r}" for r in want - ch.keys()))
    checks.run(
        "docs/export.md has the checked Spark recipes and setup",
        lambda: sorted(f"missing recipe {r}" for r in (want | {"setup"}) - spark.keys()),
    )
    checks.run("docs/export.md has the DuckDB recipes Spark SQL runs", lambda: sorted(f"missing recipe {r}" for r in want - duck.keys()))
    if (want - ch.keys()) or ((want | {"setup"}) - spark.keys()) or (want - duck.keys()):
        return None
    return ch, spark["setup"], spark, duck


def host_name(sample):
    """A sample as a machine of the fleet dataset: host=NAME."""
    return Path(sample).name.replace(".", "-")


def samples_main(binary, checks, docs, clickhouse, get_spark, tmp):
    """Every sample is a machine of one fleet dataset, as docs/export.md lays
    out exports from several machines: plain/host=NAME/calls.parquet and
    calls/host=NAME/date=.../part-00000.parquet. ClickHouse, which is quick to
    ask, checks each machine's export and runs every recipe on it; Spark, whose
    every job costs a good part of a second, counts all machines in one job
    per layout and runs the recipes over the whole fleet (the continue sample
    puts the default partition beside dated ones). A combined `scan` of every
    sample is what the whole fleet must add up to."""
    plain_root = Path(tmp) / "plain"
    fleet = Path(tmp) / "fleet" / "calls"
    reports = {}
    for sample in SAMPLES:
        host = host_name(sample)
        report = json.loads(falseok(binary, "scan", sample, "--format", "json"))
        reports[host] = report
        t = report["totals"]
        plain = plain_root / f"host={host}" / "calls.parquet"
        plain.parent.mkdir(parents=True)
        falseok(binary, "export", sample, "--format", "parquet", "--out", str(plain))
        falseok(binary, "export", sample, "--format", "parquet", "--out", str(fleet / f"host={host}"), "--partition")
        files = f"file('{plain}', Parquet)"
        checks.run(f"{sample}: clickhouse: parquet: rows, hidden, flagged, errors, unpaired equal scan",
                   lambda: totals_problems("clickhouse", clickhouse.totals(files), t))
        checks.run(f"{sample}: clickhouse: parquet: the contract's columns in order", lambda: clickhouse.columns(files))
        check_dataset(checks, f"{sample}: partitioned", fleet / f"host={host}", report, clickhouse, None, docs)

    def per_host(df):
        from pyspark.sql import functions as F

        got = {
            r["host"]: tuple(r)[1:]
            for r in df.groupBy("host").agg(
                F.count("*"), F.count_if("hidden"), F.count_if("flagged"), F.count_if("error"), F.count_if(~F.col("paired"))
            ).collect()
        }
        p = [] if set(got) == set(reports) else [f"hosts {sorted(got)} != {sorted(reports)}"]
        for host, report in sorted(reports.items()):
            p += [f"{host}: {x}" for x in totals_problems("spark", got.get(host, (0,) * 5), report["totals"])]
        return p

    spark = get_spark()
    plain_df = spark.read(plain_root)
    checks.run("every sample: spark: parquet: rows, hidden, flagged, errors, unpaired equal scan, machine by machine",
               lambda: per_host(plain_df))
    checks.run("every sample: spark: parquet: the contract's columns in order", lambda: spark.columns(plain_df))
    checks.run("every sample: spark: partitioned: rows, hidden, flagged, errors, unpaired equal scan, machine by machine",
               lambda: per_host(spark.read(fleet)))
    alone = fleet / f"host={host_name('sample-traces/continue')}"
    checks.run("sample-traces/continue: spark: the default partition alone reads as null dates of type void",
               lambda: spark.partition_problems(spark.read(alone), False, True))

    combined = json.loads(falseok(binary, "scan", *SAMPLES, "--format", "json"))
    check_dataset(checks, "fleet of every sample (host=, date=)", fleet, combined, clickhouse, spark, docs)
    checks.run("fleet: spark discovers host= too",
               lambda: [] if sorted(r[0] for r in spark.read(fleet).select("host").distinct().collect()) == sorted(reports)
               else ["host partitions not discovered"])


def main():
    args = sys.argv[1:]
    if not (len(args) == 1 or (len(args) == 3 and args[0] == "--dataset")):
        raise SystemExit(__doc__)
    global START
    START = time.monotonic()
    checks = Checks()
    docs = load_docs(checks)
    if docs is None:
        print(f"{checks.passed} passed, {checks.failed} failed")
        return 1
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(1) as pool:
        import chdb

        clickhouse = ClickHouse()
        print(f"clickhouse {clickhouse.version} (chdb {chdb.__version__})", flush=True)
        # Spark's JVM starts while falseok scans and exports (2 cores).
        start = time.monotonic()
        starting = pool.submit(Spark, tmp)

        def get_spark():
            spark = starting.result()
            print(f"spark {spark.version} (pyspark, local[2]), started in {time.monotonic() - start:.0f} s", flush=True)
            return spark

        def everything():
            if args[0] == "--dataset":
                report = json.loads(Path(args[2]).read_text())
                check_dataset(checks, args[1], args[1], report, clickhouse, get_spark(), docs)
            else:
                samples_main(str(Path(args[0]).resolve()), checks, docs, clickhouse, get_spark, tmp)
            return []

        try:
            # A scan or export that fails, or an engine that does not start,
            # is one failed check, and the closing line is still printed.
            checks.run("every scan, export and engine ran", everything)
        finally:
            starting.result().spark.stop()
    spent = f", {FALSEOK_SECONDS:.0f} s of it in falseok's scans and exports" if FALSEOK_SECONDS else ""
    print(f"{time.monotonic() - START:.0f} s in all{spent}")
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
