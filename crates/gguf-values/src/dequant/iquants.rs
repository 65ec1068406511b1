//! The i-quants: weights as points of fixed lattices (`grids`) with per-group scales and sign
//! bits, and the non-linear 4-bit `IQ4_NL`/`IQ4_XS`, after ggml's `dequantize_row_iq*`
//! (`ggml-quants.c`).

use super::grids::{IQ1S_GRID, IQ2S_GRID, IQ2XS_GRID, IQ2XXS_GRID, IQ3S_GRID, IQ3XXS_GRID};
use super::{Word, each_block, f16_at, half, u16_at, u32_at, words};
use crate::dequant::float::f16_to_f32;
use gguf_core::Endian;

/// ggml's `kvalues_iq4nl`: the 16 levels of the non-linear 4-bit types.
const IQ4_LEVELS: [i8; 16] = [
    -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
];

/// ggml's `IQ1S_DELTA`: the shift of `IQ1_S`/`IQ1_M` grid points.
const IQ1_DELTA: f32 = 0.125;

/// ggml's `ksigns_iq2xs[i]`: seven stored sign bits plus an eighth that makes the count of
/// minus signs even.
#[inline]
fn signs_of(seven: u32) -> u8 {
    let bits = (seven & 0x7f) as u8;
    bits | (((bits.count_ones() & 1) as u8) << 7)
}

/// -1.0 where bit `j` of `signs` is set, else 1.0.
#[inline]
fn sign(signs: u8, j: usize) -> f32 {
    if (signs >> j) & 1 == 1 { -1.0 } else { 1.0 }
}

/// Byte `j` of a grid point.
#[inline]
fn point(entry: u64, j: usize) -> f32 {
    f32::from(entry.to_le_bytes()[j % 8])
}

/// The scale of a 2-bit i-quant group: `d × (0.5 + s) × 0.25`.
#[inline]
fn iq2_scale(d: f32, s: u32) -> f32 {
    d * (0.5 + s as f32) * 0.25
}

/// `d`, then per 32 elements 8 bytes: four grid indices, and a word of four 7-bit sign sets
/// and a 4-bit scale. Only that second word is read as a number.
#[inline(always)]
pub(super) fn iq2_xxs(bytes: &[u8], e: Endian, out: &mut [f32]) {
    const WORDS: [Word; 2] = [
        half(0),
        Word {
            at: 6,
            width: 4,
            count: 8,
            stride: 8,
        },
    ];
    each_block(bytes, e, &WORDS, out, |b: &[u8; 66], y: &mut [f32; 256]| {
        let d = f16_at(b, 0);
        for (g, group) in y.chunks_exact_mut(32).enumerate() {
            let aux = u32_at(b, 2 + 8 * g + 4);
            let db = iq2_scale(d, aux >> 28);
            for (l, eight) in group.chunks_exact_mut(8).enumerate() {
                let entry = IQ2XXS_GRID[usize::from(b[2 + 8 * g + l])];
                let signs = signs_of(aux >> (7 * l));
                for (j, v) in eight.iter_mut().enumerate() {
                    *v = db * point(entry, j) * sign(signs, j);
                }
            }
        }
    });
}

/// `d`, 32 16-bit words (9-bit grid index, 7 sign bits), 8 bytes of two 4-bit scales.
#[inline(always)]
pub(super) fn iq2_xs(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[half(0), words(2, 2, 32)],
        out,
        |b: &[u8; 74], y: &mut [f32; 256]| {
            let d = f16_at(b, 0);
            for (g, group) in y.chunks_exact_mut(32).enumerate() {
                let scales = b[66 + g];
                for (l, eight) in group.chunks_exact_mut(8).enumerate() {
                    let db = iq2_scale(d, u32::from((scales >> (4 * (l / 2))) & 0x0f));
                    let q = u16_at(b, 2 + 2 * (4 * g + l));
                    let entry = IQ2XS_GRID[usize::from(q & 511)];
                    let signs = signs_of(u32::from(q >> 9));
                    for (j, v) in eight.iter_mut().enumerate() {
                        *v = db * point(entry, j) * sign(signs, j);
                    }
                }
            }
        },
    );
}

/// `d`, 32 bytes of low index bits, 32 bytes of signs, 8 bytes of two high index bits, 8 bytes
/// of two 4-bit scales.
#[inline(always)]
pub(super) fn iq2_s(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[half(0)], out, |b: &[u8; 82], y: &mut [f32; 256]| {
        let d = f16_at(b, 0);
        for (g, group) in y.chunks_exact_mut(32).enumerate() {
            let (qh, scales) = (usize::from(b[66 + g]), b[74 + g]);
            for (l, eight) in group.chunks_exact_mut(8).enumerate() {
                let db = iq2_scale(d, u32::from((scales >> (4 * (l / 2))) & 0x0f));
                let index = usize::from(b[2 + 4 * g + l]) | ((qh << (8 - 2 * l)) & 0x300);
                let entry = IQ2S_GRID[index];
                let signs = b[34 + 4 * g + l];
                for (j, v) in eight.iter_mut().enumerate() {
                    *v = db * point(entry, j) * sign(signs, j);
                }
            }
        }
    });
}

/// `d`, 64 bytes of grid indices (4 values each), then per 32 elements a word of four 7-bit
/// sign sets and a 4-bit scale.
#[inline(always)]
pub(super) fn iq3_xxs(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[half(0), words(66, 4, 8)],
        out,
        |b: &[u8; 98], y: &mut [f32; 256]| {
            let d = f16_at(b, 0);
            for (g, group) in y.chunks_exact_mut(32).enumerate() {
                let aux = u32_at(b, 66 + 4 * g);
                let db = d * (0.5 + (aux >> 28) as f32) * 0.5;
                for (l, eight) in group.chunks_exact_mut(8).enumerate() {
                    let signs = signs_of(aux >> (7 * l));
                    let first = IQ3XXS_GRID[usize::from(b[2 + 8 * g + 2 * l])].to_le_bytes();
                    let second = IQ3XXS_GRID[usize::from(b[2 + 8 * g + 2 * l + 1])].to_le_bytes();
                    for (j, v) in eight.iter_mut().enumerate() {
                        let magnitude = if j < 4 { first[j] } else { second[j - 4] };
                        *v = db * f32::from(magnitude) * sign(signs, j);
                    }
                }
            }
        },
    );
}

/// `d`, 64 bytes of low index bits, 8 bytes of ninth bits, 32 bytes of signs, 4 bytes of two
/// 4-bit scales: `d × (1 + 2s)` per 32 elements.
#[inline(always)]
pub(super) fn iq3_s(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[half(0)], out, |b: &[u8; 110], y: &mut [f32; 256]| {
        let d = f16_at(b, 0);
        for (g, group) in y.chunks_exact_mut(32).enumerate() {
            let s = (b[106 + g / 2] >> (4 * (g % 2))) & 0x0f;
            let db = d * f32::from(1 + 2 * s);
            let qh = usize::from(b[66 + g]);
            for (l, eight) in group.chunks_exact_mut(8).enumerate() {
                let i0 = usize::from(b[2 + 8 * g + 2 * l]) | ((qh << (8 - 2 * l)) & 256);
                let i1 = usize::from(b[2 + 8 * g + 2 * l + 1]) | ((qh << (7 - 2 * l)) & 256);
                let (first, second) = (IQ3S_GRID[i0].to_le_bytes(), IQ3S_GRID[i1].to_le_bytes());
                let signs = b[74 + 4 * g + l];
                for (j, v) in eight.iter_mut().enumerate() {
                    let magnitude = if j < 4 { first[j] } else { second[j - 4] };
                    *v = db * f32::from(magnitude) * sign(signs, j);
                }
            }
        }
    });
}

/// A ternary grid point shifted by ±`IQ1_DELTA` and scaled: `dl × (point + delta)`.
#[inline]
fn iq1_values(eight: &mut [f32], entry: u64, dl: f32, delta: f32) {
    for (v, b) in eight.iter_mut().zip(entry.to_le_bytes()) {
        *v = dl * (f32::from(b as i8) + delta);
    }
}

/// `d`, 32 bytes of low index bits, 8 16-bit words (3 high bits per index, a 3-bit scale, the
/// sign of the shift).
#[inline(always)]
pub(super) fn iq1_s(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[half(0), words(34, 2, 8)],
        out,
        |b: &[u8; 50], y: &mut [f32; 256]| {
            let d = f16_at(b, 0);
            for (g, group) in y.chunks_exact_mut(32).enumerate() {
                let qh = u16_at(b, 34 + 2 * g);
                let dl = d * f32::from(2 * ((qh >> 12) & 7) + 1);
                let delta = if qh & 0x8000 != 0 { -IQ1_DELTA } else { IQ1_DELTA };
                for (l, eight) in group.chunks_exact_mut(8).enumerate() {
                    let index = usize::from(b[2 + 4 * g + l]) | (usize::from((qh >> (3 * l)) & 7) << 8);
                    iq1_values(eight, IQ1S_GRID[index], dl, delta);
                }
            }
        },
    );
}

/// 32 bytes of low index bits, 16 bytes of high index bits and shift signs, four 16-bit words
/// of 3-bit scales whose top nibbles together hold the fp16 `d`.
#[inline(always)]
pub(super) fn iq1_m(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[words(48, 2, 4)],
        out,
        |b: &[u8; 56], y: &mut [f32; 256]| {
            let sc = [u16_at(b, 48), u16_at(b, 50), u16_at(b, 52), u16_at(b, 54)];
            let d = f16_to_f32(
                (sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000),
            );
            for (g, group) in y.chunks_exact_mut(32).enumerate() {
                let word = sc[g / 2];
                let shift = 6 * (g % 2);
                let dls = [
                    d * f32::from(2 * ((word >> shift) & 7) + 1),
                    d * f32::from(2 * ((word >> (shift + 3)) & 7) + 1),
                ];
                for (l, eight) in group.chunks_exact_mut(8).enumerate() {
                    let qh = b[32 + 2 * g + l / 2];
                    let nibble = if l % 2 == 0 { qh & 0x0f } else { qh >> 4 };
                    let index = usize::from(b[4 * g + l]) | (usize::from(nibble & 7) << 8);
                    let delta = if nibble & 0x08 != 0 { -IQ1_DELTA } else { IQ1_DELTA };
                    iq1_values(eight, IQ1S_GRID[index], dls[l / 2], delta);
                }
            }
        },
    );
}

#[inline]
fn level(nibble: u8) -> f32 {
    f32::from(IQ4_LEVELS[usize::from(nibble & 0x0f)])
}

/// `d`, 16 bytes of nibbles indexing the 16 levels: `d × level`.
#[inline(always)]
pub(super) fn iq4_nl(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[half(0)], out, |b: &[u8; 18], y: &mut [f32; 32]| {
        let d = f16_at(b, 0);
        for j in 0..16 {
            y[j] = d * level(b[2 + j]);
            y[j + 16] = d * level(b[2 + j] >> 4);
        }
    });
}

/// `d`, a 16-bit word of 2-bit scale tops, 4 bytes of 4-bit scale bottoms, 128 bytes of
/// nibbles: `d × (scale - 32) × level` per 32 elements.
#[inline(always)]
pub(super) fn iq4_xs(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[words(0, 2, 2)],
        out,
        |b: &[u8; 136], y: &mut [f32; 256]| {
            let (d, scales_h) = (f16_at(b, 0), u16_at(b, 2));
            for (g, group) in y.chunks_exact_mut(32).enumerate() {
                let low = (b[4 + g / 2] >> (4 * (g % 2))) & 0x0f;
                let high = ((scales_h >> (2 * g)) & 3) as u8;
                let dl = d * f32::from(i16::from(low | (high << 4)) - 32);
                for j in 0..16 {
                    let q = b[8 + 16 * g + j];
                    group[j] = dl * level(q);
                    group[j + 16] = dl * level(q >> 4);
                }
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_sets_have_an_even_count_of_minus_signs() {
        // ggml's ksigns_iq2xs: 0, 129, 130, 3, 132, … 255.
        assert_eq!(
            [signs_of(0), signs_of(1), signs_of(2), signs_of(3), signs_of(4)],
            [0, 129, 130, 3, 132]
        );
        assert_eq!(signs_of(127), 255);
        assert_eq!(signs_of(0x80 | 1), 129, "only seven bits are used");
        assert!((0..128).all(|i| signs_of(i).count_ones() % 2 == 0));
    }
}
