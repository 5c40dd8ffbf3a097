//! The Iceberg tables a task reads and writes, for the plan's warning about tasks that no
//! `depends_on` orders (and for a runner, which keeps writes to one table serialized).

use std::path::Path;

use serde_json::{Map, Value};

use super::plan::TableRef;
use crate::parse::Document;
use crate::paths::PathContext;
use crate::python::{get_truthy, py_strip};
use crate::repr::py_str;

/// The tables a sql task's query names among those other tasks write (`namespace.table`,
/// case-insensitive, double quotes and backticks ignored): its reads, for the warning about
/// tasks that no `depends_on` orders.
pub(super) fn sql_reads(
    query: Option<&str>,
    task_id: &str,
    writes: &[(String, TableRef)],
) -> Vec<TableRef> {
    let Some(query) = query else {
        return Vec::new();
    };
    let text: String = query
        .chars()
        .filter(|c| *c != '"' && *c != '`')
        .collect::<String>()
        .to_lowercase();
    let mut reads: Vec<TableRef> = Vec::new();
    for (writer, table) in writes {
        if writer != task_id
            && mentions(&text, &table.name.to_lowercase())
            && !reads.contains(table)
        {
            reads.push(table.clone());
        }
    }
    reads
}

fn mentions(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(|c| word(c) || c == '.') && !after.is_some_and(word)
    })
}

/// The Iceberg tables a dataset config file reads and writes (its Iceberg source and target),
/// as the Python tool's `config_tables`: a config that cannot be read gives none.
pub(super) fn config_tables(path: &Path) -> (Vec<TableRef>, Vec<TableRef>) {
    match Document::read(path) {
        Ok(document) => tables_of(&document.value, path.parent().unwrap_or(Path::new("/"))),
        Err(_) => (Vec::new(), Vec::new()),
    }
}

/// The Iceberg source and target tables of a document whose paths are relative to `dir`. The
/// identity names the catalog (the resolved `warehouse_path`, else the `uri` or `warehouse`),
/// so two catalogs with a table of the same name are two tables.
pub(super) fn tables_of(document: &Value, dir: &Path) -> (Vec<TableRef>, Vec<TableRef>) {
    let cwd = std::env::current_dir().unwrap_or_else(|_| dir.to_path_buf());
    let context = PathContext::new(Some(dir), &cwd);
    let table = |section: &str| -> Vec<TableRef> {
        let Some(block) = document
            .get("metadata")
            .and_then(|metadata| metadata.get(section))
            .filter(|block| block.is_object())
        else {
            return Vec::new();
        };
        let format = block.get("format").map(py_str).unwrap_or_default();
        if py_strip(&format).to_uppercase() != "ICEBERG" {
            return Vec::new();
        }
        let empty = Value::Object(Map::new());
        let catalog = block
            .get("catalog")
            .filter(|c| c.is_object())
            .unwrap_or(&empty);
        let namespace =
            get_truthy(catalog, "namespace").or_else(|| get_truthy(catalog, "identifier"));
        let (Some(namespace), Some(name)) = (namespace, get_truthy(block, "name")) else {
            return Vec::new();
        };
        let place = match get_truthy(catalog, "warehouse_path") {
            Some(warehouse) => context
                .resolve(&py_str(warehouse))
                .path
                .display()
                .to_string(),
            None => get_truthy(catalog, "uri")
                .or_else(|| get_truthy(catalog, "warehouse"))
                .map(py_str)
                .unwrap_or_default(),
        };
        let name = format!("{}.{}", py_str(namespace), py_str(name));
        vec![TableRef {
            identity: format!("{place}::{name}"),
            name,
        }]
    };
    (table("source"), table("target"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn table(name: &str) -> TableRef {
        TableRef {
            identity: format!("/w::{name}"),
            name: name.to_owned(),
        }
    }

    #[test]
    fn a_query_reads_the_tables_it_names() {
        let writes = vec![
            ("orders".to_owned(), table("shop.orders")),
            ("items".to_owned(), table("shop.items")),
            ("model".to_owned(), table("shop.model")),
        ];
        let query =
            "SELECT * FROM \"Shop\".\"Orders\" o JOIN shop.items_old i ON true JOIN x.shop.items y";
        assert_eq!(
            sql_reads(Some(query), "model", &writes),
            [table("shop.orders")]
        );
        assert_eq!(
            sql_reads(Some("SELECT 1 FROM shop.model"), "model", &writes),
            []
        );
        assert!(sql_reads(None, "model", &writes).is_empty());
    }

    #[test]
    fn tables_are_told_apart_by_catalog() {
        let document = json!({"metadata": {
            "source": {"name": "orders", "format": "iceberg", "catalog": {"namespace": "shop", "uri": "http://cat"}},
            "target": {"name": "orders", "format": "ICEBERG", "catalog": {"identifier": "shop", "warehouse_path": "w"}}}});
        let (reads, writes) = tables_of(&document, Path::new("/project"));
        assert_eq!(
            reads,
            [TableRef {
                identity: "http://cat::shop.orders".into(),
                name: "shop.orders".into()
            }]
        );
        assert_eq!(
            writes,
            [TableRef {
                identity: "/project/w::shop.orders".into(),
                name: "shop.orders".into()
            }]
        );
        let files = json!({"metadata": {"source": {"format": "CSV"}, "target": {"format": "ICEBERG", "name": "t"}}});
        assert_eq!(tables_of(&files, Path::new("/project")), (vec![], vec![]));
    }
}
