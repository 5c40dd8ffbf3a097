//! `ldp datasets pin|list|export`: pinned dataset versions (see the `ldp_datasets` crate).

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use ldp_catalog::Mode;
use ldp_datasets::{CatalogSpec, DatasetVersion, ExportFormat, PinRequest};
use ldp_pipeline::TargetTable;
use serde_json::{Value, json};

use crate::args::{DatasetsExportArgs, DatasetsListArgs, DatasetsPinArgs, DatasetsWhere};
use crate::output::cell::Cell;
use crate::output::table;

/// `--config`'s warehouse, else `--warehouse`, else `$LDP_WAREHOUSE`.
fn warehouse(place: &DatasetsWhere) -> anyhow::Result<PathBuf> {
    if let Some(path) = &place.config {
        let config = ldp_pipeline::open_config(path)?;
        return Ok(TargetTable::of_config(&config, path)?.warehouse);
    }
    Ok(ldp_datasets::resolve_warehouse(place.warehouse.as_deref())?)
}

/// `ldp datasets pin CONFIG NAME`.
pub fn pin(args: &DatasetsPinArgs) -> anyhow::Result<u8> {
    let config = ldp_pipeline::open_config(&args.config)?;
    let target = TargetTable::of_config(&config, &args.config)?;
    let mut properties = BTreeMap::new();
    for item in &args.property {
        let (key, value) = ldp_datasets::parse_property(item)?;
        properties.insert(key, value);
    }
    let warehouse = match std::env::var_os(ldp_datasets::WAREHOUSE_ENV) {
        Some(value) if !target.local && !value.is_empty() => {
            ldp_datasets::resolve_warehouse(Some(Path::new(&value)))?
        }
        _ => target.warehouse.clone(),
    };
    let catalog_spec = CatalogSpec::recorded(
        &target.catalog,
        &target.catalog_name,
        &target.warehouse,
        target.local,
    );
    let catalog = target.open_catalog(Mode::ReadWrite)?;
    let mut table = ldp_table::Table::load(&catalog, &target.namespace, &target.name)?;
    let request = PinRequest {
        name: args.name.clone(),
        row_filter: args.filter.clone(),
        selected_fields: args.fields.as_deref().map(ldp_datasets::split_fields),
        snapshot_id: args.snapshot,
        properties,
        tag: !args.no_tag,
        warehouse,
        catalog: catalog_spec,
    };
    let version = ldp_datasets::pin(&catalog, &mut table, &request)?;
    let manifest = manifest_path(&version);
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let mut doc = version.to_json();
        if let Value::Object(map) = &mut doc {
            map.insert("manifest_path".into(), json!(manifest));
        }
        writeln!(stdout, "{}", super::json_text(&doc)?)?;
        return Ok(0);
    }
    let tag = version
        .tag
        .as_ref()
        .map(|t| format!(" (tag {t})"))
        .unwrap_or_default();
    writeln!(
        stdout,
        "Pinned {}: {} rows of {} at snapshot {}{tag}",
        version.reference(),
        version.row_count,
        version.table_identifier,
        version.snapshot_id
    )?;
    writeln!(stdout, "  manifest: {manifest}")?;
    Ok(0)
}

fn manifest_path(version: &DatasetVersion) -> String {
    version
        .manifest_path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

/// `ldp datasets list [NAME]`.
pub fn list(args: &DatasetsListArgs) -> anyhow::Result<u8> {
    let warehouse = warehouse(&args.place)?;
    let folder = ldp_datasets::datasets_dir(&warehouse);
    // (version, how many versions the dataset has when listing every dataset)
    let rows: Vec<(DatasetVersion, Option<usize>)> = match &args.name {
        Some(name) => {
            let versions = ldp_datasets::list_versions(name, &warehouse)?;
            if versions.is_empty() {
                return Err(ldp_datasets::Error::Dataset {
                    message: format!(
                        "dataset {} has no versions in {}",
                        ldp_pyrepr::repr_str(name),
                        folder.display()
                    ),
                }
                .into());
            }
            versions.into_iter().map(|v| (v, None)).collect()
        }
        None => {
            let mut rows = Vec::new();
            for name in ldp_datasets::list_datasets(&warehouse)? {
                let versions = ldp_datasets::list_versions(&name, &warehouse)?;
                let count = versions.len();
                if let Some(latest) = versions.into_iter().last() {
                    rows.push((latest, Some(count)));
                }
            }
            rows
        }
    };
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let list: Vec<Value> = rows
            .iter()
            .map(|(v, count)| {
                let mut row = json!({
                    "name": v.name,
                    "version": v.version,
                    "table": v.table_identifier,
                    "snapshot_id": v.snapshot_id,
                    "rows": v.row_count,
                    "row_filter": v.row_filter,
                    "fields": v.selected_fields,
                    "created_at": ldp_datasets::iso_utc(v.created_at),
                    "tag": v.tag,
                    "properties": v.properties,
                    "manifest_path": manifest_path(v),
                });
                if let (Some(count), Value::Object(map)) = (count, &mut row) {
                    map.insert("versions".into(), json!(count));
                }
                row
            })
            .collect();
        let doc = json!({"warehouse": warehouse.display().to_string(), "datasets": list});
        writeln!(stdout, "{}", super::json_text(&doc)?)?;
        return Ok(0);
    }
    if rows.is_empty() {
        writeln!(stdout, "No datasets in {}", folder.display())?;
        return Ok(0);
    }
    let mut header: Vec<String> = [
        "name",
        "version",
        "table",
        "snapshot_id",
        "rows",
        "row_filter",
        "fields",
        "created_at_utc",
    ]
    .map(String::from)
    .to_vec();
    if args.name.is_none() {
        header.push("versions".into());
    }
    let cells: Vec<Vec<Cell>> = rows
        .iter()
        .map(|(v, count)| {
            let mut row = vec![
                Cell::Text(v.name.clone()),
                Cell::UInt(u64::from(v.version)),
                Cell::Text(v.table_identifier.clone()),
                Cell::Int(v.snapshot_id),
                Cell::UInt(v.row_count),
                Cell::Text(v.row_filter.clone().unwrap_or_else(|| "-".into())),
                Cell::Text(
                    v.selected_fields
                        .as_ref()
                        .filter(|f| !f.is_empty())
                        .map_or_else(|| "*".into(), |f| f.join(",")),
                ),
                Cell::Text(ldp_datasets::utc_seconds(v.created_at)),
            ];
            if let Some(count) = count {
                row.push(Cell::UInt(*count as u64));
            }
            row
        })
        .collect();
    write!(
        stdout,
        "{}",
        table::render(&header, &cells, cells.len() as u64)
    )?;
    Ok(0)
}

/// `ldp datasets export NAME[@vN] DEST`.
pub fn export(args: &DatasetsExportArgs) -> anyhow::Result<u8> {
    let warehouse = warehouse(&args.place)?;
    let format: ExportFormat = args.format.parse()?;
    let version = ldp_datasets::get_version(&args.name, args.version, &warehouse)?;
    if args.dest.as_os_str() == "-" {
        return export_to_stdout(&version, format);
    }
    let rows = ldp_datasets::export(&version, &args.dest, format)?;
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let doc = json!({
            "dataset": version.reference(),
            "name": version.name,
            "version": version.version,
            "rows": rows,
            "snapshot_id": version.snapshot_id,
            "dest": args.dest.display().to_string(),
            "format": format.as_str(),
        });
        writeln!(stdout, "{}", super::json_text(&doc)?)?;
        return Ok(0);
    }
    writeln!(
        stdout,
        "Exported {} ({rows} rows, snapshot {}) to {} as {format}",
        version.reference(),
        version.snapshot_id,
        args.dest.display()
    )?;
    Ok(0)
}

/// `ldp datasets export NAME -`: the rows on stdout, as JSON Lines or an Arrow IPC stream.
fn export_to_stdout(version: &DatasetVersion, format: ExportFormat) -> anyhow::Result<u8> {
    let writes = |out: &mut dyn std::io::Write| -> anyhow::Result<()> {
        let rows = ldp_datasets::load(version)?;
        let mut out = std::io::BufWriter::new(out);
        match format {
            ExportFormat::Arrow => ldp_datasets::write_arrow(version, &rows, &mut out)?,
            _ => ldp_datasets::write_jsonl(&rows, &mut out)?,
        }
        out.flush()?;
        Ok(())
    };
    match format {
        ExportFormat::Parquet => anyhow::bail!(
            "Parquet needs a file; give a file as DEST, or --format arrow (or jsonl) to write to stdout"
        ),
        ExportFormat::Arrow if std::io::stdout().is_terminal() => anyhow::bail!(
            "--format arrow writes a binary Arrow IPC stream; redirect stdout to a file or a pipe"
        ),
        _ => writes(&mut std::io::stdout().lock())?,
    }
    Ok(0)
}
