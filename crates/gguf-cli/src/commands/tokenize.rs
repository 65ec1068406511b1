//! `ggufscope tokenize`: the token ids llama.cpp gives a text, from the file's header alone
//! (`gguf-tokenizer`), or the text of ids. Pieces are shown in their visible form
//! (`gguf_core::tokenizer::visible`), so a row is one line and a hostile token cannot write
//! escape sequences to the terminal.

use std::fmt::Write as _;
use std::io::{Read, Write as _};
use std::process::ExitCode;

use gguf_core::tokenizer::visible;
use gguf_tokenizer::{Tokenizer, Tokens};

use crate::cli::{self, EXIT_NOT_FOUND, EXIT_UNPARSABLE, complain, finish, read_model_or_exit};

/// The largest text read from --file or standard input.
const MAX_TEXT: u64 = 256 << 20;

/// Tokenize TEXT as llama.cpp 0c1e570 does (the ids llama-tokenize prints), from the file's
/// header alone: one token a line, `ID<TAB>PIECE`, the piece with backslash escapes (`\n`,
/// `\t`, `\xFF`, `\u{200B}`, `\\`). TEXT is taken as given (no escapes); `-` reads standard
/// input, `--file` a file, byte for byte.
///
/// As llama-tokenize: special-token text (`<|im_start|>`) is that token, and BOS (and EOS, SEP)
/// are added when the file's tokenizer adds a BOS.
///
/// Exit status: 0 when tokenized, 1 when an id of --ids is outside the vocabulary, 2 when the
/// file cannot be parsed or its tokenizer is one llama.cpp refuses.
#[derive(clap::Args, Debug)]
pub struct TokenizeArgs {
    /// The .gguf file, or its URL.
    model: String,
    /// The text; `-` reads standard input.
    #[arg(conflicts_with_all = ["file", "ids"])]
    text: Option<String>,
    /// Read the text from PATH, byte for byte.
    #[arg(long, value_name = "PATH", conflicts_with = "ids")]
    file: Option<std::path::PathBuf>,
    /// De-tokenize: the text of these ids (comma-separated), and their pieces.
    #[arg(long, value_name = "IDS", value_delimiter = ',', num_args = 1)]
    ids: Option<Vec<u32>>,
    /// Special-token text in TEXT stays plain text.
    #[arg(long)]
    no_parse_special: bool,
    /// Add no BOS, EOS or SEP.
    #[arg(long)]
    no_add_special: bool,
    /// Print JSON instead: `{"ids": [...], "pieces": [...], "count": N}` (with `"text"` for
    /// --ids); pieces that are not UTF-8 on their own have U+FFFD for their bad bytes.
    #[arg(long)]
    json: bool,
    /// Read only the file named, not the other shards of its split model.
    #[arg(long)]
    no_siblings: bool,
}

fn read_text(args: &TokenizeArgs) -> Result<Vec<u8>, String> {
    let limited = |r: &mut dyn Read, what: &str| {
        let mut buf = Vec::new();
        r.take(MAX_TEXT + 1)
            .read_to_end(&mut buf)
            .map_err(|e| format!("{what}: {e}"))?;
        if buf.len() as u64 > MAX_TEXT {
            return Err(format!("{what}: more than {} MiB of text", MAX_TEXT >> 20));
        }
        Ok(buf)
    };
    match (&args.text, &args.file) {
        (Some(t), _) if t == "-" => limited(&mut std::io::stdin().lock(), "standard input"),
        (Some(t), _) => Ok(t.as_bytes().to_vec()),
        (None, Some(path)) => {
            let what = path.display().to_string();
            let meta = std::fs::metadata(path).map_err(|e| format!("{what}: {e}"))?;
            if !meta.is_file() {
                return Err(format!("{what}: not a regular file"));
            }
            let mut f = std::fs::File::open(path).map_err(|e| format!("{what}: {e}"))?;
            limited(&mut f, &what)
        }
        (None, None) => Err("no text: give TEXT, `-` for standard input, --file PATH or --ids".into()),
    }
}

/// Runs `ggufscope tokenize`.
pub fn run(args: &TokenizeArgs) -> ExitCode {
    let arg = &args.model;
    let text = match args.ids {
        Some(_) => None,
        None => match read_text(args) {
            Ok(t) => Some(t),
            Err(e) => {
                complain!("{e}");
                return ExitCode::from(EXIT_UNPARSABLE);
            }
        },
    };
    let read = match read_model_or_exit(arg, !args.no_siblings) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let tokenizer = match Tokenizer::new(read.model.header()) {
        Ok(t) => t,
        Err(e) => {
            complain!("{arg}: {e}");
            return ExitCode::from(EXIT_UNPARSABLE);
        }
    };
    if let Some(bad) = args
        .ids
        .iter()
        .flatten()
        .find(|&&id| id as usize >= tokenizer.len())
    {
        complain!(
            "{arg}: no token {bad}: the vocabulary has {} tokens",
            tokenizer.len()
        );
        return ExitCode::from(EXIT_NOT_FOUND);
    }
    let (add_special, parse_special) = (!args.no_add_special, !args.no_parse_special);
    let mut stdout = cli::stdout();
    let written = if args.json {
        let tokens = match (&text, &args.ids) {
            (Some(text), _) => Tokens::of_text(&tokenizer, text, add_special, parse_special),
            (None, ids) => Tokens::of_ids(&tokenizer, ids.as_deref().unwrap_or_default()),
        };
        crate::json::write(&mut stdout, &tokens)
    } else {
        // The visible forms of the bytes themselves, not of the document's UTF-8 (a byte token
        // is `\xE2`, not U+FFFD).
        let mut out = String::new();
        let ids = match (&text, &args.ids) {
            (Some(text), _) => Tokens::ids_of_text(&tokenizer, text, add_special, parse_special),
            (None, ids) => {
                let ids = ids.clone().unwrap_or_default();
                out.push_str(&visible(&tokenizer.detokenize(&ids, false, true)));
                out.push('\n');
                ids
            }
        };
        for id in ids {
            let piece = tokenizer.piece(id, true).unwrap_or_default();
            let _ = writeln!(out, "{id}\t{}", visible(&piece));
        }
        stdout.write_all(out.as_bytes())
    };
    finish(written.and_then(|()| stdout.flush()))
}
