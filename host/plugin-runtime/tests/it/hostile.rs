//! Hostile plugins: each attack is stopped with a clear error naming the plugin and what it
//! tried, the host stays up, the failed instance refuses further calls, and the next plugin
//! call in the same process works.

use crate::common::testing;
use crate::transform::mixed_batch;
use ldp_plugin_runtime::{ErrorKind, Limit, Limits, RuntimeError, Sandbox};
use std::time::{Duration, Instant};

/// Opens the hostile source and reads until the attack fails; returns the error.
fn attack(name: &str, sandbox: &Sandbox) -> RuntimeError {
    let plugin = testing(name);
    let err = match plugin.open_source("{}", sandbox) {
        Err(e) => e,
        Ok(mut source) => {
            let err = match source.next_batch() {
                Err(e) => e,
                Ok(Some(batch)) => panic!("{name} leaked: {batch:?}"),
                Ok(None) => panic!("{name} ended without failing"),
            };
            // The failed instance is not called again.
            let again = source.next_batch().unwrap_err();
            assert!(
                again.to_string().contains("called again after it failed"),
                "{again}"
            );
            err
        }
    };
    host_still_works();
    err
}

/// The next plugin call in the same process works.
fn host_still_works() {
    let batch = mixed_batch();
    let mut t = testing("identity")
        .open_transform("{}", batch.schema_ref(), &Sandbox::default())
        .unwrap();
    assert_eq!(t.push(&batch).unwrap().len(), 1);
}

fn plugin_error(err: &RuntimeError) -> (ErrorKind, &str) {
    match err {
        RuntimeError::Plugin { kind, message, .. } => (*kind, message.as_str()),
        other => panic!("expected the plugin's own error, got: {other}"),
    }
}

#[test]
fn reading_outside_the_grant_is_refused() {
    let granted = tempfile::tempdir().unwrap();
    let sandbox = Sandbox {
        grants: ldp_plugin_runtime::Grants {
            read_dirs: vec![granted.path().to_path_buf()],
            write_dir: None,
            ..ldp_plugin_runtime::Grants::default()
        },
        ..Sandbox::default()
    };
    let err = attack("hostile-read-outside", &sandbox);
    let (kind, message) = plugin_error(&err);
    assert_eq!(kind, ErrorKind::Io);
    assert!(message.contains("/etc/passwd"), "{message}");
    assert!(!message.contains("root:"), "{message}");
    assert!(
        err.to_string()
            .starts_with("plugin 'hostile-read-outside' failed (io): ")
    );
}

#[test]
fn opening_a_socket_is_refused() {
    let err = attack("hostile-socket", &Sandbox::default());
    let (kind, message) = plugin_error(&err);
    assert_eq!(kind, ErrorKind::Io);
    assert!(message.contains("127.0.0.1:9"), "{message}");
}

#[test]
fn no_environment_variable_is_visible() {
    assert!(std::env::var_os("PATH").is_some(), "the host has a PATH");
    let err = attack("hostile-env", &Sandbox::default());
    let (_, message) = plugin_error(&err);
    assert!(
        message.contains("no environment variables are visible"),
        "{message}"
    );
}

#[test]
fn an_endless_loop_hits_the_time_limit() {
    let sandbox = Sandbox {
        limits: Limits {
            call_timeout: Duration::from_millis(200),
            ..Limits::default()
        },
        ..Sandbox::default()
    };
    let started = Instant::now();
    let err = attack("hostile-loop", &sandbox);
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(
        matches!(&err, RuntimeError::Limit { limit: Limit::Time { max }, .. } if *max == Duration::from_millis(200)),
        "{err}"
    );
    assert_eq!(err.kind(), ErrorKind::Limit);
    assert!(
        err.to_string()
            .starts_with("plugin 'hostile-loop' was stopped by the sandbox: time limit")
    );
}

#[test]
fn unbounded_allocation_hits_the_memory_limit() {
    let sandbox = Sandbox {
        limits: Limits {
            max_memory_bytes: 256 << 20,
            ..Limits::default()
        },
        ..Sandbox::default()
    };
    let err = attack("hostile-alloc", &sandbox);
    assert!(
        matches!(&err, RuntimeError::Limit { limit: Limit::Memory { max_bytes, requested_bytes }, .. }
            if *max_bytes == 256 << 20 && *requested_bytes > 256 << 20),
        "{err}"
    );
    assert!(err.to_string().contains("memory limit"), "{err}");
}

#[test]
fn flooding_stderr_hits_the_output_limit() {
    let err = attack("hostile-stderr", &Sandbox::default());
    assert!(
        matches!(&err, RuntimeError::Limit { limit: Limit::Output { max_bytes }, .. } if *max_bytes == 1 << 20),
        "{err}"
    );
}

#[test]
fn a_panic_is_a_trap_with_the_panic_message() {
    let err = attack("hostile-trap", &Sandbox::default());
    assert!(matches!(err, RuntimeError::Trap { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.starts_with("plugin 'hostile-trap' crashed: "),
        "{message}"
    );
    assert!(
        message.contains("on stderr it said: panicked at ")
            && message.ends_with(": hostile-trap: deliberate panic"),
        "{message}"
    );
}

/// Hostile-input finding: a plugin that called `exit()` printed wasmtime's raw wasm backtrace.
/// It is now the plugin's failure in one line, saying what it did.
#[test]
fn an_exit_is_a_crash_in_one_line_without_a_backtrace() {
    let err = attack("hostile-exit", &Sandbox::default());
    assert!(matches!(err, RuntimeError::Trap { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "plugin 'hostile-exit' crashed: it called exit() instead of returning an error, so it \
         said nothing of why"
    );
}

/// Hostile-input finding: a plugin's error text was not capped (20 MB reached stderr). It is
/// cut to `MAX_PLUGIN_TEXT_BYTES`, saying how much was cut.
#[test]
fn a_20_mb_error_message_is_cut_to_a_few_kib() {
    let plugin = testing("hostile-exit");
    let mut source = plugin
        .open_source(r#"{"attack": "error-flood"}"#, &Sandbox::default())
        .unwrap();
    let err = source.next_batch().unwrap_err();
    assert!(
        matches!(
            err,
            RuntimeError::Plugin {
                kind: ErrorKind::Data,
                ..
            }
        ),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.len() < ldp_plugin_runtime::MAX_PLUGIN_TEXT_BYTES + 100,
        "{} bytes",
        message.len()
    );
    assert!(
        message.ends_with(&format!(
            "... ({} more bytes)",
            (20 << 20) - ldp_plugin_runtime::MAX_PLUGIN_TEXT_BYTES
        )),
        "{}",
        &message[message.len() - 80..]
    );
    host_still_works();
}
