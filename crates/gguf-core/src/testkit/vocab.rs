//! Vocabularies of the types no real fixture has, for llama.cpp's reference ids
//! (`scripts/reference/tokenize-refs.py`): a model without one (`tokenizer.ggml.model = none`),
//! one of llama.cpp's dummy `test` tokenizer, and a small PLaMo-2 vocabulary (`plamo2`), laid out as llama.cpp's PLaMo converter writes one — `<|plamo:…|>` control tokens, the 256 byte tokens `<0xNN>`, then
//! scored pieces with plain spaces, and an unused `[PAD1]` scored -1000 — from which llama.cpp
//! 0c1e570's `llama-tokenize` gives the reference ids (`scripts/reference/tokenize-refs.py`).
//! No real PLaMo-2 file is among the fixtures.
//!
//! The pieces are substrings of a fixed text (English, code, Japanese, Chinese, Russian,
//! accented Latin) with scores on a half-point grid, so that many splits compete and many tie.
//! Besides, it holds what llama.cpp's table treats specially: a normal piece scored exactly
//! -1000 (its "unknown" row score), one scored -∞ (no score), a second byte token for `j`
//! written in lower case (the later one is used), letters no piece covers (byte fallback), and
//! `<|im_start|>`/`<|im_end|>` as user-defined tokens.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::GgufBuilder;
use crate::header::Array;

/// The text the pieces are cut from.
const CORPUS: &str = "Hello world! How are you doing today? The quick brown fox jumps over the lazy \
dog. Pack my box with five dozen liquor jugs; sphinx of black quartz, judge my vow! I'm sure \
they'll say it's what we'd've done, isn't it? DON'T wait... what?! (yes) [no] {maybe} \
\"quoted\" 'single' 1 12 123 1234 2024-12-03 3.14159 1,000,000 0x1F spaced out \
def f(x):\n\tif x:\n\t\treturn [i**2 for i in range(x)]  # square\n    return None\n\
# Title\n\n* item one\n* item two\n\n```rust\nfn main() { println!(\"hi\"); }\n```\n\
こんにちは世界。今日はいい天気ですね。日本語の文章を書きます。東京と大阪へ行きました。\
你好，世界。Привет мир. café naïve Ångström résumé Zürich façade user hello";

/// Characters no piece of one code point is: the text falls back to their bytes.
const UNCOVERED: &str = "jz界気ö";

/// FNV-1a: a fixed choice of pieces and scores.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A model that says it has no vocabulary (`none`), as llama.cpp's converters write for models
/// without a tokenizer: its header (no tensors).
pub fn none_vocab() -> Vec<u8> {
    GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("general.name", "no vocabulary")
        .kv("tokenizer.ggml.model", "none")
        .kv("llama.vocab_size", 32u32)
        .build()
}

/// A vocabulary of llama.cpp's dummy `test` tokenizer (five bytes a token, by hash): 1,000
/// tokens, some of them special: its header (no tensors).
pub fn test_vocab() -> Vec<u8> {
    let special = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>", "[CLS]"];
    let mut tokens: Vec<String> = special.map(String::from).to_vec();
    let mut types = alloc::vec![2, 3, 3, 3, 3, 4];
    while tokens.len() < 1000 {
        tokens.push(format!("t{}", tokens.len()));
        types.push(1);
    }
    GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("general.name", "test tokenizer")
        .kv("tokenizer.ggml.model", "test")
        .kv("tokenizer.ggml.tokens", Array::String(tokens.iter().collect()))
        .kv("tokenizer.ggml.token_type", Array::I32(types))
        .kv("tokenizer.ggml.bos_token_id", 1u32)
        .kv("tokenizer.ggml.eos_token_id", 2u32)
        .kv("tokenizer.ggml.add_bos_token", true)
        .build()
}

/// The PLaMo-2 vocabulary file: its header (no tensors).
pub fn plamo2_vocab() -> Vec<u8> {
    let mut tokens: Vec<String> = [
        "<|plamo:unk|>",
        "<|plamo:bos|>",
        "<|plamo:eos|>",
        "<|plamo:pad|>",
        "<|plamo:op|>",
    ]
    .map(String::from)
    .to_vec();
    let mut types = alloc::vec![2, 3, 3, 3, 3];
    let mut scores = alloc::vec![0.0f32; 5];
    for byte in 0..=255u8 {
        tokens.push(format!("<0x{byte:02X}>"));
        types.push(6);
        scores.push(0.0);
    }
    let special: [(&str, i32, f32); 7] = [
        ("<|im_start|>", 4, 0.0),
        ("<|im_end|>", 4, 0.0),
        ("<s>", 1, -9.5),
        ("</s>", 1, -9.5),
        ("qu", 1, -1000.0),
        (" fox", 1, f32::NEG_INFINITY),
        ("[PAD1]", 5, -1000.0),
    ];
    let chars: Vec<char> = CORPUS.chars().collect();
    let mut pieces = BTreeSet::new();
    for start in 0..chars.len() {
        for len in 1..=6 {
            if let Some(piece) = chars.get(start..start + len) {
                pieces.insert(piece.iter().collect::<String>());
            }
        }
    }
    for piece in pieces {
        if special.iter().any(|&(t, _, _)| t == piece) {
            continue;
        }
        let single = piece.chars().count() == 1;
        let h = fnv(&piece);
        if single && UNCOVERED.contains(piece.as_str()) || !single && h % 100 >= 40 {
            continue;
        }
        tokens.push(piece);
        types.push(1);
        // -1 to -15 by halves; single characters low, so that longer pieces compete.
        let steps = (h >> 8) % 29;
        scores.push(-1.0 - steps as f32 * 0.5 - if single { 4.0 } else { 0.0 });
    }
    for (text, ty, score) in special {
        tokens.push(text.into());
        types.push(ty);
        scores.push(score);
    }
    tokens.push("<0x6a>".into());
    types.push(6);
    scores.push(0.0);

    GgufBuilder::new()
        .kv("general.architecture", "plamo2")
        .kv("general.name", "PLaMo-2 test vocabulary")
        .kv("tokenizer.ggml.model", "plamo2")
        .kv("tokenizer.ggml.pre", "default")
        .kv("tokenizer.ggml.tokens", Array::String(tokens.iter().collect()))
        .kv("tokenizer.ggml.scores", Array::F32(scores))
        .kv("tokenizer.ggml.token_type", Array::I32(types))
        .kv("tokenizer.ggml.bos_token_id", 1u32)
        .kv("tokenizer.ggml.eos_token_id", 2u32)
        .kv("tokenizer.ggml.padding_token_id", 3u32)
        .kv("tokenizer.ggml.unknown_token_id", 0u32)
        .kv("tokenizer.ggml.eot_token_id", 4u32)
        // Not what the converter writes: set so that llama-tokenize passes add_special, which
        // PLaMo-2 ignores (it adds no BOS).
        .kv("tokenizer.ggml.add_bos_token", true)
        .kv("tokenizer.ggml.add_space_prefix", false)
        .build()
}
