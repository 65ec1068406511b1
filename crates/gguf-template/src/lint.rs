//! The chat-template mistakes that show only when the template runs, found by building llama.cpp's
//! prompt ([`crate::apply`]) for standard conversations and tokenizing it as the server does: a
//! template that fails on them, `add_generation_prompt` that changes nothing, a prompt that starts
//! with two BOS tokens, and an end of the assistant's turn that no end-of-generation token marks.
//! Each is a validator finding (codes in gguf-core's table) at the template's bytes it is about;
//! those that show in the text alone are gguf-core's (`validate`).

use gguf_core::chat_template::{ChatTemplate, chat_templates};
use gguf_core::validate::{Finding, FindingCode, Subject};
use gguf_core::{Header, text::Escaped};
use gguf_tokenizer::Tokenizer;

use crate::conversation::{ChatMessage, Conversation};
use crate::prompt::{Request, Templates, Vocab, apply};

/// One finding, with the template line (from 1) its span starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateFinding {
    /// The finding (its span in the file, its subject the template's key-value pair).
    pub finding: Finding,
    /// Its line in the template.
    pub line: usize,
}

/// Text no template writes, to find where a message's content lands in a prompt.
const ANSWER: &str = "ANSWER_7f3a";
const QUESTION: &str = "QUESTION_7f3a";

/// The standard conversations: one user turn, a system prompt and a user turn, and two exchanges.
pub(crate) fn standard() -> [(&'static str, Conversation); 4] {
    let m = ChatMessage::text;
    let conversation = |messages: Vec<ChatMessage>| Conversation {
        messages,
        tools: Vec::new(),
    };
    [
        ("one user message", conversation(vec![m("user", "Hello")])),
        (
            "a system prompt and a user message",
            conversation(vec![m("system", "Be brief."), m("user", "Hello")]),
        ),
        (
            "user, assistant, user",
            conversation(vec![
                m("user", "Hello"),
                m("assistant", ANSWER),
                m("user", QUESTION),
            ]),
        ),
        (
            "system, user, assistant, user",
            conversation(vec![
                m("system", "Be brief."),
                m("user", "Hello"),
                m("assistant", ANSWER),
                m("user", QUESTION),
            ]),
        ),
    ]
}

/// [`lint`] on a thread of its own, given up after `limit` (`None` then: a template that walks a
/// long sequence runs until the time limit, which the fuel does not meter), with `start` run on
/// that thread first (a host's memory meter). The header is moved there.
pub fn lint_within(
    header: Header,
    now: i64,
    limit: std::time::Duration,
    start: impl FnOnce() + Send + 'static,
) -> Option<Vec<Finding>> {
    if chat_templates(&header).is_empty() {
        return Some(Vec::new());
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        start();
        let tokenizer = Tokenizer::new(&header).ok();
        let found = lint(&header, tokenizer.as_ref(), now);
        let _ = sender.send(found.into_iter().map(|f| f.finding).collect());
    });
    receiver.recv_timeout(limit).ok()
}

/// The findings on every chat template of `header`, each rendered as llama.cpp renders the
/// default template (`now` for the date a template may print).
pub fn lint(header: &Header, tokenizer: Option<&Tokenizer>, now: i64) -> Vec<TemplateFinding> {
    let mut out = Vec::new();
    for template in chat_templates(header) {
        let Ok(text) = std::str::from_utf8(template.text) else {
            continue;
        };
        let entry = &header.metadata.entries()[template.kv_index];
        let start = entry.span.end.saturating_sub(template.text.len() as u64);
        let mut add = |code: FindingCode, at: std::ops::Range<usize>, message: String| {
            let line = 1 + text.as_bytes()[..at.start.min(text.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            let span = start + at.start as u64..start + at.end as u64;
            out.push(TemplateFinding {
                finding: Finding::new(code, message, span, Subject::Kv(template.kv_index)),
                line,
            });
        };
        let chat = crate::prompt::chat_tokens(header, tokenizer);
        for (code, at, message) in lint_template(&template, text, &chat, tokenizer, now) {
            add(code, at, message);
        }
    }
    out
}

/// Every chat-template finding on `header` with its template line: the validator's (those it finds
/// in a template's text: code execution, unknown special tokens, content triggers) and
/// [`lint`]'s — what a template view marks on its lines.
pub fn template_findings(header: &Header, tokenizer: Option<&Tokenizer>, now: i64) -> Vec<TemplateFinding> {
    let templates = chat_templates(header);
    let line_of = |f: &Finding| {
        let gguf_core::validate::Subject::Kv(i) = f.subject else {
            return None;
        };
        let t = templates.iter().find(|t| t.kv_index == i)?;
        let start = header.metadata.entries()[i]
            .span
            .end
            .saturating_sub(t.text.len() as u64);
        let at = usize::try_from(f.span.start.checked_sub(start)?).ok()?;
        Some(1 + t.text.get(..at)?.iter().filter(|&&b| b == b'\n').count())
    };
    let mut out: Vec<TemplateFinding> = gguf_core::validate(header, None)
        .findings
        .into_iter()
        .filter(|f| f.code.id().starts_with("chat-template-"))
        .filter_map(|f| {
            Some(TemplateFinding {
                line: line_of(&f)?,
                finding: f,
            })
        })
        .collect();
    out.extend(lint(header, tokenizer, now));
    out
}

/// The findings on one template: code, bytes in the template, message.
fn lint_template(
    template: &ChatTemplate<'_>,
    text: &str,
    chat: &gguf_tokenizer::ChatTokens,
    tokenizer: Option<&Tokenizer>,
    now: i64,
) -> Vec<(FindingCode, std::ops::Range<usize>, String)> {
    let key = Escaped(template.key).to_string();
    let vocab = Vocab {
        bos: chat.bos.as_deref(),
        eos: chat.eos.as_deref(),
        add_bos: chat.add_bos,
        add_eos: chat.add_eos,
    };
    let templates = Templates {
        default: Some(text),
        tool_use: None,
    };
    let prompt = |conversation: &Conversation, add_generation_prompt: bool| {
        let request = Request {
            conversation,
            add_generation_prompt,
            kwargs: &[],
            now,
        };
        apply(&templates, &vocab, &request)
    };
    let mut out = Vec::new();
    let mut prompts = Vec::new();
    for (name, conversation) in standard() {
        match prompt(&conversation, true) {
            Ok(p) => prompts.push((name, conversation, p.text)),
            Err(e) => {
                let at = line_start(text, e.line.unwrap_or(1));
                out.push((
                    FindingCode::ChatTemplateRenderFails,
                    at..at,
                    format!("chat template \"{key}\" fails on {name}, as llama.cpp sends it: {e}"),
                ));
                return out;
            }
        }
    }
    let (_, exchanges, with_prompt) = &prompts[2];
    if let Ok(without) = prompt(exchanges, false)
        && without.text == *with_prompt
    {
        out.push((
            FindingCode::ChatTemplateGenerationPromptNoEffect,
            word(text, "add_generation_prompt").unwrap_or(0..0),
            format!(
                "chat template \"{key}\" renders the same with and without add_generation_prompt: the assistant's turn is {} opened, whatever the caller asks",
                if text.contains("add_generation_prompt") { "always (or never)" } else { "always or never" }
            ),
        ));
    }
    let Some(tokenizer) = tokenizer else {
        return out;
    };
    // Two BOS at the start of the prompt llama.cpp tokenizes.
    let bos = tokenizer.specials().bos;
    let ids = tokenizer.tokenize(prompts[0].2.as_bytes(), true, true);
    if bos.is_some() && chat.add_bos && ids.len() >= 2 && ids[0] == ids[1] && Some(ids[0]) == bos {
        let bos_text = chat.bos.clone().unwrap_or_default();
        let at = word(text, "bos_token")
            .or_else(|| {
                (!bos_text.is_empty())
                    .then(|| text.find(&bos_text).map(|p| p..p + bos_text.len()))
                    .flatten()
            })
            .unwrap_or(0..0);
        out.push((
            FindingCode::ChatTemplateDoubleBos,
            at,
            format!(
                "the prompt llama.cpp builds from chat template \"{key}\" starts with two BOS tokens ({}): the template writes the BOS text where llama.cpp does not strip it, and the tokenizer adds one (add_bos_token)",
                Escaped(bos_text.as_bytes())
            ),
        ));
    }
    // The end of the assistant's turn: the tokens between its text and the next user message.
    let prompt_text = &prompts[2].2;
    if let (Some(a), Some(q)) = (prompt_text.find(ANSWER), prompt_text.find(QUESTION)) {
        let after = a + ANSWER.len();
        if after <= q {
            let between = &prompt_text[after..q];
            let ids = tokenizer.tokenize(between.as_bytes(), false, true);
            if !ids.iter().any(|&id| tokenizer.is_eog(id)) {
                let special = ids.iter().copied().find(|&id| {
                    tokenizer.attr(id).is_some_and(|a| {
                        a.has(gguf_tokenizer::Attr::CONTROL | gguf_tokenizer::Attr::USER_DEFINED)
                    })
                });
                let (shown, at) = match special.and_then(|id| tokenizer.text(id)) {
                    Some(t) => {
                        let t = String::from_utf8_lossy(t).into_owned();
                        let at = text.find(&t).map_or(0..0, |p| p..p + t.len());
                        (format!("`{}`, which is not", Escaped(t.as_bytes())), at)
                    }
                    None => (
                        format!("`{}`, text without", Escaped(between.trim().as_bytes())),
                        0..0,
                    ),
                };
                out.push((
                    FindingCode::ChatTemplateEndOfTurnNotEog,
                    at,
                    format!(
                        "chat template \"{key}\" ends an assistant turn with {shown} an end-of-generation token (eos, eot or another llama.cpp stops at): generation runs on past the answer"
                    ),
                ));
            }
        }
    }
    out
}

/// Where line `n` (from 1) of `text` starts.
fn line_start(text: &str, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    text.match_indices('\n')
        .nth(n - 2)
        .map_or(text.len(), |(p, _)| p + 1)
}

/// The bytes of the first `name` written in the template's code.
fn word(text: &str, name: &str) -> Option<std::ops::Range<usize>> {
    let t = text.as_bytes();
    gguf_core::jinja::tokens(t)
        .find(|k| k.kind.is_word() && &t[k.range.clone()] == name.as_bytes())
        .map(|k| k.range)
}
