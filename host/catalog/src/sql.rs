//! The catalog's statements, written once for every engine.
//!
//! Parameters are `$1`, `$2`, …: PostgreSQL's form, which SQLite also accepts. SQLite numbers
//! `$N` parameters in the order they first appear in the text (the name is not the number), and
//! both engines take the values positionally, so in every statement here the parameters first
//! appear in the order `$1`, `$2`, `$3`, … (a later repeat is fine). A unit test checks it.
//!
//! `{filter}` stands for [`SchemaVersion::table_filter`](crate::SchemaVersion), which skips
//! views on a v1 schema; [`with_filter`] puts it in.

use crate::schema::SchemaVersion;

/// A new table row, v1 schema: `catalog, namespace, name, metadata_location, iceberg_type`.
pub(crate) const INSERT_TABLE_V1: &str = "INSERT INTO iceberg_tables (catalog_name, \
     table_namespace, table_name, metadata_location, previous_metadata_location, iceberg_type) \
     VALUES ($1, $2, $3, $4, NULL, $5)";

/// A new table row, v0 schema: `catalog, namespace, name, metadata_location`.
pub(crate) const INSERT_TABLE_V0: &str = "INSERT INTO iceberg_tables (catalog_name, \
     table_namespace, table_name, metadata_location, previous_metadata_location) \
     VALUES ($1, $2, $3, $4, NULL)";

/// A table's locations: `catalog, namespace, name`.
pub(crate) const LOAD_TABLE: &str = "SELECT metadata_location, previous_metadata_location \
     FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3 \
     AND {filter}";

/// The compare-and-swap: `new, expected, catalog, namespace, name`. Changes one row when the
/// table still points at `expected`, none otherwise.
pub(crate) const COMMIT: &str = "UPDATE iceberg_tables SET metadata_location = $1, \
     previous_metadata_location = $2 WHERE catalog_name = $3 AND table_namespace = $4 \
     AND table_name = $5 AND metadata_location = $2 AND {filter}";

/// Removes a table row: `catalog, namespace, name`.
pub(crate) const DROP_TABLE: &str = "DELETE FROM iceberg_tables WHERE catalog_name = $1 \
     AND table_namespace = $2 AND table_name = $3 AND {filter}";

/// Moves a table row: `to namespace, to name, catalog, from namespace, from name`.
pub(crate) const RENAME_TABLE: &str = "UPDATE iceberg_tables SET table_namespace = $1, \
     table_name = $2 WHERE catalog_name = $3 AND table_namespace = $4 AND table_name = $5 \
     AND {filter}";

/// The names of a namespace's tables, unsorted: `catalog, namespace`.
pub(crate) const LIST_TABLES: &str = "SELECT table_name FROM iceberg_tables \
     WHERE catalog_name = $1 AND table_namespace = $2 AND {filter}";

/// Whether a namespace, or one below it, has a table row or a property row:
/// `catalog, namespace, namespace + "."`. pyiceberg matches children with `LIKE 'ns.%'`, which
/// SQLite compares ignoring ASCII case; comparing the prefix keeps namespaces case-sensitive on
/// both engines. The `CAST` gives PostgreSQL the parameter's type.
pub(crate) const NAMESPACE_EXISTS: &str = "SELECT EXISTS (SELECT 1 FROM iceberg_tables \
     WHERE catalog_name = $1 AND (table_namespace = $2 \
         OR substr(table_namespace, 1, length(CAST($3 AS TEXT))) = $3)) \
     OR EXISTS (SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = $1 \
         AND (namespace = $2 OR substr(namespace, 1, length(CAST($3 AS TEXT))) = $3))";

/// Every namespace with a table row or a property row: `catalog`.
pub(crate) const ALL_NAMESPACES: &str = "SELECT table_namespace FROM iceberg_tables \
     WHERE catalog_name = $1 \
     UNION SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = $1";

/// One namespace property: `catalog, namespace, key, value`.
pub(crate) const INSERT_PROPERTY: &str = "INSERT INTO iceberg_namespace_properties \
     (catalog_name, namespace, property_key, property_value) VALUES ($1, $2, $3, $4)";

/// Changes one namespace property: `value, catalog, namespace, key`.
pub(crate) const UPDATE_PROPERTY: &str = "UPDATE iceberg_namespace_properties \
     SET property_value = $1 WHERE catalog_name = $2 AND namespace = $3 AND property_key = $4";

/// Removes one namespace property: `catalog, namespace, key`.
pub(crate) const DELETE_PROPERTY: &str = "DELETE FROM iceberg_namespace_properties \
     WHERE catalog_name = $1 AND namespace = $2 AND property_key = $3";

/// A namespace's properties: `catalog, namespace`.
pub(crate) const NAMESPACE_PROPERTIES: &str = "SELECT property_key, property_value \
     FROM iceberg_namespace_properties WHERE catalog_name = $1 AND namespace = $2";

/// Removes a namespace's properties: `catalog, namespace`.
pub(crate) const DROP_NAMESPACE: &str =
    "DELETE FROM iceberg_namespace_properties WHERE catalog_name = $1 AND namespace = $2";

/// `sql` with its `{filter}` replaced by the schema's table filter.
pub(crate) fn with_filter(sql: &str, schema: SchemaVersion) -> String {
    sql.replace("{filter}", schema.table_filter())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [&str; 14] = [
        INSERT_TABLE_V1,
        INSERT_TABLE_V0,
        LOAD_TABLE,
        COMMIT,
        DROP_TABLE,
        RENAME_TABLE,
        LIST_TABLES,
        NAMESPACE_EXISTS,
        ALL_NAMESPACES,
        INSERT_PROPERTY,
        UPDATE_PROPERTY,
        DELETE_PROPERTY,
        NAMESPACE_PROPERTIES,
        DROP_NAMESPACE,
    ];

    /// The `$N` parameters of `sql`, in order of appearance.
    fn parameters(sql: &str) -> Vec<usize> {
        let mut found = Vec::new();
        let mut rest = sql;
        while let Some(at) = rest.find('$') {
            rest = &rest[at + 1..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            found.push(digits.parse().expect("a number after $"));
        }
        found
    }

    #[test]
    fn parameters_first_appear_in_order() {
        for sql in ALL {
            let mut next = 1;
            for n in parameters(sql) {
                assert!(n <= next, "${n} appears before ${next} in {sql}");
                if n == next {
                    next += 1;
                }
            }
        }
    }

    /// SQLite binds `$N` by first appearance, not by N: the rule above is what makes positional
    /// binding right.
    #[test]
    fn sqlite_binds_dollar_parameters_by_first_appearance() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let in_order: (String, String) = conn
            .query_row("SELECT $1, $2 || $1", ["a", "b"], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(in_order, ("a".into(), "ba".into()));
        let swapped: String = conn
            .query_row("SELECT $2 || $1", ["a", "b"], |r| r.get(0))
            .unwrap();
        assert_eq!(swapped, "ab", "the first to appear takes the first value");
    }

    #[test]
    fn filter_is_put_in() {
        assert!(with_filter(LIST_TABLES, SchemaVersion::V1).contains("iceberg_type = 'TABLE'"));
        assert!(with_filter(LIST_TABLES, SchemaVersion::V0).ends_with("AND TRUE"));
    }
}
