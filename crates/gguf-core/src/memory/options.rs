//! What llama-server is run with: its options that change what it allocates, with its defaults.

use core::fmt;

use crate::types::GgmlType;

/// Sequences llama.cpp decodes at once at most (`LLAMA_MAX_SEQ`).
pub const MAX_SEQUENCES: u32 = 256;

/// The element type of the K or V cache (`-ctk`/`-ctv`, `--cache-type-k`/`-v`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum CacheType {
    /// 4 bytes a value.
    F32,
    /// 2 bytes a value: the default.
    F16,
    /// 2 bytes a value.
    Bf16,
    /// 34 bytes per 32 values.
    Q8_0,
    /// 18 bytes per 32 values.
    Q4_0,
    /// 20 bytes per 32 values.
    Q4_1,
    /// 18 bytes per 32 values.
    Iq4Nl,
    /// 22 bytes per 32 values.
    Q5_0,
    /// 24 bytes per 32 values.
    Q5_1,
}

impl CacheType {
    /// Every type llama.cpp's `-ctk`/`-ctv` take.
    pub const ALL: [CacheType; 9] = [
        CacheType::F32,
        CacheType::F16,
        CacheType::Bf16,
        CacheType::Q8_0,
        CacheType::Q4_0,
        CacheType::Q4_1,
        CacheType::Iq4Nl,
        CacheType::Q5_0,
        CacheType::Q5_1,
    ];

    /// The ggml type.
    pub fn ggml_type(self) -> GgmlType {
        match self {
            CacheType::F32 => GgmlType::F32,
            CacheType::F16 => GgmlType::F16,
            CacheType::Bf16 => GgmlType::BF16,
            CacheType::Q8_0 => GgmlType::Q8_0,
            CacheType::Q4_0 => GgmlType::Q4_0,
            CacheType::Q4_1 => GgmlType::Q4_1,
            CacheType::Iq4Nl => GgmlType::IQ4_NL,
            CacheType::Q5_0 => GgmlType::Q5_0,
            CacheType::Q5_1 => GgmlType::Q5_1,
        }
    }

    /// The name llama.cpp's options and logs use (`"q8_0"`).
    pub fn name(self) -> &'static str {
        match self {
            CacheType::F32 => "f32",
            CacheType::F16 => "f16",
            CacheType::Bf16 => "bf16",
            CacheType::Q8_0 => "q8_0",
            CacheType::Q4_0 => "q4_0",
            CacheType::Q4_1 => "q4_1",
            CacheType::Iq4Nl => "iq4_nl",
            CacheType::Q5_0 => "q5_0",
            CacheType::Q5_1 => "q5_1",
        }
    }

    /// The type named `name` (as [`CacheType::name`]).
    pub fn from_name(name: &str) -> Option<CacheType> {
        CacheType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether values are stored in blocks with a scale (these need flash attention for V).
    pub fn is_quantized(self) -> bool {
        !matches!(self, CacheType::F32 | CacheType::F16 | CacheType::Bf16)
    }

    /// Bytes of one row of `values` values; `None` unless they fill whole blocks.
    pub fn row_bytes(self, values: u64) -> Option<u64> {
        self.ggml_type().bytes_for(values, values)
    }
}

impl fmt::Display for CacheType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `-fa`, `--flash-attn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum FlashAttention {
    /// Flash attention.
    On,
    /// The attention scores are materialized (`-fa off`): V is stored transposed.
    Off,
    /// llama.cpp's default: on where the device that holds a layer runs it. Every CPU does, so
    /// on a CPU `auto` is `on`; the KV cache is laid out for flash attention either way.
    #[default]
    Auto,
}

impl FlashAttention {
    /// `"on"`, `"off"` or `"auto"`.
    pub fn name(self) -> &'static str {
        match self {
            FlashAttention::On => "on",
            FlashAttention::Off => "off",
            FlashAttention::Auto => "auto",
        }
    }

    /// The value named `name` (as [`FlashAttention::name`]).
    pub fn from_name(name: &str) -> Option<FlashAttention> {
        [FlashAttention::On, FlashAttention::Off, FlashAttention::Auto]
            .into_iter()
            .find(|f| f.name() == name)
    }

    /// Whether flash attention runs, on a CPU.
    pub fn on_cpu(self) -> bool {
        self != FlashAttention::Off
    }
}

/// llama-server's options that change what it allocates; [`Options::default`] is what it does
/// when none is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// `-c`: tokens of context for all sequences together; 0 for the model's trained context
    /// (per sequence when the cache is not unified, as llama-server's `--fit on` sets it).
    pub ctx: u64,
    /// `-np`: sequences (server slots). `None` is llama-server's default, "auto": 4 sequences
    /// sharing one unified cache.
    pub parallel: Option<u32>,
    /// `--kv-unified`: one cache for all sequences (implied by `parallel: None`).
    pub kv_unified: bool,
    /// `-ctk`.
    pub type_k: CacheType,
    /// `-ctv`.
    pub type_v: CacheType,
    /// `-fa`.
    pub flash_attn: FlashAttention,
    /// `-ub`: tokens of one physical batch, the compute graph's width (default 512).
    pub n_ubatch: u32,
    /// `-b`: tokens of one logical batch (default 2048).
    pub n_batch: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            ctx: 0,
            parallel: None,
            kv_unified: false,
            type_k: CacheType::F16,
            type_v: CacheType::F16,
            flash_attn: FlashAttention::Auto,
            n_ubatch: 512,
            n_batch: 2048,
        }
    }
}

impl Options {
    /// Sequences, after llama-server's "auto".
    pub fn sequences(&self) -> u32 {
        self.parallel.unwrap_or(4)
    }

    /// Whether the cache is unified, after llama-server's "auto".
    pub fn unified(&self) -> bool {
        self.kv_unified || self.parallel.is_none()
    }
}
