//! Unigram (T5 and other SentencePiece unigram models), as llama.cpp's `llm_tokenizer_ugm`:
//! the text is normalized by the `precompiled_charsmap` (SentencePiece's XOR-compressed double
//! array of replacements) and its space rules, then the tokenization of highest total score is
//! found by Viterbi over a trie of the tokens.

use alloc::vec::Vec;

use crate::Error;
use crate::trie::Trie;
use crate::vocab::{Attr, Vocab};

#[derive(Debug, Clone)]
pub(crate) struct Ugm {
    /// The double array's entries, and the NUL-terminated replacements after them.
    xcda: Vec<u32>,
    replacements: Vec<u8>,
    tokens: Trie,
    user_defined: Trie,
    unknown_score: f32,
}

/// How the text's spaces are treated.
pub(crate) struct Spaces {
    pub(crate) escape: bool,
    pub(crate) prepend: bool,
    pub(crate) append: bool,
    pub(crate) merge: bool,
}

impl Ugm {
    pub(crate) fn new(vocab: &Vocab, charsmap: Option<Vec<u8>>) -> Result<Ugm, Error> {
        let (mut xcda, mut replacements) = (Vec::new(), Vec::new());
        if let Some(map) = charsmap.filter(|m| !m.is_empty()) {
            if map.len() < 4 {
                return Err(Error::BadCharsmap);
            }
            let size = u32::from_le_bytes([map[0], map[1], map[2], map[3]]) as usize;
            if size.checked_add(4).is_none_or(|end| end >= map.len()) {
                return Err(Error::BadCharsmap);
            }
            xcda = map[4..4 + size]
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            replacements = map[4 + size..].to_vec();
        }
        let (mut tokens, mut user_defined) = (Trie::default(), Trie::default());
        let mut min_score = f32::MAX;
        for id in 0..vocab.len() as u32 {
            let a = vocab.attr(id);
            if a.has(Attr::NORMAL) {
                min_score = min_score.min(vocab.score(id));
            }
            if a.has(Attr::NORMAL | Attr::USER_DEFINED | Attr::UNUSED) {
                tokens.insert(vocab.text(id), id);
            }
            if a.has(Attr::USER_DEFINED) {
                user_defined.insert(vocab.text(id), 0);
            }
        }
        Ok(Ugm {
            xcda,
            replacements,
            tokens,
            user_defined,
            unknown_score: min_score - 10.0,
        })
    }

    fn node(&self, i: u32) -> Option<u32> {
        self.xcda.get(i as usize).copied()
    }

    /// The normalization of the longest prefix of `input` the charsmap knows, and how many
    /// bytes it takes (`normalize_prefix`).
    fn normalize_prefix<'a>(&'a self, input: &'a [u8]) -> (&'a [u8], usize) {
        let user = self.user_defined.longest_path(input);
        if user > 0 {
            return (&input[..user], user);
        }
        let (mut longest, mut offset) = (0, 0);
        if !self.xcda.is_empty() {
            let base = |p: u32| (p >> 10) << ((p & (1 << 9)) >> 6);
            let mut index = self.node(0).map_or(0, base);
            for (i, &c) in input.iter().enumerate() {
                if c == 0 {
                    break;
                }
                index ^= u32::from(c);
                let Some(p) = self.node(index) else { break };
                if p & ((1 << 31) | 0xFF) != u32::from(c) {
                    break;
                }
                let leaf = (p >> 8) & 1 == 1;
                index ^= base(p);
                if leaf {
                    let Some(v) = self.node(index) else { break };
                    longest = i + 1;
                    offset = (v & ((1 << 31) - 1)) as usize;
                }
            }
        }
        if longest > 0 {
            if let Some(rest) = self.replacements.get(offset..) {
                if let Some(len) = rest.iter().position(|&b| b == 0) {
                    return (&rest[..len], longest);
                }
            }
            // llama.cpp throws on a replacement outside the map; the text is kept instead.
        }
        match crate::unicode::decode_one(input, 0) {
            Some((_, len)) => (&input[..len], len),
            None => ("\u{FFFD}".as_bytes(), 1),
        }
    }

    fn normalize(&self, input: &[u8], s: &Spaces) -> Vec<u8> {
        let space: &[u8] = if s.escape { "▁".as_bytes() } else { b" " };
        let mut out = Vec::with_capacity(input.len() * 3);
        let (mut prepended, mut in_word) = (false, false);
        let mut at = 0;
        while at < input.len() {
            let (norm, used) = self.normalize_prefix(&input[at..]);
            for &c in norm {
                if c != b' ' {
                    if !in_word {
                        in_word = true;
                        if (s.prepend && !prepended) || s.merge {
                            out.extend_from_slice(space);
                            prepended = true;
                        }
                    }
                    out.push(c);
                } else {
                    in_word = false;
                    if !s.merge {
                        out.extend_from_slice(space);
                    }
                }
            }
            at += used;
        }
        if s.append {
            out.extend_from_slice(space);
        }
        out
    }

    pub(crate) fn tokenize(
        &self,
        vocab: &Vocab,
        unk: Option<u32>,
        spaces: &Spaces,
        text: &[u8],
        out: &mut Vec<u32>,
    ) {
        let norm = self.normalize(text, spaces);
        let n = norm.len();
        if n == 0 {
            return;
        }
        // (token, start, score) of the best tokenization ending at each offset.
        let mut best: Vec<(Option<u32>, usize, f64)> = alloc::vec![(unk, 0, f64::MIN); n + 1];
        best[0] = (unk, 0, 0.0);
        let mut at = 0;
        while at < n {
            let char_len = crate::unicode::utf8_len(norm[at]).min(n - at);
            let current = best[at].2;
            let mut single = false;
            let mut node = self.tokens.child(Trie::ROOT, norm[at]);
            let mut end = at + 1;
            while let Some(nd) = node {
                if let Some(id) = self.tokens.value(nd) {
                    if end - at == char_len {
                        single = true;
                    }
                    let score = if vocab.attr(id).has(Attr::USER_DEFINED) {
                        0.0
                    } else {
                        f64::from(vocab.score(id))
                    };
                    let challenger = current + score;
                    if challenger > best[end].2 {
                        best[end] = (Some(id), at, challenger);
                    }
                }
                if end >= n {
                    break;
                }
                node = self.tokens.child(nd, norm[end]);
                end += 1;
            }
            if !single {
                let challenger = current + f64::from(self.unknown_score);
                let end = at + char_len;
                if challenger > best[end].2 {
                    best[end] = (unk, at, challenger);
                }
            }
            at += char_len;
        }
        let start = out.len();
        let mut prev_unknown = false;
        let mut i = n;
        loop {
            let (id, from, _) = best[i];
            let unknown = id == unk;
            if !(prev_unknown && unknown) {
                out.extend(id);
            }
            if from == 0 {
                break;
            }
            prev_unknown = unknown;
            i = from;
        }
        out[start..].reverse();
    }
}
