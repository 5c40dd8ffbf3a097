//! Type inference, as `pyarrow.json.read_json` does it, record by record:
//!
//! - integers are `int64`; a number with a fraction or an exponent, or an integer beyond
//!   `int64`, is `double`, and a column of both is `double`;
//! - `true`/`false` are `bool`; strings are `string`, except that a column whose strings are
//!   all dates (`YYYY-MM-DD`) is `date32` and one whose strings are all date-times
//!   (`YYYY-MM-DD[T ]HH:MM:SS[.f]`, dates allowed too) is `timestamp[us]`, or
//!   `timestamp[us, tz=UTC]` when every one carries `Z` or an offset (a mix of zoned and
//!   unzoned values stays `string`), as the CSV source types the same text;
//! - an object is a `struct` of the keys seen in any record, in the order first seen; a key
//!   missing from a record is null there;
//! - an array is a `list` of its elements' type;
//! - a column that is only ever null (or an empty array's element) is `string`.
//!
//! A key whose values are of two scalar kinds (a number and a string, a boolean and a number)
//! is a `string` column, as DuckDB reads it, with a [`Widened`] note naming the key and the
//! first record of each kind; under `strict_types` that is an error instead, as in pyarrow.
//! An object or an array mixed with anything else is an error either way, at the value's line
//! and column; so is a key repeated in one object.

use arrow_array::types::Date32Type;
use arrow_cast::parse::{Parser, string_to_datetime};
use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// The zone of columns whose values all carry a zone (they are converted to UTC).
pub const UTC: &str = "UTC";

/// What the strings of a column looked like.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Texts {
    dates: bool,
    naive: bool,
    zoned: bool,
    other: bool,
}

impl Texts {
    /// Adds a value; whether that changed what the column holds.
    fn add(&mut self, text: &str) -> bool {
        if self.other {
            // A string column whatever comes next.
            return false;
        }
        let flag = match classify(text) {
            Kind::Date => &mut self.dates,
            Kind::Naive => &mut self.naive,
            Kind::Zoned => &mut self.zoned,
            Kind::Other => &mut self.other,
        };
        !std::mem::replace(flag, true)
    }

    /// The column's type: what arrow-json decodes, and what the stream announces.
    fn types(self) -> (DataType, DataType) {
        let micros = DataType::Timestamp(TimeUnit::Microsecond, None);
        match self {
            Texts { other: true, .. } => (DataType::Utf8, DataType::Utf8),
            Texts {
                zoned: true,
                naive: false,
                dates: false,
                ..
            } => (
                micros,
                DataType::Timestamp(TimeUnit::Microsecond, Some(UTC.into())),
            ),
            Texts { zoned: true, .. } => (DataType::Utf8, DataType::Utf8),
            Texts { naive: true, .. } => (micros.clone(), micros),
            Texts { dates: true, .. } => (DataType::Date32, DataType::Date32),
            _ => (DataType::Utf8, DataType::Utf8),
        }
    }
}

enum Kind {
    Date,
    Naive,
    Zoned,
    Other,
}

/// `YYYY-MM-DD`, `YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}][Z|±HH[:MM]]` (valid dates and times only).
fn classify(text: &str) -> Kind {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() < 10 || !digits(0..4) || b[4] != b'-' || !digits(5..7) || b[7] != b'-' {
        return Kind::Other;
    }
    if !digits(8..10) {
        return Kind::Other;
    }
    if b.len() == 10 {
        return match Date32Type::parse(text) {
            Some(_) => Kind::Date,
            None => Kind::Other,
        };
    }
    if b.len() < 19
        || !(b[10] == b'T' || b[10] == b' ')
        || !digits(11..13)
        || b[13] != b':'
        || !digits(14..16)
        || b[16] != b':'
        || !digits(17..19)
    {
        return Kind::Other;
    }
    let mut at = 19;
    if b.get(at) == Some(&b'.') {
        let n = b[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if !(1..=9).contains(&n) {
            return Kind::Other;
        }
        at += 1 + n;
    }
    let zone = &b[at..];
    let zoned = match zone {
        [] => false,
        [b'Z'] => true,
        [b'+' | b'-', h1, h2] => h1.is_ascii_digit() && h2.is_ascii_digit(),
        [b'+' | b'-', h1, h2, m1, m2] | [b'+' | b'-', h1, h2, b':', m1, m2] => {
            [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit())
        }
        _ => return Kind::Other,
    };
    if string_to_datetime(&chrono_utc(), text).is_err() {
        return Kind::Other;
    }
    if zoned { Kind::Zoned } else { Kind::Naive }
}

fn chrono_utc() -> arrow_array::timezone::Tz {
    "+00:00"
        .parse()
        .unwrap_or_else(|_| unreachable!("+00:00 is a valid offset"))
}

/// The type of a column, as far as the records seen tell.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Ty {
    /// Only nulls so far.
    #[default]
    Null,
    /// Booleans.
    Bool,
    /// Integers.
    Int,
    /// Numbers, some with a fraction.
    Float,
    /// Strings.
    Text(Texts),
    /// Arrays of the element type.
    List(Box<Ty>),
    /// Objects with these keys.
    Object(Keys),
    /// Scalars of more than one kind, read as strings.
    Mixed,
}

/// The keys of an object column, in the order first seen, and their types.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Keys {
    names: Vec<String>,
    types: Vec<Ty>,
    index: HashMap<String, usize>,
    /// For each key, the record where its first value that is not null was seen.
    first: Vec<usize>,
    /// For each key, the generation of the last object it was seen in (to find a repeated
    /// key without a set per object).
    seen: Vec<u32>,
    generation: u32,
}

impl Keys {
    /// How many keys.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no key was seen.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The schemas of a record of these keys: what arrow-json decodes, and what the stream
    /// announces (the same but for zoned timestamps, decoded without their zone).
    pub fn schemas(&self) -> (Arc<Schema>, Arc<Schema>) {
        let (parse, output) = self.fields();
        (Arc::new(Schema::new(parse)), Arc::new(Schema::new(output)))
    }

    fn fields(&self) -> (Fields, Fields) {
        let (parse, output): (Vec<Field>, Vec<Field>) = self
            .names
            .iter()
            .zip(&self.types)
            .map(|(name, ty)| {
                let (parse, output) = ty.types();
                (
                    Field::new(name, parse, true),
                    Field::new(name, output, true),
                )
            })
            .unzip();
        (parse.into(), output.into())
    }
}

impl Ty {
    fn name(&self) -> &'static str {
        match self {
            Ty::Null => "null",
            Ty::Bool => "a boolean",
            Ty::Int | Ty::Float => "a number",
            Ty::Text(_) => "a string",
            Ty::List(_) => "an array",
            Ty::Object(_) => "an object",
            Ty::Mixed => "a string or number",
        }
    }

    /// Whether values of this type are scalars that can be read as strings.
    fn is_scalar(&self) -> bool {
        matches!(
            self,
            Ty::Bool | Ty::Int | Ty::Float | Ty::Text(_) | Ty::Mixed
        )
    }

    fn types(&self) -> (DataType, DataType) {
        match self {
            Ty::Null | Ty::Mixed => (DataType::Utf8, DataType::Utf8),
            Ty::Bool => (DataType::Boolean, DataType::Boolean),
            Ty::Int => (DataType::Int64, DataType::Int64),
            Ty::Float => (DataType::Float64, DataType::Float64),
            Ty::Text(texts) => texts.types(),
            Ty::List(item) => {
                let (parse, output) = item.types();
                (
                    DataType::List(Arc::new(Field::new("item", parse, true))),
                    DataType::List(Arc::new(Field::new("item", output, true))),
                )
            }
            Ty::Object(keys) => {
                let (parse, output) = keys.fields();
                (DataType::Struct(parse), DataType::Struct(output))
            }
        }
    }
}

/// Stands for the key path in a message until the path is known (it is gathered while the
/// error unwinds, so that no path is built for the values that infer well).
const PATH: &str = "\u{0}path\u{0}";

/// An error of inference, at a line and column relative to the record's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InferError {
    /// What is wrong, with the key path at fault.
    pub message: String,
    /// 1-based line in the record (0 when unknown).
    pub line: usize,
    /// 1-based column in that line.
    pub column: usize,
    /// Whether the text is not JSON (rather than a JSON of another shape).
    pub syntax: bool,
}

impl InferError {
    /// serde_json's error, with `path` (outermost key first) in place of the placeholder.
    pub fn from_serde(e: &serde_json::Error, path: &[String]) -> Self {
        let text = e.to_string();
        let message = text
            .rfind(" at line ")
            .map_or(text.as_str(), |i| &text[..i]);
        let message = message.replace(PATH, &format!("{:?}", path.join(".")));
        Self {
            message,
            line: e.line(),
            column: e.column(),
            syntax: matches!(
                e.classify(),
                serde_json::error::Category::Syntax | serde_json::error::Category::Eof
            ),
        }
    }
}

impl fmt::Display for InferError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.message, self.line, self.column
        )
    }
}

/// A key whose values were of two scalar kinds, now read as strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Widened {
    /// The key path, outermost key first (`[]` for an array's elements).
    pub path: Vec<String>,
    /// The kind seen first, and the record (the line it starts on) of its first value.
    pub before: (&'static str, usize),
    /// The other kind, and the record of its first value.
    pub after: (&'static str, usize),
}

impl fmt::Display for Widened {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the key {:?} holds {} (first in the record at line {}) and {} (first in the \
             record at line {}); it is read as a string column (set \"strict_types\": true in \
             the source to refuse such a file)",
            self.path.join("."),
            self.before.0,
            self.before.1,
            self.after.0,
            self.after.1
        )
    }
}

/// How a record is inferred: `line` is where it starts; `strict` refuses scalars of two kinds
/// in one key.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inferring {
    /// The line the record starts on.
    pub line: usize,
    /// Whether scalars of two kinds in one key are an error.
    pub strict: bool,
}

/// Infers from one record (one object) into `keys`; whether it changed them (a new key, a
/// first value, a promotion), and the keys it widened to strings.
pub fn infer_record(
    bytes: &[u8],
    keys: &mut Keys,
    how: Inferring,
) -> Result<(bool, Vec<Widened>), InferError> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let mut ctx = Ctx {
        how,
        ..Ctx::default()
    };
    let result = Record {
        keys,
        ctx: &mut ctx,
    }
    .deserialize(&mut deserializer)
    .and_then(|()| deserializer.end());
    match result {
        Ok(()) => Ok((ctx.changed, ctx.widened)),
        Err(e) => {
            ctx.unwound.reverse();
            Err(InferError::from_serde(&e, &ctx.unwound))
        }
    }
}

/// Whether a type changed, and the key path of a value at fault (innermost first), gathered
/// while its error unwinds.
#[derive(Default)]
struct Ctx {
    unwound: Vec<String>,
    changed: bool,
    how: Inferring,
    /// Keys widened in this record; their paths are gathered innermost first as the values
    /// return, and put outermost first at the end.
    widened: Vec<Widened>,
    /// The first line a widening of this value found for the kind seen before (for an
    /// array's elements, which have no [`Keys`] entry: this record's).
    first_before: usize,
}

/// The top of a record: an object, whose keys are the columns.
struct Record<'a> {
    keys: &'a mut Keys,
    ctx: &'a mut Ctx,
}

impl<'de> DeserializeSeed<'de> for Record<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(ObjectVisitor {
            keys: self.keys,
            ctx: self.ctx,
        })
    }
}

struct ObjectVisitor<'a> {
    keys: &'a mut Keys,
    ctx: &'a mut Ctx,
}

impl Keys {
    /// The index of `key`, added when new. Records usually list their keys in one order, so
    /// the key after `previous` is tried before the hash map.
    fn index_of(&mut self, key: &str, previous: Option<usize>, changed: &mut bool) -> usize {
        let guess = previous.map_or(0, |p| p + 1);
        if self.names.get(guess).is_some_and(|name| name == key) {
            return guess;
        }
        if let Some(&i) = self.index.get(key) {
            return i;
        }
        let i = self.names.len();
        *changed = true;
        self.index.insert(key.to_string(), i);
        self.names.push(key.to_string());
        self.types.push(Ty::Null);
        self.first.push(0);
        self.seen.push(0);
        i
    }

    /// Starts an object: no key seen yet.
    fn start_object(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.seen.iter_mut().for_each(|g| *g = 0);
            self.generation = 1;
        }
    }

    /// Marks `index` seen in this object; false when it already was.
    fn see(&mut self, index: usize) -> bool {
        let first = self.seen[index] != self.generation;
        self.seen[index] = self.generation;
        first
    }
}

impl<'de> Visitor<'de> for ObjectVisitor<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object (one record)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.keys.start_object();
        let mut previous = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let index = self.keys.index_of(&key, previous, &mut self.ctx.changed);
            previous = Some(index);
            if !self.keys.see(index) {
                self.ctx.unwound.push(key.into_owned());
                return Err(de::Error::custom(format!(
                    "the key {PATH} appears twice in one object; keep one of them"
                )));
            }
            let widened_before = self.ctx.widened.len();
            let was_null = self.keys.types[index] == Ty::Null;
            self.ctx.first_before = self.keys.first[index];
            let result = map.next_value_seed(Value {
                ty: &mut self.keys.types[index],
                ctx: self.ctx,
            });
            if let Err(e) = result {
                self.ctx.unwound.push(key.into_owned());
                return Err(e);
            }
            if was_null && self.keys.types[index] != Ty::Null {
                self.keys.first[index] = self.ctx.how.line;
            }
            for widened in &mut self.ctx.widened[widened_before..] {
                widened.path.insert(0, key.to_string());
            }
        }
        Ok(())
    }
}

/// One value, merged into the type of its column.
struct Value<'a> {
    ty: &'a mut Ty,
    ctx: &'a mut Ctx,
}

impl<'de> DeserializeSeed<'de> for Value<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Value<'_> {
    fn set(&mut self, ty: Ty) {
        *self.ty = ty;
        self.ctx.changed = true;
    }

    /// A scalar of another kind than the column's: the column becomes strings, noted, unless
    /// the types are strict or either side is not a scalar.
    fn mixed<E: de::Error>(&mut self, found: &'static str, scalar: bool) -> Result<(), E> {
        if matches!(self.ty, Ty::Mixed) && scalar {
            return Ok(());
        }
        if self.ctx.how.strict || !scalar || !self.ty.is_scalar() {
            return Err(self.conflict(found));
        }
        self.ctx.widened.push(Widened {
            path: Vec::new(),
            before: (self.ty.name(), self.ctx.first_before.max(1)),
            after: (found, self.ctx.how.line),
        });
        self.set(Ty::Mixed);
        Ok(())
    }

    fn conflict<E: de::Error>(&self, found: &str) -> E {
        E::custom(format!(
            "the key {PATH} holds {found} here but {} in an earlier record; a column keeps one \
             type (only integers and decimals mix)",
            self.ty.name()
        ))
    }
}

impl<'de> Visitor<'de> for Value<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E: de::Error>(mut self, _: bool) -> Result<(), E> {
        match self.ty {
            Ty::Null => self.set(Ty::Bool),
            Ty::Bool => {}
            _ => return self.mixed("a boolean", true),
        }
        Ok(())
    }
    fn visit_i64<E: de::Error>(mut self, _: i64) -> Result<(), E> {
        match self.ty {
            Ty::Null => self.set(Ty::Int),
            Ty::Int | Ty::Float => {}
            _ => return self.mixed("a number", true),
        }
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        if i64::try_from(v).is_ok() {
            self.visit_i64(0)
        } else {
            self.visit_f64(0.0)
        }
    }
    fn visit_f64<E: de::Error>(mut self, _: f64) -> Result<(), E> {
        match self.ty {
            Ty::Null | Ty::Int => self.set(Ty::Float),
            Ty::Float => {}
            _ => return self.mixed("a number", true),
        }
        Ok(())
    }
    fn visit_str<E: de::Error>(mut self, v: &str) -> Result<(), E> {
        match self.ty {
            Ty::Null => {
                let mut texts = Texts::default();
                texts.add(v);
                self.set(Ty::Text(texts));
            }
            Ty::Text(texts) => {
                if texts.add(v) {
                    self.ctx.changed = true;
                }
            }
            _ => return self.mixed("a string", true),
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        match self.ty {
            Ty::Null => self.set(Ty::List(Box::default())),
            Ty::List(_) => {}
            _ => return self.mixed("an array", false),
        }
        let Ty::List(item) = self.ty else {
            return Ok(());
        };
        loop {
            let widened_before = self.ctx.widened.len();
            // Elements have no first record of their own: this record stands for it.
            self.ctx.first_before = self.ctx.how.line;
            match seq.next_element_seed(Value {
                ty: item,
                ctx: self.ctx,
            }) {
                Ok(Some(())) => {
                    for widened in &mut self.ctx.widened[widened_before..] {
                        widened.path.insert(0, "[]".to_string());
                    }
                }
                Ok(None) => return Ok(()),
                Err(e) => {
                    self.ctx.unwound.push("[]".to_string());
                    return Err(e);
                }
            }
        }
    }
    fn visit_map<A: MapAccess<'de>>(mut self, map: A) -> Result<(), A::Error> {
        match self.ty {
            Ty::Null => self.set(Ty::Object(Keys::default())),
            Ty::Object(_) => {}
            _ => return self.mixed("an object", false),
        }
        let Ty::Object(keys) = self.ty else {
            return Ok(());
        };
        ObjectVisitor {
            keys,
            ctx: self.ctx,
        }
        .visit_map(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Infers under `strict_types`, where two kinds in one key are an error.
    fn infer(lines: &[&str]) -> Result<Arc<Schema>, String> {
        let mut keys = Keys::default();
        let how = Inferring {
            line: 1,
            strict: true,
        };
        for line in lines {
            infer_record(line.as_bytes(), &mut keys, how).map_err(|e| e.to_string())?;
        }
        Ok(keys.schemas().1)
    }

    /// A number and a string in one key read as a string column, as DuckDB reads them, with
    /// a note naming the key and the first record of each kind. (ldp once refused such a
    /// file, which DuckDB loads.)
    #[test]
    fn mixed_scalars_widen_to_strings_with_a_note() {
        let mut keys = Keys::default();
        let mut notes = Vec::new();
        for (line, record) in [
            r#"{"id":1,"zip":2134,"o":{"v":true}}"#,
            r#"{"id":2,"zip":null}"#,
            r#"{"id":3,"zip":"02134","o":{"v":"yes"},"l":[1,"a"]}"#,
            r#"{"id":4,"zip":7.5}"#,
        ]
        .into_iter()
        .enumerate()
        {
            let how = Inferring {
                line: line + 1,
                strict: false,
            };
            let (_, widened) = infer_record(record.as_bytes(), &mut keys, how).expect("infers");
            notes.extend(widened.iter().map(ToString::to_string));
        }
        let (parse, output) = keys.schemas();
        assert_eq!(parse, output);
        let types: Vec<String> = output
            .fields()
            .iter()
            .map(|f| format!("{}: {}", f.name(), f.data_type()))
            .collect();
        assert_eq!(types[1], "zip: Utf8");
        assert_eq!(types[2], r#"o: Struct("v": Utf8)"#);
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert_eq!(
            notes[0],
            "the key \"zip\" holds a number (first in the record at line 1) and a string (first \
             in the record at line 3); it is read as a string column (set \"strict_types\": true \
             in the source to refuse such a file)"
        );
        assert!(
            notes[1].starts_with("the key \"o.v\" holds a boolean (first in the record at line 1)")
        );
        assert!(notes[2].starts_with("the key \"l.[]\" holds a number"));
        // An object mixed with a scalar is still refused.
        let how = Inferring {
            line: 5,
            strict: false,
        };
        let e = infer_record(br#"{"zip":{"a":1}}"#, &mut keys, how).unwrap_err();
        assert!(e.message.contains("holds an object here"), "{e}");
    }

    fn types(lines: &[&str]) -> Vec<String> {
        infer(lines)
            .expect("infers")
            .fields()
            .iter()
            .map(|f| format!("{}: {}", f.name(), f.data_type()))
            .collect()
    }

    #[test]
    fn scalars_and_promotion() {
        assert_eq!(
            types(&[
                r#"{"i":1,"f":1.5,"m":1,"b":true,"s":"x","n":null,"big":18446744073709551615}"#,
                r#"{"m":2.5,"i":-3,"e":1e5}"#,
            ]),
            vec![
                "i: Int64",
                "f: Float64",
                "m: Float64",
                "b: Boolean",
                "s: Utf8",
                "n: Utf8",
                "big: Float64",
                "e: Float64"
            ]
        );
    }

    #[test]
    fn nested_objects_and_arrays() {
        assert_eq!(
            types(&[
                r#"{"o":{"x":1},"l":[1,2],"e":[],"ll":[[1],[2.5]]}"#,
                r#"{"o":{"y":"s"},"l":null,"lo":[{"a":1},{"b":true}]}"#,
            ]),
            vec![
                r#"o: Struct("x": Int64, "y": Utf8)"#,
                r#"l: List(Int64)"#,
                r#"e: List(Utf8)"#,
                r#"ll: List(List(Float64))"#,
                r#"lo: List(Struct("a": Int64, "b": Boolean))"#,
            ]
        );
    }

    #[test]
    fn dates_and_timestamps() {
        assert_eq!(
            types(&[
                r#"{"d":"2024-01-31","t":"2024-01-31 10:00:00","z":"2024-01-31T10:00:00Z","mix":"2024-01-31T10:00:00Z","bad":"2024-02-30","frac":"2024-01-01T00:00:00.123456789+02:00"}"#,
                r#"{"d":"2024-02-01","t":"2024-02-01","z":"2024-01-31T10:00:00+0130","mix":"2024-01-31T10:00:00","frac":"2024-01-01T00:00:00.1-05"}"#,
            ]),
            vec![
                "d: Date32",
                "t: Timestamp(µs)",
                r#"z: Timestamp(µs, "UTC")"#,
                "mix: Utf8",
                "bad: Utf8",
                r#"frac: Timestamp(µs, "UTC")"#,
            ]
        );
        for text in [
            "2024-01-31T10:00",
            "2024-01-31 10:00:00.",
            "2024-01-31 10:00:00 ",
            "2024-01-31T25:00:00",
            "2024-1-31",
            "20240131",
            "2024-01-31T10:00:00.1234567890",
        ] {
            let line = format!("{{\"s\":{text:?}}}");
            assert_eq!(types(&[line.as_str()]), vec!["s: Utf8"], "{text}");
        }
    }

    #[test]
    fn conflicts_and_repeated_keys_are_errors_at_the_value() {
        let e = infer(&[r#"{"a":1}"#, r#"{"a":"x"}"#]).expect_err("conflict");
        assert_eq!(
            e,
            "the key \"a\" holds a string here but a number in an earlier record; a column \
             keeps one type (only integers and decimals mix) at line 1 column 8"
        );
        let e = infer(&[r#"{"o":{"l":[1,{"x":1}]}}"#]).expect_err("conflict");
        assert!(
            e.starts_with("the key \"o.l.[]\" holds an object here but a number"),
            "{e}"
        );
        let e = infer(&["{\"a\":1,\n\"a\":2}"]).expect_err("repeated");
        assert!(
            e.starts_with("the key \"a\" appears twice in one object"),
            "{e}"
        );
        assert!(e.ends_with("at line 2 column 3"), "{e}");
        let e = infer(&[r#"{"a":1"#]).expect_err("syntax");
        assert!(e.starts_with("EOF while parsing an object"), "{e}");
        let e = infer(&[r#"{"a":1}}"#]).expect_err("trailing");
        assert!(e.starts_with("trailing characters"), "{e}");
    }

    #[test]
    fn zoned_timestamps_decode_without_their_zone() {
        let mut keys = Keys::default();
        infer_record(
            br#"{"z":"2024-01-31T10:00:00Z","o":{"z":"2024-01-31T10:00:00Z"}}"#,
            &mut keys,
            Inferring::default(),
        )
        .expect("infers");
        let (parse, output) = keys.schemas();
        assert_eq!(
            parse.field(0).data_type(),
            &DataType::Timestamp(TimeUnit::Microsecond, None)
        );
        assert_eq!(
            output.field(1).data_type(),
            &DataType::Struct(
                vec![Field::new(
                    "z",
                    DataType::Timestamp(TimeUnit::Microsecond, Some(UTC.into())),
                    true
                )]
                .into()
            )
        );
    }
}
