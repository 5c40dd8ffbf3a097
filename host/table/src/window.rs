//! The rows of a window: `metadata.window.column` keeps the rows with start ≤ value < end,
//! and a window overwrite deletes exactly those rows.
//!
//! How the column compares with the window `[start, end)` depends on its type, as in the
//! Python tool:
//!
//! * a timestamp with a time zone compares instants;
//! * a timestamp without one (any unit) is local wall time in the window's time zone: the
//!   bounds are converted to naive local wall time and compared with the values;
//! * a date (`date32`, `date64`) needs both bounds at local midnight, and compares dates;
//! * any other type is a config error, and so is a missing column.
//!
//! A bound finer than the column's unit is floored to it, as pyarrow converts the bound to a
//! scalar of the column's type. A null is in no window.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, Date32Type, Date64Type, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{Array, ArrayRef, BooleanArray, PrimitiveArray, RecordBatch};
use arrow_schema::{DataType, Schema, TimeUnit};
use arrow_select::filter::filter_record_batch;
use iceberg::spec::{DataFile, Datum, Literal, PartitionSpec, PrimitiveLiteral, Transform};
use iceberg::transform::create_transform_function;
use jiff::Timestamp;
use jiff::civil::{Date, DateTime, Time};
use jiff::tz::{Offset, TimeZone};

use crate::error::{Error, Result};
use ldp_pyrepr::repr_str;

const NANOS_PER_DAY: i128 = 86_400 * 1_000_000_000;
const MILLIS_PER_DAY: i128 = 86_400_000;

/// Which rows a window column is looked up in, for the message when it is missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WindowRows {
    /// The rows read from the source, before transforms (`... is not a column of the source`).
    Source,
    /// The rows to write, after transforms (`... is not a column of the data to write ...; a
    /// transform may have dropped or renamed it`).
    DataToWrite,
    /// The Iceberg table a window overwrite deletes rows of (`ns.t`).
    Table(String),
}

impl WindowRows {
    /// What the message calls these rows: `the source`, `the data to write`, `the Iceberg
    /// table ns.t`.
    pub fn describe(&self) -> String {
        match self {
            WindowRows::Source => "the source".to_string(),
            WindowRows::DataToWrite => "the data to write".to_string(),
            WindowRows::Table(table) => format!("the Iceberg table {table}"),
        }
    }

    /// The advice the message ends with (empty, or `; a transform may have dropped or renamed
    /// it`).
    pub fn hint(&self) -> &'static str {
        match self {
            WindowRows::DataToWrite => "; a transform may have dropped or renamed it",
            _ => "",
        }
    }
}

/// The window's bounds as the column's type reads them: instants, naive local wall times or
/// local dates (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowBounds {
    /// A timestamp column with a time zone: the instants (UTC).
    Instant {
        /// The start of the window.
        low: Timestamp,
        /// The end of the window (excluded).
        high: Timestamp,
    },
    /// A timestamp column without a time zone: the bounds as local wall time in the window's
    /// time zone.
    LocalTime {
        /// The start of the window.
        low: DateTime,
        /// The end of the window (excluded).
        high: DateTime,
    },
    /// A date column: the local dates of the bounds (both at local midnight).
    Date {
        /// The first day of the window.
        low: Date,
        /// The first day after the window.
        high: Date,
    },
}

/// Selects the rows of a window by one date or timestamp column (see the module docs).
#[derive(Debug, Clone)]
pub struct WindowFilter {
    column: String,
    start: Timestamp,
    end: Timestamp,
    time_zone: TimeZone,
    rows: WindowRows,
    bounds: WindowBounds,
    /// The column's type in the schema the filter was built from.
    data_type: DataType,
    /// The bounds in the unit of `data_type`.
    limits: (i128, i128),
}

impl WindowFilter {
    /// The filter of the window `[start, end)` (days counted in `time_zone`) on `column` of the
    /// source rows, whose schema is `schema`.
    ///
    /// # Errors
    ///
    /// [`Error::WindowColumnMissing`] when `schema` has no such column,
    /// [`Error::WindowColumnType`] when it is not a date or timestamp column,
    /// [`Error::WindowNotMidnight`] when it is a date column and a bound is not at local
    /// midnight; all of kind [`ErrorKind::Config`](crate::ErrorKind::Config).
    pub fn new(
        schema: &Schema,
        column: &str,
        start: Timestamp,
        end: Timestamp,
        time_zone: TimeZone,
    ) -> Result<WindowFilter> {
        WindowFilter::build(schema, column, start, end, time_zone, WindowRows::Source)
    }

    /// [`WindowFilter::new`] on the rows to write (after transforms), whose missing column
    /// reads `... is not a column of the data to write (columns: ...); a transform may have
    /// dropped or renamed it`. This is the filter a window overwrite takes.
    ///
    /// # Errors
    ///
    /// As [`WindowFilter::new`].
    pub fn for_data_to_write(
        schema: &Schema,
        column: &str,
        start: Timestamp,
        end: Timestamp,
        time_zone: TimeZone,
    ) -> Result<WindowFilter> {
        WindowFilter::build(
            schema,
            column,
            start,
            end,
            time_zone,
            WindowRows::DataToWrite,
        )
    }

    fn build(
        schema: &Schema,
        column: &str,
        start: Timestamp,
        end: Timestamp,
        time_zone: TimeZone,
        rows: WindowRows,
    ) -> Result<WindowFilter> {
        let Ok(field) = schema.field_with_name(column) else {
            return Err(Error::WindowColumnMissing {
                column: column.to_string(),
                columns: schema.fields().iter().map(|f| f.name().clone()).collect(),
                rows,
            });
        };
        let mut filter = WindowFilter {
            column: column.to_string(),
            start,
            end,
            time_zone,
            rows,
            bounds: WindowBounds::Instant {
                low: start,
                high: end,
            },
            data_type: field.data_type().clone(),
            limits: (0, 0),
        };
        filter.bounds = filter.bounds_for(field.data_type())?;
        filter.limits = limits(&filter.bounds, field.data_type());
        Ok(filter)
    }

    /// The same window on the schema of another set of rows (the table a window overwrite
    /// deletes from).
    pub(crate) fn on(&self, schema: &Schema, rows: WindowRows) -> Result<WindowFilter> {
        WindowFilter::build(
            schema,
            &self.column,
            self.start,
            self.end,
            self.time_zone.clone(),
            rows,
        )
    }

    /// The window column.
    pub fn column(&self) -> &str {
        &self.column
    }

    /// The start of the window (included).
    pub fn start(&self) -> Timestamp {
        self.start
    }

    /// The end of the window (excluded).
    pub fn end(&self) -> Timestamp {
        self.end
    }

    /// The time zone the window's days are counted in.
    pub fn time_zone(&self) -> &TimeZone {
        &self.time_zone
    }

    /// The bounds typed like the column (an overwrite deletes `column >= low AND column <
    /// high`).
    pub fn bounds(&self) -> WindowBounds {
        self.bounds
    }

    /// The rows of `batch` in the window (start ≤ value < end; nulls dropped), in order.
    ///
    /// # Errors
    ///
    /// The errors of [`WindowFilter::new`] when `batch` lacks the column or has it with another
    /// type that does not fit.
    pub fn keep(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let inside = self.mask(batch, true)?;
        filter_record_batch(batch, &inside).map_err(|e| {
            Error::schema(
                &format!("metadata.window.column {}", repr_str(&self.column)),
                format!("cannot select the rows of the window: {e}"),
            )
        })
    }

    /// One boolean per row of `batch`, never null: whether the row is in the window
    /// (`inside`), or whether it is not (`!inside`, nulls included).
    pub(crate) fn mask(&self, batch: &RecordBatch, inside: bool) -> Result<BooleanArray> {
        let Some(array) = batch.column_by_name(&self.column) else {
            return Err(Error::WindowColumnMissing {
                column: self.column.clone(),
                columns: batch
                    .schema()
                    .fields()
                    .iter()
                    .map(|f| f.name().clone())
                    .collect(),
                rows: self.rows.clone(),
            });
        };
        let (low, high) = if array.data_type() == &self.data_type {
            self.limits
        } else {
            limits(&self.bounds_for(array.data_type())?, array.data_type())
        };
        let in_window = |v: i128| low <= v && v < high;
        Ok(match array.data_type() {
            DataType::Timestamp(TimeUnit::Second, _) => {
                select::<TimestampSecondType>(array, inside, in_window)
            }
            DataType::Timestamp(TimeUnit::Millisecond, _) => {
                select::<TimestampMillisecondType>(array, inside, in_window)
            }
            DataType::Timestamp(TimeUnit::Microsecond, _) => {
                select::<TimestampMicrosecondType>(array, inside, in_window)
            }
            DataType::Timestamp(TimeUnit::Nanosecond, _) => {
                select::<TimestampNanosecondType>(array, inside, in_window)
            }
            DataType::Date32 => select::<Date32Type>(array, inside, in_window),
            DataType::Date64 => select::<Date64Type>(array, inside, in_window),
            other => return Err(self.type_error(other)),
        })
    }

    /// Where a data file's rows lie, from its manifest entry alone: its bounds and null count
    /// of the column (field `field_id`), and its partition value when `spec` (the file's
    /// partition spec) has an order-preserving field on the column. The filter must be built
    /// on the table's schema.
    pub(crate) fn place(
        &self,
        file: &DataFile,
        field_id: i32,
        spec: Option<&PartitionSpec>,
    ) -> Placement {
        if let Some(spec) = spec
            && self.outside_by_partition(file, field_id, spec)
        {
            return Placement::Outside;
        }
        let (low, high) = self.limits;
        let nulls = file.null_value_counts().get(&field_id).copied();
        let bound = |datum: Option<&Datum>| datum.and_then(|d| self.stat_value(d.literal()));
        match (
            bound(file.lower_bounds().get(&field_id)),
            bound(file.upper_bounds().get(&field_id)),
        ) {
            (Some(lower), Some(upper)) => {
                if upper < low || lower >= high {
                    Placement::Outside
                } else if lower >= low && upper < high && nulls == Some(0) {
                    Placement::Inside
                } else {
                    Placement::Straddles
                }
            }
            _ if nulls == Some(file.record_count()) => Placement::Outside,
            _ => Placement::Straddles,
        }
    }

    /// Whether the file's partition value on an order-preserving transform of the column
    /// (identity, year, month, day, hour) is outside the window's, or null (every value null).
    fn outside_by_partition(&self, file: &DataFile, field_id: i32, spec: &PartitionSpec) -> bool {
        let (low, high) = self.limits;
        let (Some(first), Some(last)) = (self.datum(low), self.datum(high - 1)) else {
            return false;
        };
        let values = file.partition().fields();
        for (position, field) in spec.fields().iter().enumerate() {
            if field.source_id != field_id
                || !matches!(
                    field.transform,
                    Transform::Identity
                        | Transform::Year
                        | Transform::Month
                        | Transform::Day
                        | Transform::Hour
                )
            {
                continue;
            }
            let value = match values.get(position) {
                Some(Some(Literal::Primitive(value))) => value,
                Some(None) => return true,
                _ => continue,
            };
            let Ok(function) = create_transform_function(&field.transform) else {
                continue;
            };
            let (Ok(Some(from)), Ok(Some(to))) = (
                function.transform_literal(&first),
                function.transform_literal(&last),
            ) else {
                continue;
            };
            let same = |other: &PrimitiveLiteral| {
                std::mem::discriminant(other) == std::mem::discriminant(value)
            };
            if same(from.literal())
                && same(to.literal())
                && (value < from.literal() || value > to.literal())
            {
                return true;
            }
        }
        false
    }

    /// A column value of the table (its unit) as an Iceberg value of the column's type.
    fn datum(&self, value: i128) -> Option<Datum> {
        match &self.data_type {
            DataType::Timestamp(TimeUnit::Microsecond, None) => {
                i64::try_from(value).ok().map(Datum::timestamp_micros)
            }
            DataType::Timestamp(TimeUnit::Microsecond, Some(_)) => {
                i64::try_from(value).ok().map(Datum::timestamptz_micros)
            }
            DataType::Date32 => i32::try_from(value).ok().map(Datum::date),
            _ => None,
        }
    }

    /// A bound in a manifest as a value of the column in its unit (`None`: another type).
    fn stat_value(&self, literal: &PrimitiveLiteral) -> Option<i128> {
        match (&self.data_type, literal) {
            (DataType::Timestamp(..), PrimitiveLiteral::Long(v)) => Some(i128::from(*v)),
            (DataType::Date32, PrimitiveLiteral::Int(v)) => Some(i128::from(*v)),
            _ => None,
        }
    }

    /// The bounds typed for a column of `data_type`, by the rules of the module docs.
    fn bounds_for(&self, data_type: &DataType) -> Result<WindowBounds> {
        match data_type {
            DataType::Timestamp(_, Some(_)) => Ok(WindowBounds::Instant {
                low: self.start,
                high: self.end,
            }),
            DataType::Timestamp(_, None) => Ok(WindowBounds::LocalTime {
                low: self.time_zone.to_datetime(self.start),
                high: self.time_zone.to_datetime(self.end),
            }),
            DataType::Date32 | DataType::Date64 => {
                let low = self.time_zone.to_datetime(self.start);
                let high = self.time_zone.to_datetime(self.end);
                if low.time() != Time::midnight() || high.time() != Time::midnight() {
                    return Err(Error::WindowNotMidnight {
                        column: self.column.clone(),
                        time_zone: self.time_zone.iana_name().unwrap_or("UTC").to_string(),
                        start: isoformat_utc(self.start),
                        end: isoformat_utc(self.end),
                    });
                }
                Ok(WindowBounds::Date {
                    low: low.date(),
                    high: high.date(),
                })
            }
            other => Err(self.type_error(other)),
        }
    }

    fn type_error(&self, data_type: &DataType) -> Error {
        Error::WindowColumnType {
            column: self.column.clone(),
            column_type: ldp_pyrepr::pyarrow_type_name(data_type),
        }
    }
}

/// Where a data file's rows lie with respect to a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// No row is in the window (or every value is null): the file is kept as it is.
    Outside,
    /// Every row is in the window (and none is null): the file is deleted whole.
    Inside,
    /// Some rows may be in the window: the file is read.
    Straddles,
}

/// The bounds in the unit of a column of `data_type` (floored, as pyarrow converts them).
fn limits(bounds: &WindowBounds, data_type: &DataType) -> (i128, i128) {
    let (low_ns, high_ns) = match *bounds {
        WindowBounds::Instant { low, high } => (low.as_nanosecond(), high.as_nanosecond()),
        WindowBounds::LocalTime { low, high } => (naive_nanos(low), naive_nanos(high)),
        WindowBounds::Date { low, high } => (
            naive_nanos(low.to_datetime(Time::midnight())),
            naive_nanos(high.to_datetime(Time::midnight())),
        ),
    };
    let per_unit = match data_type {
        DataType::Timestamp(TimeUnit::Second, _) => 1_000_000_000,
        DataType::Timestamp(TimeUnit::Millisecond, _) => 1_000_000,
        DataType::Timestamp(TimeUnit::Microsecond, _) => 1_000,
        DataType::Timestamp(TimeUnit::Nanosecond, _) => 1,
        DataType::Date32 => NANOS_PER_DAY,
        DataType::Date64 => {
            let days = |ns: i128| ns.div_euclid(NANOS_PER_DAY) * MILLIS_PER_DAY;
            return (days(low_ns), days(high_ns));
        }
        _ => 1,
    };
    (low_ns.div_euclid(per_unit), high_ns.div_euclid(per_unit))
}

/// Nanoseconds since 1970-01-01T00:00:00 of a naive date and time.
fn naive_nanos(datetime: DateTime) -> i128 {
    let days = i128::from(
        datetime
            .date()
            .since(Date::constant(1970, 1, 1))
            .map_or(0, |span| span.get_days()),
    );
    let time = datetime.time();
    let seconds =
        i128::from(time.hour()) * 3600 + i128::from(time.minute()) * 60 + i128::from(time.second());
    days * NANOS_PER_DAY + seconds * 1_000_000_000 + i128::from(time.subsec_nanosecond())
}

/// The mask of `array` (a primitive array of `T`): `in_window` of each valid value, or its
/// negation with nulls true when `inside` is false.
fn select<T>(array: &ArrayRef, inside: bool, in_window: impl Fn(i128) -> bool) -> BooleanArray
where
    T: ArrowPrimitiveType,
    T::Native: Into<i128>,
{
    let values: &PrimitiveArray<T> = array.as_primitive::<T>();
    let bits: Vec<bool> = (0..values.len())
        .map(|i| {
            if values.is_null(i) {
                !inside
            } else {
                in_window(values.value(i).into()) == inside
            }
        })
        .collect();
    BooleanArray::from(bits)
}

/// An instant as Python's `datetime.isoformat()` writes an aware UTC datetime:
/// `2026-08-02T00:00:00+00:00`, microseconds only when non-zero.
pub(crate) fn isoformat_utc(timestamp: Timestamp) -> String {
    let t = Offset::UTC.to_datetime(timestamp);
    let micros = t.subsec_nanosecond() / 1000;
    let fraction = if micros == 0 {
        String::new()
    } else {
        format!(".{micros:06}")
    };
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{fraction}+00:00",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn isoformat_is_pythons() {
        let t: Timestamp = "2026-08-02T00:00:00Z".parse().expect("instant");
        assert_eq!(isoformat_utc(t), "2026-08-02T00:00:00+00:00");
        let t: Timestamp = "2026-08-02T00:00:00.25Z".parse().expect("instant");
        assert_eq!(isoformat_utc(t), "2026-08-02T00:00:00.250000+00:00");
    }

    #[test]
    fn naive_nanos_count_from_the_epoch() {
        let dt = jiff::civil::date(1970, 1, 2).at(1, 0, 0, 5);
        assert_eq!(naive_nanos(dt), NANOS_PER_DAY + 3_600_000_000_000 + 5);
        let before = jiff::civil::date(1969, 12, 31).at(23, 59, 59, 0);
        assert_eq!(naive_nanos(before), -1_000_000_000);
    }

    #[test]
    fn bounds_finer_than_the_unit_are_floored() {
        let low: Timestamp = "1969-12-31T23:59:59.25Z".parse().expect("instant");
        let high: Timestamp = "1970-01-01T00:00:01.5Z".parse().expect("instant");
        let bounds = WindowBounds::Instant { low, high };
        let seconds = DataType::Timestamp(TimeUnit::Second, Some("UTC".into()));
        assert_eq!(limits(&bounds, &seconds), (-1, 1));
        let millis = DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()));
        assert_eq!(limits(&bounds, &millis), (-750, 1500));
    }

    /// A file of the table (`id` long, `at` timestamptz as field 2) described by its manifest
    /// entry alone: no such file exists, so a file "read" would fail.
    fn entry(
        partition: Option<Literal>,
        bounds: Option<(i64, i64)>,
        nulls: Option<u64>,
    ) -> DataFile {
        let mut builder = iceberg::spec::DataFileBuilder::default();
        builder
            .content(iceberg::spec::DataContentType::Data)
            .file_path("file:///nowhere.parquet".to_string())
            .file_format(iceberg::spec::DataFileFormat::Parquet)
            .partition(iceberg::spec::Struct::from_iter([partition]))
            .record_count(10)
            .file_size_in_bytes(100);
        if let Some((lower, upper)) = bounds {
            builder
                .lower_bounds([(2, Datum::timestamptz_micros(lower))].into())
                .upper_bounds([(2, Datum::timestamptz_micros(upper))].into());
        }
        if let Some(nulls) = nulls {
            builder.null_value_counts([(2, nulls)].into());
        }
        builder.build().expect("data file")
    }

    #[test]
    fn files_are_placed_by_bounds_null_counts_and_partition_values() {
        use iceberg::spec::{NestedField, PrimitiveType, Type};
        let schema = iceberg::spec::Schema::builder()
            .with_fields([
                Arc::new(NestedField::optional(
                    1,
                    "id",
                    Type::Primitive(PrimitiveType::Long),
                )),
                Arc::new(NestedField::optional(
                    2,
                    "at",
                    Type::Primitive(PrimitiveType::Timestamptz),
                )),
            ])
            .build()
            .expect("schema");
        let spec = PartitionSpec::builder(schema)
            .add_partition_field("at", "at_day", Transform::Day)
            .and_then(|b| b.build())
            .expect("spec");
        let arrow = Schema::new(vec![arrow_schema::Field::new(
            "at",
            DataType::Timestamp(TimeUnit::Microsecond, Some("+00:00".into())),
            true,
        )]);
        let start: Timestamp = "2026-08-02T00:00:00Z".parse().expect("start");
        let end: Timestamp = "2026-08-03T00:00:00Z".parse().expect("end");
        let filter =
            WindowFilter::new(&arrow, "at", start, end, TimeZone::UTC).expect("window filter");
        let (low, high) = (start.as_microsecond(), end.as_microsecond());
        let day = |d: i32| Some(Literal::date(20_666 + d));
        let place = |file: &DataFile| filter.place(file, 2, Some(&spec));

        // 2026-08-02 is day 20_667 since the epoch.
        assert_eq!(place(&entry(day(0), None, None)), Placement::Outside);
        assert_eq!(place(&entry(day(2), None, None)), Placement::Outside);
        assert_eq!(place(&entry(day(1), None, None)), Placement::Straddles);
        assert_eq!(place(&entry(None, None, None)), Placement::Outside, "null");
        // Without a partition spec, the bounds decide.
        let bounds = |file: &DataFile| filter.place(file, 2, None);
        let inside = Some((low, high - 1));
        assert_eq!(bounds(&entry(None, inside, Some(0))), Placement::Inside);
        assert_eq!(bounds(&entry(None, inside, Some(1))), Placement::Straddles);
        assert_eq!(bounds(&entry(None, inside, None)), Placement::Straddles);
        let across = Some((low - 1, high - 1));
        assert_eq!(bounds(&entry(None, across, Some(0))), Placement::Straddles);
        let after = Some((high, high + 5));
        assert_eq!(bounds(&entry(None, after, Some(0))), Placement::Outside);
        let before = Some((low - 5, low - 1));
        assert_eq!(bounds(&entry(None, before, Some(3))), Placement::Outside);
        assert_eq!(
            bounds(&entry(None, None, Some(10))),
            Placement::Outside,
            "all null"
        );
        assert_eq!(bounds(&entry(None, None, Some(9))), Placement::Straddles);
    }

    #[test]
    fn type_names_are_pyarrows() {
        assert_eq!(ldp_pyrepr::pyarrow_type_name(&DataType::Int64), "int64");
        assert_eq!(ldp_pyrepr::pyarrow_type_name(&DataType::UInt8), "uint8");
        assert_eq!(ldp_pyrepr::pyarrow_type_name(&DataType::Utf8), "string");
        assert_eq!(
            ldp_pyrepr::pyarrow_type_name(&DataType::Time64(TimeUnit::Microsecond)),
            "time64[us]"
        );
        assert_eq!(
            ldp_pyrepr::pyarrow_type_name(&DataType::Decimal128(10, 2)),
            "decimal128(10, 2)"
        );
    }
}
