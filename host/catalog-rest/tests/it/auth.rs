//! Authentication and reachability: a missing or wrong token, OAuth2 client credentials, a
//! catalog that does not answer. No message ever shows a token or a secret.

use std::collections::BTreeMap;

use ldp_catalog_rest::{ErrorKind, RestCatalog, RestSettings};

use crate::server::Clients as _;
use crate::server::{Rustberg, TOKEN, WRONG_TOKEN, free_port};
use crate::token_endpoint::TokenEndpoint;

/// Asserts that neither the error's message nor its `Debug` shows `secret`.
fn assert_hidden(error: &ldp_catalog_rest::Error, secret: &str) {
    let message = error.to_string();
    assert!(!message.contains(secret), "{message}");
    let debug = format!("{error:?}");
    assert!(!debug.contains(secret), "{debug}");
}

#[test]
fn without_a_token_the_catalog_says_to_set_one() {
    let server = Rustberg::start();
    let mut settings = server.settings();
    settings.token = None;
    let error = RestCatalog::connect(settings).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Unauthorized, "{error}");
    assert!(!error.is_retryable());
    let message = error.to_string();
    assert!(message.contains(&server.uri), "{message}");
    assert!(message.contains("set token_env"), "{message}");
}

#[test]
fn a_wrong_token_is_unauthorized_and_never_printed() {
    let server = Rustberg::start();
    let mut settings = server.settings();
    settings.token = Some(WRONG_TOKEN.to_string());
    assert!(!format!("{settings:?}").contains(WRONG_TOKEN));
    let error = RestCatalog::connect(settings).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Unauthorized, "{error}");
    assert!(!error.is_retryable());
    let message = error.to_string();
    assert!(message.starts_with(&format!("the Iceberg REST catalog 'lake' at {} refused to read its configuration (GET /v1/config) (401", server.uri)), "{message}");
    assert!(
        message.ends_with("check the variable token_env names"),
        "{message}"
    );
    assert_hidden(&error, WRONG_TOKEN);
    assert_hidden(&error, &WRONG_TOKEN[3..]);
}

#[test]
fn client_credentials_are_exchanged_for_a_token() {
    let server = Rustberg::start();
    let endpoint = TokenEndpoint::start("ldp-etl", "cs-Secret-42", TOKEN, 3600);
    let mut settings = RestSettings::new(&server.uri, "lake");
    settings.credential = Some(("ldp-etl".into(), "cs-Secret-42".into()));
    settings
        .properties
        .insert("oauth2-server-uri".into(), endpoint.uri.clone());
    let catalog = RestCatalog::connect(settings).unwrap_or_else(|error| panic!("{error}"));
    catalog.create_namespace("nyc", &BTreeMap::new()).unwrap();
    assert_eq!(catalog.list_namespaces().unwrap(), ["nyc"]);
    // One token for every request while it is valid.
    assert_eq!(endpoint.count(), 1);
    let request = endpoint.requests.lock().unwrap()[0].clone();
    assert!(
        request.contains("grant_type=client_credentials"),
        "{request}"
    );
    assert!(request.contains("scope=catalog"), "{request}");
}

#[test]
fn an_expiring_token_is_fetched_again() {
    let server = Rustberg::start();
    // 30 s is within the client's safety margin: the token counts as expired at once.
    let endpoint = TokenEndpoint::start("ldp-etl", "cs-Secret-42", TOKEN, 30);
    let mut settings = RestSettings::new(&server.uri, "lake");
    settings.credential = Some(("ldp-etl".into(), "cs-Secret-42".into()));
    settings
        .properties
        .insert("oauth2-server-uri".into(), endpoint.uri.clone());
    let catalog = RestCatalog::connect(settings).unwrap_or_else(|error| panic!("{error}"));
    catalog.list_namespaces().unwrap();
    catalog.list_namespaces().unwrap();
    assert_eq!(endpoint.count(), 3);
}

#[test]
fn a_wrong_client_secret_is_unauthorized_and_never_printed() {
    let server = Rustberg::start();
    let endpoint = TokenEndpoint::start("ldp-etl", "cs-Secret-42", TOKEN, 3600);
    let mut settings = RestSettings::new(&server.uri, "lake");
    settings.credential = Some(("ldp-etl".into(), "cs-Wrong-Secret-17".into()));
    settings
        .properties
        .insert("oauth2-server-uri".into(), endpoint.uri.clone());
    let error = RestCatalog::connect(settings).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Unauthorized, "{error}");
    let message = error.to_string();
    assert!(message.contains(&server.uri), "{message}");
    assert!(
        message.contains(&format!("get a token from {}", endpoint.uri)),
        "{message}"
    );
    assert!(message.contains("invalid_client"), "{message}");
    assert!(
        message.ends_with("check client_id:client_secret in the variable credential_env names"),
        "{message}"
    );
    // The endpoint quoted the secret; the client did not pass it on.
    assert_hidden(&error, "cs-Wrong-Secret-17");
}

#[test]
fn a_catalog_that_does_not_answer_is_unreachable_and_retryable() {
    let uri = format!("http://127.0.0.1:{}", free_port());
    let mut settings = RestSettings::new(&uri, "lake");
    settings.token = Some("tok-Secret-99".into());
    let error = RestCatalog::connect(settings).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Unreachable, "{error}");
    assert!(error.is_retryable());
    let message = error.to_string();
    assert!(
        message.starts_with(&format!(
            "could not reach the Iceberg REST catalog 'lake' at {uri} to read its configuration"
        )),
        "{message}"
    );
    assert!(message.contains("refused"), "{message}");
    assert!(
        message.ends_with("check that the catalog runs and that `uri` is right"),
        "{message}"
    );
    assert_hidden(&error, "tok-Secret-99");
}

#[test]
fn user_info_in_the_uri_is_not_printed() {
    let port = free_port();
    let settings = RestSettings::new(format!("http://ldp:pw-Secret-7@127.0.0.1:{port}/"), "lake");
    let error = RestCatalog::connect(settings).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Unreachable, "{error}");
    assert!(
        error
            .to_string()
            .contains(&format!("'lake' at http://127.0.0.1:{port} ")),
        "{error}"
    );
    assert_hidden(&error, "pw-Secret-7");
}
