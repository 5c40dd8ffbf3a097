//! Counting keys over a stream, in the order they first appear: what `unique` keeps across
//! batches.
//!
//! Each distinct key gets a sequence number (the order of its first appearance) and a count.
//! [`IntKeys`] holds keys that are one integer: keys that arrive in increasing runs (`1, 2, 3...`
//! as generated ids do) are kept as ranges of a few bytes each, other keys in a hash map of
//! 16 bytes a key. [`ByteKeys`] holds any key as bytes (strings, composite keys), in an arena,
//! indexed by a hash table of 20-byte entries.

use hashbrown::{DefaultHashBuilder, HashMap, HashTable};
use std::hash::BuildHasher;

/// What a key set knows at the end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary<K> {
    /// Distinct keys.
    pub distinct: u64,
    /// Keys seen more than once.
    pub duplicate_keys: u64,
    /// Rows whose key is seen more than once (every copy).
    pub duplicate_rows: u64,
    /// The first `limit` duplicated keys in order of first appearance, with their counts.
    pub sample: Vec<(K, u64)>,
}

impl<K> Summary<K> {
    /// The counts alone.
    pub fn without_sample(&self) -> Summary<()> {
        Summary {
            distinct: self.distinct,
            duplicate_keys: self.duplicate_keys,
            duplicate_rows: self.duplicate_rows,
            sample: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    seq: u32,
    count: u32,
}

/// A range of keys `lo..=hi` that arrived one after the other, each once so far; the key `k`
/// has the sequence number `seq + (k - lo)`.
#[derive(Clone, Copy, Debug)]
struct Run {
    lo: i64,
    hi: i64,
    seq: u64,
}

/// Integer keys (see the module docs).
#[derive(Default)]
pub struct IntKeys {
    /// Keys outside the runs, and keys of runs seen more than once.
    map: HashMap<i64, Slot>,
    /// Disjoint runs, in increasing order.
    runs: Vec<Run>,
    /// The largest key seen.
    max: Option<i64>,
    /// Distinct keys so far (the next sequence number).
    distinct: u64,
}

impl IntKeys {
    /// Counts one key.
    #[inline]
    pub fn insert(&mut self, key: i64) {
        match self.max {
            Some(max) if key <= max => self.insert_seen_range(key),
            _ => self.insert_new_max(key),
        }
    }

    /// A key above every key seen: new; extends the last run when it follows it.
    #[inline]
    fn insert_new_max(&mut self, key: i64) {
        let seq = self.distinct;
        self.distinct += 1;
        self.max = Some(key);
        if let Some(last) = self.runs.last_mut()
            && last.hi.checked_add(1) == Some(key)
            && (last.hi.wrapping_sub(last.lo) as u64).wrapping_add(1) == seq.wrapping_sub(last.seq)
        {
            last.hi = key;
            return;
        }
        self.runs.push(Run {
            lo: key,
            hi: key,
            seq,
        });
    }

    fn insert_seen_range(&mut self, key: i64) {
        // In a run?
        let at = self.runs.partition_point(|run| run.hi < key);
        if let Some(run) = self.runs.get(at)
            && run.lo <= key
        {
            let seq = run.seq.wrapping_add(key.wrapping_sub(run.lo) as u64);
            let slot = self.map.entry(key).or_insert(Slot {
                seq: u32::try_from(seq).unwrap_or(u32::MAX),
                count: 1,
            });
            slot.count = slot.count.saturating_add(1);
            return;
        }
        let distinct = &mut self.distinct;
        let slot = self.map.entry(key).or_insert_with(|| {
            let seq = *distinct;
            *distinct += 1;
            Slot {
                seq: u32::try_from(seq).unwrap_or(u32::MAX),
                count: 0,
            }
        });
        slot.count = slot.count.saturating_add(1);
    }

    /// The counts, and the first `limit` duplicated keys.
    pub fn summary(&self, limit: usize) -> Summary<i64> {
        let mut summary = Summary {
            distinct: self.distinct,
            ..Summary::default()
        };
        let mut duplicated: Vec<(u32, i64, u64)> = Vec::new();
        for (key, slot) in &self.map {
            if slot.count > 1 {
                summary.duplicate_keys += 1;
                summary.duplicate_rows += u64::from(slot.count);
                duplicated.push((slot.seq, *key, u64::from(slot.count)));
            }
        }
        duplicated.sort_unstable();
        summary.sample = duplicated
            .into_iter()
            .take(limit)
            .map(|(_, key, count)| (key, count))
            .collect();
        summary
    }

    /// Bytes held (an estimate).
    pub fn memory(&self) -> usize {
        self.map.capacity() * (std::mem::size_of::<(i64, Slot)>() + 1)
            + self.runs.capacity() * std::mem::size_of::<Run>()
    }
}

/// Where a key's bytes are in the arena.
#[derive(Clone, Copy, Debug)]
struct Entry {
    chunk: u32,
    start: u32,
    len: u32,
    seq: u32,
    count: u32,
}

const CHUNK: usize = 1 << 20;

/// Keys as bytes (see the module docs).
#[derive(Default)]
pub struct ByteKeys {
    table: HashTable<Entry>,
    chunks: Vec<Vec<u8>>,
    hasher: DefaultHashBuilder,
}

fn bytes_of<'c>(chunks: &'c [Vec<u8>], entry: &Entry) -> &'c [u8] {
    chunks
        .get(entry.chunk as usize)
        .and_then(|chunk| chunk.get(entry.start as usize..(entry.start + entry.len) as usize))
        .unwrap_or_default()
}

impl ByteKeys {
    /// Counts one key.
    pub fn insert(&mut self, key: &[u8]) {
        let hash = self.hasher.hash_one(key);
        let chunks = &self.chunks;
        if let Some(entry) = self.table.find_mut(hash, |e| bytes_of(chunks, e) == key) {
            entry.count = entry.count.saturating_add(1);
            return;
        }
        let seq = u32::try_from(self.table.len()).unwrap_or(u32::MAX);
        let fits = self
            .chunks
            .last()
            .is_some_and(|chunk| chunk.capacity() - chunk.len() >= key.len());
        if !fits {
            self.chunks.push(Vec::with_capacity(CHUNK.max(key.len())));
        }
        let chunk_index = self.chunks.len() - 1;
        let chunk = &mut self.chunks[chunk_index];
        let entry = Entry {
            chunk: chunk_index as u32,
            start: chunk.len() as u32,
            len: key.len() as u32,
            seq,
            count: 1,
        };
        chunk.extend_from_slice(key);
        let (chunks, hasher) = (&self.chunks, &self.hasher);
        self.table
            .insert_unique(hash, entry, |e| hasher.hash_one(bytes_of(chunks, e)));
    }

    /// The counts, and the first `limit` duplicated keys.
    pub fn summary(&self, limit: usize) -> Summary<Vec<u8>> {
        let mut summary = Summary {
            distinct: self.table.len() as u64,
            ..Summary::default()
        };
        let mut duplicated: Vec<&Entry> = Vec::new();
        for entry in &self.table {
            if entry.count > 1 {
                summary.duplicate_keys += 1;
                summary.duplicate_rows += u64::from(entry.count);
                duplicated.push(entry);
            }
        }
        duplicated.sort_unstable_by_key(|e| e.seq);
        summary.sample = duplicated
            .into_iter()
            .take(limit)
            .map(|e| (bytes_of(&self.chunks, e).to_vec(), u64::from(e.count)))
            .collect();
        summary
    }

    /// Bytes held (an estimate).
    pub fn memory(&self) -> usize {
        self.table.capacity() * (std::mem::size_of::<Entry>() + 1)
            + self.chunks.iter().map(Vec::capacity).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(keys: &[i64]) -> Summary<i64> {
        let mut set = IntKeys::default();
        for key in keys {
            set.insert(*key);
        }
        set.summary(5)
    }

    #[test]
    fn int_keys_in_first_appearance_order() {
        let s = ints(&[1, 2, 3, 2, 7, 3, 3, -1, 7, 10, 11, 12, 11, 0]);
        assert_eq!(s.distinct, 9);
        assert_eq!(s.duplicate_keys, 4);
        assert_eq!(s.duplicate_rows, 2 + 3 + 2 + 2);
        assert_eq!(s.sample, vec![(2, 2), (3, 3), (7, 2), (11, 2)]);
        // A -> B -> B -> A: A first.
        assert_eq!(ints(&[5, 9, 9, 5]).sample, vec![(5, 2), (9, 2)]);
        // A key inserted into the map between run steps breaks the run's numbering.
        let s = ints(&[1, 2, 0, 3, 3, 0]);
        assert_eq!(s.sample, vec![(0, 2), (3, 2)]);
        let s = ints(&[10, 11, 12, 13, 12, 10]);
        assert_eq!(s.sample, vec![(10, 2), (12, 2)]);
        let s = ints(&[i64::MAX, i64::MIN, i64::MAX]);
        assert_eq!((s.distinct, s.sample), (2, vec![(i64::MAX, 2)]));
    }

    #[test]
    fn byte_keys() {
        let mut set = ByteKeys::default();
        for key in ["b", "a", "b", "c", "a", "b"] {
            set.insert(key.as_bytes());
        }
        let s = set.summary(5);
        assert_eq!((s.distinct, s.duplicate_keys, s.duplicate_rows), (3, 2, 5));
        assert_eq!(s.sample, vec![(b"b".to_vec(), 3), (b"a".to_vec(), 2)]);
    }
}
