//! Finding versions: the datasets of a warehouse, the versions of one, one version.

use std::fs;
use std::path::Path;

use crate::error::{Error, Result};
use crate::manifest::{DatasetVersion, datasets_dir, manifest_file, manifest_numbers};
use crate::name::{check_name, parse_reference};

/// The names of the datasets with at least one version in `warehouse`, sorted.
///
/// # Errors
///
/// [`Error::Io`] when the datasets folder cannot be listed.
pub fn list_datasets(warehouse: &Path) -> Result<Vec<String>> {
    let root = datasets_dir(warehouse);
    let entries = match fs::read_dir(&root) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io("list", &root, e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", &root, e))?;
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        if let Some(name) = entry.file_name().to_str()
            && check_name(name).is_ok()
            && !manifest_numbers(&path)?.is_empty()
        {
            names.push(name.to_string());
        }
    }
    names.sort();
    Ok(names)
}

/// Every version of dataset `name`, oldest first; empty when it has none. A manifest that
/// cannot be read is skipped with a warning.
///
/// # Errors
///
/// [`Error::Config`] for an invalid name; [`Error::Io`] when the folder cannot be listed.
pub fn list_versions(name: &str, warehouse: &Path) -> Result<Vec<DatasetVersion>> {
    check_name(name)?;
    let folder = datasets_dir(warehouse).join(name);
    let mut versions = Vec::new();
    for number in manifest_numbers(&folder)? {
        let path = manifest_file(&folder, number);
        match DatasetVersion::read(&path) {
            Ok(version) => versions.push(version),
            Err(e) => tracing::warn!(
                "Skipping unreadable dataset manifest {}: {e}",
                path.display()
            ),
        }
    }
    Ok(versions)
}

/// One version of a dataset: `version` N, or the one `reference` names (`NAME@vN`), or the
/// latest.
///
/// # Errors
///
/// [`Error::Dataset`] when the dataset or the version does not exist; [`Error::Config`] for an
/// invalid name or reference.
pub fn get_version(
    reference: &str,
    version: Option<u32>,
    warehouse: &Path,
) -> Result<DatasetVersion> {
    let (name, from_reference) = parse_reference(reference)?;
    let wanted = version.or(from_reference);
    let versions = list_versions(&name, warehouse)?;
    let repr = ldp_pyrepr::repr_str(&name);
    if versions.is_empty() {
        return Err(Error::dataset(format!(
            "dataset {repr} has no versions in {}",
            datasets_dir(warehouse).display()
        )));
    }
    let Some(wanted) = wanted else {
        return versions
            .into_iter()
            .last()
            .ok_or_else(|| Error::dataset(format!("dataset {repr} has no versions")));
    };
    let numbers: Vec<String> = versions.iter().map(|v| v.version.to_string()).collect();
    versions
        .into_iter()
        .find(|v| v.version == wanted)
        .ok_or_else(|| {
            Error::dataset(format!(
                "dataset {repr} has no version {wanted}; versions: [{}]",
                numbers.join(", ")
            ))
        })
}
