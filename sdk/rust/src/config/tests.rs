use super::*;
use crate::ErrorKind;

const KEYS: &[&str] = &["path", "size", "name", "list", "items", "ratio"];

fn object(text: &str) -> ConfigObject {
    ConfigObject::parse(text, KEYS).expect("a valid config")
}

fn message(result: Result<impl std::fmt::Debug, PluginError>) -> String {
    let e = result.expect_err("an invalid value");
    assert_eq!(e.kind, ErrorKind::Config, "{e}");
    e.message
}

#[test]
fn the_text_must_be_a_json_object_of_known_keys() {
    assert!(message(ConfigObject::parse("{", KEYS)).starts_with("config is not valid JSON: "));
    assert_eq!(
        message(ConfigObject::parse("[1]", KEYS)),
        "config must be a JSON object, got an array"
    );
    assert_eq!(
        message(ConfigObject::parse(r#""x""#, KEYS)),
        "config must be a JSON object, got a string"
    );
    assert_eq!(
        message(ConfigObject::parse(
            r#"{"path":"/a","mode":1,"zz":2}"#,
            &["path", "size"]
        )),
        "config.mode: unknown key; the keys are path, size"
    );
    assert_eq!(
        message(ConfigObject::parse(r#"{"mode":null}"#, &["path"])),
        "config.mode: unknown key; the only key is path"
    );
    assert_eq!(
        message(ConfigObject::parse(r#"{"mode":1}"#, &[])),
        "config.mode: unknown key; the config takes no key"
    );
    assert_eq!(
        ConfigObject::parse("{}", &[]).expect("valid").map().len(),
        0
    );
}

#[test]
fn null_counts_as_absent() {
    let c = object(r#"{"path":null,"size":null,"list":null,"ratio":null}"#);
    assert_eq!(c.get("path"), None);
    assert_eq!(c.string("path"), Ok(None));
    assert_eq!(c.non_empty_string("path"), Ok(None));
    assert_eq!(c.u64_in("size", 1..), Ok(None));
    assert_eq!(c.usize_in("size", 1..=3), Ok(None));
    assert_eq!(c.number("ratio"), Ok(None));
    assert_eq!(c.string_list("list"), Ok(None));
    assert_eq!(
        message(c.required("path", "give the file")),
        "config.path: required; give the file"
    );
    assert_eq!(c.map().len(), 4);
}

#[test]
fn strings() {
    let c = object(r#"{"path":"/a","name":" ","size":3}"#);
    assert_eq!(c.string("path"), Ok(Some("/a")));
    assert_eq!(c.string("name"), Ok(Some(" ")));
    assert_eq!(c.required_string("path", "hint"), Ok("/a"));
    assert_eq!(
        message(c.string("size")),
        "config.size: expected a string, got 3"
    );
    assert_eq!(
        message(c.required_string("list", "give a list")),
        "config.list: required; give a list"
    );
    assert_eq!(c.non_empty_string("path"), Ok(Some("/a")));
    assert_eq!(
        message(c.non_empty_string("name")),
        r#"config.name: expected a non-empty string, got " ""#
    );
    assert_eq!(
        message(c.required_non_empty_string("size", "hint")),
        "config.size: expected a non-empty string, got 3"
    );
}

#[test]
fn absolute_file_paths() {
    let path = |text: &str| {
        object(text)
            .absolute_file_path("path", "CSV file to write")
            .map(str::to_owned)
    };
    assert_eq!(
        path(r#"{"path":"/s/out.csv"}"#),
        Ok("/s/out.csv".to_owned())
    );
    assert_eq!(
        message(path(r#"{"path":"out.csv"}"#)),
        r#"config.path: "out.csv" is not the absolute path of a file; give the absolute path of the CSV file to write"#
    );
    assert!(message(path(r#"{"path":"/s/"}"#)).contains("is not the absolute path of a file"));
    assert_eq!(
        message(path("{}")),
        "config.path: required; give the absolute path of the CSV file to write"
    );
    assert_eq!(
        message(path(r#"{"path":""}"#)),
        r#"config.path: expected a non-empty string, got """#
    );
}

#[test]
fn integers_in_a_range() {
    let c = object(r#"{"size":0,"name":1.5,"path":-1,"list":"3","items":5}"#);
    assert_eq!(c.u64_in("size", 0..), Ok(Some(0)));
    assert_eq!(
        message(c.u64_in("size", 1..)),
        "config.size: expected an integer >= 1, got 0"
    );
    assert_eq!(
        message(c.u64_in("name", 1..=9)),
        "config.name: expected an integer from 1 to 9, got 1.5"
    );
    assert!(message(c.u64_in("path", ..)).starts_with("config.path: expected an integer >= 0"));
    assert!(message(c.u64_in("list", ..)).ends_with(r#"got "3""#));
    assert_eq!(c.usize_in("items", 1..=5), Ok(Some(5)));
    assert_eq!(
        message(c.usize_in("items", 1..5)),
        "config.items: expected an integer from 1 to 4, got 5"
    );
    let big = object(r#"{"size":18446744073709551615}"#);
    assert_eq!(big.usize_in("size", 1..), Ok(Some(usize::MAX)));
}

#[test]
fn numbers_lists_and_arrays() {
    let c = object(r#"{"ratio":0.5,"size":"1","list":["a","b"],"items":["a",2],"name":"x"}"#);
    assert_eq!(c.number("ratio"), Ok(Some(0.5)));
    assert_eq!(
        message(c.number("size")),
        r#"config.size: expected a number, got "1""#
    );
    assert_eq!(
        c.string_list("list"),
        Ok(Some(vec!["a".to_owned(), "b".to_owned()]))
    );
    assert_eq!(
        message(c.string_list("items")),
        "config.items[1]: expected a string, got 2"
    );
    assert_eq!(
        message(c.string_list("name")),
        r#"config.name: expected an array of strings, got "x""#
    );
    assert_eq!(c.required_array("list", "hint").map(<[Value]>::len), Ok(2));
    assert_eq!(
        message(c.required_array("name", "hint")),
        r#"config.name: expected an array, got "x""#
    );
    assert_eq!(
        message(c.required_array("path", "give the items")),
        "config.path: required; give the items"
    );
}

#[test]
fn plugin_rules_read_the_same_way() {
    assert_eq!(
        error("quote", "the quote is also the delimiter").message,
        "config.quote: the quote is also the delimiter"
    );
    assert_eq!(
        expected("columns", "an object", &Value::Bool(true)).message,
        "config.columns: expected an object, got true"
    );
    assert_eq!(kind_of(&Value::Null), "null");
}
