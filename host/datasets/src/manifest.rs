//! The manifest of a dataset version: `<warehouse>/.ldp/datasets/<name>/v<NNNNNN>.json`, the
//! same file the Python tool writes (`json.dumps(..., indent=2, sort_keys=True)` and a newline).

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};

/// The version of the manifest layout, stored as `ldp_dataset` in every manifest.
pub const MANIFEST_FORMAT: u64 = 1;

/// Where the manifests live, relative to the warehouse folder.
pub const DATASETS_DIR: &str = ".ldp/datasets";

/// The environment variable naming the warehouse when none is given.
pub const WAREHOUSE_ENV: &str = "LDP_WAREHOUSE";

/// The catalog a version's table is reopened through, as the manifest stores it (no secrets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogSpec {
    /// A `local` catalog: `{"type": "local", "identifier", "warehouse_path"}`; its file is
    /// `<warehouse_path>/<identifier>_catalog.db`.
    Local {
        /// The catalog's name (`identifier`).
        identifier: String,
        /// The warehouse folder (absolute).
        warehouse_path: PathBuf,
    },
    /// A `sql` catalog on a SQLite file: `{"type": "sql", "name", "uri": "sqlite:///<abs
    /// path>"}`.
    Sqlite {
        /// The catalog's name.
        name: String,
        /// The SQLite file (absolute).
        file: PathBuf,
    },
    /// Any other spec, kept as read (the version then reads through its metadata file).
    Other(Map<String, Value>),
}

impl CatalogSpec {
    /// The spec as the manifest stores it.
    pub fn to_json(&self) -> Value {
        match self {
            CatalogSpec::Local {
                identifier,
                warehouse_path,
            } => json!({
                "type": "local",
                "identifier": identifier,
                "warehouse_path": warehouse_path.display().to_string(),
            }),
            CatalogSpec::Sqlite { name, file } => json!({
                "type": "sql",
                "name": name,
                "uri": format!("sqlite:///{}", file.display()),
            }),
            CatalogSpec::Other(map) => Value::Object(map.clone()),
        }
    }

    /// How a table's catalog is recorded: a `local` catalog (its file in `warehouse`) by its
    /// identifier and warehouse, a SQLite file by its absolute path, a PostgreSQL database by its
    /// URI without password, a remote catalog by its description (a version of the last two
    /// reads through the metadata file it records).
    pub fn recorded(
        address: &ldp_catalog::CatalogAddress,
        name: &str,
        warehouse: &Path,
        local: bool,
    ) -> CatalogSpec {
        if local {
            return CatalogSpec::Local {
                identifier: name.to_string(),
                warehouse_path: warehouse.to_path_buf(),
            };
        }
        match address {
            ldp_catalog::CatalogAddress::Sqlite(file) => CatalogSpec::Sqlite {
                name: name.to_string(),
                file: std::path::absolute(file).unwrap_or(file.clone()),
            },
            postgres @ ldp_catalog::CatalogAddress::Postgres(_) => {
                let mut spec = Map::new();
                spec.insert("type".into(), "sql".into());
                spec.insert("name".into(), name.into());
                spec.insert("uri".into(), postgres.to_string().into());
                CatalogSpec::Other(spec)
            }
            remote @ ldp_catalog::CatalogAddress::Remote(_) => {
                let mut spec = Map::new();
                spec.insert("name".into(), name.into());
                spec.insert("catalog".into(), remote.to_string().into());
                CatalogSpec::Other(spec)
            }
        }
    }

    /// The spec of a manifest's `catalog` object.
    pub fn from_json(value: &Map<String, Value>) -> CatalogSpec {
        let text = |key: &str| value.get(key).and_then(Value::as_str);
        match text("type") {
            Some("local") => {
                if let (Some(identifier), Some(warehouse)) =
                    (text("identifier"), text("warehouse_path"))
                {
                    return CatalogSpec::Local {
                        identifier: identifier.to_string(),
                        warehouse_path: PathBuf::from(warehouse),
                    };
                }
            }
            Some("sql") => {
                if let (Some(name), Some(file)) = (
                    text("name"),
                    text("uri").and_then(|u| u.strip_prefix("sqlite:///")),
                ) && file.starts_with('/')
                {
                    return CatalogSpec::Sqlite {
                        name: name.to_string(),
                        file: PathBuf::from(file),
                    };
                }
            }
            _ => {}
        }
        CatalogSpec::Other(value.clone())
    }

    /// The catalog file and the catalog name to open, when the spec names a SQLite catalog.
    pub fn catalog_file(&self) -> Option<(PathBuf, &str)> {
        match self {
            CatalogSpec::Local {
                identifier,
                warehouse_path,
            } => Some((
                ldp_catalog::catalog_file(warehouse_path, identifier),
                identifier,
            )),
            CatalogSpec::Sqlite { name, file } => Some((file.clone(), name)),
            CatalogSpec::Other(_) => None,
        }
    }
}

/// One pinned version of a named dataset: what to read (table, snapshot, filter, columns) and
/// what reading it must give (row count, schema fingerprint).
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetVersion {
    /// The dataset name, e.g. `orders_train`.
    pub name: String,
    /// The version number, from 1, per dataset name.
    pub version: u32,
    /// The Iceberg table, `<namespace>.<table>`.
    pub table_identifier: String,
    /// The pinned snapshot.
    pub snapshot_id: i64,
    /// The SQL row filter as written (`amount > 5`), or `None` for every row.
    pub row_filter: Option<String>,
    /// The pinned columns, as asked for, or `None` for every column.
    pub selected_fields: Option<Vec<String>>,
    /// Rows the version reads.
    pub row_count: u64,
    /// `sha256:<hex>` of the pinned columns (see [`crate::schema_fingerprint`]).
    pub schema_fingerprint: String,
    /// When the version was pinned (µs precision).
    pub created_at: Timestamp,
    /// The catalog the table is reopened through.
    pub catalog: CatalogSpec,
    /// The table's metadata file after the tag was added (the fallback a load reads when the
    /// catalog cannot be opened).
    pub metadata_location: Option<String>,
    /// The Iceberg tag protecting the snapshot, or `None`.
    pub tag: Option<String>,
    /// Free-form string labels, e.g. `split=train`.
    pub properties: BTreeMap<String, String>,
    /// The manifest file this version was read from or written to.
    pub manifest_path: Option<PathBuf>,
}

impl DatasetVersion {
    /// `<name>@v<version>`, a short label for messages.
    pub fn reference(&self) -> String {
        format!("{}@v{}", self.name, self.version)
    }

    /// The manifest content (without `manifest_path`).
    pub fn to_json(&self) -> Value {
        json!({
            "ldp_dataset": MANIFEST_FORMAT,
            "name": self.name,
            "version": self.version,
            "table_identifier": self.table_identifier,
            "snapshot_id": self.snapshot_id,
            "row_filter": self.row_filter,
            "selected_fields": self.selected_fields,
            "row_count": self.row_count,
            "schema_fingerprint": self.schema_fingerprint,
            "created_at": iso_utc(self.created_at),
            "catalog": self.catalog.to_json(),
            "metadata_location": self.metadata_location,
            "tag": self.tag,
            "properties": self.properties,
        })
    }

    /// The manifest file's text: 2-space indent, sorted keys, non-ASCII escaped, a final
    /// newline.
    pub fn manifest_text(&self) -> String {
        crate::pyjson::manifest_text(&self.to_json()) + "\n"
    }

    /// The manifest on one line, as the `ldp.dataset` metadata of an exported Parquet file
    /// (`json.dumps(manifest, sort_keys=True)`).
    pub fn inline_text(&self) -> String {
        crate::pyjson::inline_sorted(&self.to_json())
    }

    /// A version from a manifest's content. Unknown keys are ignored.
    ///
    /// # Errors
    ///
    /// [`Error::Dataset`] when a required key is missing or has the wrong type.
    pub fn from_json(value: &Value, manifest_path: Option<&Path>) -> Result<DatasetVersion> {
        let invalid = |what: String| {
            let place = manifest_path
                .map(|p| format!(" in {}", p.display()))
                .unwrap_or_default();
            Error::dataset(format!("invalid dataset manifest{place}: {what}"))
        };
        let object = value
            .as_object()
            .ok_or_else(|| invalid("not a JSON object".into()))?;
        let field = |key: &str| object.get(key).filter(|v| !v.is_null());
        let required = |key: &str| field(key).ok_or_else(|| invalid(format!("missing {key:?}")));
        let string = |key: &str| -> Result<String> {
            required(key)?
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| invalid(format!("{key:?} is not a string")))
        };
        let optional_string = |key: &str| -> Result<Option<String>> {
            field(key)
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| invalid(format!("{key:?} is not a string")))
                })
                .transpose()
        };
        let selected_fields = field("selected_fields")
            .map(|v| {
                v.as_array()
                    .and_then(|items| {
                        items
                            .iter()
                            .map(|i| i.as_str().map(str::to_string))
                            .collect::<Option<Vec<_>>>()
                    })
                    .ok_or_else(|| invalid("\"selected_fields\" is not a list of strings".into()))
            })
            .transpose()?;
        let created_text = string("created_at")?;
        let created_at = parse_created_at(&created_text)
            .ok_or_else(|| invalid(format!("\"created_at\" {created_text:?} is not a date")))?;
        let properties = match field("properties") {
            None => BTreeMap::new(),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| {
                    let text = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), text)
                })
                .collect(),
            Some(_) => return Err(invalid("\"properties\" is not an object".into())),
        };
        let catalog = match field("catalog") {
            None => CatalogSpec::Other(Map::new()),
            Some(Value::Object(map)) => CatalogSpec::from_json(map),
            Some(_) => return Err(invalid("\"catalog\" is not an object".into())),
        };
        let version = match field("version") {
            None => 0,
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| invalid("\"version\" is not a version number".into()))?,
        };
        Ok(DatasetVersion {
            name: string("name")?,
            version,
            table_identifier: string("table_identifier")?,
            snapshot_id: required("snapshot_id")?
                .as_i64()
                .ok_or_else(|| invalid("\"snapshot_id\" is not an integer".into()))?,
            row_filter: optional_string("row_filter")?,
            selected_fields,
            row_count: required("row_count")?
                .as_u64()
                .ok_or_else(|| invalid("\"row_count\" is not a count".into()))?,
            schema_fingerprint: string("schema_fingerprint")?,
            created_at,
            catalog,
            metadata_location: optional_string("metadata_location")?,
            tag: optional_string("tag")?,
            properties,
            manifest_path: manifest_path.map(Path::to_path_buf),
        })
    }

    /// Reads a manifest file.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when it cannot be read, [`Error::Dataset`] when it is not a manifest.
    pub fn read(path: &Path) -> Result<DatasetVersion> {
        let text = fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            Error::dataset(format!(
                "invalid dataset manifest in {}: {e}",
                path.display()
            ))
        })?;
        DatasetVersion::from_json(&value, Some(path))
    }
}

/// Python's `datetime.isoformat()` of a UTC instant: `2026-12-02T14:26:50.248000+00:00`
/// (no fraction when the microseconds are 0).
pub fn iso_utc(at: Timestamp) -> String {
    let civil = at.to_zoned(TimeZone::UTC).datetime();
    let micros = civil.subsec_nanosecond() / 1_000;
    let fraction = if micros == 0 {
        String::new()
    } else {
        format!(".{micros:06}")
    };
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{fraction}+00:00",
        civil.year(),
        civil.month(),
        civil.day(),
        civil.hour(),
        civil.minute(),
        civil.second()
    )
}

/// `YYYY-MM-DD HH:MM:SS` of a UTC instant (the `created_at_utc` column of `ldp datasets list`).
pub fn utc_seconds(at: Timestamp) -> String {
    iso_utc(at)
        .get(..19)
        .unwrap_or_default()
        .replacen('T', " ", 1)
}

/// An ISO-8601 time with an offset; one without is taken as UTC (as the Python tool does).
fn parse_created_at(text: &str) -> Option<Timestamp> {
    if let Ok(at) = text.parse::<Timestamp>() {
        return Some(at);
    }
    let civil: jiff::civil::DateTime = text.parse().ok()?;
    civil.to_zoned(TimeZone::UTC).ok().map(|z| z.timestamp())
}

/// The current time, truncated to microseconds (what the manifest can store).
pub(crate) fn now_micros() -> Timestamp {
    let now = Timestamp::now();
    Timestamp::from_microsecond(now.as_microsecond()).unwrap_or(now)
}

/// `<warehouse>/.ldp/datasets`.
pub fn datasets_dir(warehouse: &Path) -> PathBuf {
    warehouse.join(DATASETS_DIR)
}

/// The warehouse given, else `$LDP_WAREHOUSE`.
///
/// # Errors
///
/// [`Error::Config`] when neither names one.
pub fn resolve_warehouse(warehouse: Option<&Path>) -> Result<PathBuf> {
    if let Some(warehouse) = warehouse {
        return Ok(absolute(warehouse));
    }
    match std::env::var_os(WAREHOUSE_ENV) {
        Some(value) if !value.is_empty() => Ok(absolute(Path::new(&value))),
        _ => Err(Error::config(format!(
            "no warehouse for the dataset manifests: pass --warehouse (or --config) or set {WAREHOUSE_ENV}"
        ))),
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The version numbers of the manifests in `folder` (`v<digits>.json`), sorted.
pub(crate) fn manifest_numbers(folder: &Path) -> Result<Vec<u32>> {
    let entries = match fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io("list", folder, e)),
    };
    let mut numbers = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", folder, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(digits) = name.strip_prefix('v').and_then(|n| n.strip_suffix(".json"))
            && !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && let Ok(number) = digits.parse::<u32>()
        {
            numbers.push(number);
        }
    }
    numbers.sort_unstable();
    Ok(numbers)
}

/// `<folder>/v<NNNNNN>.json`.
pub fn manifest_file(folder: &Path, version: u32) -> PathBuf {
    folder.join(format!("v{version:06}.json"))
}

/// Writes the manifest of the next free version number in `folder` (the highest + 1), never
/// replacing one: the file is created exclusively, and a number taken meanwhile by another
/// process moves on to the next. `build` makes the version for a number.
pub(crate) fn write_new(
    folder: &Path,
    build: impl Fn(u32) -> DatasetVersion,
) -> Result<DatasetVersion> {
    fs::create_dir_all(folder).map_err(|e| Error::io("create", folder, e))?;
    let mut number = manifest_numbers(folder)?.last().copied().unwrap_or(0) + 1;
    loop {
        let mut version = build(number);
        let path = manifest_file(folder, number);
        let tmp = folder.join(format!(
            ".v{number:06}.{}.tmp",
            uuid::Uuid::new_v4().simple()
        ));
        fs::write(&tmp, version.manifest_text()).map_err(|e| Error::io("write", &tmp, e))?;
        // A hard link fails when the name is taken, so the manifest appears complete or not at
        // all; a file system without hard links falls back to create-exclusive, then rename.
        let linked = match fs::hard_link(&tmp, &path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(_) => match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(_) => fs::rename(&tmp, &path)
                    .map(|()| true)
                    .map_err(|e| Error::io("write", &path, e)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
                Err(e) => Err(Error::io("create", &path, e)),
            },
        };
        let _ = fs::remove_file(&tmp);
        if linked? {
            version.manifest_path = Some(path);
            return Ok(version);
        }
        number = number.checked_add(1).ok_or_else(|| {
            Error::dataset(format!("no version number left in {}", folder.display()))
        })?;
    }
}

/// Replaces a version's manifest (atomically: a temporary file renamed over it).
pub(crate) fn rewrite(version: &DatasetVersion) -> Result<()> {
    let Some(path) = &version.manifest_path else {
        return Ok(());
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", uuid::Uuid::new_v4().simple()));
    let write = || -> std::io::Result<()> {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(version.manifest_text().as_bytes())?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io("write", path, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Value {
        let text = include_str!("../tests/data/dataset_manifest_v000001.json");
        serde_json::from_str(text).expect("sample")
    }

    #[test]
    fn the_sample_manifest_round_trips() {
        let value = sample();
        let version = DatasetVersion::from_json(&value, None).expect("parse");
        assert_eq!(version.reference(), "orders_train@v1");
        assert_eq!(version.row_filter.as_deref(), Some("amount > 5"));
        assert_eq!(
            version.selected_fields,
            Some(vec!["order_id".to_string(), "amount".to_string()])
        );
        assert_eq!(
            version.catalog,
            CatalogSpec::Local {
                identifier: "shop".into(),
                warehouse_path: "<project>/shop/warehouse".into()
            }
        );
        assert_eq!(version.to_json(), value);
        let text = include_str!("../tests/data/dataset_manifest_v000001.json");
        assert_eq!(version.manifest_text().trim_end(), text.trim_end());
    }

    #[test]
    fn created_at_reads_like_isoformat() {
        let at: Timestamp = "2026-12-02T14:26:50.248Z".parse().expect("ts");
        assert_eq!(iso_utc(at), "2026-12-02T14:26:50.248000+00:00");
        let whole: Timestamp = "2026-12-02T14:26:50Z".parse().expect("ts");
        assert_eq!(iso_utc(whole), "2026-12-02T14:26:50+00:00");
        assert_eq!(utc_seconds(at), "2026-12-02 14:26:50");
        assert_eq!(parse_created_at("2026-12-02T14:26:50.248000"), Some(at));
        assert_eq!(parse_created_at("2026-12-02T15:26:50.248+01:00"), Some(at));
    }

    #[test]
    fn missing_keys_are_named() {
        let mut value = sample();
        value.as_object_mut().expect("object").remove("snapshot_id");
        let error = DatasetVersion::from_json(&value, Some(Path::new("/w/v000001.json")))
            .expect_err("invalid");
        assert_eq!(
            error.to_string(),
            "invalid dataset manifest in /w/v000001.json: missing \"snapshot_id\""
        );
    }

    #[test]
    fn new_manifests_take_the_next_number_and_never_replace_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let folder = dir.path().join("d");
        let base = DatasetVersion::from_json(&sample(), None).expect("parse");
        let build = |n: u32| DatasetVersion {
            version: n,
            ..base.clone()
        };
        let first = write_new(&folder, build).expect("first");
        assert_eq!(first.version, 1);
        fs::write(folder.join("v000007.json"), "{}").expect("write");
        fs::write(folder.join("notes.json"), "{}").expect("write");
        let next = write_new(&folder, build).expect("next");
        assert_eq!(next.version, 8);
        assert_eq!(next.manifest_path, Some(folder.join("v000008.json")));
        assert_eq!(manifest_numbers(&folder).expect("numbers"), vec![1, 7, 8]);
        let leftovers: Vec<_> = fs::read_dir(&folder)
            .expect("list")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }
}
