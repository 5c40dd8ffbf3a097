//! Namespaces: create, exists, list, and the errors of a second create and a missing one.

use std::collections::BTreeMap;

use ldp_catalog_rest::ErrorKind;

use crate::server::Clients as _;
use crate::server::Rustberg;

#[test]
fn create_list_and_look_up_namespaces() {
    let server = Rustberg::start();
    let catalog = server.catalog();
    assert!(!catalog.namespace_exists("nyc").unwrap());
    let properties = BTreeMap::from([("owner".to_string(), "ops".to_string())]);
    catalog.create_namespace("nyc", &properties).unwrap();
    catalog
        .create_namespace("bronze", &BTreeMap::new())
        .unwrap();
    assert!(catalog.namespace_exists("nyc").unwrap());
    assert_eq!(catalog.list_namespaces().unwrap(), ["bronze", "nyc"]);
    assert!(catalog.list_tables("nyc").unwrap().is_empty());
}

#[test]
fn a_second_create_is_already_exists() {
    let server = Rustberg::start();
    let catalog = server.catalog();
    catalog.create_namespace("nyc", &BTreeMap::new()).unwrap();
    let error = catalog
        .create_namespace("nyc", &BTreeMap::new())
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::AlreadyExists, "{error}");
    assert!(!error.is_retryable());
    let message = error.to_string();
    assert!(
        message.starts_with("namespace nyc already exists"),
        "{message}"
    );
    assert!(message.contains(&server.uri), "{message}");
}

#[test]
fn listing_the_tables_of_a_missing_namespace_is_not_found() {
    let server = Rustberg::start();
    let error = server.catalog().list_tables("nowhere").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::NotFound, "{error}");
    let message = error.to_string();
    assert!(
        message.starts_with("namespace nowhere does not exist"),
        "{message}"
    );
    assert!(message.contains(&server.uri), "{message}");
}

#[test]
fn a_listing_follows_every_page() {
    // rustberg answers 100 namespaces a page.
    let server = Rustberg::start();
    let catalog = server.catalog();
    let mut expected: Vec<String> = (0..205).map(|i| format!("ns{i:03}")).collect();
    for name in &expected {
        catalog.create_namespace(name, &BTreeMap::new()).unwrap();
    }
    expected.sort();
    assert_eq!(catalog.list_namespaces().unwrap(), expected);
}
