//! What each kind of file needs to load where it goes: an adapter's `lora_a`/`lora_b` pairs
//! (llama.cpp `llama_adapter_lora_init`), an importance matrix's sums and counts
//! (`common_imatrix_load`), a projector's encoder and projector type (`clip.cpp`); and a
//! `general.type` no writer uses.

use super::{Check, FindingCode as Code, Subject};
use crate::header::Value;
use crate::keys;
use crate::kind::{FileKind, GENERAL_TYPES, lora_half, pairs};
use crate::types::GgmlType;

pub(super) fn check(c: &mut Check<'_>) {
    general_type(c);
    match c.kind {
        FileKind::Adapter => adapter(c),
        FileKind::Imatrix => imatrix(c),
        FileKind::Mmproj => mmproj(c),
        _ => {}
    }
}

fn general_type(c: &mut Check<'_>) {
    let Some((i, e)) = c
        .header
        .metadata
        .entries()
        .iter()
        .enumerate()
        .find(|(_, e)| e.key.as_bytes() == keys::GENERAL_TYPE.as_bytes())
    else {
        return;
    };
    let Value::String(ty) = &e.value else { return };
    if GENERAL_TYPES.iter().any(|t| t.as_bytes() == ty.as_bytes()) {
        return;
    }
    c.add(
        Code::UnknownGeneralType,
        e.span.clone(),
        Subject::Kv(i),
        format_args!(
            "general.type is \"{}\", none of model, adapter, imatrix, mmproj: the file is described as a {} by its keys",
            ty.excerpt(),
            c.kind.id()
        ),
    );
}

fn adapter(c: &mut Check<'_>) {
    let md = &c.header.metadata;
    let ty = md.entry(keys::ADAPTER_TYPE);
    if ty.and_then(|e| e.value.as_str()) != Some("lora") {
        let (span, subject) = match md
            .entries()
            .iter()
            .position(|e| e.key.as_bytes() == keys::ADAPTER_TYPE.as_bytes())
        {
            Some(i) => (md.entries()[i].span.clone(), Subject::Kv(i)),
            None => (c.whole_header(), Subject::File),
        };
        match ty.map(|e| &e.value) {
            Some(Value::String(s)) => c.add(
                Code::AdapterTypeNotLora,
                span,
                subject,
                format_args!(
                    "adapter.type is \"{}\", not \"lora\": llama.cpp loads LoRA adapters only",
                    s.excerpt()
                ),
            ),
            Some(_) => c.add(
                Code::AdapterTypeNotLora,
                span,
                subject,
                format_args!(
                    "adapter.type is not a string: llama.cpp loads an adapter only when it says \"lora\""
                ),
            ),
            None => c.add(
                Code::AdapterTypeNotLora,
                span,
                subject,
                format_args!(
                    "adapter.type is missing: llama.cpp loads an adapter only when it says \"lora\""
                ),
            ),
        }
    }
    let header = c.header;
    for (i, t) in header.tensors.iter().enumerate() {
        let name = t.name.as_bytes();
        if lora_half(name).is_none() && !name.ends_with(b"_norm.weight") {
            c.add(
                Code::LoraUnexpectedTensor,
                t.span.clone(),
                Subject::Tensor(i),
                format_args!(
                    "tensor \"{}\" is neither a .lora_a, a .lora_b nor a norm: llama.cpp refuses the adapter",
                    t.name.excerpt()
                ),
            );
        }
    }
    for (weight, a, b) in pairs(header, lora_half) {
        let (a, b) = match (a, b) {
            (Some(a), Some(b)) => (a, b),
            (Some(only), None) | (None, Some(only)) => {
                let t = &header.tensors[only];
                let missing = if a.is_some() { "lora_b" } else { "lora_a" };
                c.add(
                    Code::LoraPairIncomplete,
                    t.span.clone(),
                    Subject::Tensor(only),
                    format_args!(
                        "tensor \"{}\" has no {missing} partner: llama.cpp refuses the adapter",
                        t.name.excerpt()
                    ),
                );
                continue;
            }
            (None, None) => continue,
        };
        // The token embedding's pair is stored flipped (llama.cpp `llm_build_inp_embd`).
        if weight.ends_with(b"token_embd.weight") {
            continue;
        }
        let (ta, tb) = (&header.tensors[a], &header.tensors[b]);
        let (ra, rb) = (
            ta.dims.get(1).copied().unwrap_or(1),
            tb.dims.first().copied().unwrap_or(1),
        );
        if ra != rb {
            c.add(
                Code::LoraRankMismatch,
                ta.span.clone(),
                Subject::Tensor(a),
                format_args!(
                    "tensor \"{}\" has rank {ra} (its second dimension), but \"{}\" has rank {rb} (its first): llama.cpp refuses the adapter (lora_a not transposed?)",
                    ta.name.excerpt(),
                    tb.name.excerpt()
                ),
            );
        }
    }
}

fn imatrix(c: &mut Check<'_>) {
    let header = c.header;
    if header.tensors.is_empty() {
        c.add(
            Code::ImatrixEmpty,
            c.whole_header(),
            Subject::File,
            format_args!("the importance matrix has no tensors: llama.cpp finds no data in it"),
        );
        return;
    }
    for (i, t) in header.tensors.iter().enumerate() {
        if imatrix_half(t.name.as_bytes()).is_some() && t.ty != GgmlType::F32 {
            c.add(
                Code::ImatrixNotF32,
                t.span.clone(),
                Subject::Tensor(i),
                format_args!(
                    "tensor \"{}\" is {}, not F32: llama.cpp refuses the importance matrix",
                    t.name.excerpt(),
                    t.ty
                ),
            );
        }
    }
    for (_, sums, counts) in pairs(header, imatrix_half) {
        let (only, missing) = match (sums, counts) {
            (Some(i), None) => (i, ".counts"),
            (None, Some(i)) => (i, ".in_sum2"),
            _ => continue,
        };
        let t = &header.tensors[only];
        c.add(
            Code::ImatrixPairIncomplete,
            t.span.clone(),
            Subject::Tensor(only),
            format_args!(
                "tensor \"{}\" has no {missing} partner: llama.cpp refuses the importance matrix",
                t.name.excerpt()
            ),
        );
    }
}

fn mmproj(c: &mut Check<'_>) {
    let md = &c.header.metadata;
    let flag = |key: &str| matches!(md.get(key), Some(Value::Bool(true)));
    let (vision, audio) = (
        flag(keys::CLIP_HAS_VISION_ENCODER),
        flag(keys::CLIP_HAS_AUDIO_ENCODER),
    );
    if !vision && !audio {
        c.add(
            Code::MmprojNoEncoder,
            c.whole_header(),
            Subject::File,
            format_args!(
                "neither clip.has_vision_encoder nor clip.has_audio_encoder is true: llama.cpp finds no encoder to load"
            ),
        );
        return;
    }
    let named = |key: &str| md.get(key).and_then(Value::as_str).is_some_and(|t| !t.is_empty());
    for (has, modality) in [(vision, "vision"), (audio, "audio")] {
        if has
            && !named(keys::CLIP_PROJECTOR_TYPE)
            && !named(&alloc::format!("clip.{modality}.projector_type"))
        {
            c.add(
                Code::MmprojNoProjectorType,
                c.whole_header(),
                Subject::File,
                format_args!(
                    "the {modality} encoder has no projector type (clip.projector_type or clip.{modality}.projector_type): llama.cpp refuses it"
                ),
            );
        }
    }
}

/// An importance matrix tensor's name split: the weight it is about, and whether it holds the
/// sums (`.in_sum2`) rather than the counts (`.counts`).
fn imatrix_half(name: &[u8]) -> Option<(&[u8], bool)> {
    match name.strip_suffix(b".in_sum2") {
        Some(base) => Some((base, true)),
        None => name.strip_suffix(b".counts").map(|base| (base, false)),
    }
}
