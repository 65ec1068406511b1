//! `ggufscope validate`: findings for many files, one line each, and an exit status a model
//! registry's ingestion step can act on.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use gguf_core::report::Findings;
use gguf_core::{Finding, Severity, validate};
use serde_json::json;

use crate::read::{self, ReadError};

/// Exit status when some finding is at or above the deny level.
pub const EXIT_DENIED: u8 = 1;

/// The lowest severity that fails the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Deny {
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
enum Outcome {
    /// The header was decoded; here is what the validator says.
    Checked {
        header: gguf_core::Header,
        findings: Vec<Finding>,
    },
    /// The file cannot be read or its header decoded: the offset where it failed and why.
    Unparsable { offset: u64, message: String },
}

/// Findings per severity, over one file or the whole run.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    error: u64,
    warning: u64,
    info: u64,
}

impl Counts {
    fn add(&mut self, severity: Severity) {
        match severity {
            Severity::Error => self.error += 1,
            Severity::Warning => self.warning += 1,
            Severity::Info => self.info += 1,
        }
    }

    fn of(findings: &[Finding]) -> Counts {
        let mut counts = Counts::default();
        for f in findings {
            counts.add(f.severity);
        }
        counts
    }
}

fn check(path: &Path) -> Outcome {
    match read::read_header(path) {
        Ok((header, _)) => {
            let findings = validate(&header, None);
            Outcome::Checked { header, findings }
        }
        Err(ReadError::Gguf(e)) => Outcome::Unparsable {
            offset: e.offset(),
            message: e.message().to_string(),
        },
        Err(ReadError::Io(e)) => Outcome::Unparsable {
            offset: 0,
            message: format!("cannot read: {e}"),
        },
    }
}

/// Checks every file and prints the findings; returns the exit status: 2 when any file is
/// unparsable (it wins, being the worse news), else 1 when any finding reaches `deny`, else 0.
pub fn run(files: &[PathBuf], json: bool, deny: Deny) -> io::Result<u8> {
    let mut stdout = Output {
        stdout: io::stdout().lock(),
        closed: false,
    };
    let (mut total, mut unparsable, mut denied) = (Counts::default(), 0u64, false);
    let mut documents = Vec::new();
    for path in files {
        let name = path.display().to_string();
        let outcome = check(path);
        match &outcome {
            Outcome::Checked { findings, .. } => {
                for f in findings {
                    total.add(f.severity);
                    denied |= f.severity >= deny.severity();
                }
            }
            Outcome::Unparsable { .. } => unparsable += 1,
        }
        if json {
            documents.push(document(&name, &outcome)?);
        } else {
            stdout.write(&lines(&name, &outcome))?;
        }
    }
    if json {
        let mut text = serde_json::to_string_pretty(&documents)?;
        text.push('\n');
        stdout.write(&text)?;
    }
    if files.len() > 1 {
        eprintln!(
            "ggufscope: {} files checked, {unparsable} unparsable; {} errors, {} warnings, {} infos",
            files.len(),
            total.error,
            total.warning,
            total.info
        );
    }
    Ok(if unparsable > 0 {
        crate::EXIT_UNPARSABLE
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
        if self.closed {
            return Ok(());
        }
        match self.stdout.write_all(text.as_bytes()) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            written => written,
        }
    }
}

/// `FILE:OFFSET: SEVERITY CODE: message`, one line per finding.
fn lines(name: &str, outcome: &Outcome) -> String {
    let mut out = String::new();
    match outcome {
        Outcome::Checked { findings, .. } => {
            for f in findings {
                let _ = writeln!(
                    out,
                    "{name}:{}: {} {}: {}",
                    f.span.start,
                    f.severity.name(),
                    f.code.id(),
                    f.message
                );
            }
        }
        Outcome::Unparsable { offset, message } => {
            let _ = writeln!(out, "{name}:{offset}: error parse-error: {message}");
        }
    }
    out
}

/// `{file, error, findings, counts}`: `error` is null for a parsed file, `findings` empty for an
/// unparsable one.
fn document(name: &str, outcome: &Outcome) -> serde_json::Result<serde_json::Value> {
    Ok(match outcome {
        Outcome::Checked { header, findings } => {
            let counts = Counts::of(findings);
            json!({
                "file": name,
                "error": null,
                "findings": serde_json::to_value(Findings::new(header, findings))?,
                "counts": {"error": counts.error, "warning": counts.warning, "info": counts.info},
            })
        }
        Outcome::Unparsable { offset, message } => json!({
            "file": name,
            "error": {"code": "parse-error", "offset": offset, "message": message},
            "findings": [],
            "counts": {"error": 0, "warning": 0, "info": 0},
        }),
    })
}
