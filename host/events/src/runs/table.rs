//! The Python tool CLI's `format_table` for rows of JSON values: a header, a line of dashes, one
//! line per row and `(N rows)`. Columns are two spaces apart; a column whose non-null values
//! are all numbers is right-aligned (so is one that holds only nulls), others left-aligned;
//! nulls show as `NULL`, booleans as `true`/`false`, floats with up to 6 decimals.

use ldp_config::py_float;
use serde_json::Value;

use crate::pyvalue::py_str;

/// A cell as the common table format prints it: `NULL`, `true`/`false`, a float with at most 6
/// decimals and no trailing zeros (Python's `repr` when not finite or ≥ 1e15), else `str()`.
pub(crate) fn cell(value: &Value) -> String {
    match value {
        Value::Null => "NULL".to_owned(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) if number.is_f64() => {
            let float = number.as_f64().unwrap_or(f64::NAN);
            if !float.is_finite() || float.abs() >= 1e15 {
                return py_float(float);
            }
            let text = format!("{float:.6}");
            text.trim_end_matches('0').trim_end_matches('.').to_owned()
        }
        other => py_str(other),
    }
}

fn is_number(value: &Value) -> bool {
    matches!(value, Value::Number(_))
}

/// Renders `rows` (each as long as `columns`) under `columns`.
pub(crate) fn format_table(columns: &[&str], rows: &[Vec<Value>]) -> String {
    if columns.is_empty() {
        return "(no columns)".to_owned();
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(cell).collect())
        .collect();
    let numeric: Vec<bool> = (0..columns.len())
        .map(|i| {
            !rows.is_empty()
                && rows
                    .iter()
                    .filter_map(|row| row.get(i))
                    .filter(|v| !v.is_null())
                    .all(is_number)
        })
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, column)| {
            cells
                .iter()
                .filter_map(|line| line.get(i))
                .map(|text| text.chars().count())
                .chain([column.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let render = |values: &[String]| -> String {
        let parts: Vec<String> = values
            .iter()
            .zip(&widths)
            .zip(&numeric)
            .map(|((value, width), right)| {
                let pad = " ".repeat(width.saturating_sub(value.chars().count()));
                if *right {
                    format!("{pad}{value}")
                } else {
                    format!("{value}{pad}")
                }
            })
            .collect();
        parts.join("  ").trim_end().to_owned()
    };
    let header: Vec<String> = columns.iter().map(|c| (*c).to_owned()).collect();
    let mut lines = vec![
        render(&header),
        widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("  "),
    ];
    lines.extend(cells.iter().map(|line| render(line)));
    let total = rows.len();
    lines.push(format!(
        "({total} row{})",
        if total == 1 { "" } else { "s" }
    ));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cells_read_like_the_reference() {
        assert_eq!(cell(&json!(null)), "NULL");
        assert_eq!(cell(&json!(true)), "true");
        assert_eq!(cell(&json!(0.541)), "0.541");
        assert_eq!(cell(&json!(0.0)), "0");
        assert_eq!(cell(&json!(10.5)), "10.5");
        assert_eq!(cell(&json!(1e16)), "1e+16");
        assert_eq!(cell(&json!(12)), "12");
        assert_eq!(cell(&json!(["a"])), "['a']");
    }

    #[test]
    fn numbers_align_right() {
        let text = format_table(
            &["name", "n", "empty"],
            &[
                vec![json!("a"), json!(1), Value::Null],
                vec![json!("bb"), json!(10), Value::Null],
            ],
        );
        assert_eq!(
            text,
            "name   n  empty\n----  --  -----\na      1   NULL\nbb    10   NULL\n(2 rows)"
        );
    }
}
