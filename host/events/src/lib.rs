//! Run events (`docs/exactly-once.md#run-events-and-ldp-runs`): what each run did, as a stream of
//! [`Event`]s, in the shapes the Python `local-data-platform` 0.1.3 writes, so that a JSONL file,
//! an OpenLineage consumer or the `_ldp` tables read the same from either tool.
//!
//! * [`Event`]: the envelope, its canonical JSONL line ([`Event::to_line`]) and the
//!   lenient readers ([`Event::parse_line`], [`read_events`], [`read_events_file`]).
//! * [`RunEvents`]: the emitter of one run attempt (seq, ids, timestamps, the sticky table
//!   UUID, the `pipeline`/`table` context and a workflow's tags), handing every event to its
//!   [`EventSink`]s; a failing sink is logged, never fatal. [`CollectSink`] keeps events in
//!   memory.
//! * [`payload`]: typed payloads of every pipeline event, built from plain values;
//!   [`DatasetRef`] names sources and targets; [`redact_text`] masks secrets.
//! * [`system_tables`]: the Arrow schemas and rows of `_ldp.runs` and
//!   `_ldp.quality_results`, and `_ldp.runs` rows back to events.
//! * [`runs`]: what `ldp runs` prints.
//!
//! The JSONL and OpenLineage sinks are plugins (`plugins/events-jsonl`,
//! `plugins/events-openlineage`): the host hands them [`Event::to_line`].
//!
//! A pipeline run, written to a [`CollectSink`]:
//!
//! ```
//! use ldp_events::payload::{Extracted, Finished, Outcome, SchemaField};
//! use ldp_events::{CollectSink, RunEvents};
//!
//! let sink = CollectSink::new();
//! let mut events = RunEvents::for_pipeline("01a23725-6f95-73c9-8cfe-c24a42626895", 1, "rides", Some("nyc.rides"))
//!     .with_sink(Box::new(sink.clone()));
//! events.record(&Extracted { rows_read: 3, rows_kept: None, schema: vec![SchemaField::new("fare", "double")] });
//! events.record(&Finished {
//!     outcome: Outcome::Failed, duration_s: 0.25, rows_read: Some(3), rows_written: None, idempotency_key: None,
//! });
//! events.close();
//! assert_eq!(sink.types(), ["run.extracted", "run.finished"]);
//! let line = sink.events()[1].to_line();
//! assert!(line.contains(r#""payload":{"duration_s":0.25,"idempotency_key":null,"pipeline":"rides","rows_read":3,"rows_written":null,"status":"failed","table":"nyc.rides"}"#));
//! ```

#![warn(missing_docs)]

mod dataset;
mod emitter;
mod envelope;
mod error;
mod ids;
pub mod payload;
mod pyvalue;
mod redact;
pub mod runs;
mod sink;
pub mod system_tables;
mod time;

pub use dataset::{DatasetRef, file_uri};
pub use emitter::RunEvents;
pub use envelope::{
    EVENT_TYPES, Event, SCHEMA_VERSION, read_events, read_events_file, sort_events,
};
pub use error::{EventsError, SinkError};
pub use ids::uuid7;
pub use ldp_pyrepr::pyarrow_type_name;
pub use redact::{MAX_DETAILS, MAX_MESSAGE, redact_text};
pub use sink::{CollectSink, EventSink};
pub use system_tables::events_from_runs_batch;
pub use time::{isoformat, isoformat_millis, parse_ts};

/// The statuses `run.finished` reports: a pipeline run's (`published`, `skipped_duplicate`,
/// `blocked_quality`, `failed`) and a workflow task's (`succeeded`, `upstream_failed`).
pub const RUN_STATUSES: [&str; 6] = [
    "published",
    "skipped_duplicate",
    "blocked_quality",
    "failed",
    "succeeded",
    "upstream_failed",
];
