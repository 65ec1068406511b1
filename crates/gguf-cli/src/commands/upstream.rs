//! `ggufscope upstream`: a model checked against its upstream repository's configuration
//! (`gguf_upstream`), the files read from a directory or fetched from a base URL. The text output
//! lists the differences first, each with both values and what it means for inference.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gguf_core::text::Escaped;
use gguf_upstream::{CONFIG, Check, Document, Fix, Status, Upstream};
use serde_json::Value as Json;

use crate::cli::{self, EXIT_UNPARSABLE, complain, finish, read_model_or_exit};
use crate::source::file::{FileSource, Inside};
use crate::source::{Location, ReadError, http};
use crate::width::{self, Style};

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
        stdout.write_all(render(&name, arg, source, &names, &checks).as_bytes())
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

/// The text report: which files were checked, the differences, each with both values, what it
/// means, a template's changed lines and its fix; then the fields that agree, the ones only the
/// file has, the notes, and one `ggufscope edit` line that applies every fix (to `path`, the
/// file as named on the command line).
fn render(file: &str, path: &str, source: &str, read: &[&str], checks: &[Check]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} against {}",
        Escaped(file.as_bytes()),
        Escaped(source.as_bytes())
    );
    let not_read: Vec<&str> = gguf_upstream::FILES
        .into_iter()
        .filter(|f| !read.contains(f))
        .collect();
    out += &width::indented(&read.join(", "), "  checked    ", 13);
    if !not_read.is_empty() {
        let text = format!("{}: what only they hold is not checked", not_read.join(", "));
        out += &width::indented(&text, "  not given  ", 13);
    }
    let differences: Vec<&Check> = checks.iter().filter(|c| c.status.is_difference()).collect();
    let count = match differences.len() {
        0 => width::paint(Style::Green, "no differences"),
        1 => width::paint(Style::Yellow, "1 difference"),
        n => width::paint(Style::Yellow, &format!("{n} differences")),
    };
    let _ = writeln!(out, "{count}");
    let folder = Location::parse(source);
    for c in &differences {
        let _ = writeln!(out, "  {} {}", c.field, status_text(c.status));
        let line = |label: &str, text: String| width::indented(&text, &format!("    {label:<9} "), 14);
        out += &line("file", format!("{} ({})", shown(&c.gguf), c.gguf_key));
        out += &line("upstream", format!("{} ({})", shown(&c.upstream), c.upstream_key));
        out += &width::indented(c.impact, "    → ", 6);
        if let Some(note) = &c.note {
            out += &width::indented(note, "    note: ", 10);
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
            let text = match p.differences.len() {
                0 => format!("the same for the {} standard conversations", p.conversations),
                n => format!("differ for {n} of {} standard conversations:", p.conversations),
            };
            out += &line("prompts", text);
            for d in &p.differences {
                let token = d
                    .first_token_difference
                    .map(|t| format!(", token {t}"))
                    .unwrap_or_default();
                let text = format!("{}: from character {}{token}", d.conversation, d.first_difference);
                out += &width::indented(&text, "      ", 6);
                let excerpt = |text: &str| Escaped(text.as_bytes()).to_string();
                out += &width::indented(&excerpt(&d.gguf), "        file      ", 18);
                out += &width::indented(&excerpt(&d.upstream), "        upstream  ", 18);
            }
        }
        if let Some(fix) = &c.fix {
            let text = match fix_argument(fix, &folder) {
                Some(argument) => argument,
                None => format!(
                    "save upstream's template to a file, then --set-file {}=FILE",
                    fix.key
                ),
            };
            out += &line("fix", text);
        }
    }
    let same: Vec<String> = checks
        .iter()
        .filter(|c| c.status == Status::Same)
        .map(|c| format!("{} {}", c.field, shown(&c.gguf)))
        .collect();
    if !same.is_empty() {
        out += &width::indented(&same.join(", "), &format!("same ({}): ", same.len()), 2);
    }
    for c in checks.iter().filter(|c| c.status == Status::MissingUpstream) {
        let text = format!(
            "{} {} ({}; not in {})",
            c.field,
            shown(&c.gguf),
            c.gguf_key,
            c.upstream_key
        );
        out += &width::indented(&text, "missing upstream: ", 2);
    }
    for c in checks.iter().filter(|c| !c.status.is_difference()) {
        if let Some(note) = &c.note {
            out += &width::indented(note, &format!("note: {}: ", c.field), 2);
        }
    }
    let fixes: Vec<String> = differences
        .iter()
        .filter_map(|c| fix_argument(c.fix.as_ref()?, &folder))
        .collect();
    if !fixes.is_empty() {
        let _ = writeln!(out, "to give the file upstream's values:");
        let fixed = fixed_name(file);
        let _ = write!(out, "  ggufscope edit {} -o {}", quoted(path), quoted(&fixed));
        for fix in &fixes {
            let _ = write!(out, " \\\n    {fix}");
        }
        out.push('\n');
    }
    out
}

/// The `ggufscope edit` argument of a fix, its value quoted for a shell; a template's upstream
/// file named inside the upstream folder (`None` when upstream has no such file here: its
/// template is inside tokenizer_config.json, or behind a URL).
fn fix_argument(fix: &Fix, folder: &Location) -> Option<String> {
    let argument = fix.argument.as_deref()?;
    if let Some(file) = argument
        .strip_prefix("--set-file ")
        .and_then(|a| a.split_once('='))
        .map(|(_, f)| f)
    {
        let Location::Path(dir) = folder else { return None };
        let path = dir.join(file).display().to_string();
        return Some(format!("--set-file {}", quoted(&format!("{}={path}", fix.key))));
    }
    let set = argument.strip_prefix("--set ")?;
    Some(format!("--set {}", quoted(set)))
}

/// `model.gguf` → `model.fixed.gguf`: where the edited copy goes, in the current folder.
fn fixed_name(name: &str) -> String {
    match name.strip_suffix(".gguf") {
        Some(stem) => format!("{stem}.fixed.gguf"),
        None => format!("{name}.fixed.gguf"),
    }
}

/// `text` as one shell word: as it is when it holds only characters no shell treats specially,
/// else in single quotes (a quote inside as `'\''`).
fn quoted(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-.,:=/+@%".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}
