//! The one table of hyperparameters: each upstream field (named as in `config.json`, with the
//! other spellings llama.cpp's `convert_hf_to_gguf.py` reads it under), the `{arch}.*` key the
//! converter writes it to, and the architectures it writes it for.
//!
//! Checked against the converter of llama.cpp as vendored by llama-cpp-python 0.3.36
//! (`conversion/base.py` `TextModel.set_gguf_parameters` and the llama, qwen, gemma, phi,
//! command_r, bert and deepseek model classes): the names and their order are the converter's
//! `find_hparam` lists; `rope_parameters` (transformers 5) comes before `rope_scaling`, and its
//! `full_attention` part before both, as the converter reads them. Where a converter writes a
//! default for a field upstream leaves out (Gemma 3's `head_dim` 256, DeepSeek 2's
//! `rms_norm_eps` 1e-6), the field is `missing-upstream`, not a difference.

use gguf_core::keys::arch;

/// How values compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Integers: one, or one per layer on either side.
    Count,
    /// Floats: equal when they are the same number after rounding to f32, as the converter
    /// stores them.
    Float,
}

impl Kind {
    /// The type the converter writes such a key in, as `ggufscope edit --set KEY:TYPE` names it.
    pub fn edit_type(self) -> &'static str {
        match self {
            Kind::Count => "u32",
            Kind::Float => "f32",
        }
    }
}

/// Which architectures the converter writes a field for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Archs {
    /// Every architecture (where the upstream configuration has the field).
    All,
    /// Only these.
    Only(&'static [&'static str]),
    /// All but these: their converters write something else under the key.
    Except(&'static [&'static str]),
}

impl Archs {
    /// Whether the converter writes the field for `architecture`.
    pub fn includes(self, architecture: &str) -> bool {
        match self {
            Archs::All => true,
            Archs::Only(list) => list.contains(&architecture),
            Archs::Except(list) => !list.contains(&architecture),
        }
    }
}

/// One hyperparameter.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The field's name in checks: its usual `config.json` name.
    pub name: &'static str,
    /// Where the converter looks for it in `config.json`, in its order (`a.b` is `b` inside
    /// object `a`); each is looked up in `text_config` first. Where upstream lacks it, the
    /// check names `config.json:{name}`.
    pub upstream: &'static [&'static str],
    /// The suffix of the `{arch}.*` key it is written to.
    pub gguf: &'static str,
    /// How values compare.
    pub kind: Kind,
    /// The architectures the converter writes it for.
    pub archs: Archs,
    /// What a difference means for inference.
    pub impact: &'static str,
}

/// Architectures with multi-head latent attention: their converter writes one key/value head
/// (the latent), whatever `num_key_value_heads` says.
const MLA: &[&str] = &["deepseek2"];

/// Architectures whose converter writes `attention.sliding_window` (Qwen 2 and Mistral-as-llama
/// configurations carry a `sliding_window` llama.cpp does not use).
const SLIDING_WINDOW: &[&str] = &[
    "gemma2", "gemma3", "gemma3n", "phi3", "cohere2", "gpt-oss", "exaone4",
];

const SHAPE: &str = "the file's tensor shapes belong to another model, or its metadata is wrong: it will not load, or computes garbage";

/// Architectures whose converter takes the context length from `model_max_length` first: Command
/// R's `max_position_embeddings` (8192) is not what it was trained on (131072).
const MODEL_MAX_LENGTH_FIRST: &[&str] = &["command-r"];

const CONTEXT_IMPACT: &str = "the context runtimes offer by default: longer than trained degrades output, shorter wastes the model's range";

/// The hyperparameters, in the order checks are listed. A field with two rows (for disjoint
/// architectures) is read from other upstream names by those architectures' converters.
pub const FIELDS: &[Field] = &[
    Field {
        name: "max_position_embeddings",
        upstream: &[
            "max_position_embeddings",
            "n_ctx",
            "n_positions",
            "max_length",
            "max_sequence_length",
            "model_max_length",
            "max_seq_len",
        ],
        gguf: arch::CONTEXT_LENGTH,
        kind: Kind::Count,
        archs: Archs::Except(MODEL_MAX_LENGTH_FIRST),
        impact: CONTEXT_IMPACT,
    },
    Field {
        name: "max_position_embeddings",
        upstream: &["model_max_length", "max_position_embeddings"],
        gguf: arch::CONTEXT_LENGTH,
        kind: Kind::Count,
        archs: Archs::Only(MODEL_MAX_LENGTH_FIRST),
        impact: CONTEXT_IMPACT,
    },
    Field {
        name: "hidden_size",
        upstream: &["hidden_size", "n_embd", "dim", "d_model"],
        gguf: arch::EMBEDDING_LENGTH,
        kind: Kind::Count,
        archs: Archs::All,
        impact: SHAPE,
    },
    Field {
        name: "intermediate_size",
        upstream: &[
            "prefix_dense_intermediate_size",
            "dense_intermediate_size",
            "intermediate_size",
            "n_inner",
            "hidden_dim",
            "ffn_hidden_size",
            "ffn_config.ffn_hidden_size",
        ],
        gguf: arch::FEED_FORWARD_LENGTH,
        kind: Kind::Count,
        archs: Archs::All,
        impact: SHAPE,
    },
    Field {
        name: "num_hidden_layers",
        upstream: &["n_layers", "num_hidden_layers", "n_layer", "num_layers"],
        gguf: arch::BLOCK_COUNT,
        kind: Kind::Count,
        archs: Archs::All,
        impact: SHAPE,
    },
    Field {
        name: "num_attention_heads",
        upstream: &["num_attention_heads", "n_head", "n_heads"],
        gguf: arch::HEAD_COUNT,
        kind: Kind::Count,
        archs: Archs::All,
        impact: "attention is split into other heads than in training: garbage output",
    },
    Field {
        name: "num_key_value_heads",
        upstream: &[
            "num_key_value_heads",
            "n_kv_heads",
            "num_kv_heads",
            "n_head_kv",
            "attn_config.kv_n_heads",
        ],
        gguf: arch::HEAD_COUNT_KV,
        kind: Kind::Count,
        archs: Archs::Except(MLA),
        impact: "keys and values are shared among other heads than in training: garbage output, and another KV cache size",
    },
    Field {
        name: "head_dim",
        upstream: &["head_dim"],
        gguf: arch::KEY_LENGTH,
        kind: Kind::Count,
        archs: Archs::Except(MLA),
        impact: SHAPE,
    },
    Field {
        name: "rope_theta",
        upstream: &[
            "rope_parameters.full_attention.rope_theta",
            "rope_parameters.rope_theta",
            "global_rope_theta",
            "rope_global_theta",
            "rope_theta_global",
            "rope_theta",
            "rotary_emb_base",
            "attn_config.rope_theta",
        ],
        gguf: arch::ROPE_FREQ_BASE,
        kind: Kind::Float,
        archs: Archs::All,
        impact: "positions are rotated at another frequency than in training: quality drops, most at long context",
    },
    Field {
        name: "rms_norm_eps",
        upstream: &["rms_norm_eps", "norm_eps"],
        gguf: arch::LAYER_NORM_RMS_EPSILON,
        kind: Kind::Float,
        archs: Archs::All,
        impact: "normalisation is computed with another epsilon: small numeric drift, larger in low-precision runs",
    },
    Field {
        name: "layer_norm_eps",
        upstream: &["layer_norm_eps", "layer_norm_epsilon", "norm_epsilon"],
        gguf: arch::LAYER_NORM_EPSILON,
        kind: Kind::Float,
        archs: Archs::All,
        impact: "normalisation is computed with another epsilon: small numeric drift, larger in low-precision runs",
    },
    Field {
        name: "sliding_window",
        upstream: &["sliding_window"],
        gguf: arch::SLIDING_WINDOW,
        kind: Kind::Count,
        archs: Archs::Only(SLIDING_WINDOW),
        impact: "local-attention layers see another span of tokens than in training: quality drops on inputs longer than the window",
    },
    Field {
        name: "num_local_experts",
        upstream: &[
            "num_local_experts",
            "num_experts",
            "n_routed_experts",
            "ffn_config.moe_num_experts",
        ],
        gguf: arch::EXPERT_COUNT,
        kind: Kind::Count,
        archs: Archs::All,
        impact: SHAPE,
    },
    Field {
        name: "num_experts_per_tok",
        upstream: &[
            "num_experts_per_tok",
            "num_experts_per_token",
            "top_k_experts",
            "ffn_config.moe_top_k",
        ],
        gguf: arch::EXPERT_USED_COUNT,
        kind: Kind::Count,
        archs: Archs::All,
        impact: "each token is routed to another number of experts than in training: quality (fewer) or speed (more) suffers",
    },
    Field {
        name: "n_shared_experts",
        upstream: &["n_shared_experts"],
        gguf: arch::EXPERT_SHARED_COUNT,
        kind: Kind::Count,
        archs: Archs::All,
        impact: SHAPE,
    },
    Field {
        name: "kv_lora_rank",
        upstream: &["kv_lora_rank"],
        gguf: arch::KV_LORA_RANK,
        kind: Kind::Count,
        archs: Archs::All,
        impact: SHAPE,
    },
    Field {
        name: "q_lora_rank",
        upstream: &["q_lora_rank"],
        gguf: arch::Q_LORA_RANK,
        kind: Kind::Count,
        archs: Archs::All,
        impact: SHAPE,
    },
    Field {
        name: "qk_rope_head_dim",
        upstream: &["qk_rope_head_dim"],
        gguf: arch::ROPE_DIMENSION_COUNT,
        kind: Kind::Count,
        archs: Archs::Only(MLA),
        impact: "another part of each head is rotated than in training: garbage output",
    },
    Field {
        name: "v_head_dim",
        upstream: &["v_head_dim"],
        gguf: arch::VALUE_LENGTH_MLA,
        kind: Kind::Count,
        archs: Archs::Only(MLA),
        impact: SHAPE,
    },
];

/// What a RoPE scaling difference means for inference.
pub(crate) const ROPE_IMPACT: &str =
    "positions past the original context are scaled otherwise than upstream: long-context quality drops";

/// RoPE scaling's numbers (its type is compared apart: Llama 3's and LongRoPE's scaling are
/// written as a tensor, not as keys).
pub const ROPE_SCALING: &[Field] = &[
    Field {
        name: "rope_scaling.factor",
        upstream: &[
            "rope_parameters.full_attention.factor",
            "rope_parameters.factor",
            "rope_scaling.factor",
        ],
        gguf: arch::ROPE_SCALING_FACTOR,
        kind: Kind::Float,
        archs: Archs::All,
        impact: ROPE_IMPACT,
    },
    Field {
        name: "rope_scaling.original_max_position_embeddings",
        upstream: &[
            "rope_parameters.full_attention.original_max_position_embeddings",
            "rope_parameters.original_max_position_embeddings",
            "rope_scaling.original_max_position_embeddings",
            "original_max_position_embeddings",
        ],
        gguf: arch::ROPE_SCALING_ORIGINAL_CONTEXT_LENGTH,
        kind: Kind::Count,
        archs: Archs::All,
        impact: ROPE_IMPACT,
    },
];
