//! `ldp`: the command-line tool. Parses arguments into validated [`settings`], runs one command
//! and maps errors to the documented exit codes (0 ok, 1 error, 3 data gate; [`report`]). A
//! broken pipe on stdout (`ldp … | head`) exits 0.

mod args;
#[cfg(test)]
mod cli_reference;
mod commands;
#[cfg(test)]
mod docs_lists;
mod interrupt;
mod output;
mod progress;
mod report;
mod settings;
mod telemetry;

use clap::Parser;
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
            if code != 0 {
                let text = e.to_string();
                let first = text.lines().next().unwrap_or_default();
                report::usage_line(first.trim_start_matches("error: "));
            }
            return ExitCode::from(code);
        }
    };
    let settings = match settings::Settings::from_cli(cli) {
        Ok(settings) => settings,
        Err(e) => return report::report(&anyhow::Error::new(e)),
    };
    let telemetry = init_logging(&settings.log_filter);
    let code = match commands::run(settings) {
        Ok(code) => ExitCode::from(code),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => report::report(&e),
    };
    if let Some(telemetry) = telemetry {
        telemetry.shutdown();
    }
    code
}

/// Logs to stderr through `filter`; with an OTLP endpoint in the environment, ldp's spans also
/// go to it ([`telemetry`]), whatever the log filter.
fn init_logging(filter: &str) -> Option<telemetry::Telemetry> {
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .with_filter(filter);
    let registry = tracing_subscriber::registry().with(logs);
    if !telemetry::wanted() {
        registry.init();
        return None;
    }
    match telemetry::Telemetry::start() {
        Ok((telemetry, spans)) => {
            registry.with(spans).init();
            Some(telemetry)
        }
        Err(why) => {
            registry.init();
            tracing::warn!("{why}; no traces are exported");
            None
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
