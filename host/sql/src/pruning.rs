//! Skipping data files a query cannot need: the column bounds every Iceberg manifest keeps for
//! each data file (lower and upper bounds, null and row counts) are checked against the query's
//! filters with DataFusion's `PruningPredicate`, before the scan opens any file. On a table
//! partitioned by `day(pickup_ts)`, a filter on one day keeps that day's files only; on any
//! table, a file whose bounds exclude the filter is not opened.
//!
//! String bounds are not used: writers may truncate them (the Iceberg spec allows it), and a
//! wrong bound would drop rows. A column without bounds keeps every file.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, UInt64Array};
use arrow_schema::{DataType, SchemaRef, TimeUnit};
use datafusion::common::pruning::PruningStatistics;
use datafusion::common::{Column, DFSchema, ScalarValue};
use datafusion::logical_expr::Expr;
use datafusion::logical_expr::utils::conjunction;
use datafusion::physical_optimizer::pruning::PruningPredicate;
use iceberg::spec::{DataFile, Datum, PrimitiveLiteral};

/// One data file and what its manifest entry says of it, by column name.
#[derive(Debug, Clone)]
pub(crate) struct FileStats {
    /// The file (`file://` URI).
    pub uri: String,
    rows: u64,
    min: HashMap<String, ScalarValue>,
    max: HashMap<String, ScalarValue>,
    nulls: HashMap<String, u64>,
}

impl FileStats {
    /// The stats of `file`, for the columns of `schema` (whose fields carry their Iceberg field
    /// ids as `PARQUET:field_id` metadata).
    pub fn new(file: &DataFile, schema: &SchemaRef) -> FileStats {
        let mut stats = FileStats {
            uri: file.file_path().to_string(),
            rows: file.record_count(),
            min: HashMap::new(),
            max: HashMap::new(),
            nulls: HashMap::new(),
        };
        for field in schema.fields() {
            let Some(id) = field
                .metadata()
                .get("PARQUET:field_id")
                .and_then(|id| id.parse::<i32>().ok())
            else {
                continue;
            };
            let name = field.name().clone();
            let bound = |datum: Option<&Datum>| datum.and_then(|d| scalar(d, field.data_type()));
            if let Some(v) = bound(file.lower_bounds().get(&id)) {
                stats.min.insert(name.clone(), v);
            }
            if let Some(v) = bound(file.upper_bounds().get(&id)) {
                stats.max.insert(name.clone(), v);
            }
            if let Some(n) = file.null_value_counts().get(&id) {
                stats.nulls.insert(name, *n);
            }
        }
        stats
    }
}

/// A bound as a scalar of the column's Arrow type; `None` for what is not used (strings,
/// binary, decimals) or does not match.
fn scalar(datum: &Datum, data_type: &DataType) -> Option<ScalarValue> {
    use PrimitiveLiteral as L;
    Some(match (datum.literal(), data_type) {
        (L::Boolean(b), DataType::Boolean) => ScalarValue::Boolean(Some(*b)),
        (L::Int(i), DataType::Int32) => ScalarValue::Int32(Some(*i)),
        (L::Int(i), DataType::Date32) => ScalarValue::Date32(Some(*i)),
        (L::Int(i), DataType::Int64) => ScalarValue::Int64(Some(i64::from(*i))),
        (L::Long(l), DataType::Int64) => ScalarValue::Int64(Some(*l)),
        (L::Long(l), DataType::Timestamp(TimeUnit::Microsecond, tz)) => {
            ScalarValue::TimestampMicrosecond(Some(*l), tz.clone())
        }
        (L::Long(l), DataType::Time64(TimeUnit::Microsecond)) => {
            ScalarValue::Time64Microsecond(Some(*l))
        }
        (L::Float(f), DataType::Float32) => ScalarValue::Float32(Some(f.0)),
        (L::Float(f), DataType::Float64) => ScalarValue::Float64(Some(f64::from(f.0))),
        (L::Double(d), DataType::Float64) => ScalarValue::Float64(Some(d.0)),
        _ => return None,
    })
}

/// The files of `files` that the conjunction of `filters` may need (all of them when the filters
/// cannot be used for pruning).
pub(crate) fn keep<'a>(
    files: &'a [FileStats],
    schema: &SchemaRef,
    filters: &[Expr],
    session: &dyn datafusion::catalog::Session,
) -> Vec<&'a FileStats> {
    let all = || files.iter().collect();
    let Some(expr) = conjunction(filters.to_vec()) else {
        return all();
    };
    let Ok(df_schema) = DFSchema::try_from(schema.as_ref().clone()) else {
        return all();
    };
    let Ok(physical) = session.create_physical_expr(expr, &df_schema) else {
        return all();
    };
    let Ok(predicate) = PruningPredicate::try_new(physical, schema.clone()) else {
        return all();
    };
    let stats = Stats { files, schema };
    match predicate.prune(&stats) {
        Ok(keep) => files
            .iter()
            .zip(keep)
            .filter_map(|(f, k)| k.then_some(f))
            .collect(),
        Err(_) => all(),
    }
}

struct Stats<'a> {
    files: &'a [FileStats],
    schema: &'a SchemaRef,
}

impl Stats<'_> {
    fn bounds(
        &self,
        column: &Column,
        pick: impl Fn(&FileStats) -> Option<&ScalarValue>,
    ) -> Option<ArrayRef> {
        let field = self.schema.field_with_name(&column.name).ok()?;
        let unknown = ScalarValue::try_from(field.data_type()).ok()?;
        let values = self
            .files
            .iter()
            .map(|f| pick(f).cloned().unwrap_or_else(|| unknown.clone()));
        ScalarValue::iter_to_array(values).ok()
    }
}

impl PruningStatistics for Stats<'_> {
    fn min_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bounds(column, |f| f.min.get(&column.name))
    }

    fn max_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bounds(column, |f| f.max.get(&column.name))
    }

    fn num_containers(&self) -> usize {
        self.files.len()
    }

    fn null_counts(&self, column: &Column) -> Option<ArrayRef> {
        let counts: UInt64Array = self
            .files
            .iter()
            .map(|f| f.nulls.get(&column.name).copied())
            .collect();
        Some(Arc::new(counts))
    }

    fn row_counts(&self, _column: &Column) -> Option<ArrayRef> {
        let rows: UInt64Array = self.files.iter().map(|f| Some(f.rows)).collect();
        Some(Arc::new(rows))
    }

    fn contained(
        &self,
        _column: &Column,
        _values: &std::collections::HashSet<ScalarValue>,
    ) -> Option<BooleanArray> {
        None
    }
}
