//! The smallest and largest value of a column over a stream, as pyarrow's `min_max` gives them:
//! nulls skipped, NaN skipped unless every value is NaN, strings and binary compared bytewise.

use crate::arrow_value::{Kind, Values, decimal_text};
use crate::py::Py;
use arrow_buffer::NullBuffer;

/// The running extremes of one column.
#[derive(Clone, Debug)]
pub struct Extremes {
    kind: Kind,
    state: State,
}

#[derive(Clone, Debug)]
enum State {
    None,
    Int(Option<(i64, i64)>),
    UInt(Option<(u64, u64)>),
    Float {
        range: Option<(f64, f64)>,
        nan: bool,
    },
    Decimal(Option<(i128, i128)>),
    Bytes(Option<(Vec<u8>, Vec<u8>)>),
    Bool(Option<(bool, bool)>),
}

fn widen<T: PartialOrd + Copy>(range: &mut Option<(T, T)>, x: T) {
    match range {
        None => *range = Some((x, x)),
        Some((lo, hi)) => {
            if x < *lo {
                *lo = x;
            }
            if x > *hi {
                *hi = x;
            }
        }
    }
}

impl Extremes {
    /// No value seen yet, for a column of `kind`.
    pub fn new(kind: Kind) -> Extremes {
        let state = match &kind {
            Kind::Int(_) => State::Int(None),
            Kind::UInt64 => State::UInt(None),
            Kind::F32 | Kind::F64 => State::Float {
                range: None,
                nan: false,
            },
            Kind::Decimal128(_) => State::Decimal(None),
            Kind::Str | Kind::Bin => State::Bytes(None),
            Kind::Bool => State::Bool(None),
            Kind::Null | Kind::Other(_) => State::None,
        };
        Extremes { kind, state }
    }

    /// The column's kind.
    pub fn kind(&self) -> &Kind {
        &self.kind
    }

    /// Takes in the valid values of one batch of `n` rows.
    pub fn update(&mut self, values: &Values<'_>, valid: Option<&NullBuffer>, n: usize) {
        match (&mut self.state, values, valid) {
            (State::Int(range), Values::Int(v), None) => {
                for i in 0..n {
                    widen(range, v.get(i));
                }
            }
            (State::Float { range, nan }, Values::F64(v), None) => {
                let (mut lo, mut hi) = range.unwrap_or((f64::INFINITY, f64::NEG_INFINITY));
                let mut seen = range.is_some();
                for &x in v.iter() {
                    if x.is_nan() {
                        *nan = true;
                        continue;
                    }
                    seen = true;
                    lo = lo.min(x);
                    hi = hi.max(x);
                }
                if seen {
                    *range = Some((lo, hi));
                }
            }
            (_, _, None) => (0..n).for_each(|i| self.one(values, i)),
            (_, _, Some(valid)) => valid.valid_indices().for_each(|i| self.one(values, i)),
        }
    }

    fn one(&mut self, values: &Values<'_>, i: usize) {
        match (&mut self.state, values) {
            (_, Values::Dict(keys, inner)) => {
                if let Ok(key) = usize::try_from(keys.get(i)) {
                    self.one(inner, key);
                }
            }
            (State::Int(range), Values::Int(v)) => widen(range, v.get(i)),
            (State::UInt(range), Values::UInt64(v)) => widen(range, v[i]),
            (State::Float { range, nan }, Values::F64(v)) => {
                if v[i].is_nan() {
                    *nan = true;
                } else {
                    widen(range, v[i]);
                }
            }
            (State::Float { range, nan }, Values::F32(v)) => {
                if v[i].is_nan() {
                    *nan = true;
                } else {
                    widen(range, f64::from(v[i]));
                }
            }
            (State::Decimal(range), Values::Decimal128(v)) => widen(range, v[i]),
            (State::Bool(range), Values::Bool(v)) => widen(range, v.value(i)),
            (State::Bytes(range), Values::Bytes(v)) => {
                let x = v.get(i);
                match range {
                    None => *range = Some((x.to_vec(), x.to_vec())),
                    Some((lo, hi)) => {
                        if x < lo.as_slice() {
                            *lo = x.to_vec();
                        }
                        if x > hi.as_slice() {
                            *hi = x.to_vec();
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The smallest and largest value (`None` when there was no valid value).
    pub fn result(&self, decimal_scale: Option<i8>) -> (Py, Py) {
        let pair = |lo: Py, hi: Py| (lo, hi);
        match &self.state {
            State::Int(Some((lo, hi))) => match &self.kind {
                Kind::Int(kind) => pair(kind.py(*lo), kind.py(*hi)),
                _ => pair(Py::Int((*lo).into()), Py::Int((*hi).into())),
            },
            State::UInt(Some((lo, hi))) => pair(Py::Int((*lo).into()), Py::Int((*hi).into())),
            State::Float {
                range: Some((lo, hi)),
                ..
            } => pair(Py::Float(*lo), Py::Float(*hi)),
            State::Float {
                range: None,
                nan: true,
            } => pair(Py::Float(f64::NAN), Py::Float(f64::NAN)),
            State::Decimal(Some((lo, hi))) => {
                let scale = decimal_scale.unwrap_or(0);
                pair(
                    Py::Other(decimal_text(*lo, scale)),
                    Py::Other(decimal_text(*hi, scale)),
                )
            }
            State::Bool(Some((lo, hi))) => pair(Py::Bool(*lo), Py::Bool(*hi)),
            State::Bytes(Some((lo, hi))) => {
                let mut lo_bytes = Vec::with_capacity(lo.len() + 4);
                lo_bytes.extend_from_slice(&(lo.len() as u32).to_le_bytes());
                lo_bytes.extend_from_slice(lo);
                let mut hi_bytes = Vec::with_capacity(hi.len() + 4);
                hi_bytes.extend_from_slice(&(hi.len() as u32).to_le_bytes());
                hi_bytes.extend_from_slice(hi);
                pair(
                    self.kind.decode(&mut lo_bytes.as_slice()),
                    self.kind.decode(&mut hi_bytes.as_slice()),
                )
            }
            _ => pair(Py::None, Py::None),
        }
    }
}
