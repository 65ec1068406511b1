//! `ggufscope tensor`: decode one tensor, or its first rows, and describe its values. Reads only
//! that tensor's bytes — from a file, or by Range requests from a URL — where the core's
//! `TensorValues` asks: in chunks, twice for a large tensor (the statistics, then the histogram
//! over the range they found), so memory stays bounded whatever the tensor's size; from a file,
//! on every core.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use gguf_core::{Header, TensorInfo};
use gguf_values::dequant::{self, DequantError, Prefix};
use gguf_values::stats::Stats;
use gguf_values::values::TensorValues;

use crate::cli::{self, EXIT_UNPARSABLE, complain, finish};
use crate::fields::Fields;
use crate::format::{bytes, grouped};
use crate::source::{self, Location, MeasureError, ReadError, http};

/// Decode one tensor (or its first rows) and describe its values: min, max, mean, standard
/// deviation, NaN and infinity counts, zeros, a histogram and the first values. Reads only
/// that tensor's bytes.
///
/// Exit status: 0 when described, 2 when the file cannot be parsed, the tensor does not
/// exist or its type cannot be decoded.
#[derive(clap::Args, Debug)]
pub struct TensorArgs {
    /// The .gguf file, or its URL.
    file: String,
    /// The tensor's name, e.g. blk.0.attn_q.weight.
    name: String,
    /// Decode only the first N rows (a row is the tensor's first dimension).
    #[arg(long, value_name = "N")]
    rows: Option<u64>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `ggufscope tensor`.
pub fn run(args: &TensorArgs) -> ExitCode {
    let described = match describe(&Location::parse(&args.file), &args.name, args.rows) {
        Ok(d) => d,
        Err(e) => {
            complain!("{}: {e}", args.file);
            return ExitCode::from(EXIT_UNPARSABLE);
        }
    };
    let mut stdout = cli::stdout();
    let written = if args.json {
        crate::json::write(&mut stdout, &described.json())
    } else {
        stdout.write_all(described.render().as_bytes())
    };
    finish(written.and_then(|()| stdout.flush()))
}

/// The description's lines: labels in a column 13 characters wide.
const FIELDS: Fields = Fields::new(13);

/// Histogram bins.
const BINS: usize = 20;
/// Values shown from the start of the tensor.
const FIRST: usize = 16;

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
    let (header, _) = source::read_header(&mut *source).map_err(TensorError::Read)?;
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
    let values = TensorValues::new(tensor.ty, header.endian, prefix, BINS, FIRST)
        .map_err(dequant_error)?
        .with_dequantizer(gguf_values::avx2::dequantize_to);
    // A tensor of several reads, in a file: every core takes reads as it comes free.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let measured = match at {
        Location::Path(_) if threads > 1 && values.pass_reads().nth(1).is_some() => {
            let agent = http::agent();
            source::measure_on_threads(&|| at.open(&agent), values, threads)
        }
        _ => source::measure(&mut *source, values),
    };
    let (stats, read) = measured.map_err(|e| match e {
        MeasureError::Read(e) => TensorError::Read(e),
        MeasureError::Dequant(e) => dequant_error(e),
    })?;
    Ok(Described {
        stats,
        header,
        index,
        prefix,
        bytes_read: read.bytes,
        reads: read.reads,
    })
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
        let _ = writeln!(out, "{}", t.name);
        FIELDS.line(
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
        FIELDS.line(
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
        FIELDS.line(
            &mut out,
            "min / max",
            format!("{} / {}", opt(s.min.map(f64::from)), opt(s.max.map(f64::from))),
        );
        FIELDS.line(&mut out, "mean", opt(s.mean));
        FIELDS.line(&mut out, "std dev", opt(s.std_dev));
        FIELDS.line(
            &mut out,
            "non-finite",
            format!("{} NaN, {} +inf, {} -inf", s.nan, s.pos_inf, s.neg_inf),
        );
        let zero_note = if s.all_zero() {
            " — every value is zero: a sparse or damaged file?"
        } else {
            ""
        };
        FIELDS.line(&mut out, "zeros", format!("{}{zero_note}", grouped(s.zeros)));
        let first: Vec<String> = s.first.iter().map(|&v| float(f64::from(v))).collect();
        FIELDS.line(&mut out, "first values", first.join(", "));
        let h = &s.histogram;
        let peak = h.counts.iter().copied().max().unwrap_or(0).max(1);
        let width = (f64::from(h.max) - f64::from(h.min)) / h.counts.len().max(1) as f64;
        FIELDS.line(
            &mut out,
            "histogram",
            format!(
                "{} bins over [{}, {}]",
                h.counts.len(),
                float(f64::from(h.min)),
                float(f64::from(h.max))
            ),
        );
        for (i, &c) in h.counts.iter().enumerate() {
            let low = f64::from(h.min) + width * i as f64;
            let bar = "█".repeat(((c as f64 / peak as f64) * 40.0).round() as usize);
            let _ = writeln!(out, "    {:>12}  {:<40} {}", float(low), bar, grouped(c));
        }
        FIELDS.line(
            &mut out,
            "read",
            format!(
                "{} in {} read{} (a tensor larger than one read is read twice: statistics, then histogram)",
                bytes(self.bytes_read),
                self.reads,
                if self.reads == 1 { "" } else { "s" }
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
