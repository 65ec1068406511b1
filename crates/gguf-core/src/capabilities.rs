//! What a model can do, drawn from its header and its chat templates alone: chat, tool calls,
//! thinking, fill-in-the-middle, embeddings, reranking, seeing or hearing (a projector's
//! encoders), adapting another model. Each capability says which key, template or tensor it was
//! drawn from, so a reader can check it.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::chat_template::{ChatTemplate, chat_templates};
use crate::describe::Adapter;
use crate::header::{Header, Value};
use crate::jinja::{self, Kind};
use crate::keys::{self, arch};
use crate::kind::FileKind;
use crate::text::lossy;
use crate::tokenizer::{FIM_MID_TEXTS, FIM_PRE_TEXTS, FIM_SUF_TEXTS};

/// One thing a model can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Capability {
    /// Chat: the file carries a chat template.
    Chat,
    /// Tool calls: a chat template reads `tools`.
    Tools,
    /// Thinking before answering: a template reads a reasoning switch (`enable_thinking`…) or
    /// writes thinking tags (`<think>`…).
    Thinking,
    /// Fill-in-the-middle (code completion between a prefix and a suffix): the vocabulary has
    /// the prefix, suffix and middle tokens llama.cpp's `/infill` needs.
    FillInMiddle,
    /// Embeddings: a pooling type, or attention that looks both ways (an encoder).
    Embedding,
    /// Reranking or classification: rank pooling, or a classifier head.
    Reranking,
    /// Images: a projector with an image encoder.
    Vision,
    /// Sound: a projector with an audio encoder.
    Audio,
    /// Adapting a base model: a LoRA adapter.
    Adapter,
}

impl Capability {
    /// `"chat"`, `"tools"`, `"thinking"`, `"fill-in-middle"`, `"embedding"`, `"reranking"`,
    /// `"vision"`, `"audio"` or `"adapter"`.
    pub fn id(self) -> &'static str {
        match self {
            Capability::Chat => "chat",
            Capability::Tools => "tools",
            Capability::Thinking => "thinking",
            Capability::FillInMiddle => "fill-in-middle",
            Capability::Embedding => "embedding",
            Capability::Reranking => "reranking",
            Capability::Vision => "vision",
            Capability::Audio => "audio",
            Capability::Adapter => "adapter",
        }
    }
}

/// A capability and where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Found {
    /// What the model can do.
    pub capability: Capability,
    /// The key (or tensor) it was drawn from, e.g. `tokenizer.chat_template`.
    pub source: String,
    /// What there says so, in words, e.g. `the template reads enable_thinking`.
    pub evidence: String,
}

/// The names a template reads to switch reasoning on or off, or to show past reasoning (the
/// kwargs llama.cpp and the model cards pass: `enable_thinking`, `reasoning_effort`, `thinking`).
const THINKING_NAMES: [&str; 4] = [
    "enable_thinking",
    "reasoning_effort",
    "thinking",
    "reasoning_content",
];
/// The tags thinking models write their reasoning between, as their templates spell them.
const THINKING_TAGS: [&str; 7] = [
    "<think>",
    "<|think|>",
    "[THINK]",
    "<seed:think>",
    "<thinking>",
    "<|START_THINKING|>",
    "<|channel|>analysis",
];

/// `llama_pooling_type`'s names, by number.
const POOLING: [&str; 5] = ["none", "mean", "cls", "last", "rank"];
/// The pooling type that makes a reranker.
const RANK_POOLING: u64 = 4;

/// What the model in `header` can do, in [`Capability`] order (the order the checks run in).
pub fn capabilities(header: &Header) -> Vec<Found> {
    let kind = FileKind::of(header);
    let mut found = Vec::new();
    let mut add = |capability, source: &str, evidence: String| {
        found.push(Found {
            capability,
            source: source.to_string(),
            evidence,
        });
    };
    let templates = chat_templates(header);
    if let Some(first) = templates.first() {
        let titles: Vec<_> = templates.iter().map(|t| lossy(t.title())).collect();
        let evidence = match templates.len() {
            1 => "a chat template".to_string(),
            n => format!("{n} chat templates: {}", titles.join(", ")),
        };
        add(Capability::Chat, &key_of(first), evidence);
    }
    if let Some(t) = templates.iter().find(|t| reads(t, &["tools"]).is_some()) {
        add(
            Capability::Tools,
            &key_of(t),
            "the template reads tools".to_string(),
        );
    }
    let thinking = templates.iter().find_map(|t| {
        let evidence = match reads(t, &THINKING_NAMES) {
            Some(name) => format!("the template reads {name}"),
            None => format!("the template writes {}", writes(t, &THINKING_TAGS)?),
        };
        Some((key_of(t), evidence))
    });
    if let Some((key, evidence)) = thinking {
        add(Capability::Thinking, &key, evidence);
    }
    if let Some((source, texts)) = fill_in_middle(header) {
        add(Capability::FillInMiddle, source, texts);
    }
    encoder_only(header, &mut add);
    if kind == FileKind::Mmproj {
        for f in encoders(header, None) {
            add(f.capability, &f.source, f.evidence);
        }
    }
    if kind == FileKind::Adapter {
        let adapter = Adapter::of(header);
        let over = adapter
            .base_models
            .iter()
            .find_map(|b| b.name.as_deref())
            .map(|name| format!(" over {name}"))
            .unwrap_or_default();
        let ty = match adapter.adapter_type.as_deref() {
            Some("lora") => "LoRA",
            Some(other) => other,
            None => "untyped",
        };
        add(
            Capability::Adapter,
            keys::GENERAL_TYPE,
            format!("a {ty} adapter{over}"),
        );
    }
    found
}

/// What a multimodal projector lets the model beside it do (`name`: the projector's file): see,
/// hear; nothing when `projector` is not a projector.
pub fn projector_capabilities(projector: &Header, name: &str) -> Vec<Found> {
    if FileKind::of(projector) != FileKind::Mmproj {
        return Vec::new();
    }
    encoders(projector, Some(name))
}

/// A projector's encoders as capabilities: from its `clip.has_*_encoder` flags, or, for a
/// projector beside a model, from the file `beside`.
fn encoders(header: &Header, beside: Option<&str>) -> Vec<Found> {
    let mut found = Vec::new();
    for (flag, capability, evidence) in [
        (
            keys::CLIP_HAS_VISION_ENCODER,
            Capability::Vision,
            "an image encoder",
        ),
        (
            keys::CLIP_HAS_AUDIO_ENCODER,
            Capability::Audio,
            "an audio encoder",
        ),
    ] {
        if let Some(Value::Bool(true)) = header.metadata.get(flag) {
            let (source, evidence) = match beside {
                Some(name) => (name, alloc::format!("{evidence} in the projector beside it")),
                None => (flag, evidence.to_string()),
            };
            found.push(Found {
                capability,
                source: source.to_string(),
                evidence,
            });
        }
    }
    found
}

/// The template's key, as text.
fn key_of(t: &ChatTemplate<'_>) -> String {
    lossy(t.key).into_owned()
}

/// The first of `names` the template reads as a variable (a name inside a tag, not a string).
fn reads<'n>(t: &ChatTemplate<'_>, names: &[&'n str]) -> Option<&'n str> {
    jinja::tokens(t.text)
        .filter(|token| token.kind == Kind::Name)
        .find_map(|token| {
            let word = &t.text[token.range];
            names.iter().copied().find(|n| n.as_bytes() == word)
        })
}

/// The first of `tags` the template writes: in its text, or in a string it prints.
fn writes<'n>(t: &ChatTemplate<'_>, tags: &[&'n str]) -> Option<&'n str> {
    jinja::tokens(t.text)
        .filter(|token| matches!(token.kind, Kind::Text | Kind::String))
        .find_map(|token| {
            let text = &t.text[token.range];
            tags.iter()
                .copied()
                .find(|tag| text.windows(tag.len()).any(|w| w == tag.as_bytes()))
        })
}

/// The prefix, suffix and middle tokens, each named by its id key or found by its text as
/// llama.cpp finds it: where they were found, and their texts.
fn fill_in_middle(header: &Header) -> Option<(&'static str, String)> {
    let md = &header.metadata;
    let tokens = md.get(keys::TOKENS)?.as_array()?.as_strings()?;
    let roles: [(&str, &str, &[&str]); 3] = [
        ("fim_pre", "tokenizer.ggml.prefix_token_id", FIM_PRE_TEXTS),
        ("fim_suf", "tokenizer.ggml.suffix_token_id", FIM_SUF_TEXTS),
        ("fim_mid", "tokenizer.ggml.middle_token_id", FIM_MID_TEXTS),
    ];
    let mut by_key = true;
    let mut texts: Vec<String> = Vec::new();
    for (role, old_key, spellings) in roles {
        let named = [keys::special_token_key(role), Some(old_key)]
            .into_iter()
            .flatten()
            .find_map(|k| md.get(k)?.as_u64())
            .and_then(|id| tokens.get(usize::try_from(id).ok()?));
        let text = match named {
            Some(text) => text,
            None => {
                by_key = false;
                tokens
                    .iter()
                    .find(|t| spellings.iter().any(|s| s.as_bytes() == *t))?
            }
        };
        texts.push(lossy(text).into_owned());
    }
    let source = if by_key {
        keys::special_token_key("fim_pre").unwrap_or(keys::TOKENS)
    } else {
        keys::TOKENS
    };
    Some((source, format!("the tokens {}", texts.join(", "))))
}

/// Embedding and reranking: `{arch}.pooling_type`, a classifier head, or attention that looks
/// both ways (`{arch}.attention.causal` false).
fn encoder_only(header: &Header, add: &mut impl FnMut(Capability, &str, String)) {
    let md = &header.metadata;
    let Some(architecture) = md.architecture() else {
        return;
    };
    let key = |suffix: &str| format!("{architecture}.{suffix}");
    let pooling = md.arch_get(arch::POOLING_TYPE).and_then(Value::as_u64);
    let pooling_name = pooling.map(|p| POOLING.get(p as usize).copied().unwrap_or("unknown"));
    let labels = md
        .arch_get(arch::CLASSIFIER_OUTPUT_LABELS)
        .and_then(Value::as_array)
        .map(|a| a.len());
    let head = header
        .tensors
        .iter()
        .find(|t| t.name.as_bytes() == b"cls.output.weight");
    if pooling == Some(RANK_POOLING) {
        return add(
            Capability::Reranking,
            &key(arch::POOLING_TYPE),
            "rank pooling".to_string(),
        );
    }
    if let Some(n) = labels {
        let evidence = format!("a classifier head with {n} labels");
        return add(
            Capability::Reranking,
            &key(arch::CLASSIFIER_OUTPUT_LABELS),
            evidence,
        );
    }
    if head.is_some() {
        return add(
            Capability::Reranking,
            "cls.output.weight",
            "a classifier head".to_string(),
        );
    }
    if let Some(name) = pooling_name {
        return add(
            Capability::Embedding,
            &key(arch::POOLING_TYPE),
            format!("{name} pooling"),
        );
    }
    if let Some(Value::Bool(false)) = md.arch_get(arch::ATTENTION_CAUSAL) {
        add(
            Capability::Embedding,
            &key(arch::ATTENTION_CAUSAL),
            "attention that looks both ways (an encoder)".to_string(),
        );
    }
}
