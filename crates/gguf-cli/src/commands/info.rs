//! `ggufscope info`: the summary as text.

use std::fmt::Write;

use gguf_core::memory::{KvType, MemoryError, MemoryEstimate, MemoryOptions};
use gguf_core::split::SplitModel;
use gguf_core::{AttentionKind, Endian, Escaped, FindingCode, Header, Summary};

use crate::format::{bytes, count, grouped, grouped_decimal};
use crate::source::ReadStats;

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_string(), grouped)
}

/// The readable summary of one file.
pub fn render(name: &str, header: &Header, stats: ReadStats) -> String {
    let s: Summary = header.summary();
    let mut out = String::new();
    let file_len = header.file_len.unwrap_or(0);
    let endian = match header.endian {
        Endian::Little => "little-endian",
        Endian::Big => "big-endian (inferred from the version field)",
    };
    let _ = writeln!(out, "{}", Escaped(name.as_bytes()));
    let _ = writeln!(
        out,
        "  file          {} ({} bytes), GGUF v{}, {endian}",
        bytes(file_len),
        grouped(file_len),
        header.version
    );
    let _ = writeln!(
        out,
        "  header        {} bytes, data at {} (alignment {}); read {} in {} read{}",
        grouped(header.header_len),
        grouped(header.data_offset),
        header.alignment,
        bytes(stats.bytes),
        stats.reads,
        if stats.reads == 1 { "" } else { "s" }
    );
    // Values can hold the file's own text (names, tokenizer): control characters are escaped
    // so that hostile metadata cannot write escape sequences to the terminal.
    let line = |out: &mut String, label: &str, value: String| {
        let _ = writeln!(out, "  {label:<13} {}", Escaped(value.as_bytes()));
    };
    line(
        &mut out,
        "architecture",
        s.architecture.clone().unwrap_or_else(|| "-".into()),
    );
    if let Some(name) = &s.name {
        line(&mut out, "name", name.clone());
    }
    if let Some(label) = &s.size_label {
        line(&mut out, "size label", label.clone());
    }
    let params = match s.parameters {
        Some(p) => format!("{} ({})", count(p), grouped(p)),
        None => "overflows u64".into(),
    };
    line(&mut out, "parameters", params);
    match (&s.experts, s.active_parameters) {
        (Some(_), Some(0)) => line(
            &mut out,
            "active",
            "none to count: the file holds no weights".into(),
        ),
        (Some(e), Some(active)) => line(
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
    line(
        &mut out,
        "bits/weight",
        format!("{bpw} ({} of tensor data)", bytes(s.tensor_bytes)),
    );
    let label = s
        .file_type
        .map_or_else(|| "-".into(), |f| format!("{f} (general.file_type {})", f.0));
    line(&mut out, "file type", label);
    if !s.types.is_empty() {
        let mix: Vec<String> = s
            .types
            .iter()
            .map(|t| format!("{} ×{}", t.ty, t.tensors))
            .collect();
        line(&mut out, "tensor types", mix.join(", "));
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
    line(&mut out, "attention", att);
    if let Some(e) = &s.experts {
        line(
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
    line(&mut out, "context", opt(s.context_length));
    line(&mut out, "layers", opt(s.block_count));
    line(&mut out, "embedding", opt(s.embedding_length));
    if let Some(ff) = s.feed_forward_length {
        line(&mut out, "feed-forward", grouped(ff));
    }
    let tok = match (&s.tokenizer_model, &s.tokenizer_pre) {
        (Some(m), Some(p)) => format!("{m} (pre-tokenizer {p})"),
        (Some(m), None) => m.clone(),
        _ => "-".into(),
    };
    line(
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
        line(&mut out, "rope", rope);
    }
    line(
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
pub fn render_split(model: &SplitModel, notes: &[String]) -> String {
    let mut out = String::new();
    let mut line = |label: &str, value: &str| {
        let _ = writeln!(out, "  {label:<13} {}", Escaped(value.as_bytes()));
    };
    if model.is_split() {
        let names: Vec<&str> = model.shards().iter().map(|s| s.name.as_str()).collect();
        line(
            "shards",
            &format!("{} of {}: {}", names.len(), model.count(), names.join(", ")),
        );
        for m in model.missing() {
            let name = m.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
            line(
                "missing",
                &format!(
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
            line("left out", &f.finding.message);
        }
    }
    for note in notes {
        line("note", note);
    }
    out
}

/// `--ctx`, `--kv-type`, `--parallel`: what the memory estimate is for.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MemoryArgs {
    /// Context length per sequence for the memory estimate [default: the model's].
    #[arg(long, value_name = "N")]
    ctx: Option<u64>,
    /// KV cache type for the memory estimate [default: f16].
    #[arg(long, value_name = "TYPE", value_parser = ["f32", "f16", "q8_0", "q4_0"])]
    kv_type: Option<String>,
    /// Sequences decoded in parallel, each with its own context [default: 1].
    #[arg(long, value_name = "N")]
    parallel: Option<u64>,
}

impl MemoryArgs {
    /// Whether any of the flags was given (then `--json` reports the estimate).
    pub fn given(&self) -> bool {
        self.ctx.is_some() || self.kv_type.is_some() || self.parallel.is_some()
    }

    pub fn options(&self) -> MemoryOptions {
        let defaults = MemoryOptions::default();
        MemoryOptions {
            context: self.ctx,
            kv_type: self
                .kv_type
                .as_deref()
                .and_then(KvType::from_name)
                .unwrap_or(defaults.kv_type),
            parallel: self.parallel.unwrap_or(defaults.parallel),
        }
    }
}

/// The memory estimate as text, with its formula and what it leaves out.
pub fn render_memory(estimate: &Result<MemoryEstimate, MemoryError>) -> String {
    let mut out = String::new();
    let e = match estimate {
        Ok(e) => e,
        Err(err) => {
            let _ = writeln!(out, "  {:<13} - ({err})", "memory");
            return out;
        }
    };
    let _ = writeln!(
        out,
        "  {:<13} {} total for {} tokens × {} sequence{}, KV cache {}",
        "memory",
        bytes(e.total),
        grouped(e.context),
        e.parallel,
        if e.parallel == 1 { "" } else { "s" },
        e.kv_type.name()
    );
    let _ = writeln!(
        out,
        "                weights {} + KV cache {} + compute {}",
        bytes(e.weights),
        bytes(e.kv_cache),
        bytes(e.compute)
    );
    for line in &e.formula {
        let _ = writeln!(out, "                {line}");
    }
    for note in &e.notes {
        let _ = writeln!(out, "                note: {note}");
    }
    out
}
