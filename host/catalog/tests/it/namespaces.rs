//! Namespaces, with pyiceberg's conventions.

use crate::common::{new_catalog, property_rows};
use ldp_catalog::ErrorKind;
use std::collections::BTreeMap;

fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn create_writes_the_exists_row_or_the_given_properties() {
    let (_dir, file, c) = new_catalog("nyc");
    c.create_namespace("nyc", &BTreeMap::new()).unwrap();
    c.create_namespace("withprops", &props(&[("owner", "me"), ("comment", "x")]))
        .unwrap();
    c.create_namespace("a.b", &BTreeMap::new()).unwrap();
    let s = |v: &[&str; 4]| v.map(String::from);
    assert_eq!(
        property_rows(&file),
        [
            s(&["nyc", "a.b", "exists", "true"]),
            s(&["nyc", "nyc", "exists", "true"]),
            s(&["nyc", "withprops", "comment", "x"]),
            s(&["nyc", "withprops", "owner", "me"]),
        ]
    );
    assert_eq!(
        c.namespace_properties("nyc").unwrap(),
        props(&[("exists", "true")])
    );
    assert_eq!(
        c.namespace_properties("withprops").unwrap(),
        props(&[("owner", "me"), ("comment", "x")])
    );
    assert_eq!(c.list_namespaces(None).unwrap(), ["a", "nyc", "withprops"]);
    assert_eq!(c.list_namespaces(Some("a")).unwrap(), ["a.b"]);
    assert!(c.list_namespaces(Some("a.b")).unwrap().is_empty());
    // `a` exists because `a.b` does (pyiceberg's rule), but has no properties of its own.
    assert!(c.namespace_exists("a").unwrap());
    assert!(c.namespace_properties("a").unwrap().is_empty());
    assert!(!c.namespace_exists("A").unwrap(), "case-sensitive");
    assert!(!c.namespace_exists("ny").unwrap());
}

#[test]
fn create_twice() {
    let (_dir, file, c) = new_catalog("c");
    assert!(c.create_namespace_if_missing("ns").unwrap());
    assert!(!c.create_namespace_if_missing("ns").unwrap());
    let e = c.create_namespace("ns", &BTreeMap::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists);
    assert_eq!(
        e.to_string(),
        format!(
            "namespace ns already exists in the catalog at {}",
            file.display()
        )
    );
    assert_eq!(property_rows(&file).len(), 1);
}

#[test]
fn catalogs_sharing_a_file_are_separate() {
    let (_dir, file, a) = new_catalog("a");
    let b = ldp_catalog::Catalog::open(&file, "b", ldp_catalog::Mode::ReadWrite).unwrap();
    a.create_namespace_if_missing("ns").unwrap();
    assert!(!b.namespace_exists("ns").unwrap());
    assert!(b.list_namespaces(None).unwrap().is_empty());
    assert!(b.create_namespace_if_missing("ns").unwrap());
}

#[test]
fn missing_namespaces_and_bad_names() {
    let (_dir, file, c) = new_catalog("c");
    for e in [
        c.list_tables("nope").unwrap_err(),
        c.namespace_properties("nope").unwrap_err(),
        c.list_namespaces(Some("nope")).unwrap_err(),
        c.drop_namespace("nope").unwrap_err(),
        c.create_table("nope", "t", "m").unwrap_err(),
    ] {
        assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
        assert_eq!(
            e.to_string(),
            format!(
                "namespace nope does not exist in the catalog at {}",
                file.display()
            )
        );
    }
    for bad in ["", "a..b", ".a"] {
        assert_eq!(
            c.namespace_exists(bad).unwrap_err().kind(),
            ErrorKind::InvalidName
        );
        assert_eq!(
            c.create_namespace_if_missing(bad).unwrap_err().kind(),
            ErrorKind::InvalidName
        );
    }
}

#[test]
fn drop_namespace_only_when_empty() {
    let (_dir, _file, c) = new_catalog("c");
    c.create_namespace_if_missing("ns").unwrap();
    c.create_table("ns", "t", "m0").unwrap();
    let e = c.drop_namespace("ns").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotEmpty);
    assert!(e.to_string().contains("holds 1 table(s)"), "{e}");
    c.drop_table("ns", "t").unwrap();
    c.drop_namespace("ns").unwrap();
    assert!(!c.namespace_exists("ns").unwrap());
}

#[test]
fn a_table_row_alone_makes_a_namespace() {
    let (_dir, file, c) = new_catalog("c");
    // As Spark's JdbcCatalog may leave it: a table row without a namespace property row.
    rusqlite::Connection::open(&file)
        .unwrap()
        .execute(
            "INSERT INTO iceberg_tables VALUES ('c', 'x.y', 't', 'm0', NULL, 'TABLE')",
            [],
        )
        .unwrap();
    assert!(c.namespace_exists("x").unwrap());
    assert!(c.namespace_exists("x.y").unwrap());
    assert_eq!(c.list_namespaces(None).unwrap(), ["x"]);
    assert_eq!(c.list_namespaces(Some("x")).unwrap(), ["x.y"]);
    assert_eq!(c.list_tables("x.y").unwrap(), ["t"]);
    assert!(c.list_tables("x").unwrap().is_empty());
}
