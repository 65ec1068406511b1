//! The model buffer: the weights. llama.cpp memory-maps the file and hands the CPU backend the
//! range from the first tensor's data to the last one's end (`get_mapping_range`), so the
//! buffer is that range of the file; a CPU whose instruction set has a faster layout for a type
//! (AVX2, AVX-512, NEON: `ggml-cpu/repack.cpp`) copies those matrices into a `CPU_REPACK`
//! buffer as well, which only the CPU decides.
//!
//! The MTP layers of the models below are not loaded (`TENSOR_SKIP`) unless a draft runs on
//! them (`load_mtp`, which llama-server sets only for `--spec-type mtp`), so they are not in the
//! mapped range either.

use super::estimate::Range;
use super::hparams::HParams;
use crate::header::{Header, TensorInfo};
use crate::types::GgmlType;

/// Architectures whose loader skips the MTP layers' tensors without `load_mtp`.
const MTP_SKIPPED: [&str; 17] = [
    "bailingmoe3",
    "cohere2moe",
    "deepseek2",
    "deepseek32",
    "deepseek4",
    "glm-dsa",
    "glm4moe",
    "glm5-next",
    "hy_v3",
    "mimo2",
    "nemotron_h",
    "nemotron_h_moe",
    "qwen35",
    "qwen35moe",
    "qwen3next",
    "step35",
    "dots3note",
];

/// Types the CPU backend may repack (Q4_0, Q4_K, IQ4_NL, Q8_0, Q2_K, Q6_K, MXFP4 … by build).
const REPACKABLE: [GgmlType; 7] = [
    GgmlType::Q4_0,
    GgmlType::Q4_K,
    GgmlType::IQ4_NL,
    GgmlType::Q8_0,
    GgmlType::Q2_K,
    GgmlType::Q6_K,
    GgmlType::MXFP4,
];

/// Whether llama-server loads tensor `t`: not an MTP layer's where the loader skips them.
pub(crate) fn loaded(hp: &HParams, t: &TensorInfo) -> bool {
    if hp.n_layer_nextn == 0 || !MTP_SKIPPED.contains(&hp.arch.as_str()) {
        return true;
    }
    let layer = t.name.as_bytes().strip_prefix(b"blk.").and_then(|rest| {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        core::str::from_utf8(&rest[..digits]).ok()?.parse::<usize>().ok()
    });
    layer.is_none_or(|il| il < hp.n_layer())
}

/// The mapped range, and up to it plus every matrix (experts too) of a repackable type; `hp`
/// (a model's, not a projector's) tells the layers not loaded.
pub(crate) fn model_bytes(header: &Header, hp: Option<&HParams>) -> Range {
    let mut first = u64::MAX;
    let mut last = 0u64;
    let mut repackable = 0u64;
    let mut sum = 0u64;
    for t in header
        .tensors
        .iter()
        .filter(|t| hp.is_none_or(|hp| loaded(hp, t)))
    {
        let Some(bytes) = t.n_bytes() else { continue };
        sum = sum.saturating_add(bytes);
        first = first.min(t.offset);
        last = last.max(t.offset.saturating_add(bytes));
        if t.dims.len() >= 2 && REPACKABLE.contains(&t.ty) {
            repackable += bytes;
        }
    }
    // A split model's header holds every shard's tensors at offsets within their own file, one
    // mapping each: their ranges overlap, and the tensors' sum is the better figure. For one file
    // the range (the tensors and the padding between them) is never below the sum.
    let mapped = last
        .saturating_sub(if first == u64::MAX { 0 } else { first })
        .max(sum);
    Range {
        bytes: mapped,
        low: mapped,
        high: mapped.saturating_add(repackable),
    }
}
