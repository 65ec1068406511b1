//! A lookup from text to id over the strings of a header's array (the vocabulary's tokens, the
//! BPE merges): a hash table of ids, the texts staying where they are.
//!
//! Building it is most of the time to a first tokenization (a 262,144-token vocabulary has
//! 514,906 merges). Inserted in id order, each id lands at random in a table of megabytes; so
//! the ids are first sorted by where their hashes land (one counting pass over the table's
//! leading bits) and inserted in that order, sweeping the table once.
//!
//! The BPE merges are indexed lazily ([`LazyIndex`]): sorted once into buckets by a key read off
//! each text's ends (no hashing), each bucket's table built the first time a text of that key is
//! looked up. A first tokenization looks up a few hundred of a vocabulary's half a million merges.
//! (The vocabulary is indexed whole: llama.cpp refuses one with two equal tokens, which only a
//! look at every token tells.)
//!
//! Each pass runs a slice at a time through a function of its own: a browser first runs wasm
//! through a quick baseline compiler and swaps in optimized code for a function at its next call,
//! so a pass that were one call would run unoptimized to its end (three times slower, measured
//! in Chromium).

use alloc::vec::Vec;
use core::hash::{BuildHasher, Hasher};

use gguf_core::header::StringArray;
use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};
use once_cell::race::OnceBox;

/// The table's regions the ids are sorted into before they are inserted.
const REGION_BITS: u32 = 8;
/// Items a call of a pass takes.
const SLICE: usize = 1 << 12;

#[derive(Clone)]
pub(crate) struct TextIndex {
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

/// Two ids with the same text: the lower first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Duplicate {
    pub(crate) first: u32,
    pub(crate) second: u32,
}

pub(crate) fn hash_bytes(hasher: &DefaultHashBuilder, text: &[u8]) -> u64 {
    let mut h = hasher.build_hasher();
    h.write(text);
    h.finish()
}

impl TextIndex {
    /// The index of `texts`. Of equal texts the lowest id is the one found; the duplicates are
    /// returned, the pair of lowest second id first.
    pub(crate) fn new(texts: &StringArray) -> (TextIndex, Vec<Duplicate>) {
        let n = texts.len();
        let hasher = DefaultHashBuilder::default();
        let mut table = HashTable::with_capacity(n);
        let mut hashes = Vec::with_capacity(n);
        for start in (0..n).step_by(SLICE) {
            hash_slice(texts, &hasher, start..n.min(start + SLICE), &mut hashes);
        }
        // hashbrown's table: a power of two of buckets, 7/8 of them usable; a hash's probe
        // starts at its low bits.
        let buckets = (table.capacity() / 7 * 8).next_power_of_two().max(1);
        let regions = Regions {
            mask: buckets - 1,
            shift: buckets.trailing_zeros().saturating_sub(REGION_BITS),
        };
        let mut starts = alloc::vec![0u32; (buckets >> regions.shift) + 1];
        for &h in &hashes {
            starts[regions.of(h) + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        // Stable: equal texts (equal hashes) keep their id order.
        let mut order = alloc::vec![(0u64, 0u32); n];
        for start in (0..n).step_by(SLICE) {
            let end = n.min(start + SLICE);
            scatter_slice(
                &hashes[start..end],
                start as u32,
                regions,
                &mut starts,
                &mut order,
            );
        }
        let mut duplicates = Vec::new();
        for slice in order.chunks(SLICE) {
            insert_slice(&mut table, texts, &hashes, slice, &mut duplicates);
        }
        duplicates.sort_unstable_by_key(|d| d.second);
        (TextIndex { table, hasher }, duplicates)
    }

    /// The id of `text` in `texts` (the array the index was built from).
    pub(crate) fn find(&self, texts: &StringArray, text: &[u8]) -> Option<u32> {
        let hash = hash_bytes(&self.hasher, text);
        self.table
            .find(hash, |&id| texts.get(id as usize) == Some(text))
            .copied()
    }
}

/// Where in the table a hash's probe starts, coarsely.
#[derive(Clone, Copy)]
struct Regions {
    mask: usize,
    shift: u32,
}

impl Regions {
    fn of(self, hash: u64) -> usize {
        (hash as usize & self.mask) >> self.shift
    }
}

#[inline(never)]
fn hash_slice(
    texts: &StringArray,
    hasher: &DefaultHashBuilder,
    ids: core::ops::Range<usize>,
    hashes: &mut Vec<u64>,
) {
    hashes.extend(ids.map(|id| hash_bytes(hasher, texts.get(id).unwrap_or_default())));
}

/// Puts the ids from `first` on (of `hashes`) where their regions' next places are.
#[inline(never)]
fn scatter_slice(hashes: &[u64], first: u32, regions: Regions, starts: &mut [u32], order: &mut [(u64, u32)]) {
    for (id, &h) in (first..).zip(hashes) {
        let at = &mut starts[regions.of(h)];
        order[*at as usize] = (h, id);
        *at += 1;
    }
}

#[inline(never)]
fn insert_slice(
    table: &mut HashTable<u32>,
    texts: &StringArray,
    hashes: &[u64],
    slice: &[(u64, u32)],
    duplicates: &mut Vec<Duplicate>,
) {
    let text = |id: u32| texts.get(id as usize).unwrap_or_default();
    for &(hash, id) in slice {
        match table.entry(
            hash,
            |&other| text(other) == text(id),
            |&other| hashes[other as usize],
        ) {
            Entry::Vacant(slot) => {
                slot.insert(id);
            }
            Entry::Occupied(first) => duplicates.push(Duplicate {
                first: *first.get(),
                second: id,
            }),
        }
    }
}

/// The BPE merges' lookup, built a bucket at a time on demand: a pair is looked up by its two
/// halves joined (as they lie side by side in the word being merged: nothing is copied), and
/// the merge found is the first written `left right` split there.
#[derive(Clone)]
pub(crate) struct LazyIndex {
    /// The merges, bucket after bucket, each bucket's in rank order (merges without a space,
    /// which no pair asks for, left out).
    order: Vec<u32>,
    /// Where each bucket starts in `order`, and the end.
    starts: Vec<u32>,
    tables: Vec<OnceBox<HashTable<u32>>>,
    hasher: DefaultHashBuilder,
}

/// Where llama.cpp splits a merge: at the first space after the first byte. `None` (no space):
/// llama.cpp's halves are both empty, a pair no word asks for.
pub(crate) fn split(merge: &[u8]) -> Option<usize> {
    merge.iter().skip(1).position(|&b| b == b' ').map(|p| p + 1)
}

/// A joined pair's bucket among `count` (a power of two): its length and its first and last
/// bytes, mixed.
fn bucket_of(first: u8, last: u8, len: usize, count: usize) -> usize {
    let key = (u32::from(first) << 8 | u32::from(last)) ^ (len as u32).wrapping_mul(0x9E37_79B9);
    (key.wrapping_mul(0x85EB_CA6B) >> 16) as usize & (count - 1)
}

/// A merge's halves joined: where it splits, and its joined length, first and last bytes.
fn joined(merge: &[u8]) -> Option<(usize, usize, u8, u8)> {
    let at = split(merge)?;
    let last = if at + 1 < merge.len() {
        merge[merge.len() - 1]
    } else {
        merge[at - 1]
    };
    Some((at, merge.len() - 1, merge[0], last))
}

impl LazyIndex {
    /// Sorts the merges of `list` into their buckets; no table is built yet.
    pub(crate) fn new(list: &StringArray) -> LazyIndex {
        let n = list.len();
        // About 64 merges a bucket (fewer than u16::MAX buckets: that marks none).
        let count = (n / 64).next_power_of_two().clamp(64, 1 << 15);
        let mut starts = alloc::vec![0u32; count + 1];
        let mut buckets = Vec::with_capacity(n);
        for start in (0..n).step_by(SLICE) {
            bucket_slice(
                list,
                start..n.min(start + SLICE),
                count,
                &mut buckets,
                &mut starts,
            );
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut order = alloc::vec![0u32; starts[count] as usize];
        for start in (0..n).step_by(SLICE) {
            let end = n.min(start + SLICE);
            place_slice(&buckets[start..end], start as u32, &mut next, &mut order);
        }
        LazyIndex {
            order,
            starts,
            tables: (0..count).map(|_| OnceBox::new()).collect(),
            hasher: DefaultHashBuilder::default(),
        }
    }

    /// The rank of the merge of `pair[..at]` with `pair[at..]`, in `list` (the merges the index
    /// was built from).
    pub(crate) fn find(&self, list: &StringArray, pair: &[u8], at: usize) -> Option<u32> {
        let (&first, &last) = (pair.first()?, pair.last()?);
        let b = bucket_of(first, last, pair.len(), self.tables.len());
        let ranks = &self.order[self.starts[b] as usize..self.starts[b + 1] as usize];
        let table =
            self.tables[b].get_or_init(|| alloc::boxed::Box::new(bucket_table(list, ranks, &self.hasher)));
        let merge = |place: u32| list.get(ranks[place as usize] as usize).unwrap_or_default();
        let place = table.find(hash_bytes(&self.hasher, pair), |&place| {
            let m = merge(place);
            m.len() == pair.len() + 1
                && m[..at] == pair[..at]
                && m[at] == b' '
                && m[at + 1..] == pair[at..]
                && split(m) == Some(at)
        })?;
        Some(ranks[*place as usize])
    }
}

/// The table of one bucket's merges (`ranks`, in rank order), by their joined halves: their
/// places in `ranks`, of equal merges the first.
fn bucket_table(list: &StringArray, ranks: &[u32], hasher: &DefaultHashBuilder) -> HashTable<u32> {
    let merge = |place: u32| list.get(ranks[place as usize] as usize).unwrap_or_default();
    let mut joined_text = Vec::new();
    let hashes: Vec<u64> = (0..ranks.len() as u32)
        .map(|place| {
            let m = merge(place);
            let at = split(m).unwrap_or_default();
            joined_text.clear();
            joined_text.extend_from_slice(&m[..at]);
            joined_text.extend_from_slice(m.get(at + 1..).unwrap_or_default());
            hash_bytes(hasher, &joined_text)
        })
        .collect();
    let mut table = HashTable::with_capacity(ranks.len());
    for (place, &hash) in (0..).zip(&hashes) {
        if let Entry::Vacant(slot) = table.entry(
            hash,
            |&other| merge(other) == merge(place),
            |&other| hashes[other as usize],
        ) {
            slot.insert(place);
        }
    }
    table
}

/// Puts the ids from `first` on (of `buckets`: `u16::MAX` for none) where their buckets' next
/// places are.
#[inline(never)]
fn place_slice(buckets: &[u16], first: u32, next: &mut [u32], order: &mut [u32]) {
    for (id, &b) in (first..).zip(buckets) {
        if let Some(at) = next.get_mut(usize::from(b)) {
            order[*at as usize] = id;
            *at += 1;
        }
    }
}

/// The buckets of the merges `ids` (appended to `buckets`: `u16::MAX` for a merge without a
/// space), counted in `starts` (one place on).
#[inline(never)]
fn bucket_slice(
    list: &StringArray,
    ids: core::ops::Range<usize>,
    count: usize,
    buckets: &mut Vec<u16>,
    starts: &mut [u32],
) {
    for id in ids {
        match joined(list.get(id).unwrap_or_default()) {
            Some((_, len, first, last)) => {
                let b = bucket_of(first, last, len, count);
                buckets.push(b as u16);
                starts[b + 1] += 1;
            }
            None => buckets.push(u16::MAX),
        }
    }
}
