//! `ldp plugins`, `ldp plugins inspect`, `ldp plugins run`.

use crate::args::RunOutput;
use crate::settings::{PluginRef, RunSettings};
use anyhow::Context;
use arrow_array::RecordBatch;
use ldp_plugin_runtime::{FileFormat, Grants, Plugin, Runtime, Sandbox, TransformStream};
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Loads one built-in plugin.
fn load_builtin(runtime: &Runtime, b: &ldp_builtin_plugins::Builtin) -> anyhow::Result<Plugin> {
    Ok(runtime.load_embedded(&format!("built-in plugin '{}'", b.name), b.bytes, b.sha256)?)
}

/// Loads every built-in plugin.
fn builtins(runtime: &Runtime) -> anyhow::Result<Vec<Plugin>> {
    ldp_builtin_plugins::BUILTIN
        .iter()
        .map(|b| load_builtin(runtime, b))
        .collect()
}

/// `ldp plugins`: the built-in plugins.
pub fn list(runtime: &Runtime, json: bool) -> anyhow::Result<u8> {
    let plugins = builtins(runtime)?;
    let mut out = std::io::stdout().lock();
    if json {
        let list: Vec<_> = plugins
            .iter()
            .map(|p| {
                let info = p.info();
                json!({
                    "name": info.name,
                    "kind": info.kind,
                    "version": info.version,
                    "description": info.description,
                    "sha256": p.sha256(),
                    "config_schema": serde_json::from_str::<serde_json::Value>(&info.config_schema)
                        .unwrap_or_else(|_| json!(info.config_schema)),
                })
            })
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
        return Ok(0);
    }
    let rows: Vec<[String; 5]> = plugins
        .iter()
        .map(|p| {
            let i = p.info();
            [
                i.name.clone(),
                i.kind.to_string(),
                i.version.clone(),
                config_keys(&i.config_schema),
                i.description.clone(),
            ]
        })
        .collect();
    write_table(
        &mut out,
        &[
            "name",
            "kind",
            "version",
            "config (* required)",
            "description",
        ],
        &rows,
    )?;
    writeln!(
        out,
        "\n`ldp plugins --json` shows each plugin's config schema; `ldp plugins inspect FILE.wasm` \
         checks a plugin file."
    )?;
    Ok(0)
}

/// The top-level keys of a config schema, required ones marked with `*`.
fn config_keys(schema: &str) -> String {
    let Ok(schema) = serde_json::from_str::<serde_json::Value>(schema) else {
        return String::new();
    };
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    schema["properties"]
        .as_object()
        .map(|props| {
            props
                .keys()
                .map(|k| {
                    if required.contains(&k.as_str()) {
                        format!("{k}*")
                    } else {
                        k.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

/// `ldp plugins inspect FILE`.
pub fn inspect(runtime: &Runtime, file: &Path, json: bool) -> anyhow::Result<u8> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let inspection = runtime.inspect(&file.display().to_string(), &bytes);
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&inspection)?)?;
    } else {
        writeln!(out, "file:     {}", inspection.file)?;
        writeln!(out, "size:     {} bytes", inspection.bytes)?;
        writeln!(out, "sha256:   {}", inspection.sha256)?;
        let format = match inspection.format {
            FileFormat::Component => "WebAssembly component",
            FileFormat::CoreModule => "core WebAssembly module (not a component)",
            FileFormat::NotWasm => "not WebAssembly",
        };
        writeln!(out, "format:   {format}")?;
        for (label, names) in [
            ("imports", &inspection.imports),
            ("exports", &inspection.exports),
        ] {
            if !names.is_empty() {
                writeln!(out, "{label}:")?;
                for name in names {
                    writeln!(out, "  {name}")?;
                }
            }
        }
        if let Some(info) = &inspection.plugin {
            writeln!(out, "ldp plugin: yes")?;
            writeln!(out, "  name:        {}", info.name)?;
            writeln!(out, "  kind:        {}", info.kind)?;
            writeln!(out, "  version:     {}", info.version)?;
            writeln!(out, "  description: {}", info.description)?;
            writeln!(out, "  config schema: {}", info.config_schema)?;
        }
    }
    if let Some(problem) = &inspection.problem {
        writeln!(
            std::io::stderr(),
            "ldp: error: {} is not an ldp plugin: {problem}",
            inspection.file
        )?;
        return Ok(1);
    }
    Ok(0)
}

/// `ldp plugins run PLUGIN`.
pub fn run(runtime: &Runtime, settings: &RunSettings) -> anyhow::Result<u8> {
    let started = Instant::now();
    let load = |plugin: &PluginRef| -> anyhow::Result<Plugin> {
        Ok(match plugin {
            PluginRef::Builtin(b) => load_builtin(runtime, b)?,
            PluginRef::File(path) => runtime.load_file(path)?,
        })
    };
    let plugin = load(&settings.plugin)?;
    let mut source = plugin.open_source(&settings.config, &settings.sandbox)?;
    // Transforms see no files: the source's grants are not theirs.
    let no_grants = Sandbox {
        limits: settings.sandbox.limits.clone(),
        grants: Grants::default(),
    };
    let mut schema = source.schema().clone();
    let mut chain = Vec::with_capacity(settings.transforms.len());
    for (reference, config) in &settings.transforms {
        let transform = load(reference)?;
        let stream = transform.open_transform(config, &schema, &no_grants)?;
        schema = stream.output_schema().clone();
        chain.push(stream);
    }
    let stdout = std::io::stdout().lock();
    let mut csv = (settings.output == RunOutput::Csv).then(|| {
        arrow_csv::WriterBuilder::new()
            .with_header(true)
            .build(stdout)
    });
    let (mut rows, mut batches, mut printed) = (0u64, 0u64, 0u64);
    let mut emit = |out: Vec<RecordBatch>| -> anyhow::Result<()> {
        for batch in out {
            rows += batch.num_rows() as u64;
            batches += 1;
            if let Some(writer) = csv.as_mut() {
                let room = settings
                    .head
                    .map_or(u64::MAX, |h| h.saturating_sub(printed));
                let take = room.min(batch.num_rows() as u64) as usize;
                if take > 0 {
                    writer.write(&batch.slice(0, take))?;
                    printed += take as u64;
                }
            }
        }
        Ok(())
    };
    while let Some(batch) = source.next_batch()? {
        emit(push_through(&mut chain, 0, vec![batch])?)?;
    }
    emit(flush_chain(&mut chain)?)?;
    drop(csv);
    let seconds = started.elapsed().as_secs_f64();
    if settings.output == RunOutput::Json {
        let fields: Vec<_> = schema
            .fields()
            .iter()
            .map(|f| json!({"name": f.name(), "type": f.data_type().to_string()}))
            .collect();
        let summary = json!({
            "plugin": plugin.name(),
            "sha256": plugin.sha256(),
            "schema": fields,
            "rows": rows,
            "batches": batches,
            "duration_s": (seconds * 1000.0).round() / 1000.0,
        });
        writeln!(
            std::io::stdout(),
            "{}",
            serde_json::to_string_pretty(&summary)?
        )?;
    } else {
        writeln!(
            std::io::stderr(),
            "{}: read {rows} rows in {batches} batches in {seconds:.2}s",
            plugin.name()
        )?;
    }
    Ok(0)
}

/// Pushes `batches` through the transforms from `from` on.
fn push_through(
    chain: &mut [TransformStream],
    from: usize,
    mut batches: Vec<RecordBatch>,
) -> anyhow::Result<Vec<RecordBatch>> {
    for stream in chain.iter_mut().skip(from) {
        let mut next = Vec::new();
        for batch in &batches {
            next.extend(stream.push(batch)?);
        }
        batches = next;
    }
    Ok(batches)
}

/// Flushes the transforms in order: what one gives back goes through the ones after it,
/// before they are flushed in turn.
fn flush_chain(chain: &mut [TransformStream]) -> anyhow::Result<Vec<RecordBatch>> {
    let mut out = Vec::new();
    for i in 0..chain.len() {
        let held = chain[i].flush()?;
        out.extend(push_through(chain, i + 1, held)?);
    }
    Ok(out)
}

/// The common table format: header, dashes, rows; two spaces between columns.
fn write_table<const N: usize>(
    out: &mut impl Write,
    header: &[&str; N],
    rows: &[[String; N]],
) -> std::io::Result<()> {
    let rows: Vec<Vec<String>> = rows.iter().map(|row| row.to_vec()).collect();
    for line in crate::output::table::lines(header, &rows, &[false; N]) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
