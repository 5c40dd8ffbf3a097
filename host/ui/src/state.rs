//! What every request sees: the settings, and the lake as `ldp mcp` serves it (its tables and
//! the tools that read them), discovered on first use and again when a table is not found.

use std::sync::{Arc, RwLock};

use ldp_mcp::tools::Context;
use ldp_mcp::{Lake, Served};
use ldp_plugin_runtime::Runtime;

use crate::error::{UiError, UiErrorKind};
use crate::settings::UiSettings;

/// The server's state.
pub(crate) struct State {
    pub(crate) settings: UiSettings,
    /// What was read of each table's metadata file, for the home page.
    pub(crate) metadata: ldp_status::MetadataCache,
    /// Held while the home page's document is made: a request that comes while the lake is
    /// read (the read-ahead at start) waits for that read and uses what it kept, instead of
    /// reading every metadata file a second time beside it.
    pub(crate) home: std::sync::Mutex<()>,
    runtime: Runtime,
    context: RwLock<Option<Arc<Context>>>,
}

impl State {
    pub(crate) fn new(settings: UiSettings, runtime: Runtime) -> State {
        State {
            settings,
            metadata: ldp_status::MetadataCache::new(),
            home: std::sync::Mutex::new(()),
            runtime,
            context: RwLock::new(None),
        }
    }

    /// The lake and its tools, discovered on first use.
    pub(crate) fn context(&self) -> Result<Arc<Context>, UiError> {
        if let Some(context) = self.context.read().ok().and_then(|c| c.clone()) {
            return Ok(context);
        }
        self.rediscover()
    }

    /// Discovers the lake's tables again (a table created since the last look).
    pub(crate) fn rediscover(&self) -> Result<Arc<Context>, UiError> {
        let lake = Lake::discover(&self.settings.paths, &[], &[])
            .map_err(|e| UiError::internal(e.to_string()))?;
        let context = Arc::new(Context {
            lake,
            max_rows: self.settings.max_rows,
            timeout: self.settings.timeout,
            memory_limit: self.settings.memory_limit,
            engine: None,
            runtime: self.runtime.clone(),
        });
        if let Ok(mut slot) = self.context.write() {
            *slot = Some(Arc::clone(&context));
        }
        Ok(context)
    }

    /// The context and the served table `name` (`ns.table`, or a unique bare name), looking
    /// for the lake's tables again when it is not known yet.
    pub(crate) fn table(&self, name: &str) -> Result<(Arc<Context>, Served), UiError> {
        let context = self.context()?;
        if let Ok(served) = context.lake.resolve(name) {
            let served = served.clone();
            return Ok((context, served));
        }
        let context = self.rediscover()?;
        let served = context.lake.resolve(name).cloned().map_err(|_| {
            UiError::new(
                UiErrorKind::NotFound,
                format!("no table '{name}' in this lake; the home page lists its tables"),
            )
        })?;
        Ok((context, served))
    }
}
