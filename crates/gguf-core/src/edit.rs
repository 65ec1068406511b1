//! Metadata edits: set, add or delete key-value pairs and get the bytes of the new header.
//!
//! Why here: changing a chat template or a special token id should not mean rewriting the
//! weights. The tensor infos' offsets are relative to the data section, so a new header followed
//! by the old data section is a valid file; [`apply`] makes that header (with [`crate::write`]),
//! and a caller copies the data section after it. Sans-IO like the rest of the crate: reading
//! the file, reading a string from a file, and writing are the caller's.
//!
//! The rules, checked before anything is written: `general.alignment` is never edited (it would
//! move every tensor); keys are non-empty and new string values UTF-8 (edits come as text); an
//! add never creates a duplicate key; set and delete name an existing key (a set adds a missing
//! key only when it gives the type); a value must fit its type; and the result must not have a
//! validator error ([`crate::validate()`], severity [`Severity::Error`]) that the input did not.
//! Values are parsed from text by [`parse_value`] and shown by [`show`] in one spelling: types as
//! in the JSON report (`UINT32`, `FLOAT32`, `STRING`) or short (`u32`, `f32`, `str`), arrays as
//! `arr[u32]` with values like `[1,106]` (strings in arrays as JSON strings).

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::{self, Write as _};

use crate::decoder::HeaderDecoder;
use crate::header::{Array, Entry, Header, Value, ValueType};
use crate::keys;
use crate::text::Escaped;
use crate::validate::{Finding, FindingCode, Severity, Subject, validate};
use crate::write::{WriteError, write_parts};

/// One change to the metadata. Edits apply in order; each sees the result of those before it.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Sets `key`'s value. An existing key (the first of duplicates) keeps its type unless the
    /// value gives one; a missing key is added (at the end) only when the value gives a type. An
    /// array value replaces the whole array.
    Set {
        /// The key.
        key: String,
        /// The new value, as text or typed.
        value: NewValue,
    },
    /// Adds a key that does not exist yet, at the end.
    Add {
        /// The key.
        key: String,
        /// Its value (its type is the value's).
        value: Value,
    },
    /// Deletes a key (every pair of a duplicated key).
    Delete {
        /// The key.
        key: String,
    },
}

impl Edit {
    /// The key the edit is about.
    pub fn key(&self) -> &str {
        match self {
            Edit::Set { key, .. } | Edit::Add { key, .. } | Edit::Delete { key } => key,
        }
    }

    /// A set from the command line's spelling: `KEY=VALUE` (the key's own type) or
    /// `KEY:TYPE=VALUE`, e.g. `tokenizer.ggml.eos_token_id=106`, `my.ids:arr[u32]=[1,106]`.
    /// The key ends at the first `=`; a type follows its last `:`.
    pub fn parse_set(arg: &str) -> Result<Edit, EditError> {
        let Some((left, text)) = arg.split_once('=') else {
            return Err(EditError::new(arg, EditErrorKind::Syntax));
        };
        let (key, ty) = match left.rsplit_once(':') {
            Some((key, ty)) => {
                let ty = TypeSpec::parse(ty).map_err(|e| EditError::new(key, EditErrorKind::Value(e)))?;
                (key, Some(ty))
            }
            None => (left, None),
        };
        Ok(Edit::Set {
            key: key.to_string(),
            value: NewValue::Text {
                ty,
                text: text.to_string(),
            },
        })
    }
}

/// The value of a [`Edit::Set`].
#[derive(Debug, Clone, PartialEq)]
pub enum NewValue {
    /// Text parsed by [`parse_value`] in `ty`, else in the existing key's type.
    Text {
        /// The type, when given.
        ty: Option<TypeSpec>,
        /// The value as text.
        text: String,
    },
    /// A typed value (a string read from a file, an array built by a program).
    Value(Value),
}

/// A value type as text names it: a scalar or string, or an array of them. Arrays of arrays
/// are not written from text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeSpec {
    /// Any type but `ARRAY`.
    Scalar(ValueType),
    /// `ARRAY` of this element type (not itself `ARRAY`).
    ArrayOf(ValueType),
}

impl TypeSpec {
    /// `UINT8` … `FLOAT64`, `BOOL`, `STRING` (as the JSON report names them) or `u8` `i8` `u16`
    /// `i16` `u32` `i32` `u64` `i64` `f32` `f64` `bool` `str`, case-insensitive; arrays as
    /// `arr[u32]` or `ARRAY[UINT32]`.
    pub fn parse(text: &str) -> Result<TypeSpec, ValueError> {
        let lower = text.to_ascii_lowercase();
        let inner = lower
            .strip_prefix("array[")
            .or_else(|| lower.strip_prefix("arr["))
            .and_then(|rest| rest.strip_suffix(']'));
        if let Some(inner) = inner {
            return match scalar_type(inner) {
                Some(elem) => Ok(TypeSpec::ArrayOf(elem)),
                None if matches!(inner, "arr" | "array") || inner.starts_with("arr") => {
                    Err(ValueError::NestedArray)
                }
                None => Err(ValueError::UnknownType { name: clip(text) }),
            };
        }
        match lower.as_str() {
            "arr" | "array" => Err(ValueError::ArrayWithoutElementType),
            name => scalar_type(name)
                .map(TypeSpec::Scalar)
                .ok_or_else(|| ValueError::UnknownType { name: clip(text) }),
        }
    }

    /// The type of a value; `None` for an array of arrays.
    pub fn of(value: &Value) -> Option<TypeSpec> {
        match value {
            Value::Array(a) if a.elem_type() == ValueType::Array => None,
            Value::Array(a) => Some(TypeSpec::ArrayOf(a.elem_type())),
            v => Some(TypeSpec::Scalar(v.ty())),
        }
    }
}

impl fmt::Display for TypeSpec {
    /// `UINT32`, `ARRAY[UINT32]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeSpec::Scalar(t) => f.write_str(t.name()),
            TypeSpec::ArrayOf(t) => write!(f, "ARRAY[{}]", t.name()),
        }
    }
}

fn scalar_type(name: &str) -> Option<ValueType> {
    use ValueType::*;
    Some(match name {
        "uint8" | "u8" => U8,
        "int8" | "i8" => I8,
        "uint16" | "u16" => U16,
        "int16" | "i16" => I16,
        "uint32" | "u32" => U32,
        "int32" | "i32" => I32,
        "uint64" | "u64" => U64,
        "int64" | "i64" => I64,
        "float32" | "f32" => F32,
        "float64" | "f64" => F64,
        "bool" => Bool,
        "string" | "str" => String,
        _ => return None,
    })
}

/// At most 40 characters of user text, for messages.
fn clip(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((i, _)) => alloc::format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// Why text is not a value of a type.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueError {
    /// Not a type name.
    UnknownType {
        /// The name given.
        name: String,
    },
    /// `ARRAY` or `arr` without `[ELEMENT]`.
    ArrayWithoutElementType,
    /// An array of arrays: not written from text.
    NestedArray,
    /// Not a number at all.
    NotANumber {
        /// The text.
        text: String,
        /// The type asked for.
        ty: ValueType,
    },
    /// A number, but not an integer, for an integer type.
    NotAnInteger {
        /// The text.
        text: String,
        /// The type asked for.
        ty: ValueType,
    },
    /// A number outside the type's range.
    OutOfRange {
        /// The text.
        text: String,
        /// The type asked for.
        ty: ValueType,
    },
    /// Not `true` or `false`.
    NotABool {
        /// The text.
        text: String,
    },
    /// An array value that is not `[A,B,…]` with elements of the type; `at` is the byte in the
    /// text where it goes wrong.
    BadArray {
        /// Byte position in the text.
        at: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// An element of an array value is not of the array's type.
    BadElement {
        /// The element's position in the array.
        index: usize,
        /// Why.
        error: alloc::boxed::Box<ValueError>,
    },
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::UnknownType { name } => write!(
                f,
                "unknown type \"{name}\" (UINT8 … FLOAT64, BOOL, STRING or u8 … f64, bool, str; arrays as arr[u32])"
            ),
            ValueError::ArrayWithoutElementType => {
                f.write_str("an array type needs its element type, e.g. arr[u32]")
            }
            ValueError::NestedArray => f.write_str("arrays of arrays cannot be written as text"),
            ValueError::NotANumber { text, ty } => write!(f, "\"{text}\" is not a number ({})", ty.name()),
            ValueError::NotAnInteger { text, ty } => write!(f, "{text} is not an integer ({})", ty.name()),
            ValueError::OutOfRange { text, ty } => {
                write!(f, "{text} is not a {}", ty.name())?;
                match range(*ty) {
                    Some((min, max)) => write!(f, " ({min} to {max})"),
                    None => f.write_str(" (out of range)"),
                }
            }
            ValueError::NotABool { text } => write!(f, "\"{text}\" is not a BOOL (true or false)"),
            ValueError::BadArray { at, expected } => {
                write!(
                    f,
                    "not an array value like [1,2] or [\"a\",\"b\"]: expected {expected} at byte {at}"
                )
            }
            ValueError::BadElement { index, error } => write!(f, "array element {index}: {error}"),
        }
    }
}

impl core::error::Error for ValueError {}

/// The range of an integer type.
fn range(ty: ValueType) -> Option<(i128, i128)> {
    use ValueType::*;
    Some(match ty {
        U8 => (0, u8::MAX.into()),
        I8 => (i8::MIN.into(), i8::MAX.into()),
        U16 => (0, u16::MAX.into()),
        I16 => (i16::MIN.into(), i16::MAX.into()),
        U32 => (0, u32::MAX.into()),
        I32 => (i32::MIN.into(), i32::MAX.into()),
        U64 => (0, u64::MAX.into()),
        I64 => (i64::MIN.into(), i64::MAX.into()),
        _ => return None,
    })
}

/// Parses `text` as a value of `ty`. Integers in decimal (`-1`, `300`); floats as Rust reads
/// them (`0.5`, `1e-6`, `inf`, `NaN`); `true`/`false`; a `STRING` is the text itself; an array is
/// `[A,B,…]` (spaces allowed) with its strings as JSON strings (`["a","b\n"]`).
pub fn parse_value(ty: TypeSpec, text: &str) -> Result<Value, ValueError> {
    match ty {
        TypeSpec::Scalar(ValueType::String) => Ok(Value::String(text.into())),
        TypeSpec::Scalar(ValueType::Array) | TypeSpec::ArrayOf(ValueType::Array) => {
            Err(ValueError::NestedArray)
        }
        TypeSpec::Scalar(t) => scalar(t, text),
        TypeSpec::ArrayOf(elem) => ArrayText { text, pos: 0 }.array(elem).map(Value::Array),
    }
}

/// A number, bool (any type but string and array).
fn scalar(ty: ValueType, text: &str) -> Result<Value, ValueError> {
    let owned = || clip(text);
    if ty == ValueType::Bool {
        return match text {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(ValueError::NotABool { text: owned() }),
        };
    }
    if let Some((min, max)) = range(ty) {
        let n: i128 = match text.parse() {
            Ok(n) => n,
            // Too many digits for i128, or a float: say which.
            Err(_)
                if text.bytes().all(|b| b.is_ascii_digit() || b == b'-' || b == b'+') && !text.is_empty() =>
            {
                return Err(ValueError::OutOfRange { text: owned(), ty });
            }
            Err(_) if text.parse::<f64>().is_ok() => {
                return Err(ValueError::NotAnInteger { text: owned(), ty });
            }
            Err(_) => return Err(ValueError::NotANumber { text: owned(), ty }),
        };
        if n < min || n > max {
            return Err(ValueError::OutOfRange { text: owned(), ty });
        }
        // In range, so each conversion is exact.
        return Ok(match ty {
            ValueType::U8 => Value::U8(n as u8),
            ValueType::I8 => Value::I8(n as i8),
            ValueType::U16 => Value::U16(n as u16),
            ValueType::I16 => Value::I16(n as i16),
            ValueType::U32 => Value::U32(n as u32),
            ValueType::I32 => Value::I32(n as i32),
            ValueType::U64 => Value::U64(n as u64),
            _ => Value::I64(n as i64),
        });
    }
    let said_infinite = text.to_ascii_lowercase().contains("inf");
    match ty {
        ValueType::F32 => match text.parse::<f32>() {
            Ok(v) if v.is_infinite() && !said_infinite => Err(ValueError::OutOfRange { text: owned(), ty }),
            Ok(v) => Ok(Value::F32(v)),
            Err(_) => Err(ValueError::NotANumber { text: owned(), ty }),
        },
        _ => match text.parse::<f64>() {
            Ok(v) if v.is_infinite() && !said_infinite => Err(ValueError::OutOfRange { text: owned(), ty }),
            Ok(v) => Ok(Value::F64(v)),
            Err(_) => Err(ValueError::NotANumber { text: owned(), ty }),
        },
    }
}

/// The JSON-ish array reader: `[`, elements separated by `,`, `]`, optional whitespace.
struct ArrayText<'a> {
    text: &'a str,
    pos: usize,
}

impl ArrayText<'_> {
    fn rest(&self) -> &[u8] {
        self.text.as_bytes().get(self.pos..).unwrap_or_default()
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.rest().first() {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8, expected: &'static str) -> Result<(), ValueError> {
        self.skip_space();
        if self.rest().first() == Some(&byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.bad(expected))
        }
    }

    fn bad(&self, expected: &'static str) -> ValueError {
        ValueError::BadArray {
            at: self.pos,
            expected,
        }
    }

    fn array(&mut self, elem: ValueType) -> Result<Array, ValueError> {
        let mut out = Array::empty(elem);
        self.expect(b'[', "[")?;
        self.skip_space();
        if self.rest().first() == Some(&b']') {
            self.pos += 1;
        } else {
            loop {
                self.skip_space();
                let index = out.len();
                let element = |error| ValueError::BadElement {
                    index,
                    error: alloc::boxed::Box::new(error),
                };
                match &mut out {
                    Array::String(strings) => strings.push(self.json_string()?.as_bytes()),
                    array => {
                        let start = self.pos;
                        let len = self
                            .rest()
                            .iter()
                            .position(|b| matches!(b, b',' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                            .unwrap_or(self.rest().len());
                        if len == 0 {
                            return Err(self.bad("a value"));
                        }
                        self.pos += len;
                        let token = self.text.get(start..self.pos).unwrap_or_default();
                        push(array, scalar(elem, token).map_err(element)?);
                    }
                }
                self.skip_space();
                match self.rest().first() {
                    Some(b',') => self.pos += 1,
                    Some(b']') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(self.bad(", or ]")),
                }
            }
        }
        self.skip_space();
        if self.rest().is_empty() {
            Ok(out)
        } else {
            Err(self.bad("the end of the value"))
        }
    }

    /// A JSON string: `"…"` with `\" \\ \/ \b \f \n \r \t \uXXXX` (surrogate pairs joined).
    fn json_string(&mut self) -> Result<String, ValueError> {
        self.expect(b'"', "a JSON string")?;
        let mut out = String::new();
        loop {
            let rest = self.text.get(self.pos..).unwrap_or_default();
            let Some(c) = rest.chars().next() else {
                return Err(self.bad("the closing \""));
            };
            match c {
                '"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                '\\' => {
                    self.pos += 1;
                    let escape = self.rest().first().copied();
                    self.pos += 1;
                    match escape {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if self.rest().get(..2) != Some(b"\\u") {
                                    return Err(self.bad("the low surrogate \\uDC00-\\uDFFF"));
                                }
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.bad("the low surrogate \\uDC00-\\uDFFF"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            match char::from_u32(code) {
                                Some(c) => out.push(c),
                                None => return Err(self.bad("a character, not a lone surrogate")),
                            }
                        }
                        _ => {
                            self.pos -= 1;
                            return Err(self.bad("an escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"));
                        }
                    }
                }
                c if (c as u32) < 0x20 => return Err(self.bad("an escape for a control character")),
                c => {
                    out.push(c);
                    self.pos += c.len_utf8();
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, ValueError> {
        let digits = self.rest().get(..4).ok_or_else(|| self.bad("four hex digits"))?;
        let text = core::str::from_utf8(digits).map_err(|_| self.bad("four hex digits"))?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.bad("four hex digits"));
        }
        let v = u32::from_str_radix(text, 16).map_err(|_| self.bad("four hex digits"))?;
        self.pos += 4;
        Ok(v)
    }
}

/// Appends a scalar of the array's element type (which `scalar` returned).
fn push(array: &mut Array, v: Value) {
    match (array, v) {
        (Array::U8(a), Value::U8(v)) => a.push(v),
        (Array::I8(a), Value::I8(v)) => a.push(v),
        (Array::U16(a), Value::U16(v)) => a.push(v),
        (Array::I16(a), Value::I16(v)) => a.push(v),
        (Array::U32(a), Value::U32(v)) => a.push(v),
        (Array::I32(a), Value::I32(v)) => a.push(v),
        (Array::F32(a), Value::F32(v)) => a.push(v),
        (Array::Bool(a), Value::Bool(v)) => a.push(v),
        (Array::U64(a), Value::U64(v)) => a.push(v),
        (Array::I64(a), Value::I64(v)) => a.push(v),
        (Array::F64(a), Value::F64(v)) => a.push(v),
        _ => {}
    }
}

/// What an edit did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// An existing key's value changed.
    Set,
    /// A key was added.
    Add,
    /// A key was deleted.
    Delete,
}

impl Action {
    /// `"set"`, `"add"` or `"delete"`.
    pub fn name(self) -> &'static str {
        match self {
            Action::Set => "set",
            Action::Add => "add",
            Action::Delete => "delete",
        }
    }
}

/// One change made, for showing: the key, what was done, and the value before and after.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The key.
    pub key: String,
    /// Set, add or delete.
    pub action: Action,
    /// The value before (`None` for an add).
    pub old: Option<Value>,
    /// The value after (`None` for a delete).
    pub new: Option<Value>,
}

impl Change {
    /// The type of the value after the change (before it, for a delete).
    pub fn ty(&self) -> ValueType {
        self.new
            .as_ref()
            .or(self.old.as_ref())
            .map_or(ValueType::String, Value::ty)
    }

    /// Whether the change is a set that leaves the value as it was: the same type and the same
    /// bits (a value changed, then changed back). Floats are compared by their bits, so 0 over
    /// -0 is a change and NaN over the same NaN is not.
    pub fn leaves_unchanged(&self) -> bool {
        match (self.action, &self.old, &self.new) {
            (Action::Set, Some(old), Some(new)) => same_bits(old, new),
            _ => false,
        }
    }
}

/// `a` and `b` are the same value, floats compared bit for bit.
fn same_bits(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) => same_array_bits(x, y),
        _ => a == b,
    }
}

fn same_array_bits(a: &Array, b: &Array) -> bool {
    match (a, b) {
        (Array::F32(x), Array::F32(y)) => x.iter().map(|v| v.to_bits()).eq(y.iter().map(|v| v.to_bits())),
        (Array::F64(x), Array::F64(y)) => x.iter().map(|v| v.to_bits()).eq(y.iter().map(|v| v.to_bits())),
        (Array::Array(x), Array::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_array_bits(x, y))
        }
        _ => a == b,
    }
}

/// The new header.
#[derive(Debug, Clone)]
pub struct Edited {
    /// The new header, up to the end of its tensor infos (`header_len` bytes).
    pub bytes: Vec<u8>,
    /// How many zero bytes to write after `bytes`, before the data section: up to
    /// `data_offset`, except for an input that ends before its own data offset (a
    /// vocabulary-only file, no tensors), whose missing padding stays missing, so an unedited
    /// header is the input byte for byte.
    pub padding: u64,
    /// Where the new tensor infos end.
    pub header_len: u64,
    /// Where the new data section starts.
    pub data_offset: u64,
    /// The new file's length (the input's data section moved to `data_offset`), when the
    /// input's was known.
    pub file_len: Option<u64>,
    /// The new header, decoded from `bytes` with the decoder that reads files.
    pub header: Header,
    /// The changes, one per edit, in order.
    pub changes: Vec<Change>,
}

impl Edited {
    /// Checks the header of the written file, read back with the decoder, against what was
    /// written: the proof both the CLI and the page give before they call a copy done. `None`
    /// when it matches; else why not, in words (`"its tensor infos differ from the input's"`).
    pub fn verify(&self, reread: &Header) -> Option<&'static str> {
        // Name, shape, type and offset in the data section: where an info lies in the header moves.
        let infos = |h: &Header| {
            h.tensors
                .iter()
                .map(|t| (t.name.clone(), t.dims.clone(), t.ty, t.offset))
                .collect::<Vec<_>>()
        };
        if infos(reread) != infos(&self.header) {
            Some("its tensor infos differ from the input's")
        } else if reread.data_offset != self.data_offset {
            Some("its data section starts elsewhere")
        } else if self.file_len.is_some() && reread.file_len != self.file_len {
            Some("its size is not the input's data section after the new header")
        } else if crate::write::write_header(reread).map(|w| w.bytes).as_ref() != Ok(&self.bytes) {
            Some("its header is not the one written")
        } else {
            None
        }
    }
}

/// Why an edit is refused.
#[derive(Debug, Clone, PartialEq)]
pub struct EditError {
    /// The key (for a new validator error, the key it is about, else the keys edited).
    pub key: String,
    /// Why.
    pub kind: EditErrorKind,
}

impl EditError {
    fn new(key: &str, kind: EditErrorKind) -> EditError {
        EditError {
            key: key.to_string(),
            kind,
        }
    }
}

/// Why an edit is refused: the stable kinds ([`EditErrorKind::id`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EditErrorKind {
    /// Not `KEY=VALUE` or `KEY:TYPE=VALUE`.
    Syntax,
    /// The key is empty.
    EmptyKey,
    /// `general.alignment` cannot be edited: it would move every tensor.
    Alignment,
    /// A new string value (or string array element) is not UTF-8.
    InvalidUtf8,
    /// An add of a key that exists.
    DuplicateKey,
    /// A set or delete of a key that does not exist (a set without a type does not add).
    NoSuchKey {
        /// What was asked.
        action: Action,
    },
    /// The value does not fit the type.
    Value(ValueError),
    /// A length over u32 in a GGUF v1 file, whose lengths are 32-bit.
    TooLongForV1,
    /// The result would have a validator error the input did not have.
    NewError {
        /// The finding's code.
        code: FindingCode,
        /// The finding's message.
        message: String,
    },
    /// The header cannot be written or read back (a bug).
    Write(String),
}

impl EditErrorKind {
    /// A stable kebab-case id, e.g. `"no-such-key"`.
    pub fn id(&self) -> &'static str {
        match self {
            EditErrorKind::Syntax => "syntax",
            EditErrorKind::EmptyKey => "empty-key",
            EditErrorKind::Alignment => "alignment",
            EditErrorKind::InvalidUtf8 => "invalid-utf8",
            EditErrorKind::DuplicateKey => "duplicate-key",
            EditErrorKind::NoSuchKey { .. } => "no-such-key",
            EditErrorKind::Value(_) => "bad-value",
            EditErrorKind::TooLongForV1 => "too-long-for-v1",
            EditErrorKind::NewError { .. } => "new-error-finding",
            EditErrorKind::Write(_) => "write",
        }
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = Escaped(self.key.as_bytes());
        match &self.kind {
            EditErrorKind::Syntax => write!(f, "\"{key}\": expected KEY=VALUE or KEY:TYPE=VALUE"),
            EditErrorKind::EmptyKey => f.write_str("the key is empty"),
            EditErrorKind::Alignment => write!(
                f,
                "{key}: cannot be edited: it would move every tensor in the data section"
            ),
            EditErrorKind::InvalidUtf8 => write!(f, "{key}: the new value is not UTF-8 text"),
            EditErrorKind::DuplicateKey => {
                write!(f, "{key}: the key exists already (an add would duplicate it)")
            }
            EditErrorKind::NoSuchKey { action: Action::Set } => write!(
                f,
                "{key}: no such key; to add it, give its type: {key}:TYPE=VALUE"
            ),
            EditErrorKind::NoSuchKey { .. } => write!(f, "{key}: no such key"),
            EditErrorKind::Value(e) => write!(f, "{key}: {e}"),
            EditErrorKind::TooLongForV1 => write!(f, "{key}: too long for GGUF v1 (32-bit lengths)"),
            EditErrorKind::NewError { code, message } => write!(
                f,
                "{key}: the result would have an error the input does not: {} ({message})",
                code.id()
            ),
            EditErrorKind::Write(why) => write!(f, "{key}: the new header cannot be written: {why}"),
        }
    }
}

impl core::error::Error for EditError {}

/// A pair of the new metadata: one of the input's, or one an edit made.
enum Slot<'a> {
    Old(&'a Entry),
    New(&'a str, Value),
}

impl Slot<'_> {
    fn key(&self) -> &[u8] {
        match self {
            Slot::Old(e) => e.key.as_bytes(),
            Slot::New(k, _) => k.as_bytes(),
        }
    }

    fn value(&self) -> &Value {
        match self {
            Slot::Old(e) => &e.value,
            Slot::New(_, v) => v,
        }
    }
}

/// Whether every string in a value is UTF-8.
fn is_utf8(value: &Value) -> bool {
    fn array(a: &Array) -> bool {
        match a {
            Array::String(s) => s.is_utf8(),
            Array::Array(inner) => inner.iter().all(array),
            _ => true,
        }
    }
    match value {
        Value::String(s) => s.as_str().is_some(),
        Value::Array(a) => array(a),
        _ => true,
    }
}

/// Whether every length in a value fits GGUF v1's u32.
fn fits_v1(value: &Value) -> bool {
    fn array(a: &Array) -> bool {
        u32::try_from(a.len()).is_ok()
            && match a {
                Array::String(s) => s.iter().all(|s| u32::try_from(s.len()).is_ok()),
                Array::Array(inner) => inner.iter().all(array),
                _ => true,
            }
    }
    match value {
        Value::String(s) => u32::try_from(s.as_bytes().len()).is_ok(),
        Value::Array(a) => array(a),
        _ => true,
    }
}

/// Applies `edits` to `header` and writes the new header: pairs in their original order with
/// edited values in place, added keys at the end, deleted keys gone, the tensor infos unchanged,
/// zero padding to the alignment; version and byte order kept. Nothing is changed on a refusal.
/// With no edits, the bytes are the input's header exactly (see [`crate::write`]).
pub fn apply(header: &Header, edits: &[Edit]) -> Result<Edited, EditError> {
    apply_against(header, edits, &error_codes(header))
}

/// The codes of a header's validator errors, sorted: what an edit's result may have again.
fn error_codes(header: &Header) -> Vec<FindingCode> {
    errors(header).into_iter().map(|f| f.code).collect()
}

/// A header's validator errors, by code.
fn errors(h: &Header) -> Vec<Finding> {
    let mut found: Vec<_> = validate(h, None)
        .findings
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    found.sort_by_key(|f| f.code);
    found
}

/// [`apply`], given the input's error codes (`before`), which [`check`] works out once for all
/// its tries rather than once per try.
fn apply_against(header: &Header, edits: &[Edit], before: &[FindingCode]) -> Result<Edited, EditError> {
    let mut slots: Vec<Slot<'_>> = header.metadata.entries().iter().map(Slot::Old).collect();
    let mut changes = Vec::with_capacity(edits.len());
    for edit in edits {
        let key = edit.key();
        let fail = |kind| Err(EditError::new(key, kind));
        if key.is_empty() {
            return fail(EditErrorKind::EmptyKey);
        }
        if key == keys::ALIGNMENT {
            return fail(EditErrorKind::Alignment);
        }
        let found = slots.iter().position(|s| s.key() == key.as_bytes());
        let (action, old, value) = match edit {
            Edit::Delete { .. } => {
                let Some(i) = found else {
                    return fail(EditErrorKind::NoSuchKey {
                        action: Action::Delete,
                    });
                };
                let old = slots[i].value().clone();
                slots.retain(|s| s.key() != key.as_bytes());
                changes.push(Change {
                    key: key.to_string(),
                    action: Action::Delete,
                    old: Some(old),
                    new: None,
                });
                continue;
            }
            Edit::Add { value, .. } => {
                if found.is_some() {
                    return fail(EditErrorKind::DuplicateKey);
                }
                (Action::Add, None, value.clone())
            }
            Edit::Set { value, .. } => {
                let old = found.map(|i| slots[i].value());
                let value = match value {
                    NewValue::Value(v) => v.clone(),
                    NewValue::Text { ty, text } => {
                        let ty = match (ty, old) {
                            (Some(ty), _) => *ty,
                            (None, Some(old)) => match TypeSpec::of(old) {
                                Some(ty) => ty,
                                None => return fail(EditErrorKind::Value(ValueError::NestedArray)),
                            },
                            (None, None) => return fail(EditErrorKind::NoSuchKey { action: Action::Set }),
                        };
                        parse_value(ty, text).map_err(|e| EditError::new(key, EditErrorKind::Value(e)))?
                    }
                };
                match found {
                    Some(_) => (Action::Set, old.cloned(), value),
                    None => (Action::Add, None, value),
                }
            }
        };
        if !is_utf8(&value) {
            return fail(EditErrorKind::InvalidUtf8);
        }
        if header.version == 1 && !fits_v1(&value) {
            return fail(EditErrorKind::TooLongForV1);
        }
        changes.push(Change {
            key: key.to_string(),
            action,
            old,
            new: Some(value.clone()),
        });
        match found {
            Some(i) => slots[i] = Slot::New(key, value),
            None => slots.push(Slot::New(key, value)),
        }
    }

    let edited_keys = || {
        let mut keys = String::new();
        for (i, c) in changes.iter().enumerate() {
            if i > 0 {
                keys.push_str(", ");
            }
            keys.push_str(&c.key);
        }
        keys
    };
    let written = write_parts(
        header.version,
        header.endian,
        slots.len(),
        slots.iter().map(|s| (s.key(), s.value())),
        &header.tensors,
    )
    .map_err(|e: WriteError| EditError::new(&edited_keys(), EditErrorKind::Write(e.to_string())))?;
    drop(slots);

    // Where the input's data section was, the output's is; an input that ends before its data
    // offset (no tensors) has its missing padding missing in the output too.
    let (padding, file_len) = match header.file_len {
        Some(len) if len < header.data_offset => {
            let padding = len.saturating_sub(header.header_len).min(written.padding());
            (padding, Some(written.header_len + padding))
        }
        Some(len) => (
            written.padding(),
            Some((len - header.data_offset).saturating_add(written.data_offset)),
        ),
        None => (written.padding(), None),
    };
    let mut bytes = written.bytes;
    bytes.shrink_to_fit();

    let mut decoder = HeaderDecoder::new(file_len);
    let reread = decoder.feed(&bytes).and_then(|_| decoder.finish());
    let new = match (reread, decoder.into_header()) {
        (_, Some(new)) => new,
        (Err(e), None) => {
            return Err(EditError::new(
                &edited_keys(),
                EditErrorKind::Write(e.to_string()),
            ));
        }
        (Ok(_), None) => {
            let why = "the header does not end".to_string();
            return Err(EditError::new(&edited_keys(), EditErrorKind::Write(why)));
        }
    };

    if let Some(finding) = errors(&new).into_iter().find(|f| !before.contains(&f.code)) {
        let key = match finding.subject {
            Subject::Kv(i) => new
                .metadata
                .entries()
                .get(i)
                .map_or_else(edited_keys, |e| e.key.escaped().to_string()),
            _ => edited_keys(),
        };
        return Err(EditError::new(
            &key,
            EditErrorKind::NewError {
                code: finding.code,
                message: finding.message,
            },
        ));
    }
    Ok(Edited {
        padding,
        header_len: written.header_len,
        data_offset: written.data_offset,
        file_len,
        bytes,
        header: new,
        changes,
    })
}

/// What a list of pending edits would do, for an editor to show while they are being made.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The refused edits: each one's index in the list, and why. Every edit is tried after the
    /// accepted ones before it, so all refusals are known at once, not only the first.
    pub refusals: Vec<(usize, EditError)>,
    /// The findings the result of the accepted edits has and the input has not (by code and
    /// message): warnings and infos; a new error is a refusal.
    pub findings: Vec<Finding>,
    /// The result of the accepted edits, when any was accepted.
    pub edited: Option<Edited>,
}

/// Checks pending edits as [`apply`] would, reporting every refusal instead of the first, and
/// what the validator would newly say about the result.
pub fn check(header: &Header, edits: &[Edit]) -> Checked {
    let before = error_codes(header);
    let mut accepted: Vec<Edit> = Vec::with_capacity(edits.len());
    let mut refusals = Vec::new();
    let mut edited = None;
    for (i, edit) in edits.iter().enumerate() {
        accepted.push(edit.clone());
        match apply_against(header, &accepted, &before) {
            Ok(result) => edited = Some(result),
            Err(e) => {
                accepted.pop();
                refusals.push((i, e));
            }
        }
    }
    let findings = edited
        .as_ref()
        .map_or_else(Vec::new, |e| gained_findings(header, &e.header));
    Checked {
        refusals,
        findings,
        edited,
    }
}

/// The findings of `after` (an edited header) that `before` does not have, by code and message:
/// what an edit gains, which the CLI and the page both show before a file is written.
pub fn gained_findings(before: &Header, after: &Header) -> Vec<Finding> {
    let mut old: Vec<(FindingCode, String)> = validate(before, None)
        .findings
        .into_iter()
        .map(|f| (f.code, f.message))
        .collect();
    old.sort_unstable();
    validate(after, None)
        .findings
        .into_iter()
        .filter(|f| {
            old.binary_search_by(|(code, message)| {
                (code, message.as_str()).cmp(&(&f.code, f.message.as_str()))
            })
            .is_err()
        })
        .collect()
}

/// Shows a value on one line, in the spelling [`parse_value`] reads, cut at about `max_chars`
/// characters: numbers as they are, strings quoted with control characters and invalid bytes
/// escaped (as [`Escaped`]), arrays as `[1, 2, …]` with their length when cut.
pub fn show(value: &Value, max_chars: usize) -> Shown<'_> {
    Shown { value, max_chars }
}

/// A value shown on one line: see [`show`].
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a> {
    value: &'a Value,
    max_chars: usize,
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let cut = write_value(&mut out, self.value, self.max_chars);
        f.write_str(&out)?;
        match (cut, self.value) {
            (true, Value::String(s)) => write!(f, " ({} bytes)", s.as_bytes().len()),
            (true, Value::Array(a)) => write!(f, " ({} elements)", a.len()),
            _ => Ok(()),
        }
    }
}

/// Writes `value` into `out` until it holds about `max` characters; whether it was cut.
fn write_value(out: &mut String, value: &Value, max: usize) -> bool {
    match value {
        Value::String(s) => {
            let start = out.len();
            let _ = write!(out, "\"{}", s.escaped());
            let text = out.get(start..).unwrap_or_default();
            let cut = text.char_indices().nth(max.max(1)).map(|(i, _)| start + i);
            match cut {
                Some(at) => {
                    out.truncate(at);
                    out.push_str("…\"");
                    true
                }
                None => {
                    out.push('"');
                    false
                }
            }
        }
        Value::Array(a) => {
            let start = out.len();
            out.push('[');
            for i in 0..a.len() {
                if out.len() - start >= max {
                    out.push_str("…]");
                    return true;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                if let Some(v) = a.get(i) {
                    let left = max.saturating_sub(out.len() - start).max(8);
                    if write_value(out, &v, left) {
                        out.push_str(", …]");
                        return true;
                    }
                }
            }
            out.push(']');
            false
        }
        Value::U8(v) => write_display(out, v),
        Value::I8(v) => write_display(out, v),
        Value::U16(v) => write_display(out, v),
        Value::I16(v) => write_display(out, v),
        Value::U32(v) => write_display(out, v),
        Value::I32(v) => write_display(out, v),
        Value::U64(v) => write_display(out, v),
        Value::I64(v) => write_display(out, v),
        Value::F32(v) => write_display(out, v),
        Value::F64(v) => write_display(out, v),
        Value::Bool(v) => write_display(out, v),
    }
}

fn write_display(out: &mut String, v: &dyn fmt::Display) -> bool {
    let _ = write!(out, "{v}");
    false
}

/// `{"key", "action", "type", "old", "new"}`: `type` the value's type name as in the report,
/// `old`/`new` as the report's metadata values (arrays as `{element_type, len, head}`), `null`
/// where there is none.
#[cfg(feature = "serde")]
impl serde::Serialize for Change {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let options = crate::report::ReportOptions::default();
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("key", &self.key)?;
        m.serialize_entry("action", self.action.name())?;
        m.serialize_entry("type", self.ty().name())?;
        m.serialize_entry(
            "old",
            &self
                .old
                .as_ref()
                .map(|v| crate::report::MetadataValue::new(v, &options)),
        )?;
        m.serialize_entry(
            "new",
            &self
                .new
                .as_ref()
                .map(|v| crate::report::MetadataValue::new(v, &options)),
        )?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn parses_types_in_both_spellings() {
        assert_eq!(TypeSpec::parse("UINT32"), Ok(TypeSpec::Scalar(ValueType::U32)));
        assert_eq!(TypeSpec::parse("u32"), Ok(TypeSpec::Scalar(ValueType::U32)));
        assert_eq!(TypeSpec::parse("Float32"), Ok(TypeSpec::Scalar(ValueType::F32)));
        assert_eq!(TypeSpec::parse("str"), Ok(TypeSpec::Scalar(ValueType::String)));
        assert_eq!(TypeSpec::parse("arr[u32]"), Ok(TypeSpec::ArrayOf(ValueType::U32)));
        assert_eq!(
            TypeSpec::parse("ARRAY[STRING]"),
            Ok(TypeSpec::ArrayOf(ValueType::String))
        );
        assert_eq!(TypeSpec::parse("array"), Err(ValueError::ArrayWithoutElementType));
        assert_eq!(TypeSpec::parse("arr[arr[u8]]"), Err(ValueError::NestedArray));
        assert!(matches!(
            TypeSpec::parse("u128"),
            Err(ValueError::UnknownType { .. })
        ));
        assert_eq!(TypeSpec::ArrayOf(ValueType::U32).to_string(), "ARRAY[UINT32]");
    }

    #[test]
    fn values_must_fit_their_type() {
        let u8t = TypeSpec::Scalar(ValueType::U8);
        assert_eq!(parse_value(u8t, "255"), Ok(Value::U8(255)));
        let e = parse_value(u8t, "300").unwrap_err();
        assert!(matches!(
            e,
            ValueError::OutOfRange {
                ty: ValueType::U8,
                ..
            }
        ));
        assert_eq!(e.to_string(), "300 is not a UINT8 (0 to 255)");
        assert!(matches!(
            parse_value(TypeSpec::Scalar(ValueType::U32), "abc"),
            Err(ValueError::NotANumber { .. })
        ));
        assert!(matches!(
            parse_value(TypeSpec::Scalar(ValueType::I32), "1.5"),
            Err(ValueError::NotAnInteger { .. })
        ));
        assert!(matches!(
            parse_value(
                TypeSpec::Scalar(ValueType::U64),
                "99999999999999999999999999999999999999999"
            ),
            Err(ValueError::OutOfRange { .. })
        ));
        assert_eq!(
            parse_value(TypeSpec::Scalar(ValueType::I8), "-128"),
            Ok(Value::I8(-128))
        );
        assert!(matches!(
            parse_value(TypeSpec::Scalar(ValueType::F32), "1e40"),
            Err(ValueError::OutOfRange { .. })
        ));
        assert_eq!(
            parse_value(TypeSpec::Scalar(ValueType::F32), "-inf"),
            Ok(Value::F32(f32::NEG_INFINITY))
        );
        assert_eq!(
            parse_value(TypeSpec::Scalar(ValueType::Bool), "true"),
            Ok(Value::Bool(true))
        );
        assert!(matches!(
            parse_value(TypeSpec::Scalar(ValueType::Bool), "1"),
            Err(ValueError::NotABool { .. })
        ));
        assert_eq!(
            parse_value(TypeSpec::Scalar(ValueType::String), "[not parsed]"),
            Ok(Value::String("[not parsed]".into()))
        );
    }

    #[test]
    fn arrays_are_json_ish() {
        let u32s = TypeSpec::ArrayOf(ValueType::U32);
        assert_eq!(
            parse_value(u32s, "[1,106]"),
            Ok(Value::Array(Array::U32(vec![1, 106])))
        );
        assert_eq!(
            parse_value(u32s, " [ 1 , 2 ] "),
            Ok(Value::Array(Array::U32(vec![1, 2])))
        );
        assert_eq!(parse_value(u32s, "[]"), Ok(Value::Array(Array::U32(vec![]))));
        let strs = TypeSpec::ArrayOf(ValueType::String);
        let v = parse_value(strs, r#"["a\n", "\u00e9\ud83d\ude00", "q\"b"]"#).unwrap();
        let expected: crate::header::StringArray = ["a\n", "é😀", "q\"b"].iter().collect();
        assert_eq!(v, Value::Array(Array::String(expected)));
        for bad in ["[1,", "[1 2]", "1,2", "[1,]", "[1]x", "", "["] {
            assert!(
                matches!(parse_value(u32s, bad), Err(ValueError::BadArray { .. })),
                "{bad}"
            );
        }
        assert!(matches!(
            parse_value(u32s, "[1,-1]"),
            Err(ValueError::BadElement { index: 1, .. })
        ));
        for bad in [r#"[a]"#, r#"["a]"#, r#"["\x"]"#, r#"["\ud800"]"#, "[\"\n\"]"] {
            assert!(parse_value(strs, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parses_command_line_sets() {
        assert_eq!(
            Edit::parse_set("a.b=1=2"),
            Ok(Edit::Set {
                key: "a.b".into(),
                value: NewValue::Text {
                    ty: None,
                    text: "1=2".into()
                }
            })
        );
        assert_eq!(
            Edit::parse_set("ids:arr[u32]=[1,106]"),
            Ok(Edit::Set {
                key: "ids".into(),
                value: NewValue::Text {
                    ty: Some(TypeSpec::ArrayOf(ValueType::U32)),
                    text: "[1,106]".into()
                }
            })
        );
        assert_eq!(
            Edit::parse_set("novalue").unwrap_err().kind,
            EditErrorKind::Syntax
        );
        let e = Edit::parse_set("k:u9=1").unwrap_err();
        assert_eq!((e.key.as_str(), e.kind.id()), ("k", "bad-value"));
    }

    #[test]
    fn shows_values_cut_and_escaped() {
        assert_eq!(show(&Value::U32(7), 10).to_string(), "7");
        assert_eq!(show(&Value::String("a\nb".into()), 40).to_string(), "\"a\\x0Ab\"");
        assert_eq!(
            show(&Value::String("abcdefghij".into()), 5).to_string(),
            "\"abcd…\" (10 bytes)"
        );
        assert_eq!(
            show(&Value::Array(Array::U32(vec![1, 2])), 40).to_string(),
            "[1, 2]"
        );
        let long = Value::Array(Array::U32((0..100).collect()));
        assert!(show(&long, 20).to_string().ends_with("…] (100 elements)"));
    }
}
