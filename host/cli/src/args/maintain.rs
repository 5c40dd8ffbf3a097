//! `ldp maintain`.

use std::path::PathBuf;

use clap::Args;

/// `ldp maintain CONFIG`.
#[derive(Debug, Args)]
pub struct MaintainArgs {
    /// A dataset config (JSON) with an Iceberg target or source.
    pub config: PathBuf,
    /// Expire snapshots committed more than DAYS days ago.
    #[arg(long, value_name = "DAYS", value_parser = non_negative)]
    pub expire: Option<f64>,
    /// Find files under the table location that no metadata references.
    #[arg(long)]
    pub orphans: bool,
    /// Rewrite the small data files of each partition into files near --target-file-size, in
    /// one replace snapshot that also merges the manifests.
    #[arg(long)]
    pub compact: bool,
    /// The size --compact writes files to: bytes, or a number with KB, MB or GB (1024-based).
    #[arg(
        long,
        value_name = "SIZE",
        default_value = "128MB",
        requires = "compact"
    )]
    pub target_file_size: String,
    /// Comma-separated columns --compact sorts the rows by (every file of a partition with
    /// several files is rewritten).
    #[arg(long, value_name = "COLS", requires = "compact")]
    pub sort_by: Option<String>,
    /// Merge the table's data manifests into one (no data file is rewritten).
    #[arg(long)]
    pub rewrite_manifests: bool,
    /// Make the changes; without it everything is a dry run.
    #[arg(long)]
    pub apply: bool,
    /// Always keep main's last N snapshots.
    #[arg(long, value_name = "N", default_value_t = 20,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub retain_last: u64,
    /// Only files older than this are orphans.
    #[arg(long, value_name = "HOURS", default_value_t = 72.0, value_parser = non_negative)]
    pub orphan_age_hours: f64,
    /// Files reachable from this many previous metadata versions are kept.
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub keep_metadata_versions: u64,
    /// Allow --apply to delete orphans younger than 24 hours (only when no writer is running:
    /// a file that young may belong to a write in progress).
    #[arg(long)]
    pub allow_recent: bool,
    /// Print the reports as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// A number from 0 (the Python tool's wording).
fn non_negative(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if value >= 0.0 => Ok(value),
        Ok(_) => Err(format!("expected a non-negative number, got '{text}'")),
        Err(_) => Err(format!("expected a number, got '{text}'")),
    }
}
