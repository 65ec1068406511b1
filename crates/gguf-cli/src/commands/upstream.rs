//! `ggufscope upstream`: a model checked against its upstream repository's configuration
//! (`gguf_upstream`), the files read from a directory or fetched from a base URL. The text output
//! lists the differences first, each with both values and what it means for inference.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gguf_core::text::Escaped;
use gguf_upstream::{CONFIG, Check, Document, Status, Upstream};
use serde_json::Value as Json;

use crate::cli::{self, EXIT_UNPARSABLE, complain, finish, read_model_or_exit};
use crate::source::file::{FileSource, Inside};
use crate::source::{Location, ReadError, http};

/// Check a model against its upstream repository: config.json (its text_config for a
/// multimodal model), tokenizer_config.json, generation_config.json and chat_template.jinja,
/// each field against the key llama.cpp's converter writes it to — context, shapes, heads,
/// RoPE, epsilons, experts, vocabulary, special token ids and texts, add_bos/eos, chat
/// templates. Differences come first, with both values and what they mean for inference.
///
/// Exit status: 0 when nothing differs, 1 when a field differs or is missing in the file, 2
/// when the file cannot be read or parsed, SOURCE has no config.json, or an upstream file is
/// not JSON.
#[derive(clap::Args, Debug)]
pub struct UpstreamArgs {
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
}

/// Exit status when the file differs from upstream.
const EXIT_DIFFERENT: u8 = 1;

/// Runs `ggufscope upstream`.
pub fn run(args: &UpstreamArgs) -> ExitCode {
    let (arg, source) = (&args.file, &args.source);
    let read = match read_model_or_exit(arg, !args.no_siblings) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let fetched = match fetch(source) {
        Ok(fetched) => fetched,
        Err(e) => {
            complain!("{e}");
            return ExitCode::from(EXIT_UNPARSABLE);
        }
    };
    let mut checks = match gguf_upstream::compare(read.model.header(), &fetched.upstream()) {
        Ok(checks) => checks,
        Err(e) => {
            complain!("{source}: {e}");
            return ExitCode::from(EXIT_UNPARSABLE);
        }
    };
    // Templates that differ are compared by what they build too.
    super::template::compare_upstream_prompts(arg, read.model.header(), &mut checks);
    let names = fetched.names();
    let document = Document::new(arg, source, &names, &checks);
    let mut stdout = cli::stdout();
    let written = if args.json {
        crate::json::write(&mut stdout, &document)
    } else {
        let name = Location::parse(arg).file_name();
        stdout.write_all(render(&name, source, &names, &checks).as_bytes())
    };
    match finish(written.and_then(|()| stdout.flush())) {
        status if status != ExitCode::SUCCESS => status,
        _ if document.differences > 0 => ExitCode::from(EXIT_DIFFERENT),
        ok => ok,
    }
}

/// Bytes read of an upstream file at most: configurations are kilobytes, a chat template tens.
const MAX_FILE: u64 = 16 << 20;
/// Characters of a value shown.
const SHOWN_CHARS: usize = 60;

/// The upstream files found: name and text, in [`gguf_upstream::FILES`] order.
struct Fetched(Vec<(&'static str, String)>);

impl Fetched {
    /// The names of the files read.
    fn names(&self) -> Vec<&'static str> {
        self.0.iter().map(|(name, _)| *name).collect()
    }

    /// The texts, for the checks; `config.json` is always there (see [`fetch`]).
    fn upstream(&self) -> Upstream<'_> {
        let text = |name: &str| self.0.iter().find(|(n, _)| *n == name).map(|(_, t)| t.as_str());
        Upstream {
            config: text(CONFIG).unwrap_or_default(),
            tokenizer_config: text(gguf_upstream::TOKENIZER_CONFIG),
            generation_config: text(gguf_upstream::GENERATION_CONFIG),
            chat_template: text(gguf_upstream::CHAT_TEMPLATE),
        }
    }
}

/// Reads the upstream files from `source`, a directory or a base URL; a missing file is left out,
/// but `config.json` must be there.
fn fetch(source: &str) -> Result<Fetched, String> {
    let base = Location::parse(source);
    let roots = match &base {
        Location::Path(dir) if !dir.is_dir() => {
            return Err(format!(
                "{source}: not a directory (SOURCE is a directory or a base URL)"
            ));
        }
        Location::Path(dir) => folder_roots(dir).map_err(|e| format!("{source}: cannot read: {e}"))?,
        Location::Url(_) => Vec::new(),
    };
    let agent = http::agent();
    let mut files = Vec::new();
    for name in gguf_upstream::FILES {
        let at = base.child(name);
        let text = match &at {
            Location::Path(path) => read_text(path, &roots),
            Location::Url(url) => http::get_text(&agent, url, MAX_FILE).map_err(|e| e.message),
        }?;
        match text {
            Some(text) => files.push((name, text)),
            None if name == CONFIG => {
                return Err(format!(
                    "{at}: no {CONFIG}: the upstream repository's configuration is needed"
                ));
            }
            None => {}
        }
    }
    Ok(Fetched(files))
}

/// Where the files of the upstream folder `dir` may lead: into it, and for a snapshot of the
/// Hugging Face cache (`…/snapshots/REV/`, whose files link to `…/blobs/`) into its blobs.
fn folder_roots(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let real = std::fs::canonicalize(dir)?;
    let mut roots = vec![real.clone()];
    let snapshots = real
        .parent()
        .filter(|p| p.file_name().is_some_and(|n| n == "snapshots"));
    if let Some(blobs) = snapshots.and_then(Path::parent).map(|repo| repo.join("blobs")) {
        roots.extend(std::fs::canonicalize(blobs));
    }
    Ok(roots)
}

/// A file's text; `None` when there is no such file. Only a regular file inside the folder
/// (`roots`), and at most [`MAX_FILE`] bytes of it.
fn read_text(path: &Path, roots: &[PathBuf]) -> Result<Option<String>, String> {
    let inside = Inside {
        roots,
        folder: "the upstream folder",
    };
    let read = FileSource::open_inside(path, &inside).and_then(|file| file.read_all(MAX_FILE));
    let bytes = match read {
        Ok(bytes) => bytes,
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| format!("{}: not UTF-8 text", path.display()))
}

/// A value on one line: strings quoted and escaped, all cut to [`SHOWN_CHARS`] characters.
fn shown(value: &Json) -> String {
    let text = match value {
        Json::Null => return "(absent)".to_string(),
        Json::String(s) => format!("\"{}\"", Escaped(s.as_bytes())),
        // JSON escapes control characters in strings, not bidirectional controls.
        v => Escaped(v.to_string().as_bytes()).to_string(),
    };
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

fn status_text(status: Status) -> &'static str {
    match status {
        Status::Same => "same",
        Status::Differs => "differs",
        Status::MissingInGguf => "missing in the file",
        Status::MissingUpstream => "missing upstream",
    }
}

/// The text report: the differences, each with both values, what it means and a template's
/// changed lines; then the fields that agree, the ones only the file has, and the notes.
fn render(file: &str, source: &str, read: &[&str], checks: &[Check]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} against {} ({})",
        Escaped(file.as_bytes()),
        Escaped(source.as_bytes()),
        read.join(", ")
    );
    let differences: Vec<&Check> = checks.iter().filter(|c| c.status.is_difference()).collect();
    match differences.len() {
        0 => out.push_str("no differences\n"),
        1 => out.push_str("1 difference\n"),
        n => {
            let _ = writeln!(out, "{n} differences");
        }
    }
    for c in &differences {
        let _ = writeln!(out, "  {} {}", c.field, status_text(c.status));
        let _ = writeln!(out, "    file      {} ({})", shown(&c.gguf), c.gguf_key);
        let _ = writeln!(out, "    upstream  {} ({})", shown(&c.upstream), c.upstream_key);
        let _ = writeln!(out, "    → {}", c.impact);
        if let Some(note) = &c.note {
            let _ = writeln!(out, "    note: {note}");
        }
        for hunk in c.diff.iter().flat_map(|d| &d.hunks) {
            let _ = writeln!(
                out,
                "    @@ file line {}, upstream line {} @@",
                hunk.gguf_line, hunk.upstream_line
            );
            for line in &hunk.lines {
                let _ = writeln!(out, "    {}", Escaped(line.as_bytes()));
            }
        }
        if c.diff.as_ref().is_some_and(|d| !d.complete) {
            out.push_str("    … (the diff is cut here)\n");
        }
        if let Some(p) = &c.prompts {
            match p.differences.len() {
                0 => {
                    let _ = writeln!(
                        out,
                        "    prompts: the same for the {} standard conversations",
                        p.conversations
                    );
                }
                n => {
                    let _ = writeln!(
                        out,
                        "    prompts differ for {n} of {} standard conversations:",
                        p.conversations
                    );
                }
            }
            for d in &p.differences {
                let token = d
                    .first_token_difference
                    .map(|t| format!(", token {t}"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "      {}: from character {}{token}",
                    d.conversation, d.first_difference
                );
                let _ = writeln!(out, "        file      {}", Escaped(d.gguf.as_bytes()));
                let _ = writeln!(out, "        upstream  {}", Escaped(d.upstream.as_bytes()));
            }
        }
    }
    let same: Vec<String> = checks
        .iter()
        .filter(|c| c.status == Status::Same)
        .map(|c| format!("{} {}", c.field, shown(&c.gguf)))
        .collect();
    if !same.is_empty() {
        let _ = writeln!(out, "same ({}): {}", same.len(), same.join(", "));
    }
    for c in checks.iter().filter(|c| c.status == Status::MissingUpstream) {
        let _ = writeln!(
            out,
            "missing upstream: {} {} ({}; not in {})",
            c.field,
            shown(&c.gguf),
            c.gguf_key,
            c.upstream_key
        );
    }
    for c in checks.iter().filter(|c| !c.status.is_difference()) {
        if let Some(note) = &c.note {
            let _ = writeln!(out, "note: {}: {note}", c.field);
        }
    }
    out
}
