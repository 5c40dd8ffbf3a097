//! How the demo prints: step headers underlined with dashes, tables in the common table format
//! (columns two spaces apart, trailing spaces stripped), money as Python's `f"{x:,.2f}"`.

/// `text` and a line of dashes as long as it.
pub fn underlined(text: &str) -> String {
    format!("{text}\n{}", "-".repeat(text.chars().count()))
}

/// `[k/N] title`, underlined.
pub fn step_header(k: usize, n: usize, title: &str) -> String {
    underlined(&format!("[{k}/{n}] {title}"))
}

/// The lines of a table in the common table format (shared with `ldp query`).
pub use crate::output::table::lines as table;

/// `27,727.18`: two decimals, thousands separated by commas (Python's `f"{x:,.2f}"`).
pub fn money(value: f64) -> String {
    let text = format!("{value:.2}");
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.as_str()),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "00"));
    let mut grouped = String::new();
    for (i, ch) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    format!("{sign}{grouped}.{fraction}")
}

/// `"(7 rows)"` / `"(1 row)"`.
pub fn row_count(n: usize) -> String {
    format!("({n} {})", if n == 1 { "row" } else { "rows" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_groups_thousands() {
        assert_eq!(money(27_727.18), "27,727.18");
        assert_eq!(money(839.5), "839.50");
        assert_eq!(money(1_234_567.0), "1,234,567.00");
        assert_eq!(money(-1234.5), "-1,234.50");
    }

    #[test]
    fn tables_align_and_strip() {
        let rows = vec![vec!["2024-01-01".to_string(), "839.50".to_string()]];
        assert_eq!(
            table(&["day", "SFO"], &rows, &[false, true]),
            [
                "day            SFO",
                "----------  ------",
                "2024-01-01  839.50"
            ]
        );
        assert_eq!(step_header(6, 8, "SQL"), "[6/8] SQL\n---------");
    }
}
