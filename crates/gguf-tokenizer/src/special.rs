//! Special tokens in text, as llama.cpp's `tokenizer_st_partition`: each special token, longest
//! first, takes every place it occurs in the text not yet taken, leftmost first; the text
//! between is tokenized as text. Control and unknown tokens are matched only when special text
//! is parsed; user-defined ones always. A token marked lstrip or rstrip takes the whitespace
//! before or after it too.

use alloc::vec::Vec;

use memchr::memmem;

use crate::vocab::{Attr, Vocab};

/// A piece of the text: plain bytes (a range of the input) or a special token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fragment {
    Text { start: usize, len: usize },
    Token(u32),
}

/// C's `isspace` in the C locale.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t'..=b'\r')
}

/// Splits `text` around the special tokens of `cache` (ids, longest first).
pub(crate) fn partition(vocab: &Vocab, cache: &[u32], text: &[u8], parse_special: bool) -> Vec<Fragment> {
    let mut frags = Vec::new();
    if text.is_empty() {
        return frags;
    }
    frags.push(Fragment::Text {
        start: 0,
        len: text.len(),
    });
    let mut next = Vec::new();
    for &id in cache {
        let attr = vocab.attr(id);
        if !parse_special && attr.has(Attr::CONTROL | Attr::UNKNOWN) {
            continue;
        }
        let needle = vocab.text(id);
        let finder = memmem::Finder::new(needle);
        // Tokens that occur nowhere in the text (most of them) cost one search.
        if finder.find(text).is_none() {
            continue;
        }
        next.clear();
        for &frag in &frags {
            let Fragment::Text { mut start, mut len } = frag else {
                next.push(frag);
                continue;
            };
            while let Some(at) = finder.find(&text[start..start + len]).map(|p| p + start) {
                let mut left = at - start;
                if attr.has(Attr::LSTRIP) {
                    while left > 0 && is_space(text[start + left - 1]) {
                        left -= 1;
                    }
                }
                if left > 0 {
                    next.push(Fragment::Text { start, len: left });
                }
                next.push(Fragment::Token(id));
                let end = at + needle.len();
                let (mut rstart, mut rlen) = (end, start + len - end);
                if attr.has(Attr::RSTRIP) {
                    while rlen > 0 && is_space(text[rstart]) {
                        rstart += 1;
                        rlen -= 1;
                    }
                }
                start = rstart;
                len = rlen;
                if len == 0 {
                    break;
                }
            }
            if len > 0 {
                next.push(Fragment::Text { start, len });
            }
        }
        core::mem::swap(&mut frags, &mut next);
    }
    frags
}
