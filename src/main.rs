use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;
use tracelint::cli::{Cli, ColorChoice, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut err = std::io::stderr();
    let result = match &cli.command {
        Command::Scan(args) => {
            let color = match args.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => {
                    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
                }
            };
            tracelint::run_scan(args, color, &mut out, &mut err)
        }
        Command::Generate(args) => tracelint::run_generate(args, &mut out),
        Command::Formats => tracelint::run_formats(&mut out),
        Command::Import(args) => tracelint::run_import(args, &mut out, &mut err),
    };
    let result = result.and_then(|()| out.flush().map_err(tracelint::error::Error::from));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(err, "tracelint: error: {e}");
            ExitCode::from(2)
        }
    }
}
