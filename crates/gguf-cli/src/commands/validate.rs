//! `ggufscope validate`: findings for many files, one line each, and an exit status a model
//! registry's ingestion step can act on. Files and URLs; the shards of a split model are checked
//! as one model (each found beside the one named), each finding under its own file's name.

use clap::ValueEnum;
use gguf_core::report::validation::{CheckedFile, Counts, FileValidation, checked_files};
use gguf_core::validate::MAX_FINDINGS_PER_CODE;
use gguf_core::{ErrorDocument, Severity};
use std::io::{self, Write};
use std::process::ExitCode;

use crate::cli::{self, complain};
use crate::model_files::{self, ModelRead};
use crate::source::Location;
use crate::width::{self, Style};

/// Check files for what would break a loader: truncation, bad layout, inconsistent metadata,
/// unsafe chat templates. Per finding `FILE:OFFSET: SEVERITY CODE: message` (the message
/// wrapped at 80 columns onto indented lines); `FILE: ok` when the one file checked has none.
///
/// Exit status: 0 when no finding reaches the deny level, 1 when one does, 2 when a file
/// cannot be parsed at all (2 wins over 1).
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// The .gguf files, or their URLs; a split model's shards are checked together.
    #[arg(required = true)]
    files: Vec<String>,
    /// Print one JSON document for the whole run instead of lines.
    #[arg(long)]
    json: bool,
    /// The lowest severity that fails the run.
    #[arg(long, value_enum, default_value = "error")]
    deny: Deny,
    /// Read only the file named, not the other shards of its split model.
    #[arg(long)]
    no_siblings: bool,
}

/// Runs `ggufscope validate`.
pub fn run(args: &ValidateArgs) -> ExitCode {
    match check_files(&args.files, args.json, args.deny, !args.no_siblings) {
        Ok(status) => ExitCode::from(status),
        Err(e) => {
            complain!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Exit status when some finding is at or above the deny level.
const EXIT_DENIED: u8 = 1;

/// The lowest severity that fails the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Deny {
    /// Fail on errors only.
    Error,
    /// Fail on warnings and errors.
    Warning,
    /// Fail on any finding.
    Info,
}

impl Deny {
    fn severity(self) -> Severity {
        match self {
            Deny::Error => Severity::Error,
            Deny::Warning => Severity::Warning,
            Deny::Info => Severity::Info,
        }
    }
}

/// What checking one file gave.
enum Outcome<'a> {
    /// The header was decoded (or, for a missing shard, the model's); here is what the validator
    /// says.
    Checked(CheckedFile<'a>),
    /// The file cannot be read or its header decoded: the error document (what, where, its code).
    Unparsable(ErrorDocument<'a>),
}

/// Each file of a model read, under its name, with its findings: the shards and the files left
/// out, then the shards missing (when `siblings` were looked for), then the shards that could not
/// be read.
fn outcomes<'a>(
    read: &'a ModelRead,
    asked: &Location,
    arg: &str,
    siblings: bool,
) -> Vec<(String, Outcome<'a>)> {
    let name_of = |file: &str| match read.location_of(file, asked) {
        at if at == *asked => arg.to_string(),
        at => at.to_string(),
    };
    let mut linted: Vec<*const gguf_core::Header> = Vec::new();
    let mut out: Vec<(String, Outcome<'a>)> = checked_files(&read.model, siblings)
        .into_iter()
        .map(|mut checked| {
            // A missing shard without a conventional name is named as the model names it.
            let shown = match checked.unnamed {
                true => checked.name.clone(),
                false => name_of(&checked.name),
            };
            // The chat-template checks that need a render, beside the core's: once per header (a
            // missing shard is shown with the model's).
            if !linted.contains(&std::ptr::from_ref(checked.header)) {
                linted.push(checked.header);
                checked
                    .findings
                    .extend(super::template::lint(&shown, checked.header));
                checked.findings.sort_by_key(|f| (f.span.start, f.code));
            }
            (shown, Outcome::Checked(checked))
        })
        .collect();
    out.extend(
        read.unreadable
            .iter()
            .map(|(at, e)| (at.to_string(), Outcome::Unparsable(e.document()))),
    );
    out
}

/// Checks every file and prints the findings; returns the exit status: 2 when any file is
/// unparsable (it wins, being the worse news), else 1 when any finding reaches `deny`, else 0.
fn check_files(files: &[String], json: bool, deny: Deny, siblings: bool) -> io::Result<u8> {
    let mut stdout = Output {
        stdout: cli::stdout(),
        closed: false,
    };
    let (mut total, mut unparsable, mut denied) = (Counts::default(), 0u64, false);
    let mut documents = Vec::new();
    let mut checked: Vec<Location> = Vec::new(); // every file read so far, shards included
    let mut count = 0;
    for arg in files {
        let asked = Location::parse(arg);
        if checked.contains(&asked) {
            continue; // a shard of a model checked already
        }
        let read = model_files::read_model(&asked, siblings);
        let outcomes = match &read {
            Ok(read) => {
                checked.extend(read.files.iter().map(|(_, at)| at.clone()));
                outcomes(read, &asked, arg, siblings)
            }
            Err(e) => vec![(arg.clone(), Outcome::Unparsable(e.document()))],
        };
        for (name, outcome) in outcomes {
            count += 1;
            match &outcome {
                Outcome::Checked(checked) => {
                    let counts = checked.counts();
                    for (severity, n) in [
                        (Severity::Error, counts.error),
                        (Severity::Warning, counts.warning),
                        (Severity::Info, counts.info),
                    ] {
                        total.add(severity, n);
                        denied |= n > 0 && severity >= deny.severity();
                    }
                }
                Outcome::Unparsable(_) => unparsable += 1,
            }
            if json {
                documents.push(document(&name, &outcome)?);
            } else {
                stdout.write(&lines(&name, &outcome))?;
            }
        }
    }
    if json {
        stdout.write(&crate::json::document(&documents)?)?;
    } else if count == 1 && unparsable == 0 && total.error + total.warning + total.info == 0 {
        // One file, nothing to say: say so, on one line.
        let name = gguf_core::text::Escaped(files[0].as_bytes());
        stdout.write(&format!("{name}: {}\n", width::paint(Style::Green, "ok")))?;
    }
    stdout.flush()?;
    if count > 1 {
        complain!(
            "{count} files checked, {unparsable} unparsable; {} errors, {} warnings, {} infos",
            total.error,
            total.warning,
            total.info
        );
    }
    Ok(if unparsable > 0 {
        cli::EXIT_UNPARSABLE
    } else if denied {
        EXIT_DENIED
    } else {
        0
    })
}

/// Standard output that goes quiet once its reader has gone (`| head`): the run still checks
/// every file, so the exit status stays the verdict.
struct Output<W> {
    stdout: W,
    closed: bool,
}

impl<W: Write> Output<W> {
    fn write(&mut self, text: &str) -> io::Result<()> {
        self.quiet_when_closed(|w| w.write_all(text.as_bytes()))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.quiet_when_closed(Write::flush)
    }

    fn quiet_when_closed(&mut self, op: impl FnOnce(&mut W) -> io::Result<()>) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match op(&mut self.stdout) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            written => written,
        }
    }
}

/// `FILE:OFFSET: SEVERITY CODE: message` per finding, the message wrapped at 80 columns onto
/// lines indented by four spaces; then, per code past the cap, `FILE: SEVERITY CODE: … and N
/// more CODE findings`.
fn lines(name: &str, outcome: &Outcome) -> String {
    let name = gguf_core::text::Escaped(name.as_bytes()); // a path may hold a terminal escape
    let mut out = String::new();
    let finding = |out: &mut String, at: &str, severity: Severity, code: &str, message: &str| {
        let first = format!("{name}{at}: {} {code}: ", severity_text(severity));
        out.push_str(&width::indented(message, &first, 4));
    };
    match outcome {
        Outcome::Checked(CheckedFile {
            findings, omitted, ..
        }) => {
            for f in findings {
                let at = format!(":{}", f.span.start);
                finding(&mut out, &at, f.severity, f.code.id(), &f.message);
            }
            for o in omitted {
                let code = o.code.id();
                let message = format!(
                    "… and {} more {code} findings (only the first {MAX_FINDINGS_PER_CODE} of a code are listed)",
                    o.count
                );
                finding(&mut out, "", o.code.severity(), code, &message);
            }
        }
        Outcome::Unparsable(e) => {
            let at = format!(":{}", e.offset.unwrap_or(0));
            finding(&mut out, &at, Severity::Error, e.code, &e.message);
        }
    }
    out
}

/// A severity's name, in its colour.
fn severity_text(severity: Severity) -> String {
    let style = match severity {
        Severity::Error => Style::Red,
        Severity::Warning => Style::Yellow,
        Severity::Info => Style::Cyan,
    };
    width::paint(style, severity.name())
}

/// The file's entry in the document ([`FileValidation`]), its keys sorted as the document's
/// always were.
fn document(name: &str, outcome: &Outcome) -> serde_json::Result<serde_json::Value> {
    serde_json::to_value(match outcome {
        Outcome::Checked(checked) => FileValidation::checked(name, checked),
        Outcome::Unparsable(e) => FileValidation::unparsable(name, e),
    })
}
