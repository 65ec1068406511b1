//! `ggufscope tensor`: decode one tensor, or its first rows, and describe its values. Reads only
//! that tensor's bytes — from a file, or by Range requests from a URL — in chunks, twice (the
//! statistics, then the histogram over the range they found), so memory stays bounded whatever
//! the tensor's size.

use std::fmt::Write as _;

use gguf_core::dequant::{self, DequantError, Prefix};
use gguf_core::stats::{Moments, Stats};
use gguf_core::{Endian, GgmlType, Header, TensorInfo};

use crate::format::{bytes, grouped};
use crate::http;
use crate::model::Location;
use crate::read::{self, ReadError, Source};

/// Histogram bins.
const BINS: usize = 20;
/// Values shown from the start of the tensor.
const FIRST: usize = 16;
/// Bytes per read: whole blocks of about 4 MiB.
const CHUNK: u64 = 4 << 20;

/// Why a tensor could not be described; every case exits with status 2.
pub enum TensorError {
    Read(ReadError),
    NoSuchTensor { name: String, suggestions: Vec<String> },
    Dequant { name: String, error: DequantError },
}

impl std::fmt::Display for TensorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TensorError::Read(e) => e.fmt(f),
            TensorError::NoSuchTensor { name, suggestions } => {
                write!(f, "no tensor named \"{name}\"")?;
                match suggestions.as_slice() {
                    [] => f.write_str(" (`ggufscope info --json FILE` lists them)"),
                    s => write!(f, "; did you mean {}?", s.join(", ")),
                }
            }
            TensorError::Dequant { name, error } => write!(f, "tensor \"{name}\": {error}"),
        }
    }
}

/// A tensor's values described, and what it took to read them.
pub struct Described {
    header: Header,
    index: usize,
    prefix: Prefix,
    stats: Stats,
    bytes_read: u64,
    reads: u64,
}

/// Reads the header, finds `name`, and decodes its first `rows` rows (all for `None`).
pub fn describe(at: &Location, name: &str, rows: Option<u64>) -> Result<Described, TensorError> {
    let mut source = at.open(&http::agent()).map_err(TensorError::Read)?;
    let (header, _) = read::read_from(&mut *source).map_err(TensorError::Read)?;
    let Some(index) = header
        .tensors
        .iter()
        .position(|t| t.name.as_bytes() == name.as_bytes())
    else {
        return Err(TensorError::NoSuchTensor {
            name: name.to_string(),
            suggestions: close_names(&header, name),
        });
    };
    let tensor = &header.tensors[index];
    let dequant_error = |error| TensorError::Dequant {
        name: name.to_string(),
        error,
    };
    if !dequant::is_supported(tensor.ty) {
        return Err(dequant_error(DequantError::Unsupported { ty: tensor.ty }));
    }
    let prefix = dequant::prefix(&header, tensor, rows).map_err(dequant_error)?;
    let read_error = |e| match e {
        ChunkError::Read(e) => TensorError::Read(e),
        ChunkError::Dequant(e) => dequant_error(e),
    };
    let mut reader = Chunks::new(source, tensor.ty, header.endian, prefix);
    let mut moments = Moments::new(FIRST);
    reader.each(|values| moments.add(values)).map_err(&read_error)?;
    let mut histogram = moments.histogram(BINS);
    reader.each(|values| histogram.add(values)).map_err(&read_error)?;
    let (bytes_read, reads) = (reader.bytes_read, reader.reads);
    Ok(Described {
        stats: moments.finish(histogram),
        header,
        index,
        prefix,
        bytes_read,
        reads,
    })
}

/// Why a chunk of a tensor could not be decoded.
enum ChunkError {
    Read(ReadError),
    Dequant(DequantError),
}

/// Decodes a tensor prefix chunk by chunk.
struct Chunks {
    source: Box<dyn Source>,
    ty: GgmlType,
    endian: Endian,
    prefix: Prefix,
    buf: Vec<u8>,
    values: Vec<f32>,
    bytes_read: u64,
    reads: u64,
}

impl Chunks {
    fn new(source: Box<dyn Source>, ty: GgmlType, endian: Endian, prefix: Prefix) -> Chunks {
        Chunks {
            source,
            ty,
            endian,
            prefix,
            buf: Vec::new(),
            values: Vec::new(),
            bytes_read: 0,
            reads: 0,
        }
    }

    /// Calls `f` with the decoded values of each chunk, in order, and stops at the prefix's end.
    fn each(&mut self, mut f: impl FnMut(&[f32])) -> Result<(), ChunkError> {
        let block = u64::from(self.ty.type_size().unwrap_or(1)).max(1);
        let chunk = (CHUNK / block).max(1) * block;
        let mut at = self.prefix.offset;
        let mut left = self.prefix.len;
        let mut decoded = 0u64;
        while left > 0 {
            let want = left.min(chunk);
            self.buf.resize(want as usize, 0);
            self.source.read_at(at, &mut self.buf).map_err(ChunkError::Read)?;
            self.bytes_read += want;
            self.reads += 1;
            at += want;
            left -= want;
            self.values.clear();
            dequant::dequantize_into(self.ty, self.endian, &self.buf, &mut self.values)
                .map_err(ChunkError::Dequant)?;
            // The prefix is whole rows, so whole blocks: nothing to trim but past its elements.
            let keep = (self.prefix.elements - decoded).min(self.values.len() as u64) as usize;
            decoded += keep as u64;
            f(&self.values[..keep]);
        }
        Ok(())
    }
}

/// Up to five tensor names near `name`: containing it, or within a few edits of it.
fn close_names(header: &Header, name: &str) -> Vec<String> {
    let mut scored: Vec<(usize, String)> = header
        .tensors
        .iter()
        .map(|t| t.name.to_string())
        .filter_map(|candidate| {
            let d = edit_distance(name, &candidate);
            let near = d <= (name.len() / 3).max(2) || (!name.is_empty() && candidate.contains(name));
            near.then_some((d, candidate))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(5).map(|(_, n)| n).collect()
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

fn dims(t: &TensorInfo) -> String {
    let d: Vec<String> = t.dims.iter().map(|&d| grouped(d)).collect();
    format!("[{}]", d.join(", "))
}

fn float(v: f64) -> String {
    match v {
        v if v.is_nan() => "NaN".into(),
        v if v != 0.0 && (v.abs() < 1e-3 || v.abs() >= 1e6) => format!("{v:.4e}"),
        v => format!("{v:.6}"),
    }
}

impl Described {
    fn tensor(&self) -> &TensorInfo {
        &self.header.tensors[self.index]
    }

    /// The description as text.
    pub fn render(&self) -> String {
        let (t, s, p) = (self.tensor(), &self.stats, &self.prefix);
        let mut out = String::new();
        let line = |out: &mut String, label: &str, value: String| {
            let _ = writeln!(out, "  {label:<13} {value}");
        };
        let _ = writeln!(out, "{}", t.name);
        line(
            &mut out,
            "type",
            format!(
                "{} {}, {} values",
                t.ty,
                dims(t),
                grouped(t.n_elements().unwrap_or(0))
            ),
        );
        let total_rows = t.n_elements().unwrap_or(0) / t.dims.first().copied().unwrap_or(1).max(1);
        line(
            &mut out,
            "decoded",
            format!(
                "{} of {} rows: {} values from {} at offset {}",
                grouped(p.rows),
                grouped(total_rows),
                grouped(s.count),
                bytes(p.len),
                grouped(p.offset)
            ),
        );
        let opt = |v: Option<f64>| v.map_or_else(|| "-".to_string(), float);
        line(
            &mut out,
            "min / max",
            format!("{} / {}", opt(s.min.map(f64::from)), opt(s.max.map(f64::from))),
        );
        line(&mut out, "mean", opt(s.mean));
        line(&mut out, "std dev", opt(s.std_dev));
        line(
            &mut out,
            "non-finite",
            format!("{} NaN, {} +inf, {} -inf", s.nan, s.pos_inf, s.neg_inf),
        );
        let zero_note = if s.all_zero() {
            " — every value is zero: a sparse or damaged file?"
        } else {
            ""
        };
        line(&mut out, "zeros", format!("{}{zero_note}", grouped(s.zeros)));
        let first: Vec<String> = s.first.iter().map(|&v| float(f64::from(v))).collect();
        line(&mut out, "first values", first.join(", "));
        let h = &s.histogram;
        let peak = h.counts.iter().copied().max().unwrap_or(0).max(1);
        let width = (f64::from(h.max) - f64::from(h.min)) / h.counts.len().max(1) as f64;
        let _ = writeln!(
            out,
            "  histogram     {} bins over [{}, {}]",
            h.counts.len(),
            float(f64::from(h.min)),
            float(f64::from(h.max))
        );
        for (i, &c) in h.counts.iter().enumerate() {
            let low = f64::from(h.min) + width * i as f64;
            let bar = "█".repeat(((c as f64 / peak as f64) * 40.0).round() as usize);
            let _ = writeln!(out, "    {:>12}  {:<40} {}", float(low), bar, grouped(c));
        }
        line(
            &mut out,
            "read",
            format!(
                "{} in {} reads (the tensor's bytes twice: statistics, then histogram)",
                bytes(self.bytes_read),
                self.reads
            ),
        );
        out
    }

    /// The description as one JSON document.
    pub fn json(&self) -> serde_json::Value {
        let (t, p) = (self.tensor(), &self.prefix);
        serde_json::json!({
            "name": t.name.to_string(),
            "type": t.ty.to_string(),
            "dims": t.dims,
            "offset": p.offset,
            "rows": p.rows,
            "elements": p.elements,
            "bytes": p.len,
            "bytes_read": self.bytes_read,
            "stats": self.stats,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("blk.0.attn_q.weight", "blk.0.attn_k.weight"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
