//! `metadata.docs`: the table's contract. What the table means, who owns it, what one row is and
//! what each column holds; written into the Iceberg table after a publish, so every reader finds
//! it there.
//!
//! ```json
//! "docs": {"layer": "gold", "description": "Orders and revenue per restaurant and day.",
//!          "owner": "restaurant operations", "grain": "one row per restaurant and day",
//!          "primary_key": ["restaurant_id", "day"],
//!          "columns": {"restaurant_id": "The restaurant.", "day": "The day."}}
//! ```
//!
//! * Keys: `layer` (`bronze`, `silver` or `gold`), `description`, `owner` (the config's `who`
//!   when absent), `grain`, `primary_key` (a list of column names), `columns` (column name →
//!   description), `tags` (a list of strings) and `refresh` (the config's `when` when absent).
//!   Every key is optional; any other key is an error. Texts are trimmed; a blank text counts as
//!   absent.
//! * A **gold** table has to keep its promise ([`Contract::gate`]): a description, a grain and
//!   an owner, a description for every column of the table and none for a column it does not
//!   have. A table of another layer documents as much or as little as it likes.
//! * Editing the block does not change the spec hash (`spec_hash.rs` leaves `docs` out).
//! * In the table ([`Contract::properties`]): `comment` (the description), `ldp.owner`,
//!   `ldp.layer`, `ldp.grain`, `ldp.primary-key` (the columns joined by `,`), `ldp.tags` (joined
//!   by `,`) and `ldp.refresh`, and each column's description as the Iceberg field's doc.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::problems::{Problems, non_blank};
use crate::repr::repr;

/// The keys of a `docs` block.
pub const DOCS_KEYS: [&str; 8] = [
    "layer",
    "description",
    "owner",
    "grain",
    "primary_key",
    "columns",
    "tags",
    "refresh",
];

/// A table's layer in the medallion sense.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// Raw data as it landed.
    Bronze,
    /// Cleaned and conformed.
    Silver,
    /// Served to readers: documented in full ([`Contract::gate`]).
    Gold,
}

impl Layer {
    /// The layers in order.
    pub const ALL: [Layer; 3] = [Layer::Bronze, Layer::Silver, Layer::Gold];

    /// `bronze`, `silver` or `gold`.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Bronze => "bronze",
            Layer::Silver => "silver",
            Layer::Gold => "gold",
        }
    }
}

/// A checked `docs` block, with the config's `who` and `when` as defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contract {
    /// `layer`.
    pub layer: Option<Layer>,
    /// `description`.
    pub description: Option<String>,
    /// `owner`, else the config's `who`.
    pub owner: Option<String>,
    /// `grain`: what one row is.
    pub grain: Option<String>,
    /// `primary_key`.
    pub primary_key: Vec<String>,
    /// `columns`: column name → description.
    pub columns: BTreeMap<String, String>,
    /// `tags`.
    pub tags: Vec<String>,
    /// `refresh`, else the config's `when`.
    pub refresh: Option<String>,
}

impl Contract {
    /// Why a table with `columns` does not keep this contract, one line a reason; empty when it
    /// does or when the table is not gold.
    pub fn gate(&self, columns: &[&str]) -> Vec<String> {
        if self.layer != Some(Layer::Gold) {
            return Vec::new();
        }
        let mut reasons = Vec::new();
        for (what, value, key) in [
            ("a description", &self.description, "description"),
            ("a grain (what one row is)", &self.grain, "grain"),
            ("an owner", &self.owner, "owner (or the config's who)"),
        ] {
            if value.is_none() {
                reasons.push(format!(
                    "a gold table needs {what}: add metadata.docs.{key}"
                ));
            }
        }
        let undocumented: Vec<&str> = columns
            .iter()
            .copied()
            .filter(|column| !self.columns.contains_key(*column))
            .collect();
        if !undocumented.is_empty() {
            reasons.push(format!(
                "a gold table needs a description of every column; metadata.docs.columns has none for {}",
                crate::repr_list(&undocumented)
            ));
        }
        let absent: Vec<&str> = self
            .columns
            .keys()
            .map(String::as_str)
            .filter(|documented| !columns.contains(documented))
            .collect();
        if !absent.is_empty() {
            reasons.push(format!(
                "metadata.docs.columns describes {} that the table does not have; its columns are {}",
                crate::repr_list(&absent),
                crate::repr_list(columns)
            ));
        }
        reasons
    }

    /// The table properties the contract writes (see the module docs); absent parts are left
    /// out.
    pub fn properties(&self) -> BTreeMap<String, String> {
        let mut properties = BTreeMap::new();
        let mut put = |key: &str, value: Option<String>| {
            if let Some(value) = value.filter(|v| !v.is_empty()) {
                properties.insert(key.to_string(), value);
            }
        };
        put("comment", self.description.clone());
        put("ldp.owner", self.owner.clone());
        put("ldp.layer", self.layer.map(|l| l.as_str().to_string()));
        put("ldp.grain", self.grain.clone());
        put("ldp.primary-key", Some(self.primary_key.join(",")));
        put("ldp.tags", Some(self.tags.join(",")));
        put("ldp.refresh", self.refresh.clone());
        properties
    }
}

impl Contract {
    /// The contract a table holds, read back from its properties and column docs (the inverse
    /// of [`Contract::properties`]); `None` when it holds none of it.
    pub fn from_table(
        properties: &BTreeMap<String, String>,
        column_docs: BTreeMap<String, String>,
    ) -> Option<Contract> {
        let text = |key: &str| properties.get(key).filter(|v| !v.is_empty()).cloned();
        let list = |key: &str| -> Vec<String> {
            text(key)
                .map(|joined| joined.split(',').map(str::to_owned).collect())
                .unwrap_or_default()
        };
        let contract = Contract {
            layer: text("ldp.layer")
                .and_then(|name| Layer::ALL.into_iter().find(|l| l.as_str() == name)),
            description: text("comment"),
            owner: text("ldp.owner"),
            grain: text("ldp.grain"),
            primary_key: list("ldp.primary-key"),
            columns: column_docs,
            tags: list("ldp.tags"),
            refresh: text("ldp.refresh"),
        };
        (contract != Contract::default()).then_some(contract)
    }

    /// The contract as JSON: `layer`, `description`, `owner`, `grain`, `primary_key`, `tags`,
    /// `refresh` and `columns` (name → description).
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "layer": self.layer.map(Layer::as_str),
            "description": self.description,
            "owner": self.owner,
            "grain": self.grain,
            "primary_key": self.primary_key,
            "tags": self.tags,
            "refresh": self.refresh,
            "columns": self.columns,
        })
    }
}

/// Checks `metadata.docs` at `metadata.docs`; `Some(None)` when absent, `None` after a problem.
pub(crate) fn check_docs(
    problems: &mut Problems,
    value: Option<&Value>,
    who: Option<&str>,
    when: Option<&str>,
) -> Option<Option<Contract>> {
    const AT: &str = "metadata.docs";
    let Some(value) = value else {
        return Some(None);
    };
    let Some(map) = value.as_object() else {
        problems.add(
            AT,
            format!(
                "must be an object (the table's contract), got {}",
                repr(value)
            ),
        );
        return None;
    };
    let before = problems.len();
    problems.reject_unknown_keys(AT, map, &DOCS_KEYS);
    let text = |problems: &mut Problems, key: &str| -> Option<String> {
        let raw = map.get(key)?;
        if !raw.is_string() {
            problems.add(
                &format!("{AT}.{key}"),
                format!("must be a text, got {}", repr(raw)),
            );
            return None;
        }
        non_blank(raw).map(|t| t.trim().to_owned())
    };
    let layer = text(problems, "layer").and_then(|name| {
        let layer = Layer::ALL
            .into_iter()
            .find(|l| l.as_str() == name.to_lowercase());
        if layer.is_none() {
            problems.add(
                &format!("{AT}.layer"),
                format!("must be one of ['bronze', 'silver', 'gold'], got '{name}'"),
            );
        }
        layer
    });
    let contract = Contract {
        layer,
        description: text(problems, "description"),
        owner: text(problems, "owner").or_else(|| {
            who.map(str::trim)
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
        }),
        grain: text(problems, "grain"),
        primary_key: names(problems, map, "primary_key"),
        columns: columns(problems, map),
        tags: names(problems, map, "tags"),
        refresh: text(problems, "refresh").or_else(|| {
            when.map(str::trim)
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
        }),
    };
    (problems.len() == before).then_some(Some(contract))
}

/// A list of non-blank texts at `metadata.docs.<key>` (empty when absent).
fn names(problems: &mut Problems, map: &Map<String, Value>, key: &str) -> Vec<String> {
    let Some(raw) = map.get(key) else {
        return Vec::new();
    };
    let items: Option<Vec<String>> = raw.as_array().and_then(|items| {
        items
            .iter()
            .map(|i| non_blank(i).map(str::to_owned))
            .collect()
    });
    items.unwrap_or_else(|| {
        problems.add(
            &format!("metadata.docs.{key}"),
            format!("must be a list of texts, got {}", repr(raw)),
        );
        Vec::new()
    })
}

/// `metadata.docs.columns`: an object of non-blank descriptions.
fn columns(problems: &mut Problems, map: &Map<String, Value>) -> BTreeMap<String, String> {
    let Some(raw) = map.get("columns") else {
        return BTreeMap::new();
    };
    let Some(object) = raw.as_object() else {
        problems.add(
            "metadata.docs.columns",
            format!(
                "must be an object of column name to description, got {}",
                repr(raw)
            ),
        );
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    for (column, doc) in object {
        match non_blank(doc) {
            Some(text) if doc.is_string() => {
                out.insert(column.clone(), text.trim().to_owned());
            }
            _ => problems.add(
                &format!("metadata.docs.columns.{column}"),
                format!(
                    "must be a description (a non-blank text), got {}",
                    repr(doc)
                ),
            ),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(value: Value) -> Result<Option<Contract>, Vec<String>> {
        let mut problems = Problems::default();
        check_docs(&mut problems, Some(&value), Some("ops team"), Some("daily"))
            .ok_or_else(|| problems.into_vec())
    }

    #[test]
    fn a_gold_contract_and_its_properties() {
        let contract = check(json!({"layer": "gold", "description": " Revenue per day. ",
            "grain": "one row per day", "primary_key": ["day"],
            "columns": {"day": "The day.", "revenue": "What it cost."}}))
        .unwrap()
        .unwrap();
        assert_eq!(
            contract.owner.as_deref(),
            Some("ops team"),
            "who is the default owner"
        );
        assert_eq!(contract.refresh.as_deref(), Some("daily"));
        assert!(contract.gate(&["day", "revenue"]).is_empty());
        let properties = contract.properties();
        assert_eq!(properties["comment"], "Revenue per day.");
        assert_eq!(properties["ldp.layer"], "gold");
        assert_eq!(properties["ldp.primary-key"], "day");
        assert!(!properties.contains_key("ldp.tags"));
        let back = Contract::from_table(&properties, contract.columns.clone()).unwrap();
        assert_eq!(back, contract, "read back from the table");
        assert!(Contract::from_table(&BTreeMap::new(), BTreeMap::new()).is_none());
    }

    #[test]
    fn a_gold_table_that_breaks_its_promise_is_named() {
        let contract = check(json!({"layer": "gold", "columns": {"day": "The day.", "gone": "x"}}))
            .unwrap()
            .unwrap();
        let mut no_owner = contract.clone();
        no_owner.owner = None;
        assert_eq!(
            no_owner.gate(&["day", "revenue"]),
            [
                "a gold table needs a description: add metadata.docs.description",
                "a gold table needs a grain (what one row is): add metadata.docs.grain",
                "a gold table needs an owner: add metadata.docs.owner (or the config's who)",
                "a gold table needs a description of every column; metadata.docs.columns has none for ['revenue']",
                "metadata.docs.columns describes ['gone'] that the table does not have; its columns are ['day', 'revenue']",
            ]
        );
        let silver = Contract {
            layer: Some(Layer::Silver),
            ..Contract::default()
        };
        assert!(silver.gate(&["day"]).is_empty());
    }

    #[test]
    fn problems_name_the_key() {
        assert_eq!(
            check(
                json!({"layer": "platinum", "owner": 3, "columns": {"a": ""}, "tags": "x",
                         "extra": 1})
            )
            .unwrap_err(),
            [
                "metadata.docs: has unknown keys ['extra']; allowed: ['layer', 'description', 'owner', 'grain', 'primary_key', 'columns', 'tags', 'refresh']",
                "metadata.docs.layer: must be one of ['bronze', 'silver', 'gold'], got 'platinum'",
                "metadata.docs.owner: must be a text, got 3",
                "metadata.docs.columns.a: must be a description (a non-blank text), got ''",
                "metadata.docs.tags: must be a list of texts, got 'x'",
            ]
        );
        assert_eq!(
            check(json!("x")).unwrap_err(),
            ["metadata.docs: must be an object (the table's contract), got 'x'"]
        );
    }
}
