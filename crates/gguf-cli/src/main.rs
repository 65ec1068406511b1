//! `ggufscope`: what is inside a GGUF model file, read from its header alone.

/// Says what went wrong on stderr, `ggufscope: MESSAGE`, with the message [`gguf_core::Escaped`]:
/// it quotes paths, URLs, names and values, any of which may hold a terminal escape or a
/// bidirectional control. The one way the commands write an error line.
macro_rules! complain {
    ($($message:tt)*) => {
        eprintln!("ggufscope: {}", gguf_core::Escaped(format!($($message)*).as_bytes()))
    };
}

mod budget;
mod diff;
mod edit;
mod format;
mod info;
mod model_files;
mod source;
mod template;
mod tensor;
mod tokens;
mod upstream;
mod validate;

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use gguf_core::report::{Report, ReportOptions};

/// Inspect GGUF model files without reading their weights.
#[derive(Parser)]
#[command(name = "ggufscope", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    budgets: budget::BudgetArgs,
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
        /// Read only the file named, not the other shards of its split model.
        #[arg(long)]
        no_siblings: bool,
    },
    /// Decode one tensor (or its first rows) and describe its values: min, max, mean, standard
    /// deviation, NaN and infinity counts, zeros, a histogram and the first values. Reads only
    /// that tensor's bytes.
    ///
    /// Exit status: 0 when described, 2 when the file cannot be parsed, the tensor does not
    /// exist or its type cannot be decoded.
    Tensor {
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
        /// Read only the file named, not the other shards of its split model.
        #[arg(long)]
        no_siblings: bool,
    },
    /// The tokenizer: model, vocabulary, token types, merges, special tokens with their text,
    /// flags and chat templates; or the tokens whose text contains TEXT; or token N. Token texts
    /// are shown with backslash escapes (`\n`, `\t`, `\xFF`, `\u{200B}`, `\\`), and TEXT is
    /// read with the same escapes.
    ///
    /// Exit status: 0 when something was shown, 1 when the search finds nothing or N is outside
    /// the vocabulary, 2 when the file cannot be parsed.
    Tokens {
        /// The .gguf file, or its URL.
        file: String,
        /// List the tokens containing TEXT, upper and lower case alike, in their stored form or
        /// in the text they stand for (`Ġthe` is ` the`, `Ċ` and `<0x0A>` a newline, `▁` a
        /// space); best first: equal, equal in another case, containing, containing in another
        /// case. One a line, `ID TYPE SCORE TEXT` separated by tabs.
        #[arg(long, value_name = "TEXT", conflicts_with = "id")]
        search: Option<String>,
        /// Make --search tell upper from lower case.
        #[arg(long, requires = "search")]
        case_sensitive: bool,
        /// Show token N, as a line like those of --search.
        #[arg(long, value_name = "N")]
        id: Option<u64>,
        /// Print JSON instead: the tokenizer summary, or `{total, start, tokens}`.
        #[arg(long)]
        json: bool,
        /// Read only the file named, not the other shards of its split model.
        #[arg(long)]
        no_siblings: bool,
    },
    /// The chat templates as stored (control characters other than newline and tab escaped), or
    /// rendered for a sample conversation — system, user, assistant, user — with the file's bos and
    /// eos tokens, in a sandbox: no files, no network, a fuel budget, a nesting limit and a time
    /// limit. With several templates, each follows a line `==> NAME <==`.
    ///
    /// Exit status: 0 when shown, 1 when the file has no such template or one fails to render
    /// (the engine's message and the line on stderr), 2 when the file cannot be parsed.
    Template {
        /// The .gguf file, or its URL.
        file: String,
        /// Render the templates instead of printing them.
        #[arg(long)]
        render: bool,
        /// Only the template NAME: `default` (tokenizer.chat_template) or the NAME of
        /// tokenizer.chat_template.NAME.
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// Render without the generation prompt (the opening of the assistant's turn).
        #[arg(long, requires = "render")]
        no_generation_prompt: bool,
        /// Read only the file named, not the other shards of its split model.
        #[arg(long)]
        no_siblings: bool,
    },
    /// Write a copy of a file with its metadata edited: keys set, added or deleted, the tensor
    /// data unchanged.
    ///
    /// The new header is followed by IN's data section, copied as is. The copy goes to a
    /// temporary file beside OUT, is flushed and read back, and only then renamed to OUT: a
    /// failure leaves no OUT. With no edits, OUT is byte for byte IN. `general.alignment` cannot
    /// be edited.
    ///
    /// Exit status: 0 when written, 1 when the result would have a validator error the input
    /// does not (nothing written), 2 for bad arguments, an unreadable input, a refused edit
    /// (the key and the reason on stderr), an existing OUT without --force, OUT being IN, or a
    /// failed write; 130, 143 or 129 when SIGINT, SIGTERM or SIGHUP interrupts it (the temporary
    /// file removed).
    Edit(edit::EditArgs),
    /// Compare two models, A (the reference) and B: the summary side by side, metadata keys added
    /// (in B, not A), removed and changed (a chat template as a line diff, an array by its first
    /// differing element), tensors added, removed and changed. With --values, the error of B's
    /// tensor values against A's — n, RMSE, max absolute error, cosine similarity, SNR — per
    /// tensor and per layer, reading only those tensors' bytes. Split models and URLs as `info`.
    ///
    /// Exit status: 0 when the same (metadata and tensor infos; and values with --values), 1 when
    /// they differ, 2 when a file cannot be read or a tensor cannot be decoded.
    Diff(diff::DiffArgs),
    /// Check a model against its upstream repository: config.json (its text_config for a
    /// multimodal model), tokenizer_config.json, generation_config.json and chat_template.jinja,
    /// each field against the key llama.cpp's converter writes it to — context, shapes, heads,
    /// RoPE, epsilons, experts, vocabulary, special token ids and texts, add_bos/eos, chat
    /// templates. Differences come first, with both values and what they mean for inference.
    ///
    /// Exit status: 0 when nothing differs, 1 when a field differs or is missing in the file, 2
    /// when the file cannot be read or parsed, SOURCE has no config.json, or an upstream file is
    /// not JSON.
    Upstream {
        /// The .gguf file, or its URL (a split model's shard brings the others).
        file: String,
        /// The upstream repository: a directory, or a base URL such as
        /// https://huggingface.co/ORG/REPO/resolve/main/
        source: String,
        /// Print one JSON document instead of text.
        #[arg(long)]
        json: bool,
        /// Read only the file named, not the other shards of its split model.
        #[arg(long)]
        no_siblings: bool,
    },
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
        Command::Edit(args) => ExitCode::from(edit::run(&args, matches.subcommand_matches("edit"))),
        Command::Diff(args) => diff::run(&args),
        Command::Info {
            file,
            json,
            memory,
            no_siblings,
        } => info(&file, json, &memory, !no_siblings),
        Command::Tensor {
            file,
            name,
            rows,
            json,
        } => tensor(&file, &name, rows, json),
        Command::Tokens {
            file,
            search,
            case_sensitive,
            id,
            json,
            no_siblings,
        } => {
            let case = if case_sensitive {
                gguf_core::tokenizer::Case::Sensitive
            } else {
                gguf_core::tokenizer::Case::Insensitive
            };
            tokens(
                &file,
                search.as_deref().map(|s| (s, case)),
                id,
                json,
                !no_siblings,
            )
        }
        Command::Template {
            file,
            render,
            name,
            no_generation_prompt,
            no_siblings,
        } => template(
            &file,
            render,
            name.as_deref(),
            !no_generation_prompt,
            !no_siblings,
        ),
        Command::Upstream {
            file,
            source,
            json,
            no_siblings,
        } => upstream(&file, &source, json, !no_siblings),
        Command::Validate {
            files,
            json,
            deny,
            no_siblings,
        } => match validate::run(&files, json, deny, !no_siblings) {
            Ok(status) => ExitCode::from(status),
            Err(e) => {
                complain!("{e}");
                ExitCode::FAILURE
            }
        },
    }
}

fn info(arg: &str, json: bool, memory: &info::MemoryArgs, siblings: bool) -> ExitCode {
    let asked = source::Location::parse(arg);
    let read = match read_model(arg, siblings) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let header = read.model.header();
    let estimate = gguf_core::memory::estimate(header, &memory.options());
    let mut stdout = stdout();
    let written = if json {
        let mut report = Report::of_model(&read.model, ReportOptions::default());
        if memory.given() {
            match estimate {
                Ok(e) => report = report.with_memory(e),
                Err(e) => {
                    complain!("{arg}: no memory estimate: {e}");
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
    finish(written.and_then(|()| stdout.flush()))
}

fn tensor(arg: &str, name: &str, rows: Option<u64>, json: bool) -> ExitCode {
    let described = match tensor::describe(&source::Location::parse(arg), name, rows) {
        Ok(d) => d,
        Err(e) => {
            complain!("{arg}: {e}");
            return ExitCode::from(EXIT_UNPARSABLE);
        }
    };
    let mut stdout = stdout();
    let written = if json {
        serde_json::to_writer_pretty(&mut stdout, &described.json())
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(stdout))
    } else {
        stdout.write_all(described.render().as_bytes())
    };
    finish(written.and_then(|()| stdout.flush()))
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

fn tokens(
    arg: &str,
    search: Option<(&str, gguf_core::tokenizer::Case)>,
    id: Option<u64>,
    json: bool,
    siblings: bool,
) -> ExitCode {
    let read = match read_model(arg, siblings) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let header = read.model.header();
    let tokenizer = gguf_core::tokenizer::Tokenizer::new(header);
    let listing = match (search, id) {
        (Some((text, case)), _) => {
            let query = gguf_core::tokenizer::parse_visible(text);
            let listing = gguf_core::tokenizer::SearchIndex::new(&tokenizer).list(&query, case);
            if listing.is_empty() {
                eprintln!(
                    "ggufscope: {arg}: no token contains \"{}\"",
                    gguf_core::tokenizer::visible(&query)
                );
            }
            Some(listing)
        }
        (None, Some(id)) => match usize::try_from(id).ok().filter(|&i| i < tokenizer.len()) {
            Some(i) => Some(gguf_core::tokenizer::Listing::Matches(vec![i as u32])),
            None => {
                complain!(
                    "{arg}: no token {id}: the vocabulary has {} tokens",
                    tokenizer.len()
                );
                return ExitCode::from(EXIT_NOT_FOUND);
            }
        },
        (None, None) => None,
    };
    let mut stdout = stdout();
    let written = match (&listing, json) {
        (None, true) => {
            serde_json::to_writer_pretty(&mut stdout, &gguf_core::report::TokenizerReport::new(header))
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(stdout))
        }
        (None, false) => stdout
            .write_all(tokens::render_summary(&source::Location::parse(arg).file_name(), header).as_bytes()),
        (Some(l), true) => serde_json::to_writer_pretty(
            &mut stdout,
            &gguf_core::report::TokenPage::new(&tokenizer, l, 0, l.len()),
        )
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(stdout)),
        (Some(l), false) => stdout.write_all(tokens::render_rows(&tokenizer, l).as_bytes()),
    };
    match finish(written.and_then(|()| stdout.flush())) {
        status if status != ExitCode::SUCCESS => status,
        _ if listing.is_some_and(|l| l.is_empty()) => ExitCode::from(EXIT_NOT_FOUND),
        ok => ok,
    }
}

fn template(
    arg: &str,
    render: bool,
    name: Option<&str>,
    add_generation_prompt: bool,
    siblings: bool,
) -> ExitCode {
    let read = match read_model(arg, siblings) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let header = read.model.header();
    let templates = template::select(header, name);
    if templates.is_empty() {
        match name {
            Some(n) => complain!("{arg}: no chat template named {n}"),
            None => complain!("{arg}: no chat template (tokenizer.chat_template)"),
        }
        return ExitCode::from(EXIT_NOT_FOUND);
    }
    let mut stdout = stdout();
    let mut status = ExitCode::SUCCESS;
    for t in &templates {
        let text = if render {
            match template::render(header, t, add_generation_prompt) {
                Ok(output) => output.into_bytes(),
                Err(e) => {
                    complain!("{arg}: template {}: {e}", template::name_of(t));
                    status = ExitCode::from(EXIT_NOT_FOUND);
                    continue;
                }
            }
        } else {
            t.text.to_vec()
        };
        let heading = if templates.len() > 1 {
            format!("==> {} <==\n", template::name_of(t))
        } else {
            String::new()
        };
        // As it is, with a line end added only where it has none.
        let text = template::terminal_text(&text);
        let end = if text.ends_with('\n') { "" } else { "\n" };
        let written = write!(stdout, "{heading}{text}{end}").and_then(|()| stdout.flush());
        if finish(written) != ExitCode::SUCCESS {
            return ExitCode::FAILURE;
        }
    }
    status
}

/// Exit status when the file differs from upstream.
const EXIT_DIFFERENT: u8 = 1;

fn upstream(arg: &str, source: &str, json: bool, siblings: bool) -> ExitCode {
    let read = match read_model(arg, siblings) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let fetched = match upstream::fetch(source) {
        Ok(fetched) => fetched,
        Err(e) => {
            complain!("{e}");
            return ExitCode::from(EXIT_UNPARSABLE);
        }
    };
    let checks = match gguf_upstream::compare(read.model.header(), &fetched.upstream()) {
        Ok(checks) => checks,
        Err(e) => {
            complain!("{source}: {e}");
            return ExitCode::from(EXIT_UNPARSABLE);
        }
    };
    let names = fetched.names();
    let document = gguf_upstream::Document::new(arg, source, &names, &checks);
    let mut stdout = stdout();
    let written = if json {
        serde_json::to_writer_pretty(&mut stdout, &document)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(stdout))
    } else {
        let name = source::Location::parse(arg).file_name();
        stdout.write_all(upstream::render(&name, source, &names, &checks).as_bytes())
    };
    match finish(written.and_then(|()| stdout.flush())) {
        status if status != ExitCode::SUCCESS => status,
        _ if document.differences > 0 => ExitCode::from(EXIT_DIFFERENT),
        ok => ok,
    }
}

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
