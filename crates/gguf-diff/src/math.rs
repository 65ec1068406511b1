//! `log10` for the SNR in decibels: `core` has no logarithm without `std`, and the CLI and the
//! page must print the same figure, so it is computed here, once. (Square roots come from
//! `gguf_values::stats::sqrt`.)

use core::f64::consts::{LN_2, LN_10, SQRT_2};

/// The base-10 logarithm, within a few units in the last place of `f64::log10`: −∞ for 0, NaN for
/// negative numbers and NaN, +∞ for +∞.
pub fn log10(x: f64) -> f64 {
    ln(x) / LN_10
}

/// The natural logarithm: `x = m × 2^e` with `m` in [√½, √2], then
/// `ln m = 2·atanh(s)`, `s = (m − 1)/(m + 1)`, |s| ≤ 0.172, whose series has converged to
/// below 1e-17 after 12 terms.
fn ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x == f64::INFINITY {
        return x;
    }
    // Subnormals scaled into the normal range first.
    let (x, mut e) = match x < f64::MIN_POSITIVE {
        true => (x * (1u64 << 54) as f64, -54i64),
        false => (x, 0),
    };
    let bits = x.to_bits();
    e += ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52));
    if m > SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut sum = 0.0;
    for k in 0..12 {
        sum += term / f64::from(2 * k + 1);
        term *= s2;
    }
    e as f64 * LN_2 + 2.0 * sum
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn agrees_with_std() {
        let mut x = 1e-310f64;
        while x < 1e300 {
            for f in [1.0, 1.3, 1.41, 1.42, 2.0, 3.7, 9.99] {
                let v = x * f;
                let (ours, std) = (log10(v), v.log10());
                assert!(
                    (ours - std).abs() <= 4.0 * f64::EPSILON * std.abs().max(1.0),
                    "{v}: {ours} vs {std}"
                );
            }
            x *= 10.0;
        }
        assert!((log10(1000.0) - 3.0).abs() <= 4.0 * f64::EPSILON);
        assert_eq!(log10(0.0), f64::NEG_INFINITY);
        assert_eq!(log10(f64::INFINITY), f64::INFINITY);
        assert!(log10(-1.0).is_nan() && log10(f64::NAN).is_nan());
    }
}
