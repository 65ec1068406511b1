//! The ternary types of BitNet b1.58 and TriLMs: each weight is -d, 0 or +d.

use super::{each_block, f16_at, half};
use gguf_core::Endian;

/// The trit in the top of `q × 3^n` (mod 256): `TQ1_0` stores five trits per byte as a
/// fixed-point fraction of 243, so multiplying by 3 shifts the next trit to the top.
#[inline]
fn trit(q: u8, n: usize) -> f32 {
    const POW3: [u8; 5] = [1, 3, 9, 27, 81];
    let shifted = q.wrapping_mul(POW3[n % 5]);
    f32::from(((u16::from(shifted) * 3) >> 8) as i16 - 1)
}

/// 48 bytes of five trits, 4 bytes of four trits, `d` last.
#[inline(always)]
pub(super) fn tq1_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[half(52)], out, |b: &[u8; 54], y: &mut [f32; 256]| {
        let d = f16_at(b, 52);
        let mut i = 0;
        // Bytes 0..32 hold elements 0..160 and bytes 32..48 elements 160..240, each group
        // trit-major; bytes 48..52 hold the last 16.
        for (first, len) in [(0, 32), (32, 16)] {
            for n in 0..5 {
                for m in 0..len {
                    y[i] = trit(b[first + m], n) * d;
                    i += 1;
                }
            }
        }
        for n in 0..4 {
            for j in 0..4 {
                y[i] = trit(b[48 + j], n) * d;
                i += 1;
            }
        }
    });
}

/// 64 bytes of four two-bit codes, `d` last: `(q - 1) × d`.
#[inline(always)]
pub(super) fn tq2_0(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[half(64)], out, |b: &[u8; 66], y: &mut [f32; 256]| {
        let d = f16_at(b, 64);
        for (i, v) in y.iter_mut().enumerate() {
            let (group, shift, m) = (i / 128, (i % 128) / 32, i % 32);
            let q = (b[32 * group + m] >> (2 * shift)) & 3;
            *v = f32::from(i16::from(q) - 1) * d;
        }
    });
}
