//! Header decoding speed on the largest headers among the fixtures: the 262,144-token synthetic
//! vocabulary (24 MB header) and the real 256k-token command-r vocabulary (10.9 MB).
//!
//! `cargo bench -p gguf-core --bench parse` (fixtures from `../shared/fixtures`, or `$GGUF_FIXTURES`).

use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gguf_core::{HeaderDecoder, Progress};

fn fixture(rel: &str) -> PathBuf {
    std::env::var_os("GGUF_FIXTURES")
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures"),
            PathBuf::from,
        )
        .join(rel)
}

/// Decodes in 1 MiB chunks, as a reader would feed it.
fn decode_chunked(file: &[u8]) -> usize {
    let mut d = HeaderDecoder::new(Some(file.len() as u64));
    for chunk in file.chunks(1 << 20) {
        if d.feed(chunk).unwrap() == Progress::Done {
            break;
        }
    }
    d.header().unwrap().metadata.len()
}

fn bench(c: &mut Criterion) {
    for rel in ["synth/vocab-262k.gguf", "real/ggml-vocab-command-r.gguf"] {
        let file = std::fs::read(fixture(rel)).unwrap();
        let name = rel.rsplit('/').next().unwrap();
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(file.len() as u64));
        group.sample_size(30);
        group.bench_function("one-shot", |b| {
            b.iter(|| gguf_core::parse(&file).unwrap().metadata.len())
        });
        group.bench_function("1 MiB chunks", |b| b.iter(|| decode_chunked(&file)));
        group.bench_function("parse + summary", |b| {
            b.iter(|| gguf_core::parse(&file).unwrap().summary().vocab_size)
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
