//! A run whose target is a file (`CSV`, `JSON`, `PARQUET`, `XLSX`, a table of a `DUCKDB` file,
//! or any format a sink plugin file named by `metadata.target.plugin` writes): the rows stream
//! through the quality gate into a sink plugin that writes into a private staging folder next
//! to the target; only when the checks passed and the sink closed cleanly does the host move
//! the file into place, with one `rename` on the same file system, so a reader sees the old file
//! or the new one, never half of one. A sink plugin file gets the same staging folder, and no more, to write in.
//!
//! An `s3://` target is staged the same way, in a private local folder, and the host uploads
//! the file as the object at the point where it would rename it: nothing is uploaded when a
//! check blocks the run or anything fails, and the object appears whole when the upload
//! completes.

use std::path::{Path, PathBuf};
use std::sync::mpsc::sync_channel;
use std::time::Instant;

use ldp_config::{Config, Format, OnFailure, WriteMode};
use ldp_plugin_runtime::{CheckContext, Grants, Plugin, Runtime, Sandbox, SinkStream};
use ldp_table::WindowFilter;

use crate::error::{Error, Result};
use crate::events::Recorder;
use crate::plugin_file::ConfigFiles;
use crate::quality::{Gate, QualityReport};
use crate::report::RunReport;
use crate::run::{Incoming, RunOptions};
use crate::source::{Loaded, Message, SourceSpec};
use crate::transform::{Chain, Transforms};
use ldp_events::DatasetRef;
use ldp_events::payload::Stage;

/// Batches in flight between the source thread and the sink.
const CHANNEL_BATCHES: usize = 4;

/// A config whose target is a file.
#[derive(Debug, Clone)]
pub struct FileExport {
    config: Config,
    /// The target file, absolute.
    path: PathBuf,
    /// The sink plugin that writes it.
    sink: SinkCode,
    /// The object an `s3://` target names (`path` is then the URI as written).
    object: Option<ldp_storage::ObjectUri>,
}

impl FileExport {
    /// Resolves the target file of `config` (relative to the config's folder).
    ///
    /// # Errors
    ///
    /// The target has no path, or a format no sink of this build writes.
    pub fn open(config: Config) -> Result<FileExport> {
        let block = config.target();
        let spec = ldp_config::target_plugin(&block.extra)
            .map_err(|message| Error::PluginFile { message })?;
        let plugin = match (spec, block.format) {
            (Some(spec), _) => SinkCode::File(Box::new(spec)),
            (None, Format::Csv) => SinkCode::Builtin("csv-sink"),
            (None, Format::Json) => SinkCode::Builtin("json-sink"),
            (None, Format::Parquet) => SinkCode::Builtin("parquet-sink"),
            (None, Format::Xlsx) => SinkCode::Builtin("xlsx-sink"),
            (None, Format::DuckDb) => SinkCode::Builtin("duckdb-sink"),
            (None, other) => {
                return Err(Error::Unsupported {
                    message: format!(
                        "no sink of this ldp writes {} files; file targets are CSV, JSON, PARQUET, \
                         XLSX and DUCKDB, or any format a sink plugin file writes (metadata.target.plugin)",
                        other.as_str()
                    ),
                });
            }
        };
        let Some(path) = block.path.as_deref() else {
            return Err(Error::Unsupported {
                message: format!(
                    "metadata.target '{}' ({}) needs a 'path'",
                    block.name,
                    block.format.as_str()
                ),
            });
        };
        if crate::object::is_object(path) {
            let what = format!("target {} ({})", block.name, block.format.as_str());
            let object = crate::object::parse(&what, path, true)?;
            return Ok(FileExport {
                path: PathBuf::from(path),
                config,
                sink: plugin,
                object: Some(object),
            });
        }
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let path = ldp_config::paths::PathContext::new(config.base_dir.as_deref(), &cwd)
            .resolve(path)
            .path;
        Ok(FileExport {
            config,
            path,
            sink: plugin,
            object: None,
        })
    }

    /// The config.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The target file (for an `s3://` target, its URI as written).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the source and replaces the target file.
    ///
    /// # Errors
    ///
    /// The source fails, a check fails (`on_failure: fail`), the sink fails, or the file cannot
    /// be moved into place. In every case the target file is left as it was and the staging
    /// folder is removed.
    pub fn run(&self, runtime: &Runtime, options: &RunOptions) -> Result<RunReport> {
        let (run_id, attempt) = options.run_identity();
        let label = self.path.display().to_string();
        let mut rec = Recorder::open(
            &self.config,
            runtime,
            &run_id,
            attempt,
            &label,
            None,
            options.events.as_ref(),
        );
        let base = self.config.base_dir.clone().unwrap_or_default();
        let transforms = Transforms::resolve(&self.config);
        rec.started(
            &self.config,
            None,
            None,
            DatasetRef::file(&label, Some(self.config.target().format.as_str()), &base),
            transforms
                .as_ref()
                .map(Transforms::refs)
                .unwrap_or_default(),
        );
        let result = transforms.and_then(|transforms| {
            self.run_recorded(runtime, options, &run_id, &transforms, &mut rec)
        });
        match &result {
            Ok(report) => rec.written(report, None, None),
            Err(e) => rec.failed(e),
        }
        result
    }

    fn run_recorded(
        &self,
        runtime: &Runtime,
        options: &RunOptions,
        run_id: &str,
        transforms: &Transforms,
        rec: &mut Recorder,
    ) -> Result<RunReport> {
        let started = Instant::now();
        if options.staging.is_some() {
            return Err(Error::Unsupported {
                message: format!(
                    "--window and --idempotency-key publish to Iceberg tables; the target of '{}' is the {} file {}",
                    self.config.identifier,
                    self.config.target().format.as_str(),
                    self.path.display()
                ),
            });
        }
        // A file is replaced whole: only `overwrite` (or no --mode) writes it; a DuckDB table
        // is appended to or overwritten.
        let mode = options.mode.unwrap_or(self.config.target().write_mode());
        if self.config.target().format == Format::DuckDb {
            if mode == WriteMode::Upsert {
                return Err(Error::Unsupported {
                    message: format!(
                        "target {} is appended to or overwritten; write mode 'upsert' needs an \
                         Iceberg table's key and snapshots",
                        self.repr()
                    ),
                });
            }
        } else if mode != WriteMode::Overwrite {
            return Err(Error::FileTargetMode {
                target: self.repr(),
                mode,
            });
        }
        rec.stage(Stage::Extract);
        let source = SourceSpec::for_run(&self.config, options)?;
        let loaded = source.load(runtime)?;
        // A file target runs no window (staged runs are refused above).
        let chain = Chain::new(transforms.load(runtime)?, CHANNEL_BATCHES, None)
            .with_external(options.external_transform.clone());
        let gate = Gate::load(&self.config, runtime)?;
        let sink = self.sink.load(&self.config, runtime)?;
        // An object is staged in a private local folder, and uploaded from there.
        let private = match &self.object {
            Some(_) => Some(
                tempfile::Builder::new()
                    .prefix("ldp-target-")
                    .tempdir()
                    .map_err(|e| self.io("create a private staging folder for", e))?,
            ),
            None => None,
        };
        let folder = match &private {
            Some(private) => private.path().to_path_buf(),
            None => self
                .path
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        };
        std::fs::create_dir_all(&folder).map_err(|e| self.io("create the folder of", e))?;
        let staging = Staging::create(&folder)?;
        let (rows_read, rows_written, quality) = std::thread::scope(|scope| {
            let (sender, receiver) = sync_channel(CHANNEL_BATCHES);
            let source = &source;
            let loaded: &Loaded = &loaded;
            scope.spawn(crate::span::in_current_span(move || {
                source.produce(loaded, &sender)
            }));
            let receiver = chain.spawn(scope, receiver);
            let incoming = Incoming::start(scope, receiver, &chain, gate.as_ref());
            self.write(&sink, &staging, incoming, options, mode, rec)
        })?;
        staging.remove();
        let duration_s = (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
        Ok(RunReport {
            name: self.config.identifier.clone(),
            rows_read,
            rows_written,
            write_result: None,
            quality,
            duration_s,
            run_id: Some(run_id.to_string()),
            idempotency_key: None,
            published_snapshot_id: None,
            status: "published".into(),
            rows_kept: None,
        })
    }

    /// Streams what reaches the writer into the sink's staged file; the checks decide whether
    /// it goes on to the target. Returns the rows read, the rows written and the checks' report.
    fn write(
        &self,
        sink: &LoadedSink,
        staging: &Staging,
        incoming: Incoming<'_, '_>,
        options: &RunOptions,
        mode: WriteMode,
        rec: &mut Recorder,
    ) -> Result<(u64, u64, QualityReport)> {
        let Incoming {
            receiver,
            chain,
            on_failure,
            mut gate,
        } = incoming;
        let name = match &self.object {
            Some(object) => object.file_name().to_string(),
            None => self
                .path
                .file_name()
                .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned()),
        };
        let staged = staging.folder.join(&name);
        let mut sink_options = serde_json::Map::new();
        // Held until the staged copy is in place (or thrown away).
        let _duckdb = match self.config.target().format {
            Format::DuckDb if matches!(self.sink, SinkCode::Builtin(_)) => {
                sink_options = crate::duckdb_target::sink_options(&self.config, mode);
                Some(crate::duckdb_target::DuckdbTarget::prepare(
                    &self.path, &staged,
                )?)
            }
            _ => None,
        };
        let (sink_config, sandbox) =
            sink.configure(&self.config, &staged, &staging.folder, sink_options);
        let window_column = self
            .config
            .metadata
            .window
            .as_ref()
            .and_then(|w| w.column.clone());
        let mut filter: Option<WindowFilter> = None;
        let mut stream: Option<SinkStream> = None;
        let mut data_schema: Option<arrow_schema::SchemaRef> = None;
        let mut null_counts: Vec<u64> = Vec::new();
        let (mut rows_read, mut rows_written) = (0u64, 0u64);
        for message in receiver.iter() {
            if options
                .cancel
                .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
            {
                return Err(Error::Interrupted);
            }
            match message? {
                Message::Schema(schema) => {
                    if let (Some(column), Some(window)) = (&window_column, options.window()) {
                        let zone = self
                            .config
                            .metadata
                            .window
                            .as_ref()
                            .map_or(jiff::tz::TimeZone::UTC, |w| w.time_zone());
                        filter = Some(WindowFilter::new(
                            &schema,
                            column,
                            window.start,
                            window.end,
                            zone,
                        )?);
                    }
                    if let Some(gate) = gate.as_mut() {
                        gate.schema(schema.clone())?;
                    }
                    data_schema = Some(schema.clone());
                    stream = Some(
                        sink.open_batch_sink(&sink_config, &schema, &sandbox)
                            .map_err(|e| self.sink_error(e))?,
                    );
                }
                Message::Batch(batch) => {
                    rows_read += batch.num_rows() as u64;
                    let batch = match &filter {
                        Some(filter) => filter.keep(&batch)?,
                        None => batch,
                    };
                    if batch.num_rows() == 0 {
                        continue;
                    }
                    null_counts.resize(batch.num_columns(), 0);
                    for (count, column) in null_counts.iter_mut().zip(batch.columns()) {
                        *count += column.null_count() as u64;
                    }
                    if let Some(gate) = gate.as_mut() {
                        gate.batch(batch.clone())?;
                    }
                    if let Some(stream) = stream.as_mut() {
                        stream.write_batch(&batch).map_err(|e| self.sink_error(e))?;
                    }
                    rows_written += batch.num_rows() as u64;
                    if let Some(progress) = &options.progress {
                        progress(rows_written);
                    }
                }
            }
        }
        if chain.is_active() {
            rows_read = chain.counts().0; // the source's rows, not the transforms'
        }
        let empty = arrow_schema::Schema::empty();
        let schema_seen = data_schema.as_deref().unwrap_or(&empty);
        rec.extracted(
            rows_read,
            filter.as_ref().map(|_| rows_written),
            schema_seen,
        );
        rec.stage(Stage::Validate);
        if rows_written == 0 {
            return Err(ldp_table::Error::EmptyInput.into());
        }
        let quality = match gate {
            Some(gate) => gate.finish(CheckContext {
                source_rows: Some(rows_written),
                now_micros: options.window().map(|w| w.end.as_microsecond()),
            })?,
            None => QualityReport::default(),
        };
        rec.quality(
            rows_written,
            schema_seen,
            &null_counts,
            on_failure.as_str(),
            &quality,
        );
        rec.stage(Stage::Write);
        if !quality.passed() {
            match on_failure {
                OnFailure::Fail => return Err(Error::Quality { report: quality }),
                OnFailure::Warn => tracing::warn!(
                    "writing despite failed quality checks (on_failure=warn)\n{}",
                    quality.summary()
                ),
            }
        }
        let Some(stream) = stream else {
            return Err(ldp_table::Error::EmptyInput.into());
        };
        let sink = &self.sink;
        let summary = stream.close().map_err(|e| self.sink_error(e))?;
        tracing::debug!(
            records = summary.records,
            bytes = summary.bytes,
            "the sink closed"
        );
        if !staged.is_file() {
            return Err(Error::Unsupported {
                message: format!(
                    "the sink plugin {} closed without writing {}",
                    sink.name(),
                    staged.display()
                ),
            });
        }
        if let Some(object) = &self.object {
            // Visible whole once the upload completes; nothing was uploaded before this point.
            let what = format!(
                "target {} ({})",
                self.config.target().name,
                self.config.target().format.as_str()
            );
            let bytes = crate::object::upload_target(&what, &staged, object)?;
            tracing::info!(
                "wrote {rows_written} rows to {} {object} ({bytes} bytes uploaded)",
                self.config.target().format.as_str()
            );
            return Ok((rows_read, rows_written, quality));
        }
        // Durable before visible: the file's bytes, then the rename, then the folder's entry.
        std::fs::File::open(&staged)
            .and_then(|f| f.sync_all())
            .map_err(|e| self.io("sync the staged file for", e))?;
        std::fs::rename(&staged, &self.path).map_err(|e| self.io("move into place", e))?;
        if let Some(folder) = self.path.parent()
            && let Ok(dir) = std::fs::File::open(folder)
        {
            let _ = dir.sync_all();
        }
        tracing::info!(
            "wrote {rows_written} rows to {} {}",
            self.config.target().format.as_str(),
            self.path.display()
        );
        Ok((rows_read, rows_written, quality))
    }

    /// The target as the Python tool names it in messages:
    /// `CSV(name='out', path='/abs/out.csv')` (`Parquet(…)`, `JSON(…)`).
    fn repr(&self) -> String {
        let block = self.config.target();
        let class = match block.format {
            Format::Parquet => "Parquet",
            other => other.as_str(),
        };
        format!(
            "{class}(name={}, path={})",
            ldp_config::repr_str(&block.name),
            ldp_config::repr_str(&self.path.to_string_lossy())
        )
    }

    fn sink_error(&self, source: ldp_plugin_runtime::RuntimeError) -> Error {
        let written_by = match &self.sink {
            SinkCode::Builtin(_) => String::new(),
            SinkCode::File(spec) => format!(", written by the sink plugin {}", spec.path),
        };
        Error::Sink {
            what: format!(
                "target {} ({} {}{written_by})",
                self.config.target().name,
                self.config.target().format.as_str(),
                self.path.display()
            ),
            source,
        }
    }

    fn io(&self, action: &str, source: std::io::Error) -> Error {
        Error::Unsupported {
            message: format!("cannot {action} {}: {source}", self.path.display()),
        }
    }
}

/// The plugin that writes a file target.
#[derive(Debug, Clone)]
enum SinkCode {
    /// A built-in sink, by name.
    Builtin(&'static str),
    /// A sink plugin file the config names (`metadata.target.plugin`).
    File(Box<ldp_config::PluginFileSpec>),
}

/// A sink loaded for a run, with what its sandbox may hold.
struct LoadedSink {
    plugin: Plugin,
    /// The plugin file's own config and grants (none for a built-in sink).
    file: Option<(
        ldp_config::PluginFileSpec,
        Grants,
        ldp_plugin_runtime::Limits,
    )>,
}

impl SinkCode {
    /// `'csv-sink'`, or the plugin file as the config names it.
    fn name(&self) -> String {
        match self {
            SinkCode::Builtin(name) => format!("'{name}'"),
            SinkCode::File(spec) => spec.path.clone(),
        }
    }

    /// Loads the built-in sink, or reads the plugin file, checks it against its pin and
    /// resolves its grants.
    fn load(&self, config: &Config, runtime: &Runtime) -> Result<LoadedSink> {
        match self {
            SinkCode::Builtin(name) => {
                let builtin = ldp_builtin_plugins::get(name).ok_or_else(|| Error::Unsupported {
                    message: format!("the built-in plugin '{name}' is missing from this build"),
                })?;
                let plugin = runtime
                    .load_embedded(
                        &format!("built-in plugin '{name}'"),
                        builtin.bytes,
                        builtin.sha256,
                    )
                    .map_err(|source| Error::Sink {
                        what: format!("built-in plugin '{name}'"),
                        source,
                    })?;
                Ok(LoadedSink { plugin, file: None })
            }
            SinkCode::File(spec) => {
                let what = format!("metadata.target.plugin ({})", spec.path);
                let files = ConfigFiles::new(config.base_dir.as_deref(), &what);
                let file = files.read_pinned(&spec.path, "plugin file", spec.sha256.as_deref())?;
                let grants = files.grants(&spec.grants)?;
                let limits =
                    ConfigFiles::limits(&spec.limits, ldp_plugin_runtime::Limits::default());
                let shown = file.path.display().to_string();
                let refused = |source| Error::Sink {
                    what: format!("{what}: {shown}"),
                    source,
                };
                let plugin = runtime
                    .load_embedded(&shown, &file.bytes, &file.sha256)
                    .map_err(refused)?;
                plugin
                    .expect(ldp_plugin_runtime::PluginKind::Sink)
                    .map_err(refused)?;
                Ok(LoadedSink {
                    plugin,
                    file: Some((spec.as_ref().clone(), grants, limits)),
                })
            }
        }
    }
}

impl LoadedSink {
    /// The sink's config and sandbox for writing `staged` in `folder`: a built-in sink gets the
    /// file's path, the target's own options (an XLSX target's `sheet` and `header`) and
    /// `extra` (a DUCKDB target's table and mode); a
    /// plugin file gets its `config` with the path added, its grants, and the staging folder
    /// as the one folder it may write.
    fn configure(
        &self,
        config: &Config,
        staged: &Path,
        folder: &Path,
        extra: serde_json::Map<String, serde_json::Value>,
    ) -> (String, Sandbox) {
        let (mut options, grants, limits) = match &self.file {
            None => (
                ldp_config::target_options::of_block(config.target()),
                Grants::default(),
                ldp_plugin_runtime::Limits::default(),
            ),
            Some((spec, grants, limits)) => (spec.config.clone(), grants.clone(), limits.clone()),
        };
        options.extend(extra);
        options.insert(
            "path".into(),
            serde_json::Value::String(staged.display().to_string()),
        );
        let sandbox = Sandbox {
            grants: Grants {
                write_dir: Some(folder.to_path_buf()),
                ..grants
            },
            limits,
        };
        (serde_json::Value::Object(options).to_string(), sandbox)
    }
}

impl std::ops::Deref for LoadedSink {
    type Target = Plugin;

    fn deref(&self) -> &Plugin {
        &self.plugin
    }
}

/// The private folder a sink writes into, removed with what is left in it however the run
/// ends.
struct Staging {
    folder: PathBuf,
}

impl Staging {
    fn create(next_to: &Path) -> Result<Staging> {
        let folder = next_to.join(format!(".ldp-staging-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir(&folder).map_err(|e| Error::Unsupported {
            message: format!("cannot create the staging folder {}: {e}", folder.display()),
        })?;
        Ok(Staging { folder })
    }

    fn remove(&self) {
        if let Err(e) = std::fs::remove_dir_all(&self.folder)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!("cannot remove {}: {e}", self.folder.display());
        }
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        self.remove();
    }
}
