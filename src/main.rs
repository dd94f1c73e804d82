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
    // Ok(false): the gate failed (exit 1).
    let result = match &cli.command {
        Command::Scan(args) => tracelint::run_scan(args, color(args.color), &mut out, &mut err).map(|()| true),
        Command::Check(args) => tracelint::run_check(args, color(args.scan.color), &mut out, &mut err)
            .map(|passed| passed || args.exit_zero),
        Command::Examples(args) => tracelint::drill::run_examples(args, &mut out).map(|()| true),
        Command::Show(args) => tracelint::drill::run_show(args, &mut out).map(|()| true),
        Command::Rules(args) => tracelint::run_rules(args, &mut out).map(|()| true),
        Command::Generate(args) => tracelint::run_generate(args, &mut out).map(|()| true),
        Command::Formats => tracelint::run_formats(&mut out).map(|()| true),
        Command::Import(args) => tracelint::run_import(args, &mut out, &mut err).map(|()| true),
    };
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
