//! Failures: an unreachable endpoint, refused credentials (moto checking signatures), and how
//! Glue's error answers map onto error kinds (a scripted server); no message shows a secret.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;

use ldp_catalog_glue::{ErrorKind, GlueCatalog, GlueSettings};

use crate::moto::{ACCESS_KEY_ID, Mode, Moto, REGION, SECRET_ACCESS_KEY, boto, free_port};

const SESSION_TOKEN: &str = "ldp-test-SESSION-token-42";

fn settings(endpoint: &str) -> GlueSettings {
    let mut settings = GlueSettings::new("lake", REGION, ACCESS_KEY_ID, SECRET_ACCESS_KEY);
    settings.endpoint = Some(endpoint.to_string());
    settings.session_token = Some(SESSION_TOKEN.to_string());
    settings
}

fn assert_no_secret(text: &str) {
    assert!(!text.contains(SECRET_ACCESS_KEY), "{text}");
    assert!(!text.contains(SESSION_TOKEN), "{text}");
}

#[test]
fn an_unreachable_endpoint_names_itself() {
    let endpoint = format!("http://127.0.0.1:{}", free_port());
    let catalog = GlueCatalog::connect(settings(&endpoint)).unwrap();
    assert_no_secret(&format!("{catalog:?}"));
    let error = catalog.list_namespaces().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Unreachable, "{error}");
    assert!(error.is_retryable(), "nothing was sent: {error}");
    let message = error.to_string();
    assert!(
        message.contains(&format!(
            "Glue catalog 'lake' in region {REGION} at endpoint {endpoint}"
        )),
        "{message}"
    );
    assert!(message.contains("AWS_ENDPOINT_URL"), "{message}");
    assert_no_secret(&message);

    let bad = GlueCatalog::connect(settings("glue.example.com")).unwrap_err();
    assert_eq!(bad.kind(), ErrorKind::InvalidSettings, "{bad}");
}

/// moto checks signatures only when asked (`INITIAL_NO_AUTH_ACTION_COUNT`), against the access
/// keys of its IAM users: the shared server accepts any key. Here one user is made, and the
/// client's SigV4 signature is verified by moto.
#[test]
fn moto_verifies_the_signature_and_refuses_wrong_credentials() {
    let moto = Moto::start(Mode::Auth);
    let key = boto(
        &moto,
        "iam.create_user(UserName='ldp')\n\
         k = iam.create_access_key(UserName='ldp')['AccessKey']\n\
         iam.put_user_policy(UserName='ldp', PolicyName='glue', PolicyDocument=json.dumps(\
         {'Version': '2012-10-17', 'Statement': [{'Effect': 'Allow', 'Action': 'glue:*', 'Resource': '*'}]}))\n\
         result = [k['AccessKeyId'], k['SecretAccessKey']]",
    );
    let (id, secret) = (key[0].as_str().unwrap(), key[1].as_str().unwrap());
    let mut good = GlueSettings::new("lake", REGION, id, secret);
    good.endpoint = Some(moto.endpoint.clone());
    let catalog = GlueCatalog::connect(good.clone()).unwrap();
    assert!(catalog.create_namespace_if_missing("signed").unwrap());
    assert_eq!(
        catalog.list_namespaces().unwrap(),
        vec!["signed".to_string()]
    );

    let mut wrong_secret = good.clone();
    wrong_secret.secret_access_key = SECRET_ACCESS_KEY.to_string();
    let refused = GlueCatalog::connect(wrong_secret)
        .unwrap()
        .list_namespaces()
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Unauthorized, "{refused}");
    assert!(
        refused.to_string().contains("SignatureDoesNotMatch"),
        "{refused}"
    );
    assert!(
        refused.to_string().contains("AWS_SECRET_ACCESS_KEY"),
        "{refused}"
    );
    assert!(!refused.is_retryable());
    assert_no_secret(&refused.to_string());
    assert!(!refused.to_string().contains(secret), "{refused}");

    let mut unknown = good;
    unknown.access_key_id = "AKIDUNKNOWN".into();
    let refused = GlueCatalog::connect(unknown)
        .unwrap()
        .load_table("signed", "t")
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Unauthorized, "{refused}");
    assert!(!refused.to_string().contains(secret), "{refused}");
}

/// A server that answers each request with the next of `answers` (status, body) and sends
/// every request's head and body back through the channel.
fn scripted(answers: Vec<(u16, &'static str)>) -> (String, mpsc::Receiver<(String, String)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for (status, body) in answers {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                head.push_str(&line);
            }
            let length = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap())
                })
                .unwrap_or(0);
            let mut request = vec![0; length];
            reader.read_exact(&mut request).unwrap();
            let _ = tx.send((head, String::from_utf8_lossy(&request).into_owned()));
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/x-amz-json-1.1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (endpoint, rx)
}

const TABLE: &str = r#"{"Table": {"Name": "t", "VersionId": "7", "Parameters": {"table_type": "iceberg", "metadata_location": "m0"}}}"#;

#[test]
fn glue_errors_map_onto_kinds_without_secrets() {
    let echo = r#"{"__type": "com.amazonaws.glue#InvalidInputException", "message": "bad key ldp-test-SECRET-key-0123456789 and ldp-test-SESSION-token-42"}"#;
    let (endpoint, requests) = scripted(vec![
        (400, echo),
        (
            400,
            r#"{"__type": "ThrottlingException", "message": "slow down"}"#,
        ),
        (500, "<html>oops</html>"),
        (200, "not json"),
        (200, TABLE),
        (
            500,
            r#"{"__type": "InternalServiceException", "message": "boom"}"#,
        ),
        (200, TABLE),
        (
            400,
            r#"{"__type": "ConcurrentModificationException", "message": "version 7 is old"}"#,
        ),
    ]);
    let mut settings = settings(&endpoint);
    settings.catalog_id = Some("123456789012".into());
    let catalog = GlueCatalog::connect(settings).unwrap();

    let rejected = catalog.list_namespaces().unwrap_err();
    assert_eq!(rejected.kind(), ErrorKind::Rejected, "{rejected}");
    assert!(
        rejected.to_string().contains("InvalidInputException"),
        "{rejected}"
    );
    assert_no_secret(&rejected.to_string());
    assert_no_secret(&format!("{rejected:?}"));
    let (head, body) = requests.recv().unwrap();
    let head = head.to_ascii_lowercase();
    assert!(
        head.contains("x-amz-target: awsglue.getdatabases"),
        "{head}"
    );
    assert!(
        head.contains(&format!(
            "credential={}/",
            ACCESS_KEY_ID.to_ascii_lowercase()
        )),
        "{head}"
    );
    assert!(head.contains("/us-east-1/glue/aws4_request"), "{head}");
    assert!(head.contains("x-amz-security-token:"), "{head}");
    assert!(body.contains(r#""CatalogId":"123456789012""#), "{body}");

    let throttled = catalog.namespace_exists("db").unwrap_err();
    assert_eq!(throttled.kind(), ErrorKind::ServerError, "{throttled}");
    assert!(throttled.is_retryable());
    let failed = catalog.namespace_exists("db").unwrap_err();
    assert_eq!(failed.kind(), ErrorKind::ServerError, "{failed}");
    assert!(failed.is_retryable(), "a read may be repeated");
    let unreadable = catalog.namespace_properties("db").unwrap_err();
    assert_eq!(unreadable.kind(), ErrorKind::BadResponse, "{unreadable}");

    let unknown = catalog.commit("db", "t", "m0", "m1").unwrap_err();
    assert_eq!(unknown.kind(), ErrorKind::CommitStateUnknown, "{unknown}");
    assert!(!unknown.is_retryable());
    let lost = catalog.commit("db", "t", "m0", "m1").unwrap_err();
    assert_eq!(lost.kind(), ErrorKind::Conflict, "{lost}");
    assert!(
        lost.is_retryable() && lost.to_string().contains("optimistic lock"),
        "{lost}"
    );
    let update = requests.iter().nth(6).unwrap().1;
    for part in [
        r#""VersionId":"7""#,
        r#""SkipArchive":true"#,
        r#""previous_metadata_location":"m0""#,
    ] {
        assert!(update.contains(part), "{update} lacks {part}");
    }
}
