//! Plain numbers: floats of every width and integers, in the file's byte order.

use gguf_core::Endian;

/// An IEEE half-precision number, widened exactly (`f32` holds every `f16` value; NaN payloads
/// are kept). Written out because `core` has no `f16`, and the crate takes no dependencies.
#[inline]
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exponent = u32::from((h >> 10) & 0x1f);
    let mantissa = u32::from(h & 0x03ff);
    let magnitude = match exponent {
        // Zero and subnormals: mantissa × 2^-24, exact in f32.
        0 => (mantissa as f32 * (1.0 / 16_777_216.0)).to_bits(),
        // Infinity and NaN.
        0x1f => 0x7f80_0000 | (mantissa << 13),
        // Normal: rebias the exponent from 15 to 127.
        _ => ((exponent + 112) << 23) | (mantissa << 13),
    };
    f32::from_bits(sign | magnitude)
}

/// A bfloat16: the top half of an `f32`.
#[inline]
pub(crate) fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// Fills `out` with one value per `N`-byte element, read in `endian` by `read`.
#[inline]
fn each<const N: usize>(bytes: &[u8], out: &mut [f32], read: impl Fn([u8; N]) -> f32) {
    for (chunk, value) in bytes.chunks_exact(N).zip(out.iter_mut()) {
        if let Ok(b) = <[u8; N]>::try_from(chunk) {
            *value = read(b);
        }
    }
}

#[inline(always)]
pub(super) fn f32s(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each(bytes, out, |b| e.f32(b));
}

#[inline(always)]
pub(super) fn f16s(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each(bytes, out, |b| f16_to_f32(e.u16(b)));
}

#[inline(always)]
pub(super) fn bf16s(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each(bytes, out, |b| bf16_to_f32(e.u16(b)));
}

/// Rounded to the nearest `f32` (values beyond its range become ±infinity).
#[inline(always)]
pub(super) fn f64s(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each(bytes, out, |b| e.f64(b) as f32);
}

#[inline(always)]
pub(super) fn i8s(bytes: &[u8], _: Endian, out: &mut [f32]) {
    each(bytes, out, |[b]: [u8; 1]| f32::from(b as i8));
}

#[inline(always)]
pub(super) fn i16s(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each(bytes, out, |b| f32::from(e.i16(b)));
}

/// Rounded to the nearest `f32` above 2^24 in magnitude.
#[inline(always)]
pub(super) fn i32s(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each(bytes, out, |b| e.i32(b) as f32);
}

/// Rounded to the nearest `f32` above 2^24 in magnitude.
#[inline(always)]
pub(super) fn i64s(bytes: &[u8], e: Endian, out: &mut [f32]) {
    each(bytes, out, |b| e.i64(b) as f32);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of a half by its definition, in f64: (-1)^s × 2^(e-15) × (1 + m/1024).
    fn half_by_definition(h: u16) -> f64 {
        let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
        let (e, m) = (i32::from((h >> 10) & 0x1f), f64::from(h & 0x3ff));
        match e {
            0 => sign * m * 2f64.powi(-24),
            31 if m == 0.0 => sign * f64::INFINITY,
            31 => f64::NAN,
            _ => sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
        }
    }

    #[test]
    fn every_half_widens_exactly() {
        for h in 0..=u16::MAX {
            let ours = f16_to_f32(h);
            let expected = half_by_definition(h);
            if expected.is_nan() {
                assert!(ours.is_nan(), "{h:#06x}");
                assert_eq!(
                    ours.to_bits() & 0x007f_e000,
                    u32::from(h & 0x3ff) << 13,
                    "{h:#06x} payload"
                );
            } else {
                assert_eq!(ours.to_bits(), (expected as f32).to_bits(), "{h:#06x}");
            }
        }
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 5.960_464_5e-8);
        assert_eq!(f16_to_f32(0x8000).to_bits(), 0x8000_0000);
    }

    #[test]
    fn bfloat16_is_the_top_half() {
        assert_eq!(bf16_to_f32(0x3f80), 1.0);
        assert_eq!(bf16_to_f32(0x4049), 3.140625);
        assert_eq!(bf16_to_f32(0xff80), f32::NEG_INFINITY);
    }
}
