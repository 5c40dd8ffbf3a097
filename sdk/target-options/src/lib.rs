//! The options a config's target block may give the built-in file sinks (ldp's own keys,
//! beyond `path`), and their validation. `ldp plan` checks a target block with the same
//! functions that the sinks parse their config with, so both accept and refuse the same values.
//!
//! - [`xlsx`]: the XLSX sink's options (`sheet`, `header`).

pub mod xlsx;

/// A value an option does not take: the same error as a source block's options.
pub use ldp_source_options::OptionError;
