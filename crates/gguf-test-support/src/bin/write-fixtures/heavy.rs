//! `heavy-headers/`: headers for the tests of the browser worker's bounds, valid as far as they
//! go, and far heavier than any real model's.
//!
//! - `empty-arrays.gguf`: one key whose value is an array of 2^28 empty arrays, 12 bytes each in
//!   the file, so 3 GiB — sparse: the zeros that follow the header are those empty arrays, and
//!   `File::set_len` makes them without writing them. The decoder keeps every element it reads,
//!   so its memory grows with the bytes read, past the parser's wasm memory cap.
//! - `tensors-300k.gguf`: 300,000 one-value tensors (a 10 MB header and their 9.6 MB of data).
//!   Its report is built in one call, which holds the worker's thread for seconds: a step longer
//!   than the watchdog's budget when a test sets it low.
//! - `long-name.gguf`: one tensor named by 100,000 bytes of `A` (the page once froze a minute on
//!   it and grew 783,157 px wide).
//! - `duplicate-tensors.gguf`: 100,000 tensors of one name, all at offset 0 (the page once drew
//!   300,000 finding rows for it).

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use gguf_core::testkit::GgufBuilder;
use gguf_core::{GgmlType, ValueType};

/// Writes the four files into `dir`.
pub fn write_all(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    write_empty_arrays(&dir.join("empty-arrays.gguf"), 1 << 28)?;
    write_tensors(&dir.join("tensors-300k.gguf"), 300_000)?;
    write_long_name(&dir.join("long-name.gguf"), 100_000)?;
    write_duplicates(&dir.join("duplicate-tensors.gguf"), 100_000)
}

fn write_long_name(path: &Path, len: usize) -> io::Result<()> {
    let name = "A".repeat(len);
    let file = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .tensor(&name, &[8], GgmlType::F32)
        .tensor("output.weight", &[8], GgmlType::F32)
        .with_tensor_data()
        .build();
    std::fs::write(path, file)
}

fn write_duplicates(path: &Path, count: usize) -> io::Result<()> {
    let mut builder = GgufBuilder::new().kv("general.architecture", "llama");
    for _ in 0..count {
        builder = builder.tensor_at("blk.0.attn_q.weight", &[1], GgmlType::F32, 0);
    }
    std::fs::write(path, builder.build())
}

fn write_empty_arrays(path: &Path, count: u64) -> io::Result<()> {
    let mut value = Vec::new();
    value.extend_from_slice(&(ValueType::Array as u32).to_le_bytes());
    value.extend_from_slice(&(ValueType::Array as u32).to_le_bytes());
    value.extend_from_slice(&count.to_le_bytes());
    let header = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv_raw("hostile.empty_arrays", &value)
        .build();
    // An empty array is its element type and its length: 12 zero bytes are an empty u8 array.
    let len = header.len() as u64 + count * 12;
    let mut file = File::create(path)?;
    file.write_all(&header)?;
    file.set_len(len)
}

fn write_tensors(path: &Path, count: usize) -> io::Result<()> {
    let mut builder = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("llama.block_count", 1u32);
    for i in 0..count {
        builder = builder.tensor(format!("t.{i}"), &[1], GgmlType::F32);
    }
    std::fs::write(path, builder.with_tensor_data().build())
}
