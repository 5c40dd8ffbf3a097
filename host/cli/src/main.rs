//! `ldp`: the command-line tool. Parses arguments into validated [`settings`], runs one command
//! and maps errors to the documented exit codes (0 ok, 1 error, 3 data gate). A broken pipe on
//! stdout (`ldp … | head`) exits 0.

mod args;
#[cfg(test)]
mod cli_reference;
mod commands;
mod interrupt;
mod output;
mod progress;
mod settings;

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => 0,
                _ => 1,
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let settings = match settings::Settings::from_cli(cli) {
        Ok(settings) => settings,
        Err(e) => return report(&anyhow::Error::new(e)),
    };
    init_logging(&settings.log_filter);
    match commands::run(settings) {
        Ok(code) => ExitCode::from(code),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => report(&e),
    }
}

fn init_logging(filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .init();
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The error and its causes, `outer: inner`, without repeating a cause that an outer error's
/// message already quotes (error types that print their source in their own message).
fn message(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// Prints `ldp: error: …` and gives the exit code of the error's kind (`ldp: interrupted` and
/// 130 for Ctrl-C).
fn report(e: &anyhow::Error) -> ExitCode {
    if e.chain().any(|c| {
        matches!(
            c.downcast_ref::<ldp_pipeline::Error>(),
            Some(ldp_pipeline::Error::Interrupted)
        )
    }) {
        let _ = writeln!(std::io::stderr(), "ldp: interrupted");
        return ExitCode::from(130);
    }
    let _ = writeln!(std::io::stderr(), "ldp: error: {}", message(e));
    let code = e
        .chain()
        .find_map(|cause| {
            cause
                .downcast_ref::<ldp_plugin_runtime::RuntimeError>()
                .map(|r| r.exit_code())
                .or_else(|| {
                    cause
                        .downcast_ref::<ldp_pipeline::Error>()
                        .map(|p| p.exit_code())
                })
                .or_else(|| {
                    cause
                        .downcast_ref::<ldp_dbt::Error>()
                        .map(|e| e.exit_code())
                })
                .or_else(|| {
                    cause
                        .downcast_ref::<ldp_gold::Error>()
                        .map(|e| e.exit_code())
                })
        })
        .unwrap_or(1);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
