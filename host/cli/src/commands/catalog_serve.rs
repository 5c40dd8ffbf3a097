//! `ldp catalog serve CONFIG|DIR…`: an Iceberg REST catalog over the catalogs the configs name,
//! until Ctrl-C or SIGTERM.

use std::io::Write;
use std::sync::atomic::AtomicBool;

use ldp_catalog_server::{ServeSettings, ServedCatalog};

use crate::args::CatalogServeArgs;

/// Serves until interrupted; exit 0 after a clean stop.
pub fn serve(args: &CatalogServeArgs, interrupted: &'static AtomicBool) -> anyhow::Result<u8> {
    let catalogs = served_catalogs(args)?;
    let mut settings = ServeSettings::new(args.listen, catalogs);
    settings.read_only = args.read_only;
    settings.allow_remote = args.allow_remote;
    if let Some(variable) = &args.token_env {
        match std::env::var(variable) {
            Ok(token) if !token.is_empty() => settings.token = Some(token),
            _ => anyhow::bail!(
                "--token-env names environment variable '{variable}', which is not set; set it to the token clients must send"
            ),
        }
    }
    let names: Vec<String> = settings
        .catalogs
        .iter()
        .map(|c| format!("{} ({})", c.name, c.address))
        .collect();
    let server = ldp_catalog_server::start(settings)?;
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(
            stdout,
            "serving the Iceberg REST catalog at {} ({}{}): {}",
            server.uri(),
            if args.read_only {
                "read-only"
            } else {
                "read-write"
            },
            if args.token_env.is_some() {
                ", token required"
            } else {
                ""
            },
            names.join(", ")
        )?;
        stdout.flush()?;
    }
    super::serving::until_interrupted(server, interrupted);
    Ok(0)
}

/// One served catalog per distinct catalog (address and name) of the configs' Iceberg tables;
/// each is served under its catalog name.
fn served_catalogs(args: &CatalogServeArgs) -> anyhow::Result<Vec<ServedCatalog>> {
    let tables = ldp_pipeline::lake::lake_tables(&args.configs)?;
    let mut served: Vec<ServedCatalog> = Vec::new();
    for table in tables {
        if served
            .iter()
            .any(|s| s.address == table.catalog && s.name == table.catalog_name)
        {
            continue;
        }
        let warehouse = match &table.object_location {
            Some(_) => table.warehouse.display().to_string(),
            None => std::path::absolute(&table.warehouse)
                .unwrap_or(table.warehouse.clone())
                .display()
                .to_string(),
        };
        served.push(ServedCatalog {
            name: table.catalog_name.clone(),
            address: table.catalog.clone(),
            warehouse,
        });
    }
    if served.is_empty() {
        anyhow::bail!(
            "no Iceberg catalog in {}: name dataset configs (or folders of them) with an Iceberg target or source",
            args.configs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(served)
}
