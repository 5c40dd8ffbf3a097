//! CSV as `pyarrow.csv.write_csv` writes it (Arrow C++'s writer with its default options).

use std::fmt::LowerExp;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};

/// Writes `batch` to `path` (created or truncated) as `pyarrow.csv.write_csv` does, byte for
/// byte: a header of quoted column names, `\n` line ends, strings always quoted with `"`
/// doubled, numbers and booleans (`true`/`false`) bare, nulls empty, dates `YYYY-MM-DD`,
/// timestamps `YYYY-MM-DD HH:MM:SS` plus the unit's fraction (`.ffffff` for µs, `Z` appended
/// when the type has a time zone), and floats in their shortest round-trip digits, positional
/// for decimal exponents -6 to 9 (`32.28`, `7`, `0.000001`), scientific otherwise (`1e+10`,
/// `1e-7`), with `nan`, `inf`, `-inf`.
///
/// Supported column types: booleans, signed and unsigned integers, float32/64, utf8, large
/// utf8, utf8 view, date32 and timestamps of any unit. Any other type is an
/// [`io::ErrorKind::InvalidInput`] error, raised before the file is created.
pub fn write_csv(batch: &RecordBatch, path: &Path) -> io::Result<()> {
    check_types(batch)?;
    let mut out = BufWriter::new(File::create(path)?);
    write_csv_to(batch, &mut out)?;
    out.flush()
}

fn check_types(batch: &RecordBatch) -> io::Result<()> {
    for field in batch.schema().fields() {
        if !supported(field.data_type()) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "cannot write column {:?} of type {} as CSV",
                    field.name(),
                    field.data_type()
                ),
            ));
        }
    }
    Ok(())
}

fn supported(data_type: &DataType) -> bool {
    use DataType::*;
    matches!(
        data_type,
        Boolean
            | Int8
            | Int16
            | Int32
            | Int64
            | UInt8
            | UInt16
            | UInt32
            | UInt64
            | Float32
            | Float64
            | Utf8
            | LargeUtf8
            | Utf8View
            | Date32
            | Timestamp(_, _)
    )
}

/// The CSV text of `batch`, written to `out`.
pub(crate) fn write_csv_to(batch: &RecordBatch, out: &mut impl Write) -> io::Result<()> {
    check_types(batch)?;
    let schema = batch.schema();
    let header: Vec<String> = schema.fields().iter().map(|f| quoted(f.name())).collect();
    out.write_all(header.join(",").as_bytes())?;
    out.write_all(b"\n")?;
    let mut line = String::new();
    for row in 0..batch.num_rows() {
        line.clear();
        for (index, column) in batch.columns().iter().enumerate() {
            if index > 0 {
                line.push(',');
            }
            if column.is_valid(row) {
                line.push_str(&cell(column.as_ref(), row));
            }
        }
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// One non-null value; the type has passed [`supported`].
fn cell(column: &dyn Array, row: usize) -> String {
    match column.data_type() {
        DataType::Boolean => column.as_boolean().value(row).to_string(),
        DataType::Int8 => column.as_primitive::<Int8Type>().value(row).to_string(),
        DataType::Int16 => column.as_primitive::<Int16Type>().value(row).to_string(),
        DataType::Int32 => column.as_primitive::<Int32Type>().value(row).to_string(),
        DataType::Int64 => column.as_primitive::<Int64Type>().value(row).to_string(),
        DataType::UInt8 => column.as_primitive::<UInt8Type>().value(row).to_string(),
        DataType::UInt16 => column.as_primitive::<UInt16Type>().value(row).to_string(),
        DataType::UInt32 => column.as_primitive::<UInt32Type>().value(row).to_string(),
        DataType::UInt64 => column.as_primitive::<UInt64Type>().value(row).to_string(),
        DataType::Float32 => {
            let v = column.as_primitive::<Float32Type>().value(row);
            arrow_float(v, v.is_nan(), v.is_infinite(), v > 0.0)
        }
        DataType::Float64 => {
            let v = column.as_primitive::<Float64Type>().value(row);
            arrow_float(v, v.is_nan(), v.is_infinite(), v > 0.0)
        }
        DataType::Utf8 => quoted(column.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => quoted(column.as_string::<i64>().value(row)),
        DataType::Utf8View => quoted(column.as_string_view().value(row)),
        DataType::Date32 => {
            let days = column.as_primitive::<Date32Type>().value(row);
            date(i64::from(days))
        }
        DataType::Timestamp(unit, tz) => {
            let value = match unit {
                TimeUnit::Second => column.as_primitive::<TimestampSecondType>().value(row),
                TimeUnit::Millisecond => {
                    column.as_primitive::<TimestampMillisecondType>().value(row)
                }
                TimeUnit::Microsecond => {
                    column.as_primitive::<TimestampMicrosecondType>().value(row)
                }
                TimeUnit::Nanosecond => column.as_primitive::<TimestampNanosecondType>().value(row),
            };
            let mut text = timestamp(value, unit);
            if tz.is_some() {
                text.push('Z');
            }
            text
        }
        // Unreachable after `check_types`; written as empty rather than panicking.
        _ => String::new(),
    }
}

/// `"text"` with every `"` doubled.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// A float as Arrow C++ formats it (double-conversion `ToShortest`, exponent sign always
/// written, positional for decimal exponents in `-6..10`, no trailing `.0`).
fn arrow_float(value: impl LowerExp, nan: bool, infinite: bool, positive: bool) -> String {
    if nan {
        return "nan".to_owned();
    }
    if infinite {
        return if positive { "inf" } else { "-inf" }.to_owned();
    }
    // `{:e}` gives the shortest round-trip digits: "3.0000000000000004e-1", "-7e0", "0e0".
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-6..10).contains(&exponent) {
        // The decimal point sits after `point` digits (before them when `point` <= 0).
        let point = exponent + 1;
        if point <= 0 {
            let zeros = "0".repeat(point.unsigned_abs() as usize);
            format!("{sign}0.{zeros}{digits}")
        } else {
            let point = point as usize; // 1..=10
            if digits.len() <= point {
                format!("{sign}{digits:0<point$}")
            } else {
                format!("{sign}{}.{}", &digits[..point], &digits[point..])
            }
        }
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!(
            "{sign}{first}{fraction}e{exp_sign}{}",
            exponent.unsigned_abs()
        )
    }
}

/// Days since 1970-01-01 as (year, month, day) in the proleptic Gregorian calendar.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Howard Hinnant's `civil_from_days`.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11]
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32; // [1, 31]
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32; // [1, 12]
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn date(days: i64) -> String {
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// `YYYY-MM-DD HH:MM:SS` plus `.fff`, `.ffffff` or `.fffffffff` for ms, µs and ns.
fn timestamp(value: i64, unit: &TimeUnit) -> String {
    let (per_second, width) = match unit {
        TimeUnit::Second => (1, 0),
        TimeUnit::Millisecond => (1_000, 3),
        TimeUnit::Microsecond => (1_000_000, 6),
        TimeUnit::Nanosecond => (1_000_000_000, 9),
    };
    let seconds = value.div_euclid(per_second);
    let fraction = value.rem_euclid(per_second);
    let (days, in_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (hour, minute, second) = (in_day / 3600, in_day / 60 % 60, in_day % 60);
    let mut text = format!("{} {hour:02}:{minute:02}:{second:02}", date(days));
    if width > 0 {
        text.push_str(&format!(".{fraction:0width$}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{
        ArrayRef, BooleanArray, Date32Array, Float32Array, Float64Array, Int64Array,
        LargeStringArray, StringArray, TimestampMicrosecondArray, TimestampMillisecondArray,
        TimestampNanosecondArray, TimestampSecondArray,
    };
    use std::sync::Arc;

    fn csv_text(batch: &RecordBatch) -> String {
        let mut bytes = Vec::new();
        write_csv_to(batch, &mut bytes).expect("write to memory");
        String::from_utf8(bytes).expect("utf-8")
    }

    fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
        RecordBatch::try_from_iter(columns).expect("valid batch")
    }

    const VECTOR: &[u8] = include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/rides_seed42_first20.csv"
    ));

    #[test]
    fn seed_42_first_20_rides_match_the_reference_bytes() {
        let rides = crate::rides(1000, 42, 1).slice(0, 20);
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("rides.csv");
        write_csv(&rides, &path).expect("write csv");
        let written = std::fs::read(&path).expect("read back");
        assert_eq!(
            String::from_utf8_lossy(&written),
            String::from_utf8_lossy(VECTOR)
        );
        assert_eq!(written, VECTOR);
        // The same from a freshly generated 20-row table.
        assert_eq!(csv_text(&crate::rides(20, 42, 1)).as_bytes(), VECTOR);
    }

    // Expected texts printed by pyarrow 26.0.1's `pyarrow.csv.write_csv` for the same values.
    #[test]
    fn floats_are_formatted_as_arrow_cpp_does() {
        let values = [
            7.0,
            -12.5,
            1e10,
            1e-7,
            123_456_789_012.5,
            1e21,
            0.1 + 0.2,
            1e16,
            1e15,
            5e-324,
            1e9,
            9_999_999_999.0,
            1_234_567_890.5,
            1e-6,
            0.000_012_34,
            1.5e-6,
            0.000_123,
            123.456,
            1e300,
            -1.5e-300,
            2.5e-5,
            100.0,
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let expected64 = [
            "7",
            "-12.5",
            "1e+10",
            "1e-7",
            "1.234567890125e+11",
            "1e+21",
            "0.30000000000000004",
            "1e+16",
            "1e+15",
            "5e-324",
            "1000000000",
            "9999999999",
            "1234567890.5",
            "0.000001",
            "0.00001234",
            "0.0000015",
            "0.000123",
            "123.456",
            "1e+300",
            "-1.5e-300",
            "0.000025",
            "100",
            "0",
            "-0",
            "nan",
            "inf",
            "-inf",
        ];
        let text = csv_text(&batch(vec![(
            "g",
            Arc::new(Float64Array::from(values.to_vec())) as ArrayRef,
        )]));
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(lines, expected64);

        // float32: the same values cast to float32 by pyarrow (1e300 overflows to inf).
        let values32: Vec<f32> = vec![
            1e9,
            9_999_999_999.0,
            1_234_567_890.5,
            1e-6,
            1e300_f64 as f32,
        ];
        let expected32 = ["1000000000", "1e+10", "1234568000", "0.000001", "inf"];
        let text = csv_text(&batch(vec![(
            "f",
            Arc::new(Float32Array::from(values32)) as ArrayRef,
        )]));
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(lines, expected32);
    }

    // Expected text printed by pyarrow 26.0.1's `pyarrow.csv.write_csv` for the same table.
    #[test]
    fn other_types_nulls_and_quoting() {
        let t = batch(vec![
            (
                "a b\"c",
                Arc::new(Int64Array::from(vec![Some(1), None, Some(-3)])) as ArrayRef,
            ),
            (
                "s",
                Arc::new(StringArray::from(vec![Some("a\"b"), None, Some("x,y\nz")])),
            ),
            (
                "ls",
                Arc::new(LargeStringArray::from(vec![Some("q"), None, None])),
            ),
            (
                "b",
                Arc::new(BooleanArray::from(vec![Some(true), None, Some(false)])),
            ),
            (
                "d",
                Arc::new(Date32Array::from(vec![Some(19_723), None, Some(-719_162)])),
            ),
            (
                "t",
                Arc::new(TimestampMicrosecondArray::from(vec![
                    Some(1_704_067_200_000_005),
                    Some(-1),
                    Some(-315_619_200_000_000),
                ])),
            ),
            (
                "ts",
                Arc::new(TimestampSecondArray::from(vec![
                    Some(1_704_067_200),
                    None,
                    None,
                ])),
            ),
            (
                "ms",
                Arc::new(TimestampMillisecondArray::from(vec![
                    Some(1_704_070_923_004),
                    None,
                    None,
                ])),
            ),
            (
                "ns",
                Arc::new(TimestampNanosecondArray::from(vec![Some(1), None, None])),
            ),
            (
                "tz",
                Arc::new(
                    TimestampMicrosecondArray::from(vec![Some(1_704_067_200_000_000), None, None])
                        .with_timezone("UTC"),
                ),
            ),
        ]);
        let expected = concat!(
            "\"a b\"\"c\",\"s\",\"ls\",\"b\",\"d\",\"t\",\"ts\",\"ms\",\"ns\",\"tz\"\n",
            "1,\"a\"\"b\",\"q\",true,2024-01-01,2024-01-01 00:00:00.000005,2024-01-01 00:00:00,",
            "2024-01-01 01:02:03.004,1970-01-01 00:00:00.000000001,2024-01-01 00:00:00.000000Z\n",
            ",,,,,1969-12-31 23:59:59.999999,,,,\n",
            "-3,\"x,y\nz\",,false,0001-01-01,1960-01-01 00:00:00.000000,,,,\n",
        );
        assert_eq!(csv_text(&t), expected);
    }

    #[test]
    fn empty_batch_is_just_the_header() {
        let t = batch(vec![(
            "x",
            Arc::new(Int64Array::from(Vec::<i64>::new())) as ArrayRef,
        )]);
        assert_eq!(csv_text(&t), "\"x\"\n");
    }

    #[test]
    fn unsupported_types_are_refused_before_the_file_is_created() {
        let list = arrow_array::ListArray::from_iter_primitive::<Int64Type, _, _>(vec![Some(
            vec![Some(1)],
        )]);
        let t = batch(vec![("l", Arc::new(list) as ArrayRef)]);
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("out.csv");
        let error = write_csv(&t, &path).expect_err("a list column is refused");
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        assert!(error.to_string().contains("\"l\""), "{error}");
        assert!(!path.exists());
    }
}
