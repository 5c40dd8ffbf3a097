//! `ldp:plugin/log`: a plugin's log lines go to the host's log (`tracing`, target `ldp::plugin`,
//! with the plugin's name), charged to the instance's output budget.

use crate::bindings::wit_log;
use crate::sandbox::HostState;

impl wit_log::Host for HostState {
    fn log(&mut self, level: wit_log::Level, message: String) {
        if !self.output.charge(message.len()) {
            // Over budget: drop the line. The output stream traps on the next write; the log
            // import cannot trap, so the budget is checked again after the call.
            return;
        }
        let plugin = self.output.plugin();
        let plugin = &*plugin;
        match level {
            wit_log::Level::Trace => tracing::trace!(target: "ldp::plugin", plugin, "{message}"),
            wit_log::Level::Debug => tracing::debug!(target: "ldp::plugin", plugin, "{message}"),
            wit_log::Level::Info => tracing::info!(target: "ldp::plugin", plugin, "{message}"),
            wit_log::Level::Warn => tracing::warn!(target: "ldp::plugin", plugin, "{message}"),
            wit_log::Level::Error => tracing::error!(target: "ldp::plugin", plugin, "{message}"),
        }
    }
}
