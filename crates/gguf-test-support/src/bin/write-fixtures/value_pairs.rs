//! `value-pairs/`: the models the JavaScript value tests compare (`web/test/compare.test.mjs`,
//! `www/e2e/compare.test.mjs`), with the test builder and the tests' reference quantizer:
//! `f32.gguf` (three layers and more, all F32; one tensor of 1.5 × 2^20 values), the same values
//! as `q8_0.gguf` and `q4_0.gguf` (`blk.1.ffn_up.weight` as F16, which holds its values exactly;
//! the norm F32), and `q8_0.gguf` and `f32.gguf` again as split models of two shards
//! (`*-00001-of-00002.gguf`, …).

use std::io;
use std::path::Path;

use gguf_core::GgmlType;
use gguf_core::testkit::GgufBuilder;
use gguf_test_support::quant::{encode, file_from, sample_values};

/// The tensors: name, dims, whether quantized in B (else kept: F16 for the exact one, F32).
const TENSORS: &[(&str, &[u64], Kind)] = &[
    ("token_embd.weight", &[64, 32], Kind::Quantized),
    ("blk.0.attn_q.weight", &[64, 64], Kind::Quantized),
    ("blk.0.ffn_up.weight", &[512, 8], Kind::Quantized),
    ("blk.1.attn_q.weight", &[64, 64], Kind::Quantized),
    ("blk.1.ffn_up.weight", &[512, 8], Kind::Exact),
    ("blk.2.attn_q.weight", &[64, 64], Kind::Quantized),
    // 1.5 × 2^20 values: compared in two steps (gguf_diff::ValuePairs takes 2^20 at a time).
    ("blk.2.ffn_down.weight", &[1024, 1536], Kind::Quantized),
    ("output_norm.weight", &[64], Kind::Kept),
];

#[derive(Clone, Copy)]
enum Kind {
    Quantized,
    Exact,
    Kept,
}

/// Writes the models into `dir`.
pub fn write_all(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let values: Vec<Vec<f32>> = TENSORS
        .iter()
        .enumerate()
        .map(|(i, (_, dims, kind))| {
            let n = dims.iter().product::<u64>() as usize;
            match kind {
                // Quarters up to 16: F16 holds them exactly.
                Kind::Exact => (0..n).map(|j| (j % 64) as f32 / 4.0).collect(),
                _ => sample_values(n * (i + 1)).split_off(n * i),
            }
        })
        .collect();
    let tensors = |quantized: GgmlType| -> Vec<(&str, &[u64], GgmlType, Vec<u8>)> {
        TENSORS
            .iter()
            .zip(&values)
            .map(|(&(name, dims, kind), v)| {
                let ty = match kind {
                    Kind::Quantized => quantized,
                    Kind::Exact if quantized != GgmlType::F32 => GgmlType::F16,
                    _ => GgmlType::F32,
                };
                (name, dims, ty, encode(ty, v))
            })
            .collect()
    };
    let model = || GgufBuilder::new().kv("general.architecture", "llama");
    for (ty, stem) in [
        (GgmlType::F32, "f32"),
        (GgmlType::Q8_0, "q8_0"),
        (GgmlType::Q4_0, "q4_0"),
    ] {
        let all = tensors(ty);
        std::fs::write(dir.join(format!("{stem}.gguf")), file_from(model(), &all))?;
        if ty == GgmlType::Q4_0 {
            continue;
        }
        // Two shards: the first four tensors, then the rest.
        let (first, second) = all.split_at(4);
        for (no, part) in [first, second].into_iter().enumerate() {
            let keys = match no {
                0 => model(),
                _ => GgufBuilder::new(),
            }
            .kv("split.no", no as u16)
            .kv("split.count", 2u16)
            .kv("split.tensors.count", all.len() as i32);
            let name = format!("{stem}-{:05}-of-00002.gguf", no + 1);
            std::fs::write(dir.join(name), file_from(keys, part))?;
        }
    }
    Ok(())
}
