//! The finding codes: one table holds each code's stable id, severity and meaning, so the CLI,
//! the JSON report, the browser and docs/json.md ("Finding codes") all read the same list.

use super::Severity;

macro_rules! finding_codes {
    ($($variant:ident => $id:literal, $severity:ident, $about:literal;)*) => {
        /// What a finding is about. Each code has one fixed [`Severity`] and a stable kebab-case id
        /// that scripts may match on.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum FindingCode {
            $(#[doc = $about] $variant,)*
        }

        impl FindingCode {
            /// Every code, in the order the checks run (layout, header, model, kind, chat template).
            pub const ALL: &'static [FindingCode] = &[$(FindingCode::$variant),*];

            /// The stable kebab-case id, e.g. `"tensor-past-end-of-file"`.
            pub fn id(self) -> &'static str {
                match self {
                    $(FindingCode::$variant => $id,)*
                }
            }

            /// How bad it is.
            pub fn severity(self) -> Severity {
                match self {
                    $(FindingCode::$variant => Severity::$severity,)*
                }
            }

            /// One sentence on what the code means, for documentation and tooltips.
            pub fn about(self) -> &'static str {
                match self {
                    $(FindingCode::$variant => $about,)*
                }
            }
        }
    };
}

finding_codes! {
    // Layout of the tensor data.
    TensorMisaligned => "tensor-misaligned", Error,
        "A tensor's data offset is not a multiple of the alignment.";
    TensorsOverlap => "tensors-overlap", Error,
        "Two tensors share bytes of the data section.";
    TensorPastEndOfFile => "tensor-past-end-of-file", Error,
        "Tensor data extends past the end of the file: a truncated download.";
    DataSectionPastEndOfFile => "data-section-past-end-of-file", Error,
        "The file has tensors but ends before its aligned data section starts.";
    FirstDimensionNotMultipleOfBlock => "first-dimension-not-multiple-of-block", Error,
        "A tensor's first dimension is not a whole number of its type's blocks.";
    TensorSizeOverflow => "tensor-size-overflow", Error,
        "A tensor's element count, byte size or end offset overflows.";
    UnknownTensorType => "unknown-tensor-type", Error,
        "A tensor type id ggml never assigned (a fork's type?): its size is unknown and llama.cpp refuses it.";
    RemovedTensorType => "removed-tensor-type", Error,
        "A tensor type ggml has removed (e.g. Q4_0_4_4): current llama.cpp refuses it.";
    NoDimensions => "no-dimensions", Warning,
        "A tensor with zero dimensions.";
    TooManyDimensions => "too-many-dimensions", Error,
        "A tensor with more than 4 dimensions (ggml's maximum).";
    ZeroSizedDimension => "zero-sized-dimension", Warning,
        "A tensor with a dimension of 0: it holds no data.";
    DuplicateTensorName => "duplicate-tensor-name", Error,
        "Two tensors with the same name.";
    TensorNameTooLong => "tensor-name-too-long", Error,
        "A tensor name longer than 64 bytes (the spec's and llama.cpp's limit).";
    TensorName64Bytes => "tensor-name-64-bytes", Warning,
        "A tensor name of exactly 64 bytes: the spec allows it, llama.cpp (names < 64) refuses it.";
    TensorsOutOfOrder => "tensors-out-of-order", Info,
        "Tensor data is not stored in tensor-info order, which llama.cpp's reader demands.";
    TensorDataGap => "tensor-data-gap", Info,
        "Unused bytes between tensors beyond the alignment padding; llama.cpp's reader demands none.";
    // The header's key-value pairs.
    DuplicateKey => "duplicate-key", Warning,
        "A key appears more than once; readers take the first, llama.cpp and gguf-py refuse the file.";
    EmptyKey => "empty-key", Error,
        "A key of zero bytes; llama.cpp refuses the file.";
    NonAsciiKey => "non-ascii-key", Warning,
        "A key that is not ASCII, as the spec requires.";
    DisguisedKey => "disguised-key", Warning,
        "A key that can pass for another: it holds an invisible, bidirectional or control character, or Cyrillic or Greek letters drawn like the Latin ones of an ASCII key (a Cyrillic а in general.name).";
    InvalidUtf8 => "invalid-utf8", Warning,
        "A string (value, array element or tensor name) that is not valid UTF-8.";
    DisguisedText => "disguised-text", Warning,
        "A string value or tensor name holds a bidirectional control, an invisible or a control character (other than a line break or tab in a value): text that can show as something else. Vocabularies are exempt.";
    NestedArray => "nested-array", Warning,
        "An array of arrays: the spec allows it, llama.cpp refuses it.";
    AlignmentWrongType => "alignment-wrong-type", Error,
        "general.alignment is not a UINT32; readers fall back to 32, llama.cpp refuses the file.";
    AlignmentZero => "alignment-zero", Error,
        "general.alignment is 0.";
    AlignmentNotPowerOfTwo => "alignment-not-power-of-two", Warning,
        "general.alignment is a multiple of 8 (the spec's rule) but not a power of two (llama.cpp's).";
    AlignmentNotMultipleOf8 => "alignment-not-multiple-of-8", Warning,
        "general.alignment is a power of two (llama.cpp's rule) below 8 (the spec asks for a multiple of 8).";
    AlignmentInvalid => "alignment-invalid", Error,
        "general.alignment is neither a power of two nor a multiple of 8.";
    MissingArchitecture => "missing-architecture", Error,
        "general.architecture is missing (only shards after the first may omit it).";
    MissingQuantizationVersion => "missing-quantization-version", Warning,
        "A file with quantized tensors lacks general.quantization_version.";
    WrongKeyType => "wrong-key-type", Error,
        "A standard key holds a value of the wrong type, e.g. a context length stored as a string.";
    BigEndian => "big-endian", Warning,
        "The byte order was inferred as big-endian: only big-endian hosts load it.";
    ObsoleteVersion => "obsolete-version", Warning,
        "GGUF version 1, which llama.cpp no longer reads.";
    // Consistency of the model's hyperparameters and tokenizer.
    VocabArrayLengthMismatch => "vocab-array-length-mismatch", Error,
        "tokenizer.ggml.tokens, scores and token_type have different lengths.";
    SpecialTokenOutOfVocab => "special-token-out-of-vocab", Warning,
        "A special token id (bos, eos, padding, fim_*, ...) is not below the vocabulary size.";
    HeadCountNotDivisibleByKvHeads => "head-count-not-divisible-by-kv-heads", Error,
        "The attention head count is not a multiple of the key/value head count.";
    EmbeddingNotDivisibleByHeadCount => "embedding-not-divisible-by-head-count", Error,
        "The embedding length is not a multiple of the head count and no key length is given.";
    ExpertUsedCountAboveExpertCount => "expert-used-count-above-expert-count", Error,
        "More experts used per token than there are experts.";
    BlockCountMismatch => "block-count-mismatch", Error,
        "{arch}.block_count disagrees with the highest blk.N tensor.";
    FileTypeMismatch => "file-type-mismatch", Warning,
        "general.file_type names a type other than the one most block weights have.";
    SplitKeysInconsistent => "split-keys-inconsistent", Error,
        "The split.* keys of a sharded model contradict each other or this file.";
    // What each kind of file needs (`general.type`: adapters, importance matrices, projectors).
    UnknownGeneralType => "unknown-general-type", Info,
        "general.type is none of the kinds llama.cpp writes (model, adapter, imatrix, mmproj): the file is described by its keys.";
    AdapterTypeNotLora => "adapter-type-not-lora", Error,
        "An adapter whose adapter.type is not \"lora\": llama.cpp loads LoRA adapters only.";
    LoraPairIncomplete => "lora-pair-incomplete", Error,
        "A LoRA tensor without its partner (a .lora_a without its .lora_b, or the reverse): llama.cpp refuses the adapter.";
    LoraUnexpectedTensor => "lora-unexpected-tensor", Error,
        "An adapter tensor that is neither a .lora_a, a .lora_b nor a norm: llama.cpp refuses the adapter.";
    LoraRankMismatch => "lora-rank-mismatch", Error,
        "A .lora_a whose rank (second dimension) is not its .lora_b's (first dimension): llama.cpp refuses the adapter.";
    ImatrixEmpty => "imatrix-empty", Error,
        "An importance matrix with no tensors: llama.cpp finds no data in it.";
    ImatrixPairIncomplete => "imatrix-pair-incomplete", Error,
        "An importance matrix entry with sums (.in_sum2) but no counts (.counts), or the reverse: llama.cpp refuses the file.";
    ImatrixNotF32 => "imatrix-not-f32", Error,
        "An importance matrix's sums or counts are not F32: llama.cpp refuses the file.";
    MmprojNoEncoder => "mmproj-no-encoder", Error,
        "A multimodal projector with neither clip.has_vision_encoder nor clip.has_audio_encoder set: llama.cpp finds nothing to load.";
    MmprojNoProjectorType => "mmproj-no-projector-type", Error,
        "A multimodal projector that names no projector type (clip.projector_type, or clip.vision/audio.projector_type): llama.cpp refuses it.";
    // Split models as a whole (`split::SplitModel`, across files).
    ShardMissing => "shard-missing", Error,
        "A shard of a split model is missing: its tensors and their bytes are not counted.";
    ShardLeftOut => "shard-left-out", Warning,
        "A file given with a split model is not one of its shards (no split keys, another split.count or model name, a shard number taken twice): it is left out.";
    // Untrusted chat templates.
    ChatTemplateCodeExecution => "chat-template-code-execution", Error,
        "A chat template reaches for object internals or code execution (__class__, __globals__, import, os., eval...).";
    // Chat templates that make a model worse than upstream.
    ChatTemplateUnknownSpecialToken => "chat-template-unknown-special-token", Warning,
        "A chat template writes a special token (<|name|>) that is not in the vocabulary: it is tokenized as plain text.";
    ChatTemplateContentTrigger => "chat-template-content-trigger", Warning,
        "A chat template branches on, searches or rewrites the text of a message (a hidden trigger), beyond printing it.";
    ChatTemplateEndOfTurnNotEog => "chat-template-end-of-turn-not-eog", Warning,
        "The text a chat template ends an assistant turn with is not a token that stops generation (eos, eot or another end-of-generation token).";
    ChatTemplateDoubleBos => "chat-template-double-bos", Warning,
        "The prompt llama.cpp builds starts with two BOS tokens: the template writes the BOS text where llama.cpp does not strip it, and the tokenizer adds one.";
    ChatTemplateGenerationPromptNoEffect => "chat-template-generation-prompt-no-effect", Info,
        "add_generation_prompt changes nothing: the template always (or never) opens the assistant's turn.";
    ChatTemplateRenderFails => "chat-template-render-fails", Warning,
        "The chat template fails on a standard conversation as llama.cpp sends it.";
}
