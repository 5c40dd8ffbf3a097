//! The CSV source's options.

use crate::{ColumnType, Encoding, InferRows, OptionError, boolean, error, expected, infer_rows};
use serde_json::{Map, Value};

/// The keys a config's source block may set for a CSV source (the plugin also takes `path`
/// and `batch_size`, which the host sets).
pub const SOURCE_KEYS: &[&str] = &[
    "has_header",
    "delimiter",
    "quote",
    "escape",
    "infer_rows",
    "null_values",
    "columns",
    "encoding",
    "skip_rows",
];

/// The largest `batch_size` accepted: the CSV decoder reserves room for a whole batch up front.
pub const MAX_BATCH_SIZE: usize = 1 << 20;

/// Rows per batch when the config does not say.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

/// The validated options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub has_header: bool,
    pub delimiter: u8,
    pub quote: u8,
    pub escape: Option<u8>,
    pub batch_size: usize,
    pub infer_rows: InferRows,
    /// The null markers; `None` for pyarrow's default list.
    pub null_values: Option<Vec<String>>,
    /// Column types set by name, in the config's order.
    pub columns: Vec<(String, ColumnType)>,
    pub encoding: Encoding,
    pub skip_rows: usize,
}

/// The delimiter of a file without a `delimiter` option: a tab for a `.tsv` or `.tab` file, a
/// comma otherwise.
pub fn default_delimiter(path: &str) -> u8 {
    let lower = path.to_ascii_lowercase();
    if lower.ends_with(".tsv") || lower.ends_with(".tab") {
        b'\t'
    } else {
        b','
    }
}

/// Parses the options of `map` (its other keys are not looked at) for the file at `path`.
pub fn parse(map: &Map<String, Value>, path: &str) -> Result<Options, OptionError> {
    let has_header = boolean(map, "has_header", true)?;
    let delimiter = char_key(map, "delimiter")?.unwrap_or_else(|| default_delimiter(path));
    let quote = char_key(map, "quote")?.unwrap_or(b'"');
    let escape = match map.get("escape") {
        None | Some(Value::Null) => None,
        Some(_) => char_key(map, "escape")?,
    };
    let batch_size = match map.get("batch_size") {
        None => DEFAULT_BATCH_SIZE,
        Some(v) => match v.as_u64() {
            Some(n) if n >= 1 && n <= MAX_BATCH_SIZE as u64 => n as usize,
            _ => {
                return Err(expected(
                    "batch_size",
                    &format!("an integer from 1 to {MAX_BATCH_SIZE}"),
                    v,
                ));
            }
        },
    };
    let null_values = match map.get("null_values") {
        None => None,
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(expected("null_values", "a list of strings", other)),
                })
                .collect::<Result<_, _>>()?,
        ),
        Some(other) => return Err(expected("null_values", "a list of strings", other)),
    };
    let encoding = match map.get("encoding") {
        None => Encoding::Utf8,
        Some(v) => v
            .as_str()
            .and_then(Encoding::parse)
            .ok_or_else(|| expected("encoding", &format!("one of {}", Encoding::NAMES), v))?,
    };
    let skip_rows = match map.get("skip_rows") {
        None => 0,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| expected("skip_rows", "an integer >= 0", v))?,
    };
    if delimiter == quote {
        return Err(error(
            "quote",
            format!(
                "the quote {:?} is also the delimiter; choose another one",
                delimiter as char
            ),
        ));
    }
    if escape == Some(delimiter) {
        return Err(error(
            "escape",
            format!(
                "the escape {:?} is also the delimiter; choose another one",
                delimiter as char
            ),
        ));
    }
    Ok(Options {
        has_header,
        delimiter,
        quote,
        escape,
        batch_size,
        infer_rows: infer_rows(map)?,
        null_values,
        columns: columns(map)?,
        encoding,
        skip_rows,
    })
}

/// `columns`: an object of column names to type names.
fn columns(map: &Map<String, Value>) -> Result<Vec<(String, ColumnType)>, OptionError> {
    match map.get("columns") {
        None => Ok(Vec::new()),
        Some(Value::Object(columns)) => columns
            .iter()
            .map(|(name, t)| match t.as_str().and_then(ColumnType::parse) {
                Some(t) => Ok((name.clone(), t)),
                None => Err(error(
                    &format!("columns.{name}"),
                    format!("expected a type ({}), got {t}", ColumnType::NAMES),
                )),
            })
            .collect(),
        Some(other) => Err(expected(
            "columns",
            "an object of column names to types, such as {\"zip\": \"string\"}",
            other,
        )),
    }
}

/// A one-character key: a string of one ASCII character that is not a line break.
fn char_key(map: &Map<String, Value>, key: &str) -> Result<Option<u8>, OptionError> {
    let Some(value) = map.get(key) else {
        return Ok(None);
    };
    let Value::String(s) = value else {
        return Err(expected(key, "a string of one character", value));
    };
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c == '\n' || c == '\r' => {
            Err(error(key, format!("a line break cannot be the {key}")))
        }
        (Some(c), None) if c.is_ascii() => Ok(Some(c as u8)),
        (Some(c), None) => Err(error(
            key,
            format!("expected one ASCII character, got {c:?} (the CSV reader splits bytes)"),
        )),
        _ => Err(error(
            key,
            format!("expected one character, got {}", Value::String(s.clone())),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<Options, OptionError> {
        let Value::Object(map) = serde_json::from_str(text).unwrap() else {
            panic!("not an object")
        };
        parse(&map, "/d/a.csv")
    }

    fn err(text: &str) -> String {
        parse_text(text).unwrap_err().to_string()
    }

    #[test]
    fn defaults_and_every_key() {
        let o = parse_text("{}").unwrap();
        assert_eq!((o.delimiter, o.quote, o.escape), (b',', b'"', None));
        assert_eq!((o.batch_size, o.infer_rows), (8192, InferRows::Default));
        let o = parse_text(
            r#"{"has_header":false,"delimiter":";","quote":"'","escape":"\\","batch_size":10,
                "infer_rows":"all","null_values":["-"],"columns":{"zip":"string","n":"long"},
                "encoding":"latin-1","skip_rows":2}"#,
        )
        .unwrap();
        assert!(!o.has_header);
        assert_eq!((o.delimiter, o.quote, o.escape), (b';', b'\'', Some(b'\\')));
        assert_eq!((o.batch_size, o.infer_rows), (10, InferRows::All));
        assert_eq!(o.null_values, Some(vec!["-".to_string()]));
        assert_eq!(
            o.columns,
            vec![
                ("zip".into(), ColumnType::Utf8),
                ("n".into(), ColumnType::Int64)
            ]
        );
        assert_eq!((o.encoding, o.skip_rows), (Encoding::Latin1, 2));
    }

    #[test]
    fn a_tsv_file_is_split_at_tabs() {
        let map = Map::new();
        assert_eq!(parse(&map, "/d/a.TSV").unwrap().delimiter, b'\t');
        assert_eq!(parse(&map, "/d/a.tab").unwrap().delimiter, b'\t');
        let Value::Object(map) = serde_json::json!({"delimiter": ","}) else {
            unreachable!()
        };
        assert_eq!(parse(&map, "/d/a.tsv").unwrap().delimiter, b',');
    }

    #[test]
    fn bad_values_name_the_key() {
        assert_eq!(
            err(r#"{"delimiter":";;"}"#),
            r#"delimiter: expected one character, got ";;""#
        );
        for (text, key) in [
            (r#"{"delimiter":""}"#, "delimiter:"),
            (r#"{"quote":"«"}"#, "quote:"),
            (r#"{"escape":1}"#, "escape:"),
            (r#"{"has_header":"yes"}"#, "has_header:"),
            (r#"{"batch_size":0}"#, "batch_size:"),
            (r#"{"batch_size":1.5}"#, "batch_size:"),
            (r#"{"infer_rows":0}"#, "infer_rows:"),
            (r#"{"infer_rows":"some"}"#, "infer_rows:"),
            (r#"{"quote":","}"#, "quote:"),
            (r#"{"null_values":"NA"}"#, "null_values:"),
            (r#"{"null_values":[1]}"#, "null_values:"),
            (
                r#"{"columns":{"zip":"varchar"}}"#,
                "columns.zip: expected a type",
            ),
            (r#"{"columns":["zip"]}"#, "columns:"),
            (r#"{"encoding":"ebcdic"}"#, "encoding:"),
            (r#"{"skip_rows":-1}"#, "skip_rows:"),
        ] {
            assert!(err(text).starts_with(key), "{text}: {}", err(text));
        }
    }
}
