//! Namespaces are Glue databases.

use std::collections::BTreeMap;

use ldp_catalog_glue::ErrorKind;

use crate::moto::{OnMoto, shared, unique};

#[test]
fn create_list_check_and_drop_namespaces() {
    let catalog = shared().catalog();
    let ns = unique("ns");
    assert!(!catalog.namespace_exists(&ns).unwrap());
    assert!(catalog.create_namespace_if_missing(&ns).unwrap());
    assert!(!catalog.create_namespace_if_missing(&ns).unwrap());
    assert!(catalog.namespace_exists(&ns).unwrap());
    assert!(catalog.list_namespaces().unwrap().contains(&ns));
    assert!(catalog.namespace_properties(&ns).unwrap().is_empty());

    let again = catalog.create_namespace(&ns, &BTreeMap::new()).unwrap_err();
    assert_eq!(again.kind(), ErrorKind::AlreadyExists, "{again}");
    assert!(again.to_string().contains(&ns), "{again}");

    catalog.drop_namespace(&ns).unwrap();
    assert!(!catalog.namespace_exists(&ns).unwrap());
    assert!(!catalog.list_namespaces().unwrap().contains(&ns));
    let gone = catalog.drop_namespace(&ns).unwrap_err();
    assert_eq!(gone.kind(), ErrorKind::NotFound, "{gone}");
}

#[test]
fn namespace_properties_as_pyiceberg_maps_them() {
    let catalog = shared().catalog();
    let ns = unique("props");
    let properties: BTreeMap<String, String> = [
        ("Description", "rides"),
        ("location", "s3://lake/rides"),
        ("owner", "ops"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    catalog.create_namespace(&ns, &properties).unwrap();
    assert_eq!(catalog.namespace_properties(&ns).unwrap(), properties);
    assert_eq!(
        catalog
            .default_table_location(&ns, "t", Some("s3://w"))
            .unwrap(),
        "s3://lake/rides/t"
    );
    let bare = unique("bare");
    catalog.create_namespace_if_missing(&bare).unwrap();
    assert_eq!(
        catalog
            .default_table_location(&bare, "t", Some("s3://w/"))
            .unwrap(),
        format!("s3://w/{bare}.db/t")
    );
    let nowhere = catalog
        .default_table_location(&bare, "t", None)
        .unwrap_err();
    assert!(nowhere.to_string().contains("warehouse"), "{nowhere}");
}

#[test]
fn a_namespace_with_tables_is_not_dropped() {
    let catalog = shared().catalog();
    let ns = unique("full");
    catalog.create_namespace_if_missing(&ns).unwrap();
    catalog
        .create_table(&ns, "t", "file:///m/00000.metadata.json")
        .unwrap();
    let refused = catalog.drop_namespace(&ns).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Rejected, "{refused}");
    assert!(refused.to_string().contains("1 table"), "{refused}");
    assert!(catalog.namespace_exists(&ns).unwrap());
}

#[test]
fn namespaces_have_one_level() {
    let catalog = shared().catalog();
    let nested = catalog.create_namespace_if_missing("a.b").unwrap_err();
    assert_eq!(nested.kind(), ErrorKind::Rejected, "{nested}");
    assert!(nested.to_string().contains("one level"), "{nested}");
    let missing = catalog.list_tables(&unique("missing")).unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound, "{missing}");
}
