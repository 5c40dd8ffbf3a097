//! A transform the caller runs outside the sandbox: trusted code of the caller's own, such as a
//! Python function in a notebook (`ldp.run(config, transform=fn)` of ldp's Python package, over
//! [`super::PipeTransform`]). It runs after the config's transforms, on the batches of the
//! run's window, before the quality checks; it is not recorded among the config's transforms.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

/// A boxed error of an external transform.
pub type ExternalError = Box<dyn std::error::Error + Send + Sync>;

/// Opens an external transform for a run's schema.
pub trait ExternalTransform: Send + Sync {
    /// What it is called in messages (`the transform on --pipe-transform`).
    fn name(&self) -> &str;

    /// Opens it for batches of `schema`; the stream knows its output schema before any batch.
    ///
    /// # Errors
    ///
    /// It cannot start, or cannot say its output schema.
    fn open(&self, schema: &SchemaRef) -> Result<Box<dyn ExternalStream>, ExternalError>;
}

/// An external transform open for one run.
pub trait ExternalStream: Send {
    /// The schema of every batch it gives.
    fn output_schema(&self) -> &SchemaRef;

    /// Transforms one batch.
    ///
    /// # Errors
    ///
    /// The transform failed; the run fails and commits nothing.
    fn push(&mut self, batch: &RecordBatch) -> Result<Vec<RecordBatch>, ExternalError>;

    /// The input ended: the batches it still holds.
    ///
    /// # Errors
    ///
    /// The transform failed.
    fn finish(&mut self) -> Result<Vec<RecordBatch>, ExternalError>;
}

/// A shared external transform, as [`crate::RunOptions`] holds it.
pub type SharedExternal = Arc<dyn ExternalTransform>;
