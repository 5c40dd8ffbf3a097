//! Dataset refs: how `run.started` names a pipeline's source and target, the way
//! OpenLineage names datasets.
//!
//! * Iceberg tables: `{namespace: <catalog warehouse URI without trailing />, name: ns.t,
//!   format: ICEBERG, table_identifier: ns.t}`;
//! * local files: `{namespace: "file", name: <absolute path, symlinks resolved>, format}`;
//! * object-store files: `{namespace: "s3://bucket", name: <key>, format}`;
//! * DuckDB: `{namespace: "duckdb", name: "<absolute file>#<relation or source name>", format:
//!   DUCKDB}`; BigQuery: `{namespace: "bigquery", name, format: BIGQUERY}`;
//! * anything else: `{namespace: "ldp", name, format}`.

use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use crate::redact::redact_text;

/// A dataset as events and OpenLineage name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetRef {
    /// Where the dataset lives (`file`, `s3://bucket`, a warehouse URI).
    pub namespace: String,
    /// Its name within the namespace.
    pub name: String,
    /// The format, upper-case (`CSV`, `ICEBERG`), `null` when unknown.
    pub format: Option<String>,
    /// `ns.t` for Iceberg tables (absent otherwise).
    pub table_identifier: Option<String>,
}

impl DatasetRef {
    /// An Iceberg table. `warehouse` is the catalog's `warehouse` property (a URI such as
    /// `file:///project/warehouse`); without it the namespace is `iceberg://<catalog_name>`. A
    /// trailing `/` is dropped and credentials in the URI are redacted. `format` defaults to
    /// `ICEBERG`.
    pub fn iceberg(
        identifier: &str,
        warehouse: Option<&str>,
        catalog_name: &str,
        format: Option<&str>,
    ) -> Self {
        let namespace = match warehouse.filter(|w| !w.is_empty()) {
            Some(warehouse) => warehouse.to_owned(),
            None => format!("iceberg://{catalog_name}"),
        };
        let namespace = namespace.trim_end_matches('/');
        Self {
            namespace: redact_text(namespace, None),
            name: identifier.to_owned(),
            format: Some(upper(format).unwrap_or_else(|| "ICEBERG".to_owned())),
            table_identifier: Some(identifier.to_owned()),
        }
    }

    /// A file named by a path or URL. `s3://bucket/key` (any scheme longer than one letter but
    /// `file`) gives `{namespace: "s3://bucket", name: "key"}`; a local path or `file://` URL
    /// gives `{namespace: "file", name: <absolute path>}`, resolved against `base` when
    /// relative, with symlinks resolved as far as the path exists (Python's
    /// `Path.resolve()`).
    pub fn file(path: &str, format: Option<&str>, base: &Path) -> Self {
        let format = upper(format);
        let parts = split_url(path);
        if let Some(scheme) = parts.scheme.as_deref()
            && scheme.len() > 1
            && scheme != "file"
        {
            return Self {
                namespace: format!("{scheme}://{}", parts.netloc),
                name: parts.path.trim_start_matches('/').to_owned(),
                format,
                table_identifier: None,
            };
        }
        let local = if parts.scheme.as_deref() == Some("file") {
            parts.path
        } else {
            path.to_owned()
        };
        Self {
            namespace: "file".to_owned(),
            name: posix(&resolve(&base.join(local))),
            format,
            table_identifier: None,
        }
    }

    /// A DuckDB relation: `name` is `<absolute file>#<relation>` (the source's `name` for a
    /// `sql` source).
    pub fn duckdb(file: &Path, relation: &str, base: &Path) -> Self {
        Self {
            namespace: "duckdb".to_owned(),
            name: format!("{}#{relation}", posix(&resolve(&base.join(file)))),
            format: Some("DUCKDB".to_owned()),
            table_identifier: None,
        }
    }

    /// A BigQuery query, named by the source's `name`.
    pub fn bigquery(name: &str) -> Self {
        Self {
            namespace: "bigquery".to_owned(),
            name: name.to_owned(),
            format: Some("BIGQUERY".to_owned()),
            table_identifier: None,
        }
    }

    /// Anything else: `{namespace: "ldp", name, format}`.
    pub fn other(name: &str, format: Option<&str>) -> Self {
        Self {
            namespace: "ldp".to_owned(),
            name: name.to_owned(),
            format: upper(format),
            table_identifier: None,
        }
    }

    /// The ref as the payload holds it.
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("namespace".into(), Value::from(self.namespace.clone()));
        object.insert("name".into(), Value::from(self.name.clone()));
        object.insert(
            "format".into(),
            self.format.clone().map_or(Value::Null, Value::from),
        );
        if let Some(identifier) = &self.table_identifier {
            object.insert("table_identifier".into(), Value::from(identifier.clone()));
        }
        Value::Object(object)
    }
}

fn upper(format: Option<&str>) -> Option<String> {
    format.filter(|f| !f.is_empty()).map(str::to_uppercase)
}

/// Python's `Path(path).as_uri()` of an absolute path: `file://` and the path with everything
/// but letters, digits, `_.-~/` percent-encoded (`file:///my%20project/warehouse`).
pub fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for byte in posix(path).bytes() {
        if byte.is_ascii_alphanumeric() || b"_.-~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

fn posix(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// Python's `Path.resolve()` (not strict): symlinks of the longest existing prefix resolved,
/// `.` and `..` of the rest applied lexically.
fn resolve(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return normalise(&out);
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return normalise(path),
        }
    }
}

fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

struct UrlParts {
    scheme: Option<String>,
    netloc: String,
    path: String,
}

/// Python 3.11's `urlsplit`, for what dataset refs need: the scheme (lower-case), the netloc
/// and the path (without query and fragment).
fn split_url(url: &str) -> UrlParts {
    let mut rest = url;
    let mut scheme = None;
    if let Some(colon) = url.find(':')
        && colon > 0
        && url.as_bytes()[0].is_ascii_alphabetic()
        && url[..colon]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    {
        scheme = Some(url[..colon].to_ascii_lowercase());
        rest = &url[colon + 1..];
    }
    let mut netloc = String::new();
    if let Some(after) = rest.strip_prefix("//") {
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        netloc = after[..end].to_owned();
        rest = &after[end..];
    }
    let rest = rest.split('#').next().unwrap_or_default();
    let path = rest.split('?').next().unwrap_or_default();
    UrlParts {
        scheme,
        netloc,
        path: path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn iceberg_refs() {
        let r = DatasetRef::iceberg("nyc.rides", Some("file:///p/warehouse/"), "nyc", None);
        assert_eq!(
            r.to_value(),
            json!({"namespace": "file:///p/warehouse", "name": "nyc.rides", "format": "ICEBERG",
                   "table_identifier": "nyc.rides"})
        );
        let r = DatasetRef::iceberg("a.b", None, "cat", Some("iceberg"));
        assert_eq!(r.namespace, "iceberg://cat");
        let r = DatasetRef::iceberg("a.b", Some("s3://u:pw@host/w"), "cat", None);
        assert_eq!(r.namespace, "s3://u:***@host/w");
    }

    #[test]
    fn file_refs() {
        let base = Path::new("/nonexistent-ldp/project");
        let r = DatasetRef::file("data/../data/rides.csv", Some("csv"), base);
        assert_eq!(
            r.to_value(),
            json!({"namespace": "file", "name": "/nonexistent-ldp/project/data/rides.csv",
                   "format": "CSV"})
        );
        let r = DatasetRef::file("s3://bucket/drops/x.csv?v=1", Some("CSV"), base);
        assert_eq!(
            (r.namespace.as_str(), r.name.as_str()),
            ("s3://bucket", "drops/x.csv")
        );
        let r = DatasetRef::file("file:///nonexistent-ldp/x.parquet", None, base);
        assert_eq!(
            r.to_value(),
            json!({"namespace": "file", "name": "/nonexistent-ldp/x.parquet", "format": null})
        );
    }

    #[test]
    fn other_refs() {
        let base = Path::new("/nonexistent-ldp");
        assert_eq!(
            DatasetRef::duckdb(Path::new("db/shop.duckdb"), "orders", base).name,
            "/nonexistent-ldp/db/shop.duckdb#orders"
        );
        assert_eq!(DatasetRef::bigquery("q").namespace, "bigquery");
        assert_eq!(
            DatasetRef::other("x", Some("json")).format.as_deref(),
            Some("JSON")
        );
    }

    #[test]
    fn file_uris_are_percent_encoded() {
        assert_eq!(
            file_uri(Path::new("/my project/wäre")),
            "file:///my%20project/w%C3%A4re"
        );
    }
}
