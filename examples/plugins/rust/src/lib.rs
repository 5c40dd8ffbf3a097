//! `email_mask`: an example ldp transform, written with the Rust SDK.
//!
//! The same transform exists in Python (`../python/app.py`) and JavaScript (`../js/email_mask.js`);
//! all three give the same output for the same input.
//!
//! - Config: `{"column": "email"}`, optional (default `"email"`); any other key is an error of
//!   kind `config`.
//! - The column must exist and be a string column (`utf8` or `large_utf8`), else an error of kind
//!   `config` at `open`, which names it and lists the input columns.
//! - Every value of that column has the local part (before the last `@`) masked: its first
//!   character is kept, the rest becomes `***` (`alice@example.com` → `a***@example.com`,
//!   `@x.org` → `***@x.org`, no `@` → `***`, null stays null).
//! - A new last column `email_domain` (utf8, nullable) holds the text after the last `@`,
//!   lower-cased; null when the value is null or has no `@`.

use std::sync::Arc;

use arrow_array::{Array, GenericStringArray, OffsetSizeTrait, StringArray};
use ldp_plugin_sdk::prelude::*;

/// The name of the column the transform adds.
pub const DOMAIN_COLUMN: &str = "email_domain";

/// Masks one value: `(masked value, domain)`. This is the whole transform, value by value.
///
/// The local part is everything before the **last** `@` (so `a@b@c.org` has local part `a@b`
/// and domain `c.org`); its first character (a Unicode scalar value, not a byte) is kept.
pub fn mask(value: &str) -> (String, Option<String>) {
    match value.rfind('@') {
        None => ("***".to_string(), None),
        Some(at) => {
            let (local, domain) = (&value[..at], &value[at + 1..]);
            let mut masked = String::with_capacity(value.len() + 3);
            masked.extend(local.chars().next());
            masked.push_str("***@");
            masked.push_str(domain);
            (masked, Some(domain.to_lowercase()))
        }
    }
}

/// The parsed config.
#[derive(Debug, PartialEq, Eq)]
pub struct Config {
    /// The column to mask.
    pub column: String,
}

impl Config {
    /// Parses the config object text; unknown keys and a non-string `column` are errors.
    pub fn parse(text: &str) -> Result<Self, PluginError> {
        let text = if text.trim().is_empty() { "{}" } else { text };
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| PluginError::config(format!("config is not JSON: {e}")))?;
        let object = value
            .as_object()
            .ok_or_else(|| PluginError::config("config must be a JSON object"))?;
        // Unknown keys first, in the order the config gives them (serde_json keeps it).
        if let Some(other) = object.keys().find(|k| k.as_str() != "column") {
            return Err(PluginError::config(format!(
                "unknown config key '{other}'; email_mask accepts only 'column'"
            )));
        }
        let column = match object.get("column") {
            None => "email".to_string(),
            Some(value) => value
                .as_str()
                .ok_or_else(|| {
                    PluginError::config("config.column must be a string (a column name)")
                })?
                .to_string(),
        };
        Ok(Self { column })
    }
}

/// An open stream: which column to mask and the output schema.
pub struct EmailMask {
    column: usize,
    schema: SchemaRef,
}

impl Transform for EmailMask {
    fn describe() -> PluginInfo {
        PluginInfo::new("email_mask", env!("CARGO_PKG_VERSION"))
            .description("Masks the local part of an email column and adds its domain (Rust)")
            .config_schema(
                r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{"column":{"type":"string","default":"email","description":"The string column holding email addresses."}}}"#,
            )
    }

    fn open(config: &str, input: SchemaRef) -> Result<Self, PluginError> {
        let config = Config::parse(config)?;
        let columns = || {
            input
                .fields()
                .iter()
                .map(|f| f.name().as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let column = input.index_of(&config.column).map_err(|_| {
            PluginError::config(format!(
                "config.column: the input has no column '{}'; its columns are: {}",
                config.column,
                columns()
            ))
        })?;
        if !matches!(
            input.field(column).data_type(),
            DataType::Utf8 | DataType::LargeUtf8
        ) {
            return Err(PluginError::config(format!(
                "config.column: column '{}' is not a string column; its columns are: {}",
                config.column,
                columns()
            )));
        }
        if input.index_of(DOMAIN_COLUMN).is_ok() {
            return Err(PluginError::config(format!(
                "the input already has a column '{DOMAIN_COLUMN}'; its columns are: {}",
                columns()
            )));
        }
        let mut fields = input.fields().to_vec();
        fields.push(Arc::new(Field::new(DOMAIN_COLUMN, DataType::Utf8, true)));
        let schema = Arc::new(Schema::new_with_metadata(fields, input.metadata().clone()));
        Ok(Self { column, schema })
    }

    fn output_schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn push(&mut self, batch: RecordBatch) -> Result<Vec<RecordBatch>, PluginError> {
        let input = batch.column(self.column);
        let (masked, domains) = if let Some(a) = input.as_any().downcast_ref::<StringArray>() {
            mask_array(a)
        } else if let Some(a) = input.as_any().downcast_ref::<GenericStringArray<i64>>() {
            mask_array(a)
        } else {
            return Err(PluginError::internal(
                "the email column is not a string array",
            ));
        };
        let mut columns = batch.columns().to_vec();
        columns[self.column] = masked;
        columns.push(Arc::new(domains));
        Ok(vec![RecordBatch::try_new(self.schema.clone(), columns)?])
    }
}

/// Masks a whole string array; the masked array keeps its offset width (utf8 or large_utf8).
fn mask_array<O: OffsetSizeTrait>(strings: &GenericStringArray<O>) -> (ArrayRef, StringArray) {
    let mut masked = Vec::with_capacity(strings.len());
    let mut domains = Vec::with_capacity(strings.len());
    for value in strings.iter() {
        match value.map(mask) {
            Some((m, d)) => {
                masked.push(Some(m));
                domains.push(d);
            }
            None => {
                masked.push(None);
                domains.push(None);
            }
        }
    }
    (
        Arc::new(GenericStringArray::<O>::from(masked)),
        StringArray::from(domains),
    )
}

ldp_plugin_sdk::export_transform!(EmailMask);

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, LargeStringArray};

    /// The cases all three languages test: `[input, masked, domain]`.
    #[test]
    fn masks_values() {
        let cases: Vec<(String, String, Option<String>)> =
            serde_json::from_str(include_str!("../../data/mask_cases.json")).unwrap();
        assert!(cases.len() >= 10);
        for (input, masked, domain) in cases {
            assert_eq!(mask(&input), (masked, domain), "{input}");
        }
    }

    #[test]
    fn config() {
        assert_eq!(Config::parse("{}").unwrap().column, "email");
        assert_eq!(Config::parse("").unwrap().column, "email");
        assert_eq!(
            Config::parse(r#"{"column":"mail"}"#).unwrap().column,
            "mail"
        );
        let e = Config::parse(r#"{"colum":"mail"}"#).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Config);
        assert!(e.message.contains("'colum'"), "{}", e.message);
        assert_eq!(
            Config::parse(r#"{"column":1}"#).unwrap_err().kind,
            ErrorKind::Config
        );
        assert_eq!(Config::parse("[]").unwrap_err().kind, ErrorKind::Config);
        assert_eq!(Config::parse("{").unwrap_err().kind, ErrorKind::Config);
    }

    fn users() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("user_id", DataType::Int64, true),
            Field::new("email", DataType::Utf8, true),
        ]))
    }

    #[test]
    fn open_checks_the_column() {
        let e = EmailMask::open(r#"{"column":"mail"}"#, users())
            .err()
            .unwrap();
        assert_eq!(e.kind, ErrorKind::Config);
        assert_eq!(
            e.message,
            "config.column: the input has no column 'mail'; its columns are: user_id, email"
        );
        let e = EmailMask::open(r#"{"column":"user_id"}"#, users())
            .err()
            .unwrap();
        assert_eq!(e.kind, ErrorKind::Config);
        assert!(
            e.message.contains("'user_id' is not a string"),
            "{}",
            e.message
        );
        assert!(e.message.ends_with("user_id, email"), "{}", e.message);
    }

    #[test]
    fn transforms_a_batch() {
        let mut t = EmailMask::open("{}", users()).unwrap();
        let schema = t.output_schema();
        assert_eq!(schema.fields().len(), 3);
        assert_eq!(schema.field(2).name(), DOMAIN_COLUMN);
        let batch = RecordBatch::try_new(
            users(),
            vec![
                Arc::new(Int64Array::from(vec![1, 2, 3])),
                Arc::new(StringArray::from(vec![
                    Some("alice@Example.com"),
                    None,
                    Some("x"),
                ])),
            ],
        )
        .unwrap();
        let out = t.push(batch).unwrap();
        let out = &out[0];
        let masked = out
            .column(1)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        let domains = out
            .column(2)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        assert_eq!(
            masked.iter().collect::<Vec<_>>(),
            [Some("a***@Example.com"), None, Some("***")]
        );
        assert_eq!(
            domains.iter().collect::<Vec<_>>(),
            [Some("example.com"), None, None]
        );
    }

    #[test]
    fn keeps_large_utf8() {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "email",
            DataType::LargeUtf8,
            true,
        )]));
        let mut t = EmailMask::open("{}", schema.clone()).unwrap();
        let batch = RecordBatch::try_new(
            schema,
            vec![Arc::new(LargeStringArray::from(vec!["bo@X.io"]))],
        )
        .unwrap();
        let out = t.push(batch).unwrap();
        let masked = out[0]
            .column(0)
            .as_any()
            .downcast_ref::<LargeStringArray>()
            .unwrap();
        assert_eq!(masked.value(0), "b***@X.io");
    }
}
