//! Every validator check on a synthetic file written by the test builder: the finding's code,
//! severity, offset and subject; and the near misses that must stay quiet.

use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::validate::Subject;
use gguf_core::{Array, Endian, Finding, FindingCode, GgmlType, GgufString, Header, Severity, Value};

/// Where a finding must point, worked out from the parsed header.
#[derive(Debug, Clone, Copy)]
enum At {
    /// An absolute offset.
    Abs(u64),
    /// The start of the last key-value pair with this key.
    Kv(&'static str),
    /// Byte `n` of the last key with this text.
    KeyByte(&'static str, u64),
    /// Byte `n` of the string value of this key.
    ValueByte(&'static str, u64),
    /// The start of tensor info `i`.
    Tensor(usize),
    /// The data-offset field of tensor info `i` (its last 8 bytes).
    OffsetField(usize),
    /// `n` bytes into the data section.
    Data(u64),
    /// Where the header ends: the length of a file without tensor data.
    HeaderEnd,
}

/// What a finding must be about.
#[derive(Debug, Clone, Copy)]
enum About {
    File,
    /// The last key-value pair with this key.
    Kv(&'static str),
    Tensor(usize),
}

fn last_kv(h: &Header, key: &str) -> usize {
    let entries = h.metadata.entries();
    entries
        .iter()
        .rposition(|e| e.key.as_bytes() == key.as_bytes())
        .unwrap_or_else(|| panic!("no key {key}"))
}

impl At {
    fn offset(self, h: &Header) -> u64 {
        let entries = h.metadata.entries();
        match self {
            At::Abs(n) => n,
            At::Kv(key) => entries[last_kv(h, key)].span.start,
            At::KeyByte(key, n) => entries[last_kv(h, key)].span.start + 8 + n,
            At::ValueByte(key, n) => {
                let e = &entries[last_kv(h, key)];
                let Value::String(s) = &e.value else {
                    panic!("{key} is not a string")
                };
                e.span.end - s.as_bytes().len() as u64 + n
            }
            At::Tensor(i) => h.tensors[i].span.start,
            At::OffsetField(i) => h.tensors[i].span.end - 8,
            At::Data(n) => h.data_offset + n,
            At::HeaderEnd => h.header_len,
        }
    }
}

impl About {
    fn subject(self, h: &Header) -> Subject {
        match self {
            About::File => Subject::File,
            About::Kv(key) => Subject::Kv(last_kv(h, key)),
            About::Tensor(i) => Subject::Tensor(i),
        }
    }
}

struct Case {
    code: FindingCode,
    file: Vec<u8>,
    /// Validate as if the file ended here.
    cut: Option<u64>,
    at: At,
    about: About,
}

fn case(code: FindingCode, b: GgufBuilder, at: At, about: About) -> Case {
    Case {
        code,
        file: b.build(),
        cut: None,
        at,
        about,
    }
}

fn llama() -> GgufBuilder {
    GgufBuilder::new().kv("general.architecture", "llama")
}

/// A LoRA adapter's keys, with `adapter.type` `ty`.
fn adapter(ty: &str) -> GgufBuilder {
    llama()
        .kv("general.type", "adapter")
        .kv("adapter.type", ty)
        .kv("adapter.lora.alpha", 16f32)
}

/// An importance matrix's keys, as `llama-imatrix` writes them.
fn imatrix() -> GgufBuilder {
    GgufBuilder::new()
        .kv("general.type", "imatrix")
        .kv("imatrix.chunk_count", 10u32)
        .kv("imatrix.chunk_size", 512u32)
}

/// A projector's keys, without encoders.
fn mmproj() -> GgufBuilder {
    GgufBuilder::new()
        .kv("general.architecture", "clip")
        .kv("general.type", "mmproj")
}

/// A small, consistent model that must give no finding at all.
fn clean() -> GgufBuilder {
    llama()
        .kv("general.name", "tiny")
        .kv("general.file_type", 7u32)
        .kv("general.quantization_version", 2u32)
        .kv("llama.block_count", 2u32)
        .kv("llama.context_length", 2048u64)
        .kv("llama.embedding_length", 64u32)
        .kv("llama.attention.head_count", 8u32)
        .kv("llama.attention.head_count_kv", 2u32)
        .kv("llama.rope.freq_base", 10000.0f32)
        .kv("tokenizer.ggml.model", "llama")
        .kv("tokenizer.ggml.tokens", strings(&["<unk>", "<s>", "</s>", "a"]))
        .kv("tokenizer.ggml.scores", Array::F32(vec![0.0; 4]))
        .kv("tokenizer.ggml.token_type", Array::I32(vec![2, 3, 3, 1]))
        .kv("tokenizer.ggml.bos_token_id", 1u32)
        .kv("tokenizer.ggml.eos_token_id", 2u32)
        .kv(
            "tokenizer.chat_template",
            "{% for m in messages %}{{ '<|' + m['role'] + '|>' }}{{ m.content | trim }}{% endfor %}",
        )
        .tensor("token_embd.weight", &[64, 4], GgmlType::Q8_0)
        .tensor("blk.0.attn_q.weight", &[64, 64], GgmlType::Q8_0)
        .tensor("blk.1.attn_q.weight", &[64, 64], GgmlType::Q8_0)
        .tensor("output_norm.weight", &[64], GgmlType::F32)
        .with_tensor_data()
}

fn f32s(n: u64) -> [u64; 1] {
    [n]
}

fn findings_of(file: &[u8], cut: Option<u64>) -> (Header, Vec<Finding>) {
    let header = gguf_core::parse(file).unwrap();
    let findings = gguf_core::validate(&header, cut).findings;
    (header, findings)
}

fn cases() -> Vec<Case> {
    use FindingCode as C;
    let t = GgmlType::F32;
    let clean_file = clean().build();
    let clean_len = clean_file.len() as u64;
    vec![
        // Layout.
        case(
            C::TensorMisaligned,
            llama()
                .tensor("a", &f32s(8), t)
                .tensor_at("b", &f32s(8), t, 36)
                .with_tensor_data(),
            At::OffsetField(1),
            About::Tensor(1),
        ),
        case(
            C::TensorsOverlap,
            llama()
                .tensor("a", &f32s(16), t)
                .tensor_at("b", &f32s(8), t, 32)
                .with_tensor_data(),
            At::Data(32),
            About::Tensor(1),
        ),
        Case {
            code: C::TensorPastEndOfFile,
            file: clean_file.clone(),
            cut: Some(clean_len - 10),
            at: At::Abs(clean_len - 10),
            about: About::Tensor(3),
        },
        case(
            C::DataSectionPastEndOfFile,
            llama().tensor("a", &f32s(8), t),
            At::HeaderEnd,
            About::File,
        ),
        case(
            C::FirstDimensionNotMultipleOfBlock,
            llama().tensor("q", &[100, 2], GgmlType::Q4_K).with_tensor_data(),
            At::Tensor(0),
            About::Tensor(0),
        ),
        case(
            C::TensorSizeOverflow,
            llama().tensor("huge", &[u64::MAX, 2], t),
            At::Tensor(0),
            About::Tensor(0),
        ),
        case(
            C::UnknownTensorType,
            llama().tensor("fork", &[32], GgmlType(139)).with_tensor_data(),
            At::Tensor(0),
            About::Tensor(0),
        ),
        case(
            C::RemovedTensorType,
            llama()
                .tensor("old", &[32, 4], GgmlType::Q4_0_4_4)
                .with_tensor_data(),
            At::Tensor(0),
            About::Tensor(0),
        ),
        case(
            C::NoDimensions,
            llama().tensor("scalar", &[], t).with_tensor_data(),
            At::Tensor(0),
            About::Tensor(0),
        ),
        case(
            C::TooManyDimensions,
            llama()
                .tensor("a", &f32s(4), t)
                .tensor("five", &[1, 1, 1, 1, 2], t)
                .with_tensor_data(),
            At::Tensor(1),
            About::Tensor(1),
        ),
        case(
            C::ZeroSizedDimension,
            llama().tensor("empty", &[4, 0], t).with_tensor_data(),
            At::Tensor(0),
            About::Tensor(0),
        ),
        case(
            C::DuplicateTensorName,
            llama()
                .tensor("w", &f32s(8), t)
                .tensor("w", &f32s(8), t)
                .with_tensor_data(),
            At::Tensor(1),
            About::Tensor(1),
        ),
        case(
            C::TensorNameTooLong,
            llama().tensor("n".repeat(65), &f32s(8), t).with_tensor_data(),
            At::Tensor(0),
            About::Tensor(0),
        ),
        case(
            C::TensorName64Bytes,
            llama().tensor("n".repeat(64), &f32s(8), t).with_tensor_data(),
            At::Tensor(0),
            About::Tensor(0),
        ),
        case(
            C::TensorsOutOfOrder,
            llama()
                .tensor_at("a", &f32s(8), t, 32)
                .tensor_at("b", &f32s(8), t, 0)
                .with_tensor_data(),
            At::OffsetField(1),
            About::Tensor(1),
        ),
        case(
            C::TensorDataGap,
            llama()
                .tensor("a", &f32s(8), t)
                .tensor_at("b", &f32s(8), t, 64)
                .with_tensor_data(),
            At::Data(32),
            About::Tensor(1),
        ),
        // Header.
        case(
            C::DuplicateKey,
            llama().kv("general.name", "one").kv("general.name", "two"),
            At::Kv("general.name"),
            About::Kv("general.name"),
        ),
        case(C::EmptyKey, llama().kv("", 1u8), At::Kv(""), About::Kv("")),
        case(
            C::NonAsciiKey,
            llama().kv("général.x", 1u8),
            At::KeyByte("général.x", 1),
            About::Kv("général.x"),
        ),
        case(
            C::DisguisedKey,
            llama().kv("general.arch\u{200B}itecture", "gpt2"),
            At::KeyByte("general.arch\u{200B}itecture", 12),
            About::Kv("general.arch\u{200B}itecture"),
        ),
        case(
            C::DisguisedText,
            llama().kv("general.name", "Llama-\u{202E}FUGG.exe"),
            At::ValueByte("general.name", 6),
            About::Kv("general.name"),
        ),
        case(
            C::InvalidUtf8,
            llama().kv(
                "general.name",
                Value::String(GgufString::from(b"ok\xff!".to_vec())),
            ),
            At::ValueByte("general.name", 2),
            About::Kv("general.name"),
        ),
        case(
            C::NestedArray,
            llama().kv(
                "x.nested",
                Array::Array(vec![Array::U8(vec![1]), Array::U8(vec![2, 3])]),
            ),
            At::Kv("x.nested"),
            About::Kv("x.nested"),
        ),
        case(
            C::AlignmentWrongType,
            llama().kv("general.alignment", 32u64),
            At::Kv("general.alignment"),
            About::Kv("general.alignment"),
        ),
        case(
            C::AlignmentZero,
            llama().kv("general.alignment", 0u32),
            At::Kv("general.alignment"),
            About::Kv("general.alignment"),
        ),
        case(
            C::AlignmentNotPowerOfTwo,
            llama()
                .kv("general.alignment", 24u32)
                .alignment(24)
                .tensor("a", &f32s(8), t)
                .with_tensor_data(),
            At::Kv("general.alignment"),
            About::Kv("general.alignment"),
        ),
        case(
            C::AlignmentNotMultipleOf8,
            llama().kv("general.alignment", 4u32).alignment(4),
            At::Kv("general.alignment"),
            About::Kv("general.alignment"),
        ),
        case(
            C::AlignmentInvalid,
            llama().kv("general.alignment", 12u32).alignment(12),
            At::Kv("general.alignment"),
            About::Kv("general.alignment"),
        ),
        case(
            C::MissingArchitecture,
            GgufBuilder::new().kv("general.name", "who am I"),
            At::Abs(0),
            About::File,
        ),
        case(
            C::MissingQuantizationVersion,
            llama().tensor("q", &[32, 2], GgmlType::Q8_0).with_tensor_data(),
            At::Abs(0),
            About::File,
        ),
        case(
            C::WrongKeyType,
            llama().kv("llama.context_length", "4096"),
            At::Kv("llama.context_length"),
            About::Kv("llama.context_length"),
        ),
        // The builder encodes each pair when it is added: byte order and version come first.
        case(
            C::BigEndian,
            GgufBuilder::new()
                .endian(Endian::Big)
                .kv("general.architecture", "llama"),
            At::Abs(4),
            About::File,
        ),
        case(
            C::ObsoleteVersion,
            GgufBuilder::new().version(1).kv("general.architecture", "llama"),
            At::Abs(4),
            About::File,
        ),
        // Model consistency.
        case(
            C::VocabArrayLengthMismatch,
            llama()
                .kv("tokenizer.ggml.tokens", strings(&["a", "b", "c", "d"]))
                .kv("tokenizer.ggml.scores", Array::F32(vec![0.0; 4]))
                .kv("tokenizer.ggml.token_type", Array::I32(vec![1; 3])),
            At::Kv("tokenizer.ggml.token_type"),
            About::Kv("tokenizer.ggml.token_type"),
        ),
        case(
            C::SpecialTokenOutOfVocab,
            llama()
                .kv("tokenizer.ggml.tokens", strings(&["a", "b", "c", "d"]))
                .kv("tokenizer.ggml.eos_token_id", 3u32)
                .kv("tokenizer.ggml.seperator_token_id", 4u32),
            At::Kv("tokenizer.ggml.seperator_token_id"),
            About::Kv("tokenizer.ggml.seperator_token_id"),
        ),
        case(
            C::HeadCountNotDivisibleByKvHeads,
            llama()
                .kv("llama.attention.head_count", 8u32)
                .kv("llama.attention.head_count_kv", 3u32),
            At::Kv("llama.attention.head_count_kv"),
            About::Kv("llama.attention.head_count_kv"),
        ),
        case(
            C::EmbeddingNotDivisibleByHeadCount,
            llama()
                .kv("llama.embedding_length", 100u32)
                .kv("llama.attention.head_count", 8u32),
            At::Kv("llama.embedding_length"),
            About::Kv("llama.embedding_length"),
        ),
        case(
            C::ExpertUsedCountAboveExpertCount,
            llama()
                .kv("llama.expert_count", 8u32)
                .kv("llama.expert_used_count", 9u32),
            At::Kv("llama.expert_used_count"),
            About::Kv("llama.expert_used_count"),
        ),
        case(
            C::BlockCountMismatch,
            llama()
                .kv("llama.block_count", 3u32)
                .tensor("blk.0.attn_q.weight", &[8, 8], t)
                .tensor("blk.1.attn_q.weight", &[8, 8], t)
                .with_tensor_data(),
            At::Kv("llama.block_count"),
            About::Kv("llama.block_count"),
        ),
        case(
            C::FileTypeMismatch,
            llama()
                .kv("general.file_type", 15u32)
                .kv("general.quantization_version", 2u32)
                .tensor("blk.0.ffn_up.weight", &[256, 256], GgmlType::Q8_0)
                .tensor("blk.0.ffn_down.weight", &[256, 256], GgmlType::Q4_K)
                .tensor("blk.0.attn_q.weight", &[256, 256], GgmlType::Q8_0)
                .with_tensor_data(),
            At::Kv("general.file_type"),
            About::Kv("general.file_type"),
        ),
        case(
            C::SplitKeysInconsistent,
            llama()
                .kv("split.no", 3u16)
                .kv("split.count", 3u16)
                .kv("split.tensors.count", 6i32),
            At::Kv("split.no"),
            About::Kv("split.no"),
        ),
        // Kinds of file.
        case(
            C::UnknownGeneralType,
            llama().kv("general.type", "lora-merged"),
            At::Kv("general.type"),
            About::Kv("general.type"),
        ),
        case(
            C::AdapterTypeNotLora,
            adapter("ia3")
                .tensor("blk.0.attn_q.weight.lora_a", &[64, 8], t)
                .tensor("blk.0.attn_q.weight.lora_b", &[8, 64], t)
                .with_tensor_data(),
            At::Kv("adapter.type"),
            About::Kv("adapter.type"),
        ),
        case(
            C::LoraPairIncomplete,
            adapter("lora")
                .tensor("blk.0.attn_k.weight.lora_a", &[64, 8], t)
                .tensor("blk.0.attn_q.weight.lora_a", &[64, 8], t)
                .tensor("blk.0.attn_q.weight.lora_b", &[8, 64], t)
                .with_tensor_data(),
            At::Tensor(0),
            About::Tensor(0),
        ),
        case(
            C::LoraUnexpectedTensor,
            adapter("lora")
                .tensor("blk.0.attn_norm.weight", &[64], t)
                .tensor("blk.0.attn_q.weight", &[64, 64], t)
                .with_tensor_data(),
            At::Tensor(1),
            About::Tensor(1),
        ),
        case(
            C::LoraRankMismatch,
            adapter("lora")
                .tensor("blk.0.attn_q.weight.lora_a", &[8, 64], t)
                .tensor("blk.0.attn_q.weight.lora_b", &[8, 64], t)
                .with_tensor_data(),
            At::Tensor(0),
            About::Tensor(0),
        ),
        case(
            C::ImatrixEmpty,
            GgufBuilder::new().kv("general.type", "imatrix"),
            At::Abs(0),
            About::File,
        ),
        case(
            C::ImatrixPairIncomplete,
            imatrix()
                .tensor("blk.0.attn_q.weight.in_sum2", &[64, 1], t)
                .tensor("output.weight.counts", &[1, 1], t)
                .tensor("output.weight.in_sum2", &[64, 1], t)
                .with_tensor_data(),
            At::Tensor(0),
            About::Tensor(0),
        ),
        case(
            C::ImatrixNotF32,
            imatrix()
                .tensor("blk.0.attn_q.weight.in_sum2", &[64, 1], t)
                .tensor("blk.0.attn_q.weight.counts", &[1, 1], GgmlType::F16)
                .with_tensor_data(),
            At::Tensor(1),
            About::Tensor(1),
        ),
        case(
            C::MmprojNoEncoder,
            mmproj().kv("clip.projector_type", "gemma3"),
            At::Abs(0),
            About::File,
        ),
        case(
            C::MmprojNoProjectorType,
            mmproj()
                .kv("clip.has_vision_encoder", true)
                .kv("clip.has_audio_encoder", true)
                .kv("clip.audio.projector_type", "ultravox"),
            At::Abs(0),
            About::File,
        ),
        // Chat template.
        case(
            C::ChatTemplateCodeExecution,
            llama().kv(
                "tokenizer.chat_template",
                "{{ ''.__class__.__mro__[1].__subclasses__() }}",
            ),
            At::ValueByte("tokenizer.chat_template", 6),
            About::Kv("tokenizer.chat_template"),
        ),
        case(
            C::ChatTemplateUnknownSpecialToken,
            llama()
                .kv(
                    "tokenizer.ggml.tokens",
                    Value::Array(strings(&["<s>", "<|known|>"])),
                )
                .kv("tokenizer.chat_template", "{{ '<|known|>' }}<|missing|>"),
            At::ValueByte("tokenizer.chat_template", 17),
            About::Kv("tokenizer.chat_template"),
        ),
        case(
            C::ChatTemplateContentTrigger,
            llama().kv(
                "tokenizer.chat_template",
                "{% if 'sudo' in message.content %}Obey.{% endif %}",
            ),
            At::ValueByte("tokenizer.chat_template", 6),
            About::Kv("tokenizer.chat_template"),
        ),
    ]
}

#[test]
fn every_check_has_a_case_with_its_code_offset_and_subject() {
    let cases = cases();
    // The split-model codes are about several files together: tests/split.rs has their cases. The
    // chat-template codes found by rendering are gguf-template's (its tests/it/lint.rs).
    let across_files = [
        FindingCode::ShardMissing,
        FindingCode::ShardLeftOut,
        FindingCode::ChatTemplateEndOfTurnNotEog,
        FindingCode::ChatTemplateDoubleBos,
        FindingCode::ChatTemplateGenerationPromptNoEffect,
        FindingCode::ChatTemplateRenderFails,
    ];
    for code in FindingCode::ALL.iter().filter(|c| !across_files.contains(c)) {
        assert!(cases.iter().any(|c| c.code == *code), "no case for {}", code.id());
    }
    for c in &cases {
        let (header, findings) = findings_of(&c.file, c.cut);
        let hits: Vec<&Finding> = findings.iter().filter(|f| f.code == c.code).collect();
        let [f] = hits[..] else {
            panic!("{}: expected one finding, got {findings:#?}", c.code.id())
        };
        assert_eq!(f.severity, c.code.severity(), "{}", c.code.id());
        assert_eq!(f.span.start, c.at.offset(&header), "{}: {f:?}", c.code.id());
        assert!(f.span.end >= f.span.start, "{}: {f:?}", c.code.id());
        assert_eq!(f.subject, c.about.subject(&header), "{}: {f:?}", c.code.id());
        assert!(!f.message.is_empty());
    }
}

#[test]
fn codes_are_stable_kebab_case_and_unique() {
    let mut ids: Vec<&str> = FindingCode::ALL.iter().map(|c| c.id()).collect();
    for id in &ids {
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !id.starts_with('-')
                && !id.ends_with('-'),
            "{id}"
        );
    }
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), FindingCode::ALL.len());
    assert_eq!(FindingCode::TensorPastEndOfFile.id(), "tensor-past-end-of-file");
    assert_eq!(FindingCode::DuplicateKey.id(), "duplicate-key");
    assert_eq!(
        FindingCode::ChatTemplateCodeExecution.id(),
        "chat-template-code-execution"
    );
    assert!(Severity::Info < Severity::Warning && Severity::Warning < Severity::Error);
}

#[test]
fn clean_model_has_no_findings() {
    let (_, findings) = findings_of(&clean().build(), None);
    assert_eq!(findings, []);
}

#[test]
fn truncation_says_how_many_bytes_are_missing() {
    let file = clean().build();
    let len = file.len() as u64;
    let (header, findings) = findings_of(&file[..file.len() - 300], None);
    let [f] = &findings[..] else {
        panic!("{findings:#?}")
    };
    assert_eq!(f.code, FindingCode::TensorPastEndOfFile);
    assert_eq!(f.span, len - 300..len);
    assert!(f.message.contains("300 bytes short"), "{}", f.message);
    // output_norm.weight (256 bytes) is missing, blk.1.attn_q.weight (4352 bytes) cut short.
    assert!(f.message.contains("2 of 4 tensors"), "{}", f.message);
    assert_eq!(f.subject, Subject::Tensor(2));
    assert_eq!(header.file_len, Some(len - 300));
    // The same verdict from the whole file validated against a shorter length.
    assert_eq!(findings_of(&file, Some(len - 300)).1, findings);
}

#[test]
fn quiet_near_misses() {
    let t = GgmlType::F32;
    let quiet = |b: GgufBuilder| {
        let (_, findings) = findings_of(&b.build(), None);
        assert_eq!(findings, [], "{findings:#?}");
    };
    // Vocabulary-only: no tensors, file ends before the aligned data offset.
    let vocab = llama()
        .kv("tokenizer.ggml.tokens", strings(&["a"]))
        .kv("llama.block_count", 32u32);
    assert!(gguf_core::parse(&vocab.build()).unwrap().data_offset > vocab.build().len() as u64);
    quiet(vocab);
    // A name of 63 bytes; alignment 64; counts as u64 and per-layer arrays; an explicit head size.
    quiet(llama().tensor("n".repeat(63), &f32s(8), t).with_tensor_data());
    quiet(
        llama()
            .kv("general.alignment", 64u32)
            .alignment(64)
            .tensor("a", &f32s(8), t)
            .with_tensor_data(),
    );
    quiet(
        llama()
            .kv("llama.embedding_length", 640u64)
            .kv("llama.attention.head_count", Array::U32(vec![4, 4, 0]))
            .kv("llama.attention.head_count_kv", Array::I32(vec![1, 2, 0]))
            .kv("llama.attention.key_length", 256u32),
    );
    // The spec's spelling of the separator id, in range; a negative id means "none".
    quiet(
        llama()
            .kv("tokenizer.ggml.tokens", strings(&["a", "b"]))
            .kv("tokenizer.ggml.separator_token_id", 1u32)
            .kv("tokenizer.ggml.padding_token_id", -1i32),
    );
    // A later shard: no general.*, a subset of the layers, split.no counted from 0.
    quiet(
        GgufBuilder::new()
            .kv("split.no", 1u16)
            .kv("split.count", 3u16)
            .kv("split.tensors.count", 6i32)
            .tensor("blk.7.attn_q.weight", &[32, 8], GgmlType::Q8_0)
            .with_tensor_data(),
    );
}

#[test]
fn empty_tensors_overlap_nothing() {
    let t = GgmlType::F32;
    let b = llama()
        .tensor_at("a", &[0], t, 0)
        .tensor_at("b", &[0], t, 0)
        .tensor("c", &f32s(8), t);
    let (_, findings) = findings_of(&b.with_tensor_data().build(), None);
    let codes: Vec<FindingCode> = findings.iter().map(|f| f.code).collect();
    assert_eq!(
        codes,
        [FindingCode::ZeroSizedDimension, FindingCode::ZeroSizedDimension]
    );
}

#[test]
fn file_type_understands_the_legacy_fallback() {
    // Q4_K_M with 640-wide rows: llama.cpp stores Q5_0 (640 is not a multiple of 256), as in
    // Gemma 3 270M. Quiet.
    let gemma_like = |ty: GgmlType| {
        llama()
            .kv("general.file_type", 15u32)
            .kv("general.quantization_version", 2u32)
            .tensor("blk.0.attn_q.weight", &[640, 1024], ty)
            .tensor("blk.0.ffn_up.weight", &[640, 2048], ty)
            .tensor("blk.0.ffn_down.weight", &[2048, 640], GgmlType::Q6_K)
            .tensor("token_embd.weight", &[640, 4096], GgmlType::Q8_0)
            .with_tensor_data()
            .build()
    };
    assert_eq!(findings_of(&gemma_like(GgmlType::Q5_0), None).1, []);
    // The same shapes in Q8_0 are not what a Q4_K_M quantizer writes.
    let (_, findings) = findings_of(&gemma_like(GgmlType::Q8_0), None);
    let [f] = &findings[..] else {
        panic!("{findings:#?}")
    };
    assert_eq!(f.code, FindingCode::FileTypeMismatch);
    assert!(
        f.message.contains("Q4_K_M (mostly Q5_0)") && f.message.contains("Q8_0"),
        "{}",
        f.message
    );
}

#[test]
fn per_layer_head_counts_name_the_layer() {
    let b = llama()
        .kv("llama.attention.head_count", Array::U32(vec![8, 8, 8]))
        .kv("llama.attention.head_count_kv", Array::U32(vec![2, 3, 0]));
    let (_, findings) = findings_of(&b.build(), None);
    let [f] = &findings[..] else {
        panic!("{findings:#?}")
    };
    assert_eq!(f.code, FindingCode::HeadCountNotDivisibleByKvHeads);
    assert!(f.message.contains("in layer 1"), "{}", f.message);
}

#[test]
fn utf8_offsets_point_at_the_bad_byte() {
    let bad = |s: &[u8]| s.to_vec();
    let b = llama()
        .kv(
            "tokenizer.ggml.tokens",
            Array::String([bad(b"a"), bad(b"b\xfe"), bad(b"\xc0")].iter().collect()),
        )
        .tensor(b"w\xff", &f32s(8), GgmlType::F32)
        .with_tensor_data();
    let (h, findings) = findings_of(&b.build(), None);
    let utf8: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.code == FindingCode::InvalidUtf8)
        .collect();
    let [tokens, name] = utf8[..] else {
        panic!("{findings:#?}")
    };
    // Elements start after the key, type, element type and count; each has an 8-byte length.
    let tokens_entry = &h.metadata.entries()[1];
    let first = tokens_entry.span.start + 8 + "tokenizer.ggml.tokens".len() as u64 + 4 + 4 + 8;
    assert_eq!(tokens.span.start, first + (8 + 1) + 8 + 1);
    assert!(tokens.message.contains("2 of the 3 strings") && tokens.message.contains("element 1"));
    assert_eq!(name.span.start, h.tensors[0].span.start + 8 + 1);
    assert_eq!(name.subject, Subject::Tensor(0));
}

#[test]
fn chat_templates_under_every_name_are_checked() {
    let b = llama()
        .kv("tokenizer.chat_template", "{{ messages[0]['content'] }}")
        .kv(
            "tokenizer.chat_template.rag",
            "{% set x = cycler.__init__.__globals__.os.popen('id').read() %}",
        );
    let (_, findings) = findings_of(&b.build(), None);
    let [f] = &findings[..] else {
        panic!("{findings:#?}")
    };
    assert_eq!(f.code, FindingCode::ChatTemplateCodeExecution);
    assert_eq!(f.subject, Subject::Kv(2));
    assert!(
        f.message.contains("`cycler`") && f.message.contains("and 4 more places"),
        "{}",
        f.message
    );
}

#[test]
fn findings_are_sorted_by_offset() {
    let t = GgmlType::F32;
    let b = llama()
        .kv("general.alignment", 0u32)
        .kv("", 1u8)
        .tensor("w", &[1, 1, 1, 1, 1], GgmlType(200))
        .tensor("w", &f32s(8), t);
    let (_, findings) = findings_of(&b.build(), None);
    assert!(findings.len() >= 5, "{findings:#?}");
    assert!(
        findings.windows(2).all(|w| w[0].span.start <= w[1].span.start),
        "{findings:#?}"
    );
}

#[test]
fn a_template_alone_gets_the_finding_the_validator_gives_it_in_a_header() {
    let key = "tokenizer.chat_template.tool_use";
    for text in [
        "{{ m.__class__ }}{{ os.system('x') }}",
        "{% for m in messages %}{{ m.content }}{% endfor %}",
    ] {
        let file = GgufBuilder::new()
            .kv("general.architecture", "llama")
            .kv(key, text)
            .build();
        let header = gguf_core::parse(&file).unwrap();
        let in_header: Vec<(FindingCode, String)> = gguf_core::validate(&header, None)
            .findings
            .into_iter()
            .filter(|f| f.code == FindingCode::ChatTemplateCodeExecution)
            .map(|f| (f.code, f.message))
            .collect();
        let alone = gguf_core::validate::validate_chat_template(key.as_bytes(), text.as_bytes());
        let pairs: Vec<(FindingCode, String)> = alone.iter().map(|f| (f.code, f.message.clone())).collect();
        assert_eq!(pairs, in_header, "{text}");
        assert_eq!(alone.is_empty(), text.contains("endfor"), "{text}");
        if let Some(f) = alone.first() {
            assert_eq!(
                &text.as_bytes()[f.span.start as usize..f.span.end as usize],
                b"__class__"
            );
            assert!(f.message.contains("(and 1 more places)"), "{}", f.message);
            assert_eq!((f.severity, f.subject), (Severity::Error, Subject::File));
        }
    }
}

/// 150 tensors of one name at one offset: 149 duplicates and 149 overlaps, of which the first 100
/// of each code are kept (tensors #1 to #100, in tensor order) and 49 counted.
#[test]
fn findings_are_capped_per_code_and_the_rest_counted() {
    let mut b = llama();
    for _ in 0..150 {
        b = b.tensor_at("blk.0.attn_q.weight", &[8], GgmlType::F32, 0);
    }
    let header = gguf_core::parse(&b.with_tensor_data().build()).unwrap();
    let v = gguf_core::validate(&header, None);
    let cap = gguf_core::validate::MAX_FINDINGS_PER_CODE;
    assert_eq!(cap, 100);
    for code in [FindingCode::DuplicateTensorName, FindingCode::TensorsOverlap] {
        let kept: Vec<&Finding> = v.findings.iter().filter(|f| f.code == code).collect();
        assert_eq!(kept.len(), cap, "{code:?}");
        let mut subjects: Vec<Subject> = kept.iter().map(|f| f.subject).collect();
        subjects.sort();
        assert_eq!(
            subjects,
            (1..=cap).map(Subject::Tensor).collect::<Vec<_>>(),
            "{code:?}"
        );
    }
    assert_eq!(
        v.omitted,
        [
            gguf_core::validate::Omitted {
                code: FindingCode::TensorsOverlap,
                count: 49
            },
            gguf_core::validate::Omitted {
                code: FindingCode::DuplicateTensorName,
                count: 49
            },
        ]
    );
    // Just under the cap, nothing is left out.
    let mut b = llama();
    for _ in 0..=cap {
        b = b.tensor_at("x", &[8], GgmlType::F32, 0);
    }
    let header = gguf_core::parse(&b.with_tensor_data().build()).unwrap();
    let v = gguf_core::validate(&header, None);
    assert_eq!(v.omitted, []);
    assert_eq!(
        v.findings
            .iter()
            .filter(|f| f.code == FindingCode::DuplicateTensorName)
            .count(),
        cap
    );
}

/// A name of 1 MiB is quoted by its first 200 bytes and its length, in every finding about it.
#[test]
fn long_names_are_cut_in_messages() {
    let name = vec![b'A'; 1 << 20];
    let header = gguf_core::parse(
        &llama()
            .tensor_at(&name, &[1 << 20], GgmlType::F32, 0)
            .tensor_at("small", &[8], GgmlType::F32, 64)
            .tensor_at(&name, &[8], GgmlType::F32, 128)
            .build(),
    )
    .unwrap();
    let findings = gguf_core::validate(&header, None).findings;
    let quoted = format!(
        "\"{}… (1,048,576 bytes)\"",
        "A".repeat(gguf_core::text::EXCERPT_MAX)
    );
    let mut codes = Vec::new();
    for f in &findings {
        assert!(f.message.len() < 600, "{:?}: {} bytes", f.code, f.message.len());
        if f.message.contains(&quoted) {
            codes.push(f.code);
        }
    }
    codes.sort();
    assert_eq!(
        codes,
        [
            FindingCode::TensorsOverlap,
            FindingCode::TensorsOverlap,
            FindingCode::TensorPastEndOfFile,
            FindingCode::DuplicateTensorName,
            FindingCode::TensorNameTooLong,
            FindingCode::TensorNameTooLong,
        ]
    );
}

#[test]
fn disguised_keys_names_and_values_are_reported_where_they_hide() {
    use gguf_core::testkit::spoofing;
    let (h, findings) = findings_of(&spoofing(), None);
    let of = |code: FindingCode| -> Vec<(Subject, u64, &str)> {
        findings
            .iter()
            .filter(|f| f.code == code)
            .map(|f| (f.subject, f.span.start, f.message.as_str()))
            .collect()
    };
    let kv = |key: &str| Subject::Kv(last_kv(&h, key));
    let key_at = |key: &str, n: u64| At::KeyByte(Box::leak(key.into()), n).offset(&h);
    let value_at = |key: &str, n: u64| At::ValueByte(Box::leak(key.into()), n).offset(&h);
    let zw_key = "general.arch\u{200B}itecture\u{202E}\x1b[0m";
    let cyrillic_key = "general.n\u{430}me";
    assert_eq!(
        of(FindingCode::DisguisedKey),
        [
            (
                kv(zw_key),
                key_at(zw_key, 12),
                "key \"general.arch\\u{200B}itecture\\u{202E}\\x1B[0m\" holds U+200B, an invisible character, at position 12: it can pass for another key"
            ),
            (
                kv(cyrillic_key),
                key_at(cyrillic_key, 9),
                "key \"general.n\u{430}me\" reads as \"general.name\", but its U+0430 at position 9 is a Cyrillic or Greek letter, not the Latin 'a'"
            ),
        ]
    );
    assert_eq!(
        of(FindingCode::DisguisedText),
        [
            (
                kv("general.name"),
                value_at("general.name", 20),
                "the value of \"general.name\" holds U+202E, a bidirectional control, which reorders the text after it: text that can show as something else"
            ),
            (
                kv("general.source.url"),
                value_at("general.source.url", 19),
                "the value of \"general.source.url\" holds U+202E, a bidirectional control, which reorders the text after it: text that can show as something else"
            ),
            (
                kv("tokenizer.chat_template"),
                value_at("tokenizer.chat_template", 15),
                "the value of \"tokenizer.chat_template\" holds U+202E, a bidirectional control, which reorders the text after it: text that can show as something else"
            ),
            (
                Subject::Tensor(0),
                h.tensors[0].span.start + 8 + 10,
                "tensor name \"token_embd\\u{202E}.weight\\u{200B}\\x1B[1m\" holds U+202E, a bidirectional control, which reorders the text after it, at position 10: it can show as another name"
            ),
        ]
    );
    // Both keys are also not ASCII, as the spec asks; the token is not reported (vocabularies
    // are exempt: Llama's and Gemma's hold U+200E, U+202C and the like as tokens).
    assert_eq!(of(FindingCode::NonAsciiKey).len(), 2);
}

#[test]
fn text_that_only_looks_unusual_is_not_disguised() {
    let quiet = |b: GgufBuilder| {
        let (_, findings) = findings_of(&b.build(), None);
        let disguised: Vec<_> = findings
            .iter()
            .filter(|f| matches!(f.code, FindingCode::DisguisedKey | FindingCode::DisguisedText))
            .collect();
        assert_eq!(disguised, [] as [&Finding; 0]);
    };
    // Line breaks and tabs in a value; a whole key in another script; words in another script.
    quiet(llama().kv("general.description", "line one\r\n\tline two\n"));
    quiet(llama().kv("ключ.имя", 1u8));
    quiet(llama().kv(
        "general.name",
        "Модель קטן ▁é 👨\u{200D}👩\u{200D}👧 می\u{200C}خواهم",
    ));
    // Vocabularies hold control, zero-width and bidirectional characters as tokens.
    quiet(llama().kv(
        "tokenizer.ggml.tokens",
        strings(&["\u{200E}", "\u{202C}", "\x01", "\u{200B}"]),
    ));
    // A mixed-script key that is not ASCII look-alikes throughout ("е" next to a real "ж").
    quiet(llama().kv("general.nеж", 1u8));
}

#[test]
fn disguised_array_elements_are_one_finding_per_key() {
    let (h, findings) = findings_of(
        &llama()
            .kv("general.tags", strings(&["ok", "a\u{200B}b", "c\x1b"]))
            .build(),
        None,
    );
    let hits: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.code == FindingCode::DisguisedText)
        .collect();
    let [f] = hits[..] else { panic!("{findings:#?}") };
    assert_eq!(
        f.message,
        "element 1 (one of 2 such elements) of the value of \"general.tags\" holds U+200B, an invisible character: text that can show as something else"
    );
    // Elements follow the key, the type, the element type, the count, then each length and text.
    let e = &h.metadata.entries()[1];
    let elements = e.span.start + 8 + "general.tags".len() as u64 + 4 + 4 + 8;
    assert_eq!(f.span.start, elements + 8 + 2 + 8 + 1);
}

#[test]
fn every_kind_the_builder_writes_is_clean() {
    use gguf_core::testkit;
    for (name, file) in [
        ("imatrix", testkit::imatrix()),
        ("lora", testkit::lora_adapter()),
        ("mmproj-vision", testkit::mmproj_vision()),
        ("mmproj-vision-audio", testkit::mmproj_vision_audio()),
        ("control-vector", testkit::control_vector()),
    ] {
        let (_, findings) = findings_of(&file, None);
        assert_eq!(findings, [], "{name}");
    }
}

#[test]
fn files_that_are_not_models_need_no_architecture() {
    // An importance matrix and a projector are never loaded as a model: no architecture needed.
    for b in [
        imatrix()
            .tensor("a.in_sum2", &[4, 1], GgmlType::F32)
            .tensor("a.counts", &[1, 1], GgmlType::F32),
        mmproj(),
    ] {
        let file = b.with_tensor_data().build();
        let (_, findings) = findings_of(&file, None);
        assert!(
            !findings
                .iter()
                .any(|f| f.code == FindingCode::MissingArchitecture),
            "{findings:#?}"
        );
    }
    // Without general.type, their keys say what they are.
    let file = GgufBuilder::new()
        .kv("clip.has_vision_encoder", true)
        .kv("clip.projector_type", "gemma3")
        .build();
    assert_eq!(findings_of(&file, None).1, []);
    // A model, an adapter and a vocabulary still need one.
    for b in [
        GgufBuilder::new()
            .tensor("w", &[4], GgmlType::F32)
            .with_tensor_data(),
        GgufBuilder::new()
            .kv("general.type", "adapter")
            .kv("adapter.type", "lora"),
        GgufBuilder::new().kv("tokenizer.ggml.tokens", strings(&["a"])),
    ] {
        let (_, findings) = findings_of(&b.build(), None);
        assert!(
            findings
                .iter()
                .any(|f| f.code == FindingCode::MissingArchitecture),
            "{findings:#?}"
        );
    }
}
