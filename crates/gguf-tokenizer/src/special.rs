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

/// Where special tokens may start in a text: the places of each pair of bytes that begins one,
/// found in one pass (a vocabulary has hundreds of special tokens; searching the text for each
/// would read it hundreds of times).
struct Starts {
    /// Each pair's places in the text, ascending, by pair.
    places: hashbrown::HashMap<u16, Vec<usize>>,
}

impl Starts {
    fn new<'v>(text: &[u8], tokens: impl Iterator<Item = &'v [u8]>) -> Starts {
        // Whether a special token starts with the pair of bytes `256 * a + b`.
        let mut pairs = alloc::vec![0u64; 1024];
        for t in tokens {
            if let [a, b, ..] = t {
                let k = usize::from(*a) << 8 | usize::from(*b);
                pairs[k / 64] |= 1 << (k % 64);
            }
        }
        let mut places: hashbrown::HashMap<u16, Vec<usize>> = hashbrown::HashMap::new();
        for (at, w) in text.windows(2).enumerate() {
            let k = usize::from(w[0]) << 8 | usize::from(w[1]);
            if pairs[k / 64] & (1 << (k % 64)) != 0 {
                places.entry(k as u16).or_default().push(at);
            }
        }
        Starts { places }
    }

    /// Where `needle` (of two bytes or more) occurs in `text`, ascending (overlaps included).
    fn of(&self, text: &[u8], needle: &[u8]) -> Vec<usize> {
        let k = (u16::from(needle[0]) << 8) | u16::from(needle[1]);
        let Some(places) = self.places.get(&k) else {
            return Vec::new();
        };
        places
            .iter()
            .copied()
            .filter(|&at| text[at..].starts_with(needle))
            .collect()
    }
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
    let matched = |id: u32| parse_special || !vocab.attr(id).has(Attr::CONTROL | Attr::UNKNOWN);
    let starts = Starts::new(
        text,
        cache.iter().filter(|&&id| matched(id)).map(|&id| vocab.text(id)),
    );
    let mut next = Vec::new();
    for &id in cache {
        let attr = vocab.attr(id);
        if !matched(id) {
            continue;
        }
        let needle = vocab.text(id);
        // Where it occurs in the whole text; tokens that occur nowhere (most of them) cost a look.
        let found = match needle {
            [_, _, ..] => starts.of(text, needle),
            _ => memmem::find_iter(text, needle).collect(),
        };
        if found.is_empty() {
            continue;
        }
        // The first place at or after `from` where it lies whole within `..end`: what a search
        // of text[from..end] finds.
        let mut places = found.iter().copied().peekable();
        let mut find = |from: usize, end: usize| {
            while places.next_if(|&at| at < from).is_some() {}
            places.peek().copied().filter(|&at| at + needle.len() <= end)
        };
        next.clear();
        for &frag in &frags {
            let Fragment::Text { mut start, mut len } = frag else {
                next.push(frag);
                continue;
            };
            while let Some(at) = find(start, start + len) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;
    use proptest::prelude::*;

    /// llama.cpp's `tokenizer_st_partition` as it is written: each token, longest first, searched
    /// for in each text fragment, leftmost first.
    fn searched(vocab: &Vocab, cache: &[u32], text: &[u8], parse_special: bool) -> Vec<Fragment> {
        let mut frags = alloc::vec![Fragment::Text {
            start: 0,
            len: text.len()
        }];
        if text.is_empty() {
            return Vec::new();
        }
        for &id in cache {
            let attr = vocab.attr(id);
            if !parse_special && attr.has(Attr::CONTROL | Attr::UNKNOWN) {
                continue;
            }
            let needle = vocab.text(id);
            let mut next = Vec::new();
            for &frag in &frags {
                let Fragment::Text { mut start, mut len } = frag else {
                    next.push(frag);
                    continue;
                };
                while let Some(at) = memmem::find(&text[start..start + len], needle).map(|p| p + start) {
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
                    let (mut rstart, mut rlen) = (at + needle.len(), start + len - at - needle.len());
                    if attr.has(Attr::RSTRIP) {
                        while rlen > 0 && is_space(text[rstart]) {
                            rstart += 1;
                            rlen -= 1;
                        }
                    }
                    (start, len) = (rstart, rlen);
                    if len == 0 {
                        break;
                    }
                }
                if len > 0 {
                    next.push(Fragment::Text { start, len });
                }
            }
            frags = next;
        }
        frags
    }

    #[test]
    fn the_one_pass_partition_is_the_searched_one() {
        // Overlapping, nested and one-byte special tokens, stripping on either side.
        let specials: [(&str, Attr); 7] = [
            ("<|im_start|>", Attr::CONTROL),
            ("<|im", Attr::USER_DEFINED | Attr::RSTRIP),
            ("im_st", Attr::USER_DEFINED | Attr::LSTRIP),
            ("aa", Attr::USER_DEFINED),
            ("\n\n", Attr::USER_DEFINED),
            ("|", Attr::USER_DEFINED),
            ("<unk>", Attr::UNKNOWN),
        ];
        let mut texts: Vec<&str> = specials.iter().map(|(t, _)| *t).collect();
        texts.push("plain");
        let attrs: Vec<Attr> = specials.iter().map(|(_, a)| *a).chain([Attr::NORMAL]).collect();
        let vocab = Vocab::new(texts.iter().collect(), alloc::vec![0.0; texts.len()], attrs).unwrap();
        let mut cache: Vec<u32> = (0..specials.len() as u32).collect();
        cache.sort_by_key(|&id| core::cmp::Reverse(vocab.text(id).len()));
        const PIECES: [&str; 12] = [
            "<|im_start|>",
            "<|im",
            "im_st",
            "a",
            "aa",
            "\n",
            " ",
            "|",
            "<unk>",
            "x",
            "<",
            "art|>",
        ];
        let text =
            proptest::collection::vec(proptest::sample::select(&PIECES[..]), 0..24).prop_map(|p| p.concat());
        proptest!(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() }, |(t in text, parse in any::<bool>())| {
            let got = partition(&vocab, &cache, t.as_bytes(), parse);
            prop_assert_eq!(got, searched(&vocab, &cache, t.as_bytes(), parse), "{:?}", String::from(t.as_str()));
        });
    }
}
