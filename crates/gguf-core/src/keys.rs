//! The well-known metadata keys, in one place: the `general.*`, `split.*` and `tokenizer.*` names,
//! the suffixes of the `{architecture}.*` keys, and the tables built from them (special tokens,
//! tokenizer flags, chat templates). Everything else in the crate refers to these names.

/// `general.architecture`: which model family, and the prefix of its hyperparameter keys.
pub const ARCHITECTURE: &str = "general.architecture";
/// `general.type`: what the file is — `"model"`, `"adapter"`, `"imatrix"` or `"mmproj"`, as
/// llama.cpp's writers put it (gguf-py's `GGUFType`); older files have none.
pub const GENERAL_TYPE: &str = "general.type";
/// `general.name`.
pub const NAME: &str = "general.name";
/// `general.size_label`, e.g. `"8x7B"`.
pub const SIZE_LABEL: &str = "general.size_label";
/// `general.file_type`: the `llama_ftype` the file says it is.
pub const FILE_TYPE: &str = "general.file_type";
/// `general.alignment`: where the tensor data starts, and each tensor in it.
pub const ALIGNMENT: &str = "general.alignment";
/// `general.quantization_version`.
pub const QUANTIZATION_VERSION: &str = "general.quantization_version";
/// `general.source.url`: where the model was converted from (a URL).
pub const SOURCE_URL: &str = "general.source.url";
/// `general.source.huggingface.repository`: the Hugging Face repository it was converted from
/// (`ORG/REPO`).
pub const SOURCE_HF_REPOSITORY: &str = "general.source.huggingface.repository";
/// `general.base_model.N.repo_url` (`N` from 0): a model this one derives from, between
/// [`BASE_MODEL_PREFIX`] and [`BASE_MODEL_REPO_URL`].
pub const BASE_MODEL_PREFIX: &str = "general.base_model.";
/// The suffix of `general.base_model.N.repo_url`.
pub const BASE_MODEL_REPO_URL: &str = ".repo_url";
/// `general.base_model.count`: how many `general.base_model.N.*` there are.
pub const BASE_MODEL_COUNT: &str = "general.base_model.count";

/// `adapter.type`: `"lora"`, the one kind of adapter llama.cpp loads.
pub const ADAPTER_TYPE: &str = "adapter.type";
/// `adapter.lora.alpha`: the LoRA's alpha (llama.cpp scales it by alpha / rank; 0 or absent: 1).
pub const ADAPTER_LORA_ALPHA: &str = "adapter.lora.alpha";
/// `adapter.lora.task_name`: the task an adapter of a multi-task model is for.
pub const ADAPTER_LORA_TASK_NAME: &str = "adapter.lora.task_name";
/// `adapter.alora.invocation_tokens`: the tokens that switch an activated LoRA (aLoRA) on.
pub const ADAPTER_ALORA_INVOCATION_TOKENS: &str = "adapter.alora.invocation_tokens";

/// `imatrix.datasets`: the texts an importance matrix was computed on.
pub const IMATRIX_DATASETS: &str = "imatrix.datasets";
/// `imatrix.chunk_count`: how many chunks of text it was computed over.
pub const IMATRIX_CHUNK_COUNT: &str = "imatrix.chunk_count";
/// `imatrix.chunk_size`: tokens per chunk.
pub const IMATRIX_CHUNK_SIZE: &str = "imatrix.chunk_size";

/// `clip.projector_type`: the multimodal projector's kind (`"gemma3"`, `"qwen2.5vl_merger"`…).
pub const CLIP_PROJECTOR_TYPE: &str = "clip.projector_type";
/// `clip.has_vision_encoder`: the projector file holds an image encoder.
pub const CLIP_HAS_VISION_ENCODER: &str = "clip.has_vision_encoder";
/// `clip.has_audio_encoder`: the projector file holds an audio encoder.
pub const CLIP_HAS_AUDIO_ENCODER: &str = "clip.has_audio_encoder";
/// The prefix of every key llama.cpp's multimodal projector (`clip.cpp`) reads.
pub const CLIP_PREFIX: &str = "clip.";

/// `controlvector.model_hint`: the architecture a control vector was made for.
pub const CONTROL_VECTOR_MODEL_HINT: &str = "controlvector.model_hint";
/// `controlvector.layer_count`: the layers it steers.
pub const CONTROL_VECTOR_LAYER_COUNT: &str = "controlvector.layer_count";

/// `split.no`: this shard's number, from 0.
pub const SPLIT_NO: &str = "split.no";
/// `split.count`: how many shards the model has.
pub const SPLIT_COUNT: &str = "split.count";
/// `split.tensors.count`: the tensors of all shards together.
pub const SPLIT_TENSORS_COUNT: &str = "split.tensors.count";

/// `tokenizer.ggml.model`, e.g. `"llama"` (SentencePiece) or `"gpt2"` (byte-level BPE).
pub const TOKENIZER_MODEL: &str = "tokenizer.ggml.model";
/// `tokenizer.ggml.pre`: the pre-tokenizer.
pub const TOKENIZER_PRE: &str = "tokenizer.ggml.pre";
/// `tokenizer.ggml.tokens`: the vocabulary, one string per token id.
pub const TOKENS: &str = "tokenizer.ggml.tokens";
/// `tokenizer.ggml.scores`: one float per token id.
pub const SCORES: &str = "tokenizer.ggml.scores";
/// `tokenizer.ggml.token_type`: one integer per token id.
pub const TOKEN_TYPE: &str = "tokenizer.ggml.token_type";
/// `tokenizer.ggml.merges`: the BPE merges.
pub const MERGES: &str = "tokenizer.ggml.merges";
/// The arrays indexed by token id: they must have one length.
pub const VOCABULARY_ARRAYS: [&str; 3] = [TOKENS, SCORES, TOKEN_TYPE];

/// The keys holding special token ids, with the role each names. llama.cpp writes `seperator`
/// (sic), the spec `separator`: both are read.
pub const SPECIAL_TOKENS: [(&str, &str); 16] = [
    ("bos", "tokenizer.ggml.bos_token_id"),
    ("eos", "tokenizer.ggml.eos_token_id"),
    ("eot", "tokenizer.ggml.eot_token_id"),
    ("eom", "tokenizer.ggml.eom_token_id"),
    ("unknown", "tokenizer.ggml.unknown_token_id"),
    ("separator", "tokenizer.ggml.seperator_token_id"),
    ("separator", "tokenizer.ggml.separator_token_id"),
    ("padding", "tokenizer.ggml.padding_token_id"),
    ("mask", "tokenizer.ggml.mask_token_id"),
    ("cls", "tokenizer.ggml.cls_token_id"),
    ("fim_pre", "tokenizer.ggml.fim_pre_token_id"),
    ("fim_suf", "tokenizer.ggml.fim_suf_token_id"),
    ("fim_mid", "tokenizer.ggml.fim_mid_token_id"),
    ("fim_pad", "tokenizer.ggml.fim_pad_token_id"),
    ("fim_rep", "tokenizer.ggml.fim_rep_token_id"),
    ("fim_sep", "tokenizer.ggml.fim_sep_token_id"),
];

/// The key holding the special token id with `role` (`"bos"`, `"eos"`, `"padding"`…): the first
/// spelling in [`SPECIAL_TOKENS`].
pub fn special_token_key(role: &str) -> Option<&'static str> {
    SPECIAL_TOKENS
        .iter()
        .find(|&&(r, _)| r == role)
        .map(|&(_, key)| key)
}

/// Whether `key` holds a special token id.
pub fn is_special_token(key: &[u8]) -> bool {
    SPECIAL_TOKENS.iter().any(|&(_, k)| k.as_bytes() == key)
}

/// The boolean settings that change how text is tokenized: name and key.
pub const TOKENIZER_FLAGS: [(&str, &str); 5] = [
    ("add_bos_token", "tokenizer.ggml.add_bos_token"),
    ("add_eos_token", "tokenizer.ggml.add_eos_token"),
    ("add_sep_token", "tokenizer.ggml.add_sep_token"),
    ("add_space_prefix", "tokenizer.ggml.add_space_prefix"),
    (
        "remove_extra_whitespaces",
        "tokenizer.ggml.remove_extra_whitespaces",
    ),
];

/// `tokenizer.chat_template`: the default chat template; named ones are
/// `tokenizer.chat_template.NAME`.
pub const CHAT_TEMPLATE: &str = "tokenizer.chat_template";
/// What the unnamed template (`tokenizer.chat_template`) is called where templates are listed
/// by name (the CLI's `--name`, the page's tabs).
pub const DEFAULT_TEMPLATE_NAME: &str = "default";

/// Which chat template a key holds: `Some(None)` for `tokenizer.chat_template`,
/// `Some(Some(NAME))` for `tokenizer.chat_template.NAME`, `None` for any other key.
pub fn chat_template_name(key: &[u8]) -> Option<Option<&[u8]>> {
    match key.strip_prefix(CHAT_TEMPLATE.as_bytes())? {
        [] => Some(None),
        [b'.', name @ ..] => Some(Some(name)),
        _ => None,
    }
}

/// What the chat template a key holds is listed as: its `NAME`, or [`DEFAULT_TEMPLATE_NAME`] for
/// `tokenizer.chat_template`; `None` for any other key.
pub fn chat_template_title(key: &[u8]) -> Option<&[u8]> {
    chat_template_name(key).map(|name| name.unwrap_or(DEFAULT_TEMPLATE_NAME.as_bytes()))
}

/// Suffixes of the `{general.architecture}.*` hyperparameter keys
/// (see [`crate::Metadata::arch_get`]).
pub mod arch {
    /// Tokens of context the model was trained for.
    pub const CONTEXT_LENGTH: &str = "context_length";
    /// Width of the hidden state.
    pub const EMBEDDING_LENGTH: &str = "embedding_length";
    /// Number of layers (`blk.N`).
    pub const BLOCK_COUNT: &str = "block_count";
    /// Width of the feed-forward layers: one value, or one per layer.
    pub const FEED_FORWARD_LENGTH: &str = "feed_forward_length";
    /// Vocabulary size, for files without a token list.
    pub const VOCAB_SIZE: &str = "vocab_size";
    /// Experts per mixture-of-experts layer.
    pub const EXPERT_COUNT: &str = "expert_count";
    /// Experts routed to per token.
    pub const EXPERT_USED_COUNT: &str = "expert_used_count";
    /// Experts every token goes through.
    pub const EXPERT_SHARED_COUNT: &str = "expert_shared_count";
    /// Query heads: one value, or one per layer.
    pub const HEAD_COUNT: &str = "attention.head_count";
    /// Key/value heads: one value, or one per layer (0: a layer without attention).
    pub const HEAD_COUNT_KV: &str = "attention.head_count_kv";
    /// Size of a key head.
    pub const KEY_LENGTH: &str = "attention.key_length";
    /// Size of a value head.
    pub const VALUE_LENGTH: &str = "attention.value_length";
    /// Size of a key head in sliding-window layers (Gemma 4); `key_length` when absent.
    pub const KEY_LENGTH_SWA: &str = "attention.key_length_swa";
    /// Size of a value head in sliding-window layers; `value_length` when absent.
    pub const VALUE_LENGTH_SWA: &str = "attention.value_length_swa";
    /// Tokens a sliding-window layer attends to.
    pub const SLIDING_WINDOW: &str = "attention.sliding_window";
    /// Which layers slide: a period, or one flag per layer.
    pub const SLIDING_WINDOW_PATTERN: &str = "attention.sliding_window_pattern";
    /// Multi-head latent attention's value head size (the key's is `key_length_mla`).
    pub const VALUE_LENGTH_MLA: &str = "attention.value_length_mla";
    /// The epsilon of RMS normalisation.
    pub const LAYER_NORM_RMS_EPSILON: &str = "attention.layer_norm_rms_epsilon";
    /// The epsilon of layer normalisation.
    pub const LAYER_NORM_EPSILON: &str = "attention.layer_norm_epsilon";
    /// Multi-head latent attention's compressed key/value size.
    pub const KV_LORA_RANK: &str = "attention.kv_lora_rank";
    /// Multi-head latent attention's compressed query size.
    pub const Q_LORA_RANK: &str = "attention.q_lora_rank";
    /// RoPE's base frequency.
    pub const ROPE_FREQ_BASE: &str = "rope.freq_base";
    /// How many dimensions of each head are rotated.
    pub const ROPE_DIMENSION_COUNT: &str = "rope.dimension_count";
    /// RoPE scaling, e.g. `"linear"` or `"yarn"`.
    pub const ROPE_SCALING_TYPE: &str = "rope.scaling.type";
    /// RoPE scaling factor.
    pub const ROPE_SCALING_FACTOR: &str = "rope.scaling.factor";
    /// The context length before RoPE scaling.
    pub const ROPE_SCALING_ORIGINAL_CONTEXT_LENGTH: &str = "rope.scaling.original_context_length";
    /// State-space models' state size: a model with it is recurrent.
    pub const SSM_STATE_SIZE: &str = "ssm.state_size";
    /// State-space models' convolution kernel.
    pub const SSM_CONV_KERNEL: &str = "ssm.conv_kernel";
    /// RWKV's head size: a model with it is recurrent.
    pub const WKV_HEAD_SIZE: &str = "wkv.head_size";
    /// How token states are pooled into one embedding: 0 none, 1 mean, 2 cls, 3 last, 4 rank
    /// (llama.cpp's `llama_pooling_type`).
    pub const POOLING_TYPE: &str = "pooling_type";
    /// `false` for an encoder that attends both ways (BERT and its kin).
    pub const ATTENTION_CAUSAL: &str = "attention.causal";
    /// The labels of a classifier head.
    pub const CLASSIFIER_OUTPUT_LABELS: &str = "classifier.output_labels";
}

/// `rope_freqs.weight`: the per-dimension RoPE factors llama.cpp's converter writes for Llama 3's
/// `rope_type: "llama3"` scaling, instead of `rope.scaling.*` keys.
pub const ROPE_FREQS_TENSOR: &str = "rope_freqs.weight";
/// `rope_factors_long.weight`: LongRoPE's long-context factors (Phi-3 `longrope`), written as a
/// tensor like [`ROPE_FREQS_TENSOR`].
pub const ROPE_FACTORS_LONG_TENSOR: &str = "rope_factors_long.weight";

/// The layer `N` of a tensor named `blk.N.…`, the convention every converter follows.
pub fn layer_of(tensor_name: &[u8]) -> Option<u64> {
    let rest = tensor_name.strip_prefix(b"blk.")?;
    let digits = &rest[..rest.iter().position(|&b| b == b'.')?];
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    core::str::from_utf8(digits).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_chat_templates() {
        assert_eq!(chat_template_name(b"tokenizer.chat_template"), Some(None));
        assert_eq!(
            chat_template_name(b"tokenizer.chat_template.tool_use"),
            Some(Some(&b"tool_use"[..]))
        );
        assert_eq!(chat_template_name(b"tokenizer.chat_templates"), None);
        assert_eq!(chat_template_name(b"general.name"), None);
    }

    #[test]
    fn finds_layers() {
        assert_eq!(layer_of(b"blk.12.attn_q.weight"), Some(12));
        assert_eq!(layer_of(b"blk.0.ffn_up.3.weight"), Some(0));
        assert_eq!(layer_of(b"token_embd.weight"), None);
        assert_eq!(layer_of(b"blk..x"), None);
        assert_eq!(layer_of(b"blk.+1.x"), None);
        assert_eq!(layer_of(b"blk.1"), None);
    }
}
