//! Python's `repr()` of a config value, as the Python tool's messages print it: `'text'`, `5`,
//! `0.5`, `True`, `None`, `['a', 1]`, `{'k': 'v'}` (object keys in document order).

pub use ldp_pyrepr::{repr_json as repr, repr_number as number_text};

/// Python `repr()` of a list of names: `['a', 'b']`.
pub fn repr_names<S: AsRef<str>>(names: &[S]) -> String {
    ldp_pyrepr::repr_list(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_like_python() {
        assert_eq!(repr(&json!("it's")), "\"it's\"");
        assert_eq!(
            repr(&json!(["a", 1, 2.0, 1e-5, null, true])),
            "['a', 1, 2.0, 1e-05, None, True]"
        );
        assert_eq!(repr(&json!({"k": [false]})), "{'k': [False]}");
        assert_eq!(repr_names(&["x", "y"]), "['x', 'y']");
    }
}
