//! The groups of `group_by`: one id per distinct key, found by hashing the key's bytes (no
//! allocation for a key seen before), with the key's values kept once per key for sorting and
//! printing.
//!
//! A key id is a distinct key value; a group is the set of key ids that are equal under the
//! check's [`Equality`] (`-0.0` and `0.0` are two keys, printed as such, but one group when
//! compared).

use std::cmp::Ordering;

use arrow_array::RecordBatch;
use arrow_schema::DataType;
use hashbrown::HashMap;

use super::value::{Raw, Reader, Val, jsonable, readable};
use crate::py::Py;

/// When two keys are the same group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Equality {
    /// Arrow's `equal` on sorted rows (`monotonic`, `max_gap`): `-0.0` equals `0.0`, a NaN
    /// equals nothing (each NaN-keyed row is a group of its own), nulls equal each other.
    Compare,
    /// Arrow's hash `group_by` (`rate_below`): values equal when their bits are, so every NaN
    /// is one group and `-0.0` is not `0.0`; nulls are one group.
    Hash,
}

/// The key columns of a check and the groups seen so far.
pub struct Groups {
    columns: Vec<usize>,
    labels: Vec<String>,
    types: Vec<DataType>,
    equality: Equality,
    /// Key ids by the exact bytes of the key.
    index: HashMap<Box<[u8]>, u32>,
    /// Groups by the bytes of the key with `-0.0` written as `0.0`.
    classes: HashMap<Box<[u8]>, u32>,
    /// Each key id's values.
    keys: Vec<Vec<Option<Val>>>,
    /// Each key id's group.
    class: Vec<u32>,
    groups: u32,
    buffer: Vec<u8>,
    /// The key id of the last row looked up, and its bytes.
    previous: Option<u32>,
    previous_bytes: Vec<u8>,
}

impl Groups {
    /// Groups keyed by the columns at `columns` (named `labels`, of `types`).
    pub fn new(
        columns: Vec<usize>,
        labels: Vec<String>,
        types: Vec<DataType>,
        equality: Equality,
    ) -> Self {
        Groups {
            columns,
            labels,
            types,
            equality,
            index: HashMap::new(),
            classes: HashMap::new(),
            keys: Vec::new(),
            class: Vec::new(),
            groups: 0,
            buffer: Vec::new(),
            previous: None,
            previous_bytes: Vec::new(),
        }
    }

    /// Whether there are key columns at all (without, every row is in group 0).
    pub fn keyed(&self) -> bool {
        !self.columns.is_empty()
    }

    /// The first key column whose type the checks can't read, if any.
    pub fn unreadable(&self) -> Option<&DataType> {
        self.types.iter().find(|t| !readable(t))
    }

    /// The types of the key columns.
    pub fn types(&self) -> &[DataType] {
        &self.types
    }

    /// Readers of the key columns of `batch`; `None` when a key type can't be read.
    pub fn readers<'a>(&self, batch: &'a RecordBatch) -> Option<Vec<Reader<'a>>> {
        self.columns
            .iter()
            .map(|&i| batch.columns().get(i).and_then(|c| Reader::new(c.as_ref())))
            .collect()
    }

    /// How many groups there are.
    pub fn len(&self) -> usize {
        if self.keyed() {
            self.groups as usize
        } else {
            1
        }
    }

    /// The group of key id `key` (0 without key columns).
    pub fn group(&self, key: u32) -> u32 {
        self.class.get(key as usize).copied().unwrap_or(0)
    }

    /// The key id of row `row` of the batch read by `readers`, created when new.
    pub fn find(&mut self, readers: &[Reader<'_>], row: usize) -> u32 {
        if !self.keyed() {
            return 0;
        }
        let alone = self.encode(readers, row, false);
        if alone {
            self.previous = None;
        } else if let Some(key) = self.previous
            && self.buffer == self.previous_bytes
        {
            // Rows of a group often come together: no hashing then.
            return key;
        } else if let Some(&key) = self.index.get(self.buffer.as_slice()) {
            self.remember(key);
            return key;
        }
        let key = self.keys.len() as u32;
        self.keys.push(
            readers
                .iter()
                .map(|r| r.get(row).map(Raw::to_val))
                .collect(),
        );
        if alone {
            self.class.push(self.groups);
            self.groups += 1;
            return key;
        }
        self.index
            .insert(self.buffer.clone().into_boxed_slice(), key);
        self.remember(key);
        self.encode(readers, row, true);
        let class = match self.classes.get(self.buffer.as_slice()) {
            Some(&class) => class,
            None => {
                let class = self.groups;
                self.groups += 1;
                self.classes
                    .insert(self.buffer.clone().into_boxed_slice(), class);
                class
            }
        };
        self.class.push(class);
        key
    }

    /// Keeps the key just found (its bytes are in the buffer) for the next row.
    fn remember(&mut self, key: u32) {
        self.previous_bytes.clear();
        self.previous_bytes.extend_from_slice(&self.buffer);
        self.previous = Some(key);
    }

    /// Writes the key of `row` into the buffer (`-0.0` as `0.0` when `normal`); `true` when
    /// the key equals no other (a NaN compared).
    fn encode(&mut self, readers: &[Reader<'_>], row: usize, normal: bool) -> bool {
        self.buffer.clear();
        let mut alone = false;
        for reader in readers {
            match reader.get(row) {
                None => self.buffer.push(0),
                Some(raw) => {
                    self.buffer.push(1);
                    alone |= encode(raw, self.equality, normal, &mut self.buffer);
                }
            }
        }
        alone
    }

    /// Arrow's ascending sort order of two keys (nulls last, NaN after numbers).
    pub fn cmp(&self, a: u32, b: u32) -> Ordering {
        let (Some(a), Some(b)) = (self.keys.get(a as usize), self.keys.get(b as usize)) else {
            return Ordering::Equal;
        };
        for (x, y) in a.iter().zip(b) {
            let order = match (x, y) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
                (Some(x), Some(y)) => x.raw().sort_cmp(&y.raw()),
            };
            if order != Ordering::Equal {
                return order;
            }
        }
        Ordering::Equal
    }

    /// Each key id's rank in the sort order of keys; keys that sort equal (NaN keys, `-0.0`
    /// and `0.0`) share a rank, so a stable sort by rank keeps their rows in table order.
    pub fn ranks(&self) -> Vec<u32> {
        let count = if self.keyed() { self.keys.len() } else { 1 };
        let mut order: Vec<u32> = (0..count as u32).collect();
        order.sort_by(|&a, &b| self.cmp(a, b));
        let mut ranks = vec![0u32; count];
        let mut rank = 0u32;
        for (position, &group) in order.iter().enumerate() {
            if position > 0 && self.cmp(order[position - 1], group) != Ordering::Equal {
                rank = position as u32;
            }
            if let Some(slot) = ranks.get_mut(group as usize) {
                *slot = rank;
            }
        }
        ranks
    }

    /// The Python tool's `_group_key`: the key's value for one key column, a `{column: value}`
    /// dict for several (values as `to_jsonable` gives them).
    pub fn label(&self, key: u32) -> Py {
        let Some(key) = self.keys.get(key as usize) else {
            return Py::None;
        };
        let mut values = key
            .iter()
            .zip(&self.types)
            .map(|(value, data_type)| jsonable(data_type, value.as_ref().map(Val::raw)));
        if key.len() == 1 {
            return values.next().unwrap_or(Py::None);
        }
        Py::Dict(self.labels.iter().cloned().zip(values).collect())
    }
}

/// Appends the bytes of `raw` to `out` (`-0.0` as `0.0` when `normal`); `true` when the value
/// equals nothing (a NaN compared).
fn encode(raw: Raw<'_>, equality: Equality, normal: bool, out: &mut Vec<u8>) -> bool {
    match raw {
        Raw::Int(v) => out.extend_from_slice(&v.to_le_bytes()),
        Raw::UInt(v) => out.extend_from_slice(&v.to_le_bytes()),
        Raw::Float(v) => {
            let bits = match equality {
                Equality::Compare if v.is_nan() => return true,
                Equality::Compare if normal && v == 0.0 => 0u64,
                Equality::Hash if v.is_nan() => f64::NAN.to_bits(),
                _ => v.to_bits(),
            };
            out.extend_from_slice(&bits.to_le_bytes());
        }
        Raw::Bool(v) => out.push(u8::from(v)),
        Raw::Dec(v) => out.extend_from_slice(&v.to_le_bytes()),
        Raw::Bytes(v) => {
            out.extend_from_slice(&(v.len() as u64).to_le_bytes());
            out.extend_from_slice(v);
        }
    }
    false
}
