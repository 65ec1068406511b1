//! `ggufscope`: what is inside a GGUF model file, read from its header alone.

mod format;
mod http;
mod info;
mod model;
mod read;
mod tensor;
mod validate;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use gguf_core::report::{Report, ReportOptions};

/// Inspect GGUF model files without reading their weights.
#[derive(Parser)]
#[command(name = "ggufscope", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Summarize a file: architecture, parameters, bits per weight, attention, experts, context.
    /// One shard of a split model (NAME-00001-of-00003.gguf) brings its siblings: the model is
    /// summarized as one.
    ///
    /// Exit status: 0 when the header was read, 2 when the file cannot be parsed.
    Info {
        /// The .gguf file, or its URL (http, https: read with Range requests).
        file: String,
        /// Print one JSON document (metadata, tensors, summary) instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        memory: info::MemoryArgs,
    },
    /// Decode one tensor (or its first rows) and describe its values: min, max, mean, standard
    /// deviation, NaN and infinity counts, zeros, a histogram and the first values. Reads only
    /// that tensor's bytes.
    ///
    /// Exit status: 0 when described, 2 when the file cannot be parsed, the tensor does not
    /// exist or its type cannot be decoded.
    Tensor {
        /// The .gguf file.
        file: PathBuf,
        /// The tensor's name, e.g. blk.0.attn_q.weight.
        name: String,
        /// Decode only the first N rows (a row is the tensor's first dimension).
        #[arg(long, value_name = "N")]
        rows: Option<u64>,
        /// Print one JSON document instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check files for what would break a loader: truncation, bad layout, inconsistent metadata,
    /// unsafe chat templates. One line per finding: `FILE:OFFSET: SEVERITY CODE: message`.
    ///
    /// Exit status: 0 when no finding reaches the deny level, 1 when one does, 2 when a file
    /// cannot be parsed at all (2 wins over 1).
    Validate {
        /// The .gguf files, or their URLs; a split model's shards are checked together.
        #[arg(required = true)]
        files: Vec<String>,
        /// Print one JSON document for the whole run instead of lines.
        #[arg(long)]
        json: bool,
        /// The lowest severity that fails the run.
        #[arg(long, value_enum, default_value = "error")]
        deny: validate::Deny,
    },
}

/// Exit status for a file that cannot be read or parsed.
const EXIT_UNPARSABLE: u8 = 2;

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Info { file, json, memory } => info(&file, json, &memory),
        Command::Tensor {
            file,
            name,
            rows,
            json,
        } => tensor(&file, &name, rows, json),
        Command::Validate { files, json, deny } => match validate::run(&files, json, deny) {
            Ok(status) => ExitCode::from(status),
            Err(e) => {
                eprintln!("ggufscope: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

fn info(arg: &str, json: bool, memory: &info::MemoryArgs) -> ExitCode {
    let asked = model::Location::parse(arg);
    let read = match model::read_model(&asked) {
        Ok(read) => read,
        Err(e) => {
            eprintln!("ggufscope: {arg}: {e}");
            return ExitCode::from(EXIT_UNPARSABLE);
        }
    };
    // A shard that is there but cannot be read makes the model unreadable.
    if let Some((at, e)) = read.unreadable.first() {
        eprintln!("ggufscope: {at}: {e}");
        return ExitCode::from(EXIT_UNPARSABLE);
    }
    let header = read.model.header();
    let estimate = gguf_core::memory::estimate(header, &memory.options());
    let mut stdout = std::io::stdout().lock();
    let written = if json {
        let mut report = Report::of_model(&read.model, ReportOptions::default());
        if memory.given() {
            match estimate {
                Ok(e) => report = report.with_memory(e),
                Err(e) => {
                    eprintln!("ggufscope: {arg}: no memory estimate: {e}");
                    return ExitCode::from(EXIT_UNPARSABLE);
                }
            }
        }
        serde_json::to_writer_pretty(&mut stdout, &report)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(stdout))
    } else {
        let text = info::render(&asked.file_name(), header, read.stats)
            + &info::render_split(&read.model, &read.notes)
            + &info::render_memory(&estimate);
        stdout.write_all(text.as_bytes())
    };
    finish(written)
}

fn tensor(path: &std::path::Path, name: &str, rows: Option<u64>, json: bool) -> ExitCode {
    let described = match tensor::describe(path, name, rows) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("ggufscope: {}: {e}", path.display());
            return ExitCode::from(EXIT_UNPARSABLE);
        }
    };
    let mut stdout = std::io::stdout().lock();
    let written = if json {
        serde_json::to_writer_pretty(&mut stdout, &described.json())
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(stdout))
    } else {
        stdout.write_all(described.render().as_bytes())
    };
    finish(written)
}

fn finish(written: std::io::Result<()>) -> ExitCode {
    match written {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`| head`) is not a failure of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ggufscope: {e}");
            ExitCode::FAILURE
        }
    }
}
