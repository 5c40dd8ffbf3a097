//! `ldp gold sync CONFIG [--dbt-manifest FILE]`: the contract of a config (`metadata.docs`, or
//! the dbt model's from a dbt manifest) written into its existing
//! Iceberg table, with no new data. A gold table that does not keep the contract is refused
//! (exit 3), as a run would refuse it; a table that already holds it gets no commit.

use std::path::Path;

use ldp_catalog::Mode;
use ldp_table::{ContractUpdate, Table, apply_contract};
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::target::TargetTable;

/// What a sync did (or, on a dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncReport {
    /// `ns.t`.
    pub table: String,
    /// Planned only.
    pub dry_run: bool,
    /// A commit was made.
    pub committed: bool,
    /// The properties set or changed.
    pub properties: Vec<String>,
    /// The columns whose doc was set or changed.
    pub columns: Vec<String>,
}

impl SyncReport {
    /// The report as JSON (the field names above).
    pub fn to_json(&self) -> Value {
        json!({
            "table": self.table,
            "dry_run": self.dry_run,
            "committed": self.committed,
            "properties": self.properties,
            "columns": self.columns,
        })
    }
}

/// Writes the contract of the config at `path` into its table (see the module docs): its
/// `metadata.docs`, or with `dbt_manifest` the contract of the dbt model that builds the table
/// ([`contract_from_dbt_manifest`]).
///
/// # Errors
///
/// A config without `metadata.docs` ([`Error::Unsupported`]), a table that does not exist, a
/// gold contract the table does not keep ([`Error::Contract`], exit 3), commit errors.
pub fn sync_contract(
    path: &Path,
    dbt_manifest: Option<&Path>,
    dry_run: bool,
) -> Result<SyncReport> {
    let config = crate::open_config(path)?;
    let target = TargetTable::of_config(&config, path)?;
    let from_manifest = dbt_manifest
        .map(|manifest| {
            contract_from_dbt_manifest(
                manifest,
                &target.namespace,
                &target.name,
                config.who.as_deref(),
                config.when.as_deref(),
            )
        })
        .transpose()?;
    let Some(contract) = from_manifest.as_ref().or(config.metadata.docs.as_ref()) else {
        return Err(Error::Unsupported {
            message: format!(
                "config {} ({}) has no metadata.docs: add the table's contract there, or pass \
                 --dbt-manifest for a table dbt built",
                config.identifier,
                path.display()
            ),
        });
    };
    let mode = if dry_run {
        Mode::ReadOnly
    } else {
        Mode::ReadWrite
    };
    let catalog = target.open_catalog(mode)?;
    let mut table = Table::load(&catalog, &target.namespace, &target.name)?;
    let columns: Vec<String> = table
        .schema()
        .as_struct()
        .fields()
        .iter()
        .map(|field| field.name.clone())
        .collect();
    let names: Vec<&str> = columns.iter().map(String::as_str).collect();
    let reasons = contract.gate(&names);
    if !reasons.is_empty() {
        return Err(Error::Contract {
            table: target.identifier(),
            reasons,
        });
    }
    let update = ContractUpdate {
        properties: contract.properties(),
        column_docs: contract.columns.clone(),
    };
    let outcome = apply_contract(&catalog, &mut table, &update, !dry_run)?;
    Ok(SyncReport {
        table: target.identifier(),
        dry_run,
        committed: outcome.committed,
        properties: outcome.properties,
        columns: outcome.columns,
    })
}

/// The contract of the dbt model that builds table `name` (its `alias`, else its `name`), read
/// from a dbt `manifest.json`: the model's `description`, its columns' descriptions, its `tags`,
/// and `layer`, `owner`, `grain` and `primary_key` from its `meta` (`config.meta` too). A model
/// published to the `gold` namespace is a gold table. The config's `who` and `when` are the
/// defaults of `owner` and `refresh`.
///
/// # Errors
///
/// The manifest cannot be read or is not JSON, or no model builds `name`
/// ([`Error::Unsupported`], naming the manifest and the table).
pub fn contract_from_dbt_manifest(
    manifest: &Path,
    namespace: &str,
    name: &str,
    who: Option<&str>,
    when: Option<&str>,
) -> Result<ldp_config::docs::Contract> {
    use ldp_config::docs::{Contract, Layer};
    let unusable = |why: String| Error::Unsupported {
        message: format!("dbt manifest {}: {why}", manifest.display()),
    };
    let text = std::fs::read_to_string(manifest).map_err(|e| unusable(e.to_string()))?;
    let document: Value =
        serde_json::from_str(&text).map_err(|e| unusable(format!("not JSON: {e}")))?;
    let models = document["nodes"]
        .as_object()
        .into_iter()
        .flat_map(|nodes| nodes.values())
        .filter(|node| node["resource_type"] == "model");
    let builds =
        |node: &&Value| node["alias"].as_str().or_else(|| node["name"].as_str()) == Some(name);
    let Some(node) = models.clone().find(builds) else {
        return Err(unusable(format!(
            "no model builds table '{name}' (a model whose alias, or name, is '{name}')"
        )));
    };
    let meta = |key: &str| -> Option<&Value> {
        node["meta"]
            .get(key)
            .or_else(|| node["config"]["meta"].get(key))
    };
    let meta_text = |key: &str| {
        meta(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
    };
    let list = |value: Option<&Value>| -> Vec<String> {
        match value {
            Some(Value::String(one)) => vec![one.clone()],
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        }
    };
    let layer = meta_text("layer")
        .and_then(|l| Layer::ALL.into_iter().find(|known| known.as_str() == l))
        .or((namespace == "gold").then_some(Layer::Gold));
    let columns = node["columns"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(column, spec)| {
            let doc = spec["description"].as_str()?.trim();
            (!doc.is_empty()).then(|| (column.clone(), doc.to_owned()))
        })
        .collect();
    let or_default = |value: Option<String>, default: Option<&str>| {
        value.or_else(|| {
            default
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(str::to_owned)
        })
    };
    Ok(Contract {
        layer,
        description: node["description"]
            .as_str()
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_owned),
        owner: or_default(meta_text("owner"), who),
        grain: meta_text("grain"),
        primary_key: list(meta("primary_key")),
        columns,
        tags: list(node.get("tags")),
        refresh: or_default(meta_text("refresh"), when),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dbt_model_gives_its_contract() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("manifest.json");
        std::fs::write(
            &manifest,
            serde_json::json!({"nodes": {
                "model.shop.stg": {"resource_type": "model", "name": "stg", "columns": {}},
                "model.shop.daily_revenue": {
                    "resource_type": "model", "name": "daily_revenue", "alias": "revenue",
                    "description": "Revenue per day. ", "tags": ["finance"],
                    "meta": {"grain": "one row per day"},
                    "config": {"meta": {"owner": "finance team", "primary_key": "day"}},
                    "columns": {"day": {"description": "The day."},
                                "revenue": {"description": ""}}}}})
            .to_string(),
        )
        .unwrap();
        let contract =
            contract_from_dbt_manifest(&manifest, "gold", "revenue", None, Some("daily")).unwrap();
        assert_eq!(contract.layer, Some(ldp_config::docs::Layer::Gold));
        assert_eq!(contract.description.as_deref(), Some("Revenue per day."));
        assert_eq!(contract.owner.as_deref(), Some("finance team"));
        assert_eq!(contract.grain.as_deref(), Some("one row per day"));
        assert_eq!(contract.primary_key, ["day"]);
        assert_eq!(contract.tags, ["finance"]);
        assert_eq!(contract.refresh.as_deref(), Some("daily"));
        assert_eq!(contract.columns.len(), 1, "a blank description is none");
        assert_eq!(
            contract.gate(&["day", "revenue"]),
            [
                "a gold table needs a description of every column; metadata.docs.columns has none for ['revenue']"
            ]
        );
        let missing = contract_from_dbt_manifest(&manifest, "gold", "nope", None, None)
            .unwrap_err()
            .to_string();
        assert!(
            missing.contains("no model builds table 'nope'"),
            "{missing}"
        );
    }
}
