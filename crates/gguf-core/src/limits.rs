//! Caps on what a header may claim, each with its reason (wasmparser's `limits.rs` habit).
//!
//! When the file length is known the decoder also refuses any count or length that cannot fit in
//! the bytes left, before allocating anything; these caps bound the rest, and bound everything when
//! the length is unknown. Real files stay far below them.

/// Caps enforced while decoding a header. Going over one is an error, never an allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Longest string (a key, a value, an array element or a tensor name). Default 256 MiB:
    /// the largest real strings are embedded tokenizer JSON of a few tens of MB.
    pub max_string_len: u64,
    /// Most elements in one array. Default 2^30, llama.cpp's cap; real vocabularies are < 2^20.
    pub max_array_len: u64,
    /// Deepest nesting of arrays in arrays. Default 16: the spec allows nesting, llama.cpp
    /// forbids it, and no real file goes past 2 levels.
    pub max_array_depth: u32,
    /// Most key-value pairs. Default 2^24.
    pub max_kv_count: u64,
    /// Most tensor infos. Default 2^24: the largest MoE files have tens of thousands.
    pub max_tensor_count: u64,
    /// Most dimensions of one tensor. Default 8: ggml uses at most 4 (a validator finding above
    /// that); beyond 8 the count is surely garbage.
    pub max_dims: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_string_len: 256 << 20,
            max_array_len: 1 << 30,
            max_array_depth: 16,
            max_kv_count: 1 << 24,
            max_tensor_count: 1 << 24,
            max_dims: 8,
        }
    }
}

/// Which cap an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// [`Limits::max_string_len`]
    StringLength,
    /// [`Limits::max_array_len`]
    ArrayLength,
    /// [`Limits::max_array_depth`]
    ArrayDepth,
    /// [`Limits::max_kv_count`]
    KvCount,
    /// [`Limits::max_tensor_count`]
    TensorCount,
    /// [`Limits::max_dims`]
    Dimensions,
}

impl Limit {
    /// The stable code of an error over this cap (see [`crate::ErrorKind::code`]).
    pub fn code(self) -> &'static str {
        match self {
            Limit::StringLength => "string-too-long",
            Limit::ArrayLength => "array-too-long",
            Limit::ArrayDepth => "array-too-deep",
            Limit::KvCount => "too-many-kvs",
            Limit::TensorCount => "too-many-tensors",
            Limit::Dimensions => "too-many-dimensions",
        }
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Limit::StringLength => "string length",
            Limit::ArrayLength => "array length",
            Limit::ArrayDepth => "array nesting depth",
            Limit::KvCount => "key-value count",
            Limit::TensorCount => "tensor count",
            Limit::Dimensions => "number of dimensions",
        }
    }
}
