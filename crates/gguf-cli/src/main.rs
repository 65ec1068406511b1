//! `ggufscope`: what is inside a GGUF model file, read from its header alone.

/// Says what went wrong on stderr, `ggufscope: MESSAGE`, with the message [`gguf_core::text::Escaped`]:
/// it quotes paths, URLs, names and values, any of which may hold a terminal escape or a
/// bidirectional control. The one way the commands write an error line.
macro_rules! complain {
    ($($message:tt)*) => {
        eprintln!("ggufscope: {}", gguf_core::text::Escaped(format!($($message)*).as_bytes()))
    };
}

mod budget;
mod commands;
mod fields;
mod format;
mod json;
mod model_files;
mod source;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use commands::{diff, edit, info, template, tensor, tokens, upstream, validate};

/// Inspect GGUF model files without reading their weights.
#[derive(Parser)]
#[command(name = "ggufscope", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    budgets: budget::BudgetArgs,
}

/// The commands, each in its module of `commands/` (its help is its arguments' doc comment).
#[derive(Subcommand)]
enum Command {
    Info(info::InfoArgs),
    Tensor(tensor::TensorArgs),
    Validate(validate::ValidateArgs),
    Tokens(tokens::TokensArgs),
    Template(template::TemplateArgs),
    Edit(edit::EditArgs),
    Diff(diff::DiffArgs),
    Upstream(upstream::UpstreamArgs),
}

/// Exit status for a file that cannot be read or parsed.
const EXIT_UNPARSABLE: u8 = 2;

/// Ends the process at the command's deadline, saying so: the status of a file that could not
/// be read.
fn stop(message: &str) -> ! {
    eprintln!("ggufscope: {message}");
    std::process::exit(EXIT_UNPARSABLE.into())
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let on_deadline = match cli.command {
        Command::Edit(_) => edit::stop,
        _ => stop,
    };
    budget::start(&cli.budgets, on_deadline);
    match cli.command {
        Command::Info(args) => info::run(&args),
        Command::Tensor(args) => tensor::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::Tokens(args) => tokens::run(&args),
        Command::Template(args) => template::run(&args),
        Command::Edit(args) => ExitCode::from(edit::run(&args, matches.subcommand_matches("edit"))),
        Command::Diff(args) => diff::run(&args),
        Command::Upstream(args) => upstream::run(&args),
    }
}

/// The model `arg` names (a shard brings its siblings when `siblings` is set), or the exit status
/// after saying why not.
fn read_model(arg: &str, siblings: bool) -> Result<model_files::ModelRead, ExitCode> {
    let read = model_files::read_model(&source::Location::parse(arg), siblings).map_err(|e| {
        complain!("{arg}: {e}");
        ExitCode::from(EXIT_UNPARSABLE)
    })?;
    // A shard that is there but cannot be read makes the model unreadable.
    if let Some((at, e)) = read.unreadable.first() {
        complain!("{at}: {e}");
        return Err(ExitCode::from(EXIT_UNPARSABLE));
    }
    Ok(read)
}

/// Exit status when a search finds nothing, a token or template does not exist, or a template
/// does not render.
const EXIT_NOT_FOUND: u8 = 1;

/// Standard output behind a 64 KiB buffer. Rust's own is line-buffered, one `write()` per line:
/// JSON written piece by piece, or a long listing, would cost a system call a line.
fn stdout() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock())
}

fn finish(written: std::io::Result<()>) -> ExitCode {
    match written {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`| head`) is not a failure of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            complain!("{e}");
            ExitCode::FAILURE
        }
    }
}
