//! The parameters of each check, typed, and how each is read from a check item (the value
//! checks of the Python tool's check constructors, in their order).

use serde_json::Value;

use crate::iso::{self, DateTime};
use crate::read::{
    Params, column, columns, count, error, flag, number, optional_columns, param, required, unit,
};
use crate::repr::repr;
use crate::{ArrowType, NumberParam, ParamError, TimeUnit};

/// `row_count`: the row count is within inclusive bounds, or equals a number or the source's.
#[derive(Clone, Debug, PartialEq)]
pub struct RowCount {
    pub min: Option<u64>,
    pub max: Option<u64>,
    pub equals: Option<RowCountEquals>,
}

/// `row_count`'s `equals`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowCountEquals {
    /// An exact row count.
    Rows(u64),
    /// `"source"`: the run's source row count.
    Source,
}

/// `not_null`: no nulls in these columns.
#[derive(Clone, Debug, PartialEq)]
pub struct NotNull {
    pub columns: Vec<String>,
}

/// `unique`: each combination of these columns appears once.
#[derive(Clone, Debug, PartialEq)]
pub struct Unique {
    pub columns: Vec<String>,
}

/// `accepted_values`: every non-null value is one of `values` (as written, of one JSON type).
#[derive(Clone, Debug, PartialEq)]
pub struct AcceptedValues {
    pub column: String,
    pub values: Vec<Value>,
}

/// `range`: every non-null value is within inclusive bounds, each a number or a string (a
/// date, a datetime, or text cast to the column's type), as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    pub column: String,
    pub min: Option<Value>,
    pub max: Option<Value>,
}

/// `freshness`: the newest value is at most `max_age_hours` old, at `now` (else the run's).
#[derive(Clone, Debug, PartialEq)]
pub struct Freshness {
    pub column: String,
    pub max_age_hours: NumberParam,
    pub now: Option<DateTime>,
}

/// `schema`: the table has these columns, each of the type given (`None`: any type).
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    pub columns: Vec<(String, Option<ArrowType>)>,
}

/// `monotonic`: non-decreasing (strict: increasing) per group, in table or `order_by` order.
#[derive(Clone, Debug, PartialEq)]
pub struct Monotonic {
    pub column: String,
    pub group_by: Vec<String>,
    pub strict: bool,
    pub order_by: Option<String>,
}

/// `max_skew`: `|column_a - column_b| <= max_ms` where both are present.
#[derive(Clone, Debug, PartialEq)]
pub struct MaxSkew {
    pub column_a: String,
    pub column_b: String,
    pub max_ms: NumberParam,
    pub unit: TimeUnit,
}

/// `rate_below`: the rate of true values is at most `max_rate` (0 to 1), per group.
#[derive(Clone, Debug, PartialEq)]
pub struct RateBelow {
    pub predicate_column: String,
    pub max_rate: NumberParam,
    pub group_by: Vec<String>,
}

/// `max_gap`: consecutive sorted values are at most `max_ms` apart (above 0), per group.
#[derive(Clone, Debug, PartialEq)]
pub struct MaxGap {
    pub column: String,
    pub max_ms: NumberParam,
    pub group_by: Vec<String>,
    pub unit: TimeUnit,
}

/// One check and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckParams {
    RowCount(RowCount),
    NotNull(NotNull),
    Unique(Unique),
    AcceptedValues(AcceptedValues),
    Range(Range),
    Freshness(Freshness),
    Schema(Schema),
    Monotonic(Monotonic),
    MaxSkew(MaxSkew),
    RateBelow(RateBelow),
    MaxGap(MaxGap),
}

impl CheckParams {
    /// Reads the parameters of check `kind` (one of [`crate::CHECK_NAMES`]) from an item whose
    /// keys are known to be allowed and present.
    pub(crate) fn parse(kind: &str, params: &Params) -> Result<CheckParams, ParamError> {
        let required = |key: &str| required(params, key);
        Ok(match kind {
            "row_count" => CheckParams::RowCount(row_count(params)?),
            "not_null" => CheckParams::NotNull(NotNull {
                columns: columns("columns", required("columns"))?,
            }),
            "unique" => CheckParams::Unique(Unique {
                columns: columns("columns", required("columns"))?,
            }),
            "accepted_values" => CheckParams::AcceptedValues(AcceptedValues {
                column: column("column", required("column"))?,
                values: accepted_values(required("values"))?,
            }),
            "range" => CheckParams::Range(range(params)?),
            "freshness" => CheckParams::Freshness(Freshness {
                column: column("column", required("column"))?,
                max_age_hours: number("max_age_hours", required("max_age_hours"), true)?,
                now: now(params)?,
            }),
            "schema" => CheckParams::Schema(Schema {
                columns: schema_columns(required("columns"))?,
            }),
            "monotonic" => CheckParams::Monotonic(Monotonic {
                column: column("column", required("column"))?,
                group_by: optional_columns(params, "group_by")?,
                strict: flag(params, "strict")?,
                order_by: param(params, "order_by")
                    .map(|value| column("order_by", value))
                    .transpose()?,
            }),
            "max_skew" => CheckParams::MaxSkew(MaxSkew {
                column_a: column("column_a", required("column_a"))?,
                column_b: column("column_b", required("column_b"))?,
                max_ms: number("max_ms", required("max_ms"), false)?,
                unit: unit(params)?,
            }),
            "rate_below" => CheckParams::RateBelow(RateBelow {
                predicate_column: column("predicate_column", required("predicate_column"))?,
                max_rate: max_rate(required("max_rate"))?,
                group_by: optional_columns(params, "group_by")?,
            }),
            "max_gap" => CheckParams::MaxGap(MaxGap {
                column: column("column", required("column"))?,
                max_ms: number("max_ms", required("max_ms"), true)?,
                group_by: optional_columns(params, "group_by")?,
                unit: unit(params)?,
            }),
            other => {
                return Err(error(
                    "check",
                    format!("unknown check {}", repr(&Value::from(other))),
                ));
            }
        })
    }

    /// The check's config name (`row_count`, `not_null`...).
    pub fn kind(&self) -> &'static str {
        match self {
            CheckParams::RowCount(_) => "row_count",
            CheckParams::NotNull(_) => "not_null",
            CheckParams::Unique(_) => "unique",
            CheckParams::AcceptedValues(_) => "accepted_values",
            CheckParams::Range(_) => "range",
            CheckParams::Freshness(_) => "freshness",
            CheckParams::Schema(_) => "schema",
            CheckParams::Monotonic(_) => "monotonic",
            CheckParams::MaxSkew(_) => "max_skew",
            CheckParams::RateBelow(_) => "rate_below",
            CheckParams::MaxGap(_) => "max_gap",
        }
    }

    /// The name results use when the item gives none: `row_count`, `not_null(a, b)`,
    /// `range(fare)`, `monotonic(ts by g)`, `max_skew(a, b)`.
    pub fn default_name(&self) -> String {
        let kind = self.kind();
        let by = |column: &str, group_by: &[String]| {
            if group_by.is_empty() {
                format!("{kind}({column})")
            } else {
                format!("{kind}({column} by {})", group_by.join(", "))
            }
        };
        match self {
            CheckParams::RowCount(_) | CheckParams::Schema(_) => kind.to_owned(),
            CheckParams::NotNull(NotNull { columns }) | CheckParams::Unique(Unique { columns }) => {
                format!("{kind}({})", columns.join(", "))
            }
            CheckParams::AcceptedValues(AcceptedValues { column, .. })
            | CheckParams::Range(Range { column, .. })
            | CheckParams::Freshness(Freshness { column, .. }) => format!("{kind}({column})"),
            CheckParams::Monotonic(p) => by(&p.column, &p.group_by),
            CheckParams::MaxGap(p) => by(&p.column, &p.group_by),
            CheckParams::RateBelow(p) => by(&p.predicate_column, &p.group_by),
            CheckParams::MaxSkew(p) => format!("{kind}({}, {})", p.column_a, p.column_b),
        }
    }

    /// The columns the check reads, de-duplicated in order: when one is missing from the table
    /// (or appears twice) the check fails without looking at the data. `schema` reports its
    /// own missing columns, `row_count` reads none.
    pub fn required_columns(&self) -> Vec<String> {
        let listed: Vec<&String> = match self {
            CheckParams::RowCount(_) | CheckParams::Schema(_) => Vec::new(),
            CheckParams::NotNull(NotNull { columns }) | CheckParams::Unique(Unique { columns }) => {
                columns.iter().collect()
            }
            CheckParams::AcceptedValues(AcceptedValues { column, .. })
            | CheckParams::Range(Range { column, .. })
            | CheckParams::Freshness(Freshness { column, .. }) => vec![column],
            CheckParams::Monotonic(p) => std::iter::once(&p.column)
                .chain(&p.group_by)
                .chain(&p.order_by)
                .collect(),
            CheckParams::MaxSkew(p) => vec![&p.column_a, &p.column_b],
            CheckParams::RateBelow(p) => std::iter::once(&p.predicate_column)
                .chain(&p.group_by)
                .collect(),
            CheckParams::MaxGap(p) => std::iter::once(&p.column).chain(&p.group_by).collect(),
        };
        let mut unique: Vec<String> = Vec::with_capacity(listed.len());
        for column in listed {
            if !unique.contains(column) {
                unique.push(column.clone());
            }
        }
        unique
    }
}

fn row_count(params: &Params) -> Result<RowCount, ParamError> {
    let (min, max, equals) = (
        param(params, "min"),
        param(params, "max"),
        param(params, "equals"),
    );
    if min.is_none() && max.is_none() && equals.is_none() {
        return Err(error(
            "min",
            "row_count needs at least one of min, max or equals",
        ));
    }
    let min = min.map(|value| count("min", value)).transpose()?;
    let max = max.map(|value| count("max", value)).transpose()?;
    if let (Some(low), Some(high)) = (min, max)
        && low > high
    {
        return Err(error(
            "min",
            format!("min ({low}) is greater than max ({high})"),
        ));
    }
    let equals = match equals {
        None => None,
        Some(Value::String(text)) if text == "source" => Some(RowCountEquals::Source),
        Some(value @ Value::String(_)) => {
            return Err(error(
                "equals",
                format!(
                    "equals must be a non-negative integer or 'source', got {}",
                    repr(value)
                ),
            ));
        }
        Some(value) => Some(RowCountEquals::Rows(count("equals", value)?)),
    };
    Ok(RowCount { min, max, equals })
}

/// A non-empty list whose non-null values are all of one JSON type (numbers being one).
fn accepted_values(value: &Value) -> Result<Vec<Value>, ParamError> {
    let Some(values) = value.as_array() else {
        return Err(error(
            "values",
            format!(
                "values must be a list of accepted values, e.g. ['NYC', 'BKK'], got {}",
                repr(value)
            ),
        ));
    };
    if values.is_empty() {
        return Err(error(
            "values",
            "values must list at least one accepted value",
        ));
    }
    let family = |value: &Value| match value {
        Value::Null => None,
        Value::Bool(_) => Some(0),
        Value::Number(_) => Some(1),
        Value::String(_) => Some(2),
        Value::Array(_) => Some(3),
        Value::Object(_) => Some(4),
    };
    let mut families = values.iter().filter_map(family);
    if let Some(first) = families.next()
        && families.any(|other| other != first)
    {
        return Err(error(
            "values",
            format!("values must all have the same type, got {}", repr(value)),
        ));
    }
    Ok(values.clone())
}

/// Bounds are numbers or strings (a bool, a list or an object is refused), `min` not above
/// `max` when both are numbers or both strings.
fn range(params: &Params) -> Result<Range, ParamError> {
    let column = column("column", required(params, "column"))?;
    let (min, max) = (param(params, "min"), param(params, "max"));
    if min.is_none() && max.is_none() {
        return Err(error("min", "range needs at least one of min or max"));
    }
    for (key, bound) in [("min", min), ("max", max)] {
        if let Some(bound @ (Value::Bool(_) | Value::Array(_) | Value::Object(_))) = bound {
            return Err(error(
                key,
                format!(
                    "{key} must be a number, a date or a string, got {}",
                    repr(bound)
                ),
            ));
        }
    }
    if let (Some(low), Some(high)) = (min, max) {
        let inverted = match (low, high) {
            (Value::Number(a), Value::Number(b)) => {
                a.as_f64().zip(b.as_f64()).is_some_and(|(a, b)| a > b)
            }
            (Value::String(a), Value::String(b)) => a > b,
            _ => false,
        };
        if inverted {
            return Err(error(
                "min",
                format!("min ({}) is greater than max ({})", repr(low), repr(high)),
            ));
        }
    }
    Ok(Range {
        column,
        min: min.cloned(),
        max: max.cloned(),
    })
}

/// `now`: an ISO-8601 datetime as Python's `datetime.fromisoformat` reads it.
fn now(params: &Params) -> Result<Option<DateTime>, ParamError> {
    match param(params, "now") {
        None => Ok(None),
        Some(value @ Value::String(text)) => iso::parse_datetime(text).map(Some).map_err(|_| {
            error(
                "now",
                format!("now must be an ISO-8601 datetime, got {}", repr(value)),
            )
        }),
        Some(value) => Err(error(
            "now",
            format!(
                "now must be a datetime, an ISO-8601 string or None, got {}",
                repr(value)
            ),
        )),
    }
}

/// A rate: a number from 0 to 1.
fn max_rate(value: &Value) -> Result<NumberParam, ParamError> {
    let rate = number("max_rate", value, false)?;
    if rate.value > 1.0 {
        return Err(error(
            "max_rate",
            format!("max_rate must be between 0 and 1, got {}", repr(value)),
        ));
    }
    Ok(rate)
}

/// Names (a name or a list), or an object of names to type strings.
fn schema_columns(value: &Value) -> Result<Vec<(String, Option<ArrowType>)>, ParamError> {
    let Some(map) = value.as_object() else {
        let names = columns("columns", value)?;
        return Ok(names.into_iter().map(|name| (name, None)).collect());
    };
    if map.is_empty() {
        return Err(error("columns", "columns must name at least one column"));
    }
    let mut typed = Vec::with_capacity(map.len());
    for (name, spec) in map {
        let name = column("columns", &Value::from(name.as_str()))?;
        let Some(text) = spec.as_str() else {
            return Err(error(
                "columns",
                format!(
                    "a column type must be a pyarrow type string such as 'int64', got {}",
                    repr(spec)
                ),
            ));
        };
        let data_type = ArrowType::parse(text).map_err(|message| error("columns", message))?;
        typed.push((name, Some(data_type)));
    }
    Ok(typed)
}
