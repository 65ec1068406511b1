//! Renders a GGUF model's chat template for a sample conversation, the way inference servers do
//! (Jinja with `trim_blocks` and `lstrip_blocks`, Python's string and dict methods, `raise_exception`,
//! loop controls), in a sandbox: a template is untrusted code.
//!
//! The engine is [minijinja](https://docs.rs/minijinja): it has no Python objects to reach through
//! (`__class__`, `__globals__` are just undefined attributes), and this crate gives it no loader
//! (no filesystem: `include` and `import` find nothing) and no network. Every render runs on a fuel
//! budget — instructions plus the bytes it creates — and a recursion limit, so an endless loop, a
//! runaway macro or a memory bomb stops with an error instead of hanging or exhausting memory;
//! callers add a time limit ([`TIME_LIMIT`]) for the few operations the fuel does not meter.
//!
//! Used by `ggufscope template --render` and, compiled to its own wasm module
//! (`crates/gguf-wasm`, feature `template`), by the browser's preview, which loads it only when asked.

mod caps;
mod compare;
mod conversation;
mod fuel;
mod json;
mod lint;
mod ops;
mod prompt;
mod tags;
mod time;

pub use caps::Caps;
pub use compare::{compare_prompts, compare_upstream_prompts};
pub use conversation::{
    ChatMessage, Conversation, ConversationError, RequestFields, Tool, ToolCall, kwargs, kwargs_from_json,
};
pub use lint::{TemplateFinding, lint, lint_within, template_findings};
pub use minijinja::Value;
pub use prompt::{
    CHATML, Prompt, Request, Source, Templates, Vocab, apply, chat_tokens, specialized_handler,
};
pub use tags::MAX_TAG_TOKENS;
pub use time::strftime;

use std::collections::BTreeMap;

use minijinja::machinery::{self, Instructions};
use minijinja::syntax::SyntaxConfig;
use minijinja::value::ValueKind;
use minijinja::{AutoEscape, Environment, Error, ErrorKind, Output, State, context, escape_formatter};

/// Fuel per render: one unit per instruction, one per 64 bytes of data created (so at most about
/// 64 MB), `join` and `format` charged before they build their result (`fuel`). The chat templates among the fixtures take under 200 for the sample conversation; an
/// endless loop stops after a few dozen milliseconds natively.
pub const FUEL: u64 = 1_000_000;

/// How long a render may run, enforced by the caller (the CLI waits for it on another thread; the
/// page terminates the preview's worker): a few operations walk a lazily repeated sequence of up
/// to 10^8 items (`1 in [0] * 100000000`) without charging fuel item by item.
pub const TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Nesting depth (of calls, loops and blocks, with macros counting more) beyond which a render
/// stops. Low enough for the 1 MiB stack of a wasm module.
pub const RECURSION_LIMIT: usize = 100;

/// One message of a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message<'a> {
    /// `"system"`, `"user"` or `"assistant"`.
    pub role: &'a str,
    /// What was said.
    pub content: &'a str,
}

/// The conversation the preview renders: a system prompt, a user turn, an assistant answer and a
/// second user turn — enough to show every part of a chat format.
pub const SAMPLE_CONVERSATION: [Message<'static>; 4] = [
    Message {
        role: "system",
        content: "You are a helpful assistant.",
    },
    Message {
        role: "user",
        content: "What is a GGUF file?",
    },
    Message {
        role: "assistant",
        content: "A single file holding a model's weights and metadata.",
    },
    Message {
        role: "user",
        content: "How do I look inside one?",
    },
];

/// What a render needs besides the messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options<'a> {
    /// The text of the file's bos token (`bos_token` in the template), `""` when it has none.
    pub bos_token: &'a str,
    /// The text of the file's eos token (`eos_token`).
    pub eos_token: &'a str,
    /// Whether to end with the start of the assistant's turn, as a server does before generating.
    pub add_generation_prompt: bool,
    /// When `strftime_now` says it is, in seconds since 1970 (UTC).
    pub now: i64,
}

/// Why a template did not render: the engine's message and the template line it was at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError {
    /// What went wrong, e.g. `syntax error: unexpected end of input, expected end of block`.
    pub message: String,
    /// The line (from 1) in the template, when the engine knows it.
    pub line: Option<usize>,
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for RenderError {}

/// Renders `template` for `messages` in the sandbox.
pub fn render(
    template: &str,
    messages: &[Message<'_>],
    options: &Options<'_>,
) -> Result<String, RenderError> {
    let env = environment(options.now);
    let compiled = compile(&env, template)?;
    let messages: Vec<Value> = messages
        .iter()
        .map(|m| context! { role => m.role, content => m.content })
        .collect();
    let context = context! {
        messages,
        bos_token => options.bos_token,
        eos_token => options.eos_token,
        add_generation_prompt => options.add_generation_prompt,
    };
    compiled.render(context).map_err(|e| explain(e, template))
}

/// A template compiled for rendering as llama.cpp renders it: minijinja's program with `+` and
/// `~` as llama.cpp computes them ([`ops`]).
pub(crate) struct Compiled<'e> {
    env: &'e Environment<'static>,
    instructions: Instructions<'e>,
    blocks: BTreeMap<&'e str, Instructions<'e>>,
    auto_escape: AutoEscape,
}

impl Compiled<'_> {
    /// The template's output for `context`.
    pub(crate) fn render(&self, context: Value) -> Result<String, Error> {
        let mut out = String::new();
        machinery::eval(
            self.env,
            &self.instructions,
            context,
            &self.blocks,
            &mut machinery::make_string_output(&mut out),
            self.auto_escape.clone(),
        )?;
        Ok(out)
    }
}

/// `template` compiled in `env`, once its tags are measured.
pub(crate) fn compile<'e>(
    env: &'e Environment<'static>,
    template: &'e str,
) -> Result<Compiled<'e>, RenderError> {
    if let Some((line, tokens)) = tags::oversized_tag(template) {
        return Err(RenderError {
            message: format!(
                "stopped: a tag holds {tokens} tokens, more than the {MAX_TAG_TOKENS} the engine can nest safely"
            ),
            line: Some(line),
        });
    }
    let compiled = env
        .template_from_str(template)
        .map_err(|e| explain(e, template))?;
    let program = machinery::get_compiled_template(&compiled);
    Ok(Compiled {
        env,
        instructions: ops::rewritten(&program.instructions),
        blocks: ops::rewritten_blocks(&program.blocks),
        auto_escape: program.initial_auto_escape.clone(),
    })
}

/// An environment configured as llama.cpp's Jinja engine renders chat templates (itself following
/// Hugging Face's `apply_chat_template`): blocks trimmed, Python's string methods with C's
/// whitespace, `raise_exception`, `strftime_now` at `now`, llama.cpp's `tojson`; plus the bounds.
pub(crate) fn environment(now: i64) -> Environment<'static> {
    let mut env = Environment::new();
    let syntax = SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .build()
        .unwrap_or_default();
    env.set_syntax(syntax);
    env.set_unknown_method_callback(python_method);
    env.add_function("raise_exception", raise_exception);
    env.add_function("strftime_now", move |format: &str| time::strftime(format, now));
    env.add_filter("tojson", json::tojson_filter);
    env.add_filter("trim", trim);
    ops::register(&mut env);
    env.add_filter("join", fuel::join);
    env.add_filter("format", fuel::format);
    env.set_fuel(Some(FUEL));
    env.set_formatter(print_counting_items);
    env.set_recursion_limit(RECURSION_LIMIT);
    env.set_debug(true); // keeps the span of an error, to quote what was undefined
    env
}

/// Prints a value, first charging a unit of fuel per item of a sequence or map: the engine walks
/// one entirely before charging for its text, and `[0] * 100000000` is a single instruction.
fn print_counting_items(out: &mut Output<'_>, state: &mut State<'_, '_>, value: &Value) -> Result<(), Error> {
    if matches!(
        value.kind(),
        ValueKind::Seq | ValueKind::Iterable | ValueKind::Map
    ) {
        state.consume_fuel(value.len().unwrap_or(0) as u64)?;
    }
    escape_formatter(out, state, value)
}

/// C's `isspace`, which llama.cpp's `strip` and `trim` remove (not Unicode's spaces).
fn c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// The `trim` filter as llama.cpp's: C's whitespace, or the characters given.
fn trim(s: &str, chars: Option<&str>) -> String {
    match chars {
        Some(set) => s.trim_matches(|c| set.contains(c)).to_owned(),
        None => s.trim_matches(c_space).to_owned(),
    }
}

/// Python's methods (minijinja-contrib's), with `strip`, `lstrip` and `rstrip` removing C's
/// whitespace as llama.cpp's do.
fn python_method(
    state: &mut State<'_, '_>,
    value: &Value,
    method: &str,
    args: &[Value],
) -> Result<Value, Error> {
    if let (Some(s), "strip" | "lstrip" | "rstrip", [] | [_]) = (value.as_str(), method, args) {
        let set = args.first().and_then(Value::as_str);
        let matches = |c: char| set.map_or_else(|| c_space(c), |set| set.contains(c));
        let stripped = match method {
            "strip" => s.trim_matches(matches),
            "lstrip" => s.trim_start_matches(matches),
            _ => s.trim_end_matches(matches),
        };
        return Ok(Value::from(stripped));
    }
    if value.is_undefined() || value.is_none() {
        if let Some(empty) = method_of_nothing(value.is_none(), method, args) {
            return Ok(empty);
        }
    }
    minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args)
}

/// What llama.cpp's methods of an undefined value (or of none) give: empty values of the kind
/// each would give (`tool.parameter_definitions.items()` on a tool without them is no items).
fn method_of_nothing(none: bool, method: &str, args: &[Value]) -> Option<Value> {
    let text = || Some(Value::from(""));
    let list = || Some(Value::from(Vec::<Value>::new()));
    match (none, method) {
        (_, "items" | "map" | "reject" | "rejectattr" | "select" | "selectattr" | "unique") => list(),
        (_, "default") => Some(args.first().cloned().unwrap_or_default()),
        (true, "string" | "safe") => Some(Value::from("None")),
        (true, _) => None,
        (false, "list" | "reverse" | "sort") => list(),
        (
            false,
            "capitalize" | "join" | "lower" | "replace" | "safe" | "string" | "strip" | "title" | "truncate"
            | "upper",
        ) => text(),
        (false, "length" | "sum" | "wordcount") => Some(Value::from(0)),
        (false, "first" | "last" | "max" | "min") => Some(Value::UNDEFINED),
        (false, _) => None,
    }
}

/// Templates call `raise_exception("…")` to refuse a conversation they cannot format.
fn raise_exception(message: String) -> Result<Value, Error> {
    Err(Error::new(
        ErrorKind::InvalidOperation,
        format!("the template raised an exception: {message}"),
    ))
}

/// The engine's error as a message and a line, saying which bound stopped the render, and what
/// was undefined (object internals such as `__class__` do not exist in the sandbox).
pub(crate) fn explain(e: Error, template: &str) -> RenderError {
    let detail = e.detail().map(|d| format!(" ({d})")).unwrap_or_default();
    let message = match e.kind() {
        ErrorKind::OutOfFuel => format!(
            "stopped: the template used up its fuel ({FUEL} units of instructions and data), as an endless loop would{detail}"
        ),
        _ if e.detail().is_some_and(|d| d.contains("recursion")) => {
            format!(
                "stopped: the template nests too deeply{detail}; a render may nest {RECURSION_LIMIT} levels"
            )
        }
        ErrorKind::UndefinedError => {
            let code = e.range().and_then(|r| template.get(r)).unwrap_or_default();
            let shown: String = code.chars().take(80).collect();
            let internals = if code.contains("__") {
                ": Python object internals do not exist in this sandbox"
            } else {
                ""
            };
            format!("undefined value: `{shown}` cannot be used here{internals}")
        }
        _ => e
            .detail()
            .map_or_else(|| e.kind().to_string(), |d| format!("{}: {d}", e.kind())),
    };
    RenderError {
        message,
        line: e.line(),
    }
}
