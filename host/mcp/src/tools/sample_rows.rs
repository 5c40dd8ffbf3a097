//! `sample_rows`: the first rows of a table.

use serde_json::{Map, Value};

use super::{Context, Noted, count, no_more_than, string};
use crate::error::ToolError;

pub(super) fn call(
    context: &Context,
    arguments: &Map<String, Value>,
    noted: &mut Noted,
) -> Result<Value, ToolError> {
    no_more_than(arguments, &["table", "n"])?;
    let served = context.lake.resolve(string(arguments, "table")?)?;
    noted.table = Some(served.identifier.clone());
    let n = count(arguments, "n", 10, context.max_rows)?;
    let sql = format!(
        "SELECT * FROM \"{}\".\"{}\" LIMIT {n}",
        served.target.namespace, served.target.name
    );
    let mut out = super::query::run(context, &sql, n, noted)?;
    if let Some(map) = out.as_object_mut() {
        let mut with_table = Map::new();
        with_table.insert("table".into(), Value::from(served.identifier.clone()));
        with_table.extend(std::mem::take(map));
        *map = with_table;
    }
    Ok(out)
}
