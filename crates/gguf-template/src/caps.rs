//! What a template can take, found by rendering it for small probe conversations, as llama.cpp
//! 0c1e570 does before it formats a conversation (`common/jinja/caps.cpp`): whether it prints a
//! system message, takes content as a string or as a list of parts, reads tool calls, and reads
//! tool-call arguments as an object. llama.cpp's engine records which values a render *touched*;
//! minijinja cannot, so a value counts as used when the probe's marker text reaches the output
//! (the difference shows only for templates that read a value without ever printing it).

use minijinja::Value;

use crate::conversation::Map;

use crate::Compiled;
use crate::conversation::{ChatMessage, part};

/// A template's capabilities (llama.cpp's `jinja::caps`, the fields that change a prompt).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// A system message is printed (else llama.cpp folds it into the next message).
    pub system_role: bool,
    /// Content given as a string renders.
    pub string_content: bool,
    /// Content given as a list of `{type, text}` parts renders.
    pub typed_content: bool,
    /// Assistant messages' `tool_calls` are read.
    pub tool_calls: bool,
    /// Tool-call arguments are read as an object (else as JSON text).
    pub object_arguments: bool,
}

const STRING_MARKER: &str = "STRING_MARKER";
const TYPED_MARKER: &str = "TYPED_MARKER";
const SYSTEM_MARKER: &str = "System message";

/// Renders `template` for a probe: `messages` and `tools`, empty bos and eos, the generation
/// prompt on. `None` when it fails.
fn probe(template: &Compiled<'_>, messages: Vec<Value>, tools: Vec<Value>) -> Option<String> {
    let mut context = Map::new();
    context.insert("messages".into(), Value::from(messages));
    context.insert("tools".into(), Value::from(tools));
    context.insert("bos_token".into(), Value::from(""));
    context.insert("eos_token".into(), Value::from(""));
    context.insert("add_generation_prompt".into(), Value::from(true));
    template.render(Value::from(context)).ok()
}

fn user(text: &str) -> Value {
    ChatMessage::text("user", text).to_value()
}

/// The tool-call probe: user, assistant calling `tool1` with `arguments`, the tool's answer, an
/// assistant turn, user.
fn tool_conversation(arguments: Value) -> (Vec<Value>, Vec<Value>) {
    // The call with `arguments` as given (an object or JSON text).
    let mut function = Map::new();
    function.insert("name".into(), Value::from("tool1"));
    function.insert("arguments".into(), arguments);
    let mut c = Map::new();
    c.insert("id".into(), Value::from("call00001"));
    c.insert("type".into(), Value::from("function"));
    c.insert("function".into(), Value::from(function));
    let mut assistant = Map::new();
    assistant.insert("role".into(), Value::from("assistant"));
    assistant.insert("content".into(), Value::from(""));
    assistant.insert("tool_calls".into(), Value::from(vec![Value::from(c)]));
    let tool = ChatMessage {
        role: "tool".into(),
        content: "Tool response".into(),
        tool_call_id: "call00001".into(),
        ..ChatMessage::default()
    };
    let messages = vec![
        user("User message"),
        Value::from(assistant),
        tool.to_value(),
        ChatMessage::text("assistant", "The tool response was 'tool response'").to_value(),
        user("User message"),
    ];
    let tools: Value = serde_json::from_str(
        r#"[{"name":"tool","type":"function","function":{"name":"tool1","description":"Tool description","parameters":{"type":"object","properties":{"arg":{"type":"string","description":"Arg description"}},"required":["arg"]}}}]"#,
    )
    .unwrap_or_default();
    (
        messages,
        tools.try_iter().map(Iterator::collect).unwrap_or_default(),
    )
}

/// The capabilities of `template` (compiled in the environment a render uses).
pub fn caps(template: &Compiled<'_>, source: &str) -> Caps {
    let string = probe(template, vec![user(STRING_MARKER)], Vec::new());
    let mut parts = Map::new();
    parts.insert("role".into(), Value::from("user"));
    parts.insert("content".into(), Value::from(vec![part("text", TYPED_MARKER)]));
    let typed = probe(template, vec![Value::from(parts)], Vec::new());
    // A list printed whole (its repr) is not a list read part by part.
    let typed_content = typed.is_some_and(|out| {
        out.contains(TYPED_MARKER) && !out.contains("\"type\"") && !out.contains("'type'")
    });
    let system = probe(
        template,
        vec![
            ChatMessage::text("system", SYSTEM_MARKER).to_value(),
            user("User message"),
        ],
        Vec::new(),
    );
    let reads_tool_calls = source.contains("tool_calls");
    let object_args: Value = serde_json::from_str(r#"{"arg":"value"}"#).unwrap_or_default();
    let (messages, tools) = tool_conversation(object_args);
    let with_object = probe(template, messages, tools);
    let object_arguments = reads_tool_calls && with_object.as_ref().is_some_and(|out| out.contains("value"));
    let tool_calls = reads_tool_calls
        && (with_object.is_some() || {
            let (messages, tools) = tool_conversation(Value::from(r#"{"arg": "value"}"#));
            probe(template, messages, tools).is_some()
        });
    Caps {
        system_role: system.is_some_and(|out| out.contains(SYSTEM_MARKER)),
        string_content: string.is_some(),
        typed_content,
        tool_calls,
        object_arguments,
    }
}
