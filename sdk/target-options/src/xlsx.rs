//! The XLSX target's options: `sheet`, the name of the workbook's one sheet (default `Sheet1`,
//! as Excel names a new workbook's first sheet), and `header`, whether the first row holds the
//! column names (default `true`).

use serde_json::{Map, Value};

use crate::OptionError;

/// The target-block keys the XLSX sink takes, besides `path`.
pub const TARGET_KEYS: &[&str] = &["sheet", "header"];

/// The sheet's name when the target names none.
pub const DEFAULT_SHEET: &str = "Sheet1";

/// The most characters Excel allows in a sheet name.
pub const MAX_SHEET_NAME: usize = 31;

/// The validated options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The sheet's name.
    pub sheet: String,
    /// Whether the first row holds the column names.
    pub header: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            sheet: DEFAULT_SHEET.to_owned(),
            header: true,
        }
    }
}

/// Parses the options of `map` (keys other than [`TARGET_KEYS`] are not looked at); `null`
/// counts as absent.
pub fn parse(map: &Map<String, Value>) -> Result<Options, OptionError> {
    let mut options = Options::default();
    match map.get("sheet") {
        None | Some(Value::Null) => {}
        Some(Value::String(name)) => {
            check_sheet_name(name)
                .map_err(|why| OptionError::new("sheet", format!("{name:?} {why}")))?;
            options.sheet.clone_from(name);
        }
        Some(other) => {
            return Err(OptionError::expected(
                "sheet",
                "the sheet's name (a target writes one sheet, so a position means nothing)",
                other,
            ));
        }
    }
    match map.get("header") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(flag)) => options.header = *flag,
        Some(other) => return Err(OptionError::expected("header", "true or false", other)),
    }
    Ok(options)
}

/// Excel's rules for a sheet name: 1 to 31 characters, none of `[ ] : * ? / \`, no apostrophe
/// at either end. The error says which rule the name breaks.
pub fn check_sheet_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("is blank; a sheet needs a name".into());
    }
    let length = name.chars().count();
    if length > MAX_SHEET_NAME {
        return Err(format!(
            "has {length} characters; Excel allows at most {MAX_SHEET_NAME} in a sheet name"
        ));
    }
    if let Some(bad) = name.chars().find(|c| "[]:*?/\\".contains(*c)) {
        return Err(format!(
            "holds {bad:?}; Excel allows none of [ ] : * ? / \\ in a sheet name"
        ));
    }
    if name.starts_with('\'') || name.ends_with('\'') {
        return Err("starts or ends with an apostrophe, which Excel does not allow".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn options(value: Value) -> Result<Options, String> {
        let Value::Object(map) = value else {
            unreachable!()
        };
        parse(&map).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_and_values() {
        assert_eq!(options(json!({})), Ok(Options::default()));
        assert_eq!(
            options(json!({"sheet": "Rides 2024", "header": false})),
            Ok(Options {
                sheet: "Rides 2024".into(),
                header: false
            })
        );
        assert_eq!(
            options(json!({"header": "yes"})).unwrap_err(),
            r#"header: expected true or false, got "yes""#
        );
        assert!(
            options(json!({"sheet": 0}))
                .unwrap_err()
                .starts_with("sheet: expected the sheet's name")
        );
    }

    #[test]
    fn sheet_names_follow_excel() {
        assert_eq!(
            options(json!({"sheet": "a/b"})).unwrap_err(),
            r#"sheet: "a/b" holds '/'; Excel allows none of [ ] : * ? / \ in a sheet name"#
        );
        assert!(
            check_sheet_name("'quoted'")
                .unwrap_err()
                .contains("apostrophe")
        );
        assert!(
            check_sheet_name(&"x".repeat(32))
                .unwrap_err()
                .contains("has 32 characters")
        );
        assert!(check_sheet_name("  ").is_err());
        assert!(check_sheet_name("Q1 [draft]").is_err());
        assert!(check_sheet_name("Réservations d'été").is_ok());
        assert!(check_sheet_name(&"é".repeat(31)).is_ok());
    }
}
