//! What `ldp run` runs: a [`Pipeline`] into an Iceberg table, or a [`FileExport`] into a file.
//! Each run is the span `ldp.run`, with what it did as attributes (exported as an OpenTelemetry
//! span when the CLI exports traces); the plugins it calls are `ldp.plugin` spans inside it.

use ldp_config::{Config, Format};
use ldp_plugin_runtime::Runtime;

use crate::error::{Error, Result};
use crate::file_target::FileExport;
use crate::report::RunReport;
use crate::run::{Pipeline, RunOptions};

/// A config ready to run, by the kind of its target.
#[derive(Debug, Clone)]
pub enum Job {
    /// Into an Iceberg table.
    Table(Pipeline),
    /// Into a CSV or Parquet file.
    File(FileExport),
}

impl Job {
    /// Checks the config's route and resolves its target. Nothing is read or created.
    ///
    /// # Errors
    ///
    /// No route matches, this build does not run it, or the target cannot be resolved.
    pub fn open(config: Config) -> Result<Job> {
        crate::routes::check(&config)?;
        if config.target().format == Format::Iceberg {
            Ok(Job::Table(Pipeline::open(config)?))
        } else {
            Ok(Job::File(FileExport::open(config)?))
        }
    }

    /// The config.
    pub fn config(&self) -> &Config {
        match self {
            Job::Table(p) => p.config(),
            Job::File(f) => f.config(),
        }
    }

    /// Runs it.
    ///
    /// # Errors
    ///
    /// As [`Pipeline::run`] and [`FileExport::run`].
    pub fn run(&self, runtime: &Runtime, options: &RunOptions) -> Result<RunReport> {
        let config = self.config();
        let target = config.target();
        let span = tracing::info_span!(
            "ldp.run",
            "ldp.pipeline" = %config.identifier,
            "ldp.target" = %target.name,
            "ldp.target_format" = %target.format.as_str(),
            "ldp.run_id" = tracing::field::Empty,
            "ldp.idempotency_key" = tracing::field::Empty,
            "ldp.status" = tracing::field::Empty,
            "ldp.rows_read" = tracing::field::Empty,
            "ldp.rows_written" = tracing::field::Empty,
            "ldp.snapshot_id" = tracing::field::Empty,
            "ldp.checks_run" = tracing::field::Empty,
            "ldp.checks_failed" = tracing::field::Empty,
            "ldp.checks" = tracing::field::Empty,
            "ldp.error_kind" = tracing::field::Empty,
            "otel.status_code" = tracing::field::Empty,
            "otel.status_message" = tracing::field::Empty,
        );
        let result = span.in_scope(|| match self {
            Job::Table(p) => p.run(runtime, options),
            Job::File(f) => f.run(runtime, options),
        });
        if !span.is_disabled() {
            record(&span, &result);
        }
        result
    }
}

/// Records what a run did on its span: rows, snapshot, status and the checks' verdicts
/// (`name=passed|failed`, comma-separated), or the error.
fn record(span: &tracing::Span, result: &Result<RunReport>) {
    // Counts as i64: OpenTelemetry's integers are signed, and a u64 would reach it as text.
    let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let verdicts = |report: &crate::quality::QualityReport| {
        span.record("ldp.checks_run", count(report.results.len() as u64));
        span.record(
            "ldp.checks_failed",
            count(report.results.iter().filter(|r| !r.passed).count() as u64),
        );
        let text: Vec<String> = report
            .results
            .iter()
            .map(|r| format!("{}={}", r.name, if r.passed { "passed" } else { "failed" }))
            .collect();
        span.record("ldp.checks", text.join(","));
    };
    match result {
        Ok(report) => {
            span.record("ldp.status", report.status.as_str());
            span.record("ldp.rows_read", count(report.rows_read));
            span.record("ldp.rows_written", count(report.rows_written));
            if let Some(run_id) = &report.run_id {
                span.record("ldp.run_id", run_id.as_str());
            }
            if let Some(key) = &report.idempotency_key {
                span.record("ldp.idempotency_key", key.as_str());
            }
            if let Some(snapshot) = report.published_snapshot_id {
                span.record("ldp.snapshot_id", snapshot);
            }
            verdicts(&report.quality);
        }
        Err(e) => {
            let status = match e {
                Error::Quality { report } => {
                    verdicts(report);
                    "blocked_quality"
                }
                _ => "failed",
            };
            span.record("ldp.status", status);
            span.record("ldp.error_kind", format!("{:?}", e.kind()).as_str());
            span.record("otel.status_code", "ERROR");
            span.record("otel.status_message", e.to_string().as_str());
        }
    }
}
