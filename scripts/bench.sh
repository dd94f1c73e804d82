#!/usr/bin/env bash
# tracelint benchmark: scan time and peak memory against the sqlite3 floor
# (reading every message byte once), measured in the same run, on generated
# Peri databases. Prints medians and ratios.
#
# Needs the Rust toolchain, sqlite3 and GNU time:
#   apt-get install sqlite3 time
# Knobs: CALLS (default 1000000), RUNS (default 5), BENCH_DIR (default target/bench).
# The databases are generated once (deterministic, seed 1) and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS="${CALLS:-1000000}"
RUNS="${RUNS:-5}"
DIR="${BENCH_DIR:-target/bench}"
mkdir -p "$DIR"
for tool in sqlite3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing (apt-get install sqlite3 time)" >&2; exit 2; }
done
cargo build --release --quiet
BIN="$PWD/target/release/tracelint"

gen() { # name calls
  if [ ! -f "$DIR/$1.db" ]; then
    "$BIN" generate peri-large "$DIR/$1.db.tmp" --calls "$2" --seed 1 >/dev/null
    mv "$DIR/$1.db.tmp" "$DIR/$1.db"
  fi
}

median() { sort -g | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); print v[m] }'; }

# measure LABEL CMD...: RUNS runs after one warm-up; sets WALL (s) and RSS (MB), medians.
measure() {
  local walls=() rss=() out
  "$@" >/dev/null 2>&1 || true
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$DIR/time.out" "$@" >/dev/null 2>&1 || true
    out=$(tail -n 1 "$DIR/time.out")
    walls+=("${out% *}")
    rss+=("${out#* }")
  done
  WALL=$(printf '%s\n' "${walls[@]}" | median)
  RSS=$(printf '%s\n' "${rss[@]}" | median | awk '{ printf "%.0f", $1 / 1024 }')
}

echo "tracelint benchmark · $(date -u +%Y-%m-%dT%H:%MZ) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) · $RUNS runs, medians, warm cache"
printf '%-22s %9s %9s %10s %9s %7s %10s %10s\n' database calls MB floor_s scan_s ratio scan_RSS floor_RSS
for spec in "small:1000" "quarter:$((CALLS / 4))" "full:$CALLS"; do
  name="${spec%%:*}"
  calls="${spec#*:}"
  gen "$name" "$calls"
  db="$DIR/$name.db"
  mb=$(du -m "$db" | cut -f1)
  measure sqlite3 "$db" "SELECT sum(length(content)) FROM messages"
  floor="$WALL"; floor_rss="$RSS"
  measure "$BIN" scan "$db" --format json
  ratio=$(awk -v a="$WALL" -v b="$floor" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
  printf '%-22s %9s %9s %10s %9s %7s %8sMB %8sMB\n' "$name" "$calls" "$mb" "$floor" "$WALL" "$ratio" "$RSS" "$floor_rss"
done
# Start-up: the whole scan of the 1,000-call database, in milliseconds.
measure "$BIN" scan "$DIR/small.db" --format json
echo "start-up (1,000-call database, whole scan): $(awk -v s="$WALL" 'BEGIN { printf "%.0f", s * 1000 }') ms (target < 50 ms)"
echo "targets: scan of the full database <= 1.5x the floor, peak RSS <= 200 MB and flat from quarter to full"

# JSONL import: a generated Claude Code transcript, into a fresh database each run.
IMPORT_CALLS="${IMPORT_CALLS:-$((CALLS / 20))}"
for spec in "quarter:$((IMPORT_CALLS / 4))" "full:$IMPORT_CALLS"; do
  name="${spec%%:*}"
  calls="${spec#*:}"
  src="$DIR/claude-$name"
  if [ ! -f "$src/session.jsonl" ]; then
    mkdir -p "$src.tmp"
    "$BIN" generate claude-code-large "$src.tmp/session.jsonl" --calls "$calls" --seed 1 >/dev/null
    mv "$src.tmp" "$src"
  fi
  mb=$(du -m "$src/session.jsonl" | cut -f1)
  measure sh -c "rm -f '$DIR/import.db' && '$BIN' import '$src' --into '$DIR/import.db'"
  rate=$(awk -v m="$mb" -v s="$WALL" 'BEGIN { printf "%.0f", (s > 0 ? m / s : 0) }')
  echo "import $name: $calls calls, $mb MB of JSONL in $WALL s = $rate MB/s, peak RSS $RSS MB (target >= 100 MB/s, flat memory)"
done
rm -f "$DIR/import.db"
