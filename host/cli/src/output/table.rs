//! The common table format of the Python tool's CLI: a header row, a row of dashes per column
//! width, data rows; columns separated by two spaces, trailing spaces stripped; a column
//! right-aligned when every non-null value is a number; `... N more rows` when cut; `(N rows)`.

use std::fmt::Write as _;

use crate::output::cell::Cell;

/// Renders `rows` under `header`. `total` is the row count before cutting (`... N more rows`).
pub fn render(header: &[String], rows: &[Vec<Cell>], total: u64) -> String {
    if header.is_empty() {
        return "(no columns)\n".into();
    }
    let texts: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(Cell::display).collect())
        .collect();
    let right: Vec<bool> = (0..header.len())
        .map(|c| {
            let mut values = rows
                .iter()
                .filter_map(|r| r.get(c))
                .filter(|v| **v != Cell::Null);
            let mut any = false;
            let all = values.all(|v| {
                any = true;
                v.is_number()
            });
            any && all
        })
        .collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut out = String::new();
    for line in lines(&header, &texts, &right) {
        out.push_str(&line);
        out.push('\n');
    }
    let shown = rows.len() as u64;
    if total > shown {
        let _ = writeln!(out, "... {} more rows", total - shown);
    }
    let _ = writeln!(out, "({total} {})", if total == 1 { "row" } else { "rows" });
    out
}

/// The lines of a table (without newlines): the header, dashes as wide as each column, the
/// rows; columns two spaces apart, a column in `right` right-aligned, trailing spaces stripped.
pub fn lines(header: &[&str], rows: &[Vec<String>], right: &[bool]) -> Vec<String> {
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|t| t.chars().count())
                .chain([header[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &mut dyn Iterator<Item = (usize, &str)>| {
        let mut out = String::new();
        for (c, text) in cells {
            if c > 0 {
                out.push_str("  ");
            }
            let pad = widths
                .get(c)
                .copied()
                .unwrap_or(0)
                .saturating_sub(text.chars().count());
            if right.get(c).copied().unwrap_or(false) {
                out.push_str(&" ".repeat(pad));
                out.push_str(text);
            } else {
                out.push_str(text);
                out.push_str(&" ".repeat(pad));
            }
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out
    };
    let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    let mut out = vec![
        line(&mut header.iter().copied().enumerate()),
        line(&mut dashes.iter().map(String::as_str).enumerate()),
    ];
    out.extend(
        rows.iter()
            .map(|row| line(&mut row.iter().map(String::as_str).enumerate())),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_numbers_right_and_text_left() {
        let header = vec!["city".to_string(), "rides".to_string()];
        let rows = vec![
            vec![Cell::Text("NYC".into()), Cell::Int(12)],
            vec![Cell::Text("BKK".into()), Cell::Null],
        ];
        assert_eq!(
            render(&header, &rows, 3),
            "city  rides\n----  -----\nNYC      12\nBKK    NULL\n... 1 more rows\n(3 rows)\n"
        );
    }

    #[test]
    fn empty_results() {
        assert_eq!(render(&[], &[], 0), "(no columns)\n");
        assert_eq!(render(&["n".into()], &[], 0), "n\n-\n(0 rows)\n");
    }
}
