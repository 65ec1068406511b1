//! Types without reference values in the fixtures: blocks packed here from ggml's block layouts
//! (`ggml-common.h`) out of chosen codes and scales, whose values are then computed by ggml's
//! formulas in this file and compared bit for bit. Hand-built blocks with values worked out by
//! hand, and the big-endian form of every type.

use gguf_core::{Endian, GgmlType};
use gguf_test_support::Rng;
use gguf_values::dequant::{dequantize, is_supported};

/// A normal fp16 scale of either sign between 2^-8 and 2^7.
fn half(rng: &mut Rng) -> u16 {
    let sign = (rng.below(0..2) as u16) << 15;
    sign | ((7 + rng.below(0..15) as u16) << 10) | rng.below(0..1024) as u16
}

/// An fp16 value by its definition, (-1)^s × 2^(e-15) × (1 + m/1024), for normal numbers.
fn half_value(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (i32::from((h >> 10) & 0x1f), f64::from(h & 0x3ff));
    assert!(e > 0 && e < 31);
    (sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15)) as f32
}

fn decode_and_compare(ty: GgmlType, blocks: &[(Vec<u8>, Vec<f32>)]) {
    let bytes: Vec<u8> = blocks.iter().flat_map(|b| b.0.iter().copied()).collect();
    let expected: Vec<f32> = blocks.iter().flat_map(|b| b.1.iter().copied()).collect();
    assert_eq!(
        blocks[0].0.len(),
        ty.type_size().unwrap() as usize,
        "{ty}: block bytes"
    );
    let ours = dequantize(ty, Endian::Little, &bytes).unwrap();
    assert_eq!(ours.len(), expected.len(), "{ty}");
    for (i, (a, b)) in ours.iter().zip(&expected).enumerate() {
        assert_eq!(
            a.to_bits(),
            b.to_bits(),
            "{ty}: value {i} is {a:e}, expected {b:e}"
        );
    }
}

/// Packs 50 blocks with `pack` and checks them.
fn round_trip(ty: GgmlType, pack: fn(&mut Rng) -> (Vec<u8>, Vec<f32>)) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ u64::from(ty.0));
    let blocks: Vec<_> = (0..50).map(|_| pack(&mut rng)).collect();
    decode_and_compare(ty, &blocks);
}

#[test]
fn q4_0_seed_block_by_hand() {
    // Scale 0.01 → fp16 0x211f = (1 + 287/1024) × 2^-7 = 0.010002136…; first byte 0x4B:
    // element 0 is the low nibble 0xB - 8 = 3, element 16 the high nibble 0x4 - 8 = -4.
    let mut block = vec![0x1f, 0x21, 0x4b];
    block.resize(18, 0x88);
    let v = dequantize(GgmlType::Q4_0, Endian::Little, &block).unwrap();
    let d = 0.010_002_136_f32;
    assert_eq!(half_value(0x211f), d);
    assert_eq!((v[0], v[16]), (3.0 * d, -4.0 * d));
    assert!((v[0] - 0.03).abs() < 1e-5 && (v[16] + 0.04).abs() < 1e-5);
    assert!(
        v[1..16].iter().chain(&v[17..]).all(|&x| x == 0.0),
        "0x88: nibbles 8 - 8 = 0"
    );
}

#[test]
fn q8_1() {
    round_trip(GgmlType::Q8_1, |r| {
        let (d, s) = (half(r), half(r));
        let mut b = [d.to_le_bytes(), s.to_le_bytes()].concat();
        let q: Vec<i8> = (0..32).map(|_| r.byte() as i8).collect();
        b.extend(q.iter().map(|&q| q as u8));
        (b, q.iter().map(|&q| f32::from(q) * half_value(d)).collect())
    });
}

#[test]
fn q1_0() {
    round_trip(GgmlType::Q1_0, |r| {
        let d = half(r);
        let bits: Vec<u8> = (0..16).map(|_| r.byte()).collect();
        let values = (0..128).map(|j| {
            if bits[j / 8] >> (j % 8) & 1 == 1 {
                half_value(d)
            } else {
                -half_value(d)
            }
        });
        (
            [d.to_le_bytes().to_vec(), bits.clone()].concat(),
            values.collect(),
        )
    });
}

#[test]
fn q2_0() {
    round_trip(GgmlType::Q2_0, |r| {
        let d = half(r);
        let q: Vec<u8> = (0..64).map(|_| r.below(0..4) as u8).collect();
        let mut b = d.to_le_bytes().to_vec();
        b.extend((0..16).map(|k| q[4 * k] | q[4 * k + 1] << 2 | q[4 * k + 2] << 4 | q[4 * k + 3] << 6));
        (
            b,
            q.iter()
                .map(|&q| f32::from(q as i8 - 1) * half_value(d))
                .collect(),
        )
    });
}

#[test]
fn q2_0_by_hand() {
    // d = 1.5 (0x3e00); byte 0b11_10_01_00: codes 0, 1, 2, 3 → -1.5, 0, 1.5, 3.
    let mut b = vec![0x00, 0x3e, 0b1110_0100];
    b.resize(18, 0x55);
    let v = dequantize(GgmlType::Q2_0, Endian::Little, &b).unwrap();
    assert_eq!(v[..5], [-1.5, 0.0, 1.5, 3.0, 0.0]);
}

#[test]
fn q2_k() {
    round_trip(GgmlType::Q2_K, |r| {
        let (d, dmin) = (half(r), half(r));
        let scales: Vec<u8> = (0..16).map(|_| r.byte()).collect();
        let q: Vec<u8> = (0..256).map(|_| r.below(0..4) as u8).collect();
        let mut qs = [0u8; 64];
        for (i, &c) in q.iter().enumerate() {
            // 128-element half n, bit pair (i % 128) / 32, byte (i % 32) of the half's 32.
            qs[32 * (i / 128) + i % 32] |= c << (2 * ((i % 128) / 32));
        }
        let b = [
            scales.clone(),
            qs.to_vec(),
            d.to_le_bytes().to_vec(),
            dmin.to_le_bytes().to_vec(),
        ]
        .concat();
        let values = q.iter().enumerate().map(|(i, &c)| {
            let sc = scales[i / 16];
            half_value(d) * f32::from(sc & 15) * f32::from(c) - half_value(dmin) * f32::from(sc >> 4)
        });
        (b, values.collect())
    });
}

#[test]
fn q3_k() {
    round_trip(GgmlType::Q3_K, |r| {
        let d = half(r);
        let sc: Vec<u8> = (0..16).map(|_| r.below(0..64) as u8).collect();
        let q: Vec<u8> = (0..256).map(|_| r.below(0..8) as u8).collect();
        let (mut hmask, mut qs, mut scales) = ([0u8; 32], [0u8; 64], [0u8; 12]);
        for (i, &c) in q.iter().enumerate() {
            let (n, pair, k) = (i / 128, (i % 128) / 32, i % 32);
            qs[32 * n + k] |= (c & 3) << (2 * pair);
            hmask[k] |= (c >> 2) << (4 * n + pair);
        }
        for (j, &s) in sc.iter().enumerate() {
            scales[j % 8] |= (s & 15) << (4 * (j / 8));
            scales[8 + j % 4] |= (s >> 4) << (2 * (j / 4));
        }
        let b = [
            hmask.to_vec(),
            qs.to_vec(),
            scales.to_vec(),
            d.to_le_bytes().to_vec(),
        ]
        .concat();
        let values = q
            .iter()
            .enumerate()
            .map(|(i, &c)| half_value(d) * f32::from(sc[i / 16] as i8 - 32) * f32::from(c as i8 - 4));
        (b, values.collect())
    });
}

/// The 12 scale bytes of Q4_K/Q5_K for eight 6-bit scales and mins, as ggml's quantizer packs them.
fn pack_scale_min(sc: &[u8], m: &[u8]) -> [u8; 12] {
    let mut s = [0u8; 12];
    for j in 0..8 {
        if j < 4 {
            s[j] = sc[j];
            s[j + 4] = m[j];
        } else {
            s[j + 4] = (sc[j] & 15) | ((m[j] & 15) << 4);
            s[j - 4] |= (sc[j] >> 4) << 6;
            s[j] |= (m[j] >> 4) << 6;
        }
    }
    s
}

#[test]
fn q5_k() {
    round_trip(GgmlType::Q5_K, |r| {
        let (d, dmin) = (half(r), half(r));
        let sc: Vec<u8> = (0..8).map(|_| r.below(0..64) as u8).collect();
        let m: Vec<u8> = (0..8).map(|_| r.below(0..64) as u8).collect();
        let q: Vec<u8> = (0..256).map(|_| r.below(0..32) as u8).collect();
        let (mut qh, mut qs) = ([0u8; 32], [0u8; 128]);
        for (i, &c) in q.iter().enumerate() {
            let (sub, l) = (i / 32, i % 32);
            qs[32 * (sub / 2) + l] |= (c & 15) << (4 * (sub % 2));
            qh[l] |= (c >> 4) << sub;
        }
        let head = [d.to_le_bytes(), dmin.to_le_bytes()].concat();
        let b = [head, pack_scale_min(&sc, &m).to_vec(), qh.to_vec(), qs.to_vec()].concat();
        let values = q.iter().enumerate().map(|(i, &c)| {
            let (s, mm) = (f32::from(sc[i / 32]), f32::from(m[i / 32]));
            half_value(d) * s * f32::from(c) - half_value(dmin) * mm
        });
        (b, values.collect())
    });
}

#[test]
fn q8_k() {
    round_trip(GgmlType::Q8_K, |r| {
        let d = (r.below(0..2000) as f32 - 1000.0) / 64.0;
        let q: Vec<i8> = (0..256).map(|_| r.byte() as i8).collect();
        let mut b = d.to_le_bytes().to_vec();
        b.extend(q.iter().map(|&q| q as u8));
        b.extend((0..32).map(|_| r.byte())); // block sums: not used to decode
        (b, q.iter().map(|&q| d * f32::from(q)).collect())
    });
}

/// ggml's `kvalues_iq4nl`.
const IQ4_LEVELS: [i8; 16] = [
    -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
];

#[test]
fn iq4_nl() {
    round_trip(GgmlType::IQ4_NL, |r| {
        let d = half(r);
        let qs: Vec<u8> = (0..16).map(|_| r.byte()).collect();
        let values = (0..32).map(|j| {
            let nibble = if j < 16 { qs[j] & 15 } else { qs[j - 16] >> 4 };
            half_value(d) * f32::from(IQ4_LEVELS[usize::from(nibble)])
        });
        ([d.to_le_bytes().to_vec(), qs.clone()].concat(), values.collect())
    });
}

#[test]
fn iq4_xs() {
    round_trip(GgmlType::IQ4_XS, |r| {
        let d = half(r);
        let ls: Vec<u16> = (0..8).map(|_| r.below(0..64) as u16).collect();
        let scales_h: u16 = ls.iter().enumerate().map(|(g, &s)| (s >> 4) << (2 * g)).sum();
        let scales_l: Vec<u8> = (0..4)
            .map(|k| (ls[2 * k] & 15) as u8 | ((ls[2 * k + 1] & 15) as u8) << 4)
            .collect();
        let qs: Vec<u8> = (0..128).map(|_| r.byte()).collect();
        let values = (0..256).map(|i| {
            let (g, j) = (i / 32, i % 32);
            let byte = qs[16 * g + j % 16];
            let nibble = if j < 16 { byte & 15 } else { byte >> 4 };
            half_value(d) * f32::from(ls[g] as i16 - 32) * f32::from(IQ4_LEVELS[usize::from(nibble)])
        });
        let b = [
            d.to_le_bytes().to_vec(),
            scales_h.to_le_bytes().to_vec(),
            scales_l,
            qs.clone(),
        ]
        .concat();
        (b, values.collect())
    });
}

#[test]
fn nvfp4_by_hand() {
    // UE4M3 scales, halved as ggml does for the doubled E2M1 levels:
    // 0x38 = 2^0 → 0.5; 0x40 = 2^1 → 1; 0x31 = 1.125 × 2^-1 → 0.28125; 0x07 = 7 × 2^-9 → 7 × 2^-10.
    let scales = [0x38u8, 0x40, 0x31, 0x07];
    let halves = [0.5f32, 1.0, 0.28125, 7.0 / 1024.0];
    let doubled = [0i8, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12];
    let qs: Vec<u8> = (0..32).map(|k| ((k * 7 + 3) % 256) as u8).collect();
    let b = [scales.to_vec(), qs.clone()].concat();
    let v = dequantize(GgmlType::NVFP4, Endian::Little, &b).unwrap();
    for s in 0..4 {
        for j in 0..8 {
            let q = qs[8 * s + j];
            assert_eq!(v[16 * s + j], f32::from(doubled[usize::from(q & 15)]) * halves[s]);
            assert_eq!(
                v[16 * s + j + 8],
                f32::from(doubled[usize::from(q >> 4)]) * halves[s]
            );
        }
    }
    // The first byte 0x03: low nibble 3 → 3 × 0.5 = 1.5 (E2M1 1.5 × scale 1), high 0 → 0.
    assert_eq!((v[0], v[8]), (1.5, 0.0));
}

/// Grid points quoted from `ggml-common.h`, with their indices.
const IQ2XXS: [(usize, u64); 3] = [
    (0, 0x0808080808080808),
    (1, 0x080808080808082b),
    (255, 0x2b2b2b1908081908),
];
const IQ2XS: [(usize, u64); 4] = [
    (7, 0x080808080819192b),
    (372, 0x19192b1908192b2b),
    (375, 0x19192b2b2b081919),
    (511, 0x2b2b2b2b2b2b2b2b),
];
const IQ2S: [(usize, u64); 4] = [
    (11, 0x08080808082b1919),
    (1021, 0x2b2b2b2b082b2b08),
    (1022, 0x2b2b2b2b2b082b08),
    (1023, 0x2b2b2b2b2b2b2b2b),
];
const IQ3XXS: [(usize, u32); 4] = [(0, 0x04040404), (1, 0x04040414), (2, 0x04040424), (5, 0x04040c3e)];
const IQ3S: [(usize, u32); 4] = [
    (0, 0x01010101),
    (3, 0x0101010b),
    (13, 0x01010707),
    (17, 0x0101090f),
];
const IQ1S: [(usize, u64); 3] = [
    (0, 0xffffffffffffffff),
    (1626, 0x0100ffffffff0000),
    (2047, 0x0101010101010101),
];

/// Seven stored sign bits and the eighth that makes their count even (ggml's `ksigns_iq2xs`).
fn signs8(seven: u8) -> u8 {
    seven | (((seven.count_ones() & 1) as u8) << 7)
}

fn sign(signs: u8, j: usize) -> f32 {
    if signs >> j & 1 == 1 { -1.0 } else { 1.0 }
}

fn byte_of(point: u64, j: usize) -> f32 {
    f32::from(point.to_le_bytes()[j])
}

#[test]
fn iq2_xxs() {
    round_trip(GgmlType::IQ2_XXS, |r| {
        let d = half(r);
        let mut b = d.to_le_bytes().to_vec();
        let mut values = Vec::new();
        for _ in 0..8 {
            let points: Vec<_> = (0..4).map(|_| IQ2XXS[r.below(0..3) as usize]).collect();
            let (sevens, scale): (Vec<u8>, u32) = (
                (0..4).map(|_| r.below(0..128) as u8).collect(),
                r.below(0..16) as u32,
            );
            let word = sevens
                .iter()
                .enumerate()
                .map(|(l, &s)| u32::from(s) << (7 * l))
                .sum::<u32>()
                | scale << 28;
            b.extend(points.iter().map(|p| p.0 as u8));
            b.extend(word.to_le_bytes());
            let db = half_value(d) * (0.5 + scale as f32) * 0.25;
            for (l, p) in points.iter().enumerate() {
                values.extend((0..8).map(|j| db * byte_of(p.1, j) * sign(signs8(sevens[l]), j)));
            }
        }
        (b, values)
    });
}

#[test]
fn iq2_xs() {
    round_trip(GgmlType::IQ2_XS, |r| {
        let d = half(r);
        let mut qs = Vec::new();
        let scales: Vec<u8> = (0..8).map(|_| r.byte()).collect();
        let mut values = Vec::new();
        for &sc in &scales {
            for l in 0..4 {
                let (p, seven) = (IQ2XS[r.below(0..4) as usize], r.below(0..128) as u16);
                qs.extend((p.0 as u16 | seven << 9).to_le_bytes());
                let db = half_value(d) * (0.5 + f32::from(sc >> (4 * (l / 2)) & 15)) * 0.25;
                values.extend((0..8).map(|j| db * byte_of(p.1, j) * sign(signs8(seven as u8), j)));
            }
        }
        ([d.to_le_bytes().to_vec(), qs, scales].concat(), values)
    });
}

#[test]
fn iq2_s() {
    round_trip(GgmlType::IQ2_S, |r| {
        let d = half(r);
        let (mut low, mut signs, mut qh) = (Vec::new(), Vec::new(), vec![0u8; 8]);
        let scales: Vec<u8> = (0..8).map(|_| r.byte()).collect();
        let mut values = Vec::new();
        for g in 0..8 {
            for l in 0..4 {
                let (p, s) = (IQ2S[r.below(0..4) as usize], r.byte());
                low.push(p.0 as u8);
                qh[g] |= ((p.0 >> 8) as u8) << (2 * l);
                signs.push(s);
                let db = half_value(d) * (0.5 + f32::from(scales[g] >> (4 * (l / 2)) & 15)) * 0.25;
                values.extend((0..8).map(|j| db * byte_of(p.1, j) * sign(s, j)));
            }
        }
        (
            [d.to_le_bytes().to_vec(), low, signs, qh, scales].concat(),
            values,
        )
    });
}

#[test]
fn iq3_xxs() {
    round_trip(GgmlType::IQ3_XXS, |r| {
        let d = half(r);
        let (mut qs, mut words, mut values) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..8 {
            let (sevens, scale): (Vec<u8>, u32) = (
                (0..4).map(|_| r.below(0..128) as u8).collect(),
                r.below(0..16) as u32,
            );
            let word = sevens
                .iter()
                .enumerate()
                .map(|(l, &s)| u32::from(s) << (7 * l))
                .sum::<u32>()
                | scale << 28;
            words.extend(word.to_le_bytes());
            let db = half_value(d) * (0.5 + scale as f32) * 0.5;
            for &seven in &sevens {
                let (p0, p1) = (IQ3XXS[r.below(0..4) as usize], IQ3XXS[r.below(0..4) as usize]);
                qs.extend([p0.0 as u8, p1.0 as u8]);
                let magnitudes = [p0.1.to_le_bytes(), p1.1.to_le_bytes()].concat();
                values.extend((0..8).map(|j| db * f32::from(magnitudes[j]) * sign(signs8(seven), j)));
            }
        }
        ([d.to_le_bytes().to_vec(), qs, words].concat(), values)
    });
}

#[test]
fn iq3_s_with_ninth_index_bits() {
    // Quoted entries of the lower half; the ninth index bit (qh) is checked below.
    round_trip(GgmlType::IQ3_S, |r| {
        let d = half(r);
        let (mut qs, mut signs, mut values) = (Vec::new(), Vec::new(), Vec::new());
        let scales: Vec<u8> = (0..4).map(|_| r.byte()).collect();
        for g in 0..8 {
            let db = half_value(d) * f32::from(1 + 2 * (scales[g / 2] >> (4 * (g % 2)) & 15));
            for _ in 0..4 {
                let s = r.byte();
                let (p0, p1) = (IQ3S[r.below(0..4) as usize], IQ3S[r.below(0..4) as usize]);
                qs.extend([p0.0 as u8, p1.0 as u8]);
                signs.push(s);
                let magnitudes = [p0.1.to_le_bytes(), p1.1.to_le_bytes()].concat();
                values.extend((0..8).map(|j| db * f32::from(magnitudes[j]) * sign(s, j)));
            }
        }
        (
            [d.to_le_bytes().to_vec(), qs, vec![0; 8], signs, scales].concat(),
            values,
        )
    });
    // d = 1, scales and signs 0, every ninth bit set: index 0 becomes 256, and
    // iq3s_grid[256] = 0x05090507 gives 7, 5, 9, 5 (entry 0 would give 1, 1, 1, 1).
    let mut b = vec![0x00, 0x3c];
    b.extend([0u8; 64]);
    b.extend([0xffu8; 8]);
    b.extend([0u8; 32 + 4]);
    let v = dequantize(GgmlType::IQ3_S, Endian::Little, &b).unwrap();
    assert_eq!(v[..4], [7.0, 5.0, 9.0, 5.0]);
    assert!(
        v.iter().all(|x| x % 2.0 == 1.0 && *x < 16.0),
        "odd magnitudes 1..15"
    );
}

#[test]
fn iq1_s() {
    round_trip(GgmlType::IQ1_S, |r| {
        let d = half(r);
        let (mut qs, mut qh, mut values) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..8 {
            let (scale, negative) = (r.below(0..8) as u16, r.below(0..2) == 1);
            let points: Vec<_> = (0..4).map(|_| IQ1S[r.below(0..3) as usize]).collect();
            let high = points
                .iter()
                .enumerate()
                .map(|(l, p)| ((p.0 >> 8) as u16) << (3 * l))
                .sum::<u16>();
            qh.extend((high | scale << 12 | u16::from(negative) << 15).to_le_bytes());
            qs.extend(points.iter().map(|p| p.0 as u8));
            let dl = half_value(d) * f32::from(2 * scale + 1);
            let delta = if negative { -0.125 } else { 0.125 };
            for p in &points {
                values.extend(p.1.to_le_bytes().map(|b| dl * (f32::from(b as i8) + delta)));
            }
        }
        ([d.to_le_bytes().to_vec(), qs, qh].concat(), values)
    });
}

#[test]
fn iq1_m() {
    round_trip(GgmlType::IQ1_M, |r| {
        let d = half(r);
        let (mut qs, mut qh, mut values) = (Vec::new(), Vec::new(), Vec::new());
        let sub_scales: Vec<u16> = (0..16).map(|_| r.below(0..8) as u16).collect();
        for g in 0..8 {
            let mut nibbles = Vec::new();
            for l in 0..4 {
                let (p, negative) = (IQ1S[r.below(0..3) as usize], r.below(0..2) == 1);
                qs.push(p.0 as u8);
                nibbles.push((p.0 >> 8) as u8 | u8::from(negative) << 3);
                let dl = half_value(d) * f32::from(2 * sub_scales[2 * g + l / 2] + 1);
                let delta = if negative { -0.125 } else { 0.125 };
                values.extend(p.1.to_le_bytes().map(|b| dl * (f32::from(b as i8) + delta)));
            }
            qh.extend([nibbles[0] | nibbles[1] << 4, nibbles[2] | nibbles[3] << 4]);
        }
        // Four 16-bit words: 3-bit scales at bits 0, 3, 6, 9, and a nibble of d at the top.
        let words: Vec<u16> = (0..4)
            .map(|w| {
                let scales = (0..4).map(|k| sub_scales[4 * w + k] << (3 * k)).sum::<u16>();
                scales | ((d >> (4 * w)) & 15) << 12
            })
            .collect();
        (
            [qs, qh, words.iter().flat_map(|w| w.to_le_bytes()).collect()].concat(),
            values,
        )
    });
}

/// The multi-byte numbers ggml's reference dequantizer reads from a block, as (offset, width,
/// count, stride), written from the `ggml-common.h` structs: what a big-endian file stores
/// big-endian.
fn words_of(ty: GgmlType) -> Vec<(usize, usize, usize, usize)> {
    let t = |at, width, count| (at, width, count, width);
    match ty {
        GgmlType::F16 | GgmlType::BF16 | GgmlType::I16 => vec![t(0, 2, 1)],
        GgmlType::F32 | GgmlType::I32 => vec![t(0, 4, 1)],
        GgmlType::F64 | GgmlType::I64 => vec![t(0, 8, 1)],
        GgmlType::I8 | GgmlType::MXFP4 | GgmlType::NVFP4 => vec![],
        GgmlType::Q4_0 | GgmlType::Q8_0 | GgmlType::IQ4_NL | GgmlType::Q1_0 | GgmlType::Q2_0 => {
            vec![t(0, 2, 1)]
        }
        GgmlType::IQ2_S | GgmlType::IQ3_S => vec![t(0, 2, 1)],
        GgmlType::Q4_1 | GgmlType::Q8_1 | GgmlType::Q4_K | GgmlType::Q5_K | GgmlType::IQ4_XS => {
            vec![t(0, 2, 2)]
        }
        GgmlType::Q5_0 => vec![t(0, 2, 1), t(2, 4, 1)],
        GgmlType::Q5_1 => vec![t(0, 2, 2), t(4, 4, 1)],
        GgmlType::Q2_K => vec![t(80, 2, 2)],
        GgmlType::Q3_K => vec![t(108, 2, 1)],
        GgmlType::Q6_K => vec![t(208, 2, 1)],
        GgmlType::Q8_K => vec![t(0, 4, 1), t(260, 2, 16)],
        GgmlType::TQ1_0 => vec![t(52, 2, 1)],
        GgmlType::TQ2_0 => vec![t(64, 2, 1)],
        GgmlType::IQ2_XXS => vec![t(0, 2, 1), (6, 4, 8, 8)],
        GgmlType::IQ2_XS => vec![t(0, 2, 1), t(2, 2, 32)],
        GgmlType::IQ3_XXS => vec![t(0, 2, 1), t(66, 4, 8)],
        GgmlType::IQ1_S => vec![t(0, 2, 1), t(34, 2, 8)],
        GgmlType::IQ1_M => vec![t(48, 2, 4)],
        other => panic!("no layout for {other}"),
    }
}

#[test]
fn big_endian_blocks_decode_like_their_little_endian_form() {
    let mut rng = Rng(42);
    for ty in GgmlType::all().filter(|&t| is_supported(t)) {
        let size = ty.type_size().unwrap() as usize;
        let little: Vec<u8> = (0..20 * size).map(|_| rng.byte()).collect();
        let mut big = little.clone();
        for block in big.chunks_exact_mut(size) {
            for (at, width, count, stride) in words_of(ty) {
                for k in 0..count {
                    block[at + k * stride..at + k * stride + width].reverse();
                }
            }
        }
        let a = dequantize(ty, Endian::Little, &little).unwrap();
        let b = dequantize(ty, Endian::Big, &big).unwrap();
        assert!(
            a.iter()
                .zip(&b)
                .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())),
            "{ty}"
        );
        if !words_of(ty).is_empty() {
            let misread = dequantize(ty, Endian::Big, &little).unwrap();
            assert!(
                a.iter().zip(&misread).any(|(x, y)| x.to_bits() != y.to_bits()),
                "{ty}: byte order makes a difference"
            );
        }
    }
}

#[test]
fn hostile_bytes_are_decoded_or_refused_never_a_panic() {
    let mut rng = Rng(7);
    for id in 0..64 {
        let ty = GgmlType(id);
        for len in (0..600).step_by(7) {
            let bytes: Vec<u8> = (0..len).map(|_| rng.byte()).collect();
            for endian in [Endian::Little, Endian::Big] {
                match (dequantize(ty, endian, &bytes), ty.type_size(), ty.block_size()) {
                    (Ok(v), Some(size), Some(block)) => {
                        assert!(is_supported(ty) && len % size as usize == 0, "{ty} {len}");
                        assert_eq!(v.len(), len / size as usize * block as usize);
                    }
                    (Err(_), size, _) => {
                        assert!(
                            !is_supported(ty) || len % size.unwrap() as usize != 0,
                            "{ty} {len}"
                        )
                    }
                    (Ok(_), ..) => panic!("{ty}: decoded without a geometry"),
                }
            }
        }
    }
}

/// The tests' own Q4_K and Q6_K quantizer (the built-in sample's weights): its blocks decode, by
/// ggml's formulas here, to the values it was given, each within its sub-block's step (a Q4_K
/// sub-block spans its values in 15 steps, a Q6_K one its largest magnitude in 31); so the sample's
/// values are the bell-shaped ones written, not noise.
#[test]
fn the_tests_k_quantizer_round_trips_within_a_step() {
    use gguf_test_support::quant::{encode, weight_values};
    let values = weight_values(4096, 7, 0.05);
    for (ty, steps, sub) in [(GgmlType::Q4_K, 15.0, 32), (GgmlType::Q6_K, 31.0, 16)] {
        let decoded = dequantize(ty, Endian::Little, &encode(ty, &values)).unwrap();
        assert_eq!(decoded.len(), values.len(), "{ty}");
        for (i, (block, out)) in values.chunks(sub).zip(decoded.chunks(sub)).enumerate() {
            let (lo, hi) = block.iter().fold((0f32, 0f32), |(l, h), &v| (l.min(v), h.max(v)));
            let span = if ty == GgmlType::Q4_K {
                hi - lo
            } else {
                hi.max(-lo)
            };
            // A step, and a little for the 6-bit scales' and the f16 block scales' rounding.
            let allowed = 1.1 * span / steps;
            for (x, y) in block.iter().zip(out) {
                assert!(
                    (x - y).abs() <= allowed,
                    "{ty} sub-block {i}: {x} came back as {y}, beyond {allowed}"
                );
            }
        }
    }
}
