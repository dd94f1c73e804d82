use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;
use falseok::app::Terminal;
use falseok::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(usage_status(&e));
        }
    };
    // `watch` ends on SIGINT and SIGTERM itself, with status 0 (docs/watch.md).
    end_cleanly_on_signals(matches!(cli.command, Command::Watch(_)));
    let stdout = std::io::stdout();
    // Not locked: export writes from the judging thread.
    let mut out = std::io::BufWriter::new(stdout);
    let mut err = std::io::stderr();
    let terminal = std::io::stdout().is_terminal();
    let term = Terminal {
        color_by_default: terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        // Output fits a terminal, or the width COLUMNS names; other piped
        // output is never cut.
        width: terminal_width(terminal),
        hints: terminal && std::io::stderr().is_terminal(),
    };
    // Every command that reads traces draws the bar (on stderr, a terminal only).
    let scanning = matches!(
        cli.command,
        Command::Scan(_) | Command::Check(_) | Command::Examples(_) | Command::Show(_) | Command::Export(_)
    );
    let bar = (scanning && std::io::stderr().is_terminal()).then(|| std::thread::spawn(draw_progress));
    let result = falseok::app::run(&cli, &term, &mut out, &mut err);
    falseok::app::progress::finish();
    if let Some(bar) = bar {
        let _ = bar.join();
    }
    // The status was decided before the output was written: a reader that
    // went away (`| head`) changes neither a pass nor a failure.
    let result =
        result.and_then(|status| falseok::app::keep_status_on_closed_pipe(status, out.flush().map_err(Into::into)));
    match result {
        Ok(status) => ExitCode::from(status.code()),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(err, "falseok: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// The exit code of a command line clap refused: clap's (2 for an error),
/// except for the hook `falseok guard`, which an agent runs on every tool
/// call and reads 2 from as "block the call": there a mistyped option fails
/// open with 1, like every other problem of the guard (docs/guard.md).
fn usage_status(e: &clap::Error) -> u8 {
    let args: Vec<String> = std::env::args().skip(1).take(2).collect();
    let hook = args.first().is_some_and(|a| a == "guard")
        && !args.get(1).is_some_and(|a| ["install", "uninstall", "log", "help"].contains(&a.as_str()));
    match u8::try_from(e.exit_code()).unwrap_or(2) {
        2 if hook => 1,
        code => code,
    }
}

/// Scratch data and half-written outputs never outlive the run: SIGINT,
/// SIGTERM, SIGHUP and panics remove them (`falseok::app::scratch`) before the
/// process ends as the signal would have ended it (the shell shows 128 + its
/// number, 130 for Ctrl-C). SIGXFSZ is caught, so a write over `ulimit -f`
/// fails with an error that names the file instead of killing falseok.
fn end_cleanly_on_signals(watching: bool) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGXFSZ};
    let _ = signal_hook::flag::register(SIGXFSZ, std::sync::Arc::default());
    // A signal ignored when falseok started (`nohup`, `cmd &` in a script)
    // stays ignored.
    let ignored = ignored_signals();
    let ends: &[i32] = if watching { &[SIGHUP] } else { &[SIGINT, SIGTERM, SIGHUP] };
    let caught: Vec<i32> = ends.iter().copied().filter(|s| ignored & (1 << (s - 1)) == 0).collect();
    if let Ok(mut signals) = signal_hook::iterator::Signals::new(caught) {
        let spawned = std::thread::Builder::new().name("falseok-signals".into()).spawn(move || {
            if let Some(signal) = signals.forever().next() {
                falseok::app::scratch::remove_all();
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                #[allow(clippy::exit)]
                std::process::exit(128 + signal);
            }
        });
        drop(spawned);
    }
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        falseok::app::scratch::remove_all();
        report(info);
    }));
}

/// The signals this process started with ignored, as a mask (bit n - 1 for
/// signal n), from Linux's /proc; none where it cannot be read.
fn ignored_signals() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| l.strip_prefix("SigIgn:")).and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        })
        .unwrap_or(0)
}

/// The width output is fitted to: `COLUMNS` when set (also in a pipe:
/// `COLUMNS=80 falseok scan … | less` asks for 80), else on a terminal
/// what the terminal says (80 when it does not say); piped, none.
fn terminal_width(terminal: bool) -> Option<u16> {
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<u16>().ok()).filter(|&c| c > 0);
    let asked = || terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| w.0).filter(|&w| w > 0);
    columns.or_else(|| terminal.then(|| asked().unwrap_or(80)))
}

/// A progress bar on stderr, only for scans that last more than a second
/// (`FALSEOK_PROGRESS_AFTER_MS` milliseconds).
fn draw_progress() {
    use std::time::{Duration, Instant};
    let after = std::env::var("FALSEOK_PROGRESS_AFTER_MS").ok().and_then(|v| v.trim().parse::<u64>().ok());
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(after.unwrap_or(1000)) {
        if falseok::app::progress::is_finished() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let bar = indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr());
    let style = indicatif::ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {percent:>3}% ({elapsed})")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style.progress_chars("=> "));
    while !falseok::app::progress::is_finished() {
        let (done, total, label) = falseok::app::progress::snapshot();
        bar.set_length(total.max(1));
        bar.set_position(done.min(total));
        bar.set_message(label);
        std::thread::sleep(Duration::from_millis(100));
    }
    bar.finish_and_clear();
}

// The scan allocates many small strings on several threads; glibc's
// allocator spent a quarter of the scan's time on them (perf).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
