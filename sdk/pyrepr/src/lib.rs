//! Python's `repr()` of floats and strings, for messages that must read exactly like the Python
//! tool's (`2.0`, `1e-05`, `'text'`, `"it's"`), and pyarrow's name of an Arrow type
//! ([`pyarrow_type_name`]: `int64`, `timestamp[us, tz=UTC]`). Shared by the host (config
//! messages, run events, window errors) and the built-in plugins (the checks' verdicts), so
//! all of them print a value and a type the same way.

#[cfg(feature = "arrow")]
mod arrow_type;
#[cfg(feature = "json")]
mod json;

#[cfg(feature = "arrow")]
pub use arrow_type::pyarrow_type_name;
#[cfg(feature = "json")]
pub use json::{py_int, py_str_json, py_truthy, py_type_name, repr_json, repr_number};

/// Python `repr()` of a float: the shortest text that reads back to the same value, positional
/// for exponents from -4 to 15 (`2.0`, `0.0001`), scientific otherwise (`1e-05`, `1e+16`).
pub fn py_float(value: f64) -> String {
    if value.is_nan() {
        return "nan".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    // `{:e}` gives the shortest round-trip digits, e.g. "1.2345e-5" or "-2e0".
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exponent) {
        if exponent >= 0 {
            let point = exponent as usize + 1;
            let (int_part, frac_part) = if digits.len() > point {
                (digits[..point].to_owned(), digits[point..].to_owned())
            } else {
                (format!("{digits:0<point$}"), String::new())
            };
            let frac_part = if frac_part.is_empty() {
                "0".to_owned()
            } else {
                frac_part
            };
            format!("{sign}{int_part}.{frac_part}")
        } else {
            let zeros = "0".repeat((-exponent - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        }
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{first}{fraction}e{exp_sign}{:02}", exponent.abs())
    }
}

/// Python `repr()` of a list of strings: `['a', 'b']`.
pub fn repr_list<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<String> = items.iter().map(|item| repr_str(item.as_ref())).collect();
    format!("[{}]", items.join(", "))
}

/// Python `repr()` of a string: single quotes unless the text holds a `'` and no `"`; control
/// characters escaped as `\n`, `\t`, `\r` or `\xNN`.
pub fn repr_str(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for ch in text.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || (0x7f..=0xa0).contains(&(c as u32)) || c == '\u{ad}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            '\u{2028}' | '\u{2029}' | '\u{feff}' => out.push_str(&format!("\\u{:04x}", ch as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Appends `text` as Python's `json` module writes a string: `"`, `\\`, `\n`, `\r`, `\t`,
/// `\b`, `\f` escaped, other control characters as `\u00XX`, and with `ensure_ascii` every
/// non-ASCII character as `\uXXXX` (UTF-16 units).
pub fn push_json_string(out: &mut String, text: &str, ensure_ascii: bool) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if ensure_ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_of_strings() {
        assert_eq!(repr_list(&["a", "it's"]), r#"['a', "it's"]"#);
        assert_eq!(repr_list::<&str>(&[]), "[]");
    }

    #[test]
    fn floats_read_like_python() {
        let cases = [
            (2.0, "2.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (2.5, "2.5"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e100, "1e+100"),
            (1e16, "1e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (123.456, "123.456"),
            (-1.5e-7, "-1.5e-07"),
            (0.1, "0.1"),
            (100.0, "100.0"),
        ];
        for (value, expected) in cases {
            assert_eq!(py_float(value), expected, "{value}");
        }
    }

    #[test]
    fn strings_read_like_python() {
        assert_eq!(repr_str("NYC"), "'NYC'");
        assert_eq!(repr_str("it's"), "\"it's\"");
        assert_eq!(repr_str("a\nb"), "'a\\nb'");
    }
}
