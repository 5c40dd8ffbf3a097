//! What every check implements: look at batches, then give one verdict.

use ldp_plugin_sdk::prelude::*;

/// One configured check over one stream.
///
/// A rule never fails because of the data: a missing column, a type it cannot compare or an
/// evaluation error is a failed verdict with a message (the Python tool's `missing column(s) ...`,
/// `could not be evaluated: ...`), so the report always holds one verdict per check.
pub trait Rule {
    /// Looks at one batch (which follows the schema the rule was built for).
    fn push(&mut self, batch: &RecordBatch);
    /// The verdict, given the host's facts about the run.
    fn finish(self: Box<Self>, context: &CheckContext) -> CheckResult;
}
