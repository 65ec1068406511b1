//! Small complete files of the kinds that are not models, each as llama.cpp's writer lays it out:
//! an importance matrix (`llama-imatrix`, `IMatrixCollector::save_imatrix`), a LoRA adapter
//! (`convert_lora_to_gguf.py`), multimodal projectors (`convert_hf_to_gguf.py --mmproj`,
//! `MmprojModel`) and a control vector (`llama-cvector-generator`). Their shapes are a toy
//! model's (width 64, two layers; a projector's encoders narrower still), their data zeros: each
//! file a few kilobytes.

use alloc::format;
use alloc::vec::Vec;

use super::GgufBuilder;
use crate::header::Array;
use crate::types::GgmlType;

/// The toy model's width.
const N_EMBD: u64 = 64;
/// The toy model's feed-forward width.
const N_FF: u64 = 128;
/// The toy model's key/value width (a quarter of the query heads).
const N_KV: u64 = 16;
/// The toy model's layers.
const LAYERS: u64 = 2;
/// A projector's encoder width, and its feed-forward width: smaller still, so that a projector
/// with both encoders stays a few kilobytes.
const ENC_EMBD: u64 = 16;
const ENC_FF: u64 = 32;

/// An importance matrix of the toy model, as `llama-imatrix` saves it: `general.type`, the
/// datasets and chunk figures, then per weight matrix, in name order, its sums of squared
/// activations (`NAME.in_sum2`, one row per expert) and its counts (`NAME.counts`), both F32.
pub fn imatrix() -> Vec<u8> {
    let mut b = GgufBuilder::new()
        .kv("general.type", "imatrix")
        .kv(
            "imatrix.datasets",
            Array::String(["wiki.train.raw"].iter().collect()),
        )
        .kv("imatrix.chunk_count", 100u32)
        .kv("imatrix.chunk_size", 512u32);
    let mut names: Vec<(alloc::string::String, u64)> = Vec::new();
    for layer in 0..LAYERS {
        for (weight, n_in) in [
            ("attn_k", N_EMBD),
            ("attn_output", N_EMBD),
            ("attn_q", N_EMBD),
            ("attn_v", N_EMBD),
            ("ffn_down", N_FF),
            ("ffn_gate", N_EMBD),
            ("ffn_up", N_EMBD),
        ] {
            names.push((format!("blk.{layer}.{weight}.weight"), n_in));
        }
    }
    names.push(("output.weight".into(), N_EMBD));
    names.sort();
    for (name, n_in) in names {
        b = b
            .tensor(format!("{name}.in_sum2"), &[n_in, 1], GgmlType::F32)
            .tensor(format!("{name}.counts"), &[1, 1], GgmlType::F32);
    }
    b.with_tensor_data().build()
}

/// A rank-8 LoRA adapter of the toy model's attention, as `convert_lora_to_gguf.py` writes one:
/// `general.type` `adapter`, `adapter.type` `lora`, its alpha, the base model from the adapter's
/// card, and per adapted weight a `lora_a` (`[n_in, rank]`) and a `lora_b` (`[rank, n_out]`).
pub fn lora_adapter() -> Vec<u8> {
    const RANK: u64 = 8;
    let mut b = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("general.type", "adapter")
        .kv("adapter.type", "lora")
        .kv("general.name", "Toy Llama Chat LoRA")
        .kv("general.finetune", "chat")
        .kv("general.base_model.count", 1u32)
        .kv("general.base_model.0.name", "Toy Llama")
        .kv("general.base_model.0.organization", "Ggufscope")
        .kv(
            "general.base_model.0.repo_url",
            "https://huggingface.co/ggufscope/toy-llama",
        )
        .kv("general.file_type", 1u32)
        .kv("general.quantization_version", 2u32)
        .kv("adapter.lora.alpha", 16f32);
    for layer in 0..LAYERS {
        for (weight, n_out) in [("attn_q", N_EMBD), ("attn_k", N_KV), ("attn_v", N_KV)] {
            let name = format!("blk.{layer}.{weight}.weight");
            b = b
                .tensor(format!("{name}.lora_a"), &[N_EMBD, RANK], GgmlType::F16)
                .tensor(format!("{name}.lora_b"), &[RANK, n_out], GgmlType::F16);
        }
    }
    b.with_tensor_data().build()
}

/// An image encoder's keys and tensors, as `MmprojModel` writes them (`clip.vision.*`, `v.*`),
/// projecting to the toy model's width.
fn vision(mut b: GgufBuilder) -> GgufBuilder {
    const PATCH: u64 = 4;
    b = b
        .kv("clip.has_vision_encoder", true)
        .kv("clip.vision.projection_dim", N_EMBD as u32)
        .kv("clip.vision.image_size", 16u32)
        .kv("clip.vision.patch_size", PATCH as u32)
        .kv("clip.vision.embedding_length", ENC_EMBD as u32)
        .kv("clip.vision.feed_forward_length", ENC_FF as u32)
        .kv("clip.vision.block_count", LAYERS as u32)
        .kv("clip.vision.attention.head_count", 4u32)
        .kv("clip.vision.image_mean", Array::F32(alloc::vec![0.5, 0.5, 0.5]))
        .kv("clip.vision.image_std", Array::F32(alloc::vec![0.5, 0.5, 0.5]))
        .kv("clip.vision.attention.layer_norm_epsilon", 1e-6f32)
        .tensor("v.patch_embd.weight", &[PATCH, PATCH, 3, ENC_EMBD], GgmlType::F16)
        .tensor("v.position_embd.weight", &[ENC_EMBD, 16], GgmlType::F32);
    for layer in 0..LAYERS {
        let t = |name: &str| format!("v.blk.{layer}.{name}");
        b = b
            .tensor(t("attn_q.weight"), &[ENC_EMBD, ENC_EMBD], GgmlType::F16)
            .tensor(t("attn_k.weight"), &[ENC_EMBD, ENC_EMBD], GgmlType::F16)
            .tensor(t("attn_v.weight"), &[ENC_EMBD, ENC_EMBD], GgmlType::F16)
            .tensor(t("attn_out.weight"), &[ENC_EMBD, ENC_EMBD], GgmlType::F16)
            .tensor(t("ffn_up.weight"), &[ENC_EMBD, ENC_FF], GgmlType::F16)
            .tensor(t("ffn_down.weight"), &[ENC_FF, ENC_EMBD], GgmlType::F16);
    }
    b.tensor("mm.input_projection.weight", &[ENC_EMBD, N_EMBD], GgmlType::F16)
}

/// A Gemma 3-style image projector of the toy model: `general.type` `mmproj`, architecture
/// `clip`, `clip.projector_type` `gemma3`, an image encoder and no audio one.
pub fn mmproj_vision() -> Vec<u8> {
    let b = GgufBuilder::new()
        .kv("general.architecture", "clip")
        .kv("general.type", "mmproj")
        .kv("general.name", "Toy Gemma Vision")
        .kv("general.file_type", 1u32)
        .kv("clip.projector_type", "gemma3")
        .kv("clip.use_gelu", true);
    vision(b).with_tensor_data().build()
}

/// A projector with an image and an audio encoder, each naming its own projector type, as a
/// Gemma 3n-style mixed-modality `MmprojModel` writes it.
pub fn mmproj_vision_audio() -> Vec<u8> {
    let mut b = GgufBuilder::new()
        .kv("general.architecture", "clip")
        .kv("general.type", "mmproj")
        .kv("general.name", "Toy Gemma Vision and Audio")
        .kv("general.file_type", 1u32)
        .kv("clip.vision.projector_type", "gemma3nv")
        .kv("clip.audio.projector_type", "gemma3na");
    const MEL_BINS: u64 = 16;
    b = vision(b)
        .kv("clip.has_audio_encoder", true)
        .kv("clip.audio.projection_dim", N_EMBD as u32)
        .kv("clip.audio.num_mel_bins", MEL_BINS as u32)
        .kv("clip.audio.embedding_length", ENC_EMBD as u32)
        .kv("clip.audio.feed_forward_length", ENC_FF as u32)
        .kv("clip.audio.block_count", LAYERS as u32)
        .kv("clip.audio.attention.head_count", 4u32)
        .tensor("a.conv1d.0.weight", &[3, MEL_BINS, ENC_EMBD], GgmlType::F16);
    for layer in 0..LAYERS {
        let t = |name: &str| format!("a.blk.{layer}.{name}");
        b = b
            .tensor(t("attn_q.weight"), &[ENC_EMBD, ENC_EMBD], GgmlType::F16)
            .tensor(t("ffn_up.weight"), &[ENC_EMBD, ENC_FF], GgmlType::F16);
    }
    b.tensor("mm.a.fc.weight", &[ENC_EMBD, N_EMBD], GgmlType::F16)
        .with_tensor_data()
        .build()
}

/// A control vector for the toy model's two layers, as `llama-cvector-generator` writes it:
/// architecture `controlvector`, the model it was made for, and one F32 direction per layer
/// (`direction.N`, from 1).
pub fn control_vector() -> Vec<u8> {
    let mut b = GgufBuilder::new()
        .kv("general.architecture", "controlvector")
        .kv("controlvector.model_hint", "llama")
        .kv("controlvector.layer_count", LAYERS as i32);
    for layer in 1..=LAYERS {
        b = b.tensor(format!("direction.{layer}"), &[N_EMBD], GgmlType::F32);
    }
    b.with_tensor_data().build()
}
