//! Attacks the network sandbox: `open` connects to `127.0.0.1:9` with `std::net::TcpStream`.
//!
//! The host must give a plugin no network: the connection must fail, and `open` then returns an
//! `io` error `connect 127.0.0.1:9: <error>` (saying so when std has no sockets on this target).
//! If it connects, `open` succeeds and the stream is one row whose `leaked` column says so, so a
//! test sees the leak.

use ldp_plugin_sdk::arrow_array::StringArray;
use ldp_plugin_sdk::prelude::*;
use std::io::ErrorKind as IoKind;
use std::sync::Arc;

const ADDRESS: &str = "127.0.0.1:9";

struct HostileSocket {
    leaked: Option<String>,
}

fn leaked_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        "leaked",
        DataType::Utf8,
        true,
    )]))
}

impl Source for HostileSocket {
    fn describe() -> PluginInfo {
        PluginInfo::new("hostile-socket", env!("CARGO_PKG_VERSION"))
            .description("Test plugin: tries to connect to 127.0.0.1:9")
    }

    fn open(_config: &str) -> Result<Self, PluginError> {
        match std::net::TcpStream::connect(ADDRESS) {
            Ok(stream) => {
                let local = stream
                    .local_addr()
                    .map_or_else(|e| e.to_string(), |a| a.to_string());
                Ok(Self {
                    leaked: Some(format!("connected to {ADDRESS} from {local}")),
                })
            }
            Err(e) if e.kind() == IoKind::Unsupported => Err(PluginError::io(format!(
                "connect {ADDRESS}: {e} (std::net has no sockets on this target)"
            ))),
            Err(e) => Err(PluginError::io(format!("connect {ADDRESS}: {e}"))),
        }
    }

    fn schema(&self) -> SchemaRef {
        leaked_schema()
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, PluginError> {
        let Some(leaked) = self.leaked.take() else {
            return Ok(None);
        };
        let column = Arc::new(StringArray::from(vec![leaked]));
        Ok(Some(RecordBatch::try_new(leaked_schema(), vec![column])?))
    }
}

ldp_plugin_sdk::export_source!(HostileSocket);
