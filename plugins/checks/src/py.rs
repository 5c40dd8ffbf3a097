//! Values as the Python tool prints them: Python's `repr`/`str` of the scalars a check reports
//! (`1017`, `32.28`, `'NYC'`, `2024-01-07T23:52:09+00:00`, `{'a': 1, 'b': 'x'}`), and their JSON
//! form in metrics (the Python tool's `to_jsonable`).

pub use ldp_pyrepr::{py_float as float_repr, repr_str as str_repr};
use serde_json::Value as Json;

/// A scalar as the Python tool's checks see it (`as_py()` of an Arrow value).
#[derive(Clone, Debug, PartialEq)]
pub enum Py {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// A Python `int` (any Arrow integer).
    Int(i128),
    /// A Python `float`.
    Float(f64),
    /// A Python `str`.
    Str(String),
    /// A `datetime`, already rendered with `isoformat()` (`2024-01-01T00:54:38`,
    /// `2024-01-07T23:52:09+00:00`).
    DateTime(String),
    /// A `date`, rendered with `isoformat()` (`2024-01-01`).
    Date(String),
    /// A `dict` with string keys, in insertion order (composite keys of `unique`).
    Dict(Vec<(String, Py)>),
    /// A `list`.
    List(Vec<Py>),
    /// A value of another Python type (`bytes`, `Decimal`, `time`) whose JSON form
    /// (`to_jsonable`, and so its `str` in messages) is this text.
    Other(String),
}

impl Py {
    /// Python's `repr()`.
    pub fn repr(&self) -> String {
        match self {
            Py::None => "None".to_owned(),
            Py::Bool(true) => "True".to_owned(),
            Py::Bool(false) => "False".to_owned(),
            Py::Int(i) => i.to_string(),
            Py::Float(f) => float_repr(*f),
            Py::Str(s) => str_repr(s),
            Py::DateTime(iso) => format!("datetime.datetime({iso})"),
            Py::Date(iso) => format!("datetime.date({iso})"),
            Py::Other(text) => text.clone(),
            Py::Dict(items) => {
                let inner: Vec<String> = items
                    .iter()
                    .map(|(k, v)| format!("{}: {}", str_repr(k), v.repr()))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
            Py::List(items) => {
                let inner: Vec<String> = items.iter().map(Py::repr).collect();
                format!("[{}]", inner.join(", "))
            }
        }
    }

    /// The Python tool's `to_jsonable`: datetimes and dates as ISO strings, non-finite floats as
    /// `"nan"`/`"inf"`/`"-inf"`.
    pub fn jsonable(&self) -> Py {
        match self {
            Py::Float(f) if !f.is_finite() => Py::Str(float_repr(*f)),
            Py::DateTime(iso) | Py::Date(iso) | Py::Other(iso) => Py::Str(iso.clone()),
            Py::Dict(items) => Py::Dict(
                items
                    .iter()
                    .map(|(k, v)| (k.clone(), v.jsonable()))
                    .collect(),
            ),
            Py::List(items) => Py::List(items.iter().map(Py::jsonable).collect()),
            other => other.clone(),
        }
    }

    /// The JSON of [`Py::jsonable`], for metrics.
    pub fn to_json(&self) -> Json {
        match self.jsonable() {
            Py::None => Json::Null,
            Py::Bool(b) => Json::Bool(b),
            Py::Int(i) => i64::try_from(i)
                .map(Json::from)
                .or_else(|_| u64::try_from(i).map(Json::from))
                .unwrap_or_else(|_| Json::String(i.to_string())),
            Py::Float(f) => serde_json::Number::from_f64(f)
                .map(Json::Number)
                .unwrap_or(Json::Null),
            Py::Str(s) | Py::DateTime(s) | Py::Date(s) | Py::Other(s) => Json::String(s),
            Py::Dict(items) => Json::Object(
                items
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
            Py::List(items) => Json::Array(items.iter().map(Py::to_json).collect()),
        }
    }
}

/// A JSON value of a config as the Python value `json.loads` gives (`int`, `float`, `str`,
/// `list`, `dict`...).
pub fn from_json(value: &Json) -> Py {
    match value {
        Json::Null => Py::None,
        Json::Bool(b) => Py::Bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Py::Int(i128::from(i)),
            (None, Some(u)) => Py::Int(i128::from(u)),
            _ => Py::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => Py::Str(s.clone()),
        Json::Array(items) => Py::List(items.iter().map(from_json).collect()),
        Json::Object(map) => Py::Dict(map.iter().map(|(k, v)| (k.clone(), from_json(v))).collect()),
    }
}

/// Python's `repr()` of a config's JSON value (`'x'`, `5`, `0.5`, `None`, `['a']`).
pub fn json_repr(value: &Json) -> String {
    from_json(value).repr()
}

/// The Python tool's `_fmt_value`: `repr` for strings, else `str(to_jsonable(value))`.
pub fn fmt_value(value: &Py) -> String {
    match value {
        Py::Str(_) => value.repr(),
        other => match other.jsonable() {
            // str() of a str is the text itself (a datetime's ISO form, "nan").
            Py::Str(s) => s,
            jsonable => jsonable.repr(),
        },
    }
}

/// The Python tool's `_fmt_list`: `[a, b, ... (+N more)]`, cut at `limit` values (10 by default).
pub fn fmt_list(values: &[Py], limit: usize) -> String {
    let shown: Vec<String> = values.iter().take(limit).map(fmt_value).collect();
    let more = if values.len() > limit {
        format!(", ... (+{} more)", values.len() - limit)
    } else {
        String::new()
    };
    format!("[{}{more}]", shown.join(", "))
}

/// [`fmt_list`] of names (`['a', 'b']`).
pub fn fmt_names(names: &[String], limit: usize) -> String {
    let values: Vec<Py> = names.iter().cloned().map(Py::Str).collect();
    fmt_list(&values, limit)
}

/// The Python tool's `_rows`: `1 row`, `N rows`.
pub fn rows(count: u64) -> String {
    if count == 1 {
        "1 row".to_owned()
    } else {
        format!("{count} rows")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python() {
        for (f, text) in [
            (208800000.0, "208800000.0"),
            (32.28, "32.28"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (-12.5, "-12.5"),
            (123456789012345.6, "123456789012345.6"),
            (f64::NAN, "nan"),
            (0.1 + 0.2, "0.30000000000000004"),
        ] {
            assert_eq!(float_repr(f), text);
        }
    }

    #[test]
    fn values_print_as_python() {
        assert_eq!(fmt_value(&Py::Str("NYC".into())), "'NYC'");
        assert_eq!(fmt_value(&Py::Str("it's".into())), "\"it's\"");
        assert_eq!(fmt_value(&Py::Int(1017)), "1017");
        assert_eq!(fmt_value(&Py::Float(f64::NAN)), "nan");
        assert_eq!(
            fmt_value(&Py::DateTime("2024-01-01T00:00:00".into())),
            "2024-01-01T00:00:00"
        );
        assert_eq!(
            fmt_value(&Py::Dict(vec![
                ("a".into(), Py::Int(1)),
                ("b".into(), Py::Str("x".into()))
            ])),
            "{'a': 1, 'b': 'x'}"
        );
        let many: Vec<Py> = (0..12).map(Py::Int).collect();
        assert_eq!(
            fmt_list(&many, 10),
            "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ... (+2 more)]"
        );
        assert_eq!(rows(1), "1 row");
    }
}
