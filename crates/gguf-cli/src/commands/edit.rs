//! `ggufscope edit`: a copy of a file with its metadata changed — the core's new header
//! (`gguf_core::edit`) followed by the input's data section, copied in bounded memory. The copy
//! is written to a temporary file beside OUT, flushed to disk, read back and checked, and only
//! then renamed to OUT, so OUT is never half-written. SIGINT, SIGTERM and SIGHUP remove the
//! temporary file before the process ends.

use std::fs::{self, File};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use clap::{ArgMatches, Args};
use gguf_core::edit::{
    Action, Edit, EditErrorKind, Edited, NewValue, TypeSpec, apply, gained_findings, show,
};
use gguf_core::text::Escaped;
use gguf_core::{Header, Value, keys};
use serde_json::json;

use crate::budget;
use crate::cli::complain;
use crate::format::grouped;
use crate::source::file::{FileSource, kind_of};
use crate::source::{self, Location, Source};
use crate::width;

/// Exit status when the result would have a validator finding the input does not have: an
/// error always, a warning or an info unless `--allow-findings`.
pub const EXIT_NEW_FINDINGS: u8 = 1;
/// Exit status for bad arguments, an unreadable input, a refused edit or a failed write.
pub const EXIT_REFUSED: u8 = 2;

/// The keys that place a shard in its split model (`--edit-split-keys`).
const SPLIT_KEYS: [&str; 3] = [keys::SPLIT_NO, keys::SPLIT_COUNT, keys::SPLIT_TENSORS_COUNT];

/// Characters of a value shown per change.
const SHOWN_CHARS: usize = 60;
/// Bytes per read when the data section comes from a URL.
const URL_CHUNK: u64 = 8 << 20;

/// Write a copy of a file with its metadata edited: keys set, added or deleted, the tensor
/// data unchanged.
///
/// The new header is followed by IN's data section, copied as is. The copy goes to a
/// temporary file beside OUT, is flushed and read back, and only then renamed to OUT: a
/// failure leaves no OUT. With no edits, OUT is byte for byte IN. `general.alignment` cannot
/// be edited.
///
/// Findings the edited file would have and IN has not are listed; an error is never written,
/// a warning or an info only with --allow-findings.
///
/// Example: ggufscope edit model.gguf -o fixed.gguf --set tokenizer.ggml.eos_token_id=106
/// --set-file tokenizer.chat_template=chat_template.jinja
///
/// Exit status: 0 when written, 1 when the result would have a finding the input does not
/// (an error; a warning or info without --allow-findings: nothing written, the findings on
/// stderr), 2 for bad arguments, an unreadable input, a refused edit (the key and the reason
/// on stderr), an existing OUT without --force, OUT being IN, or a failed write; 130, 143 or
/// 129 when SIGINT, SIGTERM or SIGHUP interrupts it (the temporary file removed).
#[derive(Debug, Args)]
pub struct EditArgs {
    /// The .gguf file to read, or its URL (the data section is then fetched by Range requests).
    #[arg(value_name = "IN")]
    pub input: String,
    /// Where to write the edited copy. Never the input itself.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// Set KEY to VALUE in its own type, or in TYPE (which also adds a missing key): UINT8 …
    /// FLOAT64, BOOL, STRING or u8 … f64, bool, str; arrays as arr[u32] with VALUE like [1,106]
    /// (strings in arrays as JSON strings: ["a","b"]). Repeatable; edits apply in order.
    #[arg(long = "set", value_name = "KEY[:TYPE]=VALUE")]
    pub set: Vec<String>,
    /// Set KEY to the text of the file at PATH, as a STRING (e.g. a chat template).
    #[arg(long = "set-file", value_name = "KEY=PATH")]
    pub set_file: Vec<String>,
    /// Delete KEY. Repeatable.
    #[arg(long = "delete", value_name = "KEY")]
    pub delete: Vec<String>,
    /// Replace OUT when it exists (a regular file only).
    #[arg(long)]
    pub force: bool,
    /// Allow edits of split.no, split.count and split.tensors.count, which say where a shard is
    /// in its split model: changed on one shard alone, they break the model.
    #[arg(long)]
    pub edit_split_keys: bool,
    /// Write the file even when it gains warnings or infos the input has not (they are
    /// listed); without it such an edit writes nothing and exits 1. An error is never written.
    #[arg(long)]
    pub allow_findings: bool,
    /// Print one JSON document: {in, out, written, changes, findings, header_size,
    /// data_offset}.
    #[arg(long)]
    pub json: bool,
}

/// A failure, with the exit status it gives, and what to print on standard output all the same
/// (the JSON document of an edit refused for its findings).
struct Failure {
    status: u8,
    message: String,
    document: Option<String>,
}

fn refused(message: impl Into<String>) -> Failure {
    Failure {
        status: EXIT_REFUSED,
        message: message.into(),
        document: None,
    }
}

/// Runs the command; `matches` are the subcommand's, for the order of the edits on the line.
pub fn run(args: &EditArgs, matches: Option<&ArgMatches>) -> u8 {
    let (text, status) = match edit(args, matches) {
        Ok(text) => (text, 0),
        Err(Failure {
            status,
            message,
            document,
        }) => {
            // The first line says what happened; the findings follow, one a line.
            let mut lines = message.lines();
            if let Some(first) = lines.next() {
                complain!("{first}");
            }
            for line in lines {
                eprintln!("{}", Escaped(line.as_bytes()));
            }
            match document {
                Some(document) => (document, status),
                None => return status,
            }
        }
    };
    let mut stdout = crate::cli::stdout();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            complain!("{e}");
            EXIT_REFUSED
        }
        _ => status,
    }
}

/// The edits in command-line order.
fn edits(args: &EditArgs, matches: Option<&ArgMatches>) -> Result<Vec<Edit>, Failure> {
    let index = |id: &str, n: usize| -> Vec<usize> {
        matches
            .and_then(|m| m.indices_of(id))
            .map_or_else(|| (0..n).collect(), |i| i.collect())
    };
    let mut edits: Vec<(usize, Edit)> = Vec::new();
    for (at, arg) in index("set", args.set.len()).into_iter().zip(&args.set) {
        let edit = Edit::parse_set(arg).map_err(|e| refused(format!("--set {arg}: {e}")))?;
        edits.push((at, edit));
    }
    for (at, arg) in index("set_file", args.set_file.len())
        .into_iter()
        .zip(&args.set_file)
    {
        let Some((key, path)) = arg.split_once('=') else {
            return Err(refused(format!("--set-file {arg}: expected KEY=PATH")));
        };
        let text = read_value_file(key, path)?;
        let value = NewValue::Value(Value::String(text.into()));
        edits.push((
            at,
            Edit::Set {
                key: key.to_string(),
                value,
            },
        ));
    }
    for (at, key) in index("delete", args.delete.len()).into_iter().zip(&args.delete) {
        edits.push((at, Edit::Delete { key: key.clone() }));
    }
    edits.sort_by_key(|(at, _)| *at);
    Ok(edits.into_iter().map(|(_, e)| e).collect())
}

/// The bytes of `--set-file KEY=PATH`: a regular file only (a FIFO or `/dev/zero` is refused
/// before a byte is read), within what is left of the header budget (`--max-header-bytes`).
fn read_value_file(key: &str, path: &str) -> Result<Vec<u8>, Failure> {
    let failed = |e: &dyn std::fmt::Display| refused(format!("--set-file {key}: {path}: {e}"));
    let file = FileSource::open(Path::new(path)).map_err(|e| failed(&e))?;
    let room = budget::room_for_value();
    let over = |len: u64| {
        failed(&format!(
            "{} bytes or more, more than the {} bytes a value may take of the header budget of {} bytes (--max-header-bytes)",
            grouped(len),
            grouped(room),
            grouped(budget::max_header_bytes())
        ))
    };
    if file.len() > room {
        return Err(over(file.len()));
    }
    file.read_all(room).map_err(|e| match e {
        source::ReadError::NotRead(_) => over(room + 1),
        e => failed(&e),
    })
}

fn edit(args: &EditArgs, matches: Option<&ArgMatches>) -> Result<String, Failure> {
    let edits = edits(args, matches)?;
    let location = Location::parse(&args.input);
    let out = &args.output;
    if let Location::Path(input) = &location {
        if same_file(input, out) {
            return Err(refused(format!(
                "{}: the output is the input file; write the copy elsewhere",
                out.display()
            )));
        }
    }
    match fs::symlink_metadata(out) {
        Ok(m) if !m.is_file() => return Err(not_regular(out, kind_of(m.file_type()))),
        Ok(_) if !args.force => {
            return Err(refused(format!(
                "{}: exists (--force replaces it)",
                out.display()
            )));
        }
        _ => {}
    }

    if let Some(edit) = edits.iter().find(|e| SPLIT_KEYS.contains(&e.key())) {
        if !args.edit_split_keys {
            return Err(refused(format!(
                "{}: {} says where a shard is in its split model; changed on one shard alone it breaks the model (its siblings say otherwise): --edit-split-keys to edit it anyway (nothing written)",
                args.input,
                Escaped(edit.key().as_bytes())
            )));
        }
    }
    let mut source = location
        .open(&source::http::agent())
        .map_err(|e| refused(format!("{}: {e}", args.input)))?;
    let (header, _) =
        source::read_header(source.as_mut()).map_err(|e| refused(format!("{}: {e}", args.input)))?;
    let edited = apply(&header, &edits).map_err(|e| Failure {
        status: match e.kind {
            EditErrorKind::NewError { .. } => EXIT_NEW_FINDINGS,
            _ => EXIT_REFUSED,
        },
        message: format!("{}: {e} (nothing written)", args.input),
        document: None,
    })?;
    let gained = gained_findings(&header, &edited.header);
    let document = |written: bool| {
        let findings = gguf_core::report::findings(&edited.header, &gained);
        let doc = json!({
            "in": args.input,
            "out": out.display().to_string(),
            "written": written,
            "changes": edited.changes,
            "findings": findings,
            "header_size": {"before": header.header_len, "after": edited.header_len},
            "data_offset": {"before": header.data_offset, "after": edited.data_offset},
        });
        crate::json::document(&doc).unwrap_or_default()
    };
    if !gained.is_empty() && !args.allow_findings {
        let mut message = format!(
            "{}: nothing written: the edit would add {}:\n",
            args.input,
            match gained.len() {
                1 => "a finding".to_string(),
                n => format!("{n} findings"),
            }
        );
        message += &findings_text(&gained);
        message += "--allow-findings writes the file anyway";
        return Err(Failure {
            status: EXIT_NEW_FINDINGS,
            message: message.trim_end().to_string(),
            document: args.json.then(|| document(false)),
        });
    }

    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    check_size(&location, &header, source.len(), &edited, &dir)
        .map_err(|why| refused(format!("{}: {why} (nothing written)", args.input)))?;
    #[cfg(unix)]
    remove_on_signal().map_err(|e| refused(format!("cannot catch signals: {e}")))?;
    let mut temp =
        TempFile::create(&dir).map_err(|e| refused(format!("{}: cannot write: {e}", dir.display())))?;
    write_copy(&mut temp.file, &location, source.as_mut(), &header, &edited)
        .map_err(|e| refused(format!("{}: cannot write the copy: {e}", out.display())))?;
    check_copy(&temp.path, &edited).map_err(|e| refused(format!("{}: {e}", out.display())))?;
    temp.persist(out, args.force).map_err(|e| match e {
        Persist::NotRegular(kind) => not_regular(out, kind),
        Persist::Io(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            refused(format!("{}: exists (--force replaces it)", out.display()))
        }
        Persist::Io(e) => refused(format!("{}: cannot write: {e}", out.display())),
    })?;

    Ok(if args.json {
        document(true)
    } else {
        render(out, &header, &edited) + &findings_text(&gained)
    })
}

/// The findings an edit gains, as `SEVERITY CODE: message` lines wrapped at 80 columns.
fn findings_text(findings: &[gguf_core::Finding]) -> String {
    findings
        .iter()
        .map(|f| {
            let first = format!("  {} {}: ", f.severity.name(), f.code.id());
            width::indented(&f.message, &first, 6)
        })
        .collect()
}

/// OUT exists and is not a regular file: `--force` replaces only a regular file, never a device
/// node, a FIFO, a directory or a symbolic link (as root, `-o /dev/null --force` would replace
/// the device).
fn not_regular(out: &Path, kind: &str) -> Failure {
    refused(format!(
        "{}: exists and is {}, not a regular file: --force replaces only a regular file",
        out.display(),
        kind
    ))
}

/// The changes, one a line (`KEY: old → new`), and the header's size before and after.
pub fn render(out: &Path, before: &Header, edited: &Edited) -> String {
    let mut text = String::new();
    for c in &edited.changes {
        let shown = |v: &Option<Value>, absent: &str| {
            v.as_ref()
                .map_or_else(|| absent.to_string(), |v| show(v, SHOWN_CHARS).to_string())
        };
        let ty = match (c.action, &c.old, &c.new) {
            (Action::Set, Some(old), Some(new)) if old.ty() == new.ty() => String::new(),
            (_, old, new) => {
                let value = new.as_ref().or(old.as_ref());
                let ty = value.and_then(TypeSpec::of).map(|t| t.to_string());
                format!(" ({})", ty.as_deref().unwrap_or(c.ty().name()))
            }
        };
        let change = format!(
            "{}{ty}: {} → {}",
            Escaped(c.key.as_bytes()),
            shown(&c.old, "(absent)"),
            shown(&c.new, "(deleted)")
        );
        text += &width::indented(&change, "", 4);
    }
    if edited.changes.is_empty() {
        text += "no changes: an exact copy\n";
    }
    text += &format!(
        "header {} → {} bytes, data at {} → {}\nwrote {} ({} bytes)\n",
        grouped(before.header_len),
        grouped(edited.header_len),
        grouped(before.data_offset),
        grouped(edited.data_offset),
        Escaped(out.display().to_string().as_bytes()),
        grouped(edited.file_len.unwrap_or(0)),
    );
    text
}

/// Whether `out` names the file `input` does: the same canonical path, or (where it exists) the
/// same device and inode, which also catches hard links.
fn same_file(input: &Path, out: &Path) -> bool {
    let canonical = |p: &Path| -> Option<PathBuf> {
        fs::canonicalize(p).ok().or_else(|| {
            let parent = match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            Some(fs::canonicalize(parent).ok()?.join(p.file_name()?))
        })
    };
    if let (Some(a), Some(b)) = (canonical(input), canonical(out)) {
        if a == b {
            return true;
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(a), Ok(b)) = (fs::metadata(input), fs::metadata(out)) {
            return a.dev() == b.dev() && a.ino() == b.ino();
        }
    }
    false
}

/// Refuses a copy that cannot be right or cannot fit: from a URL, a file longer than its
/// tensors say its data section is (a server's claimed size is all there is to stop a copy of
/// 2^62 bytes); anywhere, a copy larger than the free space of OUT's file system.
fn check_size(
    location: &Location,
    header: &Header,
    len: u64,
    edited: &Edited,
    dir: &Path,
) -> Result<(), String> {
    let layout = gguf_core::layout::FileLayout::of(header, None);
    if matches!(location, Location::Url(_)) && layout.sizes_known {
        let end = layout
            .data_end
            .div_ceil(layout.alignment)
            .saturating_mul(layout.alignment);
        if len > end {
            return Err(format!(
                "the server says the file is {} bytes, but its tensors end at byte {}: the {} bytes after them are no tensor's",
                grouped(len),
                grouped(end),
                grouped(len - end)
            ));
        }
    }
    let data = len.saturating_sub(header.data_offset);
    let copy = (edited.bytes.len() as u64)
        .saturating_add(edited.padding)
        .saturating_add(data);
    #[cfg(unix)]
    if let Ok(fs) = rustix::fs::statvfs(dir) {
        let free = fs.f_bavail.saturating_mul(fs.f_frsize);
        if copy > free {
            return Err(format!(
                "the copy would be {} bytes, more than the {} bytes free where OUT is",
                grouped(copy),
                grouped(free)
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = (dir, copy);
    Ok(())
}

/// The new header, then the input's data section (from its old data offset to its end).
fn write_copy(
    out: &mut File,
    location: &Location,
    source: &mut dyn Source,
    header: &Header,
    edited: &Edited,
) -> io::Result<()> {
    out.write_all(&edited.bytes)?;
    io::copy(&mut io::Read::take(io::repeat(0), edited.padding), out)?;
    let len = source.len();
    let data = len.saturating_sub(header.data_offset);
    match location {
        Location::Path(path) => {
            // `io::copy` between files uses copy_file_range on Linux: no bytes through user space.
            let mut input = File::open(path)?;
            input.seek(SeekFrom::Start(header.data_offset))?;
            let copied = io::copy(&mut io::Read::take(input, data), out)?;
            if copied != data {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the input ended after {copied} of its {data} bytes of tensor data"),
                ));
            }
        }
        Location::Url(_) => {
            let mut buf = Vec::new();
            let mut at = header.data_offset;
            while at < len {
                let n = URL_CHUNK.min(len - at);
                buf.resize(n as usize, 0);
                source
                    .read_at(at, &mut buf)
                    .map_err(|e| io::Error::other(e.to_string()))?;
                out.write_all(&buf)?;
                at += n;
            }
        }
    }
    out.sync_all()
}

/// Reads the copy's header back with the decoder that read the input: it must be the header that
/// was written (`Edited::verify`), so the checks `apply` made hold for the copy too.
fn check_copy(path: &Path, edited: &Edited) -> Result<(), String> {
    let mut source = FileSource::open(path).map_err(|e| format!("the copy cannot be read back: {e}"))?;
    let (copy, _) = source::read_header(&mut source).map_err(|e| format!("the copy does not decode: {e}"))?;
    match edited.verify(&copy) {
        None => Ok(()),
        Some(why) => Err(format!("the copy, read back: {why} (nothing written)")),
    }
}

/// The temporary file being written, for the signal handler to remove (a signal ends the
/// process without running `Drop`). Its lock is held while the file is created, persisted or
/// removed, so a signal never removes a file renamed to OUT, nor stops a rename halfway.
static WRITING: Mutex<Option<PathBuf>> = Mutex::new(None);

fn writing() -> MutexGuard<'static, Option<PathBuf>> {
    WRITING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// From now on SIGINT, SIGTERM and SIGHUP remove the temporary file being written and end the
/// process with 128 + the signal's number, the status a shell gives a process a signal killed.
/// SIGXFSZ (the file size limit, `ulimit -f`) no longer ends the process: the write past the
/// limit fails instead (EFBIG), and the copy stops as any failed write does, its temporary file
/// removed.
#[cfg(unix)]
fn remove_on_signal() -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGXFSZ};
    let noticed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    signal_hook::flag::register(SIGXFSZ, noticed)?;
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            let (writing, message) = remove_temporary();
            eprintln!("ggufscope edit: interrupted{message}");
            drop(writing);
            std::process::exit(128 + signal);
        }
    });
    Ok(())
}

/// Removes the temporary file being written, if any: the lock to hold until the process ends
/// (the main thread then cannot create, persist or remove the file meanwhile), and what to add
/// to the message.
fn remove_temporary() -> (MutexGuard<'static, Option<PathBuf>>, String) {
    let writing = writing();
    let message = match writing.as_deref() {
        Some(path) => match fs::remove_file(path) {
            Ok(()) => "; nothing was written (the temporary file was removed)".to_string(),
            Err(e) => format!(
                "; nothing was written, but the temporary file {} could not be removed: {e}",
                Escaped(path.display().to_string().as_bytes())
            ),
        },
        None => String::new(),
    };
    (writing, message)
}

/// Ends the process at the command's deadline (`--timeout`), the temporary file removed first.
pub fn stop(message: &str) -> ! {
    let (_writing, removed) = remove_temporary();
    eprintln!("ggufscope edit: {message}{removed}");
    std::process::exit(2)
}

/// A temporary file beside OUT, registered in `WRITING` until it is persisted or dropped, and
/// removed unless it was persisted.
struct TempFile {
    path: PathBuf,
    file: File,
}

impl TempFile {
    /// `.ggufscope-PID-N.tmp` in `dir`, created new (never an existing file): a short name of its
    /// own, so that an OUT whose name is as long as the file system allows can be written.
    fn create(dir: &Path) -> io::Result<TempFile> {
        let pid = std::process::id();
        let mut writing = writing();
        for n in 0..1000 {
            let path = dir.join(format!(".ggufscope-{pid}-{n}.tmp"));
            match File::options().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    *writing = Some(path.clone());
                    return Ok(TempFile { path, file });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "no free temporary name",
        ))
    }

    /// Moves the complete file to `out`: replacing it with `force` (a regular file only, looked
    /// at again here), else only if it does not exist (a hard link fails when it does; the
    /// temporary name is then removed). The directory is flushed so the new name survives a
    /// crash.
    fn persist(&mut self, out: &Path, force: bool) -> Result<(), Persist> {
        let mut writing = writing();
        if force {
            match fs::symlink_metadata(out) {
                Ok(m) if !m.is_file() => return Err(Persist::NotRegular(kind_of(m.file_type()))),
                _ => {}
            }
            fs::rename(&self.path, out)?;
        } else {
            match fs::hard_link(&self.path, out) {
                Ok(()) => {
                    let _ = fs::remove_file(&self.path);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(e.into()),
                // A file system without hard links: check, then rename.
                Err(_) if fs::symlink_metadata(out).is_ok() => {
                    return Err(io::Error::from(io::ErrorKind::AlreadyExists).into());
                }
                Err(_) => fs::rename(&self.path, out)?,
            }
        }
        *writing = None;
        drop(writing);
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = File::open(dir).and_then(|d| d.sync_all());
        }
        Ok(())
    }
}

/// Why the copy was not moved to OUT.
enum Persist {
    /// OUT became something other than a regular file: what it is.
    NotRegular(&'static str),
    Io(io::Error),
}

impl From<io::Error> for Persist {
    fn from(e: io::Error) -> Persist {
        Persist::Io(e)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if writing().take().is_some() {
            let _ = fs::remove_file(&self.path);
        }
    }
}
