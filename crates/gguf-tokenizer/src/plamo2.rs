//! PLaMo-2's tokenizer, as llama.cpp's `llm_tokenizer_plamo2`: the best-scoring split of the
//! text's code points into tokens, found right to left by dynamic programming over a table of
//! every token's suffixes (an Aho–Corasick-like automaton read backwards); a code point no token
//! covers becomes the byte tokens of its UTF-8.
//!
//! The table is llama.cpp's to the row: the same suffix set, sorted by reversed bytes, the same
//! ids, and the same integer scores (a token's score times 10⁴, rounded), so ties and the
//! special scores (`-1000.0` is the "unknown" row's score) fall as they fall there. Keys are
//! built as llama.cpp builds them: a token's own text as stored, its suffixes and prefixes from
//! its code points written back to UTF-8 (which differs for text that is not UTF-8).

use alloc::vec::Vec;

use hashbrown::{DefaultHashBuilder, HashMap, HashTable};

use crate::Error;
use crate::index::hash_bytes;
use crate::unicode;
use crate::vocab::{Attr, Vocab};

/// A row of the table: a piece that starts where the automaton stands.
#[derive(Debug, Clone, Copy)]
struct Row {
    /// In code points.
    len: u32,
    /// The token, or -1 for the row that falls back to bytes.
    token: i32,
    /// The token's score times 10⁴, [`INVALID`] for a piece that is no token, [`UNKNOWN`] for
    /// the byte fallback.
    score: i32,
    /// The piece's own suffix id.
    piece: u32,
}

const INVALID: i32 = -20_000_000;
const UNKNOWN: i32 = -10_000_000;
/// Beyond any reachable total.
const UNREACHED: i64 = 1 << 60;

#[derive(Debug, Clone)]
pub(crate) struct Plamo2 {
    table: Vec<Row>,
    /// (code point << 32 | suffix id of the rest) → the suffix id of the code point + the rest.
    to_suffix: HashMap<u64, u32>,
    /// The byte tokens, by byte.
    bytes: [u32; 256],
}

/// The strings llama.cpp's table is made of, each once: its bytes in `arena`, its score (NaN for
/// a suffix that is no token's text).
struct Keys {
    arena: Vec<u8>,
    spans: Vec<(u32, u32)>,
    scores: Vec<f32>,
    index: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

impl Keys {
    fn get(&self, key: u32) -> &[u8] {
        let (start, len) = self.spans[key as usize];
        &self.arena[start as usize..(start + len) as usize]
    }

    fn find(&self, text: &[u8]) -> Option<u32> {
        let hash = hash_bytes(&self.hasher, text);
        self.index.find(hash, |&k| self.get(k) == text).copied()
    }

    /// The key of `arena[start..start + len]`, added (with a NaN score) if new.
    fn intern(&mut self, start: usize, len: usize) -> u32 {
        let Keys {
            arena,
            spans,
            scores,
            index,
            hasher,
        } = self;
        let text = &arena[start..start + len];
        let get = |k: u32| {
            let (s, l) = spans[k as usize];
            &arena[s as usize..(s + l) as usize]
        };
        let hash = hash_bytes(hasher, text);
        if let Some(&k) = index.find(hash, |&k| get(k) == text) {
            return k;
        }
        let key = spans.len() as u32;
        index.insert_unique(hash, key, |&k| hash_bytes(hasher, get(k)));
        spans.push((start as u32, len as u32));
        scores.push(f32::NAN);
        key
    }
}

/// `text`'s code points written back to UTF-8 (`out`), with the offset in `out` where each
/// code point starts and the end (`ends`). False for a code point past U+10FFFF (from lead
/// bytes F4–F7), which llama.cpp cannot write back and fails on.
fn reencode(text: &[u8], out: &mut Vec<u8>, ends: &mut Vec<u32>) -> bool {
    out.clear();
    ends.clear();
    ends.push(0);
    for cpt in unicode::code_points(text) {
        if cpt > 0x10_FFFF {
            return false;
        }
        unicode::push_utf8(out, cpt);
        ends.push(out.len() as u32);
    }
    true
}

/// llama.cpp's `static_cast<int32_t>(std::round(score * 1e4))` on x86-64 (where a value out of
/// range converts to `INT32_MIN`), or [`INVALID`] for a score that is not finite.
fn table_score(score: f32) -> i32 {
    if !score.is_finite() {
        return INVALID;
    }
    let x = f64::from(score) * 1e4;
    if !(x > -4e9 && x < 4e9) {
        return i32::MIN;
    }
    let whole = x as i64;
    let frac = x - whole as f64;
    let rounded = match frac {
        f if f >= 0.5 => whole + 1,
        f if f <= -0.5 => whole - 1,
        _ => whole,
    };
    i32::try_from(rounded).unwrap_or(i32::MIN)
}

/// llama.cpp's byte-token test: `<0xXX>` exactly, two hex digits.
fn byte_of(text: &[u8]) -> Option<u8> {
    match text {
        [b'<', b'0', b'x', hi, lo, b'>'] => {
            let digit = |c: u8| (c as char).to_digit(16);
            Some((digit(*hi)? * 16 + digit(*lo)?) as u8)
        }
        _ => None,
    }
}

/// The byte a PLaMo-2 byte token stands for (`None` for one not written `<0xXX>`, whose piece
/// is its text).
pub(crate) fn byte_of_token(text: &[u8]) -> Option<u8> {
    byte_of(text)
}

impl Plamo2 {
    /// llama.cpp's `llm_tokenizer_plamo2::build`, from the token types as the file gives them.
    pub(crate) fn new(vocab: &Vocab) -> Result<Plamo2, Error> {
        let mut keys = Keys {
            arena: Vec::new(),
            spans: Vec::new(),
            scores: Vec::new(),
            index: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
        };
        let mut bytes = [0u32; 256];
        let (mut enc, mut ends) = (Vec::new(), Vec::new());
        for id in 0..vocab.len() as u32 {
            let text = vocab.text(id);
            if vocab.attr(id).has(Attr::BYTE) {
                if let Some(b) = byte_of(text) {
                    bytes[usize::from(b)] = id;
                }
                continue;
            }
            if !reencode(text, &mut enc, &mut ends) {
                return Err(Error::BadToken { id });
            }
            // The token's own text, with its score (a suffix of an earlier token's takes it).
            let start = keys.arena.len();
            keys.arena.extend_from_slice(text);
            let key = keys.intern(start, text.len());
            keys.scores[key as usize] = vocab.score(id);
            // Its suffixes, from its code points: within the text itself when that is UTF-8.
            let base = if enc == text {
                start
            } else {
                let b = keys.arena.len();
                keys.arena.extend_from_slice(&enc);
                b
            };
            for &from in ends.get(1..ends.len() - 1).unwrap_or_default() {
                keys.intern(base + from as usize, enc.len() - from as usize);
            }
        }
        // llama.cpp refuses a vocabulary that lacks a byte (token 0 counts as lacking).
        if let Some(b) = bytes.iter().position(|&id| id == 0) {
            return Err(Error::MissingByteToken(b as u8));
        }
        // The empty suffix, which sorts first.
        let empty = keys.intern(keys.arena.len(), 0);

        let mut order: Vec<u32> = (0..keys.spans.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| keys.get(a).iter().rev().cmp(keys.get(b).iter().rev()));
        debug_assert_eq!(order.first(), Some(&empty));

        // Each suffix's id is where its rows start; its rows are its prefixes that are keys,
        // longest first, then a sentinel. A row's piece id is filled once every id is known.
        const UNASSIGNED: u32 = u32::MAX;
        let mut suffix_id = alloc::vec![UNASSIGNED; keys.spans.len()];
        let mut to_suffix: HashMap<u64, u32> = HashMap::default();
        let mut table: Vec<Row> = Vec::new();
        let mut piece_keys: Vec<u32> = Vec::new();
        for &key in &order {
            let here = table.len() as u32;
            suffix_id[key as usize] = here;
            let text = keys.get(key);
            // Every key's code points were written back once already (as a token's text or
            // from one), so this succeeds.
            if !text.is_empty() && reencode(text, &mut enc, &mut ends) {
                let first = unicode::decode_one(&enc, 0).map_or(0xFFFD, |(c, _)| c);
                // The rest's id as llama.cpp's `operator[]` gives it: 0 when not assigned yet.
                let rest = match keys.find(&enc[ends[1] as usize..]) {
                    Some(k) if suffix_id[k as usize] != UNASSIGNED => suffix_id[k as usize],
                    _ => 0,
                };
                to_suffix.insert(u64::from(first) << 32 | u64::from(rest), here);
                for n in (1..ends.len()).rev() {
                    let piece = &enc[..ends[n] as usize];
                    let Some(k) = keys.find(piece) else {
                        continue;
                    };
                    table.push(Row {
                        len: n as u32,
                        token: vocab.find(piece).map_or(-1, |t| t as i32),
                        score: table_score(keys.scores[k as usize]),
                        piece: 0,
                    });
                    piece_keys.push(k);
                }
            }
            table.push(Row {
                len: 1,
                token: -1,
                score: UNKNOWN,
                piece: 0,
            });
            piece_keys.push(UNASSIGNED);
        }
        for (row, &k) in table.iter_mut().zip(&piece_keys) {
            if k != UNASSIGNED {
                row.piece = suffix_id[k as usize];
            }
        }
        Ok(Plamo2 {
            table,
            to_suffix,
            bytes,
        })
    }

    /// llama.cpp's `llm_tokenizer_plamo2::encode` of one piece of text.
    pub(crate) fn tokenize(&self, text: &[u8], out: &mut Vec<u32>) {
        let mut cpts = unicode::code_points(text);
        if cpts.first() == Some(&0xFEFF) {
            cpts.remove(0);
        }
        let n = cpts.len();
        if n == 0 {
            return;
        }
        // Best total (lower is better) from each position to the end, and the token taken there.
        let mut best = alloc::vec![UNREACHED; n + 1];
        best[n] = 0;
        let mut path = alloc::vec![(0u32, -1i32); n + 1];
        let mut suffix = 0usize;
        for i in (0..n).rev() {
            let c = u64::from(cpts[i]);
            // The longest known suffix that the text from here starts with.
            for row in &self.table[suffix..] {
                suffix = self
                    .to_suffix
                    .get(&(c << 32 | u64::from(row.piece)))
                    .map_or(0, |&s| s as usize);
                if suffix > 0 || row.score == UNKNOWN {
                    break;
                }
            }
            for row in &self.table[suffix..] {
                if row.score > INVALID {
                    let Some(&after) = best.get(i + row.len as usize) else {
                        continue;
                    };
                    let total = after.wrapping_sub(i64::from(row.score));
                    if total < best[i] {
                        best[i] = total;
                        path[i] = (row.len, row.token);
                    }
                }
                if row.score == UNKNOWN {
                    break;
                }
            }
        }
        let mut pos = 0;
        while pos < n {
            let (len, token) = path[pos];
            if token >= 0 {
                out.push(token as u32);
            } else {
                let mut utf8 = Vec::with_capacity(4);
                push_utf8_any(&mut utf8, cpts[pos]);
                out.extend(utf8.iter().map(|&b| self.bytes[usize::from(b)]));
            }
            pos += len.max(1) as usize;
        }
    }
}

/// UTF-8 as llama.cpp's byte fallback writes it, code points past U+10FFFF (from lead bytes
/// F4–F7) included.
fn push_utf8_any(out: &mut Vec<u8>, c: u32) {
    let s = 1 + usize::from(c >= 0x80) + usize::from(c >= 0x800) + usize::from(c >= 0x1_0000);
    for i in 0..s {
        let lead = match (s, i) {
            (1, _) => c as u8,
            (_, 0) => ((0xF00u32 >> s) & 0xFF) as u8,
            _ => 0x80,
        };
        out.push(lead | ((c >> ((s - i - 1) * 6)) & 0x3F) as u8);
    }
}
