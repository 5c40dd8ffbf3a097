//! `GET /v1/config`: connecting, merged properties, the prefix, unusable settings.

use ldp_catalog_rest::{ErrorKind, RestCatalog, RestSettings};

use crate::server::Clients as _;
use crate::server::Rustberg;

#[test]
fn connect_reads_the_config_and_keeps_client_properties() {
    let server = Rustberg::start();
    let mut settings = server.settings();
    settings
        .properties
        .insert("ldp.client".into(), "yes".into());
    let catalog = RestCatalog::connect(settings).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        catalog.properties().get("ldp.client").map(String::as_str),
        Some("yes")
    );
    assert_eq!(catalog.describe(), format!("'lake' at {}", server.uri));
    assert!(catalog.list_namespaces().unwrap().is_empty());
}

#[test]
fn a_client_prefix_is_used_in_every_path() {
    // rustberg sends no prefix and serves `/v1/{prefix}/...` for clients that bring one.
    let server = Rustberg::start();
    let mut settings = server.settings();
    settings.properties.insert("prefix".into(), "/main/".into());
    settings.warehouse = Some(format!("file://{}", server.warehouse.display()));
    let catalog = RestCatalog::connect(settings).unwrap_or_else(|error| panic!("{error}"));
    crate::common::table(&catalog, "nyc", "rides");
    assert_eq!(server.catalog().list_tables("nyc").unwrap(), ["rides"]);
}

#[test]
fn a_uri_that_is_not_http_is_refused_before_any_request() {
    let error = RestCatalog::connect(RestSettings::new("thrift://hive:9083", "lake")).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidSettings);
    let message = error.to_string();
    assert!(
        message.contains("'lake' at thrift://hive:9083"),
        "{message}"
    );
    assert!(message.contains("http:// or https://"), "{message}");
}

#[test]
fn a_bad_header_property_is_refused_without_its_value() {
    let mut settings = RestSettings::new("http://127.0.0.1:9", "lake");
    settings
        .properties
        .insert("header.X-Key".into(), "bad\nSECRET-value".into());
    let error = RestCatalog::connect(settings).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidSettings);
    let message = error.to_string();
    assert!(message.contains("header.X-Key"), "{message}");
    assert!(!message.contains("SECRET"), "{message}");
}

#[test]
fn a_uri_without_a_catalog_is_a_bad_response() {
    // rustberg answers 404 outside its API: as any web server at a wrong path would.
    let server = Rustberg::start();
    let mut settings = server.settings();
    settings.uri = format!("{}/not-the-catalog", server.uri);
    let error = RestCatalog::connect(settings).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::BadResponse, "{error}");
    let message = error.to_string();
    assert!(
        message.contains(&format!("'lake' at {}/not-the-catalog", server.uri)),
        "{message}"
    );
    assert!(
        message.contains("no Iceberg REST catalog at this URI"),
        "{message}"
    );
}

#[test]
fn header_properties_are_sent_with_every_request() {
    // rustberg also takes its API key as `X-API-Key`: with that header and no token, every call
    // is authenticated.
    let server = Rustberg::start();
    let mut settings = server.settings();
    settings.token = None;
    settings
        .properties
        .insert("header.X-API-Key".into(), crate::server::TOKEN.into());
    let catalog = RestCatalog::connect(settings).unwrap_or_else(|error| panic!("{error}"));
    crate::common::table(&catalog, "nyc", "rides");
    assert!(catalog.table_exists("nyc", "rides").unwrap());
}
