//! The 32-element blocks with one fp16 scale (`Q4_0` … `Q8_1`) and the newer `Q1_0`/`Q2_0`,
//! after ggml's `dequantize_row_q*` (`ggml-quants.c`).

use super::{Word, each_block, f16_at, half, words};
use crate::endian::Endian;

// The hot loops below run over fixed-size halves of a block (no indices, no branches), so the
// compiler turns each into SIMD code; `(f32::from(x) - k) × d` equals ggml's
// `(float)(x - k) × d` exactly, as both `x - k` are small integers.

/// `d`, 16 bytes of nibbles: `(q - 8) × d`, low nibbles first.
pub(super) fn q4_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[half(0)],
        out,
        #[inline(always)]
        |b: &[u8; 18], y: &mut [f32; 32]| {
            let d = f16_at(b, 0);
            let (low, high) = y.split_at_mut(16);
            for ((l, h), &q) in low.iter_mut().zip(high).zip(&b[2..]) {
                *l = (f32::from(q & 0x0f) - 8.0) * d;
                *h = (f32::from(q >> 4) - 8.0) * d;
            }
        },
    );
}

/// `d`, `m`, 16 bytes of nibbles: `q × d + m`.
pub(super) fn q4_1(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[words(0, 2, 2)],
        out,
        #[inline(always)]
        |b: &[u8; 20], y: &mut [f32; 32]| {
            let (d, m) = (f16_at(b, 0), f16_at(b, 2));
            let (low, high) = y.split_at_mut(16);
            for ((l, h), &q) in low.iter_mut().zip(high).zip(&b[4..]) {
                *l = f32::from(q & 0x0f) * d + m;
                *h = f32::from(q >> 4) * d + m;
            }
        },
    );
}

/// The 32 fifth bits of a `Q5_0`/`Q5_1` block (bit `j` of the little-endian word is element
/// `j`'s), each as `0x10` or 0, ready to be or-ed onto its nibble: eight at a time, by spreading
/// a byte's bits over the eight bytes of a `u64` without a loop or branch.
fn fifth_bits(qh: &[u8]) -> [u8; 32] {
    let mut bits = [0; 32];
    for (eight, &byte) in bits.chunks_exact_mut(8).zip(qh) {
        // Byte i of `spread` is bit i of `byte` in place (0 or 2^i); adding 0x7f sets its top
        // bit exactly when that is not 0, without carrying into the next byte.
        let spread = (u64::from(byte) * 0x0101_0101_0101_0101) & 0x8040_2010_0804_0201;
        let tens = ((spread + 0x7f7f_7f7f_7f7f_7f7f) & 0x8080_8080_8080_8080) >> 3;
        eight.copy_from_slice(&tens.to_le_bytes());
    }
    bits
}

/// `qh` is read as one 32-bit word, so it is big-endian in a big-endian file.
const Q5_0_WORDS: [Word; 2] = [half(0), words(2, 4, 1)];
const Q5_1_WORDS: [Word; 2] = [words(0, 2, 2), words(4, 4, 1)];

/// `d`, a 32-bit word of fifth bits, 16 bytes of nibbles: `(q - 16) × d`.
pub(super) fn q5_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &Q5_0_WORDS,
        out,
        #[inline(always)]
        |b: &[u8; 22], y: &mut [f32; 32]| {
            let d = f16_at(b, 0);
            let fifth = fifth_bits(&b[2..6]);
            let (low, high) = y.split_at_mut(16);
            let (fifth_low, fifth_high) = fifth.split_at(16);
            for ((((l, h), &q), &h0), &h1) in low
                .iter_mut()
                .zip(high)
                .zip(&b[6..])
                .zip(fifth_low)
                .zip(fifth_high)
            {
                *l = (f32::from((q & 0x0f) | h0) - 16.0) * d;
                *h = (f32::from((q >> 4) | h1) - 16.0) * d;
            }
        },
    );
}

/// `d`, `m`, a 32-bit word of fifth bits, 16 bytes of nibbles: `q × d + m`.
pub(super) fn q5_1(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &Q5_1_WORDS,
        out,
        #[inline(always)]
        |b: &[u8; 24], y: &mut [f32; 32]| {
            let (d, m) = (f16_at(b, 0), f16_at(b, 2));
            let fifth = fifth_bits(&b[4..8]);
            let (low, high) = y.split_at_mut(16);
            let (fifth_low, fifth_high) = fifth.split_at(16);
            for ((((l, h), &q), &h0), &h1) in low
                .iter_mut()
                .zip(high)
                .zip(&b[8..])
                .zip(fifth_low)
                .zip(fifth_high)
            {
                *l = f32::from((q & 0x0f) | h0) * d + m;
                *h = f32::from((q >> 4) | h1) * d + m;
            }
        },
    );
}

/// `d`, 32 signed bytes: `q × d`.
pub(super) fn q8_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[half(0)],
        out,
        #[inline(always)]
        |b: &[u8; 34], y: &mut [f32; 32]| {
            let d = f16_at(b, 0);
            for (v, &q) in y.iter_mut().zip(&b[2..]) {
                *v = f32::from(q as i8) * d;
            }
        },
    );
}

/// `d`, `s` (= d × Σq, unused here), 32 signed bytes: `q × d`. ggml's 36-byte layout, not the
/// 40-byte one of 2023 that gguf-py still lists.
pub(super) fn q8_1(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[words(0, 2, 2)],
        out,
        |b: &[u8; 36], y: &mut [f32; 32]| {
            let d = f16_at(b, 0);
            for (j, v) in y.iter_mut().enumerate() {
                *v = f32::from(b[4 + j] as i8) * d;
            }
        },
    );
}

/// `d`, 128 sign bits (least significant first): `+d` for a set bit, `-d` otherwise.
pub(super) fn q1_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[half(0)], out, |b: &[u8; 18], y: &mut [f32; 128]| {
        let d = f16_at(b, 0);
        for (j, v) in y.iter_mut().enumerate() {
            *v = if (b[2 + j / 8] >> (j % 8)) & 1 == 1 { d } else { -d };
        }
    });
}

/// `d`, 64 two-bit codes (least significant first): `(q - 1) × d`.
pub(super) fn q2_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[half(0)], out, |b: &[u8; 18], y: &mut [f32; 64]| {
        let d = f16_at(b, 0);
        for (j, v) in y.iter_mut().enumerate() {
            let q = (b[2 + j / 4] >> (2 * (j % 4))) & 3;
            *v = f32::from(i16::from(q) - 1) * d;
        }
    });
}
