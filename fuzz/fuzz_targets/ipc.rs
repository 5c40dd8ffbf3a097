//! The host's decoding of what a plugin sends (sdk/ipc's `Decoder` with `Validation::Full`,
//! as host/plugin-runtime decodes a source's or a transform's stream) on any messages.
//!
//! The input is a list of messages, each a little-endian u32 length and that many bytes (the
//! last one takes what is left): the Schema message, then one message per batch.

#![no_main]

use arrow_array::Array;
use ldp_plugin_ipc::{Decoder, Validation};
use libfuzzer_sys::fuzz_target;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

/// Messages past this many are ignored.
const MAX_MESSAGES: usize = 16;

fn messages(mut data: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while out.len() < MAX_MESSAGES {
        let Some((len, rest)) = data.split_first_chunk::<4>() else {
            break;
        };
        let len = (u32::from_le_bytes(*len) as usize).min(rest.len());
        let (message, rest) = rest.split_at(len);
        out.push(message.to_vec());
        data = rest;
    }
    out
}

fuzz_target!(|data: &[u8]| {
    // Panics the host catches are not findings; libFuzzer's hook would abort on those too, so
    // this one only prints them. A panic that nothing catches still fails the run.
    static HOOK: Once = Once::new();
    HOOK.call_once(|| std::panic::set_hook(Box::new(|info| eprintln!("{info}"))));
    let mut messages = messages(data).into_iter();
    let Some(schema_msg) = messages.next() else {
        return;
    };
    let Ok(mut decoder) = Decoder::new(schema_msg, Validation::Full) else {
        return;
    };
    for msg in messages {
        // As host/plugin-runtime's `ipc::decode`: a panic of the decoder is caught there (a
        // contract error of the plugin), and the stream ends at the first message that fails.
        let Ok(Ok(batch)) = catch_unwind(AssertUnwindSafe(|| decoder.decode(msg))) else {
            return;
        };
        // A batch the decoder accepts is whole: the host trusts it from here on.
        assert_eq!(batch.schema_ref().fields(), decoder.schema().fields());
        for column in batch.columns() {
            if let Err(e) = column.to_data().validate_full() {
                panic!("the decoder accepted an invalid column: {e}");
            }
        }
    }
});
