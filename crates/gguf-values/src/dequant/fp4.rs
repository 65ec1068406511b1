//! The 4-bit floating-point types: E2M1 values under a power-of-two (`MXFP4`) or FP8 (`NVFP4`)
//! scale.

use super::each_block;
use gguf_core::Endian;

/// ggml's `kvalues_mxfp4`: the 16 E2M1 values, doubled so they are integers (the scales are
/// halved to match).
const E2M1_DOUBLED: [i8; 16] = [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12];

/// An E8M0 scale, halved: 2^(x - 128), built from its bits (ggml's `ggml_e8m0_to_fp32_half`).
#[inline]
fn e8m0_half(x: u8) -> f32 {
    let bits = match x {
        0 | 1 => 0x0020_0000u32 << x,
        _ => u32::from(x - 1) << 23,
    };
    f32::from_bits(bits)
}

/// A UE4M3 scale (unsigned, exponent bias 7), halved; 0x00 and 0x7F (NaN) read as 0, as in
/// ggml's `ggml_ue4m3_to_fp32`. The top bit is not part of the value.
#[inline]
fn ue4m3_half(x: u8) -> f32 {
    if x == 0 || x == 0x7f {
        return 0.0;
    }
    let exponent = i32::from((x >> 3) & 0x0f);
    let mantissa = f32::from(x & 0x07);
    // Subnormal: m × 2^-9; normal: (8 + m) × 2^(e - 10); both halved. Exact: powers of two.
    let (significand, power) = match exponent {
        0 => (mantissa, -10),
        _ => (8.0 + mantissa, exponent - 11),
    };
    significand * f32::from_bits(((127 + power) as u32) << 23)
}

#[inline]
fn e2m1(nibble: u8) -> f32 {
    f32::from(E2M1_DOUBLED[usize::from(nibble & 0x0f)])
}

/// One E8M0 byte, 16 bytes of E2M1 nibbles (low nibbles are elements 0..16).
#[inline(always)]
pub(super) fn mxfp4(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[], out, |b: &[u8; 17], y: &mut [f32; 32]| {
        let d = e8m0_half(b[0]);
        for j in 0..16 {
            y[j] = e2m1(b[1 + j]) * d;
            y[j + 16] = e2m1(b[1 + j] >> 4) * d;
        }
    });
}

/// Four UE4M3 bytes, one per 16 elements, then 32 bytes of E2M1 nibbles (8 per sub-block, low
/// nibbles first).
#[inline(always)]
pub(super) fn nvfp4(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each_block(bytes, e, &[], out, |b: &[u8; 36], y: &mut [f32; 64]| {
        for s in 0..4 {
            let d = ue4m3_half(b[s]);
            for j in 0..8 {
                let q = b[4 + 8 * s + j];
                y[16 * s + j] = e2m1(q) * d;
                y[16 * s + j + 8] = e2m1(q >> 4) * d;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_are_exact_powers_and_fp8_values() {
        assert_eq!(e8m0_half(127), 0.5);
        assert_eq!(e8m0_half(128), 1.0);
        assert_eq!(e8m0_half(0), f32::MIN_POSITIVE / 4.0, "2^-128, subnormal");
        assert_eq!(e8m0_half(1), f32::MIN_POSITIVE / 2.0);
        assert_eq!(e8m0_half(255), 2f32.powi(127));
        // UE4M3 0x38: exponent 7, mantissa 0 → 1.0, halved.
        assert_eq!(ue4m3_half(0x38), 0.5);
        // 0x7E: exponent 15, mantissa 6 → 1.75 × 2^8 = 448, halved.
        assert_eq!(ue4m3_half(0x7e), 224.0);
        // 0x01: subnormal 1 × 2^-9, halved.
        assert_eq!(ue4m3_half(0x01), 2f32.powi(-10));
        assert_eq!(ue4m3_half(0x7f), 0.0);
        assert_eq!(ue4m3_half(0x00), 0.0);
    }
}
