//! Where a table's files go and what they are called: the names pyiceberg gives them, so a
//! folder written by ldp looks like one written by the Python tool.
//!
//! * metadata: `<location>/metadata/<5-digit version>-<uuid>.metadata.json`;
//! * data: `<location>/data/00000-<task>-<write uuid>.parquet`;
//! * manifests: `<location>/metadata/<commit uuid>-m<n>.avro`;
//! * manifest list: `<location>/metadata/snap-<snapshot id>-0-<commit uuid>.avro`.
//!
//! Locations are `file://` URIs of absolute paths, or `s3://` URIs for a `sql` catalog's
//! warehouse on object storage (their files go through the S3 storage of `src/io.rs`).

use std::path::{Path, PathBuf};

use uuid::Uuid;

use crate::error::{Error, Result};

/// The `file://` URI of an absolute local path.
pub fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// A table or warehouse location as a URI: an `s3://` (or other object-store) URI or a `file:`
/// URI as given, without trailing `/`; an absolute local path as its `file://` URI. A relative
/// path is [`Error::Unsupported`] (`table` names the table in the message).
pub fn location_uri(table: &str, location: &str) -> Result<String> {
    if crate::io::is_object_location(location) || location.starts_with("file:") {
        return Ok(location.trim_end_matches('/').to_string());
    }
    let path = Path::new(location);
    if !path.is_absolute() {
        return Err(Error::unsupported(
            table,
            format!("the location {location:?} is neither an absolute path nor a URI"),
        ));
    }
    Ok(file_uri(path).trim_end_matches('/').to_string())
}

/// Where a new table goes when its creator names no location: `<warehouse>/<namespace>/<name>`,
/// as a URI ([`location_uri`]).
pub fn default_table_location(warehouse: &str, namespace: &str, name: &str) -> Result<String> {
    let root = location_uri(&format!("{namespace}.{name}"), warehouse)?;
    Ok(format!("{root}/{namespace}/{name}"))
}

/// The local path of a `file://` URI (or of a plain absolute path). Other schemes are
/// [`Error::Unsupported`].
pub fn local_path(table: &str, uri: &str) -> Result<PathBuf> {
    let path = if let Some(rest) = uri.strip_prefix("file://") {
        rest
    } else if let Some(rest) = uri.strip_prefix("file:") {
        rest
    } else if uri.contains("://") {
        return Err(Error::unsupported(
            table,
            format!("{uri} is not on the local file system; only file:// locations are supported"),
        ));
    } else {
        uri
    };
    let path = PathBuf::from(path);
    if !path.is_absolute() {
        return Err(Error::unsupported(
            table,
            format!("{uri} is not an absolute location"),
        ));
    }
    Ok(path)
}

/// The version of a metadata file named `<version>-<uuid>.metadata.json`, as pyiceberg parses
/// it; `None` for any other name.
pub fn metadata_version(location: &str) -> Option<u64> {
    let name = location.rsplit('/').next()?;
    let stem = name.strip_suffix(".metadata.json")?;
    let (version, uuid) = stem.split_once('-')?;
    Uuid::parse_str(uuid).ok()?;
    if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    version.parse().ok()
}

/// The metadata file that follows `current` (version + 1; 0 for a new table).
pub fn next_metadata_file(table_location: &str, current: Option<&str>) -> String {
    let version = current.and_then(metadata_version).map_or(0, |v| v + 1);
    format!(
        "{}/metadata/{version:05}-{}.metadata.json",
        table_location.trim_end_matches('/'),
        Uuid::new_v4()
    )
}

/// A data file: `<location>/data/00000-<task>-<write uuid>.parquet`.
pub fn data_file(table_location: &str, task: u64, write_uuid: &Uuid) -> String {
    format!(
        "{}/data/00000-{task}-{write_uuid}.parquet",
        table_location.trim_end_matches('/')
    )
}

/// A manifest: `<location>/metadata/<commit uuid>-m<n>.avro`.
pub fn manifest_file(table_location: &str, commit_uuid: &Uuid, n: u32) -> String {
    format!(
        "{}/metadata/{commit_uuid}-m{n}.avro",
        table_location.trim_end_matches('/')
    )
}

/// A manifest list: `<location>/metadata/snap-<snapshot id>-0-<commit uuid>.avro`.
pub fn manifest_list_file(table_location: &str, snapshot_id: i64, commit_uuid: &Uuid) -> String {
    format!(
        "{}/metadata/snap-{snapshot_id}-0-{commit_uuid}.avro",
        table_location.trim_end_matches('/')
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_versions_follow_pyiceberg() {
        let first = next_metadata_file("file:///w/ns/t", None);
        assert!(first.starts_with("file:///w/ns/t/metadata/00000-"));
        assert_eq!(metadata_version(&first), Some(0));
        let second = next_metadata_file("file:///w/ns/t/", Some(&first));
        assert!(second.starts_with("file:///w/ns/t/metadata/00001-"));
        assert_eq!(metadata_version("file:///w/x.metadata.json"), None);
        assert_eq!(
            metadata_version("file:///w/abc-00000000-0000-0000-0000-000000000000.metadata.json"),
            None
        );
        // An unparseable name starts again at 0, as pyiceberg does.
        assert!(next_metadata_file("file:///w", Some("v1.metadata.json")).contains("/00000-"));
    }

    #[test]
    fn local_paths() {
        assert_eq!(
            local_path("t", "file:///a/b").unwrap(),
            PathBuf::from("/a/b")
        );
        assert_eq!(local_path("t", "/a/b").unwrap(), PathBuf::from("/a/b"));
        assert!(local_path("t", "s3://bucket/a").is_err());
        assert!(local_path("t", "rel/a").is_err());
        assert_eq!(file_uri(Path::new("/a/b")), "file:///a/b");
    }

    #[test]
    fn location_uris() {
        assert_eq!(location_uri("t", "/w/").unwrap(), "file:///w");
        assert_eq!(location_uri("t", "file:///w/").unwrap(), "file:///w");
        assert_eq!(location_uri("t", "s3://b/w/").unwrap(), "s3://b/w");
        assert!(location_uri("t", "w").is_err());
        assert_eq!(
            default_table_location("/w", "nyc", "rides").unwrap(),
            "file:///w/nyc/rides"
        );
        assert_eq!(
            default_table_location("s3://b/lake/", "nyc", "rides").unwrap(),
            "s3://b/lake/nyc/rides"
        );
    }

    #[test]
    fn file_names() {
        let uuid = Uuid::nil();
        assert_eq!(
            data_file("file:///t", 3, &uuid),
            format!("file:///t/data/00000-3-{uuid}.parquet")
        );
        assert_eq!(
            manifest_file("file:///t", &uuid, 1),
            format!("file:///t/metadata/{uuid}-m1.avro")
        );
        assert_eq!(
            manifest_list_file("file:///t", 42, &uuid),
            format!("file:///t/metadata/snap-42-0-{uuid}.avro")
        );
    }
}
