//! The decoded header: typed metadata in file order and tensor infos with absolute offsets.

use alloc::vec::Vec;
use core::ops::Range;

use crate::endian::Endian;
use crate::keys;
use crate::text::GgufString;
use crate::types::GgmlType;

/// Alignment of the tensor data when `general.alignment` is absent or unusable.
pub const DEFAULT_ALIGNMENT: u32 = 32;

/// A decoded GGUF header.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Header {
    /// GGUF version: 1, 2 or 3.
    pub version: u32,
    /// Byte order. [`Endian::Big`] is always inferred: GGUF has no byte-order marker.
    pub endian: Endian,
    /// Key-value pairs in file order, duplicates included.
    pub metadata: Metadata,
    /// Tensor infos in file order.
    pub tensors: Vec<TensorInfo>,
    /// The alignment used to find the data section: `general.alignment` when it is a non-zero
    /// `UINT32`, else 32.
    pub alignment: u32,
    /// Where the tensor infos end: the header's size in bytes, before padding.
    pub header_len: u64,
    /// Where the tensor data starts: `header_len` rounded up to `alignment`.
    pub data_offset: u64,
    /// The file's length, when the reader knew it.
    pub file_len: Option<u64>,
}

impl Header {
    /// The absolute offset of a tensor's data, `None` if it overflows u64.
    pub fn absolute_offset(&self, tensor: &TensorInfo) -> Option<u64> {
        self.data_offset.checked_add(tensor.offset)
    }
}

/// Key-value pairs in file order. Lookups return the first of duplicate keys, as llama.cpp would
/// if it did not refuse them; the validator reports the duplicates.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Metadata(pub(crate) Vec<Entry>);

impl Metadata {
    /// The first value stored under `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entry(key).map(|e| &e.value)
    }

    /// The first entry stored under `key`.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.0.iter().find(|e| e.key.as_bytes() == key.as_bytes())
    }

    /// All entries in file order.
    pub fn entries(&self) -> &[Entry] {
        &self.0
    }

    /// `general.architecture`, when it is a string.
    pub fn architecture(&self) -> Option<&str> {
        self.get(keys::ARCHITECTURE)?.as_str()
    }

    /// The value of `{general.architecture}.{suffix}`, e.g. `arch_get("context_length")`.
    pub fn arch_get(&self, suffix: &str) -> Option<&Value> {
        let arch = self.architecture()?;
        self.0
            .iter()
            .map(|e| (e.key.as_bytes(), &e.value))
            .find_map(|(k, v)| {
                let rest = k.strip_prefix(arch.as_bytes())?.strip_prefix(b".")?;
                (rest == suffix.as_bytes()).then_some(v)
            })
    }

    /// The first entry under `{general.architecture}.{suffix}`, with its index in file order.
    pub fn arch_entry(&self, suffix: &str) -> Option<(usize, &Entry)> {
        let arch = self.architecture()?;
        self.0.iter().enumerate().find(|(_, e)| {
            let rest = e.key.as_bytes().strip_prefix(arch.as_bytes());
            rest.and_then(|r| r.strip_prefix(b".")) == Some(suffix.as_bytes())
        })
    }

    /// The value of `{general.architecture}.{suffix}` as one number or one per layer
    /// (`attention.head_count_kv`, `feed_forward_length`, ...).
    pub fn arch_layers(&self, suffix: &str) -> Option<LayerValues> {
        LayerValues::of(self.arch_get(suffix)?)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A hyperparameter that is one number for every layer or one number per layer: the one rule
/// for reading either form, shared by the summary, the validator and the memory estimate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayerValues {
    /// The same value in every layer (an integer key).
    One(u64),
    /// One value per layer (an integer array), as stored.
    PerLayer(Vec<u64>),
}

impl LayerValues {
    /// An integer, or a non-empty array of them; `None` for anything else.
    pub fn of(value: &Value) -> Option<LayerValues> {
        match value {
            Value::Array(a) => {
                let values: Vec<u64> = (0..a.len()).map(|i| a.get_u64(i)).collect::<Option<_>>()?;
                (!values.is_empty()).then_some(LayerValues::PerLayer(values))
            }
            v => v.as_u64().map(LayerValues::One),
        }
    }

    /// Layer `i`'s value; `None` past the end of a per-layer array.
    pub fn get(&self, i: usize) -> Option<u64> {
        match self {
            LayerValues::One(v) => Some(*v),
            LayerValues::PerLayer(values) => values.get(i).copied(),
        }
    }

    /// The value, when every layer has the same.
    pub fn uniform(&self) -> Option<u64> {
        match self {
            LayerValues::One(v) => Some(*v),
            LayerValues::PerLayer(values) => {
                let first = *values.first()?;
                values.iter().all(|&v| v == first).then_some(first)
            }
        }
    }

    /// The values of layers that differ: `None` when every layer has the same.
    pub fn varying(&self) -> Option<&[u64]> {
        match self {
            LayerValues::PerLayer(values) if self.uniform().is_none() => Some(values),
            _ => None,
        }
    }

    /// One value for each of `layers` layers; `None` when a per-layer array is shorter.
    pub fn for_layers(&self, layers: usize) -> Option<Vec<u64>> {
        (0..layers).map(|i| self.get(i)).collect()
    }

    /// How many layers the values describe (1 for a single value).
    pub fn len(&self) -> usize {
        match self {
            LayerValues::One(_) => 1,
            LayerValues::PerLayer(values) => values.len(),
        }
    }

    /// Never true: an empty array is not a [`LayerValues`].
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// One key-value pair.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The key, kept as bytes (keys should be ASCII; the validator says when they are not).
    pub key: GgufString,
    /// The typed value.
    pub value: Value,
    /// Where the pair lies in the file, from its key's length field to the end of its value.
    pub span: Range<u64>,
}

/// The 13 GGUF value types, with their ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ValueType {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
}

impl ValueType {
    /// The type for an id, `None` outside 0–12.
    pub fn from_raw(raw: u32) -> Option<ValueType> {
        use ValueType::*;
        Some(match raw {
            0 => U8,
            1 => I8,
            2 => U16,
            3 => I16,
            4 => U32,
            5 => I32,
            6 => F32,
            7 => Bool,
            8 => String,
            9 => Array,
            10 => U64,
            11 => I64,
            12 => F64,
            _ => return None,
        })
    }

    /// The spec's name, as gguf-py prints it: `"UINT32"`, `"FLOAT32"`, `"STRING"`, `"ARRAY"`.
    pub fn name(self) -> &'static str {
        use ValueType::*;
        match self {
            U8 => "UINT8",
            I8 => "INT8",
            U16 => "UINT16",
            I16 => "INT16",
            U32 => "UINT32",
            I32 => "INT32",
            F32 => "FLOAT32",
            Bool => "BOOL",
            String => "STRING",
            Array => "ARRAY",
            U64 => "UINT64",
            I64 => "INT64",
            F64 => "FLOAT64",
        }
    }

    /// Bytes taken by one value of a fixed-size type; `None` for strings and arrays.
    pub fn fixed_size(self) -> Option<u64> {
        use ValueType::*;
        match self {
            U8 | I8 | Bool => Some(1),
            U16 | I16 => Some(2),
            U32 | I32 | F32 => Some(4),
            U64 | I64 | F64 => Some(8),
            String | Array => None,
        }
    }
}

/// A metadata value.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum Value {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    String(GgufString),
    Array(Array),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl Value {
    /// The value's type.
    pub fn ty(&self) -> ValueType {
        match self {
            Value::U8(_) => ValueType::U8,
            Value::I8(_) => ValueType::I8,
            Value::U16(_) => ValueType::U16,
            Value::I16(_) => ValueType::I16,
            Value::U32(_) => ValueType::U32,
            Value::I32(_) => ValueType::I32,
            Value::F32(_) => ValueType::F32,
            Value::Bool(_) => ValueType::Bool,
            Value::String(_) => ValueType::String,
            Value::Array(_) => ValueType::Array,
            Value::U64(_) => ValueType::U64,
            Value::I64(_) => ValueType::I64,
            Value::F64(_) => ValueType::F64,
        }
    }

    /// Any integer type holding a non-negative value (writers disagree on u32 vs u64 for counts).
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U8(v) => Some(v.into()),
            Value::U16(v) => Some(v.into()),
            Value::U32(v) => Some(v.into()),
            Value::U64(v) => Some(v),
            Value::I8(v) => u64::try_from(v).ok(),
            Value::I16(v) => u64::try_from(v).ok(),
            Value::I32(v) => u64::try_from(v).ok(),
            Value::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// Any float or integer type, as f64 (for RoPE bases and scaling factors).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::F32(v) => Some(v.into()),
            Value::F64(v) => Some(v),
            Value::I8(v) => Some(v.into()),
            Value::I16(v) => Some(v.into()),
            Value::I32(v) => Some(v.into()),
            Value::I64(v) => Some(v as f64),
            _ => self.as_u64().map(|v| v as f64),
        }
    }

    /// The text of a string value that is valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => s.as_str(),
            _ => None,
        }
    }

    /// The array, for array values.
    pub fn as_array(&self) -> Option<&Array> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// An array value, stored compactly by element type: a 262,144-token vocabulary is one byte
/// buffer and one offset table, not a quarter of a million allocations.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
pub enum Array {
    U8(Vec<u8>),
    I8(Vec<i8>),
    U16(Vec<u16>),
    I16(Vec<i16>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32(Vec<f32>),
    Bool(Vec<bool>),
    String(StringArray),
    /// Arrays of arrays; each inner array has its own element type.
    Array(Vec<Array>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl Array {
    /// An empty array of the given element type.
    pub fn empty(elem: ValueType) -> Array {
        match elem {
            ValueType::U8 => Array::U8(Vec::new()),
            ValueType::I8 => Array::I8(Vec::new()),
            ValueType::U16 => Array::U16(Vec::new()),
            ValueType::I16 => Array::I16(Vec::new()),
            ValueType::U32 => Array::U32(Vec::new()),
            ValueType::I32 => Array::I32(Vec::new()),
            ValueType::F32 => Array::F32(Vec::new()),
            ValueType::Bool => Array::Bool(Vec::new()),
            ValueType::String => Array::String(StringArray::default()),
            ValueType::Array => Array::Array(Vec::new()),
            ValueType::U64 => Array::U64(Vec::new()),
            ValueType::I64 => Array::I64(Vec::new()),
            ValueType::F64 => Array::F64(Vec::new()),
        }
    }

    /// The element type.
    pub fn elem_type(&self) -> ValueType {
        match self {
            Array::U8(_) => ValueType::U8,
            Array::I8(_) => ValueType::I8,
            Array::U16(_) => ValueType::U16,
            Array::I16(_) => ValueType::I16,
            Array::U32(_) => ValueType::U32,
            Array::I32(_) => ValueType::I32,
            Array::F32(_) => ValueType::F32,
            Array::Bool(_) => ValueType::Bool,
            Array::String(_) => ValueType::String,
            Array::Array(_) => ValueType::Array,
            Array::U64(_) => ValueType::U64,
            Array::I64(_) => ValueType::I64,
            Array::F64(_) => ValueType::F64,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Array::U8(v) => v.len(),
            Array::I8(v) => v.len(),
            Array::U16(v) => v.len(),
            Array::I16(v) => v.len(),
            Array::U32(v) => v.len(),
            Array::I32(v) => v.len(),
            Array::F32(v) => v.len(),
            Array::Bool(v) => v.len(),
            Array::String(v) => v.len(),
            Array::Array(v) => v.len(),
            Array::U64(v) => v.len(),
            Array::I64(v) => v.len(),
            Array::F64(v) => v.len(),
        }
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as a [`Value`] (strings and inner arrays are copied).
    pub fn get(&self, i: usize) -> Option<Value> {
        Some(match self {
            Array::U8(v) => Value::U8(*v.get(i)?),
            Array::I8(v) => Value::I8(*v.get(i)?),
            Array::U16(v) => Value::U16(*v.get(i)?),
            Array::I16(v) => Value::I16(*v.get(i)?),
            Array::U32(v) => Value::U32(*v.get(i)?),
            Array::I32(v) => Value::I32(*v.get(i)?),
            Array::F32(v) => Value::F32(*v.get(i)?),
            Array::Bool(v) => Value::Bool(*v.get(i)?),
            Array::String(v) => Value::String(v.get(i)?.to_vec().into()),
            Array::Array(v) => Value::Array(v.get(i)?.clone()),
            Array::U64(v) => Value::U64(*v.get(i)?),
            Array::I64(v) => Value::I64(*v.get(i)?),
            Array::F64(v) => Value::F64(*v.get(i)?),
        })
    }

    /// Element `i` as a non-negative integer, for per-layer hyperparameter arrays.
    pub fn get_u64(&self, i: usize) -> Option<u64> {
        match self {
            Array::String(_) | Array::Array(_) => None,
            _ => self.get(i)?.as_u64(),
        }
    }

    /// The strings, for string arrays.
    pub fn as_strings(&self) -> Option<&StringArray> {
        match self {
            Array::String(s) => Some(s),
            _ => None,
        }
    }
}

/// A string array: all bytes in one buffer plus where each element ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringArray {
    pub(crate) bytes: Vec<u8>,
    pub(crate) ends: Vec<usize>,
    /// Whether every string is valid UTF-8: checked once, as each string is added.
    utf8: bool,
}

impl Default for StringArray {
    fn default() -> StringArray {
        StringArray {
            bytes: Vec::new(),
            ends: Vec::new(),
            utf8: true,
        }
    }
}

impl StringArray {
    /// Number of strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// String `i`, as bytes.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.bytes.get(start..end)
    }

    /// Whether every string is valid UTF-8, as found when they were added: the validator and
    /// the report ask this of a 262,144-token vocabulary without reading it again.
    pub fn is_utf8(&self) -> bool {
        self.utf8
    }

    /// All strings in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or_default())
    }

    /// Appends a string, checking its UTF-8 while its bytes are at hand.
    pub fn push(&mut self, s: &[u8]) {
        let from = self.bytes.len();
        self.push_in_run(s, s);
        self.check_run(from);
    }

    /// Appends a string whose UTF-8 is checked with the rest of its run by [`Self::check_run`];
    /// only whether it starts inside a character is looked at now. `from_s` is the input from
    /// the string's start on: a short string is copied as a fixed 16 bytes and cut back, which
    /// spares a vocabulary's quarter of a million strings a call to `memcpy` each. Always
    /// inlined: the decoder calls it once per string, and the viewer's size-optimised wasm
    /// would otherwise keep the call.
    #[inline(always)]
    pub(crate) fn push_in_run(&mut self, s: &[u8], from_s: &[u8]) {
        self.utf8 &= !matches!(s.first(), Some(0x80..=0xBF));
        let end = self.bytes.len() + s.len();
        match from_s.first_chunk::<16>() {
            Some(word) if s.len() <= 16 => {
                self.bytes.extend_from_slice(word);
                self.bytes.truncate(end);
            }
            _ => self.bytes.extend_from_slice(s),
        }
        self.ends.push(end);
    }

    /// Checks the UTF-8 of the strings appended from byte `from` on, as one text: it is valid and
    /// none of its strings starts inside a character exactly when each string is valid. One check
    /// per run instead of one per string, as a vocabulary's strings are a few bytes each (once one
    /// string is not UTF-8, the rest need no check).
    pub(crate) fn check_run(&mut self, from: usize) {
        self.utf8 = self.utf8 && self.bytes.get(from..).is_some_and(crate::text::is_utf8);
    }
}

impl<S: AsRef<[u8]>> FromIterator<S> for StringArray {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> StringArray {
        let mut a = StringArray::default();
        for s in iter {
            a.push(s.as_ref());
        }
        a
    }
}

/// One tensor's entry in the tensor-info table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    /// The name, e.g. `blk.0.attn_q.weight`.
    pub name: GgufString,
    /// Dimensions in ggml order: `dims[0]` is the innermost (contiguous) one.
    pub dims: Vec<u64>,
    /// The ggml type, possibly one this reader does not know.
    pub ty: GgmlType,
    /// Offset of the data relative to the start of the data section.
    pub offset: u64,
    /// Where this info lies in the header.
    pub span: Range<u64>,
}

impl TensorInfo {
    /// Product of the dimensions; `None` when it overflows u64 (a validator finding).
    pub fn n_elements(&self) -> Option<u64> {
        self.dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d))
    }

    /// The layer `N` of a tensor named `blk.N.…`.
    pub fn layer(&self) -> Option<u64> {
        keys::layer_of(self.name.as_bytes())
    }

    /// Bytes of data; `None` for unknown types, a first dimension that is not a whole number of
    /// blocks, or an overflow.
    pub fn n_bytes(&self) -> Option<u64> {
        self.ty
            .bytes_for(self.dims.first().copied().unwrap_or(1), self.n_elements()?)
    }

    /// Bits per weight: `8 × n_bytes / n_elements`; `None` when the size is unknown or the
    /// tensor has no elements.
    pub fn bits_per_weight(&self) -> Option<f64> {
        crate::types::bits_per_weight(self.n_bytes()?, self.n_elements()?)
    }
}
