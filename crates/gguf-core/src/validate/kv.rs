//! Checks of the file header and the key-value pairs: version and byte order, duplicate and
//! malformed keys, strings that are not UTF-8, `general.alignment`, required keys, and the types
//! of the standard keys.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;

use super::{Check, FindingCode as Code, Subject};
use crate::header::{Array, Entry, Value, ValueType};
use crate::keys::{self, arch};
use crate::kind::FileKind;
use crate::text::{Excerpt, Hidden, lookalike};

/// Where the version field lies in the file header.
const VERSION_FIELD: core::ops::Range<u64> = 4..8;

pub(super) fn check(c: &mut Check<'_>) {
    file_header(c);
    let entries = c.header.metadata.entries();
    let arch = c.header.metadata.architecture();
    let mut first_seen: BTreeMap<&[u8], usize> = BTreeMap::new();
    for (i, e) in entries.iter().enumerate() {
        match first_seen.get(e.key.as_bytes()) {
            Some(&first) => duplicate(c, i, e, first),
            None => {
                first_seen.insert(e.key.as_bytes(), i);
            }
        }
        key_text(c, i, e);
        disguised_key(c, i, e);
        value_text(c, i, e);
        if let Value::Array(Array::Array(_)) = e.value {
            c.add(
                Code::NestedArray,
                e.span.clone(),
                Subject::Kv(i),
                format_args!(
                    "\"{}\" is an array of arrays: the spec allows it, llama.cpp refuses the file",
                    e.key.excerpt()
                ),
            );
        }
        if let Some(expect) = expected_type(e.key.as_bytes(), arch) {
            if !expect.matches(&e.value) {
                c.add(
                    Code::WrongKeyType,
                    e.span.clone(),
                    Subject::Kv(i),
                    format_args!(
                        "\"{}\" is {}, but should be {}",
                        e.key.excerpt(),
                        type_name(&e.value),
                        expect.describe()
                    ),
                );
            }
        }
    }
    alignment(c);
    required_keys(c);
}

fn file_header(c: &mut Check<'_>) {
    let h = c.header;
    if h.endian == crate::Endian::Big {
        c.add(
            Code::BigEndian,
            VERSION_FIELD,
            Subject::File,
            format_args!("the byte order is inferred as big-endian from the version field (GGUF has no byte-order mark): llama.cpp loads only files of its host's byte order"),
        );
    }
    if h.version == 1 {
        c.add(
            Code::ObsoleteVersion,
            VERSION_FIELD,
            Subject::File,
            format_args!("GGUF version 1: llama.cpp no longer reads it"),
        );
    }
}

fn duplicate(c: &mut Check<'_>, i: usize, e: &Entry, first: usize) {
    let first_at = c.header.metadata.entries()[first].span.start;
    c.add(
        Code::DuplicateKey,
        e.span.clone(),
        Subject::Kv(i),
        format_args!(
            "key \"{}\" appears again (first as key-value pair #{first} at offset {first_at}): readers use the first, llama.cpp and gguf-py refuse the file",
            e.key.excerpt()
        ),
    );
}

fn key_text(c: &mut Check<'_>, i: usize, e: &Entry) {
    let key = e.key.as_bytes();
    if key.is_empty() {
        c.add(
            Code::EmptyKey,
            e.span.clone(),
            Subject::Kv(i),
            format_args!("key-value pair #{i} has an empty key: llama.cpp refuses the file"),
        );
    }
    if let Some(p) = key.iter().position(|b| !b.is_ascii()) {
        let start = c.key_start(e);
        let utf8 = if e.key.as_str().is_some() {
            ""
        } else {
            ", nor valid UTF-8"
        };
        c.add(
            Code::NonAsciiKey,
            start + p as u64..start + key.len() as u64,
            Subject::Kv(i),
            format_args!(
                "key \"{}\" is not ASCII (byte 0x{:02X} at position {p}){utf8}; the spec asks for ASCII keys",
                e.key.excerpt(),
                key[p]
            ),
        );
    }
}

/// A key that can pass for another (`disguised-key`): it holds a character that hides or
/// reorders text, or a control character; or it is ASCII but for Cyrillic or Greek look-alikes.
fn disguised_key(c: &mut Check<'_>, i: usize, e: &Entry) {
    let key = e.key.as_bytes();
    let start = c.key_start(e);
    if let Some(hidden) = Hidden::first_in(key, &[]) {
        let at = start + hidden.at as u64;
        c.add(
            Code::DisguisedKey,
            at..at + hidden.c.len_utf8() as u64,
            Subject::Kv(i),
            format_args!(
                "key \"{}\" holds U+{:04X}, {}, at position {}: it can pass for another key",
                e.key.excerpt(),
                u32::from(hidden.c),
                hidden.kind(),
                hidden.at
            ),
        );
        return;
    }
    let Some(text) = e.key.as_str() else { return };
    if text.is_ascii() || !text.chars().all(|ch| ch.is_ascii() || lookalike(ch).is_some()) {
        return; // plain ASCII, or text of another script: not made to look like ASCII
    }
    let (p, ch) = text
        .char_indices()
        .find(|&(_, ch)| !ch.is_ascii())
        .unwrap_or((0, ' '));
    let reads: String = text.chars().map(|ch| lookalike(ch).unwrap_or(ch)).collect();
    let at = start + p as u64;
    c.add(
        Code::DisguisedKey,
        at..at + ch.len_utf8() as u64,
        Subject::Kv(i),
        format_args!(
            "key \"{}\" reads as \"{}\", but its U+{:04X} at position {p} is a Cyrillic or Greek letter, not the Latin '{}'",
            e.key.excerpt(),
            Excerpt(reads.as_bytes()),
            u32::from(ch),
            lookalike(ch).unwrap_or(ch)
        ),
    );
}

/// Characters a string value may hold that [`Hidden`] would otherwise report: a template's or a
/// description's line breaks and tabs, and the zero-width joiners that emoji sequences (👨‍👩‍👧) and
/// Persian or Indic words need; they join, they do not reorder.
const VALUE_WHITESPACE: &[char] = &['\n', '\r', '\t', '\u{200C}', '\u{200D}'];

/// Arrays of strings the text checks leave alone: vocabularies, whose real entries include
/// control characters, zero-width characters and byte pieces (the token browser shows them).
fn is_vocabulary(key: &[u8]) -> bool {
    [keys::TOKENS, keys::MERGES].iter().any(|k| k.as_bytes() == key)
}

/// String values and elements of string arrays that hold a character that can make them show as
/// something else (`disguised-text`): one finding per key.
fn disguised_value(c: &mut Check<'_>, i: usize, e: &Entry) {
    let (n, hidden, at, of) = match &e.value {
        Value::String(s) => {
            let Some(hidden) = Hidden::first_in(s.as_bytes(), VALUE_WHITESPACE) else {
                return;
            };
            let text_start = e.span.end.saturating_sub(s.as_bytes().len() as u64);
            (None, hidden, text_start + hidden.at as u64, 1)
        }
        Value::Array(Array::String(strings)) if !is_vocabulary(e.key.as_bytes()) => {
            let len_size = c.len_size();
            let mut at = c.value_start(e) + 4 + len_size;
            let (mut count, mut first) = (0u64, None);
            for (n, s) in strings.iter().enumerate() {
                at += len_size;
                if let Some(hidden) = Hidden::first_in(s, VALUE_WHITESPACE) {
                    count += 1;
                    first.get_or_insert((Some(n), hidden, at + hidden.at as u64));
                }
                at += s.len() as u64;
            }
            let Some((n, hidden, at)) = first else { return };
            (n, hidden, at, count)
        }
        _ => return,
    };
    let whose = match n {
        None => String::from("the value"),
        Some(n) if of == 1 => format!("element {n} of the value"),
        Some(n) => format!("element {n} (one of {of} such elements) of the value"),
    };
    c.add(
        Code::DisguisedText,
        at..at + hidden.c.len_utf8() as u64,
        Subject::Kv(i),
        format_args!(
            "{whose} of \"{}\" holds U+{:04X}, {}: text that can show as something else",
            e.key.excerpt(),
            u32::from(hidden.c),
            hidden.kind()
        ),
    );
}

/// Strings that are not UTF-8: a string value, or the elements of a string array (one finding).
fn value_text(c: &mut Check<'_>, i: usize, e: &Entry) {
    disguised_value(c, i, e);
    match &e.value {
        Value::String(s) => {
            if let Err(err) = core::str::from_utf8(s.as_bytes()) {
                let text_start = e.span.end.saturating_sub(s.as_bytes().len() as u64);
                c.add(
                    Code::InvalidUtf8,
                    text_start + err.valid_up_to() as u64..e.span.end,
                    Subject::Kv(i),
                    format_args!(
                        "the value of \"{}\" is not valid UTF-8 (first bad byte at position {})",
                        e.key.excerpt(),
                        err.valid_up_to()
                    ),
                );
            }
        }
        Value::Array(Array::String(strings)) if !strings.is_utf8() => {
            let len_size = c.len_size();
            // Elements follow the element type (u32) and the count.
            let mut at = c.value_start(e) + 4 + len_size;
            let (mut bad, mut first_bad) = (0u64, None);
            for (n, s) in strings.iter().enumerate() {
                at += len_size;
                if let Err(err) = core::str::from_utf8(s) {
                    bad += 1;
                    first_bad.get_or_insert((n, at + err.valid_up_to() as u64, at + s.len() as u64));
                }
                at += s.len() as u64;
            }
            if let Some((n, start, end)) = first_bad {
                c.add(
                    Code::InvalidUtf8,
                    start..end,
                    Subject::Kv(i),
                    format_args!(
                        "{bad} of the {} strings in \"{}\" are not valid UTF-8, the first is element {n}",
                        strings.len(),
                        e.key.excerpt()
                    ),
                );
            }
        }
        _ => {}
    }
}

/// `general.alignment`: a UINT32, a power of two (llama.cpp) and a multiple of 8 (the spec).
fn alignment(c: &mut Check<'_>) {
    let entries = c.header.metadata.entries();
    let Some(i) = entries
        .iter()
        .position(|e| e.key.as_bytes() == keys::ALIGNMENT.as_bytes())
    else {
        return;
    };
    let e = &entries[i];
    let (code, message) = match e.value {
        Value::U32(0) => (Code::AlignmentZero, "general.alignment is 0".into()),
        Value::U32(a) => match (a.is_power_of_two(), a % 8 == 0) {
            (true, true) => return,
            (false, true) => (
                Code::AlignmentNotPowerOfTwo,
                format!(
                    "general.alignment {a} is a multiple of 8 but not a power of two: llama.cpp refuses it"
                ),
            ),
            (true, false) => (
                Code::AlignmentNotMultipleOf8,
                format!(
                    "general.alignment {a} is not a multiple of 8 as the spec asks (llama.cpp accepts it)"
                ),
            ),
            (false, false) => (
                Code::AlignmentInvalid,
                format!("general.alignment {a} is neither a power of two nor a multiple of 8"),
            ),
        },
        ref v => (
            Code::AlignmentWrongType,
            format!(
                "general.alignment is {}, not UINT32: readers fall back to 32, llama.cpp refuses the file",
                type_name(v)
            ),
        ),
    };
    c.add(code, e.span.clone(), Subject::Kv(i), format_args!("{message}"));
}

/// `general.architecture` in every file a model is loaded with (an importance matrix and a
/// projector have none: llama.cpp never asks), `general.quantization_version` in quantized
/// files; shards after the first carry no `general.*` keys.
fn required_keys(c: &mut Check<'_>) {
    if c.is_later_shard() {
        return;
    }
    let md = &c.header.metadata;
    let needs_architecture = !matches!(c.kind, FileKind::Imatrix | FileKind::Mmproj);
    if needs_architecture && md.get(keys::ARCHITECTURE).is_none() {
        c.add(
            Code::MissingArchitecture,
            c.whole_header(),
            Subject::File,
            format_args!("general.architecture is missing: a loader cannot tell which model this is"),
        );
    }
    let mut quantized = c.header.tensors.iter().filter(|t| t.ty.is_quantized());
    if let Some(t) = quantized.next() {
        if md.get(keys::QUANTIZATION_VERSION).is_none() {
            c.add(
                Code::MissingQuantizationVersion,
                c.whole_header(),
                Subject::File,
                format_args!(
                    "general.quantization_version is missing, but tensors are quantized (\"{}\" is {}, {} in all)",
                    t.name.excerpt(),
                    t.ty,
                    1 + quantized.count()
                ),
            );
        }
    }
}

/// What a standard key should hold. Integers of any width and sign are accepted (writers differ
/// on u32 vs u64), floats of either width; strings, bools and arrays must be what they say.
#[derive(Debug, Clone, Copy)]
enum Expect {
    Int,
    Float,
    Bool,
    Str,
    /// One value, or one per layer.
    IntOrInts,
    Ints,
    Floats,
    Strs,
}

fn is_int(ty: ValueType) -> bool {
    use ValueType::*;
    matches!(ty, U8 | I8 | U16 | I16 | U32 | I32 | U64 | I64)
}

fn is_float(ty: ValueType) -> bool {
    matches!(ty, ValueType::F32 | ValueType::F64)
}

impl Expect {
    fn matches(self, v: &Value) -> bool {
        // An empty array's element type says nothing: writers pick any.
        let elems =
            |ok: fn(ValueType) -> bool| v.as_array().is_some_and(|a| a.is_empty() || ok(a.elem_type()));
        match self {
            Expect::Int => is_int(v.ty()),
            Expect::Float => is_float(v.ty()),
            Expect::Bool => v.ty() == ValueType::Bool,
            Expect::Str => v.ty() == ValueType::String,
            Expect::IntOrInts => is_int(v.ty()) || elems(is_int),
            Expect::Ints => elems(is_int),
            Expect::Floats => elems(is_float),
            Expect::Strs => elems(|t| t == ValueType::String),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Expect::Int => "an integer",
            Expect::Float => "a float",
            Expect::Bool => "a bool",
            Expect::Str => "a string",
            Expect::IntOrInts => "an integer or an array of integers",
            Expect::Ints => "an array of integers",
            Expect::Floats => "an array of floats",
            Expect::Strs => "an array of strings",
        }
    }
}

/// `UINT32`, or `ARRAY of STRING`.
fn type_name(v: &Value) -> alloc::string::String {
    match v.as_array() {
        Some(a) => format!("ARRAY of {}", a.elem_type().name()),
        None => v.ty().name().into(),
    }
}

/// The type a standard key should hold (GGUF spec and gguf-py's `constants.py`). Only keys
/// whose type is settled; `general.alignment` has its own checks.
fn expected_type(key: &[u8], arch: Option<&str>) -> Option<Expect> {
    let key = core::str::from_utf8(key).ok()?;
    if let Some(rest) = key.strip_prefix("general.") {
        return match rest {
            "architecture" | "type" | "name" | "author" | "version" | "organization" | "basename"
            | "finetune" | "description" | "quantized_by" | "size_label" | "license" | "url" | "doi"
            | "uuid" | "repo_url" => Some(Expect::Str),
            "quantization_version" | "file_type" | "base_model.count" | "dataset.count" => Some(Expect::Int),
            "tags" | "languages" | "datasets" => Some(Expect::Strs),
            _ => None,
        };
    }
    if keys::is_special_token(key.as_bytes()) {
        return Some(Expect::Int);
    }
    match key {
        keys::ADAPTER_TYPE | keys::ADAPTER_LORA_TASK_NAME | keys::CLIP_PROJECTOR_TYPE => {
            return Some(Expect::Str);
        }
        keys::ADAPTER_LORA_ALPHA => return Some(Expect::Float),
        keys::ADAPTER_ALORA_INVOCATION_TOKENS => return Some(Expect::Ints),
        keys::IMATRIX_CHUNK_COUNT | keys::IMATRIX_CHUNK_SIZE => return Some(Expect::Int),
        keys::IMATRIX_DATASETS => return Some(Expect::Strs),
        keys::CLIP_HAS_VISION_ENCODER | keys::CLIP_HAS_AUDIO_ENCODER => return Some(Expect::Bool),
        _ => {}
    }
    if keys::chat_template_name(key.as_bytes()).is_some() {
        return Some(Expect::Str);
    }
    if keys::TOKENIZER_FLAGS.iter().any(|&(_, flag)| flag == key) {
        return Some(Expect::Bool);
    }
    match key {
        keys::TOKENIZER_MODEL | keys::TOKENIZER_PRE | "tokenizer.huggingface.json" => {
            return Some(Expect::Str);
        }
        keys::TOKENS | keys::MERGES | "tokenizer.chat_templates" => return Some(Expect::Strs),
        keys::SCORES => return Some(Expect::Floats),
        keys::TOKEN_TYPE => return Some(Expect::Ints),
        "tokenizer.ggml.token_type_count" => return Some(Expect::Int),
        _ => {}
    }
    if [keys::SPLIT_NO, keys::SPLIT_COUNT, keys::SPLIT_TENSORS_COUNT].contains(&key) {
        return Some(Expect::Int);
    }
    let rest = key.strip_prefix(arch?)?.strip_prefix('.')?;
    match rest {
        arch::CONTEXT_LENGTH
        | arch::EMBEDDING_LENGTH
        | arch::BLOCK_COUNT
        | arch::VOCAB_SIZE
        | arch::EXPERT_COUNT
        | arch::EXPERT_USED_COUNT
        | arch::EXPERT_SHARED_COUNT
        | "leading_dense_block_count"
        | "expert_feed_forward_length"
        | arch::KEY_LENGTH
        | arch::VALUE_LENGTH
        | arch::ROPE_DIMENSION_COUNT
        | arch::ROPE_SCALING_ORIGINAL_CONTEXT_LENGTH => Some(Expect::Int),
        arch::FEED_FORWARD_LENGTH | arch::HEAD_COUNT | arch::HEAD_COUNT_KV => Some(Expect::IntOrInts),
        "attention.layer_norm_epsilon"
        | "attention.layer_norm_rms_epsilon"
        | arch::ROPE_FREQ_BASE
        | arch::ROPE_SCALING_FACTOR => Some(Expect::Float),
        arch::ROPE_SCALING_TYPE | "tensor_data_layout" => Some(Expect::Str),
        "attention.causal" | "use_parallel_residual" => Some(Expect::Bool),
        _ => None,
    }
}
