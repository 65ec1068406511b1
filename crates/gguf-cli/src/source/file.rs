//! A file on disk.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::{ReadError, Source};

/// A file on disk, read where the loops ask.
pub struct FileSource {
    file: File,
    len: u64,
}

impl FileSource {
    pub fn open(path: &Path) -> Result<FileSource, ReadError> {
        let file = File::open(path).map_err(ReadError::Io)?;
        let len = file.metadata().map_err(ReadError::Io)?.len();
        Ok(FileSource { file, len })
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
