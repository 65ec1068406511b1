//! A conversation as llama-server takes it: OpenAI's chat messages (`role`, `content` as a string
//! or as text parts, `tool_calls`, `reasoning_content`, `name`, `tool_call_id`) and a tools list,
//! read as llama.cpp 0c1e570 reads them (`common_chat_msgs_parse_oaicompat`,
//! `common_chat_tools_parse_oaicompat`), with its refusals, and turned back into the messages a
//! template sees (`common_chat_msg::to_json_oaicompat`), keys in llama.cpp's order.

use minijinja::Value;
use minijinja::value::ValueKind;

/// A map that keeps its keys in the order they were put in, as llama.cpp's JSON does.
pub(crate) type Map = indexmap::IndexMap<Value, Value>;

/// A boolean value, `None` for any other kind.
pub(crate) fn as_bool(v: &Value) -> Option<bool> {
    (v.kind() == ValueKind::Bool).then(|| v.is_true())
}

/// One message, as llama.cpp keeps it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatMessage {
    /// `system`, `user`, `assistant`, `tool`, `developer`, or any other name.
    pub role: String,
    /// The text, when `content` was a string (`""` when it was null or absent).
    pub content: String,
    /// The parts, when `content` was a list: `(type, text)` with type `text` or `media_marker`.
    pub parts: Vec<(String, String)>,
    /// The tool calls of an assistant turn.
    pub tool_calls: Vec<ToolCall>,
    /// The reasoning of an assistant turn (`reasoning_content`).
    pub reasoning_content: String,
    /// A tool's name (`name`).
    pub name: String,
    /// The call a tool's answer answers (`tool_call_id`).
    pub tool_call_id: String,
}

/// One call of a tool.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCall {
    /// The function called.
    pub name: String,
    /// Its arguments as JSON text (an object given is kept as its text).
    pub arguments: String,
    /// The call's id, `""` when none was given.
    pub id: String,
}

/// One tool the model may call.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The function's name.
    pub name: String,
    /// What it does (`""` when not given).
    pub description: String,
    /// Its JSON Schema, keys in the order given (`{}` when not given).
    pub parameters: Value,
}

/// A conversation: its messages and the tools offered.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Conversation {
    /// The messages, in order.
    pub messages: Vec<ChatMessage>,
    /// The tools offered (none: the template gets no `tools`).
    pub tools: Vec<Tool>,
}

/// What a request asks besides the conversation, when it was given as llama-server's request
/// body (an object with `messages`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestFields {
    /// `add_generation_prompt`, when given.
    pub add_generation_prompt: Option<bool>,
    /// `chat_template_kwargs`, in the order given.
    pub kwargs: Vec<(String, Value)>,
}

impl ChatMessage {
    /// A message with a role and text.
    pub fn text(role: &str, content: &str) -> ChatMessage {
        ChatMessage {
            role: role.into(),
            content: content.into(),
            ..ChatMessage::default()
        }
    }

    /// The message as the template sees it (`to_json_oaicompat`, parts kept as a list).
    pub(crate) fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), Value::from(self.role.as_str()));
        let content = if !self.content.is_empty() || self.parts.is_empty() {
            Value::from(self.content.as_str())
        } else {
            Value::from(
                self.parts
                    .iter()
                    .map(|(kind, text)| part(kind, text))
                    .collect::<Vec<_>>(),
            )
        };
        m.insert("content".into(), content);
        if !self.reasoning_content.is_empty() {
            m.insert(
                "reasoning_content".into(),
                Value::from(self.reasoning_content.as_str()),
            );
        }
        if !self.name.is_empty() {
            m.insert("name".into(), Value::from(self.name.as_str()));
        }
        if !self.tool_call_id.is_empty() {
            m.insert("tool_call_id".into(), Value::from(self.tool_call_id.as_str()));
        }
        if !self.tool_calls.is_empty() {
            let calls: Vec<Value> = self.tool_calls.iter().map(ToolCall::to_value).collect();
            m.insert("tool_calls".into(), Value::from(calls));
        }
        Value::from(m)
    }

    /// The text of the content: the string, or the text parts joined by `delimiter`
    /// (`render_content`).
    pub(crate) fn render_content(&self, delimiter: &str) -> String {
        if !self.content.is_empty() {
            return self.content.clone();
        }
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter(|(kind, _)| kind == "text")
            .map(|(_, text)| text.as_str())
            .collect();
        texts.join(delimiter)
    }
}

impl ToolCall {
    fn to_value(&self) -> Value {
        let mut function = Map::new();
        function.insert("name".into(), Value::from(self.name.as_str()));
        function.insert("arguments".into(), Value::from(self.arguments.as_str()));
        let mut call = Map::new();
        call.insert("type".into(), Value::from("function"));
        call.insert("function".into(), Value::from(function));
        if !self.id.is_empty() {
            call.insert("id".into(), Value::from(self.id.as_str()));
        }
        Value::from(call)
    }
}

impl Tool {
    /// The tool as the template sees it: `{type, function: {name, description, parameters}}`.
    pub(crate) fn to_value(&self) -> Value {
        let mut function = Map::new();
        function.insert("name".into(), Value::from(self.name.as_str()));
        function.insert("description".into(), Value::from(self.description.as_str()));
        function.insert("parameters".into(), self.parameters.clone());
        let mut tool = Map::new();
        tool.insert("type".into(), Value::from("function"));
        tool.insert("function".into(), Value::from(function));
        Value::from(tool)
    }
}

/// A content part `{type, text}`.
pub(crate) fn part(kind: &str, text: &str) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), Value::from(kind));
    m.insert("text".into(), Value::from(text));
    Value::from(m)
}

/// Why a conversation was refused: llama.cpp's reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationError(pub String);

impl std::fmt::Display for ConversationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConversationError {}

fn refuse<T>(message: impl Into<String>) -> Result<T, ConversationError> {
    Err(ConversationError(message.into()))
}

impl Conversation {
    /// The conversation the preview renders by default: a system prompt, a user turn, an
    /// assistant answer and a second user turn — enough to show every part of a chat format.
    pub fn sample() -> Conversation {
        Conversation {
            messages: crate::SAMPLE_CONVERSATION
                .iter()
                .map(|m| ChatMessage::text(m.role, m.content))
                .collect(),
            tools: Vec::new(),
        }
    }

    /// Reads a conversation from JSON: a list of messages, or llama-server's request body (an
    /// object with `messages`, and optionally `tools`, `add_generation_prompt` and
    /// `chat_template_kwargs`).
    pub fn from_json(text: &str) -> Result<(Conversation, RequestFields), ConversationError> {
        match serde_json::from_str(text) {
            Ok(value) => Conversation::from_value(&value),
            Err(e) => refuse(format!("not JSON: {e}")),
        }
    }

    /// [`Conversation::from_json`] of JSON already read (keys in their order: a [`Value`] read
    /// with serde).
    pub fn from_value(value: &Value) -> Result<(Conversation, RequestFields), ConversationError> {
        let value = value.clone();
        let (messages, tools, fields) = if is_map(&value) {
            let messages =
                get(&value, "messages").ok_or_else(|| ConversationError("'messages' is required".into()))?;
            let fields = RequestFields {
                add_generation_prompt: match get(&value, "add_generation_prompt") {
                    None => None,
                    Some(v) if v.is_none() => None,
                    Some(v) => Some(as_bool(&v).ok_or_else(|| {
                        ConversationError("'add_generation_prompt' must be true or false".into())
                    })?),
                },
                kwargs: match get(&value, "chat_template_kwargs") {
                    None => Vec::new(),
                    Some(k) => kwargs(&k)?,
                },
            };
            (messages, get(&value, "tools"), fields)
        } else {
            (value, None, RequestFields::default())
        };
        let conversation = Conversation {
            messages: parse_messages(&messages)?,
            tools: match tools {
                Some(t) if !t.is_none() => parse_tools(&t)?,
                _ => Vec::new(),
            },
        };
        Ok((conversation, fields))
    }
}

/// Template kwargs from JSON text: an object (`{"enable_thinking": false}`).
pub fn kwargs_from_json(text: &str) -> Result<Vec<(String, Value)>, ConversationError> {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return refuse(format!("not JSON: {e}")),
    };
    kwargs(&value)
}

/// Template kwargs from JSON already read: an object.
pub fn kwargs(value: &Value) -> Result<Vec<(String, Value)>, ConversationError> {
    if !is_map(value) {
        return refuse("chat_template_kwargs must be an object");
    }
    let mut out = Vec::new();
    for key in value.try_iter().into_iter().flatten() {
        let Some(name) = key.as_str() else { continue };
        let v = value.get_item(&key).unwrap_or_default();
        out.push((name.to_owned(), v));
    }
    Ok(out)
}

fn is_map(v: &Value) -> bool {
    v.kind() == ValueKind::Map
}

fn is_seq(v: &Value) -> bool {
    v.kind() == ValueKind::Seq
}

/// The value of `key` in a map, `None` when absent (a JSON null is `Some(none)`).
fn get(map: &Value, key: &str) -> Option<Value> {
    map.get_attr(key).ok().filter(|v| !v.is_undefined())
}

fn string(v: &Value, what: &str) -> Result<String, ConversationError> {
    match v.as_str() {
        Some(s) => Ok(s.to_owned()),
        None => refuse(format!("{what} must be a string, got {v}")),
    }
}

/// Compact JSON text of a value, keys in their order (`dump()`).
pub(crate) fn dump(v: &Value) -> String {
    crate::json::to_json(v, None, ",", ":", false)
}

fn parse_messages(messages: &Value) -> Result<Vec<ChatMessage>, ConversationError> {
    let failed = |e: ConversationError| ConversationError(format!("Failed to parse messages: {}", e.0));
    if !is_seq(messages) {
        return refuse("Expected 'messages' to be an array");
    }
    let mut out = Vec::new();
    for message in messages.try_iter().into_iter().flatten() {
        out.push(parse_message(&message).map_err(failed)?);
    }
    Ok(out)
}

fn parse_message(message: &Value) -> Result<ChatMessage, ConversationError> {
    if !is_map(message) {
        return refuse(format!(
            "Expected 'message' to be an object, got {}",
            dump(message)
        ));
    }
    let Some(role) = get(message, "role") else {
        return refuse(format!("Missing 'role' in message: {}", dump(message)));
    };
    let mut msg = ChatMessage {
        role: string(&role, "'role'")?,
        ..ChatMessage::default()
    };
    let content = get(message, "content");
    let tool_calls = get(message, "tool_calls");
    if let Some(content) = &content {
        if let Some(s) = content.as_str() {
            msg.content = s.to_owned();
        } else if is_seq(content) {
            for p in content.try_iter().into_iter().flatten() {
                let Some(kind) = get(&p, "type") else {
                    return refuse(format!("Missing content part type: {}", dump(&p)));
                };
                let kind = kind.as_str().unwrap_or_default().to_owned();
                if kind != "text" && kind != "media_marker" {
                    return refuse(format!("Unsupported content part type: \"{kind}\""));
                }
                let text = get(&p, "text").unwrap_or_default();
                msg.parts.push((kind, string(&text, "a content part's 'text'")?));
            }
        } else if !content.is_none() {
            return refuse(format!(
                "Invalid 'content' type: expected string or array, got {}",
                dump(content)
            ));
        }
    }
    if let Some(calls) = &tool_calls {
        for call in calls.try_iter().into_iter().flatten() {
            match get(&call, "type") {
                None => return refuse(format!("Missing tool call type: {}", dump(&call))),
                Some(t) if t.as_str() != Some("function") => {
                    return refuse(format!("Unsupported tool call type: {}", dump(&call)));
                }
                Some(_) => {}
            }
            let Some(function) = get(&call, "function") else {
                return refuse(format!("Missing tool call function: {}", dump(&call)));
            };
            let Some(name) = get(&function, "name") else {
                return refuse(format!("Missing tool call name: {}", dump(&call)));
            };
            let arguments = get(&function, "arguments").unwrap_or_default();
            msg.tool_calls.push(ToolCall {
                name: string(&name, "a tool call's name")?,
                arguments: arguments.as_str().map_or_else(|| dump(&arguments), str::to_owned),
                id: match get(&call, "id") {
                    Some(id) => string(&id, "a tool call's id")?,
                    None => String::new(),
                },
            });
        }
    }
    if content.is_none() && tool_calls.is_none() {
        return refuse("Expected 'content' or 'tool_calls'");
    }
    if let Some(r) = get(message, "reasoning_content") {
        msg.reasoning_content = string(&r, "'reasoning_content'")?;
    }
    if let Some(n) = get(message, "name") {
        msg.name = string(&n, "'name'")?;
    }
    if let Some(id) = get(message, "tool_call_id") {
        msg.tool_call_id = string(&id, "'tool_call_id'")?;
    }
    Ok(msg)
}

fn parse_tools(tools: &Value) -> Result<Vec<Tool>, ConversationError> {
    let failed = |e: ConversationError| ConversationError(format!("Failed to parse tools: {}", e.0));
    if !is_seq(tools) {
        return refuse(format!("Expected 'tools' to be an array, got {}", dump(tools))).map_err(failed);
    }
    let mut out = Vec::new();
    for tool in tools.try_iter().into_iter().flatten() {
        let one = || -> Result<Tool, ConversationError> {
            match get(&tool, "type") {
                None => return refuse(format!("Missing tool type: {}", dump(&tool))),
                Some(t) if t.as_str() != Some("function") => {
                    return refuse(format!("Unsupported tool type: {}", dump(&tool)));
                }
                Some(_) => {}
            }
            let Some(function) = get(&tool, "function") else {
                return refuse(format!("Missing tool function: {}", dump(&tool)));
            };
            let Some(name) = get(&function, "name") else {
                return refuse(format!("Missing tool name: {}", dump(&tool)));
            };
            Ok(Tool {
                name: string(&name, "a tool's name")?,
                description: match get(&function, "description") {
                    Some(d) => string(&d, "a tool's description")?,
                    None => String::new(),
                },
                parameters: get(&function, "parameters").unwrap_or_else(|| Value::from(Map::new())),
            })
        };
        out.push(one().map_err(failed)?);
    }
    Ok(out)
}
