//! The token browser's work on the largest vocabularies: a search keystroke (one substring scan of
//! all token texts), a page of 50 tokens as JSON, the type counts, and the split of a rendered
//! chat template at special tokens. Natively; `node scripts/bench-tokens.mjs` measures the same
//! keystrokes in the browser, through the worker and the wasm.
//!
//! `cargo bench -p gguf-core --features serde --bench tokenizer` (fixtures from `../shared/fixtures`;
//! `$GGUF_GEMMA` adds the Gemma model).

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use gguf_core::report::TokenPage;
use gguf_core::tokenizer::{Case, SearchIndex, Tokenizer};

fn fixture(rel: &str) -> PathBuf {
    std::env::var_os("GGUF_FIXTURES")
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures"),
            PathBuf::from,
        )
        .join(rel)
}

/// Keystrokes as a person types them, and a query that matches nothing.
const QUERIES: [&str; 5] = ["t", "th", "the", "▁für", "no such token"];

fn bench(c: &mut Criterion) {
    let mut files = vec![
        fixture("synth/vocab-262k.gguf"),
        fixture("real/ggml-vocab-command-r.gguf"),
    ];
    files.extend(std::env::var_os("GGUF_GEMMA").map(PathBuf::from));
    for path in files {
        let header = gguf_core::parse(&std::fs::read(&path).unwrap()).unwrap();
        let tokenizer = Tokenizer::new(&header);
        let mut group = c.benchmark_group(path.file_name().unwrap().to_string_lossy().into_owned());
        group.sample_size(30);
        group.bench_function("search index", |b| b.iter(|| SearchIndex::new(&tokenizer)));
        let index = SearchIndex::new(&tokenizer);
        for query in QUERIES {
            group.bench_function(format!("search {query:?}"), |b| {
                b.iter(|| index.list(black_box(query.as_bytes()), Case::Insensitive).len())
            });
        }
        let listing = index.list(b"", Case::Insensitive);
        group.bench_function("page of 50 as JSON", |b| {
            b.iter(|| {
                serde_json::to_vec(&TokenPage::new(&tokenizer, &listing, black_box(131_072), 50))
                    .unwrap()
                    .len()
            })
        });
        group.bench_function("type counts", |b| b.iter(|| tokenizer.type_counts().normal));
        let prompt =
            "<BOS_TOKEN><|START_OF_TURN_TOKEN|><|USER_TOKEN|>Hello! What is GGUF?<|END_OF_TURN_TOKEN|>"
                .repeat(20);
        group.bench_function("split 2 KB at special tokens", |b| {
            b.iter(|| tokenizer.split_special(black_box(&prompt)).len())
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
