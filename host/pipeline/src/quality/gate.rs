//! The gate: the run's checks see every batch on a thread of their own while the writer writes
//! data files, and give their verdicts before anything is committed.
//!
//! The built-in checks of a config run in one instance of the embedded `checks` plugin, so a
//! batch crosses the sandbox boundary once however many built-in checks look at it; each check
//! plugin file runs in an instance of its own. Verdicts come back in config order.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::{Scope, ScopedJoinHandle};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_config::paths::PathContext;
use ldp_config::{Check, Config, OnFailure};
use ldp_plugin_runtime::{
    CheckContext, CheckResult, CheckStream, Plugin, PluginKind, Runtime, Sandbox,
};

use super::report::QualityReport;
use crate::error::{Error, Result};

/// Batches in flight between the writer and the checks.
const CHANNEL_BATCHES: usize = 4;

/// One instance of a check plugin and the report slots (config items) it fills.
#[derive(Debug)]
struct Member {
    plugin: Plugin,
    /// The plugin's config, a JSON object text.
    config: String,
    /// For messages: `built-in checks` or `quality check #2 (plugin checks/late.wasm)`.
    what: String,
    /// The config items (0-based) whose verdicts this instance gives: one per built-in check
    /// for the built-in plugin; one (which may hold several verdicts) for a plugin file.
    slots: Vec<usize>,
    /// The display name of a plugin file's single verdict (`name` of its item).
    rename: Option<String>,
}

/// A config's checks, loaded and ready to see a stream.
#[derive(Debug)]
pub(crate) struct Gate {
    /// What a failed check does.
    pub on_failure: OnFailure,
    members: Vec<Member>,
    items: usize,
}

impl Gate {
    /// Loads the plugins of `config`'s checks: the built-in `checks` plugin, and each plugin file
    /// named by a check (its `sha256` verified). `None` when the config has no checks.
    pub fn load(config: &Config, runtime: &Runtime) -> Result<Option<Gate>> {
        let quality = &config.metadata.quality;
        if quality.checks.is_empty() {
            return Ok(None);
        }
        let mut members = Vec::new();
        let mut builtin_items = Vec::new();
        let mut builtin_slots = Vec::new();
        for (slot, spec) in quality.checks.iter().enumerate() {
            match &spec.check {
                Check::Plugin {
                    path,
                    sha256,
                    config: plugin_config,
                } => {
                    let what = format!("quality check #{} (plugin {path})", slot + 1);
                    let plugin = load_file(config, path, sha256.as_deref(), &what, runtime)?;
                    members.push(Member {
                        plugin,
                        config: plugin_config.to_string(),
                        what,
                        slots: vec![slot],
                        rename: spec.name.clone(),
                    });
                }
                _ => {
                    builtin_items.push(spec.item.clone());
                    builtin_slots.push(slot);
                }
            }
        }
        if !builtin_slots.is_empty() {
            let what = "built-in checks".to_string();
            let builtin = ldp_builtin_plugins::get("checks").ok_or_else(|| Error::Unsupported {
                message: "the built-in plugin 'checks' is missing from this build".into(),
            })?;
            let plugin = runtime
                .load_embedded("built-in plugin 'checks'", builtin.bytes, builtin.sha256)
                .map_err(|source| Error::Check {
                    what: what.clone(),
                    source,
                })?;
            let config = serde_json::json!({ "checks": builtin_items }).to_string();
            members.insert(
                0,
                Member {
                    plugin,
                    config,
                    what,
                    slots: builtin_slots,
                    rename: None,
                },
            );
        }
        Ok(Some(Gate {
            on_failure: quality.on_failure,
            members,
            items: quality.checks.len(),
        }))
    }

    /// Starts the checks' thread in `scope`; feed it with the returned [`GateRun`].
    pub fn start<'scope, 'env>(&'env self, scope: &'scope Scope<'scope, 'env>) -> GateRun<'scope> {
        let (sender, receiver) = sync_channel(CHANNEL_BATCHES);
        let handle = scope.spawn(crate::span::in_current_span(move || self.consume(receiver)));
        GateRun {
            sender: Some(sender),
            handle: Some(handle),
        }
    }

    /// The checks' thread: opens every member on the schema, shows it every batch, and collects
    /// the verdicts when the writer says the stream ended.
    fn consume(&self, receiver: Receiver<Message>) -> Result<QualityReport> {
        let mut streams: Vec<CheckStream> = Vec::new();
        for message in receiver.iter() {
            match message {
                Message::Schema(schema) => {
                    streams = self
                        .members
                        .iter()
                        .map(|m| {
                            m.plugin
                                .open_check(&m.config, &schema, &Sandbox::default())
                                .map_err(|source| m.error(source))
                        })
                        .collect::<Result<_>>()?;
                }
                Message::Batch(batch) => {
                    for (stream, member) in streams.iter_mut().zip(&self.members) {
                        stream.push(&batch).map_err(|source| member.error(source))?;
                    }
                }
                Message::End(context) => return self.verdicts(streams, context),
            }
        }
        // The writer hung up without ending the stream: the run failed or was interrupted,
        // and nobody waits for verdicts.
        Err(Error::Interrupted)
    }

    fn verdicts(&self, streams: Vec<CheckStream>, context: CheckContext) -> Result<QualityReport> {
        let mut slots: Vec<Vec<CheckResult>> = vec![Vec::new(); self.items];
        for (stream, member) in streams.into_iter().zip(&self.members) {
            let mut results = stream
                .finish(context)
                .map_err(|source| member.error(source))?;
            if member.slots.len() == 1 {
                if let (Some(name), [only]) = (&member.rename, results.as_mut_slice()) {
                    only.name = name.clone();
                }
                slots[member.slots[0]] = results;
            } else {
                if results.len() != member.slots.len() {
                    return Err(Error::Check {
                        what: member.what.clone(),
                        source: ldp_plugin_runtime::RuntimeError::Contract {
                            plugin: member.plugin.name().to_string(),
                            message: format!(
                                "gave {} verdicts for {} checks",
                                results.len(),
                                member.slots.len()
                            ),
                        },
                    });
                }
                for (slot, result) in member.slots.iter().zip(results) {
                    slots[*slot].push(result);
                }
            }
        }
        Ok(QualityReport {
            results: slots.into_iter().flatten().collect(),
        })
    }
}

impl Member {
    fn error(&self, source: ldp_plugin_runtime::RuntimeError) -> Error {
        Error::Check {
            what: self.what.clone(),
            source,
        }
    }
}

/// Loads a check plugin file named by the config, relative to the config's folder, and refuses
/// it when it is not a check plugin or its sha256 is not the one the config pins.
fn load_file(
    config: &Config,
    path: &str,
    sha256: Option<&str>,
    what: &str,
    runtime: &Runtime,
) -> Result<Plugin> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let file = PathContext::new(config.base_dir.as_deref(), &cwd)
        .resolve(path)
        .path;
    if !file.is_file() {
        return Err(Error::Unsupported {
            message: format!(
                "{what}: the plugin file {} does not exist; the path is relative to the config's folder",
                file.display()
            ),
        });
    }
    let plugin = runtime
        .load_file(&file)
        .and_then(|plugin| plugin.expect(PluginKind::Check).map(|()| plugin))
        .map_err(|source| Error::Check {
            what: what.to_string(),
            source,
        })?;
    if let Some(expected) = sha256
        && plugin.sha256() != expected
    {
        return Err(Error::Unsupported {
            message: format!(
                "{what}: {} has sha256 {}, but the config pins {expected}; nothing was read. \
                 If the new file is trusted, put its sha256 in the config",
                file.display(),
                plugin.sha256()
            ),
        });
    }
    Ok(plugin)
}

enum Message {
    Schema(SchemaRef),
    Batch(RecordBatch),
    End(CheckContext),
}

/// The writer's end of a running gate.
pub(crate) struct GateRun<'scope> {
    sender: Option<SyncSender<Message>>,
    handle: Option<ScopedJoinHandle<'scope, Result<QualityReport>>>,
}

impl GateRun<'_> {
    /// The stream's schema (before any batch).
    pub fn schema(&mut self, schema: SchemaRef) -> Result<()> {
        self.send(Message::Schema(schema))
    }

    /// One batch for the checks.
    pub fn batch(&mut self, batch: RecordBatch) -> Result<()> {
        self.send(Message::Batch(batch))
    }

    /// Ends the stream and waits for the verdicts.
    pub fn finish(mut self, context: CheckContext) -> Result<QualityReport> {
        self.send(Message::End(context))?;
        self.sender = None;
        self.join()
    }

    /// Sends a message; when the checks' thread has stopped (a plugin failed), its error.
    fn send(&mut self, message: Message) -> Result<()> {
        let sent = self
            .sender
            .as_ref()
            .is_some_and(|sender| sender.send(message).is_ok());
        if sent {
            Ok(())
        } else {
            self.sender = None;
            self.join().and(Err(Error::Interrupted))
        }
    }

    fn join(&mut self) -> Result<QualityReport> {
        match self.handle.take().map(ScopedJoinHandle::join) {
            Some(Ok(outcome)) => outcome,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => Err(Error::Interrupted),
        }
    }
}
