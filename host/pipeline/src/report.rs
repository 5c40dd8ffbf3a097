//! What a run did, as `ldp run --json` prints it: `{name, rows_read, rows_written,
//! write_result, quality, duration_s, run_id, idempotency_key, published_snapshot_id, status,
//! rows_kept}` ([`RunReport`]), the Python tool's document, with an `upsert` count added to
//! `write_result`.

use serde::Serialize;

/// The write of a run (`write_result` in `ldp run --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriteResult {
    /// `ns.t`.
    pub table_identifier: String,
    /// `append` or `overwrite`.
    pub mode: String,
    /// Rows the commit added.
    pub rows_written: u64,
    /// `total-records` before the commit.
    pub rows_before: u64,
    /// `total-records` after it.
    pub rows_after: u64,
    /// The snapshot committed.
    pub snapshot_id: Option<i64>,
    /// The staging branch (staged runs only; `null` in direct mode).
    pub branch: Option<String>,
    /// The run's idempotency key (staged runs only).
    pub idempotency_key: Option<String>,
    /// Commit tries used.
    pub attempts: u32,
    /// Whether the key was already published (staged runs only).
    pub skipped_duplicate: bool,
    /// What an upsert did (upserts only; not in the Python tool's shape).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upsert: Option<UpsertCounts>,
}

/// The counts of an upsert (`write_result.upsert` in `ldp run --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UpsertCounts {
    /// Batch rows that replaced a row with other values.
    pub rows_updated: u64,
    /// Batch rows with a new key.
    pub rows_inserted: u64,
    /// Batch rows equal to the table's row (not written).
    pub rows_unchanged: u64,
    /// Whether a snapshot was added (not when nothing changed).
    pub snapshot_added: bool,
    /// Data files of the table before.
    pub files_before: usize,
    /// Data files read because their statistics or partition say they may hold a key.
    pub files_read: usize,
    /// Data files written again without the replaced rows.
    pub files_rewritten: usize,
    /// Rows of those files written again.
    pub rows_rewritten: u64,
}

/// A finished run (`ldp run --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    /// The config's `identifier` (the pipeline's name), as the Python tool reports it.
    pub name: String,
    /// Rows the source gave.
    pub rows_read: u64,
    /// Rows written to the target.
    pub rows_written: u64,
    /// The write to an Iceberg table (`null` for a file target, as in the Python tool).
    pub write_result: Option<WriteResult>,
    /// The quality report (no results without checks).
    pub quality: crate::quality::QualityReport,
    /// Wall time, seconds, 3 decimals.
    pub duration_s: f64,
    /// The run id (`--run-id`, else a new UUIDv7).
    pub run_id: Option<String>,
    /// The idempotency key (staged runs only).
    pub idempotency_key: Option<String>,
    /// The snapshot that holds the run's rows.
    pub published_snapshot_id: Option<i64>,
    /// `published`, or `skipped_duplicate` when a staged run found its key on `main`.
    pub status: String,
    /// Rows kept by a window filter (`null` without one).
    pub rows_kept: Option<u64>,
}

impl RunReport {
    /// The human summary line of `ldp run`: `rides: read 3 rows, wrote 3 rows in 0.54s`, with
    /// ` (quality: K of N checks passed)` when the run had checks. "rows" even for one row, as
    /// the Python tool prints it.
    pub fn summary_line(&self) -> String {
        let kept = self
            .rows_kept
            .map_or_else(String::new, |k| format!(", kept {k} in the window"));
        if self.skipped_duplicate() {
            let read = if self.rows_read == 0 {
                String::new()
            } else {
                format!(" read {} rows{kept},", self.rows_read)
            };
            return format!(
                "{}:{read} skipped: idempotency key already published in snapshot {} ({:.2}s)",
                self.name,
                self.published_snapshot_id
                    .map_or_else(|| "None".to_string(), |s| s.to_string()),
                self.duration_s
            );
        }
        let mut line = format!(
            "{}: read {} rows{kept}, wrote {} rows in {:.2}s",
            self.name, self.rows_read, self.rows_written, self.duration_s
        );
        let checks = self.quality.results.len();
        if checks > 0 {
            line.push_str(&format!(
                " (quality: {} of {checks} checks passed)",
                checks - self.quality.failed()
            ));
        }
        line
    }

    /// The lines a staged run adds (`  window           2026-08-01T00:00:00Z/…`, then
    /// `idempotency_key`, `run_id`, `attempt`, `status`, `snapshot`, names aligned); none for a
    /// direct run.
    pub fn staged_lines(&self, window: Option<&str>, attempt: u32) -> Vec<String> {
        let Some(key) = &self.idempotency_key else {
            return Vec::new();
        };
        let mut pairs: Vec<(&str, String)> = Vec::new();
        if let Some(window) = window {
            pairs.push(("window", window.to_string()));
        }
        pairs.push(("idempotency_key", key.clone()));
        pairs.push(("run_id", self.run_id.clone().unwrap_or_default()));
        pairs.push(("attempt", attempt.to_string()));
        pairs.push(("status", self.status.clone()));
        pairs.push((
            "snapshot",
            self.published_snapshot_id
                .map_or_else(|| "None".to_string(), |s| s.to_string()),
        ));
        let width = pairs.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        pairs
            .into_iter()
            .map(|(name, value)| format!("  {name:<width$}  {value}"))
            .collect()
    }

    /// Whether a staged run found its key already published.
    pub fn skipped_duplicate(&self) -> bool {
        self.write_result
            .as_ref()
            .is_some_and(|w| w.skipped_duplicate)
    }

    /// The target line of an Iceberg target: `  target nyc.rides: append, 0 -> 3 rows,
    /// snapshot S`; an upsert adds ` (50 updated, 10 inserted)`, or ` (0 rows changed, no
    /// snapshot added)`. None for a file target.
    pub fn target_line(&self) -> Option<String> {
        let w = self.write_result.as_ref()?;
        let snapshot = w
            .snapshot_id
            .map_or_else(|| "none".to_string(), |s| s.to_string());
        let upsert = match &w.upsert {
            Some(u) if !u.snapshot_added => " (0 rows changed, no snapshot added)".to_string(),
            Some(u) => format!(
                " ({} updated, {} inserted)",
                u.rows_updated, u.rows_inserted
            ),
            None => String::new(),
        };
        Some(format!(
            "  target {}: {}, {} -> {} rows{upsert}, snapshot {snapshot}",
            w.table_identifier, w.mode, w.rows_before, w.rows_after
        ))
    }
}
