//! `ggufscope info`: the summary, as text or as the JSON report.

use std::fmt::Write;
use std::io::Write as _;
use std::process::ExitCode;

use gguf_core::memory::{self, Buffers, MemoryError, Options};
use gguf_core::report::{Report, ReportOptions};
use gguf_core::split::SplitModel;
use gguf_core::text::Escaped;
use gguf_core::{AttentionKind, Endian, FindingCode, Header, Summary};

use crate::cli::{self, EXIT_UNPARSABLE, complain, finish, read_model_or_exit};
use crate::fields::Fields;
use crate::format::{bytes, count, grouped, grouped_decimal, mib};
use crate::memory_args::MemoryArgs;
use crate::source::{Location, ReadStats};

/// Summarize a file: architecture, parameters, bits per weight, attention, experts, context.
/// One shard of a split model (NAME-00001-of-00003.gguf) brings its siblings: the model is
/// summarized as one.
///
/// Exit status: 0 when the header was read, 2 when the file cannot be parsed.
#[derive(clap::Args, Debug)]
pub struct InfoArgs {
    /// The .gguf file, or its URL (http, https: read with Range requests).
    file: String,
    /// Print one JSON document (metadata, tensors, summary) instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    memory: MemoryArgs,
    /// Read only the file named, not the other shards of its split model.
    #[arg(long)]
    no_siblings: bool,
}

/// Runs `ggufscope info`.
pub fn run(args: &InfoArgs) -> ExitCode {
    let arg = &args.file;
    let read = match read_model_or_exit(arg, !args.no_siblings) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let header = read.model.header();
    let options = args.memory.options();
    let buffers = memory::buffers(header, &options);
    let mut stdout = cli::stdout();
    let written = if args.json {
        let mut report = Report::of_model(&read.model, ReportOptions::default());
        match buffers {
            Ok(b) => report = report.with_memory(options, b),
            // Without options asked for, a model whose buffers cannot be sized (no layers, a
            // vocabulary-only file) simply has no `memory`.
            Err(e) if args.memory.given() => {
                complain!("{arg}: no memory figures: {e}");
                return ExitCode::from(EXIT_UNPARSABLE);
            }
            Err(_) => {}
        }
        crate::json::write(&mut stdout, &report)
    } else {
        let text = render(&Location::parse(arg).file_name(), header, read.stats)
            + &render_split(&read.model, &read.notes)
            + &render_memory(&options, &buffers);
        stdout.write_all(text.as_bytes())
    };
    finish(written.and_then(|()| stdout.flush()))
}

/// The summary's lines: labels in a column 13 characters wide.
const FIELDS: Fields = Fields::new(13);

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_string(), grouped)
}

/// The readable summary of one file.
fn render(name: &str, header: &Header, stats: ReadStats) -> String {
    let s: Summary = header.summary();
    let mut out = String::new();
    let file_len = header.file_len.unwrap_or(0);
    let endian = match header.endian {
        Endian::Little => "little-endian",
        Endian::Big => "big-endian (inferred from the version field)",
    };
    let _ = writeln!(out, "{}", Escaped(name.as_bytes()));
    FIELDS.line(
        &mut out,
        "file",
        format!(
            "{} ({} bytes), GGUF v{}, {endian}",
            bytes(file_len),
            grouped(file_len),
            header.version
        ),
    );
    FIELDS.line(
        &mut out,
        "header",
        format!(
            "{} bytes, data at {} (alignment {}); read {} in {} read{}",
            grouped(header.header_len),
            grouped(header.data_offset),
            header.alignment,
            bytes(stats.bytes),
            stats.reads,
            if stats.reads == 1 { "" } else { "s" }
        ),
    );
    FIELDS.line(
        &mut out,
        "architecture",
        s.architecture.clone().unwrap_or_else(|| "-".into()),
    );
    if let Some(name) = &s.name {
        FIELDS.line(&mut out, "name", name.clone());
    }
    if let Some(label) = &s.size_label {
        FIELDS.line(&mut out, "size label", label.clone());
    }
    let params = match s.parameters {
        Some(p) => format!("{} ({})", count(p), grouped(p)),
        None => "overflows u64".into(),
    };
    FIELDS.line(&mut out, "parameters", params);
    match (&s.experts, s.active_parameters) {
        (Some(_), Some(0)) => FIELDS.line(&mut out, "active", "none to count: the file holds no weights"),
        (Some(e), Some(active)) => FIELDS.line(
            &mut out,
            "active",
            format!(
                "{} ({}) per token, {} of {} experts",
                count(active),
                grouped(active),
                opt(e.used),
                e.count
            ),
        ),
        _ => {}
    }
    let bpw = s
        .bits_per_weight
        .map_or_else(|| "-".into(), |b| format!("{b:.2}"));
    FIELDS.line(
        &mut out,
        "bits/weight",
        format!("{bpw} ({} of tensor data)", bytes(s.tensor_bytes)),
    );
    let label = s
        .file_type
        .map_or_else(|| "-".into(), |f| format!("{f} (general.file_type {})", f.0));
    FIELDS.line(&mut out, "file type", label);
    if !s.types.is_empty() {
        let mix: Vec<String> = s
            .types
            .iter()
            .map(|t| format!("{} ×{}", t.ty, t.tensors))
            .collect();
        FIELDS.line(&mut out, "tensor types", mix.join(", "));
    }
    let a = &s.attention;
    let mut att = a.kind.name().to_string();
    match a.kind {
        AttentionKind::Mla => {
            let _ = write!(att, ", kv_lora_rank {}", opt(a.kv_lora_rank));
        }
        AttentionKind::PerLayer => {
            if let Some(l) = a.kv_heads_per_layer.as_ref().or(a.heads_per_layer.as_ref()) {
                let (min, max) = (
                    l.iter().min().copied().unwrap_or(0),
                    l.iter().max().copied().unwrap_or(0),
                );
                let _ = write!(att, ", {} layers, heads {min}–{max}", l.len());
            }
        }
        _ => {}
    }
    if let Some(h) = a.heads {
        let _ = write!(att, ", {h} heads");
    }
    if let Some(k) = a.kv_heads {
        let _ = write!(att, ", {k} KV heads");
    }
    if let (Some(g), AttentionKind::Gqa) = (a.group_size, a.kind) {
        let _ = write!(att, ", group {g}");
    }
    if let Some(k) = a.key_length {
        let _ = write!(att, ", head size {k}");
    }
    if let Some(w) = a.sliding_window {
        let _ = write!(att, ", sliding window {w}");
    }
    FIELDS.line(&mut out, "attention", att);
    if let Some(e) = &s.experts {
        FIELDS.line(
            &mut out,
            "experts",
            format!(
                "{} total, {} used, {} shared",
                e.count,
                opt(e.used),
                opt(e.shared)
            ),
        );
    }
    FIELDS.line(&mut out, "context", opt(s.context_length));
    FIELDS.line(&mut out, "layers", opt(s.block_count));
    FIELDS.line(&mut out, "embedding", opt(s.embedding_length));
    if let Some(ff) = s.feed_forward_length {
        FIELDS.line(&mut out, "feed-forward", grouped(ff));
    }
    let tok = match (&s.tokenizer_model, &s.tokenizer_pre) {
        (Some(m), Some(p)) => format!("{m} (pre-tokenizer {p})"),
        (Some(m), None) => m.clone(),
        _ => "-".into(),
    };
    FIELDS.line(
        &mut out,
        "vocabulary",
        format!("{} tokens, tokenizer {tok}", opt(s.vocab_size)),
    );
    let r = &s.rope;
    if r.freq_base.is_some() || r.scaling_type.is_some() {
        let mut rope = r
            .freq_base
            .map_or_else(|| "base -".into(), |b| format!("base {}", grouped_decimal(b)));
        if let Some(t) = &r.scaling_type {
            let _ = write!(rope, ", scaling {t}");
        }
        if let Some(f) = r.scaling_factor {
            let _ = write!(rope, " ×{f}");
        }
        if let Some(c) = r.original_context_length {
            let _ = write!(rope, " from {}", grouped(c));
        }
        FIELDS.line(&mut out, "rope", rope);
    }
    FIELDS.line(
        &mut out,
        "tensors",
        format!(
            "{} tensor infos, {} key-value pairs",
            header.tensors.len(),
            header.metadata.len()
        ),
    );
    out
}

/// The shards of a split model — read, missing, left out — and how the files were read (redirects,
/// a server that ignores Range), after the summary of the whole.
fn render_split(model: &SplitModel, notes: &[String]) -> String {
    let mut out = String::new();
    if model.is_split() {
        let names: Vec<&str> = model.shards().iter().map(|s| s.name.as_str()).collect();
        FIELDS.line(
            &mut out,
            "shards",
            format!("{} of {}: {}", names.len(), model.count(), names.join(", ")),
        );
        for m in model.missing() {
            let name = m.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
            FIELDS.line(
                &mut out,
                "missing",
                format!(
                    "shard {} of {}{name}: its tensors are not counted",
                    m.number,
                    model.count()
                ),
            );
        }
        for f in model
            .findings()
            .iter()
            .filter(|f| f.finding.code == FindingCode::ShardLeftOut)
        {
            FIELDS.line(&mut out, "left out", &f.finding.message);
        }
    }
    for note in notes {
        FIELDS.line(&mut out, "note", note);
    }
    out
}

/// What llama.cpp allocates, buffer by buffer, in binary units as its logs give them.
fn render_memory(options: &Options, buffers: &Result<Buffers, MemoryError>) -> String {
    let mut out = String::new();
    let b = match buffers {
        Ok(b) => b,
        Err(err) => {
            FIELDS.wrapped(&mut out, "memory", format!("- ({err})"));
            return out;
        }
    };
    let c = &b.context;
    FIELDS.line(
        &mut out,
        "memory",
        format!(
            "{} for -c {}, {}",
            mib(b.total().bytes),
            grouped(c.n_ctx),
            match (c.n_seq, c.kv_unified) {
                (1, _) => "1 sequence".to_string(),
                (n, true) => format!("{n} sequences sharing one cache"),
                (n, false) => format!("{n} sequences, a cache each"),
            }
        ),
    );
    FIELDS.more(
        &mut out,
        format!(
            "-ctk {} -ctv {}, flash attention {}",
            options.type_k,
            options.type_v,
            if c.flash_attn { "on" } else { "off" }
        ),
    );
    FIELDS.more(&mut out, format!("model buffer  {}", mib(b.model.bytes)));
    if !b.kv.is_empty() {
        FIELDS.more(
            &mut out,
            format!(
                "KV cache      {}: K {} + V {}",
                mib(b.kv_cache()),
                mib(b.kv_k()),
                mib(b.kv_v())
            ),
        );
    }
    for g in &b.kv {
        FIELDS.more(
            &mut out,
            format!(
                "  {} {}, {} layer{} × {} cells{}",
                if g.sliding { "sliding window" } else { "global" },
                mib(g.bytes()),
                g.layers,
                if g.layers == 1 { "" } else { "s" },
                grouped(g.cells),
                if g.streams > 1 {
                    format!(" × {} streams", g.streams)
                } else {
                    String::new()
                },
            ),
        );
    }
    if let Some(r) = &b.recurrent {
        FIELDS.more(
            &mut out,
            format!(
                "recurrent     {} ({} layer{} × {} cells)",
                mib(r.bytes()),
                r.layers,
                if r.layers == 1 { "" } else { "s" },
                r.cells
            ),
        );
    }
    FIELDS.more(&mut out, format!("output        {}", mib(b.output)));
    FIELDS.more(
        &mut out,
        format!(
            "compute       {} ({} to {})",
            mib(b.compute.bytes),
            mib(b.compute.low),
            mib(b.compute.high)
        ),
    );
    if b.model.high > b.model.low {
        FIELDS.more(
            &mut out,
            format!(
                "note: a CPU that repacks weights adds up to {}",
                mib(b.model.high - b.model.low)
            ),
        );
    }
    out
}
