//! Vocabularies of the kinds no real fixture has, for llama.cpp's reference ids
//! (`scripts/reference/tokenize-refs.py`): a byte-level BPE vocabulary for each
//! `tokenizer.ggml.pre` llama.cpp accepts (the real files have a dozen of them), a model without
//! a vocabulary (`tokenizer.ggml.model = none`), one of llama.cpp's dummy `test` tokenizer, and a
//! small PLaMo-2 vocabulary (`plamo2`), laid out as llama.cpp's PLaMo converter writes one — `<|plamo:…|>` control tokens, the 256 byte tokens `<0xNN>`, then
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

use alloc::collections::{BTreeMap, BTreeSet};
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

/// Every `tokenizer.ggml.pre` llama.cpp 0c1e570 accepts for a BPE vocabulary, in the order of its
/// `src/llama-vocab.cpp`.
pub const PRE_NAMES: &[&str] = &[
    "kimi-k2",
    "default",
    "minicpm5",
    "llama3",
    "llama-v3",
    "llama-bpe",
    "falcon3",
    "falcon-h1",
    "pixtral",
    "midm-2.0",
    "lfm2",
    "jina-v5-nano",
    "deepseek-llm",
    "deepseek-coder",
    "deepseek-v3",
    "spark2_5",
    "youtu",
    "falcon",
    "mpt",
    "starcoder",
    "gpt-2",
    "phi-2",
    "jina-es",
    "jina-de",
    "gigachat",
    "jina-v2-es",
    "jina-v2-de",
    "a.x-4.0",
    "mellum",
    "modern-bert",
    "jais-2",
    "gemma4",
    "granite-embed-multi-311m",
    "sarvam-moe",
    "jina-v1-en",
    "jina-v2-code",
    "roberta-bpe",
    "whitespace",
    "refact",
    "command-r",
    "qwen2",
    "deepseek-r1-qwen",
    "kormo",
    "f2llmv2",
    "qwen35",
    "stablelm2",
    "olmo",
    "dbrx",
    "smaug-bpe",
    "poro-chat",
    "chatglm-bpe",
    "glm4",
    "glm5",
    "viking",
    "jais",
    "tekken",
    "smollm",
    "codeshell",
    "bloom",
    "gpt3-finnish",
    "exaone",
    "exaone4",
    "exaone-moe",
    "chameleon",
    "minerva-7b",
    "megrez",
    "gpt-4o",
    "llama4",
    "kanana2",
    "talkie",
    "granite-embed-multi-97m",
    "tiny_aya",
    "cohere2moe",
    "superbpe",
    "trillion",
    "granite-docling",
    "bailingmoe",
    "bailingmoe2",
    "llada-moe",
    "seed-coder",
    "hunyuan",
    "hunyuan-dense",
    "hy_v4",
    "joyai-llm",
    "ufakzeka",
    "grok-2",
    "afmoe",
    "laguna",
    "minimax-m2",
    "solar-open",
    "mellum2",
];

/// GPT-2's `bytes_to_unicode`: the character that stands for byte `b` in a byte-level BPE
/// vocabulary.
fn byte_char(b: u8) -> char {
    let c = match b {
        0x21..=0x7E | 0xA1..=0xAC | 0xAE..=0xFF => u32::from(b),
        0x00..=0x20 => 0x100 + u32::from(b),
        0x7F..=0xA0 => 0x121 + u32::from(b - 0x7F),
        0xAD => 0x143,
    };
    char::from_u32(c).unwrap_or('?')
}

/// Merges learned from [`CORPUS`] as BPE learns them: the corpus cut into words (a space or tab
/// starts one, a newline is one), then the commonest pair of adjacent symbols merged, `count`
/// times (ties to the first pair in byte order). Symbols are byte-level text.
fn learned_merges(count: usize) -> Vec<(String, String)> {
    let mut words: BTreeMap<Vec<String>, u32> = BTreeMap::new();
    let mut word: Vec<String> = Vec::new();
    for c in CORPUS.chars() {
        if matches!(c, ' ' | '\t' | '\n') && !word.is_empty() {
            *words.entry(core::mem::take(&mut word)).or_default() += 1;
        }
        let mut utf8 = [0; 4];
        word.extend(
            c.encode_utf8(&mut utf8)
                .bytes()
                .map(|b| String::from(byte_char(b))),
        );
        if c == '\n' {
            *words.entry(core::mem::take(&mut word)).or_default() += 1;
        }
    }
    if !word.is_empty() {
        *words.entry(word).or_default() += 1;
    }
    let mut merges = Vec::new();
    while merges.len() < count {
        let mut pairs: BTreeMap<(&str, &str), u32> = BTreeMap::new();
        for (w, n) in &words {
            for pair in w.windows(2) {
                *pairs.entry((&pair[0], &pair[1])).or_default() += n;
            }
        }
        // The commonest, the first in byte order among equals.
        let Some(((a, b), _)) = pairs.iter().max_by(|x, y| x.1.cmp(y.1).then(y.0.cmp(x.0))) else {
            break;
        };
        let (a, b) = (String::from(*a), String::from(*b));
        words = words
            .into_iter()
            .map(|(w, n)| {
                let mut merged: Vec<String> = Vec::with_capacity(w.len());
                for s in w {
                    match merged.last_mut() {
                        Some(last) if *last == a && s == b => last.push_str(&b),
                        _ => merged.push(s),
                    }
                }
                (merged, n)
            })
            .fold(BTreeMap::new(), |mut all, (w, n)| {
                *all.entry(w).or_default() += n;
                all
            });
        merges.push((a, b));
    }
    merges
}

/// A byte-level BPE vocabulary (`gpt2`, `whitespace` for that pre-tokenizer) with pre-tokenizer
/// `pre` (one of [`PRE_NAMES`]): the 256 byte characters, 1,500 merges learned from a fixed text
/// (English, code, Japanese, Chinese, Russian) and their tokens, then special tokens, `<s>` and
/// `</s>` the BOS and EOS. Its header (no tensors).
pub fn bpe_vocab(pre: &str) -> Vec<u8> {
    bpe_vocab_with(pre, &learned_merges(1500))
}

/// [`bpe_vocab`] of every name of [`PRE_NAMES`], the merges learned once.
pub fn bpe_vocabs() -> impl Iterator<Item = (&'static str, Vec<u8>)> {
    let merges = learned_merges(1500);
    PRE_NAMES
        .iter()
        .map(move |&pre| (pre, bpe_vocab_with(pre, &merges)))
}

fn bpe_vocab_with(pre: &str, merges: &[(String, String)]) -> Vec<u8> {
    // The whitespace pre-tokenizer is the whitespace model's (which drops whitespace before it);
    // under `gpt2` llama.cpp aborts on a run of whitespace with a space in it.
    let model = if pre == "whitespace" { "whitespace" } else { "gpt2" };
    byte_level(merges, &[])
        .kv("general.name", "byte-level BPE test vocabulary")
        .kv("tokenizer.ggml.model", model)
        .kv("tokenizer.ggml.pre", pre)
        .build()
}

/// A HybridDNA vocabulary (`hybriddna`) as llama.cpp's converter writes one: [`bpe_vocab`]'s
/// tokens, then `<dna>`, `</dna>` and `<oov>` (control tokens), then every 6-letter k-mer of
/// `ACGT` followed by the marker U+E000. Its header (no tensors).
pub fn hybriddna_vocab() -> Vec<u8> {
    let mut added: Vec<(String, i32)> = ["<dna>", "</dna>", "<oov>"]
        .map(|t| (String::from(t), 3))
        .to_vec();
    for k in 0..4usize.pow(6) {
        let kmer: String = (0..6)
            .map(|i| b"ACGT"[(k >> (2 * (5 - i))) & 3] as char)
            .collect();
        added.push((format!("{kmer}\u{E000}"), 1));
    }
    byte_level(&learned_merges(1500), &added)
        .kv("general.name", "HybridDNA test vocabulary")
        .kv("tokenizer.ggml.model", "hybriddna")
        .kv("tokenizer.ggml.pre", "default")
        .build()
}

/// A byte-level BPE vocabulary's keys: the 256 byte characters, the tokens of `merges`, special
/// tokens (`<s>` and `</s>` the BOS and EOS), then `added` (text, token type).
fn byte_level(merges: &[(String, String)], added: &[(String, i32)]) -> GgufBuilder {
    let mut tokens: Vec<String> = (0..=255u8).map(|b| String::from(byte_char(b))).collect();
    let mut seen: BTreeSet<String> = tokens.iter().cloned().collect();
    for (a, b) in merges {
        let token = format!("{a}{b}");
        if seen.insert(token.clone()) {
            tokens.push(token);
        }
    }
    let mut types = alloc::vec![1; tokens.len()];
    let bos = tokens.len() as u32;
    for special in [
        "<s>",
        "</s>",
        "<|endoftext|>",
        "<|im_start|>",
        "<|im_end|>",
        "[CLS]",
        "[SEP]",
        "<mask>",
    ] {
        tokens.push(special.into());
        types.push(3);
    }
    for (text, ty) in added {
        tokens.push(text.clone());
        types.push(*ty);
    }
    let merges: Vec<String> = merges.iter().map(|(a, b)| format!("{a} {b}")).collect();
    GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("tokenizer.ggml.tokens", Array::String(tokens.iter().collect()))
        .kv("tokenizer.ggml.token_type", Array::I32(types))
        .kv("tokenizer.ggml.merges", Array::String(merges.iter().collect()))
        .kv("tokenizer.ggml.bos_token_id", bos)
        .kv("tokenizer.ggml.eos_token_id", bos + 1)
}

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
