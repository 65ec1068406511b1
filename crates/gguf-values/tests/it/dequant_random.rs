//! The vectorized decoders against plain scalar ones written here, element by element, straight
//! from ggml's block layouts (`ggml-common.h`) and `dequantize_row_*` (`ggml-quants.c`): random
//! blocks (any quants, any finite fp16 scale, subnormals and zeros included), in both byte
//! orders, compared bit for bit. Hundreds of blocks per type, so runs cross the pieces
//! `dequantize_into` decodes at a time.

use gguf_core::{Endian, GgmlType};
use gguf_test_support::Rng;
use gguf_values::dequant::{dequantize, dequantize_into};

/// Blocks per type: more than one piece of `dequantize_into` for every type.
const BLOCKS: usize = 300;

/// An fp16 number by its definition, subnormals included (the generator makes no inf or NaN).
fn f16(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (i32::from((h >> 10) & 0x1f), f64::from(h & 0x3ff));
    assert!(e < 31);
    let magnitude = match e {
        0 => m * 2f64.powi(-24),
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    };
    (sign * magnitude) as f32
}

/// A random block of `size` bytes whose fp16 fields (at `halves`) are finite: one in eight
/// zero, one in eight subnormal, the rest any normal number.
fn block(rng: &mut Rng, size: usize, halves: &[usize]) -> Vec<u8> {
    let mut b: Vec<u8> = (0..size).map(|_| rng.byte()).collect();
    for &at in halves {
        let sign = (rng.below(0..2) as u16) << 15;
        let h = match rng.below(0..8) {
            0 => 0,
            1 => rng.below(1..1024) as u16,
            _ => (rng.below(1..31) as u16) << 10 | rng.below(0..1024) as u16,
        };
        b[at..at + 2].copy_from_slice(&(sign | h).to_le_bytes());
    }
    b
}

fn le16(b: &[u8], at: usize) -> f32 {
    f16(u16::from_le_bytes([b[at], b[at + 1]]))
}

fn q4_0(b: &[u8], y: &mut [f32]) {
    let d = le16(b, 0);
    for j in 0..16 {
        y[j] = ((b[2 + j] & 0x0f) as i32 - 8) as f32 * d;
        y[j + 16] = ((b[2 + j] >> 4) as i32 - 8) as f32 * d;
    }
}

fn q4_1(b: &[u8], y: &mut [f32]) {
    let (d, m) = (le16(b, 0), le16(b, 2));
    for j in 0..16 {
        y[j] = (b[4 + j] & 0x0f) as f32 * d + m;
        y[j + 16] = (b[4 + j] >> 4) as f32 * d + m;
    }
}

fn q5_0(b: &[u8], y: &mut [f32]) {
    let d = le16(b, 0);
    let qh = u32::from_le_bytes([b[2], b[3], b[4], b[5]]);
    for j in 0..16 {
        let xh0 = (((qh >> j) << 4) & 0x10) as u8;
        let xh1 = ((qh >> (j + 12)) & 0x10) as u8;
        y[j] = (((b[6 + j] & 0x0f) | xh0) as i32 - 16) as f32 * d;
        y[j + 16] = (((b[6 + j] >> 4) | xh1) as i32 - 16) as f32 * d;
    }
}

fn q5_1(b: &[u8], y: &mut [f32]) {
    let (d, m) = (le16(b, 0), le16(b, 2));
    let qh = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    for j in 0..16 {
        let xh0 = (((qh >> j) << 4) & 0x10) as u8;
        let xh1 = ((qh >> (j + 12)) & 0x10) as u8;
        y[j] = ((b[8 + j] & 0x0f) | xh0) as f32 * d + m;
        y[j + 16] = ((b[8 + j] >> 4) | xh1) as f32 * d + m;
    }
}

fn q8_0(b: &[u8], y: &mut [f32]) {
    let d = le16(b, 0);
    for j in 0..32 {
        y[j] = (b[2 + j] as i8) as f32 * d;
    }
}

/// ggml's `get_scale_min_k4`.
fn scale_min_k4(j: usize, q: &[u8]) -> (u8, u8) {
    if j < 4 {
        (q[j] & 63, q[j + 4] & 63)
    } else {
        (
            (q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4),
            (q[j + 4] >> 4) | ((q[j] >> 6) << 4),
        )
    }
}

fn q4_k(b: &[u8], y: &mut [f32]) {
    let (d, dmin) = (le16(b, 0), le16(b, 2));
    let scales = &b[4..16];
    let (mut q, mut out, mut is) = (16, 0, 0);
    for _ in 0..4 {
        let (sc, m) = scale_min_k4(is, scales);
        let (d1, m1) = (d * sc as f32, dmin * m as f32);
        let (sc, m) = scale_min_k4(is + 1, scales);
        let (d2, m2) = (d * sc as f32, dmin * m as f32);
        for l in 0..32 {
            y[out + l] = d1 * (b[q + l] & 0xf) as f32 - m1;
        }
        for l in 0..32 {
            y[out + 32 + l] = d2 * (b[q + l] >> 4) as f32 - m2;
        }
        (q, out, is) = (q + 32, out + 64, is + 2);
    }
}

fn q6_k(b: &[u8], y: &mut [f32]) {
    let d = le16(b, 208);
    let (mut ql, mut qh, mut sc, mut out) = (0, 128, 192, 0);
    for _ in 0..2 {
        for l in 0..32 {
            let is = l / 16;
            let q1 = ((b[ql + l] & 0xf) | ((b[qh + l] & 3) << 4)) as i8 - 32;
            let q2 = ((b[ql + l + 32] & 0xf) | (((b[qh + l] >> 2) & 3) << 4)) as i8 - 32;
            let q3 = ((b[ql + l] >> 4) | (((b[qh + l] >> 4) & 3) << 4)) as i8 - 32;
            let q4 = ((b[ql + l + 32] >> 4) | (((b[qh + l] >> 6) & 3) << 4)) as i8 - 32;
            let s = |k: usize| (b[sc + is + k] as i8) as f32;
            y[out + l] = d * s(0) * q1 as f32;
            y[out + l + 32] = d * s(2) * q2 as f32;
            y[out + l + 64] = d * s(4) * q3 as f32;
            y[out + l + 96] = d * s(6) * q4 as f32;
        }
        (ql, qh, sc, out) = (ql + 64, qh + 32, sc + 8, out + 128);
    }
}

/// A type's reference decoder, block bytes, fp16 fields and its other multi-byte words (as
/// offset and width: what a big-endian file stores reversed).
type Case = (
    GgmlType,
    fn(&[u8], &mut [f32]),
    &'static [usize],
    &'static [(usize, usize)],
);

const CASES: [Case; 7] = [
    (GgmlType::Q4_0, q4_0, &[0], &[]),
    (GgmlType::Q4_1, q4_1, &[0, 2], &[]),
    (GgmlType::Q5_0, q5_0, &[0], &[(2, 4)]),
    (GgmlType::Q5_1, q5_1, &[0, 2], &[(4, 4)]),
    (GgmlType::Q8_0, q8_0, &[0], &[]),
    (GgmlType::Q4_K, q4_k, &[0, 2], &[]),
    (GgmlType::Q6_K, q6_k, &[208], &[]),
];

#[test]
fn random_blocks_decode_as_the_scalar_reference_in_both_byte_orders() {
    let mut rng = Rng(0x5eed);
    for (ty, reference, halves, others) in CASES {
        let (size, len) = (
            ty.type_size().unwrap() as usize,
            ty.block_size().unwrap() as usize,
        );
        let little: Vec<u8> = (0..BLOCKS).flat_map(|_| block(&mut rng, size, halves)).collect();
        let mut expected = vec![0f32; BLOCKS * len];
        for (b, y) in little.chunks_exact(size).zip(expected.chunks_exact_mut(len)) {
            reference(b, y);
        }
        let mut big = little.clone();
        for b in big.chunks_exact_mut(size) {
            let words = halves.iter().map(|&at| (at, 2)).chain(others.iter().copied());
            for (at, width) in words {
                b[at..at + width].reverse();
            }
        }
        for (endian, bytes) in [(Endian::Little, &little), (Endian::Big, &big)] {
            let ours = dequantize(ty, endian, bytes).unwrap();
            assert_eq!(ours.len(), expected.len(), "{ty} {endian:?}");
            for (i, (a, b)) in ours.iter().zip(&expected).enumerate() {
                assert_eq!(
                    a.to_bits(),
                    b.to_bits(),
                    "{ty} {endian:?}: value {i} is {a:e}, the reference {b:e}"
                );
            }
        }
        // Appending to a buffer that already holds values leaves them and decodes the same.
        let mut out = vec![1.5f32; 3];
        dequantize_into(ty, Endian::Little, &little, &mut out).unwrap();
        assert_eq!(&out[..3], &[1.5; 3], "{ty}");
        assert!(
            out[3..]
                .iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{ty}: appended"
        );
    }
}
