//! The config model (host/config) on any text: parsed, validated, loaded and planned as
//! `ldp plan` and `ldp run` do, and read as a workflow. The text before the first NUL byte is
//! the file; the text after it, if any, is the `--window` argument.

#![no_main]

use ldp_config::workflow::workflow_from_document;
use ldp_config::{
    Document, idempotency_key, plan_document, spec_hash, stray_keys, target_identity,
    validate_workflow,
};
use ldp_fuzz::now;
use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (text, window) = match text.split_once('\0') {
        Some((text, window)) => (text, Some(window)),
        None => (text, None),
    };
    let path = PathBuf::from("/fuzz/config.json");
    let Ok(document) = Document::parse(text, path.clone()) else {
        return;
    };
    let _ = document.kind();
    let validation = document.validate();
    let _ = validation.is_valid();
    if let Ok(config) = document.load() {
        // What `ldp run` derives from a loaded config before it runs.
        let base = config.base_dir.as_deref();
        let _ = spec_hash(&config.raw, base);
        if let Ok(identity) = target_identity(&config.raw, base) {
            let _ = idempotency_key("fuzz", &identity, None);
        }
    }
    let _ = document.plan_config();
    let _ = stray_keys(&document.value)
        .iter()
        .map(ToString::to_string)
        .count();
    for file in [Some(path.as_path()), None] {
        if let Ok(plan) = plan_document(&document.value, file, window, now()) {
            let _ = plan.to_json_text();
            let _ = plan.render_text();
        }
    }
    let _ = validate_workflow(&document.value);
    if let Ok(workflow) = workflow_from_document(&document.value, Path::new("/fuzz"), Some(&path)) {
        let _ = workflow.order();
        let _ = workflow.window_size();
        if let Some(window) = window {
            let _ = workflow.parse_window(window, now());
        }
    }
});
