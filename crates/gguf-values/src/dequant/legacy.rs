//! The 32-element blocks with one fp16 scale (`Q4_0` … `Q8_1`) and the newer `Q1_0`/`Q2_0`,
//! after ggml's `dequantize_row_q*` (`ggml-quants.c`).

use super::{Word, each_block, f16_at, half, u32_at, words};
use gguf_core::Endian;

// The hot loops below run over fixed-size halves of a block (no indices, no branches), so the
// compiler turns each into SIMD code; `(f32::from(x) - k) × d` equals ggml's
// `(float)(x - k) × d` exactly, as both `x - k` are small integers.

/// `d`, 16 bytes of nibbles: `(q - 8) × d`, low nibbles first.
#[inline(always)]
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
#[inline(always)]
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

/// Bit `j` of a `Q5_0`/`Q5_1` block's fifth-bit word (element `j`'s; element `16 + j`'s once
/// shifted by 16), for lane `j` of a 16-element half: a mask per lane from a constant table, so
/// the loops vectorize.
const LANE_BITS: [u32; 16] = {
    let mut bits = [0; 16];
    let mut j = 0;
    while j < 16 {
        bits[j] = 1 << j;
        j += 1;
    }
    bits
};

/// -16.0 when `clear` (a fifth bit not set), else 0.0: as bits, from a multiply rather than a
/// choice, which a build without SIMD would make a branch on a random bit.
#[inline]
fn offset(clear: bool) -> f32 {
    f32::from_bits(u32::from(clear) * (-16.0f32).to_bits())
}

/// 16.0 when `set`, else 0.0, as [`offset`] makes its.
#[inline]
fn fifth(set: bool) -> f32 {
    f32::from_bits(u32::from(set) * 16.0f32.to_bits())
}

/// `qh` is read as one 32-bit word, so it is big-endian in a big-endian file.
const Q5_0_WORDS: [Word; 2] = [half(0), words(2, 4, 1)];
const Q5_1_WORDS: [Word; 2] = [words(0, 2, 2), words(4, 4, 1)];

/// `d`, a 32-bit word of fifth bits, 16 bytes of nibbles: `(q - 16) × d`.
#[inline(always)]
pub(super) fn q5_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &Q5_0_WORDS,
        out,
        #[inline(always)]
        |b: &[u8; 22], y: &mut [f32; 32]| {
            let d = f16_at(b, 0);
            let qh = u32_at(b, 2);
            let (low, high) = y.split_at_mut(16);
            // `q - 16` as the nibble plus 0 (fifth bit set) or -16: the same small integer, so
            // the same value as ggml's `(float)(q - 16) × d`.
            for (((l, h), &q), &bit) in low.iter_mut().zip(high).zip(&b[6..]).zip(&LANE_BITS) {
                let (low_offset, high_offset) = (offset(qh & bit == 0), offset((qh >> 16) & bit == 0));
                *l = (f32::from(q & 0x0f) + low_offset) * d;
                *h = (f32::from(q >> 4) + high_offset) * d;
            }
        },
    );
}

/// `d`, `m`, a 32-bit word of fifth bits, 16 bytes of nibbles: `q × d + m`.
#[inline(always)]
pub(super) fn q5_1(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &Q5_1_WORDS,
        out,
        #[inline(always)]
        |b: &[u8; 24], y: &mut [f32; 32]| {
            let (d, m) = (f16_at(b, 0), f16_at(b, 2));
            let qh = u32_at(b, 4);
            let (low, high) = y.split_at_mut(16);
            // `q` as the nibble plus 16 (fifth bit set) or 0: the same small integer.
            for (((l, h), &q), &bit) in low.iter_mut().zip(high).zip(&b[8..]).zip(&LANE_BITS) {
                let (low_fifth, high_fifth) = (fifth(qh & bit != 0), fifth((qh >> 16) & bit != 0));
                *l = (f32::from(q & 0x0f) + low_fifth) * d + m;
                *h = (f32::from(q >> 4) + high_fifth) * d + m;
            }
        },
    );
}

/// `d`, 32 signed bytes: `q × d`.
#[inline(always)]
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
#[inline(always)]
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
#[inline(always)]
pub(super) fn q1_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[half(0)], out, |b: &[u8; 18], y: &mut [f32; 128]| {
        let d = f16_at(b, 0);
        for (j, v) in y.iter_mut().enumerate() {
            *v = if (b[2 + j / 8] >> (j % 8)) & 1 == 1 { d } else { -d };
        }
    });
}

/// `d`, 64 two-bit codes (least significant first): `(q - 1) × d`.
#[inline(always)]
pub(super) fn q2_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[half(0)], out, |b: &[u8; 18], y: &mut [f32; 64]| {
        let d = f16_at(b, 0);
        for (j, v) in y.iter_mut().enumerate() {
            let q = (b[2 + j / 4] >> (2 * (j % 4))) & 3;
            *v = f32::from(i16::from(q) - 1) * d;
        }
    });
}
