//! The template module: `gguf-template`'s sandboxed engine, for the viewer's chat template
//! preview — the prompt llama.cpp builds for a conversation (`applyTemplate`; its tokens come from
//! the tokenizer module) — and the template lint (`lintTemplates`), which renders and tokenizes.
//!
//! A module of its own: the template engine is several times the size of the viewer's parser, so
//! the page loads it (in the preview's worker) only when a preview is asked for, and the viewer's
//! first load stays small. Thin on purpose: the sandbox, its bounds and the sample conversation
//! live in `gguf-template`.

use gguf_template::{
    Conversation, FUEL, Options, RECURSION_LIMIT, Request, SAMPLE_CONVERSATION, Source, TIME_LIMIT,
    Templates, Vocab,
};
use gguf_tokenizer::Tokenizer;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::js::{error, to_js};
use crate::session::GgufSession;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** The prompt llama.cpp builds: `template` 'default' (the template given), or 'chatml' (the fallback for none); `notes`: what llama.cpp did besides rendering. */
export interface AppliedTemplate { prompt: string; template: string; notes: string[] }
/** A template lint finding: its code, severity and message, the template's key-value pair (`kvIndex`), its line in the template (from 1) and its bytes in the file. */
export interface TemplateLint { code: string; severity: string; message: string; kvIndex: number; line: number; start: number; end: number }
/** The bos and eos texts a file's chat templates get, and whether its tokenizer adds those tokens itself (llama.cpp then strips their text from a prompt's ends). */
export interface ChatTokens { bos: string | null; eos: string | null; addBos: boolean; addEos: boolean }
"#;

/// `applyTemplate`'s answer.
#[derive(Serialize)]
struct Applied {
    prompt: String,
    template: &'static str,
    notes: Vec<String>,
}

/// [`gguf_tokenizer::ChatTokens`] as the page reads it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Chat {
    bos: Option<String>,
    eos: Option<String>,
    add_bos: bool,
    add_eos: bool,
}

/// A lint finding as the page reads it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Lint {
    code: &'static str,
    severity: &'static str,
    message: String,
    kv_index: u32,
    line: u32,
    start: f64,
    end: f64,
}

/// Why a template did not render: the engine's message and the template line (from 1), if known.
#[wasm_bindgen(getter_with_clone)]
pub struct RenderFailure {
    /// What went wrong.
    pub message: String,
    /// The line in the template, or `undefined`.
    pub line: Option<u32>,
}

/// Renders `template` for the sample conversation (system, user, assistant, user) with the
/// file's bos and eos texts. Returns the text; throws a `RenderFailure`.
#[wasm_bindgen]
pub fn render(
    template: &str,
    bos_token: &str,
    eos_token: &str,
    add_generation_prompt: bool,
) -> Result<String, RenderFailure> {
    let options = Options {
        bos_token,
        eos_token,
        add_generation_prompt,
        now: 0,
    };
    gguf_template::render(template, &SAMPLE_CONVERSATION, &options).map_err(|e| RenderFailure {
        message: e.message,
        line: e.line.and_then(|l| u32::try_from(l).ok()),
    })
}

/// The prompt llama-server 0c1e570 builds with `template` (empty: the file has none, and llama.cpp
/// falls back to ChatML) for the sample conversation or `conversation` (JSON: a list of messages
/// or llama-server's request body), with the vocabulary's bos and eos texts (null: none) and
/// flags, template variables `kwargs` (a JSON object, or undefined) and the time `now` (seconds
/// since 1970). Throws a `RenderFailure`.
#[wasm_bindgen(js_name = applyTemplate, unchecked_return_type = "AppliedTemplate")]
#[allow(clippy::too_many_arguments)]
pub fn apply_template(
    template: &str,
    bos: Option<String>,
    eos: Option<String>,
    add_bos: bool,
    add_eos: bool,
    conversation: Option<String>,
    kwargs: Option<String>,
    add_generation_prompt: bool,
    now: f64,
) -> Result<JsValue, RenderFailure> {
    let refused = |message: String| RenderFailure { message, line: None };
    let (conversation, fields) = match conversation {
        Some(json) => Conversation::from_json(&json).map_err(|e| refused(e.to_string()))?,
        None => (Conversation::sample(), Default::default()),
    };
    let mut all_kwargs = fields.kwargs;
    if let Some(json) = kwargs {
        all_kwargs.extend(gguf_template::kwargs_from_json(&json).map_err(|e| refused(e.to_string()))?);
    }
    let templates = Templates {
        default: (!template.is_empty()).then_some(template),
        tool_use: None,
    };
    let vocab = Vocab {
        bos: bos.as_deref(),
        eos: eos.as_deref(),
        add_bos,
        add_eos,
    };
    let request = Request {
        conversation: &conversation,
        add_generation_prompt: fields.add_generation_prompt.unwrap_or(true) && add_generation_prompt,
        kwargs: &all_kwargs,
        now: now as i64,
    };
    let prompt = gguf_template::apply(&templates, &vocab, &request).map_err(|e| RenderFailure {
        message: e.message,
        line: e.line.and_then(|l| u32::try_from(l).ok()),
    })?;
    let applied = Applied {
        prompt: prompt.text,
        template: match prompt.source {
            Source::Default => "default",
            Source::ToolUse => "tool_use",
            Source::Fallback => "chatml",
        },
        notes: prompt.notes,
    };
    to_js(&applied).map_err(|_| refused("the prompt could not be handed to the page".into()))
}

/// The bos and eos texts and flags the chat templates of the file of decoded `session` (named
/// `file`; takes the session) are rendered with (`gguf_template::chat_tokens`). Throws an `Error`
/// when the header is not decoded.
#[wasm_bindgen(js_name = chatTokens, unchecked_return_type = "ChatTokens")]
pub fn chat_tokens(session: GgufSession, file: &str) -> Result<JsValue, JsValue> {
    let header = session.into_header(file)?;
    let tokenizer = Tokenizer::new(&header).ok();
    let c = gguf_template::chat_tokens(&header, tokenizer.as_ref());
    let chat = Chat {
        bos: c.bos,
        eos: c.eos,
        add_bos: c.add_bos,
        add_eos: c.add_eos,
    };
    to_js(&chat).map_err(|e| error(format_args!("{file}: {e:?}")))
}

/// Every chat-template finding of the file of decoded `session` (named `file`; takes the
/// session) — the validator's and those that need a render — each on its template's line. Throws
/// an `Error` when the header is not decoded.
#[wasm_bindgen(js_name = lintTemplates, unchecked_return_type = "TemplateLint[]")]
pub fn lint_templates(session: GgufSession, file: &str, now: f64) -> Result<JsValue, JsValue> {
    let header = session.into_header(file)?;
    let tokenizer = Tokenizer::new(&header).ok();
    let found: Vec<Lint> = gguf_template::template_findings(&header, tokenizer.as_ref(), now as i64)
        .into_iter()
        .map(|f| Lint {
            code: f.finding.code.id(),
            severity: f.finding.severity.name(),
            kv_index: match f.finding.subject {
                gguf_core::validate::Subject::Kv(i) => u32::try_from(i).unwrap_or(u32::MAX),
                _ => 0,
            },
            line: u32::try_from(f.line).unwrap_or(u32::MAX),
            start: f.finding.span.start as f64,
            end: f.finding.span.end as f64,
            message: f.finding.message,
        })
        .collect();
    to_js(&found).map_err(|e| error(format_args!("{file}: {e:?}")))
}

/// The fuel of one render (units of instructions and data).
#[wasm_bindgen]
pub fn fuel() -> f64 {
    FUEL as f64
}

/// The nesting depth a render may reach.
#[wasm_bindgen(js_name = recursionLimit)]
pub fn recursion_limit() -> u32 {
    u32::try_from(RECURSION_LIMIT).unwrap_or(u32::MAX)
}

/// How long a render may run, in milliseconds: the page ends the worker it runs in after that.
#[wasm_bindgen(js_name = timeLimitMs)]
pub fn time_limit_ms() -> f64 {
    TIME_LIMIT.as_millis() as f64
}
