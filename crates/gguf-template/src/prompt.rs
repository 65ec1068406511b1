//! The prompt llama.cpp 0c1e570 builds from a conversation (`llama-server --jinja`, `POST
//! /apply-template`; `common/chat.cpp`): which template it takes (the tool-use one when tools are
//! given, ChatML when the file has none), the messages as it hands them over (content parts joined
//! or kept by what the template takes, a `developer` turn made `system`, a system message folded
//! into the next one for a template that prints none, a final assistant turn continued rather than
//! closed), the variables it sets (`bos_token`, `eos_token`, `enable_thinking`, `tools`,
//! `date_string`, `datetime`, the request's kwargs, `add_generation_prompt` only when true), and
//! the bos and eos text it strips from the ends when the tokenizer adds those tokens itself.

use minijinja::Value;

use crate::conversation::Map;

use crate::caps::{Caps, caps};
use crate::conversation::{ChatMessage, Conversation, as_bool};
use crate::{RenderError, compile, environment, explain, time};

/// llama.cpp's template for a file that has none (and for the name `chatml`).
pub const CHATML: &str = "{%- for message in messages -%}\n  {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' -}}\n{%- endfor -%}\n{%- if add_generation_prompt -%}\n  {{- '<|im_start|>assistant\n' -}}\n{%- endif -%}";

/// The templates a model offers llama.cpp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Templates<'a> {
    /// `tokenizer.chat_template`, or the template given in its place (`--chat-template-file`).
    pub default: Option<&'a str>,
    /// `tokenizer.chat_template.tool_use`, used when the request has tools (never beside a
    /// template given in the default's place).
    pub tool_use: Option<&'a str>,
}

/// What llama.cpp's chat layer takes from the vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Vocab<'a> {
    /// The bos token's text (`bos_token`), `None` when the vocabulary has none.
    pub bos: Option<&'a str>,
    /// The eos token's text (`eos_token`).
    pub eos: Option<&'a str>,
    /// The tokenizer adds bos itself: a leading bos text is stripped from the prompt.
    pub add_bos: bool,
    /// The tokenizer adds eos itself: a trailing eos text is stripped.
    pub add_eos: bool,
}

/// A request: the conversation and what llama-server's request body adds.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The messages and tools.
    pub conversation: &'a Conversation,
    /// End with the opening of the assistant's turn (llama-server's default: true). A
    /// conversation that ends with an assistant turn is continued instead.
    pub add_generation_prompt: bool,
    /// `chat_template_kwargs`: template variables, e.g. `enable_thinking`.
    pub kwargs: &'a [(String, Value)],
    /// Now, in seconds since 1970 (UTC), for `strftime_now`, `date_string` and `datetime`.
    pub now: i64,
}

/// Which template made the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `tokenizer.chat_template` (or the template given in its place).
    Default,
    /// `tokenizer.chat_template.tool_use`.
    ToolUse,
    /// None: the file has no template, and llama.cpp falls back to ChatML ([`CHATML`]).
    Fallback,
}

/// The prompt and how it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    /// The prompt, as llama-server hands it to the tokenizer.
    pub text: String,
    /// The template that made it.
    pub source: Source,
    /// The template's capabilities, as llama.cpp's probes find them.
    pub caps: Caps,
    /// What llama.cpp did besides rendering (a system message folded, a turn continued, …).
    pub notes: Vec<String>,
}

/// The bos and eos texts and flags of a file as llama.cpp's chat layer takes them from its
/// tokenizer; for a file whose tokenizer cannot be built (llama.cpp would refuse it), the tokens'
/// texts as stored and the `add_bos_token` and `add_eos_token` keys.
pub fn chat_tokens(
    header: &gguf_core::Header,
    tokenizer: Option<&gguf_tokenizer::Tokenizer>,
) -> gguf_tokenizer::ChatTokens {
    if let Some(t) = tokenizer {
        return t.chat_tokens();
    }
    let stored = gguf_core::tokenizer::Tokenizer::new(header);
    let text = |role| {
        stored
            .special_text(role)
            .map(|t| String::from_utf8_lossy(t).into_owned())
    };
    let flag = |key: &str| {
        header
            .metadata
            .get(key)
            .is_some_and(|v| matches!(v, gguf_core::Value::Bool(true)))
    };
    gguf_tokenizer::ChatTokens {
        bos: text("bos"),
        eos: text("eos"),
        add_bos: flag("tokenizer.ggml.add_bos_token"),
        add_eos: flag("tokenizer.ggml.add_eos_token"),
    }
}

/// The prompt llama-server builds for `request`.
pub fn apply(
    templates: &Templates<'_>,
    vocab: &Vocab<'_>,
    request: &Request<'_>,
) -> Result<Prompt, RenderError> {
    let fail = |message: String| RenderError { message, line: None };
    let conversation = request.conversation;
    let mut notes = Vec::new();

    // The default template: the file's, else the tool-use one, else ChatML; two patches llama.cpp
    // applies to templates it would otherwise fail on.
    let (default, default_source) = match (usable(templates.default), templates.tool_use) {
        (Some(t), _) => (patched(t), Source::Default),
        (None, Some(t)) => (patched(t), Source::ToolUse),
        (None, None) => (CHATML.to_owned(), Source::Fallback),
    };
    if default_source == Source::Fallback {
        notes.push("the file has no chat template: llama.cpp falls back to ChatML".into());
    }
    let (source_text, source) = match templates.tool_use {
        Some(t) if !conversation.tools.is_empty() => (t.to_owned(), Source::ToolUse),
        _ => (default, default_source),
    };
    if let Some(family) = specialized_handler(&source_text) {
        notes.push(format!(
            "llama.cpp formats {family} templates with a handler of its own: its prompt may differ from this render"
        ));
    }

    let env = environment(request.now);
    let template = compile(&env, &source_text)?;
    let caps = caps(&template, &source_text);

    // enable_thinking: the server's default, overridden by the kwarg of that name.
    let mut enable_thinking = supports_thinking(&env, &source_text, request.now);
    if let Some((_, v)) = request.kwargs.iter().find(|(k, _)| k == "enable_thinking") {
        if v.as_str().is_some() {
            return Err(fail(
                "invalid type for \"enable_thinking\" (expected boolean, got string)".into(),
            ));
        }
        if let Some(b) = as_bool(v) {
            enable_thinking = b;
        }
    }

    // The messages: StepFun's trimmed, then as the template takes them.
    let mut messages: Vec<ChatMessage> = conversation.messages.clone();
    if source_text.contains("You have access to the following functions in JSONSchema format") {
        for m in &mut messages {
            m.content = m.content.trim_matches(c_space).to_owned();
            m.reasoning_content = m.reasoning_content.trim_matches(c_space).to_owned();
            for (kind, text) in &mut m.parts {
                if kind == "text" {
                    *text = text.trim_matches(c_space).to_owned();
                }
            }
        }
    }
    let mut add_generation_prompt = request.add_generation_prompt;
    let continued = match messages.last() {
        Some(last) if last.role == "assistant" => {
            if messages.len() >= 2 && messages[messages.len() - 2].role == "assistant" {
                return Err(fail(
                    "Cannot have 2 or more assistant messages at the end of the list.".into(),
                ));
            }
            if !last.tool_calls.is_empty() {
                return Err(fail(
                    "Cannot continue an assistant message that contains tool calls.".into(),
                ));
            }
            add_generation_prompt = false;
            notes.push("the conversation ends with an assistant turn: llama.cpp continues it".into());
            messages.pop()
        }
        _ => None,
    };
    let mut values: Vec<Value> = messages.iter().map(|m| normalized(m, &caps)).collect();
    if !source_text.contains("<|channel|>") {
        values = values
            .into_iter()
            .map(|m| {
                with(&m, "role", |r| {
                    if r.as_str() == Some("developer") {
                        Value::from("system")
                    } else {
                        r
                    }
                })
            })
            .collect();
    }
    if !caps.system_role
        && values
            .first()
            .is_some_and(|m| attr(m, "role").as_str() == Some("system"))
    {
        let system = values.remove(0);
        match values.first_mut() {
            Some(next) => {
                let (Some(a), Some(b)) = (
                    attr(&system, "content").as_str().map(str::to_owned),
                    attr(next, "content").as_str().map(str::to_owned),
                ) else {
                    return Err(fail(
                        "llama.cpp cannot fold a system message whose content is not text".into(),
                    ));
                };
                *next = with(next, "content", |_| Value::from(format!("{a}\n{b}")));
                notes.push(
                    "the template prints no system message: llama.cpp puts it before the next message".into(),
                );
            }
            None => notes.push("the template prints no system message: llama.cpp drops it".into()),
        }
    }
    if caps.object_arguments {
        values = values
            .iter()
            .map(arguments_as_objects)
            .collect::<Result<_, _>>()
            .map_err(fail)?;
    }

    let mut context = Map::new();
    context.insert("messages".into(), Value::from(values.clone()));
    context.insert("bos_token".into(), Value::from(vocab.bos.unwrap_or_default()));
    context.insert("eos_token".into(), Value::from(vocab.eos.unwrap_or_default()));
    context.insert("enable_thinking".into(), Value::from(enable_thinking));
    if !conversation.tools.is_empty() {
        let tools: Vec<Value> = conversation
            .tools
            .iter()
            .map(crate::conversation::Tool::to_value)
            .collect();
        context.insert("tools".into(), Value::from(tools));
    }
    context.insert(
        "datetime".into(),
        Value::from(time::strftime("%b %d %Y", request.now)),
    );
    context.insert(
        "date_string".into(),
        Value::from(time::strftime("%d %b %Y", request.now)),
    );
    for (k, v) in request.kwargs {
        context.insert(Value::from(k.as_str()), v.clone());
    }
    if let Some(on) = request
        .kwargs
        .iter()
        .find(|(k, _)| k == "preserve_reasoning")
        .and_then(|(_, v)| as_bool(v))
    {
        for (name, value) in [
            ("preserve_thinking", on),
            ("clear_thinking", !on),
            ("truncate_history_thinking", !on),
            ("drop_thinking", !on),
        ] {
            context.entry(Value::from(name)).or_insert(Value::from(value));
        }
    }
    if let Some((_, effort)) = request
        .kwargs
        .iter()
        .find(|(k, v)| k == "reasoning_effort" && v.as_str().is_some_and(|s| !s.is_empty()))
    {
        context
            .entry(Value::from("reasoning_strength"))
            .or_insert(effort.clone());
    }
    // The template's output for `messages` (the conversation's by default), bos and eos text
    // stripped where the tokenizer adds those tokens.
    let render =
        |messages: Option<Vec<Value>>, add_generation_prompt: bool| -> Result<Vec<u8>, RenderError> {
            let mut context = context.clone();
            if let Some(messages) = messages {
                context.insert("messages".into(), Value::from(messages));
            }
            if add_generation_prompt {
                context.insert("add_generation_prompt".into(), Value::from(true));
            }
            let out = template
                .render(Value::from(context))
                .map_err(|e| explain(e, &source_text))?;
            let mut out = out.into_bytes();
            let bos = vocab.bos.unwrap_or_default().as_bytes();
            let eos = vocab.eos.unwrap_or_default().as_bytes();
            if vocab.add_bos && out.starts_with(bos) {
                out.drain(..bos.len());
            }
            if vocab.add_eos && out.ends_with(eos) {
                out.truncate(out.len() - eos.len());
            }
            Ok(out)
        };
    let mut text = render(None, add_generation_prompt)?;
    if let Some(last) = continued {
        // The opening of the assistant's turn (what the generation prompt adds), its reasoning
        // markers with the reasoning so far, then its text so far.
        let opened = render(None, true)?;
        let same = text.iter().zip(&opened).take_while(|(a, b)| a == b).count();
        let mut turn = opened[same..].to_vec();
        let reasoning_only =
            !last.reasoning_content.is_empty() && last.content.is_empty() && last.parts.is_empty();
        let probe = |reasoning: &str, content: &str| {
            let mut m = ChatMessage::text("assistant", content);
            m.reasoning_content = reasoning.into();
            let mut with = values.clone();
            with.push(m.to_value());
            render(Some(with), false)
        };
        let (start, end) = reasoning_markers(probe, &text, &source_text);
        if !start.is_empty() {
            if let Some(p) = find(&turn, start.as_bytes()) {
                turn.truncate(p);
            }
            turn.extend_from_slice(start.as_bytes());
            turn.extend_from_slice(last.reasoning_content.as_bytes());
            if !reasoning_only {
                turn.extend_from_slice(end.as_bytes());
            }
        }
        if !reasoning_only {
            turn.extend_from_slice(last.render_content("\n\n").as_bytes());
        }
        text.extend_from_slice(&turn);
    }
    Ok(Prompt {
        text: String::from_utf8_lossy(&text).into_owned(),
        source,
        caps,
        notes,
    })
}

/// The text a template writes before and after an assistant turn's reasoning, as llama.cpp's
/// template analysis finds them for a turn it continues: around the reasoning of a probe turn
/// rendered after the conversation (`prefix`), the opening marker being the tag the reasoning
/// follows (`<think>\n`, not the turn's header); else, for a template that writes `<think>`
/// without printing the reasoning given, `<think>` and `</think>`; else none.
fn reasoning_markers(
    probe: impl Fn(&str, &str) -> Result<Vec<u8>, RenderError>,
    prefix: &[u8],
    source: &str,
) -> (String, String) {
    const REASONING: &str = "REASONING_5e1d";
    const CONTENT: &str = "CONTENT_5e1d";
    if let Ok(out) = probe(REASONING, CONTENT) {
        let same = out.iter().zip(prefix).take_while(|(a, b)| a == b).count();
        let turn = &out[same..];
        if let (Some(r), Some(c)) = (find(turn, REASONING.as_bytes()), find(turn, CONTENT.as_bytes()))
            && r + REASONING.len() <= c
        {
            let before = &turn[..r];
            let tag = before.iter().rposition(|&b| b == b'<').unwrap_or(0);
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            return (text(&before[tag..]), text(&turn[r + REASONING.len()..c]));
        }
    }
    if source.contains("<think>") {
        return ("<think>".into(), "</think>".into());
    }
    (String::new(), String::new())
}

/// Where `needle` first is in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A template llama.cpp takes as given: not empty, and not the name `chatml`.
fn usable(t: Option<&str>) -> Option<&str> {
    t.filter(|t| !t.is_empty() && *t != "chatml")
}

/// The template families llama.cpp 0c1e570 formats with a handler of its own instead of the
/// template's plain output (`common_chat_try_specialized_template`), by the same signs.
pub fn specialized_handler(source: &str) -> Option<&'static str> {
    let has = |s: &str| source.contains(s);
    let family = if has("[SYSTEM_PROMPT]") && has("[TOOL_CALLS]") && has("[ARGS]") && !has("[CALL_ID]") {
        "Ministral 3"
    } else if has("<|channel|>") {
        "GPT-OSS"
    } else if has("<atem:function_calls>") && has("<|eom|>") {
        "Muse Glimmer"
    } else if has(">>>all") && has(">>>${recipient}") {
        "Functionary v3.2"
    } else if has("<|tool_calls_section_begin|>") && has("<|tool_call_begin|>") {
        "Kimi K2"
    } else if has("<|open|>") && has("<|close|>") && has("<|end_of_msg|>") {
        "Kimi K3"
    } else if has("<role>ASSISTANT</role>") && has("<arg_key>") {
        "Ling 3.0"
    } else if has("<|START_TEXT|>") && has("<|START_ACTION|>") {
        "Cohere2 MoE"
    } else if has("<|tool_list_start|>") && has("<|tool_list_end|>") || has("List of tools: [") {
        "LFM2"
    } else if has("<|role_sep|>") && has("<|message_sep|>") && !has("<|function_call|>") {
        "GigaChat 3"
    } else if has("]<]minimax[>[") && has("<tool_call>") && has("<invoke name=") {
        "MiniMax-M3"
    } else if has("dsml_token") && has("DSML") && (has("function_calls") || has("tool_calls")) {
        "DeepSeek V3.2"
    } else if has("'<|tool_call>call:'") {
        "Gemma 4"
    } else if has("Tool usage guidelines:") && has("<function name=\"") && has("<param name=\"") {
        "MiniCPM5"
    } else if has("<tool_call>")
        && has("<function=")
        && has("<parameter=")
        && !has("'<tool_call><function=' ~ tool_call.name ~ '>'")
    {
        "Qwen3-Coder"
    } else {
        return None;
    };
    Some(family)
}

/// llama.cpp's two patches: conditions that make GPT-OSS's and Mistral's templates refuse
/// conversations llama.cpp sends them, made false.
fn patched(template: &str) -> String {
    let mut t = template.to_owned();
    if t.contains("<|channel|>") && t.contains("in message.content or") {
        t = t.replace(
            "{%- if \"<|channel|>analysis<|message|>\" in message.content or \"<|channel|>final<|message|>\" in message.content %}",
            "{%- if false %}",
        );
    }
    if t.contains("[TOOL_CALLS]") && t.contains("if (message['content'] is none or") {
        t = t.replace(
            "{%- if (message['content'] is none or message['content'] == '' or message['content']|length == 0) and (message['tool_calls'] is not defined or message['tool_calls'] is none or message['tool_calls']|length == 0) %}",
            "{%- if false %}",
        );
    }
    t
}

/// Whether a template answers `enable_thinking`: the server turns thinking on by default for a
/// template that reasons, which shows as a generation prompt that differs with the switch by a
/// tag (`<think>…</think>`; printing the switch's value is not reasoning).
fn supports_thinking(env: &minijinja::Environment<'static>, source: &str, now: i64) -> bool {
    if !source.contains("enable_thinking") {
        return false;
    }
    let Ok(template) = compile(env, source) else {
        return false;
    };
    let render = |on: bool| {
        let mut c = Map::new();
        c.insert(
            "messages".into(),
            Value::from(vec![ChatMessage::text("user", "test").to_value()]),
        );
        c.insert("bos_token".into(), Value::from(""));
        c.insert("eos_token".into(), Value::from(""));
        c.insert("enable_thinking".into(), Value::from(on));
        c.insert("date_string".into(), Value::from(time::strftime("%d %b %Y", now)));
        c.insert("add_generation_prompt".into(), Value::from(true));
        template.render(Value::from(c)).ok()
    };
    let (on, off) = (
        render(true).unwrap_or_default(),
        render(false).unwrap_or_default(),
    );
    let same = on.bytes().zip(off.bytes()).take_while(|(a, b)| a == b).count();
    let tag = |s: &str| s.get(same..).is_some_and(|rest| rest.contains(['<', '[']));
    on != off && (tag(&on) || tag(&off))
}

fn c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// A map's value for `key` (undefined when absent).
fn attr(map: &Value, key: &str) -> Value {
    map.get_attr(key).unwrap_or_default()
}

/// A copy of `map` with `key`'s value replaced by `f(old)` (kept in its place).
fn with(map: &Value, key: &str, f: impl FnOnce(Value) -> Value) -> Value {
    let mut out = Map::new();
    let mut f = Some(f);
    for k in map.try_iter().into_iter().flatten() {
        let v = map.get_item(&k).unwrap_or_default();
        // A map's keys are unique: `f` is taken at most once, and no key can make it panic.
        let v = match (k.as_str() == Some(key)).then(|| f.take()).flatten() {
            Some(f) => f(v),
            None => v,
        };
        out.insert(k, v);
    }
    Value::from(out)
}

/// The message with its content as the template takes it: parts joined by new lines for a
/// template that takes only strings, a string made one text part for one that takes only parts.
fn normalized(message: &ChatMessage, caps: &Caps) -> Value {
    let value = message.to_value();
    let only_string = caps.string_content && !caps.typed_content;
    let only_typed = caps.typed_content && !caps.string_content;
    if only_typed && !message.content.is_empty() {
        return with(&value, "content", |c| {
            Value::from(vec![crate::conversation::part(
                "text",
                c.as_str().unwrap_or_default(),
            )])
        });
    }
    if only_typed && message.parts.is_empty() {
        // An empty string is a string too.
        return with(&value, "content", |_| {
            Value::from(vec![crate::conversation::part("text", "")])
        });
    }
    if only_string && message.content.is_empty() && !message.parts.is_empty() {
        let mut text = String::new();
        let mut after_media = false;
        for (kind, part) in &message.parts {
            let newline = match kind.as_str() {
                "text" => {
                    let n = !after_media && !text.is_empty();
                    after_media = false;
                    n
                }
                _ => {
                    after_media = true;
                    false
                }
            };
            if newline {
                text.push('\n');
            }
            text.push_str(part);
        }
        return with(&value, "content", |_| Value::from(text));
    }
    value
}

/// The message with its tool calls' arguments parsed from JSON text, for a template that reads
/// them as objects.
fn arguments_as_objects(message: &Value) -> Result<Value, String> {
    let calls = attr(message, "tool_calls");
    if calls.is_undefined() {
        return Ok(message.clone());
    }
    let mut parsed = Vec::new();
    for call in calls.try_iter().into_iter().flatten() {
        let function = attr(&call, "function");
        let arguments = attr(&function, "arguments");
        let arguments = match arguments.as_str() {
            Some(text) => serde_json::from_str::<Value>(text)
                .map_err(|e| format!("Failed to parse tool call arguments as JSON: {e}"))?,
            None => arguments,
        };
        let function = with(&function, "arguments", |_| arguments);
        parsed.push(with(&call, "function", |_| function));
    }
    Ok(with(message, "tool_calls", |_| Value::from(parsed)))
}
