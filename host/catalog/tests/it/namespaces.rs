//! Namespaces, with pyiceberg's conventions.

use crate::common::{Engine, new_catalog};
use ldp_catalog::{ErrorKind, Mode};
use std::collections::BTreeMap;

on_both_engines!(
    create_writes_the_exists_row_or_the_given_properties,
    create_twice,
    catalogs_sharing_a_file_are_separate,
    missing_namespaces_and_bad_names,
    drop_namespace_only_when_empty,
    a_table_row_alone_makes_a_namespace,
);

fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn create_writes_the_exists_row_or_the_given_properties(engine: Engine) {
    let (place, c) = new_catalog(engine, "nyc");
    c.create_namespace("nyc", &BTreeMap::new()).unwrap();
    c.create_namespace("withprops", &props(&[("owner", "me"), ("comment", "x")]))
        .unwrap();
    c.create_namespace("a.b", &BTreeMap::new()).unwrap();
    let s = |v: &[&str; 4]| v.map(String::from);
    assert_eq!(
        place.property_rows(),
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

fn create_twice(engine: Engine) {
    let (place, c) = new_catalog(engine, "c");
    assert!(c.create_namespace_if_missing("ns").unwrap());
    assert!(!c.create_namespace_if_missing("ns").unwrap());
    let e = c.create_namespace("ns", &BTreeMap::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists);
    assert_eq!(
        e.to_string(),
        format!(
            "namespace ns already exists in the catalog at {}",
            place.shown()
        )
    );
    assert_eq!(place.property_rows().len(), 1);
}

fn catalogs_sharing_a_file_are_separate(engine: Engine) {
    let (place, a) = new_catalog(engine, "a");
    let b = place.open("b", Mode::ReadWrite).unwrap();
    a.create_namespace_if_missing("ns").unwrap();
    assert!(!b.namespace_exists("ns").unwrap());
    assert!(b.list_namespaces(None).unwrap().is_empty());
    assert!(b.create_namespace_if_missing("ns").unwrap());
}

fn missing_namespaces_and_bad_names(engine: Engine) {
    let (place, c) = new_catalog(engine, "c");
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
                place.shown()
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

fn drop_namespace_only_when_empty(engine: Engine) {
    let (_place, c) = new_catalog(engine, "c");
    c.create_namespace_if_missing("ns").unwrap();
    c.create_table("ns", "t", "m0").unwrap();
    let e = c.drop_namespace("ns").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotEmpty);
    assert!(e.to_string().contains("holds 1 table(s)"), "{e}");
    c.drop_table("ns", "t").unwrap();
    c.drop_namespace("ns").unwrap();
    assert!(!c.namespace_exists("ns").unwrap());
}

fn a_table_row_alone_makes_a_namespace(engine: Engine) {
    let (place, c) = new_catalog(engine, "c");
    // As Spark's JdbcCatalog may leave it: a table row without a namespace property row.
    place.exec("INSERT INTO iceberg_tables VALUES ('c', 'x.y', 't', 'm0', NULL, 'TABLE')");
    assert!(c.namespace_exists("x").unwrap());
    assert!(c.namespace_exists("x.y").unwrap());
    assert_eq!(c.list_namespaces(None).unwrap(), ["x"]);
    assert_eq!(c.list_namespaces(Some("x")).unwrap(), ["x.y"]);
    assert_eq!(c.list_tables("x.y").unwrap(), ["t"]);
    assert!(c.list_tables("x").unwrap().is_empty());
}
