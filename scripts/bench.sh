#!/usr/bin/env bash
# falseok benchmark: scan time and peak memory against the sqlite3 floor
# (reading every message byte once), measured in the same run, on generated
# Peri databases: large messages (`cargo xtask bench-db peri-large`, about
# 2 KB a message), small ones (`--profile small`: about 650 bytes a
# message, 2,500 sessions, 8 written at a time) and the shape issue 26
# describes (large profile, 8 sessions at a time, results log-normal around
# 650 bytes: about 2 GB a million calls). Prints medians and ratios.
#
# Needs the Rust toolchain, sqlite3, GNU time and valgrind (callgrind counts
# the scan's instructions, a figure that does not move from run to run as
# timings on a shared machine do), and PyPI for orjson (the JSONL scans'
# independent floor, in target/ci-venv through scripts/ci-python.sh):
#   apt-get install sqlite3 time valgrind
# Knobs: CALLS (large-message database, default 1000000), SMALL_CALLS
# (small-message database, default CALLS * 1.325: about 2 million messages at
# the default), JSONL_CALLS (Claude Code folder, default CALLS / 20), RUNS
# (default 5), BENCH_DIR (default target/bench), SCALE_CALLS (the scaling
# cases, one session and repeated ids: N and 10 N calls, default CALLS / 50), BIG_CALLS (the
# memory case: a Claude Code folder of about 6 GB at the default 1100000,
# scanned once; 0 skips it).
# The databases and transcripts are generated once (deterministic, seed 1)
# and reused; their names carry their size.
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS="${CALLS:-1000000}"
SMALL_CALLS="${SMALL_CALLS:-$((CALLS * 53 / 40))}"
RUNS="${RUNS:-5}"
DIR="${BENCH_DIR:-target/bench}"
mkdir -p "$DIR"
GUARD_ONLY="${GUARD_ONLY:-0}"
if [ "$GUARD_ONLY" != 1 ]; then
  for tool in sqlite3 /usr/bin/time valgrind; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is missing (apt-get install sqlite3 time valgrind)" >&2; exit 2; }
  done
  PY=$(bash scripts/ci-python.sh orjson:orjson)
fi
cargo build --release --quiet
[ "$GUARD_ONLY" = 1 ] || cargo build --release --quiet -p xtask
BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/falseok"
XTASK="${CARGO_TARGET_DIR:-$PWD/target}/release/xtask"

# The guard (docs/guard.md): one hook event per process, as an agent runs
# it, beside a trivial process (`cat`) fed the same payload in the same run;
# latencies read from bash's EPOCHREALTIME (no clock process in between).
# Payloads of 1 KB, 64 KB and 1 MB (a Claude Code PostToolUse whose Bash
# output is that long), on a session whose state already holds 1,000 calls.
# Knobs: GUARD_RUNS (events per size, default 200); GUARD_ONLY=1 runs only
# this part (no databases are generated). Targets: median <= 10x, p99 <= 25x.
guard_bench() {
  local runs="${GUARD_RUNS:-200}" gdir="$DIR/guard" size f i s g c
  rm -rf "$gdir"
  mkdir -p "$gdir"
  local state=(--state-dir "$gdir/state")
  # pct P FILE: the P-th percentile (nearest rank) of the numbers in FILE.
  pct() { sort -g "$2" | awk -v p="$1" '{ v[NR] = $1 } END { r = int((p * NR + 99) / 100); if (r < 1) r = 1; print v[r] }'; }
  # event FILE BYTES EVENT: a Claude Code hook payload of session `bench`.
  event() {
    local out
    out=$(yes 'test parser::case ... ok' | head -c "$2" | tr '\n' ' ' || true)
    printf '{"session_id":"bench","transcript_path":"/x.jsonl","cwd":"/w","permission_mode":"default","hook_event_name":"%s","tool_name":"Bash","tool_input":{"command":"cargo test"},"tool_response":{"stdout":"%s","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_b"}' "$3" "$out" >"$1"
  }
  event "$gdir/ok.json" 100 PostToolUse
  printf '{"session_id":"bench","hook_event_name":"PostToolUseFailure","tool_name":"Edit","tool_input":{"file_path":"/w/a.rs"},"tool_use_id":"toolu_f","error":"String to replace not found in file."}' >"$gdir/fail.json"
  for i in $(seq 500); do
    "$BIN" guard "${state[@]}" <"$gdir/ok.json" >/dev/null
    "$BIN" guard "${state[@]}" <"$gdir/fail.json" >/dev/null
  done
  for size in 1024 65536 1048576; do
    f="$gdir/post-$size.json"
    event "$f" "$size" PostToolUse
    : >"$gdir/guard.us"
    : >"$gdir/floor.us"
    for i in $(seq "$runs"); do
      s=$EPOCHREALTIME
      "$BIN" guard "${state[@]}" <"$f" >/dev/null
      g=$EPOCHREALTIME
      cat <"$f" >/dev/null
      c=$EPOCHREALTIME
      awk -v a="$s" -v b="$g" 'BEGIN { printf "%.0f\n", (b - a) * 1e6 }' >>"$gdir/guard.us"
      awk -v a="$g" -v b="$c" 'BEGIN { printf "%.0f\n", (b - a) * 1e6 }' >>"$gdir/floor.us"
    done
    local gm gp fm fp
    gm=$(pct 50 "$gdir/guard.us"); gp=$(pct 99 "$gdir/guard.us")
    fm=$(pct 50 "$gdir/floor.us"); fp=$(pct 99 "$gdir/floor.us")
    echo "guard, $((size / 1024)) KB payload, 1,000-call session: median $((gm / 1000)).$(( (gm % 1000) / 100 )) ms, p99 $((gp / 1000)).$(( (gp % 1000) / 100 )) ms; floor (cat) median $((fm / 1000)).$(( (fm % 1000) / 100 )) ms, p99 $((fp / 1000)).$(( (fp % 1000) / 100 )) ms; ratio median $(ratio "$gm" "$fm")x, p99 $(ratio "$gp" "$fp")x (targets <= 10x, <= 25x)"
  done
}

# gen FILE PROFILE CALLS [OPTION...]: the database FILE, generated once.
gen() {
  if [ ! -f "$1" ]; then
    rm -f "$1.tmp"
    cargo -q xtask bench-db peri-large "$1.tmp" --profile "$2" --calls "$3" --seed 1 "${@:4}" >/dev/null
    mv "$1.tmp" "$1"
  fi
}

median() { sort -g | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); print v[m] }'; }

# measure CMD...: RUNS runs after one warm-up; sets WALL (s), CPU (user +
# system, s) and RSS (peak, MB), medians.
measure() {
  local walls=() cpus=() rss=() out
  "$@" >/dev/null 2>&1 || true
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %U %S %M" -o "$DIR/time.out" "$@" >/dev/null 2>&1 || true
    read -r w u s m < <(tail -n 1 "$DIR/time.out")
    walls+=("$w")
    cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
    rss+=("$m")
  done
  WALL=$(printf '%s\n' "${walls[@]}" | median)
  CPU=$(printf '%s\n' "${cpus[@]}" | median)
  RSS=$(printf '%s\n' "${rss[@]}" | median | awk '{ printf "%.0f", $1 / 1024 }')
}
# ratio A B: A / B to two decimals (0 when B is 0).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

if [ "$GUARD_ONLY" = 1 ]; then
  echo "falseok guard benchmark · $(date -u +%Y-%m-%dT%H:%MZ) · $(nproc) cores · ${GUARD_RUNS:-200} events a size"
  guard_bench
  exit 0
fi

echo "falseok benchmark · $(date -u +%Y-%m-%dT%H:%MZ) · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs) · $RUNS runs, medians, warm cache"
# read_s: `cargo xtask read-floor`, the rows a scan reads stepped and copied
# on one thread and each message checked as JSON (serde_json, building
# nothing) on another: what any scan built on SQLite and serde_json pays
# before decoding or judging anything. read/floor is its ratio.
# cpu: user + system seconds; cpu_ratio is the scan's over the floor's.
printf '%-22s %9s %9s %10s %9s %7s %9s %9s %9s %10s %10s %8s %10s\n' database calls MB floor_s scan_s ratio floor_cpu scan_cpu cpu_ratio scan_RSS floor_RSS read_s read/floor
# database NAME PROFILE CALLS [TAG OPTION...]: one table row; sets RATIO,
# CPU_RATIO, SCAN_RSS, READ_RATIO and READ_CPU_RATIO (the scan's CPU over
# the read floor's). With a TAG, the OPTIONs change the
# profile (see `cargo xtask bench-db`) and the file name carries the TAG.
database() {
  local db="$DIR/$2-$3${4:+-$4}.db"
  gen "$db" "$2" "$3" "${@:5}"
  mb=$(du -m "$db" | cut -f1)
  measure sqlite3 "$db" "SELECT sum(length(content)) FROM messages"
  floor="$WALL"; floor_cpu="$CPU"; floor_rss="$RSS"
  measure "$XTASK" read-floor "$db"
  read="$WALL"; read_cpu="$CPU"
  READ_RATIO=$(ratio "$read" "$floor")
  measure "$BIN" scan "$db" --format json --no-index
  RATIO=$(ratio "$WALL" "$floor")
  CPU_RATIO=$(ratio "$CPU" "$floor_cpu")
  READ_CPU_RATIO=$(ratio "$CPU" "$read_cpu")
  SCAN_RSS="$RSS"
  printf '%-22s %9s %9s %10s %9s %7s %9s %9s %9s %8sMB %8sMB %8s %10s\n' "$1" "$3" "$mb" "$floor" "$WALL" "$RATIO" "$floor_cpu" "$CPU" "$CPU_RATIO" "$RSS" "$floor_rss" "$read" "$READ_RATIO"
}
database startup large 1000
database quarter large "$((CALLS / 4))"
database full large "$CALLS"
large_ratio="$RATIO"
large_cpu="$CPU_RATIO"
large_rss="$SCAN_RSS"
large_read="$READ_RATIO"
database small-messages small "$SMALL_CALLS"
small_ratio="$RATIO"
small_cpu="$CPU_RATIO"
small_read="$READ_RATIO"
small_read_cpu="$READ_CPU_RATIO"
# The shape issue 26 describes: CALLS calls in about 2 GB, eight sessions
# written at a time, results of mixed sizes (log-normal around 650 bytes).
database issue-shape large "$CALLS" c8r650 --concurrent 8 --result-bytes 650
shape_ratio="$RATIO"
shape_cpu="$CPU_RATIO"
# Start-up: the whole scan of the 1,000-call database, in milliseconds.
measure "$BIN" scan "$DIR/large-1000.db" --format json --no-index
echo "start-up (1,000-call database, whole scan): $(awk -v s="$WALL" 'BEGIN { printf "%.0f", s * 1000 }') ms (target < 50 ms)"
echo "scan / floor: large messages (full) ${large_ratio}x wall, ${large_cpu}x CPU; small messages ${small_ratio}x wall, ${small_cpu}x CPU; issue shape ${shape_ratio}x wall, ${shape_cpu}x CPU (targets: wall <= 1.5x, CPU <= 2.5x)"
echo "peak RSS, full large-message database ($(du -m "$DIR/large-$CALLS.db" | cut -f1) MB): $large_rss MB (target <= 200 MB)"
echo "read and JSON check alone / floor: large messages ${large_read}x, small messages ${small_read}x"
echo "small messages, scan CPU / read floor's CPU (cargo xtask read-floor): ${small_read_cpu}x (target <= 1.8x)"
echo "targets: scan of the full and small-message databases <= 1.5x the floor, peak RSS <= 200 MB and flat from quarter to full"

# Instructions per call (issue 53's deterministic guard): the whole scan of
# a 100,000-call small-message database under callgrind (every thread's
# instructions counted), beside the sqlite3 floor's, also by callgrind.
# The same code gives the same count on a busy machine or a quiet one.
# instructions CMD...: the instructions callgrind counts for CMD.
instructions() {
  rm -f "$DIR/callgrind.out"
  valgrind --tool=callgrind --callgrind-out-file="$DIR/callgrind.out" "$@" >/dev/null 2>&1 || true
  awk '/^(summary|totals):/ { n = $2 } END { printf "%.0f\n", n }' "$DIR/callgrind.out"
}
icalls=100000
idb="$DIR/small-$icalls.db"
gen "$idb" small "$icalls"
scan_i=$(instructions "$BIN" scan "$idb" --format json --no-index)
floor_i=$(instructions sqlite3 "$idb" "SELECT sum(length(content)) FROM messages")
echo "instructions (callgrind), $icalls-call small-message database: scan $((scan_i / 1000000)) M = $((scan_i / icalls)) a call (target <= 24,000); sqlite3 floor $((floor_i / 1000000)) M; $(ratio "$scan_i" "$floor_i")x the floor"

# The index (docs/index.md), on a copy of the full large-message database:
# the cold scan (--no-index), a re-run of the unchanged database through the
# index, and re-runs each after one new session (a busy thread copied under
# a new id, written by sqlite3 before the timed run), as ratios of the cold
# scan measured here (targets: unchanged <= 5%, after a new session <= 10%).
# index_ratios LABEL COLD_S WARM_S NEW_S
index_ratios() {
  echo "index, $1: cold $2 s; unchanged $3 s = $(awk -v a="$3" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? 100 * a / b : 0) }')% of cold (target <= 5%); after one new session $4 s = $(awk -v a="$4" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? 100 * a / b : 0) }')% (target <= 10%)"
}
copy="$DIR/index-copy.db"
idx="$DIR/index"
rm -rf "$idx" "$copy"
cp "$DIR/large-$CALLS.db" "$copy"
# An input changed less than 2 s before a read is read again (the racy rule).
touch -d '1 minute ago' "$copy"
measure "$BIN" scan "$copy" --format json --no-index
cold="$WALL"
"$BIN" scan "$copy" --format json --index "$idx" >/dev/null
measure "$BIN" scan "$copy" --format json --index "$idx"
warm="$WALL"
walls=()
for i in $(seq "$RUNS"); do
  sqlite3 "$copy" "INSERT INTO threads (id, title, cwd, created_at, updated_at)
      SELECT id || '-bench-$i', title, cwd, created_at, updated_at FROM threads
      WHERE id = (SELECT thread_id FROM messages ORDER BY rowid DESC LIMIT 1);
    INSERT INTO messages (message_id, thread_id, role, content)
      SELECT message_id || '-bench-$i', thread_id || '-bench-$i', role, content FROM messages
      WHERE thread_id = (SELECT thread_id FROM messages ORDER BY rowid DESC LIMIT 1) ORDER BY rowid;"
  /usr/bin/time -f "%e %M" -o "$DIR/time.out" "$BIN" scan "$copy" --format json --index "$idx" >/dev/null 2>&1 || true
  out=$(tail -n 1 "$DIR/time.out")
  walls+=("${out% *}")
done
index_ratios "Peri database, $CALLS calls" "$cold" "$warm" "$(printf '%s\n' "${walls[@]}" | median)"
rm -rf "$idx" "$copy"

# JSONL: a generated Claude Code project folder (about 175 calls a session, as
# real folders have), scanned end to end (import into a scratch database and
# scan), beside the floor: a plain JSON parse of the same files on one thread
# (`cargo xtask json-floor`). Then `import` alone, into a fresh database.
JSONL_CALLS="${JSONL_CALLS:-$((CALLS / 20))}"
for spec in "quarter:$((JSONL_CALLS / 4))" "full:$JSONL_CALLS"; do
  name="${spec%%:*}"
  calls="${spec#*:}"
  src="$DIR/claude-folder-v2-$calls"
  if [ ! -d "$src" ]; then
    rm -rf "$src.tmp"
    "$XTASK" bench-db claude-code-large "$src.tmp" --calls "$calls" --sessions "$(( (calls + 174) / 175 ))" --seed 1 >/dev/null
    mv "$src.tmp" "$src"
  fi
  mb=$(du -cm "$src"/*.jsonl | tail -n 1 | cut -f1)
  measure "$XTASK" json-floor "$src"
  floor="$WALL"
  measure "$PY" scripts/orjson-floor.py "$src"
  orjson="$WALL"
  measure "$BIN" scan "$src" --format json --no-index
  rate=$(awk -v m="$mb" -v s="$WALL" 'BEGIN { printf "%.0f", (s > 0 ? m / s : 0) }')
  floor_rate=$(awk -v m="$mb" -v s="$floor" 'BEGIN { printf "%.0f", (s > 0 ? m / s : 0) }')
  times=$(ratio "$WALL" "$floor")
  echo "JSONL scan $name: $calls calls, $mb MB in $(ls "$src" | wc -l) files: $WALL s = $rate MB/s, peak RSS $RSS MB; floor (JSON parse, one thread) $floor s = $floor_rate MB/s; ${times}x the floor (target <= 1.5x, flat memory); orjson floor $orjson s, $(ratio "$WALL" "$orjson")x (target <= 1.5x)"
done
# JSONL, a folder shaped like real ones (`--profile real`): about 225 calls
# a MB, short results with a tail of big ones, prompts and text lines
# between calls, sub-agent files. Same floor, same target.
REAL_CALLS="${REAL_CALLS:-$((JSONL_CALLS * 68 / 50))}"
real="$DIR/claude-real-v2-$REAL_CALLS"
if [ ! -d "$real" ]; then
  rm -rf "$real.tmp"
  "$XTASK" bench-db claude-code-large "$real.tmp" --profile real --calls "$REAL_CALLS" --sessions "$(( (REAL_CALLS + 169) / 170 ))" --seed 1 >/dev/null
  mv "$real.tmp" "$real"
fi
mb=$(du -sm "$real" | cut -f1)
measure "$XTASK" json-floor "$real"
floor="$WALL"
measure "$PY" scripts/orjson-floor.py "$real"
orjson="$WALL"
measure "$BIN" scan "$real" --format json --no-index
times=$(ratio "$WALL" "$floor")
echo "JSONL scan real-shaped: $REAL_CALLS calls, $mb MB in $(find "$real" -name '*.jsonl' | wc -l) files: $WALL s, peak RSS $RSS MB; floor (JSON parse, one thread) $floor s; ${times}x the floor (target <= 1.5x); orjson floor $orjson s, $(ratio "$WALL" "$orjson")x (target <= 1.5x)"
# Reading usage (issue 51): instructions, by callgrind, of a scan of a
# real-shaped folder against the same folder with every `usage` object cut
# out (calls, results and every other byte the same): what reading,
# splitting and pricing each response's tokens costs a scan.
ucalls=20000
ureal="$DIR/claude-real-v2-$ucalls"
if [ ! -d "$ureal" ]; then
  rm -rf "$ureal.tmp"
  "$XTASK" bench-db claude-code-large "$ureal.tmp" --profile real --calls "$ucalls" --sessions "$(( (ucalls + 169) / 170 ))" --seed 1 >/dev/null
  mv "$ureal.tmp" "$ureal"
fi
unused="$DIR/claude-real-nousage-$ucalls"
if [ ! -d "$unused" ]; then
  rm -rf "$unused.tmp"
  cp -r "$ureal" "$unused.tmp"
  find "$unused.tmp" -name '*.jsonl' -print0 | xargs -0 sed -i -E 's/, ?"usage": ?\{[^{}]*\}//g'
  mv "$unused.tmp" "$unused"
fi
with_i=$(instructions "$BIN" scan "$ureal" --format json --no-index)
without_i=$(instructions "$BIN" scan "$unused" --format json --no-index)
echo "reading usage (callgrind), real-shaped folder of $ucalls calls: $((with_i / 1000000)) M with usage, $((without_i / 1000000)) M without: $(ratio "$with_i" "$without_i")x (target <= 1.05x)"
# The index on the full folder: unchanged, then after one new session (a
# copy of a transcript under a new session id). A changed folder is read in
# part: the new file and the file it shares call and line ids with
# (docs/index.md).
touch -d '1 minute ago' "$src"/*.jsonl
measure "$BIN" scan "$src" --format json --no-index
cold="$WALL"
rm -rf "$DIR/index"
"$BIN" scan "$src" --format json --index "$DIR/index" >/dev/null
measure "$BIN" scan "$src" --format json --index "$DIR/index"
warm="$WALL"
first=$(ls "$src"/*.jsonl | sed -n 1p)
id=$(basename "$first" .jsonl)
walls=()
for i in $(seq "$RUNS"); do
  sed "s/$id/$id-bench-$i/g" "$first" > "$src/$id-bench-$i.jsonl"
  touch -d '1 minute ago' "$src/$id-bench-$i.jsonl"
  /usr/bin/time -f "%e %M" -o "$DIR/time.out" "$BIN" scan "$src" --format json --index "$DIR/index" >/dev/null 2>&1 || true
  out=$(tail -n 1 "$DIR/time.out")
  walls+=("${out% *}")
done
rm -f "$src"/*-bench-*.jsonl
rm -rf "$DIR/index"
index_ratios "Claude Code folder, $JSONL_CALLS calls" "$cold" "$warm" "$(printf '%s\n' "${walls[@]}" | median)"

measure sh -c "rm -f '$DIR/import.db' && '$BIN' import '$src' --into '$DIR/import.db'"
echo "import alone, full: $(awk -v m="$mb" -v s="$WALL" 'BEGIN { printf "%.0f", (s > 0 ? m / s : 0) }') MB/s into a new database, peak RSS $RSS MB"
rm -f "$DIR/import.db"

# No quadratic path: the whole input in one session (one Peri thread; one
# Claude Code transcript, whose parent chain is as long as the file), at N
# calls and at 10 N. Time grows about 10x when every step is linear in the
# session's length (target: the 10 N run at most 13x the N run).
N="${SCALE_CALLS:-$((CALLS / 50))}"
# A session is judged whole, so its peak RSS grows with it (shown, no target).
scale_ratio() {
  echo "one session, $1: $2 calls $3 s, $4 calls $5 s: $(awk -v a="$5" -v b="$3" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')x for 10x the calls (target <= 13x); peak RSS $6 -> $7 MB"
}
for n in "$N" "$((N * 10))"; do
  db="$DIR/one-session-$n.db"
  if [ ! -f "$db" ]; then
    rm -f "$db.tmp"
    "$XTASK" bench-db peri-large "$db.tmp" --profile small --calls "$n" --sessions 1 --concurrent 1 --seed 1 >/dev/null
    mv "$db.tmp" "$db"
  fi
  measure "$BIN" scan "$db" --format json --no-index
  eval "peri_$n=$WALL; peri_rss_$n=$RSS"
  src="$DIR/one-transcript-v2-$n"
  if [ ! -d "$src" ]; then
    rm -rf "$src.tmp"
    "$XTASK" bench-db claude-code-large "$src.tmp" --calls "$n" --sessions 1 --seed 1 >/dev/null
    mv "$src.tmp" "$src"
  fi
  measure "$BIN" scan "$src" --format json --no-index
  eval "jsonl_$n=$WALL; jsonl_rss_$n=$RSS"
done
big=$((N * 10))
scale_ratio "Peri database" "$N" "$(eval echo "\$peri_$N")" "$big" "$(eval echo "\$peri_$big")" \
  "$(eval echo "\$peri_rss_$N")" "$(eval echo "\$peri_rss_$big")"
scale_ratio "Claude Code transcript" "$N" "$(eval echo "\$jsonl_$N")" "$big" "$(eval echo "\$jsonl_$big")" \
  "$(eval echo "\$jsonl_rss_$N")" "$(eval echo "\$jsonl_rss_$big")"

# Repeated ids: Qwen Code chats of 20 calls each whose ids start again in
# every session (call_1, call_2, ...), as a local model numbers them; 10 N
# calls are 10 times the sessions sharing each id. Looking an id's sessions
# up in a list made this quadratic (3,000 and 30,000 sessions: 0.86 and
# 162 s for `import`).
for n in "$N" "$((N * 10))"; do
  src="$DIR/repeated-ids-$n"
  if [ ! -d "$src" ]; then
    rm -rf "$src.tmp"
    "$XTASK" bench-db qwen-repeated-ids "$src.tmp" --sessions "$(( (n + 19) / 20 ))" --calls 20 >/dev/null
    mv "$src.tmp" "$src"
  fi
  measure "$BIN" scan "$src" --format json --no-index
  eval "ids_$n=$WALL; ids_rss_$n=$RSS"
done
echo "repeated ids, $((N / 20)) -> $((N / 2)) sessions of 20 calls: $(eval echo "\$ids_$N") s -> $(eval echo "\$ids_$big") s: $(awk -v a="$(eval echo "\$ids_$big")" -v b="$(eval echo "\$ids_$N")" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')x for 10x the calls (target <= 13x); peak RSS $(eval echo "\$ids_rss_$N") -> $(eval echo "\$ids_rss_$big") MB"

# Memory at any size: a Claude Code folder of the bench's shape at about
# 6 GB (BIG_CALLS calls, 175 a session), scanned once beside its floor.
BIG_CALLS="${BIG_CALLS:-1100000}"
if [ "$BIG_CALLS" -gt 0 ]; then
  big="$DIR/claude-folder-v2-$BIG_CALLS"
  if [ ! -d "$big" ]; then
    rm -rf "$big.tmp"
    "$XTASK" bench-db claude-code-large "$big.tmp" --calls "$BIG_CALLS" --sessions "$(( (BIG_CALLS + 174) / 175 ))" --seed 1 >/dev/null
    mv "$big.tmp" "$big"
  fi
  mb=$(du -sm "$big" | cut -f1)
  RUNS=1 measure "$XTASK" json-floor "$big"
  floor="$WALL"
  RUNS=1 measure "$BIN" scan "$big" --format json --no-index
  echo "JSONL scan at $mb MB: $BIG_CALLS calls in $(ls "$big" | wc -l) files: $WALL s ($(ratio "$WALL" "$floor")x the floor, $floor s), peak RSS $RSS MB (target <= 200 MB)"
fi

guard_bench
