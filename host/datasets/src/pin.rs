//! Pinning a version: the table's current snapshot (or one asked for), a row filter and a
//! column list, recorded with its row count and schema fingerprint in a new manifest, and the
//! snapshot tagged so that snapshot expiry keeps it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ldp_catalog::Catalog;
use ldp_table::Table;

use crate::error::{Error, Result};
use crate::fingerprint::schema_fingerprint;
use crate::load::{count_rows, projected_fields};
use crate::manifest::{CatalogSpec, DatasetVersion, datasets_dir, now_micros, rewrite, write_new};
use crate::name::{check_name, tag_name};

/// How many times tagging is tried when other commits move the table meanwhile.
const TAG_ATTEMPTS: u32 = 3;

/// What to pin.
#[derive(Debug, Clone)]
pub struct PinRequest {
    /// The dataset name (see [`crate::check_name`]). Each pin adds version N + 1 of it.
    pub name: String,
    /// A SQL boolean expression over the table's columns (see [`crate::check_filter`]);
    /// `None` (or blank) for every row.
    pub row_filter: Option<String>,
    /// The columns to keep (see [`normalise_fields`]); `None` for every column.
    pub selected_fields: Option<Vec<String>>,
    /// The snapshot to pin instead of the current one.
    pub snapshot_id: Option<i64>,
    /// String labels stored in the manifest, e.g. `split=train`.
    pub properties: BTreeMap<String, String>,
    /// Tag the snapshot (`ldp_ds_<name>_v<N>`) so snapshot expiry keeps it.
    pub tag: bool,
    /// The warehouse whose `.ldp/datasets/` gets the manifest.
    pub warehouse: PathBuf,
    /// The catalog the table is reopened through on load (no secrets).
    pub catalog: CatalogSpec,
}

impl PinRequest {
    /// A request for every row and column of the current snapshot, tagged.
    pub fn new(name: impl Into<String>, warehouse: PathBuf, catalog: CatalogSpec) -> PinRequest {
        PinRequest {
            name: name.into(),
            row_filter: None,
            selected_fields: None,
            snapshot_id: None,
            properties: BTreeMap::new(),
            tag: true,
            warehouse,
            catalog,
        }
    }
}

/// Pins the rows `table` gives now (or at `request.snapshot_id`) as a new version of
/// `request.name`; `catalog` is the table's catalog, opened for writing when the snapshot is to
/// be tagged. A tag that cannot be added is a warning (the manifest then says `"tag": null`).
///
/// Returns the version, with `manifest_path` set.
///
/// # Errors
///
/// [`Error::Config`] for an invalid name, filter or column list (a filter naming an unknown
/// column or not a boolean included); [`Error::Dataset`] when the table has no snapshot, or not
/// the one asked for; table and file-system errors.
pub fn pin(catalog: &Catalog, table: &mut Table, request: &PinRequest) -> Result<DatasetVersion> {
    let name = request.name.as_str();
    check_name(name)?;
    let row_filter = crate::filter::check_filter(request.row_filter.as_deref())?;
    let fields = normalise_fields(request.selected_fields.as_deref())?;
    let folder = datasets_dir(&request.warehouse).join(name);
    table.refresh(catalog)?;
    let identifier = table.identifier().to_string();
    let snapshot_id = match request.snapshot_id {
        None => table.current_snapshot_id().ok_or_else(|| {
            Error::dataset(format!(
                "Iceberg table {identifier} has no snapshots yet; write data before pinning"
            ))
        })?,
        Some(id) if table.metadata().snapshot_by_id(id).is_some() => id,
        Some(id) => {
            return Err(Error::dataset(format!(
                "Iceberg table {identifier} has no snapshot {id}"
            )));
        }
    };
    let cannot_pin = |e: Error| Error::config(format!("cannot pin {name} from {identifier}: {e}"));
    let projection = projected_fields(table, snapshot_id, fields.as_deref()).map_err(cannot_pin)?;
    let row_count = count_rows(table, snapshot_id, row_filter.as_deref()).map_err(|e| match e {
        // The filter names an unknown column, is not a boolean, ...: the request is at fault.
        Error::Sql {
            source: source @ ldp_sql::Error::Sql { .. },
            ..
        } => cannot_pin(Error::config(source.to_string())),
        other => other,
    })?;
    let created_at = now_micros();
    let fingerprint = schema_fingerprint(&projection);
    let metadata_location = table.metadata_location().to_string();
    let build = |number: u32| DatasetVersion {
        name: name.to_string(),
        version: number,
        table_identifier: identifier.clone(),
        snapshot_id,
        row_filter: row_filter.clone(),
        selected_fields: fields.clone(),
        row_count,
        schema_fingerprint: fingerprint.clone(),
        created_at,
        catalog: request.catalog.clone(),
        metadata_location: Some(metadata_location.clone()),
        tag: request.tag.then(|| tag_name(name, number)),
        properties: request.properties.clone(),
        manifest_path: None,
    };
    let mut version = write_new(&folder, build)?;
    if let Some(tag) = version.tag.clone() {
        match tag_snapshot(catalog, table, &tag, snapshot_id) {
            Ok(()) => version.metadata_location = Some(table.metadata_location().to_string()),
            Err(e) => {
                tracing::warn!(
                    "Dataset {}: could not tag snapshot {snapshot_id} ({e}); snapshot expiry may remove it",
                    version.reference()
                );
                version.tag = None;
            }
        }
        rewrite(&version)?;
    }
    tracing::info!(
        dataset = version.reference(),
        rows = version.row_count,
        table = identifier,
        snapshot = snapshot_id,
        "pinned a dataset version"
    );
    Ok(version)
}

/// Tags `snapshot_id`, retrying when another commit moved the table; a tag already at that
/// snapshot is fine, one at another snapshot is an error.
fn tag_snapshot(catalog: &Catalog, table: &mut Table, tag: &str, snapshot_id: i64) -> Result<()> {
    let mut attempt = 1;
    loop {
        table.refresh(catalog)?;
        match table.ref_snapshot_id(tag) {
            Some(existing) if existing == snapshot_id => return Ok(()),
            Some(existing) => {
                return Err(Error::dataset(format!(
                    "Iceberg tag {tag} already points at snapshot {existing}"
                )));
            }
            None => {}
        }
        match ldp_table::refs::create_tag(catalog, table, tag, snapshot_id) {
            Ok(()) => return Ok(()),
            Err(e) if e.is_retryable() && attempt < TAG_ATTEMPTS => {
                tracing::debug!("tag {tag}: commit conflict, retrying ({attempt}/{TAG_ATTEMPTS})");
                attempt += 1;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// The column list of a pin: names trimmed, repeats dropped (first kept), at least one, none
/// empty. `None` stays `None` (every column).
///
/// # Errors
///
/// [`Error::Config`] for an empty list or an empty name.
pub fn normalise_fields(fields: Option<&[String]>) -> Result<Option<Vec<String>>> {
    let Some(fields) = fields else {
        return Ok(None);
    };
    let mut kept: Vec<String> = Vec::new();
    for field in fields {
        let field = field.trim().to_string();
        if !kept.contains(&field) {
            kept.push(field);
        }
    }
    if kept.is_empty() || kept.iter().any(String::is_empty) {
        return Err(Error::config(format!(
            "selected_fields must be a non-empty list of column names, got {}",
            ldp_pyrepr::repr_list(fields)
        )));
    }
    Ok(Some(kept))
}

/// Splits a comma-separated column list (`--fields a,b`).
pub fn split_fields(text: &str) -> Vec<String> {
    text.split(',')
        .map(|part| part.trim().to_string())
        .collect()
}

/// Parses `KEY=VALUE` (`--property split=train`): the key trimmed and not empty, the value as
/// given.
///
/// # Errors
///
/// [`Error::Config`] without `=` or with an empty key.
pub fn parse_property(text: &str) -> Result<(String, String)> {
    match text.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => {
            Ok((key.trim().to_string(), value.to_string()))
        }
        _ => Err(Error::config(format!(
            "--property expects KEY=VALUE, got {}",
            ldp_pyrepr::repr_str(text)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_lists_are_trimmed_and_deduplicated() {
        assert_eq!(normalise_fields(None).unwrap(), None);
        assert_eq!(
            normalise_fields(Some(&split_fields(" a, b ,a"))).unwrap(),
            Some(vec!["a".to_string(), "b".to_string()])
        );
        let error = normalise_fields(Some(&split_fields(""))).expect_err("empty");
        assert_eq!(
            error.to_string(),
            "selected_fields must be a non-empty list of column names, got ['']"
        );
        assert!(normalise_fields(Some(&[])).is_err());
        assert!(normalise_fields(Some(&split_fields("a,,b"))).is_err());
    }

    #[test]
    fn properties_are_key_value() {
        assert_eq!(
            parse_property(" split =train=1").unwrap(),
            ("split".to_string(), "train=1".to_string())
        );
        assert_eq!(
            parse_property("k=").unwrap(),
            ("k".to_string(), String::new())
        );
        assert_eq!(
            parse_property("novalue").expect_err("no =").to_string(),
            "--property expects KEY=VALUE, got 'novalue'"
        );
        assert!(parse_property("=v").is_err());
    }
}
