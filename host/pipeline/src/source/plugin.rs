//! A file source read by a plugin in the sandbox: CSV, JSON, Parquet, XLSX.

use std::path::{Path, PathBuf};

use ldp_config::paths::PathContext;
use ldp_config::{Config, Format, Sheet, Window, fill_placeholders, find_placeholders};
use ldp_plugin_runtime::{Grants, Limits, Plugin, Runtime, Sandbox};

use std::sync::mpsc::SyncSender;

use super::Message;
use crate::error::{Error, Result};
use crate::plugin_file::ConfigFiles;

/// Rows per batch asked of file sources. Measured on 10M rides rows (`ldp plugins run csv
/// --output none`): 8192 rows 6.4–7.5 s, 32768 rows 7.5 s, 131072 rows 7.9 s: batches that stay
/// in the caches beat fewer boundary crossings.
pub(crate) const SOURCE_BATCH_ROWS: usize = 8_192;

/// Which component reads a source.
#[derive(Debug, Clone)]
pub(crate) enum Reader {
    /// A built-in plugin, by name.
    Builtin(&'static str),
    /// A plugin file the config names (`metadata.source.plugin`), already checked against its
    /// pin.
    File {
        /// The file, absolute.
        path: PathBuf,
        /// Its bytes.
        bytes: std::sync::Arc<Vec<u8>>,
        /// Their sha256.
        sha256: String,
        /// What the config grants it.
        grants: Grants,
        /// Its limits (the config's `limits` over the defaults).
        limits: Limits,
    },
}

/// A file source resolved for reading: the plugin, its config and its sandbox.
#[derive(Debug, Clone)]
pub(crate) struct PluginSource {
    /// The component that reads it.
    pub plugin: Reader,
    /// The plugin's config (JSON object text).
    pub config: String,
    /// The file it reads.
    pub path: PathBuf,
    /// `source rides (CSV /abs/rides.csv)`, for messages.
    pub what: String,
    /// The private folder an `s3://` source was downloaded into, or a zstd Parquet file
    /// decompressed into (the plugin reads `path` in
    /// it); removed when the last clone of the source is dropped, after the run.
    pub download: Option<crate::object::Downloaded>,
    /// `host:port` pairs a built-in plugin may reach (a BigQuery source's API); a source with
    /// any gets no folder.
    pub net: Vec<String>,
}

impl PluginSource {
    /// Resolves the file source block of `config`; a path with window placeholders is filled
    /// in for `window` (and needs one).
    pub fn resolve(config: &Config, window: Option<&Window>) -> Result<PluginSource> {
        let block = config.source();
        let spec = ldp_config::source_plugin(&block.extra)
            .map_err(|message| Error::PluginFile { message })?;
        if let Some(spec) = spec {
            return Self::from_file(config, &spec);
        }
        if block.format == Format::Json && block.engine.as_deref() == Some("BIGQUERY") {
            return super::bigquery::resolve(config);
        }
        let Some(path) = block.path.as_deref() else {
            return Err(Error::Unsupported {
                message: format!(
                    "metadata.source '{}' ({}) has no path; only file sources run in this ldp yet",
                    block.name,
                    block.format.as_str()
                ),
            });
        };
        let filled;
        let path = match (find_placeholders(path).first(), window) {
            (None, _) => path,
            (Some(placeholder), None) => {
                return Err(Error::Unsupported {
                    message: format!(
                        "metadata.source.path {} has the placeholder {}, which needs a window: pass window=, or --window START/END (or yesterday) on the command line",
                        ldp_config::repr_str(path),
                        &path[placeholder.span.0..placeholder.span.1]
                    ),
                });
            }
            (Some(_), Some(window)) => {
                let zone = config
                    .metadata
                    .window
                    .as_ref()
                    .map_or(jiff::tz::TimeZone::UTC, |w| w.time_zone());
                filled = fill_placeholders(path, window, &zone)?;
                filled.as_str()
            }
        };
        let plugin = match block.format {
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Parquet => "parquet",
            Format::Xlsx => "xlsx",
            Format::DuckDb => "duckdb",
            other => {
                return Err(Error::Unsupported {
                    message: format!(
                        "no pipeline of this ldp reads {} sources yet; 'ldp pipelines' lists the routes it runs",
                        other.as_str()
                    ),
                });
            }
        };
        let (file, shown, download) = if crate::object::is_object(path) {
            // The host downloads the object; the plugin reads the private copy.
            let what = format!("source {} ({})", block.name, block.format.as_str());
            let download = crate::object::download_source(&what, path)?;
            (download.file.clone(), path.to_string(), Some(download))
        } else {
            let file = Self::local_file(config, path, block.format == Format::Parquet)?;
            (file.clone(), file.display().to_string(), None)
        };
        // zstd Parquet: the host decompresses, the plugin decodes (see zstd_parquet).
        let (file, download) =
            if block.format == Format::Parquet && super::zstd_parquet::has_zstd(&file) {
                let what = format!("source {} (PARQUET {shown})", block.name);
                let copy = super::zstd_parquet::decompress(&what, &file)?;
                (copy.file.clone(), Some(copy))
            } else {
                (file, download)
            };
        let mut plugin_config = serde_json::json!({
            "path": file.display().to_string(),
            "batch_size": SOURCE_BATCH_ROWS,
        });
        // The block's reading options (`delimiter`, `encoding`, ...), checked by `ldp plan`.
        for (key, value) in ldp_config::source_options::of_block(block.format, &block.extra) {
            plugin_config[key] = value;
        }
        if block.format == Format::Xlsx {
            plugin_config["header_row"] = block.header_row.into();
            match &block.sheet {
                Some(Sheet::Name(name)) => plugin_config["sheet"] = name.clone().into(),
                Some(Sheet::Index(index)) => plugin_config["sheet"] = (*index).into(),
                None => {}
            }
        }
        if block.format == Format::DuckDb {
            plugin_config = duckdb_config(config, &file)?;
        }
        Ok(PluginSource {
            plugin: Reader::Builtin(plugin),
            config: plugin_config.to_string(),
            what: format!("source {} ({} {shown})", block.name, block.format.as_str()),
            path: file,
            download,
            net: Vec::new(),
        })
    }

    /// The local source file of `path` (relative to the config's folder), which must exist; a
    /// folder too when `folder_too` (a PARQUET source reads every Parquet file in it).
    fn local_file(config: &Config, path: &str, folder_too: bool) -> Result<PathBuf> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let resolved = PathContext::new(config.base_dir.as_deref(), &cwd).resolve(path);
        if let Some(warning) = &resolved.warning {
            tracing::warn!("{warning}");
        }
        let file = resolved.path;
        if !(file.is_file() || folder_too && file.is_dir()) {
            let why = if file.exists() {
                "is not a file"
            } else {
                "does not exist"
            };
            return Err(Error::SourceMissing {
                message: format!(
                    "the source file {} {why} (metadata.source.path {path:?}); check the path, which is relative to the config's folder",
                    file.display()
                ),
            });
        }
        Ok(file)
    }

    /// A source read by a plugin file: found, checked against its pin, its grants resolved.
    fn from_file(config: &Config, spec: &ldp_config::PluginFileSpec) -> Result<PluginSource> {
        let what = format!("metadata.source.plugin ({})", spec.path);
        let files = ConfigFiles::new(config.base_dir.as_deref(), &what);
        let file = files.read_pinned(&spec.path, "plugin file", spec.sha256.as_deref())?;
        let grants = files.grants(&spec.grants)?;
        let limits = ConfigFiles::limits(&spec.limits, Limits::default());
        let (path, bytes, sha256) = (file.path, file.bytes, file.sha256);
        let block = config.source();
        Ok(PluginSource {
            config: serde_json::Value::Object(spec.config.clone()).to_string(),
            what: format!("source {} (plugin {})", block.name, path.display()),
            plugin: Reader::File {
                path: path.clone(),
                bytes: std::sync::Arc::new(bytes),
                sha256,
                grants,
                limits,
            },
            path,
            download: None,
            net: Vec::new(),
        })
    }

    /// The sandbox: read-only access to the file's folder (a folder source: to that folder; an
    /// `s3://` source: the private folder it was downloaded into), default limits; a plugin file
    /// gets what the config grants it instead.
    pub fn sandbox(&self) -> Sandbox {
        if let Reader::File { grants, limits, .. } = &self.plugin {
            return Sandbox {
                grants: grants.clone(),
                limits: limits.clone(),
            };
        }
        if !self.net.is_empty() {
            return Sandbox {
                grants: Grants {
                    net: self.net.clone(),
                    ..Grants::default()
                },
                ..Sandbox::default()
            };
        }
        let folder = match &self.download {
            Some(download) => download.folder.path().to_path_buf(),
            None if self.path.is_dir() => self.path.clone(),
            None => self
                .path
                .parent()
                .map_or_else(|| PathBuf::from("/"), Path::to_path_buf),
        };
        Sandbox {
            grants: Grants {
                read_dirs: vec![folder],
                write_dir: None,
                ..Grants::default()
            },
            ..Sandbox::default()
        }
    }

    /// Opens the plugin and sends its schema and batches until the end, an error, or the
    /// consumer hanging up.
    pub fn produce(&self, plugin: &Plugin, sender: &SyncSender<Result<Message>>) {
        let mut stream = match plugin.open_source(&self.config, &self.sandbox()) {
            Ok(stream) => stream,
            Err(e) => {
                let _ = sender.send(Err(self.error(e)));
                return;
            }
        };
        let schema = stream.schema().clone();
        if let Some((name, first, second)) = super::duplicate_column(&schema) {
            let _ = sender.send(Err(Error::DuplicateColumn {
                what: self.what.clone(),
                name,
                first,
                second,
                hint: self.duplicate_hint(),
            }));
            return;
        }
        if sender.send(Ok(Message::Schema(schema))).is_err() {
            return;
        }
        loop {
            let message = match stream.next_batch() {
                Ok(Some(batch)) => Ok(Message::Batch(batch)),
                Ok(None) => return,
                Err(e) => Err(self.error(e)),
            };
            let failed = message.is_err();
            if sender.send(message).is_err() || failed {
                return;
            }
        }
    }

    /// What to do about two columns of the same name, for the source's format.
    fn duplicate_hint(&self) -> &'static str {
        match self.plugin {
            Reader::Builtin("csv") => {
                "rename one of them in the file's header row (or read the header as data with \
                 \"has_header\": false and \"skip_rows\": 1, which names the columns f0, f1, ..., \
                 and rename or drop them in a transform)"
            }
            Reader::Builtin("duckdb") => {
                "give one of them another name in the query (SELECT ... AS other_name)"
            }
            _ => "rename one of them in the source file (or in the plugin's output)",
        }
    }

    /// Loads (compiles or takes from the cache) the source's plugin.
    pub fn load(&self, runtime: &Runtime) -> Result<Plugin> {
        let name = match &self.plugin {
            Reader::Builtin(name) => *name,
            Reader::File {
                path,
                bytes,
                sha256,
                ..
            } => {
                let plugin = runtime
                    .load_embedded(&path.display().to_string(), bytes, sha256)
                    .map_err(|source| self.error(source))?;
                plugin
                    .expect(ldp_plugin_runtime::PluginKind::Source)
                    .map_err(|source| self.error(source))?;
                return Ok(plugin);
            }
        };
        let builtin = ldp_builtin_plugins::get(name).ok_or_else(|| Error::Unsupported {
            message: format!("the built-in plugin '{name}' is missing from this build"),
        })?;
        runtime
            .load_embedded(
                &format!("built-in plugin '{}'", builtin.name),
                builtin.bytes,
                builtin.sha256,
            )
            .map_err(|source| self.error(source))
    }

    /// The plugin's error, naming the source.
    pub fn error(&self, source: ldp_plugin_runtime::RuntimeError) -> Error {
        Error::Source {
            what: self.what.clone(),
            source,
        }
    }
}

/// The duckdb plugin's config: the file, and the relation or the query. A `query_file` is read
/// here (relative to the config's folder), so the plugin gets its text as `sql` and needs no
/// grant beyond the database's folder.
fn duckdb_config(config: &Config, file: &Path) -> Result<serde_json::Value> {
    let block = config.source();
    let mut plugin_config = serde_json::json!({
        "name": block.name,
        "path": file.display().to_string(),
    });
    if let Some(relation) = &block.relation {
        plugin_config["relation"] = relation.clone().into();
    } else if let Some(sql) = duckdb_query_text(config)? {
        plugin_config["sql"] = sql.into();
    }
    Ok(plugin_config)
}

/// The query of a DuckDB source: `sql`, or the text of the file `query_file` names (relative
/// to the config's folder); `None` for a `relation`.
pub(super) fn duckdb_query_text(config: &Config) -> Result<Option<String>> {
    let block = config.source();
    if let Some(sql) = &block.sql {
        return Ok(Some(sql.clone()));
    }
    let Some(query_file) = &block.query_file else {
        return Ok(None);
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let path = PathContext::new(config.base_dir.as_deref(), &cwd)
        .resolve(query_file)
        .path;
    std::fs::read_to_string(&path)
        .map(Some)
        .map_err(|e| Error::SourceMissing {
            message: format!(
                "cannot read the query file {} (metadata.source.query_file {query_file:?}): {e}; the path is relative to the config's folder",
                path.display()
            ),
        })
}
