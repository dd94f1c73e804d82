use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;
use tracelint::cli::{Cli, ColorChoice, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut err = std::io::stderr();
    let color = |choice: ColorChoice| match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
        }
    };
    let scanning = matches!(cli.command, Command::Scan(_) | Command::Check(_));
    let bar = (scanning && std::io::stderr().is_terminal()).then(|| std::thread::spawn(draw_progress));
    // Ok(false): the gate failed (exit 1).
    let result = match &cli.command {
        Command::Scan(args) => tracelint::run_scan(args, color(args.color), &mut out, &mut err).map(|()| true),
        Command::Check(args) => tracelint::run_check(args, color(args.scan.color), &mut out, &mut err)
            .map(|passed| passed || args.exit_zero),
        Command::Examples(args) => tracelint::drill::run_examples(args, &mut out).map(|()| true),
        Command::Show(args) => tracelint::drill::run_show(args, &mut out).map(|()| true),
        Command::Rules(args) => tracelint::run_rules(args, &mut out).map(|()| true),
        Command::Schemas(args) => tracelint::run_schemas(args, &mut out).map(|()| true),
        Command::Formats => tracelint::run_formats(&mut out).map(|()| true),
        Command::Import(args) => tracelint::run_import(args, &mut out, &mut err).map(|()| true),
    };
    tracelint::progress::finish();
    if let Some(bar) = bar {
        let _ = bar.join();
    }
    let result = result.and_then(|ok| out.flush().map(|()| ok).map_err(tracelint::error::Error::from));
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(err, "tracelint: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// A progress bar on stderr, only for scans that last more than a second.
fn draw_progress() {
    use std::time::{Duration, Instant};
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(1) {
        if tracelint::progress::is_finished() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let bar = indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::stderr());
    let style = indicatif::ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {percent:>3}% ({elapsed})")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style.progress_chars("=> "));
    while !tracelint::progress::is_finished() {
        let (done, total, label) = tracelint::progress::snapshot();
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
