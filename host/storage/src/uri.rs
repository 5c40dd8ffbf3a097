//! Object URIs: `s3://bucket/key` (and `s3a://`, `s3n://`) and `gs://bucket/key`, told apart
//! from local paths.

use std::fmt;

use crate::error::{Error, Result};

/// The scheme of `text` when it starts like a URL (`scheme://`), lower-cased. One letter is a
/// Windows drive (`C://`), not a scheme.
pub fn scheme_of(text: &str) -> Option<String> {
    let (scheme, _) = text.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    let valid = first.is_ascii_alphabetic()
        && scheme.len() > 1
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then(|| scheme.to_ascii_lowercase())
}

/// Whether `text` names an object in a store rather than a local file: a URL whose scheme is
/// not `file`. [`ObjectUri::parse`] then accepts it or says why not.
pub fn is_object_uri(text: &str) -> bool {
    scheme_of(text).is_some_and(|scheme| scheme != "file")
}

/// The schemes of S3 (Hadoop's `s3a` and `s3n` name the same objects).
const S3_SCHEMES: [&str; 3] = ["s3", "s3a", "s3n"];

/// The object stores this build reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// Amazon S3 and S3-compatible stores: `s3://`, `s3a://`, `s3n://`.
    S3,
    /// Google Cloud Storage: `gs://`.
    Gcs,
}

impl Provider {
    /// The provider of a (lower-case) scheme, `None` for one this build does not reach.
    pub fn of_scheme(scheme: &str) -> Option<Provider> {
        if S3_SCHEMES.contains(&scheme) {
            Some(Provider::S3)
        } else if scheme == "gs" {
            Some(Provider::Gcs)
        } else {
            None
        }
    }

    /// The scheme that names this provider's buckets (`s3`, `gs`).
    pub fn scheme(self) -> &'static str {
        match self {
            Provider::S3 => "s3",
            Provider::Gcs => "gs",
        }
    }

    /// The environment variables that configure this provider's store, for messages.
    pub(crate) fn config_hint(self) -> &'static str {
        match self {
            Provider::S3 => {
                "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_REGION and AWS_ENDPOINT_URL"
            }
            Provider::Gcs => {
                "GOOGLE_APPLICATION_CREDENTIALS (or GOOGLE_SERVICE_ACCOUNT) and \
                 STORAGE_EMULATOR_HOST"
            }
        }
    }

    /// The environment variables that give this provider's credentials, for messages.
    pub(crate) fn credential_hint(self) -> &'static str {
        match self {
            Provider::S3 => {
                "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, with AWS_SESSION_TOKEN for temporary \
                 ones, AWS_PROFILE, or a web identity or instance role"
            }
            Provider::Gcs => {
                "GOOGLE_APPLICATION_CREDENTIALS or GOOGLE_SERVICE_ACCOUNT naming a key file, \
                 gcloud's application default credentials, or the instance's service account"
            }
        }
    }
}

/// An object in a bucket: `s3://bucket/key`, `gs://bucket/key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectUri {
    text: String,
    provider: Provider,
    bucket: String,
    key: object_store::path::Path,
}

impl ObjectUri {
    /// Parses an object URI.
    ///
    /// # Errors
    ///
    /// [`Error::CredentialsInUri`] for a user name or password in it (`s3://user:pass@bucket/k`,
    /// `s3://user@bucket/k`), [`Error::Unsupported`] for a scheme other than `s3`, `s3a`, `s3n`
    /// and `gs`, [`Error::InvalidUri`] for no bucket, no key (a bucket or a folder), or a key
    /// with empty, `.` or `..` segments.
    pub fn parse(text: &str) -> Result<ObjectUri> {
        let Some(scheme) = scheme_of(text) else {
            return Err(invalid(
                text,
                "is not an object URI; write s3://BUCKET/KEY".into(),
            ));
        };
        let rest = &text[scheme.len() + 3..];
        let (authority, key) = rest.split_once('/').unwrap_or((rest, ""));
        let provider = Provider::of_scheme(&scheme);
        if let Some((_, host)) = authority.rsplit_once('@') {
            return Err(Error::CredentialsInUri {
                uri: format!("{scheme}://***@{host}/{key}"),
                hint: provider.unwrap_or(Provider::S3).credential_hint(),
            });
        }
        let Some(provider) = provider else {
            return Err(Error::Unsupported {
                uri: text.to_string(),
                message: format!(
                    "this ldp reads and writes objects on S3 (s3://, s3a://, s3n://) and Google \
                     Cloud Storage (gs://) only, not {scheme}://; copy the file to one of those \
                     or to a local path"
                ),
            });
        };
        let short = provider.scheme();
        if authority.is_empty() {
            return Err(invalid(
                text,
                format!("names no bucket; write {short}://BUCKET/KEY"),
            ));
        }
        if authority.contains(':') {
            let endpoint = match provider {
                Provider::S3 => "AWS_ENDPOINT_URL",
                Provider::Gcs => "STORAGE_EMULATOR_HOST",
            };
            return Err(invalid(
                text,
                format!(
                    "the bucket {authority:?} has a port in it; name the bucket only and set the endpoint in {endpoint}"
                ),
            ));
        }
        if key.is_empty() || key.ends_with('/') {
            return Err(invalid(
                text,
                format!(
                    "names a bucket or a folder, not an object; write {short}://BUCKET/folder/file.csv"
                ),
            ));
        }
        let path = object_store::path::Path::parse(key).map_err(|e| {
            invalid(
                text,
                format!(
                    "the key {key:?} cannot name an object ({e}); remove empty, '.' and '..' parts"
                ),
            )
        })?;
        Ok(ObjectUri {
            text: text.to_string(),
            provider,
            bucket: authority.to_string(),
            key: path,
        })
    }

    /// The bucket.
    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    /// The store the bucket is on.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The bucket as a URL, `s3://bucket` or `gs://bucket` (`s3a` and `s3n` written `s3`): one
    /// store serves every object under it.
    pub fn bucket_url(&self) -> String {
        format!("{}://{}", self.provider.scheme(), self.bucket)
    }

    /// The key in the bucket.
    pub fn key(&self) -> &object_store::path::Path {
        &self.key
    }

    /// The last part of the key (`rides.csv` of `s3://b/drops/rides.csv`).
    pub fn file_name(&self) -> &str {
        self.key.filename().unwrap_or("object")
    }

    /// The URI as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for ObjectUri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn invalid(uri: &str, message: String) -> Error {
    Error::InvalidUri {
        uri: uri.to_string(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn s3_schemes_parse() {
        for text in [
            "s3://bucket/drops/rides.csv",
            "s3a://bucket/drops/rides.csv",
            "S3N://bucket/drops/rides.csv",
        ] {
            let uri = ObjectUri::parse(text).unwrap();
            assert_eq!(uri.bucket(), "bucket");
            assert_eq!(uri.key().as_ref(), "drops/rides.csv");
            assert_eq!(uri.file_name(), "rides.csv");
            assert_eq!(uri.to_string(), text);
        }
    }

    #[test]
    fn gs_uris_parse_and_name_their_bucket() {
        let uri = ObjectUri::parse("gs://lake/drops/rides.csv").unwrap();
        assert_eq!(uri.provider(), Provider::Gcs);
        assert_eq!((uri.bucket(), uri.file_name()), ("lake", "rides.csv"));
        assert_eq!(uri.bucket_url(), "gs://lake");
        let uri = ObjectUri::parse("s3a://lake/drops/rides.csv").unwrap();
        assert_eq!(
            (uri.provider(), uri.bucket_url()),
            (Provider::S3, "s3://lake".into())
        );
        let e = ObjectUri::parse("gs://key:secret@lake/rides.csv").unwrap_err();
        assert!(
            e.to_string().contains("GOOGLE_APPLICATION_CREDENTIALS"),
            "{e}"
        );
        assert!(!e.to_string().contains("secret"), "{e}");
    }

    #[test]
    fn local_paths_are_not_object_uris() {
        for text in [
            "rides.csv",
            "/data/rides.csv",
            "C://data/rides.csv",
            "file:///data/rides.csv",
            "data/s3://x",
        ] {
            assert!(!is_object_uri(text), "{text}");
        }
        for text in ["s3://b/k", "gs://b/k", "http://host/k"] {
            assert!(is_object_uri(text), "{text}");
        }
    }

    #[test]
    fn credentials_are_refused_and_masked() {
        for text in [
            "s3://AKIAEXAMPLE:s3cr3t@bucket/rides.csv",
            "s3://someone@bucket/rides.csv",
            "s3a://u:p@bucket/rides.csv",
        ] {
            let e = ObjectUri::parse(text).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::CredentialsInUri, "{text}");
            let message = e.to_string();
            assert!(message.contains("://***@bucket/rides.csv"), "{message}");
            assert!(!message.contains("s3cr3t") && !message.contains("someone"));
            assert!(message.contains("AWS_ACCESS_KEY_ID"), "{message}");
        }
    }

    #[test]
    fn bad_uris_say_what_to_write() {
        for (text, kind, says) in [
            ("s3:///rides.csv", ErrorKind::InvalidUri, "names no bucket"),
            ("s3://bucket", ErrorKind::InvalidUri, "not an object"),
            ("s3://bucket/drops/", ErrorKind::InvalidUri, "not an object"),
            (
                "s3://bucket/a//b.csv",
                ErrorKind::InvalidUri,
                "cannot name an object",
            ),
            (
                "s3://bucket/a/../b.csv",
                ErrorKind::InvalidUri,
                "cannot name an object",
            ),
            (
                "s3://host:9000/b.csv",
                ErrorKind::InvalidUri,
                "AWS_ENDPOINT_URL",
            ),
            ("az://bucket/b.csv", ErrorKind::Unsupported, "gs://"),
            (
                "gs://host:4443/b.csv",
                ErrorKind::InvalidUri,
                "STORAGE_EMULATOR_HOST",
            ),
            ("gs://bucket/", ErrorKind::InvalidUri, "write gs://BUCKET/"),
        ] {
            let e = ObjectUri::parse(text).unwrap_err();
            assert_eq!(e.kind(), kind, "{text}: {e}");
            assert!(e.to_string().contains(says), "{text}: {e}");
            assert!(e.to_string().starts_with(text), "{e}");
        }
    }
}
