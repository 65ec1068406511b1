//! WordPiece (BERT), as llama.cpp's `llm_tokenizer_wpm_session`: the text is cut into words at
//! whitespace and around punctuation and CJK characters (accents stripped and lower-cased as the
//! normalizer says); each word, with a `▁` before it, is matched longest token first, and a
//! word that cannot be matched to the end is the unknown token.

use alloc::vec::Vec;

use crate::unicode;
use crate::vocab::Vocab;

/// llama.cpp's `is_chinese_char` (with Hugging Face's `0x2B920`).
fn is_chinese(c: u32) -> bool {
    matches!(c,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B920..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

/// The words of `text`.
fn words(text: &[u8], lowercase: bool, strip_accents: bool) -> Vec<Vec<u8>> {
    let mut words: Vec<Vec<u8>> = alloc::vec![Vec::new()];
    for mut c in unicode::code_points(text) {
        if strip_accents {
            c = unicode::strip_accent(c);
        }
        let f = unicode::flags(c);
        if f.is_whitespace() {
            if !words.last().unwrap().is_empty() {
                words.push(Vec::new());
            }
            continue;
        }
        if c == 0 || c == 0xFFFD || f.is_control() || (strip_accents && f.is_accent_mark()) {
            continue;
        }
        let mut s = Vec::new();
        unicode::push_utf8(&mut s, if lowercase { unicode::to_lower(c) } else { c });
        if f.is_punctuation() || (c < 0x7F && f.is_symbol()) || is_chinese(c) {
            if !words.last().unwrap().is_empty() {
                words.push(Vec::new());
            }
            *words.last_mut().unwrap() = s;
            words.push(Vec::new());
        } else {
            words.last_mut().unwrap().extend_from_slice(&s);
        }
    }
    if words.last().unwrap().is_empty() {
        words.pop();
    }
    words
}

pub(crate) fn tokenize(
    vocab: &Vocab,
    unk: Option<u32>,
    lowercase: bool,
    strip_accents: bool,
    text: &[u8],
    out: &mut Vec<u32>,
) {
    let max_len = vocab.max_token_len();
    for word in words(text, lowercase, strip_accents) {
        let mut w = Vec::with_capacity(word.len() + 3);
        w.extend_from_slice("▁".as_bytes());
        w.extend_from_slice(&word);
        let n = w.len();
        let before = out.len();
        let mut i = 0;
        while i < n {
            let found = (i + 1..=n.min(i + max_len + 1))
                .rev()
                .find_map(|j| vocab.find(&w[i..j]).map(|id| (id, j)));
            match found {
                Some((id, j)) => {
                    out.push(id);
                    i = j;
                }
                None => {
                    out.truncate(before);
                    break;
                }
            }
        }
        if out.len() == before {
            out.extend(unk);
        }
    }
}
