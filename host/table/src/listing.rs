//! The live data files of a snapshot with their partition values as text (`day=2024-01-02`),
//! for pages and reports that show a table's layout.
//!
//! Time transforms read as Iceberg writes them in paths: `2024`, `2024-01`, `2024-01-05`,
//! `2024-01-05-13`. Values are named after the table's default partition spec: a file written under an older
//! spec with fewer fields shows the values it has.

use iceberg::spec::{Literal, PrimitiveLiteral, Transform, Type};

use crate::error::Result;
use crate::table::Table;

/// One live data file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    /// Its location (a `file://` URI or an object store URI).
    pub path: String,
    /// Its rows.
    pub records: u64,
    /// Its size.
    pub bytes: u64,
    /// Each partition field's name and value (`null` for a null), in the spec's order.
    pub partition: Vec<(String, String)>,
}

impl Table {
    /// The live data files of a snapshot (default: the current one).
    ///
    /// # Errors
    ///
    /// The snapshot does not exist, or its manifests cannot be read.
    pub fn file_listing(&self, snapshot_id: Option<i64>) -> Result<Vec<FileInfo>> {
        let metadata = self.metadata();
        let spec = metadata.default_partition_spec();
        let schema = metadata.current_schema();
        let types: Vec<Option<Type>> = match spec.partition_type(schema) {
            Ok(partition_type) => partition_type
                .fields()
                .iter()
                .map(|f| Some((*f.field_type).clone()))
                .collect(),
            Err(_) => vec![None; spec.fields().len()],
        };
        Ok(self
            .data_files(snapshot_id)?
            .iter()
            .map(|file| {
                let values = file.partition().fields();
                let partition = spec
                    .fields()
                    .iter()
                    .zip(&types)
                    .zip(values)
                    .map(|((field, field_type), value)| {
                        let time = value.as_ref().and_then(|v| time_text(field.transform, v));
                        let text = match (time, field_type, value) {
                            (Some(time), _, _) => time,
                            (None, Some(t), Some(v)) if t.is_primitive() => {
                                field.transform.to_human_string(t, Some(v))
                            }
                            (None, _, Some(v)) => format!("{v:?}"),
                            (None, _, None) => "null".to_string(),
                        };
                        (field.name.clone(), text)
                    })
                    .collect();
                FileInfo {
                    path: file.file_path().to_string(),
                    records: file.record_count(),
                    bytes: file.file_size_in_bytes(),
                    partition,
                }
            })
            .collect())
    }
}

/// The value of a year, month or hour transform (counted from 1970) as a time; `None` for
/// other transforms (a day's value is a date, which reads as one already).
fn time_text(transform: Transform, value: &Literal) -> Option<String> {
    let Some(PrimitiveLiteral::Int(n)) = value.as_primitive_literal() else {
        return None;
    };
    let n = i64::from(n);
    match transform {
        Transform::Year => Some(format!("{}", 1970 + n)),
        Transform::Month => Some(format!(
            "{:04}-{:02}",
            1970 + n.div_euclid(12),
            n.rem_euclid(12) + 1
        )),
        Transform::Hour => {
            let (y, m, d) = crate::civil_from_days(n.div_euclid(24));
            Some(format!("{y:04}-{m:02}-{d:02}-{:02}", n.rem_euclid(24)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_partitions_read_as_times() {
        let int = |n| Literal::Primitive(PrimitiveLiteral::Int(n));
        assert_eq!(
            time_text(Transform::Month, &int(648)).as_deref(),
            Some("2024-01")
        );
        assert_eq!(
            time_text(Transform::Month, &int(-1)).as_deref(),
            Some("1969-12")
        );
        assert_eq!(
            time_text(Transform::Year, &int(54)).as_deref(),
            Some("2024")
        );
        assert_eq!(
            time_text(Transform::Hour, &int(473_352 + 13)).as_deref(),
            Some("2024-01-01-13")
        );
        assert_eq!(time_text(Transform::Identity, &int(5)), None);
    }
}
