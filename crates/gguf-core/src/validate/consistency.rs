//! Consistency of the model's description with itself and with its tensors: vocabulary arrays,
//! special token ids, head counts, experts, layer count, the file-type label and the split keys.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Check, FindingCode as Code, Subject};
use crate::header::{Entry, LayerValues, TensorInfo};
use crate::keys::{self, arch};
use crate::kind::FileKind;
use crate::text::Grouped;
use crate::types::{FileType, GgmlType};

pub(super) fn check(c: &mut Check<'_>) {
    vocabulary(c);
    special_tokens(c);
    heads(c);
    experts(c);
    block_count(c);
    file_type(c);
    split(c);
}

/// The first entry under `key`, with its index.
fn find<'h>(c: &Check<'h>, key: &str) -> Option<(usize, &'h Entry)> {
    let entries = c.header.metadata.entries();
    let i = entries.iter().position(|e| e.key.as_bytes() == key.as_bytes())?;
    Some((i, &entries[i]))
}

/// The first entry under `{general.architecture}.{suffix}`.
fn find_arch<'h>(c: &Check<'h>, suffix: &str) -> Option<(usize, &'h Entry)> {
    c.header.metadata.arch_entry(suffix)
}

fn add_kv(c: &mut Check<'_>, code: Code, (i, e): (usize, &Entry), message: core::fmt::Arguments<'_>) {
    c.add(code, e.span.clone(), Subject::Kv(i), message);
}

/// Tokens, scores and token types are parallel arrays: llama.cpp indexes all three by token id.
fn vocabulary(c: &mut Check<'_>) {
    let present: Vec<(usize, &Entry, usize)> = keys::VOCABULARY_ARRAYS
        .iter()
        .filter_map(|key| {
            let (i, e) = find(c, key)?;
            Some((i, e, e.value.as_array()?.len()))
        })
        .collect();
    let Some(&(_, reference, reference_len)) = present.first() else {
        return;
    };
    for &(i, e, len) in &present[1..] {
        if len != reference_len {
            add_kv(
                c,
                Code::VocabArrayLengthMismatch,
                (i, e),
                format_args!(
                    "\"{}\" has {} entries but \"{}\" has {}",
                    e.key.excerpt(),
                    Grouped(len as u64),
                    reference.key.excerpt(),
                    Grouped(reference_len as u64)
                ),
            );
        }
    }
}

/// The vocabulary size: the token list's length, else `{arch}.vocab_size`.
fn vocab_size(c: &Check<'_>) -> Option<u64> {
    let tokens = find(c, keys::TOKENS).and_then(|(_, e)| e.value.as_array());
    match tokens {
        Some(a) => Some(a.len() as u64),
        None => find_arch(c, arch::VOCAB_SIZE)?.1.value.as_u64(),
    }
}

/// llama.cpp warns about an out-of-range special id and falls back to its default.
fn special_tokens(c: &mut Check<'_>) {
    let Some(vocab) = vocab_size(c) else { return };
    for (i, e) in c.header.metadata.entries().iter().enumerate() {
        let is_special = keys::is_special_token(e.key.as_bytes());
        match e.value.as_u64() {
            Some(id) if is_special && id >= vocab => add_kv(
                c,
                Code::SpecialTokenOutOfVocab,
                (i, e),
                format_args!(
                    "\"{}\" is {}, outside the vocabulary of {} tokens",
                    e.key.excerpt(),
                    Grouped(id),
                    Grouped(vocab)
                ),
            ),
            _ => {}
        }
    }
}

/// Query heads must split evenly over key/value heads, and, without an explicit key length, the
/// embedding evenly over query heads (llama.cpp derives the head size by division).
fn heads(c: &mut Check<'_>) {
    let Some(heads) = c.header.metadata.arch_layers(arch::HEAD_COUNT) else {
        return;
    };
    let kv_entry = find_arch(c, arch::HEAD_COUNT_KV);
    let kv = c.header.metadata.arch_layers(arch::HEAD_COUNT_KV);
    let layers = heads.len().max(kv.as_ref().map_or(1, LayerValues::len));
    // Layers with 0 KV heads have no attention (hybrid models).
    let uneven: Vec<(usize, u64, u64)> = (0..layers)
        .filter_map(|i| {
            let h = heads.get(i)?;
            let k = kv.as_ref()?.get(i)?;
            (k > 0 && h % k != 0).then_some((i, h, k))
        })
        .collect();
    if let (Some(&(i, h, k)), Some(entry)) = (uneven.first(), kv_entry) {
        let at = if layers > 1 {
            format!(" in layer {i} (and {} more)", uneven.len() - 1)
        } else {
            String::new()
        };
        add_kv(
            c,
            Code::HeadCountNotDivisibleByKvHeads,
            entry,
            format_args!("{h} attention heads do not split evenly over {k} key/value heads{at}"),
        );
    }
    if find_arch(c, arch::KEY_LENGTH).is_some() {
        return;
    }
    let Some(embedding) = find_arch(c, arch::EMBEDDING_LENGTH) else {
        return;
    };
    let Some(n_embd) = embedding.1.value.as_u64() else {
        return;
    };
    if let Some(h) = (0..heads.len())
        .filter_map(|i| heads.get(i))
        .find(|&h| h > 0 && n_embd % h != 0)
    {
        add_kv(
            c,
            Code::EmbeddingNotDivisibleByHeadCount,
            embedding,
            format_args!(
                "embedding length {n_embd} is not a multiple of {h} heads and no attention.key_length gives the head size"
            ),
        );
    }
}

fn experts(c: &mut Check<'_>) {
    let (Some(count), Some(used)) = (
        find_arch(c, arch::EXPERT_COUNT),
        find_arch(c, arch::EXPERT_USED_COUNT),
    ) else {
        return;
    };
    if let (Some(n), Some(u)) = (count.1.value.as_u64(), used.1.value.as_u64()) {
        if u > n {
            add_kv(
                c,
                Code::ExpertUsedCountAboveExpertCount,
                used,
                format_args!("{u} experts used per token, but there are only {n}"),
            );
        }
    }
}

/// `block_count` against the highest `blk.N` tensor. Shards hold a subset of the layers and
/// vocabulary-only files none, so both are skipped.
fn block_count(c: &mut Check<'_>) {
    let split_count = find(c, keys::SPLIT_COUNT).and_then(|(_, e)| e.value.as_u64());
    if split_count.is_some_and(|n| n > 1) {
        return;
    }
    let Some(entry) = find_arch(c, arch::BLOCK_COUNT) else {
        return;
    };
    let Some(blocks) = entry.1.value.as_u64() else {
        return;
    };
    let Some(highest) = c.header.tensors.iter().filter_map(TensorInfo::layer).max() else {
        return;
    };
    if highest.checked_add(1) != Some(blocks) {
        add_kv(
            c,
            Code::BlockCountMismatch,
            entry,
            format_args!(
                "block_count is {blocks}, but the highest layer with tensors is blk.{highest} ({} layers)",
                highest.saturating_add(1)
            ),
        );
    }
}

/// The type llama.cpp's quantizer stores a tensor in when the label's type is `main`: rows that are
/// not whole blocks of `main` get a legacy type instead (llama.cpp `llama_tensor_get_type`,
/// "convert_incompatible_tensor"), F16 if that does not fit either. This is why Gemma 3 270M,
/// labelled Q4_K_M, holds mostly Q5_0: its 640-wide rows are not multiples of 256.
fn stored_type(main: GgmlType, ne0: u64) -> GgmlType {
    let fits = |t: GgmlType| t.block_size().is_some_and(|b| ne0 % u64::from(b) == 0);
    if fits(main) {
        return main;
    }
    let fallback = match main {
        GgmlType::TQ1_0 | GgmlType::TQ2_0 => GgmlType::Q4_0,
        GgmlType::IQ2_XXS
        | GgmlType::IQ2_XS
        | GgmlType::IQ2_S
        | GgmlType::IQ3_XXS
        | GgmlType::IQ3_S
        | GgmlType::IQ1_S
        | GgmlType::IQ1_M
        | GgmlType::Q2_K
        | GgmlType::Q3_K
        | GgmlType::IQ4_XS => GgmlType::IQ4_NL,
        GgmlType::Q4_K => GgmlType::Q5_0,
        GgmlType::Q5_K => GgmlType::Q5_1,
        GgmlType::Q6_K => GgmlType::Q8_0,
        GgmlType::NVFP4 => GgmlType::Q4_K,
        _ => GgmlType::F16,
    };
    if fits(fallback) { fallback } else { GgmlType::F16 }
}

/// The type holding the most elements; ties go to the lower id.
fn dominant(elements: &BTreeMap<GgmlType, u64>) -> Option<GgmlType> {
    elements
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(&t, _)| t)
}

/// `general.file_type` against the block weights (matrices in `blk.N.*`, as gguf-parser-go
/// counts them): quiet when most of their elements are of the label's type, or of the type the
/// quantizer would have used for these shapes.
fn file_type(c: &mut Check<'_>) {
    // An adapter's, a projector's or an importance matrix's tensors are not a model's blocks.
    if c.kind != FileKind::Model {
        return;
    }
    let Some(entry) = find(c, keys::FILE_TYPE) else {
        return;
    };
    let Some(label) = entry
        .1
        .value
        .as_u64()
        .and_then(|v| u32::try_from(v).ok())
        .map(FileType)
    else {
        return;
    };
    let Some(main) = label.main_tensor_type() else {
        return;
    };
    let (mut actual, mut expected) = (BTreeMap::new(), BTreeMap::new());
    let mut total = 0u64;
    for t in &c.header.tensors {
        if t.layer().is_none() || t.dims.len() < 2 {
            continue;
        }
        let n = t.n_elements().unwrap_or(0);
        total = total.saturating_add(n);
        *actual.entry(t.ty).or_insert(0u64) += n;
        let ne0 = t.dims.first().copied().unwrap_or(1);
        *expected.entry(stored_type(main, ne0)).or_insert(0u64) += n;
    }
    let (Some(found), Some(wanted)) = (dominant(&actual), dominant(&expected)) else {
        return;
    };
    if found == main || found == wanted {
        return;
    }
    // Whole percent in integers: no float formatting in the core, and no u128 division (both
    // would weigh on the wasm). `found ≤ total`; past 2^57 elements the percent is rounded down.
    let found_elements = actual.get(&found).copied().unwrap_or(0);
    let total = total.max(1);
    let share = match found_elements.checked_mul(100) {
        Some(f) => (f + total / 2) / total,
        None => found_elements / (total / 100),
    };
    add_kv(
        c,
        Code::FileTypeMismatch,
        entry,
        format_args!(
            "general.file_type says {label} (mostly {wanted}), but {share}% of the block weights' elements are {found}"
        ),
    );
}

/// `split.no` counts from 0 and must be below `split.count`; `split.tensors.count` is the total
/// over all shards, so at least this shard's tensors.
fn split(c: &mut Check<'_>) {
    let int = |e: &Entry| e.value.as_u64();
    let (entry, message) = match (
        find(c, keys::SPLIT_NO),
        find(c, keys::SPLIT_COUNT),
        find(c, keys::SPLIT_TENSORS_COUNT),
    ) {
        (None, None, None) => return,
        (Some(e), None, _) | (None, None, Some(e)) => (e, "split.count is missing".into()),
        (None, Some(e), _) => (e, "split.no is missing".into()),
        (Some(_), Some(e), None) => (e, "split.tensors.count is missing".into()),
        (Some(no), Some(count), Some(total)) => match (int(no.1), int(count.1), int(total.1)) {
            (_, Some(0), _) => (count, "split.count is 0".into()),
            (Some(n), Some(k), _) if n >= k => (
                no,
                format!("split.no is {n} but split.count is {k} (split.no counts from 0)"),
            ),
            (_, _, Some(t)) if t < c.header.tensors.len() as u64 => (
                total,
                format!(
                    "split.tensors.count is {t} (all shards), but this shard alone has {} tensors",
                    c.header.tensors.len()
                ),
            ),
            _ => return,
        },
    };
    add_kv(c, Code::SplitKeysInconsistent, entry, format_args!("{message}"));
}
