//! SentencePiece BPE, as llama.cpp's `llm_tokenizer_spm_session`: characters are merged pair by
//! pair, always the pair whose merged text is the token of highest score (leftmost among
//! equals); what is left that is no token falls back to byte tokens.

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::{Ordering, Reverse};

use crate::bpe::byte_token;
use crate::unicode::utf8_len;
use crate::vocab::Vocab;

#[derive(Clone, Copy)]
struct Symbol {
    start: usize,
    n: usize,
    prev: usize,
    next: usize,
}

const NONE: usize = usize::MAX;

/// A candidate merge: higher score first, then the leftmost.
#[derive(Clone, Copy)]
struct Bigram {
    score: f32,
    left: usize,
    right: usize,
    size: usize,
}

impl PartialEq for Bigram {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Bigram {}
impl PartialOrd for Bigram {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Bigram {
    fn cmp(&self, other: &Self) -> Ordering {
        // std::priority_queue with llama.cpp's comparator: `l < r` when l.score < r.score, or
        // equal scores and l.left > r.left. NaN scores compare as neither.
        let by_score = if self.score < other.score {
            Ordering::Less
        } else if self.score > other.score {
            Ordering::Greater
        } else {
            Ordering::Equal
        };
        by_score.then_with(|| Reverse(self.left).cmp(&Reverse(other.left)))
    }
}

/// Scratch space reused across pieces of text.
#[derive(Default)]
pub(crate) struct Session {
    symbols: Vec<Symbol>,
    queue: BinaryHeap<Bigram>,
}

impl Session {
    /// Tokenizes `text` (spaces already written as `▁`) into `out`.
    pub(crate) fn tokenize(&mut self, vocab: &Vocab, text: &[u8], out: &mut Vec<u32>) {
        self.symbols.clear();
        self.queue.clear();
        let mut offset = 0;
        while offset < text.len() {
            let n = utf8_len(text[offset]).min(text.len() - offset);
            let index = self.symbols.len();
            self.symbols.push(Symbol {
                start: offset,
                n,
                prev: index.wrapping_sub(1),
                next: if offset + n == text.len() { NONE } else { index + 1 },
            });
            offset += n;
        }
        for i in 1..self.symbols.len() {
            self.add_bigram(vocab, text, i - 1, i);
        }
        while let Some(b) = self.queue.pop() {
            let (l, r) = (self.symbols[b.left], self.symbols[b.right]);
            if l.n == 0 || r.n == 0 || l.n + r.n != b.size {
                continue;
            }
            self.symbols[b.left].n += r.n;
            self.symbols[b.right].n = 0;
            self.symbols[b.left].next = r.next;
            if r.next != NONE {
                self.symbols[r.next].prev = b.left;
            }
            let prev = self.symbols[b.left].prev;
            self.add_bigram(vocab, text, prev, b.left);
            let next = self.symbols[b.left].next;
            self.add_bigram(vocab, text, b.left, next);
        }
        let mut i = if self.symbols.is_empty() { NONE } else { 0 };
        while i != NONE {
            let sym = self.symbols[i];
            let piece = &text[sym.start..sym.start + sym.n];
            // A merged symbol is always a token; what is not is one character, spelled in bytes.
            match vocab.find(piece) {
                Some(id) => out.push(id),
                None => {
                    for &b in piece {
                        out.extend(vocab.find(&byte_token(b)).or_else(|| vocab.find(&[b])));
                    }
                }
            }
            i = sym.next;
        }
    }

    fn add_bigram(&mut self, vocab: &Vocab, text: &[u8], left: usize, right: usize) {
        if left == NONE || right == NONE {
            return;
        }
        let (l, r) = (self.symbols[left], self.symbols[right]);
        let merged = &text[l.start..r.start + r.n];
        if let Some(id) = vocab.find(merged) {
            self.queue.push(Bigram {
                score: vocab.score(id),
                left,
                right,
                size: l.n + r.n,
            });
        }
    }
}
