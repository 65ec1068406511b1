//! Byte-pair encoding, as llama.cpp's `llm_tokenizer_bpe_session`: each word's characters are
//! merged pair by pair, the pair of lowest merge rank first (leftmost among equals), and the
//! pieces are looked up in the vocabulary; a piece that is not a token falls back to its bytes.

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Reverse;

use gguf_core::header::StringArray;
use hashbrown::{DefaultHashBuilder, HashTable};

use crate::index::{LazyIndex, hash_bytes};
use crate::unicode::utf8_len;
use crate::vocab::Vocab;

/// `tokenizer.ggml.merges`: each `"left right"` and its rank (its index; the first of equal
/// pairs counts). The header's array as it is, and a lookup of each merge by its whole text
/// (the pair is checked where llama.cpp splits it).
#[derive(Clone)]
pub(crate) struct Merges {
    list: StringArray,
    index: LazyIndex,
}

impl core::fmt::Debug for Merges {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Merges")
            .field("count", &self.list.len())
            .finish_non_exhaustive()
    }
}

impl Merges {
    pub(crate) fn new(list: StringArray) -> Merges {
        let index = LazyIndex::new(&list);
        Merges { list, index }
    }

    /// The rank of merging `pair[..at]` with `pair[at..]` (two symbols side by side in a word):
    /// the first merge written `left right`, if llama.cpp splits it there.
    pub(crate) fn rank(&self, pair: &[u8], at: usize) -> Option<u32> {
        self.index.find(&self.list, pair, at)
    }
}

#[derive(Clone, Copy)]
struct Symbol {
    start: usize,
    n: usize,
    prev: usize,
    next: usize,
}

const NONE: usize = usize::MAX;

/// Scratch space reused across words, and the words of this text already tokenized.
#[derive(Default)]
pub(crate) struct Session {
    symbols: Vec<Symbol>,
    queue: BinaryHeap<(Reverse<u32>, Reverse<usize>, usize, usize)>,
    seen: Seen,
}

/// Words and their ids: a text says its words many times, and a word's ids depend on it alone.
#[derive(Default)]
struct Seen {
    /// (where the word starts in `bytes`, its length, where its ids start in `ids`, how many).
    table: HashTable<[u32; 4]>,
    bytes: Vec<u8>,
    ids: Vec<u32>,
    hasher: DefaultHashBuilder,
}

/// Words longer than this are not kept: they are rare, and long to compare.
const SEEN_WORD: usize = 48;
/// Ids kept at most; then the words seen are forgotten and kept anew.
const SEEN_IDS: usize = 1 << 20;

impl Seen {
    fn hash(&self, word: &[u8]) -> u64 {
        hash_bytes(&self.hasher, word)
    }

    fn find(&self, hash: u64, word: &[u8]) -> Option<&[u32]> {
        let [_, _, at, n] = self.table.find(hash, |&[s, l, _, _]| {
            &self.bytes[s as usize..(s + l) as usize] == word
        })?;
        Some(&self.ids[*at as usize..(*at + *n) as usize])
    }

    fn keep(&mut self, hash: u64, word: &[u8], ids: &[u32]) {
        if self.ids.len() + ids.len() > SEEN_IDS {
            self.table.clear();
            self.bytes.clear();
            self.ids.clear();
        }
        let entry = [
            self.bytes.len() as u32,
            word.len() as u32,
            self.ids.len() as u32,
            ids.len() as u32,
        ];
        self.bytes.extend_from_slice(word);
        self.ids.extend_from_slice(ids);
        let (bytes, hasher) = (&self.bytes, &self.hasher);
        self.table.insert_unique(hash, entry, |&[s, l, _, _]| {
            hash_bytes(hasher, &bytes[s as usize..(s + l) as usize])
        });
    }
}

/// How a BPE vocabulary treats a word before merging.
pub(crate) struct Word<'a> {
    pub(crate) vocab: &'a Vocab,
    pub(crate) merges: &'a Merges,
    pub(crate) ignore_merges: bool,
    /// Gemma 4: a word of newlines that is a token stays whole.
    pub(crate) newline_words: bool,
    /// Byte fallback: GPT-2's byte characters (false: `<0xNN>` tokens).
    pub(crate) byte_encode: bool,
}

impl Session {
    /// Tokenizes one pre-tokenized word into `out`.
    pub(crate) fn word(&mut self, w: &Word<'_>, word: &[u8], out: &mut Vec<u32>) {
        if word.len() > SEEN_WORD {
            return self.merge(w, word, out);
        }
        let hash = self.seen.hash(word);
        if let Some(ids) = self.seen.find(hash, word) {
            out.extend_from_slice(ids);
            return;
        }
        let from = out.len();
        self.merge(w, word, out);
        self.seen.keep(hash, word, &out[from..]);
    }

    /// Merges `word`'s characters and writes its tokens.
    fn merge(&mut self, w: &Word<'_>, word: &[u8], out: &mut Vec<u32>) {
        self.symbols.clear();
        self.queue.clear();
        let whole = |sym: &mut Vec<Symbol>| {
            sym.push(Symbol {
                start: 0,
                n: word.len(),
                prev: NONE,
                next: NONE,
            })
        };
        let mut offset = 0;
        let newlines = w.newline_words && word.iter().all(|&b| b == b'\n');
        if (w.ignore_merges || newlines) && w.vocab.find(word).is_some() {
            whole(&mut self.symbols);
            offset = word.len();
        }
        while offset < word.len() {
            let n = utf8_len(word[offset]).min(word.len() - offset);
            let index = self.symbols.len();
            self.symbols.push(Symbol {
                start: offset,
                n,
                prev: index.wrapping_sub(1),
                next: if offset + n == word.len() { NONE } else { index + 1 },
            });
            offset += n;
        }
        for i in 1..self.symbols.len() {
            self.add_bigram(w, word, i - 1, i);
        }
        while let Some((_, Reverse(left), right, size)) = self.queue.pop() {
            let (l, r) = (self.symbols[left], self.symbols[right]);
            if l.n == 0 || r.n == 0 || l.n + r.n != size {
                continue;
            }
            self.symbols[left].n += r.n;
            self.symbols[right].n = 0;
            self.symbols[left].next = r.next;
            if r.next != NONE {
                self.symbols[r.next].prev = left;
            }
            let prev = self.symbols[left].prev;
            self.add_bigram(w, word, prev, left);
            let next = self.symbols[left].next;
            self.add_bigram(w, word, left, next);
        }
        for sym in &self.symbols {
            if sym.n == 0 {
                continue;
            }
            let text = &word[sym.start..sym.start + sym.n];
            if let Some(id) = w.vocab.find(text) {
                out.push(id);
                continue;
            }
            for &b in text {
                let found = if w.byte_encode {
                    w.vocab.find(&[b])
                } else {
                    w.vocab.find(&byte_token(b))
                };
                out.extend(found);
            }
        }
    }

    fn add_bigram(&mut self, w: &Word<'_>, word: &[u8], left: usize, right: usize) {
        if left == NONE || right == NONE {
            return;
        }
        let (l, r) = (self.symbols[left], self.symbols[right]);
        // Side by side: the right symbol starts where the left one ends.
        if let Some(rank) = w.merges.rank(&word[l.start..r.start + r.n], l.n) {
            self.queue.push((Reverse(rank), Reverse(left), right, l.n + r.n));
        }
    }
}

/// The text of the byte token for `b`: `<0xNN>`, upper-case hex.
pub(crate) fn byte_token(b: u8) -> [u8; 6] {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    [
        b'<',
        b'0',
        b'x',
        HEX[usize::from(b >> 4)],
        HEX[usize::from(b & 15)],
        b'>',
    ]
}
