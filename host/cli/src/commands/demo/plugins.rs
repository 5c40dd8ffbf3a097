//! Step 9, which the Python tool cannot have: code ldp does not trust in the pipeline. A
//! third party's transform (JavaScript in a file, pinned by its sha256) enriches the rides on
//! their way from `demo.rides` to `demo.rides_enriched`; then a hostile transform tries to take
//! all the memory it can, the sandbox stops it, and the table stays as it was.

use anyhow::bail;
use ldp_config::WriteMode;
use ldp_pipeline::Pipeline;

use super::render::table;
use super::{Demo, SummaryRow, configs};
use crate::output::cell::cell;

/// The third party's transform, written to `plugins/fare_per_km.js` in the workdir.
pub const FARE_PER_KM_JS: &str = "\
// fare_per_km.js: a transform from a third party. It runs in ldp's JavaScript sandbox:
// no files, no network, no clock, bounded memory and time.
function schema(fields) {
  return [...fields, { name: 'fare_per_km', type: 'double' }];
}
function transform(rows) {
  return rows.map(r => ({ ...r, fare_per_km: Math.round(100 * r.fare / r.distance_km) / 100 }));
}
";

/// The hostile transform: it keeps every 8 MiB buffer it makes, until the sandbox says no.
const HOSTILE_JS: &str =
    "function transform(rows) { const hoard = []; for (;;) hoard.push(new ArrayBuffer(8 << 20)); }";

/// The hostile transform's memory, in MiB: small, so that it is stopped at once.
const HOSTILE_MEMORY_MB: u64 = 64;

/// Step 9: the third-party transform, then the hostile one.
pub(super) fn plugins(d: &mut Demo<'_>) -> anyhow::Result<Vec<SummaryRow>> {
    let file = d.dir().join("plugins/fare_per_km.js");
    let sha256 = ldp_plugin_runtime::sha256_hex(FARE_PER_KM_JS.as_bytes());
    let pipeline = enrich(
        d,
        serde_json::json!({
            "js_file": "plugins/fare_per_km.js",
            "sha256": sha256
        }),
    )?;
    let target = pipeline.target().clone();
    pipeline.run(d.runtime, &d.options(None))?;
    let rows = d.query_int(&target, None, "SELECT count(*) FROM rides_enriched")?;
    d.line(format!(
        "{} (sha256 {}...) ran in the sandbox on the way to {}:",
        file.strip_prefix(d.dir()).unwrap_or(&file).display(),
        &sha256[..12],
        target.identifier()
    ))?;
    d.line(format!("{rows} rows, with the new column fare_per_km"))?;
    let out = d.query(
        &target,
        None,
        "SELECT city, round(avg(fare_per_km), 2) AS avg_fare_per_km FROM rides_enriched \
         GROUP BY city ORDER BY city",
    )?;
    let cells: Vec<Vec<String>> = out
        .batches
        .iter()
        .flat_map(|b| {
            (0..b.num_rows()).map(move |r| {
                vec![
                    cell(b.column(0), r).display(),
                    format!("{:.2}", cell_f64(b, r)),
                ]
            })
        })
        .collect();
    for line in table(&["city", "avg_fare_per_km"], &cells, &[false, true]) {
        d.line(format!("  {line}"))?;
    }

    let before = target.load()?.snapshots().len();
    let hostile = enrich(
        d,
        serde_json::json!({
            "js": HOSTILE_JS,
            "name": "hoarder",
            "limits": {"memory_mb": HOSTILE_MEMORY_MB}
        }),
    )?;
    let error = match hostile.run(d.runtime, &d.options(Some(WriteMode::Append))) {
        Ok(_) => bail!("the hostile transform was not stopped"),
        Err(e) => e,
    };
    d.line(format!(
        "A hostile transform tried to take all the memory it could; the sandbox ({HOSTILE_MEMORY_MB} MiB) stopped it:"
    ))?;
    d.line(format!("  {error}"))?;
    let after = target.load()?.snapshots().len();
    let rows_after = d.query_int(&target, None, "SELECT count(*) FROM rides_enriched")?;
    if after != before || rows_after != rows {
        bail!("the hostile run changed {}", target.identifier());
    }
    d.line(format!(
        "Nothing was written: {} still has {rows_after} rows and {after} snapshot{}",
        target.identifier(),
        if after == 1 { "" } else { "s" }
    ))?;
    Ok(vec![SummaryRow::new(
        "9 plugins",
        format!("fare_per_km added to {rows} rows; hostile one stopped"),
    )])
}

/// `demo.rides` into `demo.rides_enriched` through `transform`.
fn enrich(d: &Demo<'_>, transform: serde_json::Value) -> anyhow::Result<Pipeline> {
    Ok(Pipeline::open(configs::load(
        &configs::enriched(transform),
        d.dir(),
    )?)?)
}

/// The float of column 1, row `r` (the average).
fn cell_f64(batch: &arrow_array::RecordBatch, r: usize) -> f64 {
    match cell(batch.column(1), r) {
        crate::output::cell::Cell::Float(f) => f,
        crate::output::cell::Cell::Int(i) => i as f64,
        _ => f64::NAN,
    }
}
