//! `+` and `~` as llama.cpp 0c1e570's Jinja engine computes them (`common/jinja/runtime.cpp`,
//! `binary_expression`), which minijinja's differ from where real templates go: a string joined
//! with an undefined or none value is the string (a tool without `name` still renders), a string
//! plus a number is text (`'x' + 1` is `x1`), and `~` on two numbers is refused.
//!
//! minijinja fixes its operators, so a template is compiled as usual and its `Add` and
//! `StringConcat` instructions are then swapped for calls of two functions of the environment
//! (minijinja's `unstable_machinery`, pinned by the lock file): one instruction for one, so jumps,
//! lines and spans stay as they were.

use std::collections::BTreeMap;

use minijinja::machinery::{Instruction, Instructions};
use minijinja::value::{Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind, State};

/// The function `+` becomes.
pub const ADD: &str = "llama_cpp_add";
/// The function `~` becomes.
pub const CONCAT: &str = "llama_cpp_concat";

/// Registers the two operators in `env`.
pub fn register(env: &mut Environment<'_>) {
    env.add_function(ADD, |state: &State<'_, '_>, a: Value, b: Value| {
        binary(state, "+", &a, &b)
    });
    env.add_function(CONCAT, |state: &State<'_, '_>, a: Value, b: Value| {
        binary(state, "~", &a, &b)
    });
}

/// `from` with its `+` and `~` calling the functions above.
pub fn rewritten<'s>(from: &Instructions<'s>) -> Instructions<'s> {
    let mut to = Instructions::new(from.name(), from.source());
    let mut idx = 0;
    while let Some(instruction) = from.get(idx).cloned() {
        let instruction = match instruction {
            Instruction::Add => Instruction::CallFunction(ADD, Some(2)),
            Instruction::StringConcat => Instruction::CallFunction(CONCAT, Some(2)),
            other => other,
        };
        match (from.get_span(idx), from.get_line(idx)) {
            (Some(span), _) => to.add_with_span(instruction, span),
            (None, Some(line)) => to.add_with_line(instruction, u16::try_from(line).unwrap_or(u16::MAX)),
            (None, None) => to.add(instruction),
        };
        idx += 1;
    }
    to
}

/// Every block's instructions rewritten.
pub fn rewritten_blocks<'s>(
    blocks: &BTreeMap<&'s str, Instructions<'s>>,
) -> BTreeMap<&'s str, Instructions<'s>> {
    blocks.iter().map(|(name, i)| (*name, rewritten(i))).collect()
}

fn null(v: &Value) -> bool {
    v.is_undefined() || v.is_none()
}

/// llama.cpp's `binary_expression` for `+` and `~`.
fn binary(state: &State<'_, '_>, op: &str, a: &Value, b: &Value) -> Result<Value, Error> {
    let string = |v: &Value| v.kind() == ValueKind::String;
    let refused = |what: String| Err(Error::new(ErrorKind::InvalidOperation, what));
    if null(a) || null(b) {
        // A missing value next to a string is empty text; anything else is refused.
        if (null(a) && string(b)) || (null(b) && string(a)) {
            let text = format!(
                "{}{}",
                a.as_str().unwrap_or_default(),
                b.as_str().unwrap_or_default()
            );
            return charged(state, text);
        }
        let which = if a.is_undefined() || b.is_undefined() {
            "undefined"
        } else {
            "null"
        };
        return refused(format!("cannot use {op} on {which} values (as llama.cpp)"));
    }
    if a.is_number() && b.is_number() {
        if op == "~" {
            return refused("cannot use ~ on two numbers (as llama.cpp)".into());
        }
        let (x, y) = (as_f64(a), as_f64(b));
        // llama.cpp adds in double precision; a sum of two integers is truncated back.
        return Ok(if a.is_integer() && b.is_integer() {
            Value::from((x + y) as i64)
        } else {
            Value::from(x + y)
        });
    }
    let list = |v: &Value| matches!(v.kind(), ValueKind::Seq | ValueKind::Iterable);
    if op == "+" && list(a) && list(b) {
        // Paid for before it is built (`[0] * 100000000` is one lazy value), or item by item.
        if let (Some(x), Some(y)) = (a.len(), b.len()) {
            state.consume_fuel((x + y) as u64)?;
        }
        let mut items = Vec::new();
        for item in a.try_iter()?.chain(b.try_iter()?) {
            if a.len().is_none() || b.len().is_none() {
                state.consume_fuel(1)?;
            }
            items.push(item);
        }
        return Ok(Value::from(items));
    }
    if string(a) || string(b) {
        let (Some(x), Some(y)) = (text(a), text(b)) else {
            return refused(format!(
                "cannot use {op} on {} and {} (as llama.cpp)",
                a.kind(),
                b.kind()
            ));
        };
        return charged(state, x + &y);
    }
    refused(format!(
        "cannot use {op} on {} and {} (as llama.cpp)",
        a.kind(),
        b.kind()
    ))
}

/// A new string, its bytes charged as the engine charges data (both parts exist already: the
/// join at most doubles what they hold).
fn charged(state: &State<'_, '_>, text: String) -> Result<Value, Error> {
    state.consume_fuel(text.len() as u64 / 64)?;
    Ok(Value::from(text))
}

fn as_f64(v: &Value) -> f64 {
    f64::try_from(v.clone()).unwrap_or(0.0)
}

/// A value as llama.cpp's `as_string` writes it, for the kinds it can: strings, numbers (a float
/// as `std::to_string` writes it, trailing zeros dropped but one), booleans as Python's.
fn text(v: &Value) -> Option<String> {
    match v.kind() {
        ValueKind::String => v.as_str().map(str::to_owned),
        ValueKind::Bool => Some(if v.is_true() { "True" } else { "False" }.into()),
        ValueKind::Number if v.is_integer() => Some(v.to_string()),
        ValueKind::Number => {
            let s = format!("{:.6}", as_f64(v));
            let s = s.trim_end_matches('0');
            Some(if s.ends_with('.') {
                format!("{s}0")
            } else {
                s.to_owned()
            })
        }
        _ => None,
    }
}
