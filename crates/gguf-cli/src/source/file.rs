//! A file on disk, and the one rule for opening one: a regular file only ([`FileSource::open`]),
//! and, for a file the user did not name but a folder they named holds (a sibling shard, an
//! upstream configuration), only where that folder leads ([`Inside`]). Read whole, a file is
//! read only as far as a cap ([`FileSource::read_all`]), whatever length it claims.

use std::fs::{self, File, FileType, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use gguf_core::text::Grouped;

use super::{ReadError, Source};

/// A file on disk, read where the loops ask.
pub struct FileSource {
    file: File,
    len: u64,
}

/// The folders a file found in a folder may lead into, after its symbolic links, and what to
/// call them in a message: a link planted in the folder must not show another file's bytes
/// (`/proc/self/environ`, a key) in an output or a message.
pub struct Inside<'a> {
    /// Canonical paths.
    pub roots: &'a [PathBuf],
    /// `"the named file's folder"`, `"the upstream folder"`.
    pub folder: &'a str,
}

impl FileSource {
    /// Opens a regular file; anything else is refused (a FIFO would wait for a writer forever, a
    /// device never end). The open does not wait: O_NONBLOCK, then the file's type is looked at.
    pub fn open(path: &Path) -> Result<FileSource, ReadError> {
        open_regular(path, false)
    }

    /// Opens a regular file that is, after its links, inside one of `inside`'s folders; a path
    /// that is not there is `NotFound`, as for [`FileSource::open`]. The canonical path is the
    /// one opened, without following a link, so a link swapped in after the check is refused.
    pub fn open_inside(path: &Path, inside: &Inside) -> Result<FileSource, ReadError> {
        let real = fs::canonicalize(path).map_err(ReadError::Io)?;
        if !inside.roots.iter().any(|root| real.starts_with(root)) {
            return Err(ReadError::NotRead(format!(
                "a symbolic link leading out of {}: not followed there",
                inside.folder
            )));
        }
        open_regular(&real, true)
    }

    /// The file's bytes, when there are at most `cap` of them; reads at most `cap + 1` whatever
    /// the file claims (a file in `/proc` says it is empty).
    pub fn read_all(mut self, cap: u64) -> Result<Vec<u8>, ReadError> {
        let mut bytes = Vec::new();
        (&mut self.file)
            .take(cap.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(ReadError::Io)?;
        if bytes.len() as u64 > cap {
            return Err(ReadError::NotRead(format!("longer than {} bytes", Grouped(cap))));
        }
        Ok(bytes)
    }
}

/// The canonical folder `path` is in, after its links (`path` itself resolved first).
pub fn real_folder(path: &Path) -> std::io::Result<PathBuf> {
    let real = fs::canonicalize(path)?;
    Ok(real.parent().map_or_else(|| real.clone(), Path::to_path_buf))
}

fn open_regular(path: &Path, no_follow: bool) -> Result<FileSource, ReadError> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        let follow = if no_follow { libc::O_NOFOLLOW } else { 0 };
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK | follow);
    }
    #[cfg(not(unix))]
    let _ = no_follow;
    let file = options.open(path).map_err(ReadError::Io)?;
    let metadata = file.metadata().map_err(ReadError::Io)?;
    if !metadata.is_file() {
        let kind = kind_of(metadata.file_type());
        return Err(ReadError::NotRead(format!("{kind}, not a regular file")));
    }
    Ok(FileSource {
        file,
        len: metadata.len(),
    })
}

/// What a file that is not a regular one is, for a message.
pub fn kind_of(t: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "something else"
    }
}

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), ReadError> {
        self.file.seek(SeekFrom::Start(offset)).map_err(ReadError::Io)?;
        self.file.read_exact(buf).map_err(ReadError::Io)
    }
}
