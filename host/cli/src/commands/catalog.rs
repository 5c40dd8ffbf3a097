//! `ldp catalog test SPEC`: connect to a catalog, list its namespaces and the tables of the
//! spec's namespace, with secrets masked.

use std::io::Write;
use std::path::{Path, PathBuf};

use ldp_catalog::Mode;
use ldp_config::CatalogSpec;
use ldp_config::paths::PathContext;
use ldp_pipeline::ResolvedCatalog;
use serde_json::{Value, json};

use crate::args::CatalogTestArgs;

/// What the test found.
struct Found {
    spec: CatalogSpec,
    /// The catalog: its file, its URI (without password), or a remote catalog's description.
    address: String,
    catalog_name: String,
    namespace: String,
    namespaces: Vec<String>,
    tables: Vec<String>,
}

/// Runs `ldp catalog test`.
pub fn test(args: &CatalogTestArgs) -> anyhow::Result<u8> {
    let spec = ldp_pipeline::lake::read_catalog_spec(&args.spec)?;
    let found = list(spec, &args.spec)?;
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(stdout, "{}", super::json_text(&found.json())?)?;
    } else {
        write!(stdout, "{}", found.text())?;
    }
    Ok(0)
}

/// Lists a catalog of any type through the catalog interface every command uses, read-only.
fn list(spec: CatalogSpec, file: &Path) -> anyhow::Result<Found> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let context = PathContext::new(file.parent(), &cwd);
    let catalog = ResolvedCatalog::resolve(&spec, &context)?;
    let opened = catalog.open(Mode::ReadOnly)?;
    let namespaces = opened.list_namespaces(None)?;
    let tables = if namespaces.contains(&catalog.namespace) {
        opened.list_tables(&catalog.namespace)?
    } else {
        Vec::new()
    };
    Ok(Found::new(
        spec,
        catalog.address.to_string(),
        catalog.catalog_name,
        catalog.namespace,
        namespaces,
        tables,
    ))
}

impl Found {
    fn new(
        spec: CatalogSpec,
        address: String,
        catalog_name: String,
        namespace: String,
        mut namespaces: Vec<String>,
        tables: Vec<String>,
    ) -> Found {
        namespaces.sort();
        let mut tables: Vec<String> = tables
            .iter()
            .map(|t| ldp_catalog::qualified(&namespace, t))
            .collect();
        tables.sort();
        Found {
            spec,
            address,
            catalog_name,
            namespace,
            namespaces,
            tables,
        }
    }

    fn redacted_spec(&self) -> Value {
        ldp_config::secrets::redact(&Value::Object(self.spec.raw.clone()))
    }

    /// The lines the Python tool prints.
    fn text(&self) -> String {
        let list = |items: &[String]| format!("({}): {}", items.len(), items.join(", "));
        let mut out = format!(
            "catalog type: {}\nspec: {}\ncatalog name: {}\nnamespaces {}\n",
            self.spec.effective_type(),
            ldp_config::python_json_sorted(&self.redacted_spec()),
            self.catalog_name,
            list(&self.namespaces).trim_end(),
        );
        out.push_str(&format!(
            "tables in {} {}\n",
            self.namespace,
            list(&self.tables).trim_end()
        ));
        out.push_str("ok\n");
        out
    }

    fn json(&self) -> Value {
        json!({
            "catalog_type": self.spec.effective_type().as_str(),
            "spec": self.redacted_spec(),
            "catalog": self.address,
            "catalog_name": self.catalog_name,
            "namespaces": self.namespaces,
            "namespace": self.namespace,
            "tables": self.tables,
            "ok": true,
        })
    }
}
