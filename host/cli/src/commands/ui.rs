//! `ldp ui DIR|CONFIG… [--listen ADDR]`: the lake's web page ([`ldp_ui`]), until Ctrl-C or
//! SIGTERM.

use std::io::Write;
use std::sync::atomic::AtomicBool;

use ldp_plugin_runtime::Runtime;

/// Serves until interrupted; exit 0 after a clean stop.
pub fn serve(
    settings: &ldp_ui::UiSettings,
    runtime: Runtime,
    interrupted: &'static AtomicBool,
) -> anyhow::Result<u8> {
    let token = settings.token.is_some();
    let server = ldp_ui::start(settings.clone(), runtime)?;
    {
        let mut stdout = std::io::stdout().lock();
        let url = format!("{}/", server.uri());
        if token {
            writeln!(
                stdout,
                "serving the lake's page at {url} (token required: open {url}?token=<{}> once)",
                ldp_ui::TOKEN_ENV
            )?;
        } else {
            writeln!(stdout, "serving the lake's page at {url}")?;
        }
        stdout.flush()?;
    }
    super::serving::until_interrupted(server, interrupted);
    Ok(0)
}
