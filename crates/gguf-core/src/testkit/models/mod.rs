//! Small models that llama.cpp loads, one of each architecture whose memory llama.cpp sizes by a
//! rule of its own: sliding-window patterns, shared KV layers, multi-head latent attention,
//! mixtures of experts, recurrent and hybrid models, an encoder. Their tensor tables follow
//! llama.cpp's loaders (`src/models/*.cpp`, `load_arch_tensors`); the data is zeros, so a header
//! extended to the file's size (`File::set_len`) loads, and llama.cpp's memory figures for them
//! are the reference data of `tests/reference/memory` (`scripts/reference/memory-refs.py`).

mod attention;
mod hybrid;
mod recurrent;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::GgufBuilder;
use crate::header::{Array, Value};
use crate::types::GgmlType;

/// A model's header and the size of the whole file (the header, its padding and zeroed data).
#[derive(Debug, Clone)]
pub struct BuiltModel {
    /// The file's name.
    pub name: &'static str,
    /// The header: metadata and tensor table, up to the data section.
    pub header: Vec<u8>,
    /// Bytes of the whole file.
    pub size: u64,
}

/// Tokens in the synthetic vocabulary.
const VOCAB: u64 = 32_000;

/// Every model, by file name.
pub fn memory_models() -> Vec<BuiltModel> {
    alloc::vec![
        attention::deepseek2_mla(),
        recurrent::mamba(),
        hybrid::lfm2(),
        attention::qwen3(),
        attention::qwen3_moe(),
        attention::command_r(),
        attention::phi3_swa(),
        attention::gemma2(),
        attention::gemma4(),
        attention::gpt_oss(),
        attention::llama4(),
        attention::deepseek3(),
        attention::bert(),
        recurrent::rwkv6(),
        recurrent::rwkv7(),
        hybrid::qwen3_next(),
        hybrid::granite_hybrid(),
        hybrid::falcon_h1(),
    ]
}

/// A model being written: its builder and architecture (the prefix of its hyperparameters).
struct Model {
    b: GgufBuilder,
    arch: &'static str,
}

impl Model {
    /// The general keys and an SPM vocabulary of [`VOCAB`] tokens (`<unk>`, `<s>`, `</s>`, the
    /// 256 byte tokens, then made-up pieces), enough for llama.cpp's tokenizer to load.
    fn new(arch: &'static str, description: &str) -> Model {
        let mut tokens: Vec<String> = alloc::vec!["<unk>".into(), "<s>".into(), "</s>".into()];
        tokens.extend((0..=255u8).map(|byte| format!("<0x{byte:02X}>")));
        let mut i = 0;
        while (tokens.len() as u64) < VOCAB {
            tokens.push(format!("\u{2581}t{i}"));
            i += 1;
        }
        let types: Vec<i32> = (0..tokens.len())
            .map(|i| match i {
                0 => 2,
                1 | 2 => 3,
                3..=258 => 6,
                _ => 1,
            })
            .collect();
        let scores: Vec<f32> = (0..tokens.len()).map(|i| -(i as f32)).collect();
        let b = GgufBuilder::new()
            .kv("general.architecture", arch)
            .kv("general.name", description)
            .kv("general.file_type", 1u32)
            .kv("tokenizer.ggml.model", "llama")
            .kv("tokenizer.ggml.tokens", Array::String(tokens.iter().collect()))
            .kv("tokenizer.ggml.scores", Array::F32(scores))
            .kv("tokenizer.ggml.token_type", Array::I32(types))
            .kv("tokenizer.ggml.bos_token_id", 1u32)
            .kv("tokenizer.ggml.eos_token_id", 2u32);
        Model { b, arch }
    }

    /// `{arch}.{key}`.
    fn key(mut self, key: &str, value: impl Into<Value>) -> Model {
        self.b = self.b.kv(format!("{}.{key}", self.arch), value);
        self
    }

    /// A tensor: f32 for a vector, f16 for a matrix (llama.cpp's loader takes either).
    fn t(self, name: impl AsRef<str>, dims: &[u64]) -> Model {
        let ty = if dims.len() == 1 {
            GgmlType::F32
        } else {
            GgmlType::F16
        };
        self.typed(name, dims, ty)
    }

    /// A tensor in f32, where llama.cpp's operators take no other type (convolutions, SSM).
    fn f32(self, name: impl AsRef<str>, dims: &[u64]) -> Model {
        self.typed(name, dims, GgmlType::F32)
    }

    fn typed(mut self, name: impl AsRef<str>, dims: &[u64], ty: GgmlType) -> Model {
        self.b = self.b.tensor(name.as_ref(), dims, ty);
        self
    }

    /// Token embedding, the output norm named `norm` and the output matrix (none when tied).
    fn embeddings(self, n_embd: u64, norm: &str, output: bool) -> Model {
        let m = self
            .t("token_embd.weight", &[n_embd, VOCAB])
            .t(format!("{norm}.weight"), &[n_embd]);
        if output {
            m.t("output.weight", &[n_embd, VOCAB])
        } else {
            m
        }
    }

    /// Attention's Q, K, V and output projections of layer `i`.
    fn qkvo(self, i: u32, n_embd: u64, q: u64, kv: u64) -> Model {
        self.t(blk(i, "attn_q.weight"), &[n_embd, q])
            .t(blk(i, "attn_k.weight"), &[n_embd, kv])
            .t(blk(i, "attn_v.weight"), &[n_embd, kv])
            .t(blk(i, "attn_output.weight"), &[q, n_embd])
    }

    /// A gated feed-forward block of layer `i` (gate, up, down).
    fn ffn(self, i: u32, n_embd: u64, n_ff: u64) -> Model {
        self.t(blk(i, "ffn_gate.weight"), &[n_embd, n_ff])
            .t(blk(i, "ffn_up.weight"), &[n_embd, n_ff])
            .t(blk(i, "ffn_down.weight"), &[n_ff, n_embd])
    }

    /// The experts of layer `i` and their router.
    fn experts(self, i: u32, n_embd: u64, n_ff_exp: u64, n_expert: u64) -> Model {
        self.t(blk(i, "ffn_gate_inp.weight"), &[n_embd, n_expert])
            .t(blk(i, "ffn_gate_exps.weight"), &[n_embd, n_ff_exp, n_expert])
            .t(blk(i, "ffn_up_exps.weight"), &[n_embd, n_ff_exp, n_expert])
            .t(blk(i, "ffn_down_exps.weight"), &[n_ff_exp, n_embd, n_expert])
    }

    /// A shared expert of layer `i`.
    fn shared_expert(self, i: u32, n_embd: u64, n_ff: u64) -> Model {
        self.t(blk(i, "ffn_gate_shexp.weight"), &[n_embd, n_ff])
            .t(blk(i, "ffn_up_shexp.weight"), &[n_embd, n_ff])
            .t(blk(i, "ffn_down_shexp.weight"), &[n_ff, n_embd])
    }

    /// The header as written and the file's full size.
    fn finish(self, name: &'static str) -> BuiltModel {
        let header = self.b.build();
        let size = sized(&self.b, header.len() as u64);
        BuiltModel { name, header, size }
    }
}

/// Layer `i`'s tensor `name`.
fn blk(i: u32, name: &str) -> String {
    format!("blk.{i}.{name}")
}

/// The length of `b`'s complete file, computed from its tensor table (without building it).
fn sized(b: &GgufBuilder, header_len: u64) -> u64 {
    let data_offset = header_len.next_multiple_of(b.alignment);
    let mut next = 0u64;
    let mut end = 0u64;
    for t in &b.tensors {
        let offset = t.offset.unwrap_or(next);
        let elements: u64 = t.dims.iter().product();
        let bytes = GgmlType(t.ty)
            .bytes_for(t.dims.first().copied().unwrap_or(1), elements)
            .unwrap_or(0);
        end = end.max(offset + bytes);
        next = (offset + bytes).next_multiple_of(b.alignment);
    }
    data_offset + end
}
