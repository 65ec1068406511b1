//! A test-only GGUF writer: little- or big-endian, v1/v2/v3, valid or deliberately broken.
//! Its input is the oracle for the property tests: `parse(build(m))` must give back `m`. And the
//! check that the decoder gives the same result in every chunking of a file.

mod chunking;
mod kinds;
mod models;
mod vocab;

use alloc::vec::Vec;

pub use chunking::{assert_same_in_chunks, assert_same_in_every_chunking};
pub use kinds::{control_vector, imatrix, lora_adapter, mmproj_vision, mmproj_vision_audio};
pub use models::{BuiltModel, memory_models};
pub use vocab::{PRE_NAMES, bpe_vocab, bpe_vocabs, hybriddna_vocab, none_vocab, plamo2_vocab, test_vocab};

use crate::endian::Endian;
use crate::header::{Array, StringArray, Value, ValueType};
use crate::types::GgmlType;

/// Builds a GGUF file in memory.
#[derive(Debug, Clone)]
pub struct GgufBuilder {
    version: u32,
    endian: Endian,
    alignment: u64,
    kvs: Vec<PlannedKv>,
    tensors: Vec<PlannedTensor>,
    tensor_data: bool,
    trailing: Vec<u8>,
}

/// A pair to write. Encoded at `build`, so the version and byte order may be set in any order.
#[derive(Debug, Clone)]
enum PlannedKv {
    Value(Vec<u8>, Value),
    /// The bytes after the key, as given.
    Raw(Vec<u8>, Vec<u8>),
}

#[derive(Debug, Clone)]
struct PlannedTensor {
    name: Vec<u8>,
    dims: Vec<u64>,
    ty: u32,
    /// Explicit offset, else the next aligned one.
    offset: Option<u64>,
}

impl Default for GgufBuilder {
    fn default() -> Self {
        GgufBuilder::new()
    }
}

impl GgufBuilder {
    /// A little-endian GGUF v3 file with 32-byte alignment.
    pub fn new() -> GgufBuilder {
        GgufBuilder {
            version: 3,
            endian: Endian::Little,
            alignment: 32,
            kvs: Vec::new(),
            tensors: Vec::new(),
            tensor_data: false,
            trailing: Vec::new(),
        }
    }

    /// Sets the version (1 writes u32 counts, lengths and dimensions).
    pub fn version(mut self, version: u32) -> Self {
        self.version = version;
        self
    }

    /// Sets the byte order.
    pub fn endian(mut self, endian: Endian) -> Self {
        self.endian = endian;
        self
    }

    /// Sets the alignment used to place tensors (write `general.alignment` yourself with `kv`).
    pub fn alignment(mut self, alignment: u64) -> Self {
        self.alignment = alignment.max(1);
        self
    }

    /// Adds a key-value pair.
    pub fn kv(mut self, key: impl AsRef<[u8]>, value: impl Into<Value>) -> Self {
        self.kvs
            .push(PlannedKv::Value(key.as_ref().to_vec(), value.into()));
        self
    }

    /// Adds a key-value pair whose bytes after the key are given as is (type id included).
    pub fn kv_raw(mut self, key: impl AsRef<[u8]>, after_key: &[u8]) -> Self {
        self.kvs
            .push(PlannedKv::Raw(key.as_ref().to_vec(), after_key.to_vec()));
        self
    }

    /// Adds a tensor info placed after the previous tensor, aligned.
    pub fn tensor(mut self, name: impl AsRef<[u8]>, dims: &[u64], ty: GgmlType) -> Self {
        self.tensors.push(PlannedTensor {
            name: name.as_ref().to_vec(),
            dims: dims.to_vec(),
            ty: ty.0,
            offset: None,
        });
        self
    }

    /// Adds a tensor info with an explicit data offset (relative to the data section).
    pub fn tensor_at(mut self, name: impl AsRef<[u8]>, dims: &[u64], ty: GgmlType, offset: u64) -> Self {
        self.tensors.push(PlannedTensor {
            name: name.as_ref().to_vec(),
            dims: dims.to_vec(),
            ty: ty.0,
            offset: Some(offset),
        });
        self
    }

    /// Also writes the padding and zeroed tensor data, so the file is complete.
    pub fn with_tensor_data(mut self) -> Self {
        self.tensor_data = true;
        self
    }

    /// Appends bytes after everything else.
    pub fn trailing(mut self, bytes: &[u8]) -> Self {
        self.trailing.extend_from_slice(bytes);
        self
    }

    /// Encodes a value (without its type id) in this builder's byte order and version.
    pub fn encode_value(&self, value: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        self.put_value(&mut out, value);
        out
    }

    /// Writes the file.
    pub fn build(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(b"GGUF");
        self.put_u32(&mut out, self.version);
        self.put_len(&mut out, self.tensors.len() as u64);
        self.put_len(&mut out, self.kvs.len() as u64);
        for kv in &self.kvs {
            match kv {
                PlannedKv::Value(key, value) => {
                    self.put_string(&mut out, key);
                    self.put_u32(&mut out, value.ty() as u32);
                    self.put_value(&mut out, value);
                }
                PlannedKv::Raw(key, after_key) => {
                    self.put_string(&mut out, key);
                    out.extend_from_slice(after_key);
                }
            }
        }
        let mut next = 0u64;
        let mut data_end = 0u64;
        for t in &self.tensors {
            self.put_string(&mut out, &t.name);
            self.put_u32(&mut out, t.dims.len() as u32);
            for &d in &t.dims {
                self.put_len(&mut out, d);
            }
            self.put_u32(&mut out, t.ty);
            let offset = t.offset.unwrap_or(next);
            self.put_u64(&mut out, offset);
            let info = crate::header::TensorInfo {
                name: t.name.clone().into(),
                dims: t.dims.clone(),
                ty: GgmlType(t.ty),
                offset,
                span: 0..0,
            };
            // Offsets may be anything a test asks for; where they overflow, nothing follows.
            let end = offset.saturating_add(info.n_bytes().unwrap_or(0));
            next = end.checked_next_multiple_of(self.alignment).unwrap_or(u64::MAX);
            data_end = data_end.max(end);
        }
        if self.tensor_data {
            let data_offset = (out.len() as u64).next_multiple_of(self.alignment);
            out.resize((data_offset + data_end) as usize, 0);
        }
        out.extend_from_slice(&self.trailing);
        out
    }

    fn put_u32(&self, out: &mut Vec<u8>, v: u32) {
        out.extend_from_slice(&match self.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        });
    }

    fn put_u64(&self, out: &mut Vec<u8>, v: u64) {
        out.extend_from_slice(&match self.endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        });
    }

    /// Counts and lengths: u32 in v1 (which must fit), u64 after.
    fn put_len(&self, out: &mut Vec<u8>, v: u64) {
        if self.version == 1 {
            self.put_u32(out, u32::try_from(v).expect("GGUF v1 lengths are u32"));
        } else {
            self.put_u64(out, v);
        }
    }

    fn put_string(&self, out: &mut Vec<u8>, s: &[u8]) {
        self.put_len(out, s.len() as u64);
        out.extend_from_slice(s);
    }

    fn put_value(&self, out: &mut Vec<u8>, value: &Value) {
        let big = self.endian == Endian::Big;
        macro_rules! num {
            ($v:expr) => {
                out.extend_from_slice(&if big {
                    $v.to_be_bytes()
                } else {
                    $v.to_le_bytes()
                })
            };
        }
        match value {
            Value::U8(v) => num!(v),
            Value::I8(v) => num!(v),
            Value::U16(v) => num!(v),
            Value::I16(v) => num!(v),
            Value::U32(v) => num!(v),
            Value::I32(v) => num!(v),
            Value::F32(v) => num!(v),
            Value::Bool(v) => out.push(u8::from(*v)),
            Value::String(s) => self.put_string(out, s.as_bytes()),
            Value::U64(v) => num!(v),
            Value::I64(v) => num!(v),
            Value::F64(v) => num!(v),
            Value::Array(a) => {
                self.put_u32(out, a.elem_type() as u32);
                self.put_len(out, a.len() as u64);
                for i in 0..a.len() {
                    if let Some(v) = a.get(i) {
                        self.put_value(out, &v);
                    }
                }
            }
        }
    }
}

macro_rules! value_from {
    ($($t:ty => $variant:ident),* $(,)?) => {
        $(impl From<$t> for Value {
            fn from(v: $t) -> Value { Value::$variant(v.into()) }
        })*
    };
}

value_from! {
    u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32, f32 => F32, bool => Bool,
    u64 => U64, i64 => I64, f64 => F64, &str => String, Array => Array,
}

/// A string array from `&str`s.
pub fn strings(items: &[&str]) -> Array {
    Array::String(items.iter().collect())
}

/// A file with the given tensors (all F32 unless stated) and nothing else but an architecture.
pub fn model_with_tensors(tensors: &[(&str, &[u64], GgmlType)]) -> Vec<u8> {
    let mut b = GgufBuilder::new().kv("general.architecture", "llama");
    for (name, dims, ty) in tensors {
        b = b.tensor(name, dims, *ty);
    }
    b.build()
}

/// Small models ggufscope gives no memory figure for, by file name, with what their error says:
/// an architecture llama.cpp 0c1e570 does not know, one it refuses to run on its own (clip) and
/// one whose memory it sizes by rules of its own (T5, an encoder-decoder).
pub fn memory_refusals() -> Vec<(&'static str, Vec<u8>)> {
    let model = |arch: &str| {
        let key = |suffix: &str| alloc::format!("{arch}.{suffix}");
        let mut b = GgufBuilder::new()
            .kv("general.architecture", arch)
            .kv(key("context_length"), 4096u32)
            .kv(key("block_count"), 2u32)
            .kv(key("embedding_length"), 256u32)
            .kv(key("attention.head_count"), 4u32)
            .kv(key("vocab_size"), 1000u32)
            .tensor("token_embd.weight", &[256, 1000], GgmlType::F32);
        for il in 0..2 {
            b = b.tensor(
                alloc::format!("blk.{il}.ffn_up.weight"),
                &[256, 1024],
                GgmlType::F32,
            );
        }
        b.build()
    };
    alloc::vec![
        ("unknown-architecture.gguf", model("llama5")),
        ("clip.gguf", model("clip")),
        ("t5.gguf", model("t5")),
    ]
}

/// A file whose text is made to show as something else, the issue-17 spoofing fixture: U+202E
/// (right-to-left override), U+200B (zero-width space) and ESC (a terminal escape) in the model's
/// name, a URL value, a key, a token, the chat template and a tensor name; and a key with a Cyrillic `а`. Every
/// place that shows file text must show these escaped; the validator reports each but the token
/// (vocabularies are exempt: real ones hold such tokens).
pub fn spoofing() -> Vec<u8> {
    GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv(
            "general.name",
            "Llama-3-8B-Instruct-\u{202E}FUGG.exe\u{200B}\x1b[2J",
        )
        .kv(
            "general.source.url",
            "https://example.com\u{202E}/moc.live\u{200B}\x1b]8;;/",
        )
        .kv("general.arch\u{200B}itecture\u{202E}\x1b[0m", "gpt2")
        .kv("general.n\u{430}me", "Llama-3-8B-Instruct")
        .kv("tokenizer.ggml.model", "llama")
        .kv(
            "tokenizer.ggml.tokens",
            strings(&["<s>", "ok\u{202E}kayak\u{200B}\x1b[5m"]),
        )
        .kv(
            "tokenizer.chat_template",
            "{{ bos_token }}\u{202E}{{ messages[0]['content'] }}\u{200B}\x1b[2J\n",
        )
        .tensor("token_embd\u{202E}.weight\u{200B}\x1b[1m", &[4, 2], GgmlType::F32)
        .with_tensor_data()
        .build()
}

fn le(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}

/// The bytes after a key for an array of `elem` claiming `len` elements, followed by `body`.
fn array_header(elem: ValueType, len: u64, body: &[u8]) -> Vec<u8> {
    let mut raw = (ValueType::Array as u32).to_le_bytes().to_vec();
    raw.extend((elem as u32).to_le_bytes());
    raw.extend(le(len));
    raw.extend(body);
    raw
}

/// Headers that claim far more than they hold — the shapes of the out-of-memory and crash bugs
/// other GGUF readers shipped — plus honest but wasteful ones, named for what they are. Each
/// must end in an error with an offset or in findings, with memory that follows the bytes present
/// (`tests/it/hostile.rs` checks the outcomes, `scripts/bench-memory.py` the memory).
pub fn hostile_headers() -> Vec<(&'static str, Vec<u8>)> {
    let arch = || GgufBuilder::new().kv("general.architecture", "llama");
    let mut files: Vec<(&str, Vec<u8>)> = Vec::new();

    let mut counts = b"GGUF".to_vec();
    counts.extend(3u32.to_le_bytes());
    counts.extend(le(u64::MAX));
    counts.extend(le(u64::MAX));
    files.push(("counts-2^64-1", counts));
    let mut kvs = b"GGUF".to_vec();
    kvs.extend(3u32.to_le_bytes());
    kvs.extend(le(0));
    kvs.extend(le((1 << 24) - 1));
    files.push(("kv-count-2^24-in-24-bytes", kvs));

    let mut string = 8u32.to_le_bytes().to_vec();
    string.extend(le(1 << 63));
    files.push((
        "string-length-2^63",
        arch().kv_raw("general.name", &string).build(),
    ));
    let mut string = 8u32.to_le_bytes().to_vec();
    string.extend(le((256 << 20) - 1));
    files.push((
        "string-length-256MiB-in-100-bytes",
        arch().kv_raw("general.name", &string).build(),
    ));

    files.push((
        "array-length-2^63",
        arch()
            .kv_raw(
                "tokenizer.ggml.tokens",
                &array_header(ValueType::String, 1 << 63, &[]),
            )
            .build(),
    ));
    files.push((
        "array-2^30-u64-in-1kB",
        arch()
            .kv_raw(
                "tokenizer.ggml.scores",
                &array_header(ValueType::U64, (1 << 30) - 1, &[7; 1000]),
            )
            .build(),
    ));

    let mut deep = Vec::new();
    for _ in 0..1_000_000 {
        deep.extend((ValueType::Array as u32).to_le_bytes());
        deep.extend(le(1));
    }
    files.push((
        "nesting-depth-1M",
        arch()
            .kv_raw("deep", &array_header(ValueType::Array, 1, &deep))
            .build(),
    ));

    // Honest but wasteful shapes: memory follows the bytes present.
    let empties = Array::Array((0..1_000_000).map(|_| Array::U8(Vec::new())).collect());
    files.push(("1M-empty-inner-arrays", arch().kv("wide", empties).build()));
    let strings: StringArray = core::iter::repeat_n("", 4_000_000).collect();
    files.push((
        "4M-empty-strings",
        arch().kv("tokenizer.ggml.tokens", Array::String(strings)).build(),
    ));

    let mut dims = b"\xff\xff\xff\xff".to_vec();
    dims.extend([0; 64]);
    files.push((
        "tensor-overflows",
        arch()
            .kv("general.alignment", 1u32 << 31)
            .tensor("product-overflows", &[1 << 40, 1 << 40], GgmlType::F32)
            .tensor_at("offset-u64-max", &[32], GgmlType::F32, u64::MAX)
            .tensor("unknown-type", &[32], GgmlType(139))
            .build(),
    ));
    files.push((
        "alignment-0",
        arch()
            .kv("general.alignment", 0u32)
            .tensor("t", &[8], GgmlType::F32)
            .build(),
    ));
    files.push((
        "alignment-48",
        arch()
            .kv("general.alignment", 48u32)
            .tensor("t", &[8], GgmlType::F32)
            .build(),
    ));
    files
}
