//! `ggufscope diff A B`: what differs between two models (summary, metadata, tensor infos), and with
//! `--values` the error of B's tensor values against A's (the reference). The comparing is
//! `gguf-diff`'s; this reads the files — headers as `info` does, a split model as one, then
//! only the compared tensors' bytes, a step at a time — and prints.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use gguf_core::edit::show;
use gguf_core::text::Escaped;
use gguf_core::{Entry, TensorInfo};
use gguf_diff::json::{Document, text_of};
use gguf_diff::{Change, ErrorStats, Field, HeaderDiff, LineRun, Measured, Side, ValuePairs, Which, layers};
use gguf_values::dequant::DequantError;

use crate::cli::{self, EXIT_UNPARSABLE, complain, finish, read_model_or_exit};
use crate::format::{bytes, grouped};
use crate::model_files::ModelRead;
use crate::source::{self, Location, MeasureError, ReadStats, Source, http};
use crate::width::{self, Style};

/// Exit status when the two differ (diff(1)'s).
const EXIT_DIFFERENT: u8 = 1;
/// Changed lines shown per multi-line string in the text output (the JSON has them all).
const SHOWN_LINES: usize = 40;
/// Characters of a value shown on one line.
const VALUE_CHARS: usize = 60;
/// The values table's name column: names are padded to the longest up to this, and a longer one
/// has a line of its own above its figures (cut as every name is, `Excerpt`), so that the rows
/// fit 80 columns and the table's width never follows a hostile name.
const NAME_COLUMN: usize = 28;

/// Compare two models, A (the reference) and B: the summary side by side, metadata keys added
/// (in B, not A), removed and changed (a chat template as a line diff, an array by its first
/// differing element), tensors added, removed and changed. With --values, the error of B's
/// tensor values against A's — n, RMSE, max absolute error, cosine similarity, SNR — per
/// tensor and per layer, reading only those tensors' bytes. Split models and URLs as `info`.
///
/// Exit status: 0 when the same (metadata and tensor infos; and values with --values), 1 when
/// they differ, 2 when a file cannot be read or a tensor cannot be decoded.
#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The reference: a .gguf file or its URL (a shard brings its split model).
    a: String,
    /// The file compared with it.
    b: String,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
    /// Also compare the values of every tensor in both with the same shape (whatever the two
    /// types): n, RMSE, max absolute error, cosine similarity and SNR of B against A.
    #[arg(long)]
    values: bool,
    /// Compare only this tensor's values (repeatable).
    #[arg(long, value_name = "NAME", requires = "values")]
    tensor: Vec<String>,
    /// The order of the values table: worst first.
    #[arg(long, value_enum, default_value = "rmse")]
    sort: Sort,
    /// Read only the files named, not the other shards of their split models.
    #[arg(long)]
    no_siblings: bool,
}

/// How the values table is ordered.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    /// RMSE, largest first.
    Rmse,
    /// Max absolute error, largest first.
    MaxAbs,
    /// Cosine similarity, smallest first.
    Cosine,
    /// SNR, smallest first.
    Snr,
    /// File order (A's).
    Name,
}

/// One side of the comparison.
struct Model {
    arg: String,
    asked: Location,
    read: ModelRead,
    /// Open files by shard name, for reading tensors.
    sources: HashMap<String, Box<dyn Source>>,
}

impl Model {
    /// The tensor `index`'s values in its file, and that file (opened once).
    fn side(&mut self, index: usize) -> Result<(Side, &mut (dyn Source + 'static)), String> {
        let model = &self.read.model;
        let tensor = &model.header().tensors[index];
        let shard = model.shard_of(index).ok_or_else(|| {
            format!(
                "{}: no shard holds tensor \"{}\"",
                self.arg,
                tensor.name.excerpt()
            )
        })?;
        let side = Side::new(&shard.header, tensor).map_err(|e| self.tensor_error(tensor, &e))?;
        if !self.sources.contains_key(&shard.name) {
            let at = self.read.location_of(&shard.name, &self.asked);
            let source = at.open(&http::agent()).map_err(|e| format!("{at}: {e}"))?;
            self.sources.insert(shard.name.clone(), source);
        }
        let source = self.sources.get_mut(&shard.name).map(|s| &mut **s);
        source
            .map(|s| (side, s))
            .ok_or_else(|| "unreachable: source just opened".into())
    }

    fn tensor_error(&self, tensor: &TensorInfo, e: &DequantError) -> String {
        format!("{}: tensor \"{}\": {e}", self.arg, tensor.name.excerpt())
    }
}

/// Runs `ggufscope diff`.
pub fn run(args: &DiffArgs) -> ExitCode {
    let open = |arg: &str| -> Result<Model, ExitCode> {
        Ok(Model {
            arg: arg.to_string(),
            asked: Location::parse(arg),
            read: read_model_or_exit(arg, !args.no_siblings)?,
            sources: HashMap::new(),
        })
    };
    let (mut a, mut b) = match (open(&args.a), open(&args.b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(status), _) | (_, Err(status)) => return status,
    };
    let d = gguf_diff::diff(a.read.model.header(), b.read.model.header());
    let measured = match args.values {
        true => match measure(args, &d, &mut a, &mut b) {
            Ok(m) => Some(m),
            Err(e) => {
                complain!("{e}");
                return ExitCode::from(EXIT_UNPARSABLE);
            }
        },
        false => None,
    };
    let document = Document {
        a_name: &a.arg,
        b_name: &b.arg,
        a: &a.read.model,
        b: &b.read.model,
        diff: &d,
        values: measured.as_ref().map(|(m, _)| m.as_slice()),
    };
    let differences = document.differences();
    let mut stdout = cli::stdout();
    let written = match args.json {
        true => crate::json::write(&mut stdout, &document),
        false => {
            let text = render(args, &a, &b, &d, measured.as_ref(), differences);
            stdout.write_all(text.as_bytes())
        }
    };
    match finish(written.and_then(|()| stdout.flush())) {
        status if status != ExitCode::SUCCESS => status,
        _ if differences > 0 => ExitCode::from(EXIT_DIFFERENT),
        ok => ok,
    }
}

/// The pairs to compare: every tensor in both with the same shape, or those named.
fn pairs(args: &DiffArgs, d: &HeaderDiff, a: &Model, b: &Model) -> Result<Vec<(usize, usize)>, String> {
    let all = d.tensors.same_shape();
    if args.tensor.is_empty() {
        return Ok(all);
    }
    let name_in = |m: &Model, name: &str| {
        m.read
            .model
            .header()
            .tensors
            .iter()
            .any(|t| t.name.as_bytes() == name.as_bytes())
    };
    let ta = &a.read.model.header().tensors;
    args.tensor
        .iter()
        .map(|name| {
            let found = all
                .iter()
                .find(|(i, _)| ta[*i].name.as_bytes() == name.as_bytes());
            found.copied().ok_or_else(|| {
                let name_shown = Escaped(name.as_bytes());
                match (name_in(a, name), name_in(b, name)) {
                    (false, _) => format!("{}: no tensor named \"{name_shown}\"", a.arg),
                    (_, false) => format!("{}: no tensor named \"{name_shown}\"", b.arg),
                    _ => format!("tensor \"{name_shown}\" has another shape in each file"),
                }
            })
        })
        .collect()
}

/// Compares the values of the pairs: each pair's error, and the bytes read from A and B.
fn measure(
    args: &DiffArgs,
    d: &HeaderDiff,
    a: &mut Model,
    b: &mut Model,
) -> Result<(Vec<Measured>, [ReadStats; 2]), String> {
    let mut read = [ReadStats::default(); 2];
    let mut measured = Vec::new();
    for (i, j) in pairs(args, d, a, b)? {
        let (side_a, source_a) = a.side(i)?;
        let (side_b, source_b) = b.side(j)?;
        let Some(values) = ValuePairs::new(side_a, side_b)
            .map(|pairs| pairs.with_dequantizer(gguf_values::avx2::dequantize_to))
        else {
            let name = &a.read.model.header().tensors[i].name;
            return Err(format!(
                "tensor \"{}\": the two hold different numbers of values",
                name.excerpt()
            ));
        };
        let (stats, counted) = source::compare(source_a, source_b, values).map_err(|(which, e)| {
            let (m, index) = if which == Which::A { (&*a, i) } else { (&*b, j) };
            let tensor = &m.read.model.header().tensors[index];
            match e {
                MeasureError::Read(e) => format!("{}: tensor \"{}\": {e}", m.arg, tensor.name.excerpt()),
                MeasureError::Dequant(e) => m.tensor_error(tensor, &e),
            }
        })?;
        for (total, c) in read.iter_mut().zip(counted) {
            total.bytes += c.bytes;
            total.reads += c.reads;
        }
        measured.push(Measured { a: i, b: j, stats });
    }
    Ok((measured, read))
}

/// Sorts worst first by `sort`; figures that are `None` last. Each with its place in `measured`.
fn sorted(measured: &[Measured], sort: Sort) -> Vec<(usize, &Measured)> {
    let mut rows: Vec<(usize, &Measured)> = measured.iter().enumerate().collect();
    let key = |m: &Measured| -> Option<f64> {
        match sort {
            Sort::Rmse => m.stats.rmse().map(|v| -v),
            Sort::MaxAbs => m.stats.max_abs().map(|v| -v),
            Sort::Cosine => m.stats.cosine(),
            Sort::Snr => m.stats.snr_db(),
            Sort::Name => Some(m.a as f64),
        }
    };
    rows.sort_by(|(_, x), (_, y)| match (key(x), key(y)) {
        (Some(p), Some(q)) => p.total_cmp(&q),
        (p, q) => q.is_none().cmp(&p.is_none()).reverse(),
    });
    rows
}

// ------------------------------------------------------------------------------------- text

fn field(f: &Option<Field>) -> String {
    match f {
        None => "-".into(),
        Some(Field::Count(n)) => grouped(*n),
        Some(Field::Number(x)) => {
            let s = format!("{x:.4}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        }
        Some(Field::Text(t)) => Escaped(t.as_bytes()).to_string(),
    }
}

/// A figure for the values table: NaN and infinities by name, `-` when there is none.
fn figure(v: Option<f64>, decimals: usize) -> String {
    match v {
        None => "-".into(),
        Some(v) if v == f64::INFINITY => "inf".into(),
        Some(v) if v == f64::NEG_INFINITY => "-inf".into(),
        Some(v) if v != 0.0 && v.abs() < 1e-3 => format!("{v:.3e}"),
        Some(v) => format!("{v:.decimals$}"),
    }
}

/// A key added or removed, wrapped at 80 columns.
fn entry_line(sign: char, e: &Entry) -> String {
    let text = format!(
        "{} ({}) = {}",
        e.key.escaped(),
        type_name(e),
        show(&e.value, VALUE_CHARS)
    );
    width::indented(&text, &format!("  {sign} "), 6)
}

/// `UINT32`, or `ARRAY[UINT32]` for arrays.
fn type_name(e: &Entry) -> String {
    match e.value.as_array() {
        Some(a) => format!("ARRAY[{}]", a.elem_type().name()),
        None => e.value.ty().name().to_string(),
    }
}

fn tensor_line(t: &TensorInfo) -> String {
    let dims: Vec<String> = t.dims.iter().map(|&d| grouped(d)).collect();
    format!("{} [{}]", t.ty, dims.join(", "))
}

fn render(
    args: &DiffArgs,
    a: &Model,
    b: &Model,
    d: &HeaderDiff,
    measured: Option<&(Vec<Measured>, [ReadStats; 2])>,
    differences: usize,
) -> String {
    let (ha, hb) = (a.read.model.header(), b.read.model.header());
    let mut out = String::new();
    let _ = writeln!(out, "A  {}", Escaped(a.arg.as_bytes()));
    let _ = writeln!(out, "B  {}", Escaped(b.arg.as_bytes()));
    let _ = match differences {
        0 => writeln!(out, "the same"),
        1 => writeln!(out, "1 difference"),
        n => writeln!(out, "{n} differences"),
    };

    let differing: Vec<_> = d.summary.iter().filter(|r| r.differs()).collect();
    if !differing.is_empty() {
        let _ = writeln!(out, "\nsummary: {} differ", differing.len());
        for r in differing {
            let _ = writeln!(out, "  {:<20} {} → {}", r.field, field(&r.a), field(&r.b));
        }
    }

    let m = &d.metadata;
    if !(m.added.is_empty() && m.removed.is_empty() && m.changed.is_empty()) {
        let _ = writeln!(
            out,
            "\nmetadata: {} added, {} removed, {} changed",
            m.added.len(),
            m.removed.len(),
            m.changed.len()
        );
        let (ea, eb) = (ha.metadata.entries(), hb.metadata.entries());
        for &i in &m.removed {
            out += &entry_line('-', &ea[i]);
        }
        for &j in &m.added {
            out += &entry_line('+', &eb[j]);
        }
        for c in &m.changed {
            out += &changed_key(&ea[c.a], &eb[c.b], &c.change);
        }
    }

    let t = &d.tensors;
    if !(t.added.is_empty() && t.removed.is_empty() && t.changed.is_empty()) {
        let _ = writeln!(
            out,
            "\ntensors: {} added, {} removed, {} changed, {} the same",
            t.added.len(),
            t.removed.len(),
            t.changed.len(),
            t.same.len()
        );
        for &i in &t.removed {
            let x = &ha.tensors[i];
            let text = format!("{} {}", x.name.excerpt(), tensor_line(x));
            out += &width::indented(&text, "  - ", 6);
        }
        for &j in &t.added {
            let y = &hb.tensors[j];
            let text = format!("{} {}", y.name.excerpt(), tensor_line(y));
            out += &width::indented(&text, "  + ", 6);
        }
        for c in &t.changed {
            let (x, y) = (&ha.tensors[c.a], &hb.tensors[c.b]);
            let text = format!("{} {} → {}", x.name.excerpt(), tensor_line(x), tensor_line(y));
            out += &width::indented(&text, "  ~ ", 6);
        }
    } else {
        let _ = writeln!(out, "\ntensors: {} the same (type and shape)", t.same.len());
    }

    if let Some((measured, read)) = measured {
        out += &render_values(args, a, b, measured, read);
    }

    let _ = writeln!(out, "\nsummary (* differs)");
    let _ = writeln!(out, "  {:<20} {:<24} B", "", "A");
    for r in &d.summary {
        let mark = if r.differs() { '*' } else { ' ' };
        let _ = writeln!(out, "{mark} {:<20} {:<24} {}", r.field, field(&r.a), field(&r.b));
    }
    out
}

/// One changed key: old → new, an array's first difference, or a string's changed lines.
fn changed_key(a: &Entry, b: &Entry, change: &Change) -> String {
    let key = a.key.escaped();
    let mut out = String::new();
    match change {
        Change::Type => {
            let text = format!(
                "{key}: ({}) {} → ({}) {}",
                type_name(a),
                show(&a.value, VALUE_CHARS),
                type_name(b),
                show(&b.value, VALUE_CHARS)
            );
            out += &width::indented(&text, "  ~ ", 6);
        }
        Change::Value => {
            let text = format!(
                "{key}: {} → {}",
                show(&a.value, VALUE_CHARS),
                show(&b.value, VALUE_CHARS)
            );
            out += &width::indented(&text, "  ~ ", 6);
        }
        Change::Array(c) => {
            let mut text = format!(
                "{key} ({}): {} → {} elements, {} of the first {} differ",
                type_name(a),
                grouped(c.len_a as u64),
                grouped(c.len_b as u64),
                grouped(c.differing as u64),
                grouped(c.len_a.min(c.len_b) as u64)
            );
            if let Some(f) = &c.first {
                let side = |v: &Option<gguf_core::Value>| {
                    v.as_ref()
                        .map_or_else(|| "(none)".to_string(), |v| show(v, VALUE_CHARS).to_string())
                };
                let _ = write!(text, "; first at [{}]: {} → {}", f.index, side(&f.a), side(&f.b));
            }
            out += &width::indented(&text, "  ~ ", 6);
        }
        Change::Lines(l) => {
            let cut = if l.cut {
                " (the diff was cut: too many changes to find the shortest; the changed middle is shown removed, then added)"
            } else {
                ""
            };
            let text = format!(
                "{key}: {} lines removed, {} added{cut}",
                grouped(l.removed() as u64),
                grouped(l.added() as u64)
            );
            out += &width::indented(&text, "  ~ ", 6);
            let (la, lb) = (gguf_diff::lines(text_of(a)), gguf_diff::lines(text_of(b)));
            let mut shown = 0;
            for run in &l.runs {
                let (sign, start, len, text) = match *run {
                    LineRun::Same { .. } => continue,
                    LineRun::Removed { a, len } => ('-', a, len, &la),
                    LineRun::Added { b, len } => ('+', b, len, &lb),
                };
                for (n, line) in text.iter().enumerate().skip(start).take(len) {
                    if shown == SHOWN_LINES {
                        let rest = l.removed() + l.added() - shown;
                        let _ = writeln!(out, "      … {rest} more changed lines (--json has them all)");
                        return out;
                    }
                    let _ = writeln!(out, "    {sign}{:>5} {}", n + 1, Escaped(line));
                    shown += 1;
                }
            }
        }
    }
    out
}

fn render_values(
    args: &DiffArgs,
    a: &Model,
    b: &Model,
    measured: &[Measured],
    read: &[ReadStats; 2],
) -> String {
    let (ha, hb) = (a.read.model.header(), b.read.model.header());
    let mut out = String::new();
    let inexact = measured.iter().filter(|m| !m.stats.exact()).count();
    let _ = writeln!(
        out,
        "\nvalues of B against A (the reference): {} tensors compared, {} with errors",
        measured.len(),
        inexact
    );
    let _ = writeln!(
        out,
        "  read {} of A, {} of B",
        bytes(read[0].bytes),
        bytes(read[1].bytes)
    );
    if inexact == 0 {
        let values: u64 = measured.iter().map(|m| m.stats.n()).sum();
        let _ = writeln!(
            out,
            "  {}: each of the {} values is the same in A and B",
            width::paint(Style::Green, "values identical"),
            grouped(values)
        );
        return out;
    }
    let sort = match args.sort {
        Sort::Rmse => "RMSE, largest first",
        Sort::MaxAbs => "max abs error, largest first",
        Sort::Cosine => "cosine, smallest first",
        Sort::Snr => "SNR, smallest first",
        Sort::Name => "file order",
    };
    let _ = writeln!(out, "  by {sort} (--sort rmse|max-abs|cosine|snr|name)");
    let exact = measured.len() - inexact;
    if exact > 0 {
        let _ = writeln!(
            out,
            "  {exact} tensors with the same values are not listed (--json lists them)"
        );
    }
    let names: Vec<String> = measured
        .iter()
        .map(|m| ha.tensors[m.a].name.excerpt().to_string())
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(6, NAME_COLUMN);
    let _ = writeln!(
        out,
        "  {:<width$} {:<11} {:>9} {:>9} {:>8} {:>6}",
        "tensor", "types", "RMSE", "max abs", "cosine", "SNR dB"
    );
    for (row, m) in sorted(measured, args.sort) {
        if m.stats.exact() {
            continue;
        }
        let (ta, tb) = (ha.tensors[m.a].ty, hb.tensors[m.b].ty);
        let types = if ta == tb {
            ta.to_string()
        } else {
            format!("{ta}→{tb}")
        };
        let s = &m.stats;
        let name = &names[row];
        // A name longer than its column has a line of its own, whole.
        let shown = if name.chars().count() > width {
            let _ = writeln!(out, "  {name}");
            ""
        } else {
            name
        };
        let _ = writeln!(
            out,
            "  {shown:<width$} {types:<11} {:>9} {:>9} {:>8} {:>6}{}",
            figure(s.rmse(), 6),
            figure(s.max_abs(), 6),
            figure(s.cosine(), 6),
            figure(s.snr_db(), 2),
            non_finite_note(s)
        );
    }
    let _ = writeln!(out, "\n  per layer");
    let _ = writeln!(
        out,
        "  {:<8} {:>7} {:>13} {:>9} {:>9} {:>8} {:>6}",
        "layer", "tensors", "values", "RMSE", "max abs", "cosine", "SNR dB"
    );
    for (layer, count, s) in layers(measured, a.read.model.header()) {
        let name = layer.map_or_else(|| "other".to_string(), |l| format!("blk.{l}"));
        let _ = writeln!(
            out,
            "  {:<8} {:>7} {:>13} {:>9} {:>9} {:>8} {:>6}{}",
            name,
            count,
            grouped(s.n()),
            figure(s.rmse(), 6),
            figure(s.max_abs(), 6),
            figure(s.cosine(), 6),
            figure(s.snr_db(), 2),
            non_finite_note(&s)
        );
    }
    out
}

/// Pairs with a NaN or an infinity, which the figures leave out: said on a line of its own.
fn non_finite_note(s: &ErrorStats) -> String {
    match s.non_finite() {
        0 => String::new(),
        n => format!(
            "\n      ({} NaN/inf pairs left out, {} of them differ)",
            grouped(n),
            grouped(s.non_finite_differ())
        ),
    }
}
