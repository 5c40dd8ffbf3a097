//! OpenTelemetry traces. When `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, ldp's spans are exported over OTLP/HTTP with
//! protobuf bodies: `ldp.workflow`, `ldp.task`, `ldp.run` and `ldp.plugin`, with their
//! attributes (`docs/status.md`). The exporter reads the standard variables
//! (`OTEL_EXPORTER_OTLP_HEADERS`, `…_TIMEOUT`, `OTEL_SERVICE_NAME`, default `ldp`,
//! `OTEL_RESOURCE_ATTRIBUTES`). Spans are batched on a thread of their own and flushed when the
//! command ends.
//!
//! Without the variable no layer is installed: ldp's spans are at `info`, which the log filter
//! (`warn` unless `-v`) leaves disabled, so they cost a check of a static flag each.

use opentelemetry::KeyValue;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::registry::LookupSpan;

/// The variables that turn export on.
const ENDPOINT_VARS: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
];

/// The exporter of a process that exports, shut down (flushed) by [`Telemetry::shutdown`].
pub struct Telemetry {
    provider: SdkTracerProvider,
}

/// Whether the environment asks for traces.
pub fn wanted() -> bool {
    ENDPOINT_VARS
        .iter()
        .any(|var| std::env::var(var).is_ok_and(|value| !value.trim().is_empty()))
}

impl Telemetry {
    /// The exporter and the layer that feeds it ldp's spans (`ldp.*`), or why there is none.
    pub fn start<S>() -> Result<(Telemetry, impl Layer<S>), String>
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    {
        if let Ok(protocol) = std::env::var("OTEL_EXPORTER_OTLP_PROTOCOL")
            && !protocol.is_empty()
            && protocol != "http/protobuf"
        {
            tracing::warn!(
                "OTEL_EXPORTER_OTLP_PROTOCOL is {protocol:?}: this ldp exports over http/protobuf only"
            );
        }
        let exporter = SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .build()
            .map_err(|e| format!("cannot make the OTLP exporter: {e}"))?;
        let mut resource = Resource::builder()
            .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")));
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name("ldp");
        }
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource.build())
            .build();
        let layer = tracing_opentelemetry::layer()
            .with_tracer(provider.tracer("ldp"))
            .with_filter(filter_fn(|meta| {
                meta.is_span() && meta.name().starts_with("ldp.")
            }));
        Ok((Telemetry { provider }, layer))
    }

    /// Sends what is left and stops the exporter.
    pub fn shutdown(self) {
        if let Err(e) = self.provider.shutdown() {
            eprintln!("ldp: warning: the OpenTelemetry exporter did not flush: {e}");
        }
    }
}
