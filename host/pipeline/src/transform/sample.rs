//! `ldp transform test`: a transform tried on a sample of a config's source, with nothing
//! written anywhere, so that an author (or an agent) can iterate on it safely.

use std::sync::mpsc::sync_channel;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use ldp_config::{Config, TransformSpec};
use ldp_plugin_runtime::Runtime;

use super::{Chain, Transforms, resolve_one};
use crate::error::{Error, Result};
use crate::source::{Loaded, Message, SourceSpec};

/// What a transform made of a sample.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The schema of the sample, as the source gives it.
    pub input_schema: SchemaRef,
    /// The first rows of the source the transform was given.
    pub input_rows: u64,
    /// The schema the transform declared.
    pub output_schema: SchemaRef,
    /// What it gave back.
    pub output: Vec<RecordBatch>,
    /// The sha256 of the transform's code (the plugin file or the JavaScript source).
    pub sha256: String,
    /// The transform's name.
    pub name: String,
}

/// Runs `transform` (resolved against the config's folder) on the first `rows` rows of the
/// config's source, after the config's own transforms when `after_config` is set. Nothing is
/// written.
///
/// # Errors
///
/// The source or the transform fails, breaks a sandbox limit, or its file is not the pinned one.
pub fn sample(
    config: &Config,
    runtime: &Runtime,
    transform: &TransformSpec,
    rows: usize,
    after_config: bool,
) -> Result<Sample> {
    let base = super::base_dir(config);
    let mut transforms = if after_config {
        Transforms::resolve(config)?
    } else {
        Transforms::default()
    };
    let tried = resolve_one(
        transform,
        &base,
        Some(format!("transform {}", transform.name)),
    )?;
    let (name, sha256) = (tried.name.clone(), tried.sha256.clone());
    transforms.list.push(tried);
    let source = SourceSpec::resolve(config, None)?;
    run_sample(runtime, &transforms, &source, rows, name, sha256)
}

/// Runs `transform` on `input` (the rows of a table an agent asked for, say): JavaScript
/// inline or a plugin file resolved against `base`. Nothing is written.
///
/// # Errors
///
/// The transform fails, breaks a sandbox limit, or its file is not the pinned one.
pub fn sample_batches(
    runtime: &Runtime,
    transform: &TransformSpec,
    base: &std::path::Path,
    input: crate::run::ProvidedBatches,
) -> Result<Sample> {
    let tried = resolve_one(
        transform,
        base,
        Some(format!("transform {}", transform.name)),
    )?;
    let (name, sha256) = (tried.name.clone(), tried.sha256.clone());
    let transforms = Transforms { list: vec![tried] };
    let rows = input
        .batches
        .iter()
        .map(RecordBatch::num_rows)
        .sum::<usize>();
    run_sample(
        runtime,
        &transforms,
        &SourceSpec::Provided(input),
        rows.max(1),
        name,
        sha256,
    )
}

fn run_sample(
    runtime: &Runtime,
    transforms: &Transforms,
    source: &SourceSpec,
    rows: usize,
    name: String,
    sha256: String,
) -> Result<Sample> {
    let loaded = source.load(runtime)?;
    let chain = Chain::new(transforms.load(runtime)?, 4, None);
    std::thread::scope(|scope| {
        let (sender, receiver) = sync_channel(4);
        let (head_sender, head) = sync_channel(4);
        let loaded: &Loaded = &loaded;
        scope.spawn(crate::span::in_current_span(move || {
            source.produce(loaded, &sender)
        }));
        // Only the first `rows` rows go on to the chain; then the source is hung up on.
        let input = scope.spawn(move || -> Option<(SchemaRef, u64)> {
            let mut schema = None;
            let mut taken = 0usize;
            for message in receiver {
                let message = match message {
                    Ok(Message::Schema(s)) => {
                        schema = Some(s.clone());
                        Ok(Message::Schema(s))
                    }
                    Ok(Message::Batch(batch)) => {
                        let take = (rows - taken).min(batch.num_rows());
                        taken += take;
                        Ok(Message::Batch(batch.slice(0, take)))
                    }
                    Err(e) => Err(e),
                };
                if head_sender.send(message).is_err() || taken >= rows {
                    break;
                }
            }
            schema.map(|s| (s, taken as u64))
        });
        let output = chain.spawn(scope, head);
        let mut output_schema = None;
        let mut batches = Vec::new();
        for message in output {
            match message? {
                Message::Schema(schema) => output_schema = Some(schema),
                Message::Batch(batch) => batches.push(batch),
            }
        }
        let (input_schema, input_rows) =
            input
                .join()
                .ok()
                .flatten()
                .ok_or_else(|| Error::Unsupported {
                    message: "the source gave no schema".into(),
                })?;
        Ok(Sample {
            input_schema,
            input_rows,
            output_schema: output_schema.ok_or_else(|| Error::Unsupported {
                message: "the transform gave no schema".into(),
            })?,
            output: batches,
            sha256,
            name,
        })
    })
}
