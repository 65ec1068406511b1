//! `ggufscope fit`: where llama.cpp would put the model on the user's devices, and whether it
//! fits ([`gguf_core::memory::plan`]).

use std::fmt::Write;
use std::io::Write as _;
use std::process::ExitCode;

use gguf_core::memory::{self, Devices, GPU_MARGIN, Plan, Sidecar, Verdict};
use gguf_core::text::Escaped;

use crate::cli::{self, EXIT_UNPARSABLE, complain, finish, read_model_or_exit};
use crate::fields::Fields;
use crate::format::{grouped, mib};
use crate::memory_args::MemoryArgs;
use crate::model_files;
use crate::source::Location;

/// Plan how llama.cpp would run a model on your devices: the layers on each GPU (-ngl, -ts),
/// the experts kept on the CPU (--n-cpu-moe), what each device holds, whether it fits, and the
/// largest context for each KV cache type. A projector (`mmproj*.gguf`) beside the file is
/// counted, as is a draft model given with --draft.
///
/// Exit status: 0 when it fits (entirely or in part), 1 when it does not, 2 when the file
/// cannot be read.
#[derive(clap::Args, Debug)]
pub struct FitArgs {
    /// The .gguf file, or its URL.
    file: String,
    /// Free RAM, e.g. 32GiB, 16000MiB or 64GB.
    #[arg(long, value_name = "SIZE", value_parser = size)]
    ram: u64,
    /// Free memory of a GPU, e.g. 24GiB; once per GPU, in llama.cpp's device order.
    #[arg(long, value_name = "SIZE", value_parser = size)]
    gpu: Vec<u64>,
    /// Memory to leave free on each GPU (llama.cpp's -fitt) [default: 1024MiB].
    #[arg(long, value_name = "SIZE", value_parser = size)]
    margin: Option<u64>,
    /// The multimodal projector (llama.cpp's --mmproj) [default: an mmproj*.gguf beside FILE].
    #[arg(long, value_name = "FILE")]
    mmproj: Option<String>,
    /// A draft model for speculative decoding (llama.cpp's -md): its weights are counted.
    #[arg(long, value_name = "FILE")]
    draft: Option<String>,
    /// Print the plan as one JSON document.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    memory: MemoryArgs,
}

/// Binary and decimal units (`KiB` … `TiB`, `kB` … `TB`, any case), the number whole or not.
const UNITS: [(&str, f64); 9] = [
    ("b", 1.0),
    ("kib", 1024.0),
    ("mib", 1048576.0),
    ("gib", 1073741824.0),
    ("tib", 1099511627776.0),
    ("kb", 1e3),
    ("mb", 1e6),
    ("gb", 1e9),
    ("tb", 1e12),
];

/// `"24GiB"` → 25769803776.
fn size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| format!("give a unit, e.g. {t}GiB (B, KiB, MiB, GiB, TiB, kB, MB, GB, TB)"))?;
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| "not a size: give a number and a unit, e.g. 24GiB".to_string())?;
    let scale = UNITS
        .iter()
        .find(|(u, _)| u.eq_ignore_ascii_case(unit.trim()))
        .map(|&(_, s)| s)
        .ok_or_else(|| {
            format!(
                "unknown unit \"{}\": B, KiB, MiB, GiB, TiB, kB, MB, GB or TB",
                unit.trim()
            )
        })?;
    let bytes = value * scale;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err("too large".into());
    }
    Ok(bytes as u64)
}

/// The sidecar `arg` of `role`, or the exit status after saying why it cannot be read.
fn sidecar(arg: &str, role: &'static str) -> Result<Sidecar, ExitCode> {
    let read = read_model_or_exit(arg, true)?;
    Ok(Sidecar::new(
        Location::parse(arg).file_name(),
        role,
        read.model.header(),
    ))
}

/// Runs `ggufscope fit`.
pub fn run(args: &FitArgs) -> ExitCode {
    let arg = &args.file;
    let read = match read_model_or_exit(arg, true) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let mut sidecars = Vec::new();
    let local = matches!(Location::parse(arg), Location::Path(_));
    let projector = args.mmproj.clone().or_else(|| {
        if local {
            model_files::projector_beside(arg)
        } else {
            None
        }
    });
    for (file, role) in [(projector, "mmproj"), (args.draft.clone(), "draft")] {
        if let Some(file) = file {
            match sidecar(&file, role) {
                Ok(s) => sidecars.push(s),
                Err(status) => return status,
            }
        }
    }
    let devices = Devices {
        ram: args.ram,
        gpus: args.gpu.clone(),
        margin: args.margin.unwrap_or(GPU_MARGIN),
    };
    let plan = match memory::plan(read.model.header(), &args.memory.options(), &devices, sidecars) {
        Ok(plan) => plan,
        Err(e) => {
            complain!("{arg}: no plan: {e}");
            return ExitCode::from(EXIT_UNPARSABLE);
        }
    };
    let mut stdout = cli::stdout();
    let written = if args.json {
        crate::json::write(&mut stdout, &plan)
    } else {
        stdout.write_all(render(&Location::parse(arg).file_name(), &plan).as_bytes())
    };
    match finish(written.and_then(|()| stdout.flush())) {
        s if s != ExitCode::SUCCESS => s,
        _ if plan.verdict == Verdict::DoesNotFit => ExitCode::FAILURE,
        s => s,
    }
}

/// The plan's lines: labels in a column 13 characters wide.
const FIELDS: Fields = Fields::new(13);

/// The plan as text, within 80 columns.
fn render(name: &str, p: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", Escaped(name.as_bytes()));
    let gpus = p.devices.len() - 1;
    let verdict = match p.verdict {
        Verdict::Fits if gpus == 0 => "fits in RAM".to_string(),
        Verdict::Fits => format!(
            "fits: all {} layers on the GPU{}",
            p.layers,
            if gpus == 1 { "" } else { "s" }
        ),
        Verdict::FitsWithExpertsOnCpu => format!(
            "fits: all {} layers on the GPU{}, the experts of {} in RAM",
            p.layers,
            if gpus == 1 { "" } else { "s" },
            p.n_cpu_moe
        ),
        Verdict::FitsPartly => format!("fits with {} of {} layers on the GPUs", p.n_gpu_layers, p.layers),
        Verdict::DoesNotFit => "does not fit".to_string(),
    };
    FIELDS.line(&mut out, "verdict", verdict);
    let c = &p.context;
    let mut flags = format!("-c {}", c.n_ctx);
    if gpus > 0 {
        let _ = write!(flags, " -ngl {}", p.n_gpu_layers);
    }
    if !p.tensor_split.is_empty() {
        let split: Vec<String> = p.tensor_split.iter().map(u64::to_string).collect();
        let _ = write!(flags, " -ts {}", split.join(","));
    }
    if p.n_cpu_moe > 0 {
        let _ = write!(flags, " --n-cpu-moe {}", p.n_cpu_moe);
    }
    FIELDS.line(&mut out, "llama.cpp", flags);
    FIELDS.line(
        &mut out,
        "context",
        format!(
            "{} cells, {} sequence{}, flash attention {}",
            grouped(c.n_ctx),
            c.n_seq,
            if c.n_seq == 1 { "" } else { "s" },
            if c.flash_attn { "on" } else { "off" }
        ),
    );
    for s in &p.sidecars {
        FIELDS.line(
            &mut out,
            s.role,
            format!("{} ({})", Escaped(s.file.as_bytes()), mib(s.bytes)),
        );
    }
    let _ = writeln!(
        out,
        "{:<6}{:>7}{:>12}{:>12}{:>12}{:>12}{:>12}  fits",
        "device", "layers", "model", "context", "compute", "total", "budget"
    );
    for d in &p.devices {
        let _ = writeln!(
            out,
            "{:<6}{:>7}{:>12}{:>12}{:>12}{:>12}{:>12}  {}",
            d.device,
            d.layers,
            mib(d.model),
            mib(d.context),
            mib(d.compute),
            mib(d.total),
            mib(d.budget),
            if d.fits { "yes" } else { "no" }
        );
    }
    let types: Vec<String> = p
        .max_context
        .iter()
        .map(|m| format!("{} {}", m.cache_type, grouped(m.ctx)))
        .collect();
    for (i, chunk) in types.chunks(4).enumerate() {
        let line = chunk.join(", ");
        if i == 0 {
            FIELDS.line(&mut out, "max context", line);
        } else {
            FIELDS.more(&mut out, line);
        }
    }
    out
}
