//! A file on disk.

use std::fs::{File, FileType, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::{ReadError, Source};

/// A file on disk, read where the loops ask.
pub struct FileSource {
    file: File,
    len: u64,
}

impl FileSource {
    /// Opens a regular file; anything else is refused (a FIFO would wait for a writer forever, a
    /// device never end). The open does not wait: O_NONBLOCK, then the file's type is looked at.
    pub fn open(path: &Path) -> Result<FileSource, ReadError> {
        let mut options = OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
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
}

/// What a file that is not a regular one is, for a message.
fn kind_of(t: FileType) -> &'static str {
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
