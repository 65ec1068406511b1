//! `ggufscope`: what is inside a GGUF model file, read from its header alone.

mod format;
mod info;
mod read;
mod validate;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use gguf_core::report::Report;

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
    ///
    /// Exit status: 0 when the header was read, 2 when the file cannot be parsed.
    Info {
        /// The .gguf file.
        file: PathBuf,
        /// Print one JSON document (metadata, tensors, summary) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check files for what would break a loader: truncation, bad layout, inconsistent metadata,
    /// unsafe chat templates. One line per finding: `FILE:OFFSET: SEVERITY CODE: message`.
    ///
    /// Exit status: 0 when no finding reaches the deny level, 1 when one does, 2 when a file
    /// cannot be parsed at all (2 wins over 1).
    Validate {
        /// The .gguf files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
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
        Command::Info { file, json } => info(&file, json),
        Command::Validate { files, json, deny } => match validate::run(&files, json, deny) {
            Ok(status) => ExitCode::from(status),
            Err(e) => {
                eprintln!("ggufscope: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

fn info(path: &std::path::Path, json: bool) -> ExitCode {
    let (header, stats) = match read::read_header(path) {
        Ok(ok) => ok,
        Err(e) => {
            eprintln!("ggufscope: {}: {e}", path.display());
            return ExitCode::from(EXIT_UNPARSABLE);
        }
    };
    let mut stdout = std::io::stdout().lock();
    let written = if json {
        serde_json::to_writer_pretty(&mut stdout, &Report::new(&header))
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(stdout))
    } else {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        stdout.write_all(info::render(&name, &header, stats).as_bytes())
    };
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
