//! A small reference quantizer for the tests (ggml's `quantize_row_q8_0_ref` and
//! `quantize_row_q4_0_ref`; plain Q4_K and Q6_K blocks for the sample's realistic values), its own
//! dequantizer, and files built with the test builder whose
//! tensor data is set afterwards: the inputs and the independent answers of the value tests
//! (gguf-diff's, the CLI's `diff`, and the value pairs `write-fixtures` writes for the JavaScript tests).

use gguf_core::testkit::GgufBuilder;
use gguf_core::{GgmlType, parse};

/// f32 to IEEE half, round to nearest even (normal and subnormal halves; no overflow here).
pub fn f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let abs = f32::from_bits(bits & 0x7fff_ffff);
    if abs == 0.0 {
        return sign;
    }
    // Scale so that the half's last bit is 1 unit, round with f32's own round-half-even, rebuild.
    let e = abs.log2().floor() as i32;
    let e = e.max(-14);
    let unit = 2f32.powi(e - 10);
    let mut m = (abs / unit).round_ties_even() as u32;
    let mut e = e;
    if m >= 2048 {
        m >>= 1;
        e += 1;
    }
    if m < 1024 {
        return sign | m as u16; // subnormal
    }
    sign | (((e + 15) as u16) << 10) | (m as u16 & 0x3ff)
}

/// IEEE half to f32, by its definition.
pub fn f16_value(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f32::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f32.powi(-24),
        _ => (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

/// Q8_0: per 32 values, d = max|x| / 127 (as f16), q = round(x / d).
pub fn q8_0(values: &[f32]) -> Vec<u8> {
    let mut out = Vec::new();
    for block in values.chunks(32) {
        let amax = block.iter().fold(0f32, |m, v| m.max(v.abs()));
        let d = amax / 127.0;
        let id = if d != 0.0 { 1.0 / d } else { 0.0 };
        out.extend(f16_bits(d).to_le_bytes());
        out.extend(block.iter().map(|v| (v * id).round() as i8 as u8));
    }
    out
}

/// Q4_0: per 32 values, d = (the value of largest magnitude) / −8 (as f16), q = min(15, x/d + 8.5).
pub fn q4_0(values: &[f32]) -> Vec<u8> {
    let mut out = Vec::new();
    for block in values.chunks(32) {
        let max = block
            .iter()
            .fold(0f32, |m, &v| if v.abs() > m.abs() { v } else { m });
        let d = max / -8.0;
        let id = if d != 0.0 { 1.0 / d } else { 0.0 };
        let q: Vec<u8> = block
            .iter()
            .map(|v| ((v * id + 8.5) as i8).min(15) as u8)
            .collect();
        out.extend(f16_bits(d).to_le_bytes());
        out.extend((0..16).map(|j| q[j] | (q[j + 16] << 4)));
    }
    out
}

/// Q4_K, per 256 values: eight sub-blocks of 32, each with a 6-bit scale and minimum relative to
/// the block's `d` and `dmin` (f16), and 4-bit codes: x ≈ d·sc·q − dmin·m. A plain min/max fit
/// (ggml's `quantize_row_q4_K_ref` searches for better scales): the block layout is ggml's.
pub fn q4_k(values: &[f32]) -> Vec<u8> {
    let mut out = Vec::new();
    for block in values.chunks(256) {
        let subs: Vec<(f32, f32)> = block
            .chunks(32)
            .map(|sub| {
                let min = sub.iter().fold(0f32, |m, &v| m.min(v));
                let max = sub.iter().fold(f32::MIN, |m, &v| m.max(v));
                ((max - min) / 15.0, -min)
            })
            .collect();
        let top = |f: fn(&(f32, f32)) -> f32| subs.iter().map(f).fold(0f32, f32::max) / 63.0;
        let (d, dmin) = (
            f16_value(f16_bits(top(|s| s.0))),
            f16_value(f16_bits(top(|s| s.1))),
        );
        let code = |x: f32, unit: f32| {
            if unit > 0.0 {
                (x / unit).round().min(63.0) as u8
            } else {
                0
            }
        };
        let (sc, m): (Vec<u8>, Vec<u8>) = subs
            .iter()
            .map(|&(scale, min)| (code(scale, d), code(min, dmin)))
            .unzip();
        let mut scales = [0u8; 12];
        for j in 0..4 {
            scales[j] = sc[j] | ((sc[j + 4] >> 4) << 6);
            scales[j + 4] = m[j] | ((m[j + 4] >> 4) << 6);
            scales[j + 8] = (sc[j + 4] & 15) | ((m[j + 4] & 15) << 4);
        }
        let q: Vec<u8> = block
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let (step, offset) = (d * f32::from(sc[i / 32]), dmin * f32::from(m[i / 32]));
                if step > 0.0 {
                    ((x + offset) / step).round().clamp(0.0, 15.0) as u8
                } else {
                    0
                }
            })
            .collect();
        out.extend(f16_bits(d).to_le_bytes());
        out.extend(f16_bits(dmin).to_le_bytes());
        out.extend(scales);
        for chunk in q.chunks(64) {
            out.extend((0..32).map(|l| chunk[l] | (chunk[l + 32] << 4)));
        }
    }
    out
}

/// Q6_K, per 256 values: sixteen sub-blocks of 16, each with an 8-bit scale relative to the
/// block's `d` (f16), and 6-bit codes stored as low nibbles and high bit pairs: x ≈ d·sc·(q − 32).
/// A plain max fit (ggml's `quantize_row_q6_K_ref` searches further); ggml's block layout.
pub fn q6_k(values: &[f32]) -> Vec<u8> {
    let mut out = Vec::new();
    for block in values.chunks(256) {
        let subs: Vec<f32> = block
            .chunks(16)
            .map(|sub| sub.iter().fold(0f32, |m, v| m.max(v.abs())) / 31.0)
            .collect();
        let d = f16_value(f16_bits(subs.iter().copied().fold(0f32, f32::max) / 127.0));
        let sc: Vec<i8> = subs
            .iter()
            .map(|&s| {
                if d > 0.0 {
                    (s / d).round().min(127.0) as i8
                } else {
                    0
                }
            })
            .collect();
        let q: Vec<u8> = block
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let step = d * f32::from(sc[i / 16]);
                let code = if step > 0.0 {
                    (x / step).round().clamp(-32.0, 31.0)
                } else {
                    0.0
                };
                (code as i8 + 32) as u8
            })
            .collect();
        let (mut ql, mut qh) = ([0u8; 128], [0u8; 64]);
        for n in 0..2 {
            for l in 0..32 {
                let [q1, q2, q3, q4] = [0, 32, 64, 96].map(|at| q[128 * n + l + at]);
                ql[64 * n + l] = (q1 & 15) | ((q3 & 15) << 4);
                ql[64 * n + l + 32] = (q2 & 15) | ((q4 & 15) << 4);
                qh[32 * n + l] = (q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6);
            }
        }
        out.extend(ql);
        out.extend(qh);
        out.extend(sc.iter().map(|&s| s as u8));
        out.extend(f16_bits(d).to_le_bytes());
    }
    out
}

/// This module's own reading of its Q8_0 and Q4_0 bytes.
pub fn dequantize(ty: GgmlType, bytes: &[u8]) -> Vec<f32> {
    match ty {
        GgmlType::Q8_0 => bytes
            .chunks(34)
            .flat_map(|b| {
                let d = f16_value(u16::from_le_bytes([b[0], b[1]]));
                b[2..].iter().map(move |&q| f32::from(q as i8) * d)
            })
            .collect(),
        GgmlType::Q4_0 => bytes
            .chunks(18)
            .flat_map(|b| {
                let d = f16_value(u16::from_le_bytes([b[0], b[1]]));
                let low = b[2..].iter().map(move |&q| (i32::from(q & 15) - 8) as f32 * d);
                let high = b[2..].iter().map(move |&q| (i32::from(q >> 4) - 8) as f32 * d);
                low.chain(high).collect::<Vec<_>>()
            })
            .collect(),
        GgmlType::F16 => bytes
            .chunks(2)
            .map(|b| f16_value(u16::from_le_bytes([b[0], b[1]])))
            .collect(),
        GgmlType::F32 => bytes
            .chunks(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect(),
        _ => unimplemented!("{ty}"),
    }
}

/// `values` stored as `ty`.
pub fn encode(ty: GgmlType, values: &[f32]) -> Vec<u8> {
    match ty {
        GgmlType::F32 => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
        GgmlType::F16 => values.iter().flat_map(|&v| f16_bits(v).to_le_bytes()).collect(),
        GgmlType::Q8_0 => q8_0(values),
        GgmlType::Q4_0 => q4_0(values),
        GgmlType::Q4_K => q4_k(values),
        GgmlType::Q6_K => q6_k(values),
        _ => unimplemented!("{ty}"),
    }
}

/// `n` values spread like a trained weight's: about normal around 0 (a sum of four uniform
/// draws), with standard deviation `scale`; deterministic for a `seed`.
pub fn weight_values(n: usize, seed: u64, scale: f32) -> Vec<f32> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut unit = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    // Four uniforms on (-0.5, 0.5) sum to variance 1/3.
    let norm = (3.0f64).sqrt();
    (0..n)
        .map(|_| ((unit() + unit() + unit() + unit()) * norm) as f32 * scale)
        .collect()
}

/// A file with an architecture and these tensors, each `(name, dims, type, its bytes)`, the bytes
/// written where the header places them.
pub fn file_with(tensors: &[(&str, &[u64], GgmlType, Vec<u8>)]) -> Vec<u8> {
    file_from(GgufBuilder::new().kv("general.architecture", "llama"), tensors)
}

/// [`file_with`] from a builder given its keys (a shard's `split.*`, say).
pub fn file_from(mut b: GgufBuilder, tensors: &[(&str, &[u64], GgmlType, Vec<u8>)]) -> Vec<u8> {
    for (name, dims, ty, _) in tensors {
        b = b.tensor(name, dims, *ty);
    }
    let mut file = b.with_tensor_data().build();
    let header = parse(&file).unwrap();
    for (t, (_, _, _, data)) in header.tensors.iter().zip(tensors) {
        let at = header.absolute_offset(t).unwrap() as usize;
        assert_eq!(t.n_bytes(), Some(data.len() as u64), "{}", t.name);
        file[at..at + data.len()].copy_from_slice(data);
    }
    file
}

/// Values with a spread of magnitudes and signs, deterministic.
pub fn sample_values(n: usize) -> Vec<f32> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
            (unit * (1.0 + (i % 7) as f64)) as f32
        })
        .collect()
}
