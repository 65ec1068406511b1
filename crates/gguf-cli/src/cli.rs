//! What the commands share: the exit statuses, the one way to write an error line
//! ([`complain!`]), standard output behind a buffer and the escaping writer ([`Terminal`]), how a
//! run ends ([`finish`]), and a model read or refused with its status ([`read_model_or_exit`]).

use std::io::{self, BufWriter, StdoutLock, Write};
use std::process::ExitCode;

use crate::model_files::{self, ModelRead};
use crate::source::Location;

/// Says what went wrong on stderr, `ggufscope: MESSAGE`, with the message
/// [`gguf_core::text::EscapedLine`]:
/// it quotes paths, URLs, names and values, any of which may hold a terminal escape or a
/// bidirectional control. The one way the commands write an error line.
macro_rules! complain {
    ($($message:tt)*) => {
        eprintln!("ggufscope: {}", gguf_core::text::EscapedLine(format!($($message)*).as_bytes()))
    };
}
pub(crate) use complain;

/// Exit status for a file that cannot be read or parsed.
pub const EXIT_UNPARSABLE: u8 = 2;

/// Exit status when a search finds nothing, a token or template does not exist, or a template
/// does not render.
pub const EXIT_NOT_FOUND: u8 = 1;

/// Standard output, the one way a command prints: through [`Terminal`], behind a 64 KiB buffer.
/// Rust's own is line-buffered, one `write()` per line: JSON written piece by piece, or a long
/// listing, would cost a system call a line.
pub fn stdout() -> Terminal<BufWriter<StdoutLock<'static>>> {
    Terminal::new(BufWriter::with_capacity(1 << 16, io::stdout().lock()))
}

/// The escaping writer every line a command prints goes through: whatever a command forgot to
/// escape, a control character (ESC, CR, a C1 control), a character that reorders or hides text
/// (U+202E, U+200B) or an invalid byte comes out as [`gguf_core::text::EscapedLine`] writes it
/// (`\x1B`, `\u{202E}`, `\xFF`); only line breaks and tabs are written as they are. Text
/// already escaped, and JSON documents, pass unchanged. A character cut between two writes is
/// held until the next, or the flush.
pub struct Terminal<W: Write> {
    inner: W,
    /// The start of a UTF-8 sequence the last write ended in.
    pending: Vec<u8>,
}

impl<W: Write> Terminal<W> {
    pub fn new(inner: W) -> Terminal<W> {
        Terminal {
            inner,
            pending: Vec::new(),
        }
    }

    /// Writes `bytes`, escaped, line break by line break.
    fn escape(&mut self, bytes: &[u8]) -> io::Result<()> {
        for (i, part) in bytes.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                self.inner.write_all(b"\n")?;
            }
            for (j, piece) in part.split(|&b| b == b'\t').enumerate() {
                if j > 0 {
                    self.inner.write_all(b"\t")?;
                }
                self.escape_piece(piece)?;
            }
        }
        Ok(())
    }
}

impl<W: Write> Terminal<W> {
    /// Writes a piece without line breaks or tabs, escaped; while colour is on, the colour
    /// sequences the commands write themselves ([`crate::width::SEQUENCES`]) pass as they are.
    fn escape_piece(&mut self, piece: &[u8]) -> io::Result<()> {
        let mut rest = piece;
        while !rest.is_empty() {
            let style = crate::width::colour()
                .then(|| {
                    crate::width::SEQUENCES
                        .iter()
                        .find(|s| rest.starts_with(s.as_bytes()))
                })
                .flatten();
            if let Some(sequence) = style {
                self.inner.write_all(sequence.as_bytes())?;
                rest = &rest[sequence.len()..];
                continue;
            }
            // Up to the next escape character (after the first byte), escaped as one run.
            let end = rest[1..]
                .iter()
                .position(|&b| b == 0x1b)
                .map_or(rest.len(), |i| i + 1);
            let run = &rest[..end];
            if run.iter().all(|&b| (0x20..0x7F).contains(&b)) {
                self.inner.write_all(run)?;
            } else {
                write!(self.inner, "{}", gguf_core::text::EscapedLine(run))?;
            }
            rest = &rest[end..];
        }
        Ok(())
    }
}

/// Where the incomplete UTF-8 sequence `bytes` ends in starts, if it ends in one.
fn incomplete_tail(bytes: &[u8]) -> Option<usize> {
    let from = bytes.len().saturating_sub(3);
    let lead = (from..bytes.len()).rev().find(|&i| bytes[i] & 0xC0 != 0x80)?;
    let needs = match bytes[lead] {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    (bytes.len() - lead < needs).then_some(lead)
}

impl<W: Write> Write for Terminal<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        if !self.pending.is_empty() {
            // Complete the held character first: at most 3 more bytes.
            let take = buf.len().min(4 - self.pending.len());
            let mut head = std::mem::take(&mut self.pending);
            head.extend_from_slice(&buf[..take]);
            let end = incomplete_tail(&head).unwrap_or(head.len());
            if end == 0 && take == buf.len() {
                self.pending = head;
                return Ok(buf.len());
            }
            self.escape(&head[..end])?;
            // What the held bytes did not need goes on with the rest of `buf`.
            let used = end.saturating_sub(head.len() - take);
            rest = &buf[used..];
        }
        let end = incomplete_tail(rest).unwrap_or(rest.len());
        self.escape(&rest[..end])?;
        self.pending = rest[end..].to_vec();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.escape(&pending)?;
        self.inner.flush()
    }
}

/// The exit status of a run whose output ended with `written`.
pub fn finish(written: io::Result<()>) -> ExitCode {
    match written {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`| head`) is not a failure of ours.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            complain!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// The model `arg` names ([`model_files::read_model`]: a shard brings its siblings when
/// `siblings` is set), or the exit status after saying why not. A shard that is there but cannot
/// be read makes the model unreadable.
pub fn read_model_or_exit(arg: &str, siblings: bool) -> Result<ModelRead, ExitCode> {
    let read = model_files::read_model(&Location::parse(arg), siblings).map_err(|e| {
        complain!("{arg}: {e}");
        ExitCode::from(EXIT_UNPARSABLE)
    })?;
    if let Some((at, e)) = read.unreadable.first() {
        complain!("{at}: {e}");
        return Err(ExitCode::from(EXIT_UNPARSABLE));
    }
    Ok(read)
}
