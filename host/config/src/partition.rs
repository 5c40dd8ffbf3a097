//! `partition_by` of an Iceberg target: `[{column, transform, name?}]` with the transform grammar
//! `identity year month day hour bucket[N] truncate[W]` (case-insensitive, N and W ≥ 1).

use serde_json::Value;

use crate::problems::{Problems, check_string, unknown_keys};
use crate::repr::{repr, repr_list, type_name};

/// A partition transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transform {
    /// `identity`.
    Identity,
    /// `year`.
    Year,
    /// `month`.
    Month,
    /// `day`.
    Day,
    /// `hour`.
    Hour,
    /// `bucket[N]`.
    Bucket(u32),
    /// `truncate[W]`.
    Truncate(u32),
}

impl Transform {
    /// Parses a transform: trimmed, case-insensitive, blanks allowed inside the brackets.
    pub fn parse(text: &str) -> Option<Transform> {
        let lowered = text.trim().to_lowercase();
        match lowered.as_str() {
            "identity" => return Some(Transform::Identity),
            "year" => return Some(Transform::Year),
            "month" => return Some(Transform::Month),
            "day" => return Some(Transform::Day),
            "hour" => return Some(Transform::Hour),
            _ => {}
        }
        let (name, rest) = lowered.split_once('[')?;
        let inner = rest.strip_suffix(']')?;
        let digits = inner.trim_matches(|c: char| c.is_whitespace());
        if digits.is_empty()
            || digits.starts_with('0')
            || !digits.chars().all(|c| c.is_ascii_digit())
        {
            return None;
        }
        let number: u32 = digits.parse().ok()?;
        match name {
            "bucket" => Some(Transform::Bucket(number)),
            "truncate" => Some(Transform::Truncate(number)),
            _ => None,
        }
    }
}

impl std::fmt::Display for Transform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Transform::Identity => f.write_str("identity"),
            Transform::Year => f.write_str("year"),
            Transform::Month => f.write_str("month"),
            Transform::Day => f.write_str("day"),
            Transform::Hour => f.write_str("hour"),
            Transform::Bucket(n) => write!(f, "bucket[{n}]"),
            Transform::Truncate(w) => write!(f, "truncate[{w}]"),
        }
    }
}

/// One `partition_by` item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionField {
    /// The source column.
    pub column: String,
    /// The transform.
    pub transform: Transform,
    /// The partition field's name, when given.
    pub name: Option<String>,
}

/// Checks `partition_by` at `at` and returns the fields when all are valid.
pub(crate) fn check_partition_by(
    problems: &mut Problems,
    items: &Value,
    at: &str,
) -> Option<Vec<PartitionField>> {
    let Some(items) = items.as_array() else {
        problems.add(
            at,
            format!(
                "must be a list of {{'column', 'transform'}} objects, got {}",
                type_name(items)
            ),
        );
        return None;
    };
    let before = problems.len();
    let mut fields = Vec::with_capacity(items.len());
    for (position, item) in items.iter().enumerate() {
        let here = format!("{at}[{position}]");
        let Some(item) = item.as_object() else {
            problems.add(&here, "must be an object with 'column' and 'transform'");
            continue;
        };
        let unknown = unknown_keys(item, &["column", "transform", "name"]);
        if !unknown.is_empty() {
            problems.add(&here, format!("has unknown keys {}", repr_list(&unknown)));
        }
        let column = check_string(problems, item, "column", &here, true);
        let raw_transform = item.get("transform").unwrap_or(&Value::Null);
        let transform = raw_transform.as_str().and_then(Transform::parse);
        if transform.is_none() {
            problems.add(
                &format!("{here}.transform"),
                format!(
                    "unknown transform {}; expected identity, year, month, day, hour, bucket[N] or truncate[W]",
                    repr(raw_transform)
                ),
            );
        }
        let name = if item.contains_key("name") {
            check_string(problems, item, "name", &here, true)
        } else {
            None
        };
        if let (Some(column), Some(transform)) = (column, transform) {
            fields.push(PartitionField {
                column,
                transform,
                name,
            });
        }
    }
    (problems.len() == before).then_some(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transform_grammar() {
        assert_eq!(Transform::parse(" DAY "), Some(Transform::Day));
        assert_eq!(Transform::parse("bucket[8]"), Some(Transform::Bucket(8)));
        assert_eq!(
            Transform::parse("Truncate[ 4 ]"),
            Some(Transform::Truncate(4))
        );
        assert_eq!(Transform::parse("bucket[0]"), None);
        assert_eq!(Transform::parse("bucket[]"), None);
        assert_eq!(Transform::parse("bucket[08]"), None);
        assert_eq!(Transform::parse("week"), None);
        assert_eq!(Transform::parse("bucket 8"), None);
        assert_eq!(Transform::Bucket(16).to_string(), "bucket[16]");
    }
}
