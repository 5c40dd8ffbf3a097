//! Check plugins: keep state over a stream of batches, give verdicts at its end.

use crate::bindings::check::exports::ldp::plugin::check as wit_check;
use crate::bindings::types as wit;
use crate::error::wire;
use crate::{PluginError, PluginInfo};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_plugin_ipc::{Decoder, Validation};
use std::cell::RefCell;

/// The verdict of one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    /// Name of the check as reported, e.g. `not_null`.
    pub name: String,
    /// Whether the data passed.
    pub passed: bool,
    /// One line for the report, e.g. `column 'fare' has 3 null values`.
    pub details: String,
    /// Rows that failed the check (0 when the check does not count rows).
    pub failing_rows: u64,
    /// Metrics as a JSON object text, e.g. `{"null_count":3}`.
    pub metrics: String,
}

/// Facts about the run that only the host knows, given to [`Check::finish`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckContext {
    /// Rows read from the source (after a window column kept its window's rows); `None` when the
    /// host does not know it. It differs from the rows the check saw when transforms drop rows.
    pub source_rows: Option<u64>,
    /// The run's reference time, microseconds since the Unix epoch (UTC): the end of the window
    /// of a windowed run, `None` otherwise.
    pub now_micros: Option<i64>,
}

/// A quality check: sees every batch of a stream, then gives its verdicts.
///
/// Keep only the state the check needs (counts, a set of keys), never the batches, so that a
/// check runs in bounded memory whatever the size of the input. Export it with
/// [`export_check!`](crate::export_check).
pub trait Check: Sized + 'static {
    /// Name, version, description and config schema.
    fn describe() -> PluginInfo;
    /// Starts a stream of batches that follow `input`. `config` is a JSON object text.
    fn open(config: &str, input: SchemaRef) -> Result<Self, PluginError>;
    /// Looks at one batch.
    fn push(&mut self, batch: &RecordBatch) -> Result<(), PluginError>;
    /// The stream has ended: the verdicts, given what the host knows of the run.
    fn finish(self, context: &CheckContext) -> Result<Vec<CheckResult>, PluginError>;
}

trait DynCheck {
    fn push(&mut self, batch: &RecordBatch) -> Result<(), PluginError>;
    fn finish(self: Box<Self>, context: &CheckContext) -> Result<Vec<CheckResult>, PluginError>;
}

impl<T: Check> DynCheck for T {
    fn push(&mut self, batch: &RecordBatch) -> Result<(), PluginError> {
        Check::push(self, batch)
    }
    fn finish(self: Box<Self>, context: &CheckContext) -> Result<Vec<CheckResult>, PluginError> {
        Check::finish(*self, context)
    }
}

struct Open {
    check: Box<dyn DynCheck>,
    decoder: Decoder,
}

thread_local! {
    static STATE: RefCell<Option<Open>> = const { RefCell::new(None) };
}

#[doc(hidden)]
pub fn __describe<T: Check>() -> wit::PluginInfo {
    T::describe().into_wit(wit::PluginKind::Check)
}

#[doc(hidden)]
pub fn __open<T: Check>(config: String, input: Vec<u8>) -> Result<(), wit::PluginError> {
    let decoder = Decoder::new(input, Validation::Trusted).map_err(wire)?;
    let check = T::open(&config, decoder.schema().clone())?;
    STATE.with_borrow_mut(|state| {
        *state = Some(Open {
            check: Box::new(check),
            decoder,
        })
    });
    Ok(())
}

#[doc(hidden)]
pub fn __push(batch: Vec<u8>) -> Result<(), wit::PluginError> {
    STATE.with_borrow_mut(|state| {
        let open = state
            .as_mut()
            .ok_or_else(|| PluginError::internal("push called before open"))?;
        let batch = open.decoder.decode(batch).map_err(wire)?;
        Ok(open.check.push(&batch)?)
    })
}

#[doc(hidden)]
pub fn __finish(
    context: wit_check::CheckContext,
) -> Result<Vec<wit_check::CheckResult>, wit::PluginError> {
    let open = STATE
        .with_borrow_mut(Option::take)
        .ok_or_else(|| PluginError::internal("finish called before open"))?;
    let context = CheckContext {
        source_rows: context.source_rows,
        now_micros: context.now_micros,
    };
    let results = open.check.finish(&context)?;
    Ok(results
        .into_iter()
        .map(|r| wit_check::CheckResult {
            name: r.name,
            passed: r.passed,
            details: r.details,
            failing_rows: r.failing_rows,
            metrics: r.metrics,
        })
        .collect())
}

/// Exports a type that implements [`Check`] as the plugin's check.
///
/// ```ignore
/// ldp_plugin_sdk::export_check!(MyCheck);
/// ```
#[macro_export]
macro_rules! export_check {
    ($ty:ty) => {
        const _: () = {
            struct __LdpCheckExport;
            impl $crate::bindings::check::exports::ldp::plugin::check::Guest for __LdpCheckExport {
                fn describe() -> $crate::bindings::types::PluginInfo {
                    $crate::check::__describe::<$ty>()
                }
                fn open(
                    config: ::std::string::String,
                    input: ::std::vec::Vec<u8>,
                ) -> ::std::result::Result<(), $crate::bindings::types::PluginError> {
                    $crate::check::__open::<$ty>(config, input)
                }
                fn push(
                    batch: ::std::vec::Vec<u8>,
                ) -> ::std::result::Result<(), $crate::bindings::types::PluginError> {
                    $crate::check::__push(batch)
                }
                fn finish(
                    context: $crate::bindings::check::exports::ldp::plugin::check::CheckContext,
                ) -> ::std::result::Result<
                    ::std::vec::Vec<$crate::bindings::check::exports::ldp::plugin::check::CheckResult>,
                    $crate::bindings::types::PluginError,
                > {
                    $crate::check::__finish(context)
                }
            }
            $crate::bindings::check::export!(__LdpCheckExport with_types_in $crate::bindings::check);
        };
    };
}
