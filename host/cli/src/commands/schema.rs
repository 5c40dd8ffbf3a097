//! `ldp schema [--kind KIND]`.

use std::io::Write;

/// Prints the JSON Schema of `kind`.
pub fn run(kind: ldp_config::Kind) -> anyhow::Result<u8> {
    writeln!(
        std::io::stdout().lock(),
        "{}",
        ldp_config::kind_schema(kind)
    )?;
    Ok(0)
}
