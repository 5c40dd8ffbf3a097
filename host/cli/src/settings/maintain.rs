//! `ldp maintain`'s arguments → a [`MaintainSettings`], checked before the table is opened.

use std::path::PathBuf;

use ldp_pipeline::maintain::MaintainRequest;
use ldp_table::CompactOptions;

use super::SettingsError;
use crate::args::MaintainArgs;

/// `ldp maintain`, checked.
#[derive(Debug, Clone)]
pub struct MaintainSettings {
    /// The config file.
    pub config: PathBuf,
    /// What to do.
    pub request: MaintainRequest,
    /// `--expire`, as given (the human report names it).
    pub expire: Option<f64>,
    /// JSON output.
    pub json: bool,
}

/// Orphans younger than this are only deleted with `--allow-recent`.
const MIN_APPLY_AGE_HOURS: f64 = 24.0;

/// Checks the arguments.
pub(crate) fn settings(args: MaintainArgs) -> Result<MaintainSettings, SettingsError> {
    let compact = if args.compact {
        let sort_by: Vec<String> = args
            .sort_by
            .as_deref()
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect();
        if args.sort_by.is_some() && sort_by.is_empty() {
            return Err(SettingsError::OutOfRange {
                flag: "--sort-by",
                what: "comma-separated column names",
                value: format!("'{}'", args.sort_by.unwrap_or_default()),
            });
        }
        Some(CompactOptions {
            target_file_size: parse_size(&args.target_file_size)?,
            sort_by,
            apply: args.apply,
        })
    } else {
        None
    };
    let request = MaintainRequest {
        expire: args.expire,
        orphans: args.orphans,
        compact,
        rewrite_manifests: args.rewrite_manifests,
        apply: args.apply,
        retain_last: usize::try_from(args.retain_last).unwrap_or(usize::MAX),
        orphan_age_hours: args.orphan_age_hours,
        keep_metadata_versions: usize::try_from(args.keep_metadata_versions).unwrap_or(usize::MAX),
        allow_recent: args.allow_recent,
    };
    if request.apply
        && request.runs_orphans()
        && request.orphan_age_hours < MIN_APPLY_AGE_HOURS
        && !request.allow_recent
    {
        return Err(SettingsError::Options(format!(
            "refusing to delete files younger than {MIN_APPLY_AGE_HOURS} hours \
             (--orphan-age-hours {}): they may belong to a write in progress. Pass \
             --allow-recent when no writer is running",
            args.orphan_age_hours
        )));
    }
    Ok(MaintainSettings {
        config: args.config,
        request,
        expire: args.expire,
        json: args.json,
    })
}

/// `--target-file-size`: bytes, or a number with `KB`, `MB` or `GB` (also `KiB`, `MiB`, `GiB`;
/// all 1024-based), above 0.
fn parse_size(text: &str) -> Result<u64, SettingsError> {
    let bad = || SettingsError::OutOfRange {
        flag: "--target-file-size",
        what: "a size above 0 such as 256MB, 1GB or 134217728",
        value: format!("'{text}'"),
    };
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let number: f64 = number.parse().map_err(|_| bad())?;
    let scale: f64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1.0,
        "K" | "KB" | "KIB" => 1024.0,
        "M" | "MB" | "MIB" => 1024.0 * 1024.0,
        "G" | "GB" | "GIB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    let bytes = (number * scale).round();
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(bad());
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_1024_based_units() {
        assert_eq!(parse_size("256MB").unwrap(), 256 * 1024 * 1024);
        assert_eq!(parse_size("1GiB").unwrap(), 1024 * 1024 * 1024);
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("0.5 KB").unwrap(), 512);
        for bad in ["", "0", "MB", "12XB", "-5MB"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
