//! What the commands share: the exit statuses, the one way to write an error line
//! ([`complain!`]), standard output behind a buffer, how a run ends ([`finish`]), and a model
//! read or refused with its status ([`read_model_or_exit`]).

use std::io::{self, BufWriter, StdoutLock};
use std::process::ExitCode;

use crate::model_files::{self, ModelRead};
use crate::source::Location;

/// Says what went wrong on stderr, `ggufscope: MESSAGE`, with the message [`gguf_core::text::Escaped`]:
/// it quotes paths, URLs, names and values, any of which may hold a terminal escape or a
/// bidirectional control. The one way the commands write an error line.
macro_rules! complain {
    ($($message:tt)*) => {
        eprintln!("ggufscope: {}", gguf_core::text::Escaped(format!($($message)*).as_bytes()))
    };
}
pub(crate) use complain;

/// Exit status for a file that cannot be read or parsed.
pub const EXIT_UNPARSABLE: u8 = 2;

/// Exit status when a search finds nothing, a token or template does not exist, or a template
/// does not render.
pub const EXIT_NOT_FOUND: u8 = 1;

/// Standard output behind a 64 KiB buffer. Rust's own is line-buffered, one `write()` per line:
/// JSON written piece by piece, or a long listing, would cost a system call a line.
pub fn stdout() -> BufWriter<StdoutLock<'static>> {
    BufWriter::with_capacity(1 << 16, io::stdout().lock())
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
