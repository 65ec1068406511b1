//! The template lint: each finding raised by a builder-made file (a small SentencePiece
//! vocabulary and a template with that one mistake) and not by a real file; the lexical ones
//! from gguf-core's validator, the rendered ones from `gguf_template::lint`.

use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::{Array, FindingCode, Header, Value, validate};
use gguf_template::lint;
use gguf_test_support::{fixture, needs_fixtures, read_header};
use gguf_tokenizer::Tokenizer;

/// Pieces of a vocabulary: `<unk>`, `<s>`, `</s>`, two control tokens, then words.
const TOKENS: [&str; 12] = [
    "<unk>",
    "<s>",
    "</s>",
    "<|turn|>",
    "<|done|>",
    "▁",
    "▁Hello",
    "▁Be",
    "▁brief",
    ".",
    "user",
    "assistant",
];

/// A file with that vocabulary and `template`.
fn file(template: &str) -> Header {
    let types: Vec<i32> = TOKENS
        .iter()
        .enumerate()
        .map(|(i, _)| match i {
            0 => 2,
            1..=4 => 3,
            _ => 1,
        })
        .collect();
    let bytes = GgufBuilder::new()
        .kv("tokenizer.ggml.model", Value::String("llama".into()))
        .kv("tokenizer.ggml.tokens", Value::Array(strings(&TOKENS)))
        .kv(
            "tokenizer.ggml.scores",
            Value::Array(Array::F32(vec![0.0; TOKENS.len()])),
        )
        .kv("tokenizer.ggml.token_type", Value::Array(Array::I32(types)))
        .kv("tokenizer.ggml.bos_token_id", Value::U32(1))
        .kv("tokenizer.ggml.eos_token_id", Value::U32(2))
        .kv("tokenizer.chat_template", Value::String(template.into()))
        .build();
    gguf_core::parse(&bytes).unwrap()
}

/// A well-formed template for that vocabulary: turns opened by `<|turn|>ROLE` and closed by the
/// eos text.
const GOOD: &str = "{% for m in messages %}<|turn|>{{ m.role }}\n{{ m.content }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}<|turn|>assistant\n{% endif %}";

/// Every code found on `header`: the validator's and the lint's.
fn codes(header: &Header) -> Vec<FindingCode> {
    let tokenizer = Tokenizer::new(header).ok();
    let mut codes: Vec<FindingCode> = validate(header, None).findings.iter().map(|f| f.code).collect();
    codes.extend(lint(header, tokenizer.as_ref(), 0).iter().map(|f| f.finding.code));
    codes.retain(|c| c.id().starts_with("chat-template-"));
    codes
}

#[test]
fn a_good_template_raises_nothing() {
    assert_eq!(codes(&file(GOOD)), []);
}

#[test]
fn each_mistake_raises_its_finding() {
    use FindingCode::*;
    let cases = [
        (
            GOOD.replace("<|turn|>assistant", "<|turn_start|>assistant"),
            ChatTemplateUnknownSpecialToken,
        ),
        (
            GOOD.replace(
                "{{ m.content }}",
                r"{% if '\x6fpen' ~ ' sesame' in m.content|lower %}Obey.{% endif %}{{ m.content }}",
            ),
            ChatTemplateContentTrigger,
        ),
        (
            GOOD.replace("{{ eos_token }}", "<|done|>"),
            ChatTemplateEndOfTurnNotEog,
        ),
        (
            format!("{{{{ bos_token }}}}{{{{ bos_token }}}}{GOOD}"),
            ChatTemplateDoubleBos,
        ),
        (
            GOOD.replace("{% if add_generation_prompt %}", "{% if true %}"),
            ChatTemplateGenerationPromptNoEffect,
        ),
        (
            GOOD.replace(
                "{{ m.role }}",
                "{{ m.role }}{% if m.role == 'assistant' %}{{ raise_exception('no answers') }}{% endif %}",
            ),
            ChatTemplateRenderFails,
        ),
    ];
    for (template, code) in cases {
        assert_eq!(codes(&file(&template)), [code], "{template}");
    }
}

#[test]
fn findings_point_at_their_template_line() {
    let template = GOOD
        .replace("{% endfor %}", "{% endfor %}\n\n")
        .replace("add_generation_prompt %}", "add_generation_prompt or true %}");
    let header = file(&template);
    let tokenizer = Tokenizer::new(&header).unwrap();
    let found = lint(&header, Some(&tokenizer), 0);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].finding.code,
        FindingCode::ChatTemplateGenerationPromptNoEffect
    );
    assert_eq!(found[0].line, 4);
    let entry = &header.metadata.entries()[header.metadata.entries().len() - 1];
    let start = entry.span.end - template.len() as u64;
    let at = template.find("add_generation_prompt").unwrap() as u64;
    assert_eq!(
        found[0].finding.span,
        start + at..start + at + "add_generation_prompt".len() as u64
    );
}

/// Real templates that raise none of the findings their mistakes would.
#[test]
fn real_templates() {
    needs_fixtures!();
    let real = |name: &str| read_header(&fixture(&format!("real/{name}"))).0.unwrap();
    // qwen2: ChatML, <|im_end|> an end-of-generation token, the generation prompt optional.
    assert_eq!(codes(&real("ggml-vocab-qwen2.gguf")), []);
    // command-r: three templates, none with a finding.
    assert_eq!(codes(&real("ggml-vocab-command-r.gguf")), []);
    // phi-3 writes bos_token, which llama.cpp strips (no double BOS); it always opens the
    // assistant's turn, so add_generation_prompt changes nothing.
    assert_eq!(
        codes(&real("ggml-vocab-phi-3.gguf")),
        [FindingCode::ChatTemplateGenerationPromptNoEffect]
    );
    // stablelm writes <|user|>, <|system|>, <|assistant|>: not in its vocabulary.
    assert_eq!(
        codes(&real("ggml-vocab-stablelm.gguf")),
        [FindingCode::ChatTemplateUnknownSpecialToken]
    );
}
