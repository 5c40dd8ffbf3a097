//! Python `repr()` and `type(x).__name__` of JSON values, for messages that must read exactly
//! like the Python tool's (strings in single quotes, lists as `['a', 'b']`, `None`, `True`).

pub use ldp_pyrepr::{
    py_float, py_str_json as py_str, py_type_name as type_name, repr_json as repr, repr_list,
    repr_str,
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_like_python() {
        assert_eq!(repr(&json!("abc")), "'abc'");
        assert_eq!(repr(&json!("it's")), "\"it's\"");
        assert_eq!(repr(&json!("a'b\"c")), "'a\\'b\"c'");
        assert_eq!(repr(&json!("a\nb\\")), "'a\\nb\\\\'");
        assert_eq!(
            repr(&json!(["a", 1, 2.0, null, true])),
            "['a', 1, 2.0, None, True]"
        );
        assert_eq!(
            repr(&json!({"k": "v", "n": [false]})),
            "{'k': 'v', 'n': [False]}"
        );
        assert_eq!(repr(&json!([])), "[]");
        assert_eq!(repr_list(&["x", "y"]), "['x', 'y']");
        assert_eq!(type_name(&json!(1)), "int");
        assert_eq!(type_name(&json!(1.0)), "float");
        assert_eq!(type_name(&json!(null)), "NoneType");
        assert_eq!(py_str(&json!("x")), "x");
    }
}
