//! Writes headers that claim far more than they hold — the shapes of the out-of-memory and crash
//! bugs other GGUF readers shipped — for `scripts/bench-memory.py`, which measures the CLI's peak
//! memory on each. Every file must end in an error with an offset, or in findings, using memory
//! proportional to the bytes present, never to what the header claims.
//!
//! `cargo run -p gguf-core --features testkit --example write_hostile_headers -- DIR`

use gguf_core::testkit::GgufBuilder;
use gguf_core::{Array, GgmlType, StringArray, ValueType};

fn le(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}

/// The bytes after a key for an array of `elem` claiming `len` elements, followed by `body`.
fn array_header(elem: ValueType, len: u64, body: &[u8]) -> Vec<u8> {
    let mut raw = (ValueType::Array as u32).to_le_bytes().to_vec();
    raw.extend((elem as u32).to_le_bytes());
    raw.extend(le(len));
    raw.extend(body);
    raw
}

fn main() {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "hostile".into()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let arch = || GgufBuilder::new().kv("general.architecture", "llama");
    let mut files: Vec<(&str, Vec<u8>)> = Vec::new();

    let mut counts = b"GGUF".to_vec();
    counts.extend(3u32.to_le_bytes());
    counts.extend(le(u64::MAX));
    counts.extend(le(u64::MAX));
    files.push(("counts-2^64-1", counts));
    let mut kvs = b"GGUF".to_vec();
    kvs.extend(3u32.to_le_bytes());
    kvs.extend(le(0));
    kvs.extend(le((1 << 24) - 1));
    files.push(("kv-count-2^24-in-24-bytes", kvs));

    let mut string = 8u32.to_le_bytes().to_vec();
    string.extend(le(1 << 63));
    files.push((
        "string-length-2^63",
        arch().kv_raw("general.name", &string).build(),
    ));
    let mut string = 8u32.to_le_bytes().to_vec();
    string.extend(le((256 << 20) - 1));
    files.push((
        "string-length-256MiB-in-100-bytes",
        arch().kv_raw("general.name", &string).build(),
    ));

    files.push((
        "array-length-2^63",
        arch()
            .kv_raw(
                "tokenizer.ggml.tokens",
                &array_header(ValueType::String, 1 << 63, &[]),
            )
            .build(),
    ));
    files.push((
        "array-2^30-u64-in-1kB",
        arch()
            .kv_raw(
                "tokenizer.ggml.scores",
                &array_header(ValueType::U64, (1 << 30) - 1, &[7; 1000]),
            )
            .build(),
    ));

    let mut deep = Vec::new();
    for _ in 0..1_000_000 {
        deep.extend((ValueType::Array as u32).to_le_bytes());
        deep.extend(le(1));
    }
    files.push((
        "nesting-depth-1M",
        arch()
            .kv_raw("deep", &array_header(ValueType::Array, 1, &deep))
            .build(),
    ));

    // Honest but wasteful shapes: memory follows the bytes present.
    let empties = Array::Array((0..1_000_000).map(|_| Array::U8(Vec::new())).collect());
    files.push(("1M-empty-inner-arrays", arch().kv("wide", empties).build()));
    let strings: StringArray = std::iter::repeat_n("", 4_000_000).collect();
    files.push((
        "4M-empty-strings",
        arch().kv("tokenizer.ggml.tokens", Array::String(strings)).build(),
    ));

    let mut dims = b"\xff\xff\xff\xff".to_vec();
    dims.extend([0; 64]);
    files.push((
        "tensor-overflows",
        arch()
            .kv("general.alignment", 1u32 << 31)
            .tensor("product-overflows", &[1 << 40, 1 << 40], GgmlType::F32)
            .tensor_at("offset-u64-max", &[32], GgmlType::F32, u64::MAX)
            .tensor("unknown-type", &[32], GgmlType(139))
            .build(),
    ));
    files.push((
        "alignment-0",
        arch()
            .kv("general.alignment", 0u32)
            .tensor("t", &[8], GgmlType::F32)
            .build(),
    ));
    files.push((
        "alignment-48",
        arch()
            .kv("general.alignment", 48u32)
            .tensor("t", &[8], GgmlType::F32)
            .build(),
    ));

    for (name, bytes) in files {
        let path = dir.join(format!("{name}.gguf"));
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        println!("{}", path.display());
    }
}
