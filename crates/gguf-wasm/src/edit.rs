//! The edit module: `gguf-core`'s metadata edits, for `edit(file, edits)` (web/edit.js, run in a
//! worker): a decoded header edited and written anew.
//!
//! A module of its own, so that the viewer's module (held under 100 KB gzipped) does not carry
//! the header writer and the edits' value parser.
//!
//! A [`GgufEditor`] takes a file's decoded [`GgufSession`] (fed where its `nextRead()` says, or
//! from the header bytes the viewer read; tensor data is never asked for), then `apply(edits)`
//! turns the edits — plain objects `{set, value, type?}` and `{delete}` — into
//! `gguf_core::edit::Edit`s, applies them with `gguf_core::edit::apply` and gives the new
//! header's bytes with their zero padding. The caller puts the input's data section after them,
//! reads the result's header into a second session, and `verify` checks it against what was
//! applied. Every rule (types, value ranges, refusals, the writer) is the core's: values cross as
//! the text the core's `parse_value` reads, as `ggufscope edit --set` gives it.

use gguf_core::edit::{self, Edit, EditError, EditErrorKind, Edited, NewValue, TypeSpec, ValueError};
use gguf_core::validate::Subject;
use gguf_core::{Header, Value};
use js_sys::{Array, BigInt, JsString, Reflect, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::js::to_js;
use crate::session::GgufSession;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** A value type as the JSON report names it: `UINT8` … `FLOAT64`, `BOOL`, `STRING` (or the short `u8` … `f64`, `bool`, `str`; `arr[u32]`). */
export type ValueTypeName = string;
/** One edit: set a key's value (in `type`, else in the key's own type; a missing key is added only with a type), or delete a key. */
export type EditObject =
  | { set: string; value: number | bigint | boolean | string | (number | bigint | boolean | string)[]; type?: ValueTypeName | { type: "ARRAY"; element_type: ValueTypeName }; element_type?: ValueTypeName }
  | { delete: string };
/** One change made: `ggufscope edit --json`'s `changes[]` (values as the report's metadata values; u64 as BigInt). */
export interface Change { key: string; action: "set" | "add" | "delete"; type: string; old: unknown; new: unknown }
/** The new header: its bytes with their zero padding (`newDataOffset` bytes, or fewer for a file that ends before its data offset), the headers' sizes (before padding), where the data section was and will be, and the files' sizes. */
export interface EditResult {
  header: Uint8Array; oldHeaderSize: number; headerSize: number; oldDataOffset: number; newDataOffset: number;
  oldFileSize: number; fileSize: number; changes: Change[];
}
/** What `check(edits)` finds: every refused edit by its index, the findings the result would have that the input has not, and the indices of the edits that set a value to what it already is. */
export interface CheckResult {
  refusals: (EditError & { index: number })[];
  findings: { code: string; severity: "info" | "warning" | "error"; message: string; key: string | null }[];
  unchanged: number[];
}
/** A refused edit: `code` is the core's stable id (`alignment`, `no-such-key`, `bad-value`, …), `key` the key it is about, `message` the reason. */
export interface EditError { code: string; key: string; message: string }
"#;

/// The validator's findings on a chat template's text alone (as key `key`'s value), as `check`
/// gives its findings: what the template editor shows as the user types, in microseconds, where
/// `check` writes and validates the whole header.
#[wasm_bindgen(js_name = checkTemplate, unchecked_return_type = "CheckResult['findings']")]
pub fn check_template(key: &str, text: &str) -> Result<JsValue, JsValue> {
    let findings = gguf_core::validate::validate_chat_template(key.as_bytes(), text.as_bytes());
    let findings: Vec<NewFinding<'_>> = findings
        .iter()
        .map(|f| NewFinding {
            code: f.code.id(),
            severity: f.severity.name(),
            message: &f.message,
            key: Some(key.to_string()),
        })
        .collect();
    to_js(&findings)
}

/// One file's header, decoded, to be edited.
#[wasm_bindgen]
pub struct GgufEditor {
    header: Header,
    file_size: f64,
    /// The result of the last `apply`, which `verify` checks the new file against.
    edited: Option<Edited>,
}

#[wasm_bindgen]
impl GgufEditor {
    /// An editor of the file of `session`, decoded (fed until its `nextRead()` is null), which
    /// it takes: it cannot be used afterwards.
    #[wasm_bindgen(constructor)]
    pub fn new(session: GgufSession) -> Result<GgufEditor, JsValue> {
        let file_size = session.file_size();
        let header = session
            .into_header("the file")
            .map_err(|_| write_error("the header is not read yet: feed what nextRead() asks".into()))?;
        Ok(GgufEditor {
            header,
            file_size,
            edited: None,
        })
    }

    /// Applies `edits` (an array of `{set, value, type?}` and `{delete}`, in order) to the
    /// decoded header and gives the new header (`EditResult`). Throws an `EditError` (`{code,
    /// key, message}`) when an edit is refused; nothing is kept then.
    #[wasm_bindgen(unchecked_return_type = "EditResult")]
    pub fn apply(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "EditObject[]")] edits: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.edited = None;
        let header = &self.header;
        let edits = to_edits(&edits).map_err(refusal)?;
        let edited = edit::apply(header, &edits).map_err(|e| refusal(Refusal::from(e)))?;
        let (bytes, len) = (&edited.bytes, edited.header_len + edited.padding);
        // The padding (up to the alignment: 2^31 in a hostile header) is made in JavaScript's
        // memory, zeroed, never in the module's.
        let len = u32::try_from(len)
            .ok()
            .filter(|&len| len <= i32::MAX as u32)
            .ok_or_else(|| {
                refusal(Refusal {
                    code: EditErrorKind::Write(String::new()).id(),
                    key: String::new(),
                    message: format!("the new header and its padding take {len} bytes: over 2 GiB"),
                })
            })?;
        let out = Uint8Array::new_with_length(len);
        out.subarray(0, bytes.len() as u32).copy_from(bytes);
        let old_data_offset = header.data_offset as f64;
        let result = Applied {
            old_header_size: header.header_len as f64,
            header_size: edited.header_len as f64,
            old_data_offset,
            new_data_offset: edited.data_offset as f64,
            old_file_size: self.file_size,
            file_size: edited.file_len.map_or(f64::NAN, |n| n as f64),
            changes: &edited.changes,
        };
        let js = to_js(&result)?;
        Reflect::set(&js, &JsValue::from_str("header"), &out)?;
        self.edited = Some(edited);
        Ok(js)
    }

    /// Checks pending `edits` without making anything (`CheckResult`): every refused edit by its
    /// index (each is tried after the accepted ones before it), the findings the result would
    /// have that the input has not, and the edits that leave their value as it was — what an
    /// editor shows while the edits are made.
    #[wasm_bindgen(unchecked_return_type = "CheckResult")]
    pub fn check(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EditObject[]")] edits: JsValue,
    ) -> Result<JsValue, JsValue> {
        let header = &self.header;
        if !Array::is_array(&edits) {
            return Err(refusal(syntax(
                "",
                "the edits must be an array of {set, value, type?} and {delete}",
            )));
        }
        let mut refusals = Vec::new();
        let mut valid = Vec::new();
        let mut positions = Vec::new();
        for (index, object) in Array::from(&edits).iter().enumerate() {
            match to_edit(&object) {
                Ok(edit) => {
                    valid.push(edit);
                    positions.push(index);
                }
                Err(refusal) => refusals.push(Refused::new(index, refusal)),
            }
        }
        let checked = edit::check(header, &valid);
        // The accepted edits, in order, each with its change: those that change nothing.
        let accepted = (0..valid.len()).filter(|i| !checked.refusals.iter().any(|(r, _)| r == i));
        let unchanged = accepted
            .zip(checked.edited.iter().flat_map(|e| &e.changes))
            .filter(|(_, change)| change.leaves_unchanged())
            .map(|(i, _)| positions[i])
            .collect();
        refusals.extend(
            checked
                .refusals
                .into_iter()
                .map(|(i, e)| Refused::new(positions[i], Refusal::from(e))),
        );
        refusals.sort_by_key(|r| r.index);
        let entries = checked.edited.as_ref().map(|e| e.header.metadata.entries());
        let findings = checked
            .findings
            .iter()
            .map(|f| NewFinding {
                code: f.code.id(),
                severity: f.severity.name(),
                message: &f.message,
                key: match (f.subject, entries) {
                    (Subject::Kv(i), Some(entries)) => entries.get(i).map(|e| e.key.escaped().to_string()),
                    _ => None,
                },
            })
            .collect();
        to_js(&CheckResult {
            refusals,
            findings,
            unchanged,
        })
    }

    /// The whole value of string key `key` (a chat template, which the report may show only in
    /// part), or `undefined` when there is no such string key or it is not UTF-8.
    pub fn text(&self, key: &str) -> Result<Option<String>, JsValue> {
        let entry = self
            .header
            .metadata
            .entries()
            .iter()
            .find(|e| e.key.as_bytes() == key.as_bytes());
        Ok(match entry.map(|e| &e.value) {
            Some(Value::String(s)) => s.as_str().map(String::from),
            _ => None,
        })
    }

    /// Checks `reread` — the new file's header, read back by the same decoder (a session fed
    /// the new file) — against the last `apply`: it decodes, with the input's tensor infos (name,
    /// shape, type, offset), the new data offset, the new file's size, and exactly the header that
    /// was written. Throws an `EditError` with code `write` when not (a bug).
    pub fn verify(&self, reread: &GgufSession) -> Result<(), JsValue> {
        let Some(edited) = &self.edited else {
            return Err(write_error("nothing was applied to check against".into()));
        };
        let reread = reread.header("the new file").map_err(|_| {
            write_error("the new file's header is not read yet: feed what nextRead() asks".into())
        })?;
        match edited.verify(reread) {
            None => Ok(()),
            Some(why) => Err(write_error(format!("the new file, read back: {why}"))),
        }
    }
}

/// A refusal as JavaScript sees it.
#[derive(Serialize)]
struct Refusal {
    code: &'static str,
    key: String,
    message: String,
}

impl From<EditError> for Refusal {
    fn from(e: EditError) -> Refusal {
        Refusal {
            code: e.kind.id(),
            message: e.to_string(),
            key: e.key,
        }
    }
}

fn refusal(r: Refusal) -> JsValue {
    to_js(&r).unwrap_or_else(|e| e)
}

fn write_error(message: String) -> JsValue {
    refusal(Refusal {
        code: EditErrorKind::Write(String::new()).id(),
        key: String::new(),
        message,
    })
}

/// The edits of a JavaScript array.
fn to_edits(edits: &JsValue) -> Result<Vec<Edit>, Refusal> {
    if !Array::is_array(edits) {
        return Err(syntax(
            "",
            "the edits must be an array of {set, value, type?} and {delete}",
        ));
    }
    Array::from(edits).iter().map(|e| to_edit(&e)).collect()
}

/// `{set: KEY, value, type?}` or `{delete: KEY}` as the core's [`Edit`].
fn to_edit(object: &JsValue) -> Result<Edit, Refusal> {
    let field = |name: &str| {
        if object.is_object() {
            Reflect::get(object, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
        } else {
            JsValue::UNDEFINED
        }
    };
    let (set, delete) = (field("set"), field("delete"));
    let key = match (set.is_undefined(), delete.is_undefined()) {
        (false, true) => &set,
        (true, false) => &delete,
        _ => return Err(syntax("", "an edit is {set: KEY, value, type?} or {delete: KEY}")),
    };
    let key = match key.as_string() {
        Some(k) if JsString::from(key.clone()).is_valid_utf16() => k,
        _ => return Err(syntax("", "a key must be a string of Unicode text")),
    };
    if set.is_undefined() {
        return Ok(Edit::Delete { key });
    }
    let value = field("value");
    if value.is_undefined() {
        return Err(syntax(&key, "a set needs a value"));
    }
    let ty = type_spec(&field("type"), &field("element_type")).map_err(|e| bad_value(&key, e))?;
    let text = value_text(&key, &value)?;
    Ok(Edit::Set {
        key,
        value: NewValue::Text { ty, text },
    })
}

/// The type of a set: `'UINT32'` (any spelling the core reads), `'ARRAY'` with `element_type`,
/// or `{type: 'ARRAY', element_type}`; `None` when not given.
fn type_spec(ty: &JsValue, element: &JsValue) -> Result<Option<TypeSpec>, ValueError> {
    if ty.is_undefined() || ty.is_null() {
        return Ok(None);
    }
    let (ty, element) = match ty.as_string() {
        Some(name) => (name, element.clone()),
        None => {
            let get = |name| Reflect::get(ty, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
            let name = get("type").as_string().unwrap_or_default();
            (name, get("element_type"))
        }
    };
    let is_array = matches!(ty.to_ascii_lowercase().as_str(), "array" | "arr");
    match element.as_string() {
        Some(element) if is_array => match TypeSpec::parse(&element)? {
            TypeSpec::Scalar(elem) if elem != gguf_core::ValueType::Array => {
                Ok(Some(TypeSpec::ArrayOf(elem)))
            }
            _ => Err(ValueError::NestedArray),
        },
        _ => TypeSpec::parse(&ty).map(Some),
    }
}

/// A value as the text the core's `parse_value` reads: numbers in decimal (a JavaScript number
/// as Rust writes an f64: shortest round trip, no exponent), BigInts in decimal, `true`/`false`,
/// strings as they are, arrays as `[A,B]` with their strings as JSON strings.
fn value_text(key: &str, value: &JsValue) -> Result<String, Refusal> {
    if Array::is_array(value) {
        let mut text = String::from("[");
        for (i, element) in Array::from(value).iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            if Array::is_array(&element) {
                return Err(bad_value(key, ValueError::NestedArray));
            }
            if element.is_string() {
                if !JsString::from(element.clone()).is_valid_utf16() {
                    return Err(not_utf8(key));
                }
                let json = js_sys::JSON::stringify(&element).map_err(|_| not_utf8(key))?;
                text.push_str(&String::from(json));
            } else {
                let why = format!("array element {i} is not a number, BigInt, boolean or string");
                text.push_str(&scalar_text(&element).ok_or_else(|| syntax(key, &why))?);
            }
        }
        text.push(']');
        return Ok(text);
    }
    if value.is_string() {
        return match value.as_string() {
            Some(s) if JsString::from(value.clone()).is_valid_utf16() => Ok(s),
            _ => Err(not_utf8(key)),
        };
    }
    scalar_text(value)
        .ok_or_else(|| syntax(key, "the value is not a number, BigInt, boolean, string or array"))
}

fn scalar_text(value: &JsValue) -> Option<String> {
    if let Some(b) = value.as_bool() {
        Some(b.to_string())
    } else if let Some(n) = value.as_f64() {
        Some(format!("{n}"))
    } else if value.is_bigint() {
        BigInt::from(value.clone()).to_string(10).ok().map(String::from)
    } else {
        None
    }
}

fn syntax(key: &str, why: &str) -> Refusal {
    let message = if key.is_empty() {
        why.to_string()
    } else {
        format!("{key}: {why}")
    };
    Refusal {
        code: EditErrorKind::Syntax.id(),
        key: key.to_string(),
        message,
    }
}

fn bad_value(key: &str, e: ValueError) -> Refusal {
    Refusal::from(EditError {
        key: key.to_string(),
        kind: EditErrorKind::Value(e),
    })
}

fn not_utf8(key: &str) -> Refusal {
    Refusal::from(EditError {
        key: key.to_string(),
        kind: EditErrorKind::InvalidUtf8,
    })
}

/// What `check` gives.
#[derive(Serialize)]
struct CheckResult<'a> {
    refusals: Vec<Refused>,
    findings: Vec<NewFinding<'a>>,
    unchanged: Vec<usize>,
}

/// A refused edit and its index in the list.
#[derive(Serialize)]
struct Refused {
    index: usize,
    code: &'static str,
    key: String,
    message: String,
}

impl Refused {
    fn new(index: usize, r: Refusal) -> Refused {
        Refused {
            index,
            code: r.code,
            key: r.key,
            message: r.message,
        }
    }
}

/// A finding the edited file would have: the report's finding fields, with the key it is about.
#[derive(Serialize)]
struct NewFinding<'a> {
    code: &'static str,
    severity: &'static str,
    message: &'a str,
    key: Option<String>,
}

/// What `apply` gives, but the header bytes (set on the object apart: a `Uint8Array`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Applied<'a> {
    old_header_size: f64,
    header_size: f64,
    old_data_offset: f64,
    new_data_offset: f64,
    old_file_size: f64,
    file_size: f64,
    changes: &'a [edit::Change],
}
