//! A small reference quantizer for the tests (ggml's `quantize_row_q8_0_ref` and
//! `quantize_row_q4_0_ref`), its own dequantizer, and files built with the test builder whose
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
        _ => unimplemented!("{ty}"),
    }
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
