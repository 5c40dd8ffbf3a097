//! Quality gates (`docs/quality.md`): the run's checks, run while the data streams in, and
//! their report.

mod gate;
mod report;

pub(crate) use gate::{Gate, GateRun};
pub use report::{QualityReport, result_line};
