//! `ggufscope tokens`: the tokenizer as text — the summary, the tokens containing a text, or one
//! token. Token texts are shown in their visible form (`gguf_core::tokenizer::visible`): control
//! characters, tabs and newlines escaped, so a row is one line and a hostile token cannot write
//! escape sequences to the terminal; `--search` reads the same escapes.

use std::fmt::Write;
use std::io::Write as _;
use std::process::ExitCode;

use gguf_core::Header;
use gguf_core::chat_template::chat_templates;
use gguf_core::report::{TokenPage, TokenizerReport};
use gguf_core::text::Escaped;
use gguf_core::tokenizer::{
    Case, Listing, SearchIndex, Token, Tokenizer, TypeCounts, parse_visible, visible,
};

use crate::cli::{self, EXIT_NOT_FOUND, complain, finish, read_model_or_exit};
use crate::fields::Fields;
use crate::format::grouped;
use crate::source::Location;

/// The tokenizer: model, vocabulary, token types, merges, special tokens with their text,
/// flags and chat templates; or the tokens whose text contains TEXT; or token N. Token texts
/// are shown with backslash escapes (`\n`, `\t`, `\xFF`, `\u{200B}`, `\\`), and TEXT is
/// read with the same escapes.
///
/// Exit status: 0 when something was shown, 1 when the search finds nothing or N is outside
/// the vocabulary, 2 when the file cannot be parsed.
#[derive(clap::Args, Debug)]
pub struct TokensArgs {
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
}

/// Runs `ggufscope tokens`.
pub fn run(args: &TokensArgs) -> ExitCode {
    let arg = &args.file;
    let read = match read_model_or_exit(arg, !args.no_siblings) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let header = read.model.header();
    let tokenizer = Tokenizer::new(header);
    let listing = match (&args.search, args.id) {
        (Some(text), _) => {
            let case = if args.case_sensitive {
                Case::Sensitive
            } else {
                Case::Insensitive
            };
            let query = parse_visible(text);
            let listing = SearchIndex::new(&tokenizer).list(&query, case);
            if listing.is_empty() {
                eprintln!("ggufscope: {arg}: no token contains \"{}\"", visible(&query));
            }
            Some(listing)
        }
        (None, Some(id)) => match usize::try_from(id).ok().filter(|&i| i < tokenizer.len()) {
            Some(i) => Some(Listing::Matches(vec![i as u32])),
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
    let mut stdout = cli::stdout();
    let written = match (&listing, args.json) {
        (None, true) => crate::json::write(&mut stdout, &TokenizerReport::new(header)),
        (None, false) => {
            stdout.write_all(render_summary(&Location::parse(arg).file_name(), header).as_bytes())
        }
        (Some(l), true) => crate::json::write(&mut stdout, &TokenPage::new(&tokenizer, l, 0, l.len())),
        (Some(l), false) => stdout.write_all(render_rows(&tokenizer, l).as_bytes()),
    };
    match finish(written.and_then(|()| stdout.flush())) {
        status if status != ExitCode::SUCCESS => status,
        _ if listing.is_some_and(|l| l.is_empty()) => ExitCode::from(EXIT_NOT_FOUND),
        ok => ok,
    }
}

/// The summary's lines: labels in a column 15 characters wide.
const FIELDS: Fields = Fields::new(15);

/// The tokenizer panel as text.
fn render_summary(name: &str, header: &Header) -> String {
    let t = Tokenizer::new(header);
    let mut out = String::new();
    let _ = writeln!(out, "{}", Escaped(name.as_bytes()));
    if t.is_empty() {
        FIELDS.line(&mut out, "vocabulary", "none: the file lists no tokens");
    } else {
        let model = match (t.model(), t.pre()) {
            (Some(model), Some(pre)) => format!("{model} (pre-tokenizer {pre})"),
            (Some(model), None) => model.to_string(),
            (None, _) => "-".into(),
        };
        FIELDS.line(&mut out, "model", model);
        let merges = t
            .merges()
            .map_or_else(String::new, |m| format!(", {} merges", grouped(m as u64)));
        let scores = if t.has_scores() { "scores" } else { "no scores" };
        FIELDS.line(
            &mut out,
            "vocabulary",
            format!("{} tokens{merges}, {scores}", grouped(t.len() as u64)),
        );
        FIELDS.line(&mut out, "token types", types(&t.type_counts()));
    }
    let specials = t.special_tokens();
    for (i, s) in specials.iter().enumerate() {
        let text = s.text.map_or_else(|| "(outside the vocabulary)".into(), visible);
        FIELDS.line(
            &mut out,
            if i == 0 { "special tokens" } else { "" },
            format!("{} {} {text}", s.role, s.id),
        );
    }
    let flags: Vec<String> = t
        .flags()
        .iter()
        .map(|(name, on)| format!("{name} {on}"))
        .collect();
    if !flags.is_empty() {
        FIELDS.line(&mut out, "flags", flags.join(", "));
    }
    let templates: Vec<String> = chat_templates(header)
        .iter()
        .map(|c| {
            let name = Escaped(c.title());
            let lines = c.lines();
            format!("{name} ({lines} line{})", if lines == 1 { "" } else { "s" })
        })
        .collect();
    FIELDS.line(
        &mut out,
        "chat templates",
        if templates.is_empty() {
            "none".into()
        } else {
            templates.join(", ")
        },
    );
    out
}

/// `254,992 normal, 9 control, 999 user-defined`: the types that have tokens.
fn types(c: &TypeCounts) -> String {
    let all = [
        (c.normal, "normal"),
        (c.control, "control"),
        (c.user_defined, "user-defined"),
        (c.byte, "byte"),
        (c.unknown, "unknown"),
        (c.unused, "unused"),
        (c.undefined, "undefined"),
        (c.other, "of other types"),
        (c.untyped, "without a type"),
    ];
    let present: Vec<String> = all
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, name)| format!("{} {name}", grouped(*n)))
        .collect();
    present.join(", ")
}

/// The listed tokens, one a line: id, type, score and text, separated by tabs (`-` for a type or
/// score the file does not give).
fn render_rows(tokenizer: &Tokenizer<'_>, listing: &Listing) -> String {
    let mut out = String::new();
    for token in (0..listing.len()).filter_map(|i| tokenizer.token(listing.id(i)?)) {
        let _ = writeln!(out, "{}", row(&token));
    }
    out
}

fn row(t: &Token<'_>) -> String {
    let ty = t.ty.map_or("-", |ty| ty.name());
    let score = t.score.map_or_else(|| "-".into(), |s| s.to_string());
    format!("{}\t{ty}\t{score}\t{}", t.id, visible(t.text))
}
