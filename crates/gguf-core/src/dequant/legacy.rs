//! The 32-element blocks with one fp16 scale (`Q4_0` … `Q8_1`) and the newer `Q1_0`/`Q2_0`,
//! after ggml's `dequantize_row_q*` (`ggml-quants.c`).

use super::{Word, each_block, f16_at, half, u32_at, words};
use crate::endian::Endian;

/// `d`, 16 bytes of nibbles: `(q - 8) × d`, low nibbles first.
pub(super) fn q4_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[half(0)], out, |b: &[u8; 18], y: &mut [f32; 32]| {
        let d = f16_at(b, 0);
        for j in 0..16 {
            let q = b[2 + j];
            y[j] = f32::from(i16::from(q & 0x0f) - 8) * d;
            y[j + 16] = f32::from(i16::from(q >> 4) - 8) * d;
        }
    });
}

/// `d`, `m`, 16 bytes of nibbles: `q × d + m`.
pub(super) fn q4_1(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[words(0, 2, 2)],
        out,
        |b: &[u8; 20], y: &mut [f32; 32]| {
            let (d, m) = (f16_at(b, 0), f16_at(b, 2));
            for j in 0..16 {
                let q = b[4 + j];
                y[j] = f32::from(q & 0x0f) * d + m;
                y[j + 16] = f32::from(q >> 4) * d + m;
            }
        },
    );
}

/// The fifth bit of element `j` and of element `j + 16`, from the 32-bit high-bit word.
fn fifth_bits(qh: u32, j: usize) -> (u8, u8) {
    ((((qh >> j) << 4) & 0x10) as u8, ((qh >> (j + 12)) & 0x10) as u8)
}

/// `qh` is read as one 32-bit word, so it is big-endian in a big-endian file.
const Q5_0_WORDS: [Word; 2] = [half(0), words(2, 4, 1)];
const Q5_1_WORDS: [Word; 2] = [words(0, 2, 2), words(4, 4, 1)];

/// `d`, a 32-bit word of fifth bits, 16 bytes of nibbles: `(q - 16) × d`.
pub(super) fn q5_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &Q5_0_WORDS, out, |b: &[u8; 22], y: &mut [f32; 32]| {
        let (d, qh) = (f16_at(b, 0), u32_at(b, 2));
        for j in 0..16 {
            let (h0, h1) = fifth_bits(qh, j);
            let q = b[6 + j];
            y[j] = f32::from(i16::from((q & 0x0f) | h0) - 16) * d;
            y[j + 16] = f32::from(i16::from((q >> 4) | h1) - 16) * d;
        }
    });
}

/// `d`, `m`, a 32-bit word of fifth bits, 16 bytes of nibbles: `q × d + m`.
pub(super) fn q5_1(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &Q5_1_WORDS, out, |b: &[u8; 24], y: &mut [f32; 32]| {
        let (d, m, qh) = (f16_at(b, 0), f16_at(b, 2), u32_at(b, 4));
        for j in 0..16 {
            let (h0, h1) = fifth_bits(qh, j);
            let q = b[8 + j];
            y[j] = f32::from((q & 0x0f) | h0) * d + m;
            y[j + 16] = f32::from((q >> 4) | h1) * d + m;
        }
    });
}

/// `d`, 32 signed bytes: `q × d`.
pub(super) fn q8_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[half(0)], out, |b: &[u8; 34], y: &mut [f32; 32]| {
        let d = f16_at(b, 0);
        for (j, v) in y.iter_mut().enumerate() {
            *v = f32::from(b[2 + j] as i8) * d;
        }
    });
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
