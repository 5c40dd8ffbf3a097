//! Keys ldp does not know, at any depth of a dataset config.
//!
//! The Python tool accepts an unknown key in `metadata` (and hashes it) and ignores unknown keys
//! of a source or target block, so a misspelling (`"writemode"`, `"qualty"`) changes nothing
//! and says nothing. ldp keeps accepting them, so a config keeps its spec hash, but reports each
//! one with a "did you mean" ([`stray_keys`]); `ldp plan --strict` and `ldp run --strict` refuse
//! them. Sections whose unknown keys are already errors (`window`, `retries`, `observability`,
//! `transforms`, checks, `partition_by` items) are not walked again, and a `catalog` block is not
//! walked at all: its other keys are catalog properties handed to the catalog as written.

use std::fmt;

use serde_json::{Map, Value};

use crate::model::{Format, Section};
use crate::parse::METADATA_KEYS;

/// `metadata` keys of the Python tool's documented gold layer that no run reads yet
/// (`lineage`): known, so not reported.
const GOLD_METADATA_KEYS: [&str; 1] = ["lineage"];

/// A key that ldp ignores, with the key it most likely meant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrayKey {
    /// The JSON path of the object holding it (`metadata.target`).
    pub at: String,
    /// The key as written.
    pub key: String,
    /// A known key of the same object that is one slip away (`write_mode`).
    pub suggestion: Option<&'static str>,
}

impl fmt::Display for StrayKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{}: ldp does not know this key and ignores it",
            self.at, self.key
        )?;
        match self.suggestion {
            Some(known) => write!(f, "; did you mean '{known}'?"),
            None => write!(
                f,
                "; remove it, or see 'ldp schema' for the keys of {}",
                self.at
            ),
        }
    }
}

/// Every key of a dataset config document that ldp ignores, in document order.
pub fn stray_keys(document: &Value) -> Vec<StrayKey> {
    let mut found = Vec::new();
    let Some(metadata) = document.get("metadata").and_then(Value::as_object) else {
        return found;
    };
    let known: Vec<&'static str> = METADATA_KEYS
        .into_iter()
        .chain(GOLD_METADATA_KEYS)
        .collect();
    collect(&mut found, "metadata", metadata, &known);
    for section in [Section::Source, Section::Target] {
        if let Some(block) = metadata.get(section.as_str()).and_then(Value::as_object) {
            let at = format!("metadata.{}", section.as_str());
            collect(&mut found, &at, block, &block_keys(section, block));
            if let Some(credentials) = block.get("credentials").and_then(Value::as_object) {
                collect(
                    &mut found,
                    &format!("{at}.credentials"),
                    credentials,
                    &["name", "path"],
                );
            }
        }
    }
    if let Some(quality) = metadata.get("quality").and_then(Value::as_object) {
        collect(
            &mut found,
            "metadata.quality",
            quality,
            &["on_failure", "checks"],
        );
    }
    found
}

/// The keys a source or target block of its format may hold (a block with an unknown format is
/// an error already, and gets only the common keys).
fn block_keys(section: Section, block: &Map<String, Value>) -> Vec<&'static str> {
    // `path` is known on every block: an Iceberg block's path is a legacy key, ignored by design.
    let mut keys = vec!["name", "format", "path", "engine"];
    let format = block
        .get("format")
        .and_then(Value::as_str)
        .and_then(Format::parse);
    match (section, format) {
        (_, Some(Format::Iceberg)) => {
            keys.push("catalog");
            match section {
                Section::Source => keys.extend(["snapshot_id", "ref"]),
                Section::Target => keys.extend([
                    "write_mode",
                    "join_cols",
                    "partition_by",
                    "schema_evolution",
                ]),
            }
        }
        (Section::Target, Some(format)) => {
            keys.extend(crate::transforms::PLUGIN_FILE_KEYS);
            keys.extend(crate::target_options::keys(format));
            if format == Format::DuckDb {
                keys.push("write_mode");
            }
        }
        (Section::Source, Some(format)) => {
            keys.extend(crate::transforms::PLUGIN_FILE_KEYS);
            keys.extend(crate::source_options::keys(format));
            match format {
                Format::DuckDb => {
                    keys.extend(crate::block::DUCKDB_QUERY_KEYS);
                    keys.push(crate::block::DUCKDB_INPUTS_KEY);
                }
                Format::Xlsx => keys.extend(["sheet", "header_row"]),
                Format::Json => keys.extend(["credentials", "endpoint"]),
                _ => {}
            }
        }
        _ => {}
    }
    keys
}

fn collect(found: &mut Vec<StrayKey>, at: &str, map: &Map<String, Value>, known: &[&'static str]) {
    for key in map.keys().filter(|key| !known.contains(&key.as_str())) {
        found.push(StrayKey {
            at: at.to_owned(),
            key: key.clone(),
            suggestion: did_you_mean(key, known),
        });
    }
}

/// The known key `key` most likely meant: the same word written with another case or separator
/// (`writeMode`, `write-mode`, `writemode`), else the closest one within two edits (one for
/// keys of up to four letters).
pub fn did_you_mean(key: &str, known: &[&'static str]) -> Option<&'static str> {
    let folded = fold(key);
    if let Some(same) = known.iter().find(|known| fold(known) == folded) {
        return Some(same);
    }
    let limit = if folded.chars().count() <= 4 { 1 } else { 2 };
    known
        .iter()
        .map(|known| (edit_distance(&folded, &fold(known)), *known))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, known)| known)
}

/// Lower case without `_`, `-` and spaces.
fn fold(key: &str) -> String {
    key.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The optimal string alignment distance: insertions, deletions, substitutions and swaps of
/// two neighbouring characters each count one.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(document: Value) -> Vec<String> {
        stray_keys(&document)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// Hostile-input finding: misspelled keys inside source, target and metadata were ignored
    /// without a word (`writemode` appended twice, `qualty` skipped the gate with exit 0).
    #[test]
    fn misspelled_keys_are_named_with_the_key_they_meant() {
        let document = json!({
            "apiVersion": "ldp/v1", "identifier": "t",
            "metadata": {
                "source": {"name": "s", "format": "csv", "path": "a.csv", "delimeter": ";", "batch_size": 0},
                "target": {"name": "t", "format": "ICEBERG", "catalog": {"identifier": "c", "s3.endpoint": "x"},
                           "writemode": "overwrite", "joinCols": ["id"]},
                "qualty": {"checks": []},
                "quality": {"on_fail": "warn", "checks": []},
            }
        });
        assert_eq!(
            lines(document),
            [
                "metadata.qualty: ldp does not know this key and ignores it; did you mean 'quality'?",
                "metadata.source.delimeter: ldp does not know this key and ignores it; did you mean 'delimiter'?",
                "metadata.source.batch_size: ldp does not know this key and ignores it; remove it, or see 'ldp schema' for the keys of metadata.source",
                "metadata.target.writemode: ldp does not know this key and ignores it; did you mean 'write_mode'?",
                "metadata.target.joinCols: ldp does not know this key and ignores it; did you mean 'join_cols'?",
                "metadata.quality.on_fail: ldp does not know this key and ignores it; remove it, or see 'ldp schema' for the keys of metadata.quality",
            ]
        );
    }

    #[test]
    fn every_key_ldp_reads_is_known() {
        let document = json!({
            "identifier": "t",
            "metadata": {
                "source": {"name": "s", "format": "XLSX", "path": "a.xlsx", "sheet": 0, "header_row": 2},
                "target": {"name": "t", "format": "iceberg", "path": "legacy", "catalog": {},
                           "write_mode": "upsert", "join_cols": "id", "partition_by": [], "schema_evolution": true},
                "transforms": [], "quality": [], "observability": {}, "schedule": "@daily",
                "window": "none", "retries": {}, "lineage": [], "docs": {},
            }
        });
        assert!(lines(document).is_empty());
        for source in [
            json!({"format": "CSV", "delimiter": ";", "encoding": "latin-1", "columns": {}, "null_values": []}),
            json!({"format": "JSON", "engine": "BIGQUERY", "credentials": {"name": "n", "path": "p"}}),
            json!({"format": "JSON", "strict_types": true, "infer_rows": 10}),
            json!({"format": "DUCKDB", "sql": "select 1"}),
            json!({"format": "ICEBERG", "catalog": {}, "snapshot_id": 1, "ref": "main"}),
            json!({"format": "PARQUET", "plugin": "p.wasm", "sha256": "0", "config": {}, "grants": {}, "limits": {}}),
        ] {
            let document = json!({"metadata": {"source": source}});
            assert!(lines(document.clone()).is_empty(), "{document}");
        }
        for target in [
            json!({"format": "XLSX", "path": "a.xlsx", "sheet": "Rides", "header": false}),
            json!({"format": "CSV", "path": "a.md", "plugin": "p.wasm", "sha256": "0", "config": {}, "grants": {}, "limits": {}}),
        ] {
            let document = json!({"metadata": {"target": target}});
            assert!(lines(document.clone()).is_empty(), "{document}");
        }
        assert_eq!(
            lines(
                json!({"metadata": {"target": {"format": "XLSX", "path": "a.xlsx", "sheets": "x"}}})
            ),
            [
                "metadata.target.sheets: ldp does not know this key and ignores it; did you mean 'sheet'?"
            ]
        );
        // A key of another format's plugin is not this block's.
        assert_eq!(
            stray_keys(&json!({"metadata": {"source": {"format": "PARQUET", "delimiter": ";"}}}))
                [0]
            .key,
            "delimiter"
        );
    }

    #[test]
    fn suggestions_stay_close() {
        let known = ["quality", "source", "target", "window", "ref"];
        assert_eq!(did_you_mean("Quality", &known), Some("quality"));
        assert_eq!(did_you_mean("soruce", &known), Some("source"));
        assert_eq!(did_you_mean("windows", &known), Some("window"));
        assert_eq!(did_you_mean("docs", &known), None);
        assert_eq!(did_you_mean("rf", &known), Some("ref"));
        assert_eq!(did_you_mean("owner", &known), None);
    }
}
