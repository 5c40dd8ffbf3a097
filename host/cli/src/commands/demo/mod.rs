//! `ldp demo [--workdir DIR] [--rows N] [--seed S]`: the Python tool's demo (`docs/demo.md`),
//! run through ldp's real machinery, the way a user would run it.
//!
//! The rides come from [`ldp_demo`] (bit-exact with the Python tool's generator); every step runs
//! a config through [`ldp_pipeline`] (the plugins of one [`Runtime`] in their sandbox), reads
//! through [`ldp_sql`] (DataFusion) and [`ldp_table`], and prints the Python tool's numbers.
//!
//! * this file: arguments → [`DemoSettings`], the step list ([`STEPS`]), the header, the
//!   summary and the closing hints;
//! * [`workdir`]: the folder rules and the files written before the first step;
//! * [`configs`]: the config JSON values the steps run;
//! * [`load`] (steps 1–3), [`tables`] (4–5), [`read`] (6–8), [`plugins`] (9): the steps;
//! * [`render`]: step headers, aligned tables, numbers.

mod configs;
mod load;
mod plugins;
mod read;
mod render;
mod tables;
mod workdir;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, bail};
use arrow_array::RecordBatch;
use ldp_config::WriteMode;
use ldp_pipeline::{QualityReport, RunOptions, TargetTable};
use ldp_plugin_runtime::Runtime;
use ldp_sql::{QueryOutput, Session, TableName};

use crate::args::DemoArgs;
use crate::output::cell::{Cell, cell};

/// What the demo runs with, resolved from the command line.
#[derive(Debug, Clone)]
pub struct DemoSettings {
    /// The folder as given (used in the closing hints).
    pub workdir: PathBuf,
    /// The folder, absolute (printed, and where every file goes).
    pub dir: PathBuf,
    /// Rides to generate (at least 20).
    pub rows: usize,
    /// The seed (negative seeds draw as their absolute value, as CPython's `Random(seed)`).
    pub seed: i64,
}

impl DemoSettings {
    /// Resolves `ldp demo`'s arguments (clap has checked their ranges).
    pub fn from_args(args: &DemoArgs) -> anyhow::Result<DemoSettings> {
        let dir = std::path::absolute(&args.workdir).map_err(|e| {
            anyhow::anyhow!(
                "--workdir {}: cannot make the path absolute: {e}",
                args.workdir.display()
            )
        })?;
        Ok(DemoSettings {
            workdir: args.workdir.clone(),
            dir,
            rows: args.rows as usize,
            seed: args.seed,
        })
    }

    /// The seed of the `k`-th generated table (`seed + k`, as the Python tool), as CPython draws
    /// it: from its absolute value.
    fn seed_plus(&self, k: i64) -> u64 {
        let value = i128::from(self.seed) + i128::from(k);
        u64::try_from(value.unsigned_abs()).unwrap_or(u64::MAX)
    }
}

/// One step: its title and what it runs. A step prints its lines and gives its rows of the
/// summary table.
struct Step {
    title: &'static str,
    run: fn(&mut Demo<'_>) -> anyhow::Result<Vec<SummaryRow>>,
}

/// The steps, in order. `[k/N]` counts them, so a step is added with one line here (and its
/// function).
const STEPS: &[Step] = &[
    Step {
        title: "Config from JSON",
        run: load::config,
    },
    Step {
        title: "Append twice, then overwrite twice",
        run: load::append_overwrite,
    },
    Step {
        title: "Upsert changed and new rides",
        run: load::upsert,
    },
    Step {
        title: "A day-partitioned table",
        run: tables::partitioned,
    },
    Step {
        title: "Quality checks: a clean batch passes, a bad batch is blocked",
        run: tables::quality,
    },
    Step {
        title: "DataFusion SQL: revenue by city per day",
        run: read::sql,
    },
    Step {
        title: "Time travel",
        run: read::time_travel,
    },
    Step {
        title: "Export back to CSV",
        run: read::export,
    },
    Step {
        title: "Plugins: a third-party transform, and a hostile one stopped",
        run: plugins::plugins,
    },
];

/// One row of the summary table: `2 append x2 | 1000 -> 2000 rows (1000 duplicates)`.
struct SummaryRow {
    step: String,
    result: String,
}

impl SummaryRow {
    fn new(step: impl Into<String>, result: impl Into<String>) -> SummaryRow {
        SummaryRow {
            step: step.into(),
            result: result.into(),
        }
    }
}

/// The state the steps share: the settings, the runtime, the rides, stdout, and what an
/// earlier step found that a later one reports.
struct Demo<'a> {
    settings: DemoSettings,
    runtime: &'a Runtime,
    /// The rides of `--rows` and `--seed` (also in data/rides.csv and data/rides.parquet).
    rides: RecordBatch,
    out: std::io::StdoutLock<'static>,
    /// Set by Ctrl-C: the running step stops and deletes what it wrote.
    cancel: &'static AtomicBool,
    /// The quality report of step 3's initial load, shown by step 5.
    initial_quality: Option<QualityReport>,
}

impl Demo<'_> {
    /// The workdir, absolute.
    fn dir(&self) -> &Path {
        &self.settings.dir
    }

    /// The options of a run: `mode` overrides the config's write mode.
    fn options(&self, mode: Option<WriteMode>) -> RunOptions {
        RunOptions {
            mode,
            cancel: Some(self.cancel),
            ..RunOptions::default()
        }
    }

    /// Prints one line.
    fn line(&mut self, text: impl AsRef<str>) -> std::io::Result<()> {
        writeln!(self.out, "{}", text.as_ref())
    }

    /// Runs `sql` over `table` (its current snapshot, or `snapshot`), registered under its
    /// bare name. Each query has its own session, so a name always means one snapshot.
    fn query(
        &self,
        table: &TargetTable,
        snapshot: Option<i64>,
        sql: &str,
    ) -> anyhow::Result<QueryOutput> {
        let loaded = table.load()?;
        let session = Session::new()?;
        session.register(&loaded, snapshot, &[TableName::bare(&table.name)])?;
        Ok(session.query(sql, usize::MAX)?)
    }

    /// The first row of [`Demo::query`]'s result.
    fn query_row(
        &self,
        table: &TargetTable,
        snapshot: Option<i64>,
        sql: &str,
    ) -> anyhow::Result<Vec<Cell>> {
        let out = self.query(table, snapshot, sql)?;
        let batch = out
            .batches
            .iter()
            .find(|b| b.num_rows() > 0)
            .with_context(|| format!("{sql} gave no row"))?;
        Ok(batch.columns().iter().map(|c| cell(c, 0)).collect())
    }

    /// The integer [`Demo::query`] gives (its first value).
    fn query_int(
        &self,
        table: &TargetTable,
        snapshot: Option<i64>,
        sql: &str,
    ) -> anyhow::Result<i64> {
        match self.query_row(table, snapshot, sql)?.first() {
            Some(Cell::Int(n)) => Ok(*n),
            other => bail!("{sql} gave {other:?}, not an integer"),
        }
    }
}

/// Runs the demo: prepares the workdir, runs every step, prints the summary.
pub fn run(runtime: &Runtime, args: &DemoArgs) -> anyhow::Result<u8> {
    let started = Instant::now();
    let settings = DemoSettings::from_args(args)?;
    workdir::prepare(&settings.dir)?;
    let rides = ldp_demo::rides(settings.rows, settings.seed_plus(0), 1);
    workdir::write_files(&settings.dir, &rides)?;
    let mut demo = Demo {
        settings,
        runtime,
        rides,
        out: std::io::stdout().lock(),
        cancel: crate::interrupt::install(),
        initial_quality: None,
    };
    demo.line(format!("ldp {} demo", env!("CARGO_PKG_VERSION")))?;
    demo.line(format!("workdir: {}", demo.dir().display()))?;
    demo.line(format!(
        "data: {} synthetic taxi rides over 7 days, seed {} (same seed, same rides)",
        demo.settings.rows, demo.settings.seed
    ))?;
    let mut summary = Vec::new();
    for (index, step) in STEPS.iter().enumerate() {
        demo.line("")?;
        demo.line(render::step_header(index + 1, STEPS.len(), step.title))?;
        let step_started = Instant::now();
        summary.extend((step.run)(&mut demo)?);
        tracing::debug!(
            step = index + 1,
            seconds = step_started.elapsed().as_secs_f64(),
            "demo step done"
        );
        demo.out.flush()?;
    }
    demo.line("")?;
    demo.line(render::underlined("Summary"))?;
    let rows: Vec<Vec<String>> = summary
        .into_iter()
        .map(|r| vec![r.step, r.result])
        .collect();
    for line in render::table(&["step", "result"], &rows, &[false, false]) {
        demo.line(format!("  {line}"))?;
    }
    demo.line("")?;
    let config = demo.settings.workdir.join("rides.json");
    demo.line(format!(
        "Done in {:.1}s. Explore it yourself:",
        started.elapsed().as_secs_f64()
    ))?;
    demo.line(format!("  ldp snapshots {}", config.display()))?;
    demo.line(format!(
        "  ldp query {} \"SELECT city, count(*) AS rides, round(avg(fare), 2) AS avg_fare FROM rides GROUP BY city\"",
        config.display()
    ))?;
    demo.out.flush()?;
    Ok(0)
}
