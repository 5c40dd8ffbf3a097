//! Source and target blocks (`metadata.source`, `metadata.target`): checked by format, then
//! built into a [`Block`].

use serde_json::{Map, Value};

use crate::catalog::check_catalog;
use crate::model::{Block, Credentials, Format, Section, Sheet, WriteMode};
use crate::names::{NameKind, check_name};
use crate::partition::check_partition_by;
use crate::problems::{Mode, Problems, as_whole, check_string, get, join, truthy};
use crate::repr::{repr, repr_list};

/// The keys that select a DuckDB source's rows; exactly one is needed.
pub const DUCKDB_QUERY_KEYS: [&str; 3] = ["relation", "sql", "query_file"];

/// The key of a DuckDB source that reads Iceberg tables in place of a file: the dataset
/// configs whose tables the query reads.
pub const DUCKDB_INPUTS_KEY: &str = "inputs";

/// Checks `metadata.<section>` and returns the block when it is valid.
pub(crate) fn check_block(
    problems: &mut Problems,
    value: Option<&Value>,
    section: Section,
    mode: Mode,
) -> Option<Block> {
    let at = format!("metadata.{}", section.as_str());
    check_block_at(problems, value, section, mode, &at)
}

/// [`check_block`] for a block at another JSON path than `metadata.<section>` (the `target` of a
/// workflow's `sql` task).
pub(crate) fn check_block_at(
    problems: &mut Problems,
    value: Option<&Value>,
    section: Section,
    mode: Mode,
    at: &str,
) -> Option<Block> {
    let at = at.to_owned();
    let block = match value {
        Some(Value::Object(block)) => block,
        None | Some(Value::Null) => {
            problems.add(&at, "is required and must be an object");
            return None;
        }
        Some(_) => {
            problems.add(&at, "must be an object");
            return None;
        }
    };
    let raw_format = block.get("format").unwrap_or(&Value::Null);
    let Some(format) = raw_format.as_str().and_then(Format::parse) else {
        let formats: Vec<&str> = Format::ALL.iter().map(|format| format.as_str()).collect();
        problems.add(
            &join(&at, "format"),
            format!(
                "must be one of {}, got {}",
                repr_list(&formats),
                repr(raw_format)
            ),
        );
        return None;
    };
    let before = problems.len();
    let name = check_string(problems, block, "name", &at, true);
    let engine = check_string(problems, block, "engine", &at, false)
        .map(|engine| engine.trim().to_uppercase());
    let mut built = Block {
        name: name.clone().unwrap_or_default(),
        format,
        path: get(block, "path")
            .and_then(Value::as_str)
            .map(str::to_owned),
        engine,
        catalog: None,
        write_mode: None,
        join_cols: Vec::new(),
        partition_by: Vec::new(),
        schema_evolution: true,
        relation: None,
        sql: None,
        query_file: None,
        inputs: Vec::new(),
        sheet: None,
        header_row: 1,
        credentials: None,
        extra: block
            .iter()
            .filter(|(key, _)| !Block::KNOWN_KEYS.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect(),
    };
    if format == Format::Iceberg {
        // A blank name is reported by `check_string` above.
        if let Some(name) = name.as_deref() {
            check_name(problems, &join(&at, "name"), NameKind::Table, name);
        }
        match block.get("catalog") {
            None => problems.add(&join(&at, "catalog"), "is required for an Iceberg table"),
            Some(catalog) => {
                built.catalog = check_catalog(problems, catalog, &join(&at, "catalog"), mode)
            }
        }
        if section == Section::Target {
            check_iceberg_target(problems, block, &at, &mut built);
        }
    } else {
        // A source read by a plugin file (`plugin`, an ldp extension) takes what to read from
        // its own `config`: no path needed.
        let plugin_source = section == Section::Source && get(block, "plugin").is_some();
        // A DuckDB source with `inputs` reads their tables, not a file.
        let reads_inputs = section == Section::Source
            && format == Format::DuckDb
            && get(block, DUCKDB_INPUTS_KEY).is_some();
        check_string(
            problems,
            block,
            "path",
            &at,
            !plugin_source && !reads_inputs,
        );
        if section == Section::Source && !plugin_source {
            match format {
                Format::DuckDb => check_duckdb(problems, block, &at, &mut built),
                Format::Xlsx => check_xlsx(problems, block, &at, &mut built),
                Format::Csv | Format::Json => {
                    crate::source_options::check(problems, block, format, &at)
                }
                _ => {}
            }
        }
        // A target written by a sink plugin file takes its options in the plugin's `config`.
        if section == Section::Target && get(block, "plugin").is_none() {
            check_file_target(problems, block, format, &at, &mut built);
        }
        if format == Format::Json && built.engine.as_deref() == Some("BIGQUERY") {
            check_credentials(problems, block, &at, &mut built);
        }
    }
    (problems.len() == before).then_some(built)
}

fn check_iceberg_target(
    problems: &mut Problems,
    block: &Map<String, Value>,
    at: &str,
    built: &mut Block,
) {
    let mode = block.get("write_mode").filter(|value| !value.is_null());
    let parsed = mode.and_then(Value::as_str).and_then(WriteMode::parse);
    if let Some(mode) = mode
        && parsed.is_none()
    {
        let modes: Vec<&str> = WriteMode::ALL.iter().map(|mode| mode.as_str()).collect();
        problems.add(
            &join(at, "write_mode"),
            format!("must be one of {}, got {}", repr_list(&modes), repr(mode)),
        );
    }
    built.write_mode = parsed;
    if let Some(join_cols) = get(block, "join_cols") {
        let columns: Option<Vec<String>> = match join_cols {
            Value::String(text) => Some(vec![text.clone()]),
            Value::Array(items) => items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect(),
            _ => None,
        };
        match columns {
            Some(columns)
                if !columns.is_empty() && columns.iter().all(|column| !column.is_empty()) =>
            {
                built.join_cols = columns;
            }
            _ => problems.add(
                &join(at, "join_cols"),
                format!(
                    "must be a column name or a list of column names, got {}",
                    repr(join_cols)
                ),
            ),
        }
    }
    if parsed == Some(WriteMode::Upsert) && !truthy(block.get("join_cols")) {
        problems.add(
            &join(at, "join_cols"),
            "is required when write_mode is 'upsert'",
        );
    }
    if let Some(items) = get(block, "partition_by") {
        built.partition_by =
            check_partition_by(problems, items, &join(at, "partition_by")).unwrap_or_default();
    }
    match get(block, "schema_evolution") {
        None => {}
        Some(Value::Bool(flag)) => built.schema_evolution = *flag,
        Some(other) => {
            problems.add(
                &join(at, "schema_evolution"),
                format!("must be true or false, got {}", repr(other)),
            );
        }
    }
}

fn check_duckdb(problems: &mut Problems, block: &Map<String, Value>, at: &str, built: &mut Block) {
    let given: Vec<&str> = DUCKDB_QUERY_KEYS
        .iter()
        .copied()
        .filter(|key| get(block, key).is_some())
        .collect();
    match given.len() {
        0 => problems.add(
            at,
            "a DUCKDB source needs exactly one of 'relation', 'sql' or 'query_file', and has none",
        ),
        1 => {}
        n => problems.add(
            at,
            format!(
                "a DUCKDB source needs exactly one of 'relation', 'sql' or 'query_file', and has {n}: {}",
                repr_list(&given)
            ),
        ),
    }
    built.relation = check_string(problems, block, "relation", at, false);
    if let Some(relation) = &built.relation {
        let parts: Vec<&str> = relation.trim().split('.').collect();
        if parts.len() > 3 || parts.iter().any(|part| part.trim().is_empty()) {
            problems.add(
                &join(at, "relation"),
                format!(
                    "must be a table or view as table, schema.table or catalog.schema.table, got {}",
                    repr(&Value::from(relation.as_str()))
                ),
            );
        }
    }
    built.sql = check_string(problems, block, "sql", at, false);
    built.query_file = check_string(problems, block, "query_file", at, false);
    if let Some(inputs) = get(block, DUCKDB_INPUTS_KEY) {
        check_inputs(problems, block, inputs, at, built);
    }
}

/// `inputs`: a non-empty list of config paths, in place of `path`, with `sql` or `query_file`.
fn check_inputs(
    problems: &mut Problems,
    block: &Map<String, Value>,
    inputs: &Value,
    at: &str,
    built: &mut Block,
) {
    let key = join(at, DUCKDB_INPUTS_KEY);
    if get(block, "path").is_some() {
        problems.add(
            at,
            "a DUCKDB source reads a file ('path') or the tables of its 'inputs', not both",
        );
    }
    if get(block, "relation").is_some() {
        problems.add(
            &join(at, "relation"),
            "names a table of a DuckDB file; a source with 'inputs' reads them with 'sql' or 'query_file'",
        );
    }
    let items = match inputs {
        Value::Array(items) if !items.is_empty() => items,
        other => {
            problems.add(
                &key,
                format!(
                    "must be a non-empty list of dataset configs (paths relative to this config), got {}",
                    repr(other)
                ),
            );
            return;
        }
    };
    for (i, item) in items.iter().enumerate() {
        match item.as_str().map(str::trim) {
            Some(path) if !path.is_empty() => {
                if built.inputs.iter().any(|seen| seen == path) {
                    problems.add(&format!("{key}[{i}]"), format!("repeats {}", repr(item)));
                } else {
                    built.inputs.push(path.to_owned());
                }
            }
            _ => problems.add(
                &format!("{key}[{i}]"),
                format!("must be the path of a dataset config, got {}", repr(item)),
            ),
        }
    }
}

fn check_xlsx(problems: &mut Problems, block: &Map<String, Value>, at: &str, built: &mut Block) {
    if let Some(path) = get(block, "path").and_then(Value::as_str)
        && path.trim().to_lowercase().ends_with(".xls")
    {
        problems.add(
            &join(at, "path"),
            "an .xls workbook is not supported; save it as .xlsx",
        );
    }
    match get(block, "sheet") {
        None => {}
        Some(Value::String(name)) if !name.is_empty() => {
            built.sheet = Some(Sheet::Name(name.clone()))
        }
        Some(value) => match as_whole(value) {
            Some(index) if index >= 0 => {
                built.sheet = Some(Sheet::Index(u64::try_from(index).unwrap_or(u64::MAX)))
            }
            _ => problems.add(
                &join(at, "sheet"),
                format!(
                    "must be a sheet name or a position from 0, got {}",
                    repr(value)
                ),
            ),
        },
    }
    if let Some(value) = get(block, "header_row") {
        match as_whole(value) {
            Some(row) if row >= 1 => built.header_row = u64::try_from(row).unwrap_or(u64::MAX),
            _ => problems.add(
                &join(at, "header_row"),
                format!("must be a whole number from 1, got {}", repr(value)),
            ),
        }
    }
}

/// A file target's own options (an XLSX target's `sheet` and `header`); an `.xls` path is
/// refused as it is for a source.
fn check_file_target(
    problems: &mut Problems,
    block: &Map<String, Value>,
    format: Format,
    at: &str,
    built: &mut Block,
) {
    if format == Format::Xlsx
        && let Some(path) = get(block, "path").and_then(Value::as_str)
        && path.trim().to_lowercase().ends_with(".xls")
    {
        problems.add(
            &join(at, "path"),
            "ldp writes .xlsx workbooks, not the older .xls; name the file .xlsx",
        );
    }
    built.sheet = crate::target_options::check(problems, block, format, at);
    if format == Format::DuckDb {
        check_duckdb_target(problems, block, at, built);
    }
}

/// A DUCKDB target: a table of a local DuckDB file, appended to (by default) or overwritten.
fn check_duckdb_target(
    problems: &mut Problems,
    block: &Map<String, Value>,
    at: &str,
    built: &mut Block,
) {
    if let Some(path) = get(block, "path").and_then(Value::as_str)
        && path.contains("://")
    {
        problems.add(
            &join(at, "path"),
            format!(
                "a DUCKDB target is a local DuckDB file, got {}",
                repr(&Value::String(path.into()))
            ),
        );
    }
    let Some(mode) = block.get("write_mode").filter(|value| !value.is_null()) else {
        return;
    };
    match mode.as_str().and_then(WriteMode::parse) {
        Some(WriteMode::Upsert) => problems.add(
            &join(at, "write_mode"),
            "a DUCKDB target is appended to or overwritten; 'upsert' needs an Iceberg table",
        ),
        Some(parsed) => built.write_mode = Some(parsed),
        None => problems.add(
            &join(at, "write_mode"),
            format!("must be one of ['append', 'overwrite'], got {}", repr(mode)),
        ),
    }
}

fn check_credentials(
    problems: &mut Problems,
    block: &Map<String, Value>,
    at: &str,
    built: &mut Block,
) {
    let Some(credentials) = get(block, "credentials") else {
        return;
    };
    let here = join(at, "credentials");
    let Some(map) = credentials.as_object() else {
        problems.add(&here, "must be an object with a 'path' to a key file");
        return;
    };
    let path = check_string(problems, map, "path", &here, true);
    let name = get(map, "name").and_then(Value::as_str).map(str::to_owned);
    built.credentials = Some(Credentials { name, path });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn block(value: Value, section: Section) -> Result<Block, Vec<String>> {
        let mut problems = Problems::default();
        check_block(&mut problems, Some(&value), section, Mode::Plan)
            .ok_or_else(|| problems.into_vec())
    }

    #[test]
    fn iceberg_target() {
        let target = block(
            json!({"name": "rides", "format": "iceberg", "catalog": {"identifier": "nyc", "warehouse_path": "w"},
                   "write_mode": "UPSERT", "join_cols": "id", "partition_by": [{"column": "ts", "transform": "day"}],
                   "schema_evolution": false, "comment": "kept"}),
            Section::Target,
        )
        .unwrap();
        assert_eq!(target.write_mode(), WriteMode::Upsert);
        assert_eq!(target.join_cols, ["id"]);
        assert_eq!(target.partition_by.len(), 1);
        assert!(!target.schema_evolution);
        assert_eq!(target.extra.keys().collect::<Vec<_>>(), ["comment"]);
        assert_eq!(
            block(json!({"name": "t", "format": "ICEBERG", "catalog": {"identifier": "n", "warehouse_path": "w"},
                         "write_mode": "merge", "join_cols": [], "schema_evolution": "yes"}), Section::Target)
            .unwrap_err(),
            [
                "metadata.target.write_mode: must be one of ['append', 'overwrite', 'upsert'], got 'merge'",
                "metadata.target.join_cols: must be a column name or a list of column names, got []",
                "metadata.target.schema_evolution: must be true or false, got 'yes'",
            ]
        );
        assert_eq!(
            block(json!({"name": "t", "format": "ICEBERG"}), Section::Source).unwrap_err(),
            ["metadata.source.catalog: is required for an Iceberg table"]
        );
    }

    #[test]
    fn file_sources() {
        let csv = block(
            json!({"name": "s", "format": " csv ", "path": "a.csv"}),
            Section::Source,
        )
        .unwrap();
        assert_eq!(
            (csv.format, csv.write_mode()),
            (Format::Csv, WriteMode::Overwrite)
        );
        assert_eq!(
            block(json!({"name": "", "format": "CSV"}), Section::Source).unwrap_err(),
            [
                "metadata.source.name: must be a non-empty string, got ''",
                "metadata.source.path: is required"
            ]
        );
        assert_eq!(
            block(json!({"name": "d", "format": "duckdb", "path": "x.duckdb", "relation": "a.b.c.d", "sql": "select 1"}), Section::Source)
                .unwrap_err(),
            [
                "metadata.source: a DUCKDB source needs exactly one of 'relation', 'sql' or 'query_file', and has 2: ['relation', 'sql']",
                "metadata.source.relation: must be a table or view as table, schema.table or catalog.schema.table, got 'a.b.c.d'",
            ]
        );
        let xlsx = block(
            json!({"name": "x", "format": "XLSX", "path": "a.xlsx", "sheet": 2, "header_row": 3}),
            Section::Source,
        )
        .unwrap();
        assert_eq!((xlsx.sheet, xlsx.header_row), (Some(Sheet::Index(2)), 3));
        assert_eq!(
            block(
                json!({"name": "x", "format": "XLSX", "path": "a.xls", "header_row": 0}),
                Section::Source
            )
            .unwrap_err(),
            [
                "metadata.source.path: an .xls workbook is not supported; save it as .xlsx",
                "metadata.source.header_row: must be a whole number from 1, got 0",
            ]
        );
        let bq = block(
            json!({"name": "q", "format": "json", "engine": "bigquery", "path": "q.json", "credentials": {"name": "n", "path": "k.json"}}),
            Section::Source,
        )
        .unwrap();
        assert_eq!(
            bq.credentials.and_then(|c| c.path).as_deref(),
            Some("k.json")
        );
    }
}
