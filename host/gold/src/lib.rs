//! The gold layer: `ldp gold build DIR` builds the gold tables of a folder (dataset configs
//! whose `metadata.docs.layer` is `gold`) in the order of their `inputs`, each behind its
//! quality gate and its contract ([`build_gold`]), and cuts a release that names one snapshot of
//! each, so readers see tables that agree ([`release`]). docs/gold.md has the guide.

mod build;
mod error;
mod order;
pub mod release;

pub use build::{BuildOptions, BuildReport, ReleaseOutcome, TableOutcome, TableStatus, build_gold};
pub use error::{Error, ErrorKind, Result};
pub use order::{GoldConfig, gold_configs};
pub use release::{Release, ReleasedTable, current_release, list_releases, read_release};
