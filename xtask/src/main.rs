//! `cargo xtask`: the project's own tools. Never part of the falseok binary.
//!
//! * `cargo xtask samples [--check]`: rewrite the generated samples in
//!   `sample-traces/`, or check that the generator still writes them byte for byte.
//! * `cargo xtask bench-db peri-large OUT [...]`: a large Peri database for
//!   `scripts/bench.sh`.
//! * `cargo xtask bench-db claude-code-large OUT [...]`: a large Claude Code
//!   transcript (JSONL) for the import benchmark.
//! * `cargo xtask json-floor PATH...` and `cargo xtask read-floor DB`: the
//!   floors `scripts/bench.sh` puts beside the JSONL rate and the scan times.
//!
//! The alias in `.cargo/config.toml` runs it in release: a debug build writes
//! the benchmark databases several times slower.

mod claude;
mod corpus;
mod dist;
mod langgraph;
mod large;
mod man;
mod peri;
mod qwen;
mod rng;
mod samples;
mod util;
mod zed;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
usage:
  cargo xtask man [DIR]
      Man pages for falseok and each subcommand, from its command-line
      definition (default DIR: target/man).
  cargo xtask samples [--check]
      Rewrite the generated samples: sample-traces/peri-postmortem.db and
      peri-postfix.db from the Peri generator (seed 2026), langgraph.sql and zed.sql
      (binary rows as hex; build each .db from its .sql with sqlite3). --check writes
      them to a temporary folder instead and fails, naming the file, unless every
      generated sample is reproduced byte for byte.
  cargo xtask bench-db peri-large OUT [--profile large|small] [--calls N] [--seed S]
                   [--result-bytes large|small|MEDIAN] [--sessions N] [--concurrent N]
      A Peri database for scripts/bench.sh (seed 2026 unless --seed).
      --profile large (default): 1,000,000 calls, 4 sessions at a time, results with a
        median near 1 KB and a 0.5% tail of 100-400 KB, every Agent call runs a sub-agent.
      --profile small: about 2 million messages averaging about 650 bytes (1,325,000 calls),
        2,250 root sessions written 8 at a time and about 250 sub-agents.
      The other options change one thing of the profile: --result-bytes the result-size
      distribution (a MEDIAN in bytes: log-normal, no tail), --sessions the number of root
      sessions, --concurrent how many are written at a time.
  cargo xtask bench-db claude-code-large OUT [--profile bench|real] [--calls N] [--seed S] [--sessions N]
      A large Claude Code transcript (JSONL) for the JSONL benchmark; with --sessions N
      (N > 1), OUT is a project folder of N session files sharing the calls.
      --profile real: a folder shaped like real ones (about 225 calls a MB, short
        results with a 2% tail of 20-120 KB, prompts and text lines between calls, one
        session in eight with a sub-agent file).
  cargo xtask bench-db qwen-repeated-ids OUT --sessions N --calls K
      A folder of N Qwen Code chats of K calls each whose call ids start again in every
      session (call_1, call_2, ...), for the bench's repeated-ids case.
  cargo xtask json-floor [--validate-only] PATH...
      The JSONL floor of scripts/bench.sh: parse every line of the *.jsonl files under
      PATH (file or folder) into a serde_json::Value, on one thread, and print lines and
      bytes. --validate-only checks each line is JSON without building anything.
  cargo xtask corpus [--corpus DIR] [--bin PATH] [--agent NAME] [--details] [--rules]
      Measure falseok on the real-trace corpus (corpus/README.md): run
      `falseok export` (default --bin target/release/falseok) over every source of
      corpus/sources.tsv under DIR (default /work/corpus), join the calls to
      corpus/labels/*.tsv, and print per agent and split the hidden-error precision,
      recall and share of `other`; --details lists the tune split's disagreements,
      --rules what each content rule found right and wrong, per agent and split,
      then over the whole corpus with its false alarms on every result labelled ok.
  cargo xtask dist [--target TRIPLE] [--bin PATH] [--out DIR]
      The release artifacts of one target (docs/install.md): the archive
      falseok-VERSION-TRIPLE.tar.gz (.zip on Windows) and its .sha256, the npm packages
      (DIR/npm/falseok and DIR/npm/falseok-PLATFORM) and the Homebrew formula
      (DIR/falseok.rb, for every archive in DIR). The binary is built with
      `cargo build --profile dist --target TRIPLE` unless --bin names one (CI packs the
      binary its tests ran). Defaults: the host's triple, DIR target/distrib.
  cargo xtask formula [--out DIR]
      Only the Homebrew formula, for every archive in DIR (a release gathers every
      runner's archives there first).
  cargo xtask read-floor DB
      The least a reader of a Peri database's messages can do, for scripts/bench.sh:
      the rows falseok reads (rowid, thread, role, content, in rowid order) stepped
      and copied on this thread, each content checked as JSON (serde_json, building
      nothing) on a second thread, in batches as falseok hands them on.
OUT must not exist yet.";

/// Why a command did not succeed: a mistake in the arguments (exit 2) or a
/// failure while doing the work (exit 1).
enum Failure {
    Usage(String),
    Run(String),
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            eprintln!("xtask: {msg}\n(`cargo xtask help` lists the commands)");
            ExitCode::from(2)
        }
        Err(Failure::Run(msg)) => {
            eprintln!("xtask: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match args.first().map(String::as_str) {
        Some("samples") => {
            let opts = Opts::parse(&args[1..], &[], &["check"])?;
            opts.positional(0)?;
            let dir = samples::sample_dir();
            if opts.switch("check") {
                let bad = samples::check(&dir, samples::SAMPLES).map_err(Failure::Run)?;
                if !bad.is_empty() {
                    return Err(Failure::Run(format!(
                        "{}\nThe generator no longer writes the shipped samples. If the change is intended, run \
                         `cargo xtask samples` and commit the new files with their new figures.",
                        bad.join("\n")
                    )));
                }
                println!("samples: every shipped sample is reproduced byte for byte");
                Ok(())
            } else {
                samples::write(&dir, samples::SAMPLES, &mut out).map_err(Failure::Run)
            }
        }
        Some("bench-db") => bench_db(&args[1..], &mut out),
        Some("json-floor") => json_floor(&args[1..], &mut out),
        Some("read-floor") => match &args[1..] {
            [db] => read_floor(std::path::Path::new(db), &mut out),
            _ => Err(Failure::Usage("read-floor takes one Peri database".into())),
        },
        Some("corpus") => {
            let opts = Opts::parse(&args[1..], &["corpus", "bin", "agent"], &["details", "rules"])?;
            opts.positional(0)?;
            let root = PathBuf::from(opts.values.get("corpus").map_or("/work/corpus", String::as_str));
            let bin = PathBuf::from(opts.values.get("bin").map_or("target/release/falseok", String::as_str));
            let meta = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
            let (sources, labels) = corpus::load(&meta).map_err(Failure::Run)?;
            let m = corpus::measure(&root, &bin, &sources, &labels, opts.values.get("agent").map(String::as_str));
            print!("{}", corpus::render(&m, opts.switch("details")));
            if opts.switch("rules") {
                print!("{}", corpus::render_rules(&m));
            }
            Ok(())
        }
        Some("dist") => {
            let opts = Opts::parse(&args[1..], &["target", "bin", "out"], &[])?;
            opts.positional(0)?;
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            let triple = match opts.values.get("target") {
                Some(t) => t.clone(),
                None => dist::host_triple().map_err(Failure::Run)?,
            };
            let target = dist::Target::find(&triple).ok_or_else(|| {
                let known: Vec<&str> = dist::TARGETS.iter().map(|t| t.triple).collect();
                Failure::Usage(format!("--target {triple}: not a release target ({})", known.join(", ")))
            })?;
            let bin = match opts.values.get("bin") {
                Some(b) => PathBuf::from(b),
                None => dist::build(&root, target).map_err(Failure::Run)?,
            };
            let out = PathBuf::from(opts.values.get("out").map_or("target/distrib", String::as_str));
            let w = dist::dist(&root, &bin, target, &out).map_err(Failure::Run)?;
            println!("{}  {}", w.sha256, w.archive.display());
            for p in &w.npm {
                println!("npm package: {}", p.display());
            }
            println!("formula: {}", w.formula.display());
            Ok(())
        }
        Some("formula") => {
            let opts = Opts::parse(&args[1..], &["out"], &[])?;
            opts.positional(0)?;
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
            let out = PathBuf::from(opts.values.get("out").map_or("target/distrib", String::as_str));
            let pkg = dist::Package::read(&root).map_err(Failure::Run)?;
            let rb = dist::homebrew_formula(&pkg, &out).map_err(Failure::Run)?;
            let path = out.join(format!("{}.rb", pkg.name));
            std::fs::write(&path, rb).map_err(|e| Failure::Run(format!("{}: {e}", path.display())))?;
            println!("formula: {}", path.display());
            Ok(())
        }
        Some("man") => {
            let opts = Opts::parse(&args[1..], &[], &[])?;
            let dir = match opts.positionals.as_slice() {
                [] => PathBuf::from("target/man"),
                [one] => PathBuf::from(one),
                more => return Err(Failure::Usage(format!("man takes one folder, got {more:?}"))),
            };
            let pages = man::write(&dir).map_err(|e| Failure::Run(format!("{}: {e}", dir.display())))?;
            println!(
                "man: wrote {} pages to {} (read with `man -l {}/falseok.1`)",
                pages.len(),
                dir.display(),
                dir.display()
            );
            Ok(())
        }
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(Failure::Usage(format!("unknown command `{other}`"))),
        None => Err(Failure::Usage("no command".into())),
    }
}

fn bench_db(args: &[String], out: &mut dyn std::io::Write) -> Result<(), Failure> {
    let kind = args.first().map(String::as_str).unwrap_or_default();
    let opts = if kind == "peri-large" {
        Opts::parse(args, &["calls", "seed", "profile", "result-bytes", "sessions", "concurrent"], &[])?
    } else {
        Opts::parse(args, &["calls", "seed", "sessions", "profile"], &[])?
    };
    let [kind, path] = opts.positional(2)?[..] else { unreachable!() };
    let path = PathBuf::from(path);
    let calls = opts.number("calls", 1_000_000)?;
    let seed = opts.number("seed", 2026)?;
    if path.exists() {
        return Err(Failure::Usage(format!("{}: already exists; bench-db writes a new file only", path.display())));
    }
    let fail = |e: String| {
        // Only what this run created: `path` did not exist before.
        let _ = if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        Failure::Run(format!("{}: cannot write: {e}", path.display()))
    };
    let line = match kind {
        "peri-large" => {
            let shape = peri_large_shape(&opts, seed)?;
            let s = large::generate_large(&path, &shape).map_err(|e| fail(e.to_string()))?;
            format!(
                "wrote {}: {} sessions ({} sub-agent), {} messages, {} calls, {} MB of message JSON",
                path.display(),
                s.threads,
                s.subagent_threads,
                s.messages,
                s.calls,
                s.content_bytes / 1_000_000
            )
        }
        "claude-code-large" => {
            let sessions = opts.number("sessions", 1)?;
            let bytes = match opts.values.get("profile").map_or("bench", String::as_str) {
                "bench" => claude::generate_claude_large(&path, calls, seed, sessions),
                "real" => claude::generate_claude_real(&path, calls, seed, sessions),
                other => return Err(Failure::Usage(format!("unknown profile `{other}` (bench or real)"))),
            }
            .map_err(|e| fail(e.to_string()))?;
            format!(
                "wrote {}: {} calls in {} sessions, {} MB",
                path.display(),
                calls,
                sessions.max(1),
                bytes / 1_000_000
            )
        }
        "qwen-repeated-ids" => {
            let sessions = opts.number("sessions", 1)?;
            let bytes = qwen::generate_repeated_ids(&path, sessions, calls).map_err(|e| fail(e.to_string()))?;
            format!("wrote {}: {sessions} sessions of {calls} calls, {} MB", path.display(), bytes / 1_000_000)
        }
        other => {
            return Err(Failure::Usage(format!(
                "unknown benchmark database `{other}` (peri-large, claude-code-large or qwen-repeated-ids)"
            )));
        }
    };
    writeln!(out, "{line}").map_err(|e| Failure::Run(e.to_string()))
}

/// The shape of a `peri-large` database: the profile's, with the options
/// given on top.
fn peri_large_shape(opts: &Opts, seed: u64) -> Result<large::Shape, Failure> {
    let profile = match opts.values.get("profile") {
        None => large::Profile::Large,
        Some(p) => large::Profile::parse(p)
            .ok_or_else(|| Failure::Usage(format!("--profile {p}: expected `large` or `small`")))?,
    };
    let mut shape = profile.shape(seed);
    shape.calls = opts.number("calls", shape.calls)?;
    if let Some(d) = opts.values.get("result-bytes") {
        shape.result_bytes = large::ResultBytes::parse(d).ok_or_else(|| {
            Failure::Usage(format!("--result-bytes {d}: expected `large`, `small` or a median in bytes (20 or more)"))
        })?;
    }
    if opts.values.contains_key("sessions") {
        shape.sessions = Some(opts.number("sessions", 0)?.max(1));
    }
    shape.concurrent = opts.number("concurrent", shape.concurrent as u64)?.max(1) as usize;
    Ok(shape)
}

/// Parsed arguments: positionals, `--name VALUE` (or `--name=VALUE`) options
/// and `--name` switches, each checked against the names a command accepts.
struct Opts {
    positionals: Vec<String>,
    values: BTreeMap<String, String>,
    switches: Vec<String>,
}

impl Opts {
    fn parse(args: &[String], valued: &[&str], switches: &[&str]) -> Result<Opts, Failure> {
        let mut opts = Opts { positionals: Vec::new(), values: BTreeMap::new(), switches: Vec::new() };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let Some(flag) = arg.strip_prefix("--") else {
                opts.positionals.push(arg.clone());
                continue;
            };
            let (name, inline) = match flag.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (flag, None),
            };
            if switches.contains(&name) && inline.is_none() {
                opts.switches.push(name.to_string());
            } else if valued.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => it.next().cloned().ok_or_else(|| Failure::Usage(format!("--{name} needs a value")))?,
                };
                opts.values.insert(name.to_string(), value);
            } else {
                return Err(Failure::Usage(format!("unknown option `{arg}`")));
            }
        }
        Ok(opts)
    }

    /// Exactly `n` positional arguments.
    fn positional(&self, n: usize) -> Result<Vec<&str>, Failure> {
        if self.positionals.len() != n {
            return Err(Failure::Usage(format!(
                "expected {n} argument(s), got {}: {:?}",
                self.positionals.len(),
                self.positionals
            )));
        }
        Ok(self.positionals.iter().map(String::as_str).collect())
    }

    fn switch(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }

    fn number(&self, name: &str, default: u64) -> Result<u64, Failure> {
        match self.values.get(name) {
            None => Ok(default),
            Some(v) => {
                v.replace('_', "").parse().map_err(|_| Failure::Usage(format!("--{name} {v}: expected a whole number")))
            }
        }
    }
}

/// `cargo xtask json-floor [--validate-only] PATH...`: what a plain JSON
/// parser does with the same JSONL files, the floor the JSONL rate of
/// scripts/bench.sh is put beside: every non-blank line parsed into a
/// `serde_json::Value` (or, validating only, into nothing), on one thread,
/// files in name order.
fn json_floor(args: &[String], out: &mut dyn std::io::Write) -> Result<(), Failure> {
    use std::io::BufRead;
    let validate_only = args.iter().any(|a| a == "--validate-only");
    let paths: Vec<&String> = args.iter().filter(|a| *a != "--validate-only").collect();
    if paths.is_empty() {
        return Err(Failure::Usage("json-floor: no PATH".into()));
    }
    let mut files = Vec::new();
    for a in paths {
        jsonl_files(std::path::Path::new(a), &mut files).map_err(|e| Failure::Run(format!("{a}: {e}")))?;
    }
    files.sort();
    let (mut lines, mut bytes, mut invalid) = (0u64, 0u64, 0u64);
    let mut buf = Vec::new();
    for f in &files {
        let cannot = |e: std::io::Error| Failure::Run(format!("{}: {e}", f.display()));
        let mut reader = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(f).map_err(cannot)?);
        loop {
            buf.clear();
            let n = reader.read_until(b'\n', &mut buf).map_err(cannot)?;
            if n == 0 {
                break;
            }
            bytes += n as u64;
            if buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            lines += 1;
            let ok = if validate_only {
                serde_json::from_slice::<serde::de::IgnoredAny>(&buf).is_ok()
            } else {
                serde_json::from_slice::<serde_json::Value>(&buf).is_ok()
            };
            if !ok {
                invalid += 1;
            }
        }
    }
    writeln!(out, "json-floor: {} files, {lines} lines ({invalid} not JSON), {bytes} bytes", files.len())
        .map_err(|e| Failure::Run(e.to_string()))
}

/// `cargo xtask read-floor DB`: a lower bound for any scan of a Peri
/// database built on SQLite and a serde JSON parser, on 2 threads. It does
/// what falseok's reading does (the same query; content bytes copied
/// into batches of at most 512 rows or 2 MiB) and checks every content as
/// JSON on a second thread, without decoding, judging or counting
/// anything. scripts/bench.sh prints its time beside the scan's.
fn read_floor(db: &std::path::Path, out: &mut dyn std::io::Write) -> Result<(), Failure> {
    let run = |e: &dyn std::fmt::Display| Failure::Run(format!("{}: {e}", db.display()));
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(|e| run(&e))?;
    let mut stmt =
        conn.prepare("SELECT rowid, thread_id, role, content FROM messages ORDER BY rowid").map_err(|e| run(&e))?;
    let mut rows = stmt.query([]).map_err(|e| run(&e))?;
    let (tx, rx) = std::sync::mpsc::sync_channel::<(Vec<std::ops::Range<usize>>, Vec<u8>)>(4);
    let checker = std::thread::spawn(move || {
        let (mut valid, mut invalid) = (0u64, 0u64);
        for (ranges, bytes) in rx {
            for r in ranges {
                match serde_json::from_slice::<serde::de::IgnoredAny>(&bytes[r]) {
                    Ok(_) => valid += 1,
                    Err(_) => invalid += 1,
                }
            }
        }
        (valid, invalid)
    });
    let (mut ranges, mut bytes, mut total) = (Vec::new(), Vec::new(), 0u64);
    let mut threads = std::collections::HashSet::new();
    while let Some(r) = rows.next().map_err(|e| run(&e))? {
        let _rowid: i64 = r.get(0).map_err(|e| run(&e))?;
        let thread = r.get_ref(1).map_err(|e| run(&e))?.as_bytes().unwrap_or_default();
        if !threads.contains(thread) {
            threads.insert(thread.to_vec());
        }
        let _role = r.get_ref(2).map_err(|e| run(&e))?;
        let content = r.get_ref(3).map_err(|e| run(&e))?.as_bytes().unwrap_or_default();
        let start = bytes.len();
        bytes.extend_from_slice(content);
        ranges.push(start..bytes.len());
        total += content.len() as u64;
        if ranges.len() >= 512 || bytes.len() >= 2 << 20 {
            let _ = tx.send((std::mem::take(&mut ranges), std::mem::take(&mut bytes)));
        }
    }
    let _ = tx.send((ranges, bytes));
    drop(tx);
    let (valid, invalid) = checker.join().map_err(|_| run(&"the checking thread failed"))?;
    writeln!(
        out,
        "read-floor: {} messages ({invalid} not JSON), {} sessions, {total} content bytes",
        valid + invalid,
        threads.len()
    )
    .map_err(|e| Failure::Run(e.to_string()))
}

/// The `*.jsonl` files at or under `path`.
fn jsonl_files(path: &std::path::Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !path.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    for entry in std::fs::read_dir(path)? {
        let p = entry?.path();
        if p.is_dir() {
            jsonl_files(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The read floor reads every message and tells JSON from broken rows.
    #[test]
    fn read_floor_counts_every_message_and_the_broken_ones() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("a.db");
        let shape = large::Shape { calls: 1500, ..large::Profile::Small.shape(1) };
        large::generate_large(&db, &shape).unwrap();
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute(
            "UPDATE messages SET content = '{\"role\":' WHERE rowid IN (SELECT rowid FROM messages LIMIT 3)",
            [],
        )
        .unwrap();
        let (messages, sessions, bytes): (i64, i64, i64) = conn
            .query_row(
                "SELECT count(*), count(DISTINCT thread_id), sum(length(CAST(content AS BLOB))) FROM messages",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert!(messages > 1500);
        let mut out = Vec::new();
        if read_floor(&db, &mut out).is_err() {
            panic!("read-floor failed");
        }
        let want =
            format!("read-floor: {messages} messages (3 not JSON), {sessions} sessions, {bytes} content bytes\n");
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }
}
