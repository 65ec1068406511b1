//! `ggufscope`: what is inside a GGUF model file, read from its header alone.

mod budget;
mod cli;
mod commands;
mod fields;
mod format;
mod json;
mod memory_args;
mod model_files;
mod source;
mod width;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use commands::{diff, edit, fit, info, template, tensor, tokenize, tokens, upstream, validate};

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
    Fit(fit::FitArgs),
    Tensor(tensor::TensorArgs),
    Validate(validate::ValidateArgs),
    Tokens(tokens::TokensArgs),
    Tokenize(tokenize::TokenizeArgs),
    Template(template::TemplateArgs),
    Edit(edit::EditArgs),
    Diff(diff::DiffArgs),
    Upstream(upstream::UpstreamArgs),
}

/// Ends the process at the command's deadline, saying so: the status of a file that could not
/// be read.
fn stop(message: &str) -> ! {
    eprintln!("ggufscope: {message}");
    std::process::exit(cli::EXIT_UNPARSABLE.into())
}

/// The command line with the user information of every URL left out, said once on stderr: the
/// one place it is taken out, so that no request sends it and no message prints it.
fn arguments() -> Vec<std::ffi::OsString> {
    let mut told = false;
    std::env::args_os()
        .map(|arg| {
            let Some(url) = arg.to_str().and_then(source::without_user_info) else {
                return arg;
            };
            if !told {
                cli::complain!(
                    "{url}: the user name and password in the URL are left out (this tool sends no credentials)"
                );
                told = true;
            }
            url.into()
        })
        .collect()
}

fn main() -> ExitCode {
    let matches = width::help_width(Cli::command()).get_matches_from(arguments());
    let parsed = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let on_deadline = match parsed.command {
        Command::Edit(_) => edit::stop,
        _ => stop,
    };
    budget::start(&parsed.budgets, on_deadline);
    match parsed.command {
        Command::Info(args) => info::run(&args),
        Command::Fit(args) => fit::run(&args),
        Command::Tensor(args) => tensor::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::Tokens(args) => tokens::run(&args),
        Command::Tokenize(args) => tokenize::run(&args),
        Command::Template(args) => template::run(&args),
        Command::Edit(args) => ExitCode::from(edit::run(&args, matches.subcommand_matches("edit"))),
        Command::Diff(args) => diff::run(&args),
        Command::Upstream(args) => upstream::run(&args),
    }
}
