//! Code points as llama.cpp sees them: its UTF-8 decoder (which turns each bad byte into U+FFFD),
//! its character classes, lower case and accent stripping, all from its own tables
//! (`tables.rs`, generated from its `unicode-data.cpp`), and GPT-2's byte-to-character map.

mod tables;

use alloc::vec::Vec;

/// A code point's classes, as llama.cpp's `unicode_cpt_flags` packs them (low byte: the
/// category; then whitespace).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Flags(u16);

impl Flags {
    pub(crate) const UNDEFINED: u16 = 0x0001;
    pub(crate) const NUMBER: u16 = 0x0002;
    pub(crate) const LETTER: u16 = 0x0004;
    pub(crate) const ACCENT_MARK: u16 = 0x0010;
    pub(crate) const PUNCTUATION: u16 = 0x0020;
    pub(crate) const SYMBOL: u16 = 0x0040;
    pub(crate) const CONTROL: u16 = 0x0080;
    const WHITESPACE: u16 = 0x0100;

    /// No flags at all: what llama.cpp's splitters see past the end of a piece.
    pub(crate) const NONE: Flags = Flags(0);

    pub(crate) fn bits(self) -> u16 {
        self.0
    }
    pub(crate) fn category(self) -> u16 {
        self.0 & 0xFF
    }
    pub(crate) fn is_number(self) -> bool {
        self.0 & Self::NUMBER != 0
    }
    pub(crate) fn is_letter(self) -> bool {
        self.0 & Self::LETTER != 0
    }
    pub(crate) fn is_accent_mark(self) -> bool {
        self.0 & Self::ACCENT_MARK != 0
    }
    pub(crate) fn is_punctuation(self) -> bool {
        self.0 & Self::PUNCTUATION != 0
    }
    pub(crate) fn is_symbol(self) -> bool {
        self.0 & Self::SYMBOL != 0
    }
    pub(crate) fn is_control(self) -> bool {
        self.0 & Self::CONTROL != 0
    }
    pub(crate) fn is_whitespace(self) -> bool {
        self.0 & Self::WHITESPACE != 0
    }
}

/// The flags of code point `cpt`.
pub(crate) fn flags(cpt: u32) -> Flags {
    // ASCII, most of most text, from a table made once.
    static ASCII: once_cell::race::OnceBox<[Flags; 128]> = once_cell::race::OnceBox::new();
    if cpt < 128 {
        let ascii =
            ASCII.get_or_init(|| alloc::boxed::Box::new(core::array::from_fn(|c| looked_up(c as u32))));
        return ascii[cpt as usize];
    }
    looked_up(cpt)
}

fn looked_up(cpt: u32) -> Flags {
    if cpt >= 0x11_0000 {
        return Flags(Flags::UNDEFINED);
    }
    let i = tables::CATEGORIES.partition_point(|&(start, _)| start <= cpt) - 1;
    let mut bits = u16::from(tables::CATEGORIES[i].1);
    if tables::WHITESPACE.binary_search(&cpt).is_ok() {
        bits |= Flags::WHITESPACE;
    }
    Flags(bits)
}

/// The lower case of `cpt` (itself when it has none).
pub(crate) fn to_lower(cpt: u32) -> u32 {
    match tables::LOWERCASE.binary_search_by_key(&cpt, |&(c, _)| c) {
        Ok(i) => tables::LOWERCASE[i].1,
        Err(_) => cpt,
    }
}

/// `cpt` without its accents: the first code point of its canonical decomposition.
pub(crate) fn strip_accent(cpt: u32) -> u32 {
    let i = tables::NFD.partition_point(|&(first, _, _)| first <= cpt);
    match i.checked_sub(1).map(|i| tables::NFD[i]) {
        Some((first, last, base)) if first <= cpt && cpt <= last => base,
        _ => cpt,
    }
}

/// llama.cpp's `unicode_cpt_is_han`: the CJK ideograph blocks.
pub(crate) fn is_han(cpt: u32) -> bool {
    matches!(cpt,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0x2CEB0..=0x2EBEF | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

/// The length llama.cpp gives a UTF-8 sequence from its first byte (1 for a stray continuation
/// byte).
pub(crate) fn utf8_len(first: u8) -> usize {
    const LOOKUP: [usize; 16] = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4];
    LOOKUP[usize::from(first >> 4)]
}

/// Decodes one code point at `text[at..]` as llama.cpp's `unicode_cpt_from_utf8` does: the
/// lead byte and continuation bytes are checked, overlong forms and surrogates are not.
pub(crate) fn decode_one(text: &[u8], at: usize) -> Option<(u32, usize)> {
    let b0 = text[at];
    let cont = |i: usize| {
        text.get(at + i)
            .filter(|&&b| b & 0xC0 == 0x80)
            .map(|&b| u32::from(b & 0x3F))
    };
    if b0 & 0x80 == 0 {
        return Some((u32::from(b0), 1));
    }
    if b0 & 0x40 == 0 {
        return None;
    }
    if b0 & 0x20 == 0 {
        return Some(((u32::from(b0 & 0x1F) << 6) | cont(1)?, 2));
    }
    if b0 & 0x10 == 0 {
        return Some(((u32::from(b0 & 0x0F) << 12) | (cont(1)? << 6) | cont(2)?, 3));
    }
    if b0 & 0x08 == 0 {
        return Some((
            (u32::from(b0 & 0x07) << 18) | (cont(1)? << 12) | (cont(2)? << 6) | cont(3)?,
            4,
        ));
    }
    None
}

/// The code points of `text`; each byte that does not start a valid sequence becomes U+FFFD.
pub(crate) fn code_points(text: &[u8]) -> Vec<u32> {
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    while at < text.len() {
        match decode_one(text, at) {
            Some((cpt, len)) => {
                out.push(cpt);
                at += len;
            }
            None => {
                out.push(0xFFFD);
                at += 1;
            }
        }
    }
    out
}

/// Appends the UTF-8 form of `cpt`. Code points past U+10FFFF (which the decoder lets through
/// from lead bytes F5–F7, and which llama.cpp then fails on) are written as U+FFFD.
pub(crate) fn push_utf8(out: &mut Vec<u8>, cpt: u32) {
    let (bytes, len) = utf8(cpt);
    out.extend_from_slice(&bytes[..len]);
}

/// The UTF-8 form of `cpt` (see [`push_utf8`]) and its length.
pub(crate) fn utf8(cpt: u32) -> ([u8; 4], usize) {
    match cpt {
        0..=0x7F => ([cpt as u8, 0, 0, 0], 1),
        0x80..=0x7FF => ([0xC0 | (cpt >> 6) as u8, 0x80 | (cpt & 0x3F) as u8, 0, 0], 2),
        0x800..=0xFFFF => (
            [
                0xE0 | (cpt >> 12) as u8,
                0x80 | ((cpt >> 6) & 0x3F) as u8,
                0x80 | (cpt & 0x3F) as u8,
                0,
            ],
            3,
        ),
        0x1_0000..=0x10_FFFF => (
            [
                0xF0 | (cpt >> 18) as u8,
                0x80 | ((cpt >> 12) & 0x3F) as u8,
                0x80 | ((cpt >> 6) & 0x3F) as u8,
                0x80 | (cpt & 0x3F) as u8,
            ],
            4,
        ),
        _ => ([0xEF, 0xBF, 0xBD, 0], 3),
    }
}

/// GPT-2's `bytes_to_unicode`: the character that stands for byte `b` in a byte-level BPE
/// vocabulary. Printable Latin-1 bytes are themselves; the other 68 are U+0100 onwards, in
/// byte order.
pub(crate) fn byte_to_char(b: u8) -> u32 {
    match b {
        0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF => u32::from(b),
        0x00..=0x20 => 0x100 + u32::from(b),
        0x7F..=0xA0 => 0x100 + 0x21 + u32::from(b - 0x7F),
        0xAD => 0x100 + 0x21 + 0x22,
    }
}

/// [`byte_to_char`] backwards.
pub(crate) fn char_to_byte(c: u32) -> Option<u8> {
    match c {
        0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF => Some(c as u8),
        0x100..=0x120 => Some((c - 0x100) as u8),
        0x121..=0x142 => Some((c - 0x121 + 0x7F) as u8),
        0x143 => Some(0xAD),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_map_is_a_bijection() {
        for b in 0..=255u8 {
            assert_eq!(char_to_byte(byte_to_char(b)), Some(b));
        }
        assert_eq!(byte_to_char(b' '), 0x120); // Ġ
        assert_eq!(byte_to_char(b'\n'), 0x10A); // Ċ
    }

    #[test]
    fn classes() {
        assert!(flags('a' as u32).is_letter());
        assert!(flags('7' as u32).is_number());
        assert!(flags(' ' as u32).is_whitespace());
        assert!(flags(0x3000).is_whitespace());
        assert!(flags(0x301).is_accent_mark());
        assert_eq!(flags(0x11_0000).bits(), Flags::UNDEFINED);
        assert_eq!(to_lower('Q' as u32), 'q' as u32);
        assert_eq!(strip_accent('é' as u32), 'e' as u32);
    }

    #[test]
    fn bad_bytes_become_replacement_characters() {
        assert_eq!(code_points(b"a\xC3"), [0x61, 0xFFFD]);
        assert_eq!(code_points(b"\xE2\x82\xAC"), [0x20AC]);
        assert_eq!(code_points(b"\x80x"), [0xFFFD, 0x78]);
    }
}
