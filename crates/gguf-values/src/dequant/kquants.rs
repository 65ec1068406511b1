//! The k-quants: 256-element super-blocks of 16 or 32-element sub-blocks with quantized
//! scales, after ggml's `dequantize_row_q*_K` (`ggml-quants.c`).

use super::{Word, each_block, f16_at, half, words};
use gguf_core::Endian;

/// 16 bytes of 4-bit scale/min pairs, 64 bytes of 2-bit quants, `d`, `dmin`:
/// `d × scale × q - dmin × min` per 16 elements.
#[inline(always)]
pub(super) fn q2_k(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[words(80, 2, 2)],
        out,
        |b: &[u8; 84], y: &mut [f32; 256]| {
            let (d, dmin) = (f16_at(b, 80), f16_at(b, 82));
            for (sub, values) in y.chunks_exact_mut(16).enumerate() {
                let sc = b[sub];
                let (dl, ml) = (d * f32::from(sc & 0x0f), dmin * f32::from(sc >> 4));
                // Sub-block `sub` of 128-element half `n` reads bit pair `shift` of 16 bytes.
                let (n, shift, half16) = (sub / 8, (sub % 8) / 2, sub % 2);
                for (l, v) in values.iter_mut().enumerate() {
                    let q = (b[16 + 32 * n + 16 * half16 + l] >> (2 * shift)) & 3;
                    *v = dl * f32::from(q) - ml;
                }
            }
        },
    );
}

/// 32 bytes of high bits, 64 bytes of 2-bit quants, 12 bytes of 6-bit signed scales, `d`:
/// `d × (scale - 32) × (q - 4 × !high)` per 16 elements.
#[inline(always)]
pub(super) fn q3_k(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[half(108)],
        out,
        |b: &[u8; 110], y: &mut [f32; 256]| {
            let d = f16_at(b, 108);
            let scales = &b[96..108];
            for (sub, values) in y.chunks_exact_mut(16).enumerate() {
                // Low four bits in bytes 0..8 (sub-blocks 8..16 in the high nibbles), top two bits
                // packed four to a byte in bytes 8..12.
                let low = if sub < 8 {
                    scales[sub] & 0x0f
                } else {
                    scales[sub - 8] >> 4
                };
                let high = (scales[8 + sub % 4] >> (2 * (sub / 4))) & 3;
                let dl = d * f32::from(i16::from(low | (high << 4)) - 32);
                let (n, shift, half16) = (sub / 8, (sub % 8) / 2, sub % 2);
                let high_bit = 4 * n + shift;
                for (l, v) in values.iter_mut().enumerate() {
                    let k = 16 * half16 + l;
                    let q = i16::from((b[32 + 32 * n + k] >> (2 * shift)) & 3);
                    let offset = if (b[k] >> high_bit) & 1 == 1 { 0 } else { 4 };
                    *v = dl * f32::from(q - offset);
                }
            }
        },
    );
}

/// The 6-bit scale and min of sub-block `j` from the 12 packed bytes of `Q4_K`/`Q5_K`
/// (ggml's `get_scale_min_k4`).
#[inline]
fn scale_min(scales: &[u8], j: usize) -> (f32, f32) {
    let (sc, m) = if j < 4 {
        (scales[j] & 63, scales[j + 4] & 63)
    } else {
        (
            (scales[j + 4] & 0x0f) | ((scales[j - 4] >> 6) << 4),
            (scales[j + 4] >> 4) | ((scales[j] >> 6) << 4),
        )
    };
    (f32::from(sc), f32::from(m))
}

const DM: [Word; 1] = [words(0, 2, 2)];

/// `d`, `dmin`, 12 bytes of scales and mins, 128 bytes of nibbles:
/// `d × scale × q - dmin × min` per 32 elements.
#[inline(always)]
pub(super) fn q4_k(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &DM,
        out,
        #[inline(always)]
        |b: &[u8; 144], y: &mut [f32; 256]| {
            let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
            let scales = &b[4..16];
            // Each 32 bytes hold two sub-blocks, `2 × pair` in the low nibbles and the next one in
            // the high nibbles: one fixed-length loop fills both, which the compiler vectorizes.
            for (pair, (values, qs)) in y.chunks_exact_mut(64).zip(b[16..].chunks_exact(32)).enumerate() {
                let ((sc0, m0), (sc1, m1)) = (scale_min(scales, 2 * pair), scale_min(scales, 2 * pair + 1));
                let (d0, m0, d1, m1) = (d * sc0, dmin * m0, d * sc1, dmin * m1);
                let (low, high) = values.split_at_mut(32);
                for ((l, h), &q) in low.iter_mut().zip(high).zip(qs) {
                    *l = d0 * f32::from(q & 0x0f) - m0;
                    *h = d1 * f32::from(q >> 4) - m1;
                }
            }
        },
    );
}

/// As `Q4_K` with 32 bytes of fifth bits: `d × scale × q - dmin × min` per 32 elements.
#[inline(always)]
pub(super) fn q5_k(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &DM, out, |b: &[u8; 176], y: &mut [f32; 256]| {
        let (d, dmin) = (f16_at(b, 0), f16_at(b, 2));
        let (scales, qh) = (&b[4..16], &b[16..48]);
        for (sub, values) in y.chunks_exact_mut(32).enumerate() {
            let (sc, m) = scale_min(scales, sub);
            let (d1, m1) = (d * sc, dmin * m);
            let (ql, shift) = (&b[48 + 32 * (sub / 2)..48 + 32 * (sub / 2) + 32], 4 * (sub % 2));
            for ((v, &q), &h) in values.iter_mut().zip(ql).zip(qh) {
                let fifth = if (h >> sub) & 1 == 1 { 16 } else { 0 };
                *v = d1 * f32::from(((q >> shift) & 0x0f) + fifth) - m1;
            }
        }
    });
}

/// 128 bytes of low nibbles, 64 bytes of high bit pairs, 16 signed scales, `d`:
/// `d × scale × (q - 32)` per 16 elements.
#[inline(always)]
pub(super) fn q6_k(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(
        bytes,
        e,
        &[half(208)],
        out,
        #[inline(always)]
        |b: &[u8; 210], y: &mut [f32; 256]| {
            let d = f16_at(b, 208);
            // Each half of 128 values: quarter k of 32 takes nibble k / 2 of low byte
            // 64n + 32(k % 2) + l and bit pair k of high byte 128 + 32n + l, as in ggml's loop;
            // each 16 values one scale, multiplied by `d` first (ggml's `d × scale × q`).
            // One loop fills the four quarters with constant shifts, so it vectorizes.
            for (n, half) in y.chunks_exact_mut(128).enumerate() {
                let (ql, qh) = (&b[64 * n..64 * n + 64], &b[128 + 32 * n..160 + 32 * n]);
                let scales = &b[192 + 8 * n..200 + 8 * n];
                let (y01, y23) = half.split_at_mut(64);
                let ((y0, y1), (y2, y3)) = (y01.split_at_mut(32), y23.split_at_mut(32));
                let (ql0, ql1) = ql.split_at(32);
                for (part, ((((((y0, y1), y2), y3), ql0), ql1), qh)) in y0
                    .chunks_exact_mut(16)
                    .zip(y1.chunks_exact_mut(16))
                    .zip(y2.chunks_exact_mut(16))
                    .zip(y3.chunks_exact_mut(16))
                    .zip(ql0.chunks_exact(16))
                    .zip(ql1.chunks_exact(16))
                    .zip(qh.chunks_exact(16))
                    .enumerate()
                {
                    let ds = |k: usize| d * f32::from(scales[2 * k + part] as i8);
                    let (d0, d1, d2, d3) = (ds(0), ds(1), ds(2), ds(3));
                    let values = y0
                        .iter_mut()
                        .zip(y1.iter_mut())
                        .zip(y2.iter_mut())
                        .zip(y3.iter_mut());
                    for ((((((v0, v1), v2), v3), &lo0), &lo1), &hi) in values.zip(ql0).zip(ql1).zip(qh) {
                        *v0 = d0 * (f32::from((lo0 & 0x0f) | ((hi & 3) << 4)) - 32.0);
                        *v1 = d1 * (f32::from((lo1 & 0x0f) | (((hi >> 2) & 3) << 4)) - 32.0);
                        *v2 = d2 * (f32::from((lo0 >> 4) | (((hi >> 4) & 3) << 4)) - 32.0);
                        *v3 = d3 * (f32::from((lo1 >> 4) | ((hi >> 6) << 4)) - 32.0);
                    }
                }
            }
        },
    );
}

/// An `f32` scale, 256 signed bytes, 16 block sums (not needed to decode): `q × d`.
#[inline(always)]
pub(super) fn q8_k(bytes: &[u8], e: Endian, out: &mut [f32]) {
    const WORDS: [Word; 2] = [words(0, 4, 1), words(260, 2, 16)];
    each_block(bytes, e, &WORDS, out, |b: &[u8; 292], y: &mut [f32; 256]| {
        let d = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        for (j, v) in y.iter_mut().enumerate() {
            *v = d * f32::from(b[4 + j] as i8);
        }
    });
}
