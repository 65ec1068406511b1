//! `ggufscope info`: the summary, as text or as the JSON report.

use std::fmt::Write;
use std::io::Write as _;
use std::process::ExitCode;

use gguf_core::describe::Description;
use gguf_core::memory::{self, Buffers, MemoryError, Options};
use gguf_core::report::{Report, ReportOptions};
use gguf_core::split::SplitModel;
use gguf_core::text::{Escaped, Excerpt};
use gguf_core::{AttentionKind, Endian, FileKind, FindingCode, Header, Summary};

use crate::cli::{self, EXIT_UNPARSABLE, complain, finish, read_model_or_exit};
use crate::fields::Fields;
use crate::format::{bytes, count, grouped, grouped_decimal, mib, percent};
use crate::memory_args::MemoryArgs;
use crate::model_files;
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
    let description = describe(arg, header, !args.no_siblings);
    let options = args.memory.options();
    let buffers = memory::buffers(header, &options);
    let mut stdout = cli::stdout();
    let written = if args.json {
        let mut report =
            Report::of_model(&read.model, ReportOptions::default()).with_description(description);
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
        let shards = read.model.is_split().then(|| read.model.shards().len());
        let mut text = render(
            &Location::parse(arg).file_name(),
            header,
            shards,
            &description,
            read.stats,
        ) + &render_split(&read.model, &read.notes);
        match FileKind::of(header) {
            FileKind::Model | FileKind::VocabOnly => text += &render_memory(&options, &buffers),
            // Loaded with a model, never as one: its buffers are that model's.
            _ if args.memory.given() => {
                FIELDS.line(&mut text, "memory", "- (not a model: it is loaded with one)");
            }
            _ => {}
        }
        stdout.write_all(text.as_bytes())
    };
    finish(written.and_then(|()| stdout.flush()))
}

/// Head layouts of a per-layer attention listed, one line each; a hostile header can have a
/// layout per layer.
const LAYER_GROUPS_SHOWN: usize = 4;

/// What the file holds and can do; for a model named by its path, with the multimodal projector
/// beside it (`mmproj*.gguf`, as `fit` finds it) when `siblings` are looked at: what it lets the
/// model see or hear. A projector that cannot be read adds nothing.
fn describe(arg: &str, header: &Header, siblings: bool) -> Description {
    let description = Description::of(header);
    let local = matches!(Location::parse(arg), Location::Path(_));
    if !siblings || !local || !matches!(description.kind, FileKind::Model | FileKind::VocabOnly) {
        return description;
    }
    let Some(projector) = model_files::projector_beside(arg) else {
        return description;
    };
    let at = Location::parse(&projector);
    match model_files::read_model(&at, false) {
        Ok(read) if read.unreadable.is_empty() => {
            description.with_projector(&at.file_name(), read.model.header())
        }
        _ => description,
    }
}

/// The summary's lines: labels in a column 13 characters wide.
const FIELDS: Fields = Fields::new(13);

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_string(), grouped)
}

/// The readable summary of one file, or of a split model read from `shards` files (its header
/// the shards' put together).
fn render(name: &str, header: &Header, shards: Option<usize>, d: &Description, stats: ReadStats) -> String {
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
    // A split model's headers are summed over its shards, each of which has its own data offset.
    let (label, layout) = match shards {
        Some(n) => (
            "headers",
            format!(
                "{} bytes in {n} shards, the first's data at {}",
                grouped(header.header_len),
                grouped(header.data_offset)
            ),
        ),
        None => (
            "header",
            format!(
                "{} bytes, data at {}",
                grouped(header.header_len),
                grouped(header.data_offset)
            ),
        ),
    };
    FIELDS.line(
        &mut out,
        label,
        format!("{layout} (alignment {})", header.alignment,),
    );
    FIELDS.line(
        &mut out,
        "read",
        format!(
            "{} in {} read{}",
            bytes(stats.bytes),
            stats.reads,
            if stats.reads == 1 { "" } else { "s" }
        ),
    );
    FIELDS.line(&mut out, "kind", kind_text(d));
    match s.kind {
        FileKind::Model | FileKind::VocabOnly => model(&mut out, header, &s),
        FileKind::Adapter => adapter(&mut out, header, &s, d),
        FileKind::Imatrix => imatrix(&mut out, d),
        FileKind::Mmproj => mmproj(&mut out, header, &s, d),
        FileKind::ControlVector => control_vector(&mut out, d),
    }
    capabilities(&mut out, d);
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

/// What the file is, in words.
fn kind_text(s: &Description) -> String {
    match s.kind {
        FileKind::Model => "model".into(),
        FileKind::VocabOnly => "vocabulary only: a tokenizer and settings, no weights".into(),
        FileKind::Adapter => match s.adapter.as_ref().and_then(|a| a.adapter_type.as_deref()) {
            Some("lora") => "LoRA adapter, loaded over its base model (--lora)".into(),
            Some(other) => format!("adapter of type {other}"),
            None => "adapter (adapter.type missing)".into(),
        },
        FileKind::Imatrix => "importance matrix, for llama-quantize --imatrix".into(),
        FileKind::Mmproj => "multimodal projector, loaded beside a model (--mmproj)".into(),
        FileKind::ControlVector => "control vector, applied to a model (--control-vector)".into(),
    }
}

fn text_or_dash(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "-".into())
}

/// Name and size label, when the file gives them.
fn names(out: &mut String, s: &Summary) {
    if let Some(name) = &s.name {
        FIELDS.line(out, "name", name.clone());
    }
    if let Some(label) = &s.size_label {
        FIELDS.line(out, "size label", label.clone());
    }
}

/// Parameters, bits per weight, file type and tensor types: the weights a file holds.
fn weights(out: &mut String, header: &Header, s: &Summary) {
    let params = match s.parameters {
        Some(p) => format!("{} ({})", count(p), grouped(p)),
        None => "overflows u64".into(),
    };
    FIELDS.line(out, "parameters", params);
    match (&s.experts, s.active_parameters) {
        (Some(_), Some(0)) => FIELDS.line(out, "active", "none to count: the file holds no weights"),
        (Some(e), Some(active)) => FIELDS.line(
            out,
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
        out,
        "bits/weight",
        format!("{bpw} ({} of tensor data)", bytes(s.tensor_bytes)),
    );
    // Why the figure can be far from the file type's: a few tensors hold most of the bytes.
    for large in &s.dominant_tensors {
        if let Some(t) = header.tensors.get(large.index) {
            FIELDS.more(
                out,
                format!(
                    "{} of it in {} ({})",
                    percent(large.bytes, s.tensor_bytes),
                    Excerpt(t.name.as_bytes()),
                    t.ty
                ),
            );
        }
    }
    let label = s
        .file_type
        .map_or_else(|| "-".into(), |f| format!("{f} (general.file_type {})", f.0));
    FIELDS.line(out, "file type", label);
    if !s.types.is_empty() {
        let mix: Vec<String> = s
            .types
            .iter()
            .map(|t| format!("{} ×{}", t.ty, t.tensors))
            .collect();
        FIELDS.line(out, "tensor types", mix.join(", "));
    }
}

/// A model's (or its vocabulary's) summary.
fn model(out: &mut String, header: &Header, s: &Summary) {
    FIELDS.line(out, "architecture", text_or_dash(&s.architecture));
    names(out, s);
    if s.kind == FileKind::VocabOnly {
        FIELDS.line(out, "weights", "none: this file holds no tensors");
    } else {
        weights(out, header, s);
    }
    let a = &s.attention;
    let mut att = a.kind.name().to_string();
    if a.kind == AttentionKind::Mla {
        let _ = write!(att, ", kv_lora_rank {}", opt(a.kv_lora_rank));
    }
    if let Some(h) = a.heads {
        let _ = write!(att, ", {h} heads");
    }
    if let Some(k) = a.kv_heads {
        let _ = write!(att, ", {k} KV head{}", if k == 1 { "" } else { "s" });
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
    FIELDS.line(out, "attention", att);
    // Head counts that differ between layers: each layout and how many layers have it.
    for g in a.layer_groups.iter().take(LAYER_GROUPS_SHOWN) {
        let kind = match g.kind {
            AttentionKind::None => "no attention".to_string(),
            kind => format!("{}, {} heads, {} KV heads", kind.name(), g.heads, g.kv_heads),
        };
        let layers = if g.layers == 1 { "layer" } else { "layers" };
        FIELDS.more(out, format!("{} {layers}: {kind}", g.layers));
    }
    if let Some(more) = a
        .layer_groups
        .len()
        .checked_sub(LAYER_GROUPS_SHOWN)
        .filter(|&n| n > 0)
    {
        FIELDS.more(out, format!("and {more} other head layouts"));
    }
    if let Some(e) = &s.experts {
        FIELDS.line(
            out,
            "experts",
            format!(
                "{} total, {} used, {} shared",
                e.count,
                opt(e.used),
                opt(e.shared)
            ),
        );
    }
    FIELDS.line(out, "context", opt(s.context_length));
    FIELDS.line(out, "layers", opt(s.block_count));
    FIELDS.line(out, "embedding", opt(s.embedding_length));
    if let Some(ff) = s.feed_forward_length {
        FIELDS.line(out, "feed-forward", grouped(ff));
    }
    let tok = match (&s.tokenizer_model, &s.tokenizer_pre) {
        (Some(m), Some(p)) => format!("{m} (pre-tokenizer {p})"),
        (Some(m), None) => m.clone(),
        _ => "-".into(),
    };
    FIELDS.line(
        out,
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
        FIELDS.line(out, "rope", rope);
    }
}

/// A LoRA adapter: its rank, alpha and scale, what it changes, the model it goes over.
fn adapter(out: &mut String, header: &Header, s: &Summary, d: &Description) {
    FIELDS.line(out, "architecture", text_or_dash(&s.architecture));
    names(out, s);
    let Some(a) = &d.adapter else { return };
    let rank = match (a.rank(), &a.ranks[..]) {
        (Some(r), _) => format!("rank {r}"),
        (None, []) => "rank -".into(),
        (None, ranks) => format!(
            "ranks {}",
            ranks.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
        ),
    };
    let alpha = a
        .alpha
        .map_or_else(|| "no alpha".into(), |v| format!("alpha {v}"));
    let scale = a.scale().map(|v| format!(", scale {v}")).unwrap_or_default();
    FIELDS.line(
        out,
        "adapter",
        format!(
            "{}, {rank}, {alpha}{scale}",
            match a.adapter_type.as_deref() {
                Some("lora") => "LoRA",
                Some(other) => other,
                None => "-",
            }
        ),
    );
    FIELDS.line(
        out,
        "changes",
        format!(
            "{} in {} layer{} ({} pairs)",
            if a.targets.is_empty() {
                "-".into()
            } else {
                a.targets.join(", ")
            },
            a.layers,
            if a.layers == 1 { "" } else { "s" },
            a.pairs
        ),
    );
    for b in &a.base_models {
        let mut text = text_or_dash(&b.name);
        if let Some(org) = &b.organization {
            let _ = write!(text, " ({org})");
        }
        if let Some(url) = &b.repo_url {
            let _ = write!(text, " {url}");
        }
        FIELDS.line(out, "base model", text);
    }
    if let Some(task) = &a.task_name {
        FIELDS.line(out, "task", task.clone());
    }
    if let Some(n) = a.invocation_tokens {
        FIELDS.line(out, "invocation", format!("{n} tokens switch it on (aLoRA)"));
    }
    weights(out, header, s);
}

/// An importance matrix: what it was computed on, and how much of a model it covers.
fn imatrix(out: &mut String, d: &Description) {
    let Some(m) = &d.imatrix else { return };
    FIELDS.line(
        out,
        "datasets",
        if m.datasets.is_empty() {
            "-".into()
        } else {
            m.datasets.join(", ")
        },
    );
    let tokens = m
        .chunk_count
        .zip(m.chunk_size)
        .and_then(|(c, t)| c.checked_mul(t))
        .map(|n| format!(" ({} tokens)", grouped(n)))
        .unwrap_or_default();
    FIELDS.line(
        out,
        "computed on",
        format!(
            "{} chunks of {} tokens{tokens}",
            opt(m.chunk_count),
            opt(m.chunk_size)
        ),
    );
    FIELDS.line(out, "entries", format!("{} weight matrices", grouped(m.entries)));
}

/// A multimodal projector: its encoders' shapes.
fn mmproj(out: &mut String, header: &Header, s: &Summary, d: &Description) {
    names(out, s);
    let Some(p) = &d.mmproj else { return };
    FIELDS.line(out, "projector", text_or_dash(&p.projector_type));
    for (label, encoder) in [("vision", &p.vision), ("audio", &p.audio)] {
        let Some(e) = encoder else { continue };
        let mut text = String::new();
        if let Some(t) = &e.projector_type {
            let _ = write!(text, "{t}: ");
        }
        if let Some(size) = e.image_size {
            let _ = write!(text, "{size} px images in {} px patches, ", opt(e.patch_size));
        }
        if let Some(bins) = e.num_mel_bins {
            let _ = write!(text, "{bins} mel bins, ");
        }
        let _ = write!(
            text,
            "{} layers of {}, {} heads, feed-forward {}; to width {}",
            opt(e.block_count),
            opt(e.embedding_length),
            opt(e.head_count),
            opt(e.feed_forward_length),
            opt(e.projection_dim)
        );
        FIELDS.line(out, label, text);
    }
    weights(out, header, s);
}

/// A control vector: the model it was made for and the layers it steers.
fn control_vector(out: &mut String, d: &Description) {
    let Some(c) = &d.control_vector else { return };
    FIELDS.line(out, "for model", text_or_dash(&c.model_hint));
    FIELDS.line(
        out,
        "layers",
        format!("{} ({} directions)", opt(c.layer_count), c.directions),
    );
}

/// What the model can do, each with where the header says so.
fn capabilities(out: &mut String, s: &Description) {
    if matches!(s.kind, FileKind::Imatrix | FileKind::ControlVector) {
        return;
    }
    if s.capabilities.is_empty() {
        FIELDS.line(out, "capabilities", "none the header tells of");
    }
    for (i, c) in s.capabilities.iter().enumerate() {
        let text = format!("{}: {} ({})", c.capability.id(), c.evidence, c.source);
        FIELDS.line(out, if i == 0 { "capabilities" } else { "" }, text);
    }
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
            FIELDS.line(&mut out, "memory", format!("- ({err})"));
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
