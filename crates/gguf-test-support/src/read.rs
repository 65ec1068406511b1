//! A file's header read as the CLI reads it, and the comparisons the tests make of values.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use gguf_core::{Array, Error, Header, HeaderDecoder, Progress, Value};

/// Reads a header through the decoder with bounded reads; returns it and the bytes read.
pub fn read_header(path: &Path) -> (Result<Header, Error>, u64) {
    let mut file = File::open(path).unwrap();
    let len = file.metadata().unwrap().len();
    let mut decoder = HeaderDecoder::new(Some(len));
    let mut next = decoder.first_need();
    let mut chunk = 64 << 10;
    let mut buf = Vec::new();
    loop {
        match next {
            Progress::Done => {
                let fed = decoder.bytes_fed();
                return (Ok(decoder.into_header().unwrap()), fed);
            }
            Progress::Need { offset, min_len } => {
                let want = min_len.max(chunk).min(len - offset.min(len));
                buf.resize(want as usize, 0);
                file.seek(SeekFrom::Start(offset)).unwrap();
                file.read_exact(&mut buf).unwrap();
                chunk = (chunk * 2).min(16 << 20);
                match decoder.feed(&buf) {
                    Ok(p) => next = p,
                    Err(e) => return (Err(e), decoder.bytes_fed()),
                }
            }
        }
    }
}

/// Equality where a NaN equals the same NaN (the fixtures hold NaN values).
pub fn same_array(a: &Array, b: &Array) -> bool {
    match (a, b) {
        (Array::F32(x), Array::F32(y)) => x.iter().map(|v| v.to_bits()).eq(y.iter().map(|v| v.to_bits())),
        (Array::F64(x), Array::F64(y)) => x.iter().map(|v| v.to_bits()).eq(y.iter().map(|v| v.to_bits())),
        (Array::Array(x), Array::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_array(a, b))
        }
        _ => a == b,
    }
}

/// [`same_array`] for values.
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) => same_array(x, y),
        _ => a == b,
    }
}

/// splitmix64: a fixed-seed generator, so every run checks the same cases without a dependency.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait)] // not an iterator: it never ends
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `range` (the tiny modulo bias does not matter here).
    pub fn below(&mut self, range: std::ops::Range<u64>) -> u64 {
        range.start + self.next() % (range.end - range.start).max(1)
    }

    /// A random byte.
    pub fn byte(&mut self) -> u8 {
        self.next() as u8
    }
}
