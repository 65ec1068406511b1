//! What `info` and `validate` read: a file or a URL, and, when its name is one shard's
//! (`NAME-00002-of-00003.gguf`), its sibling shards beside it, put together as one model
//! (`gguf_core::split::SplitModel`). A sibling that is not there is left for the model to report
//! missing; one that cannot be read is reported with its error. Only regular files are read (see
//! `FileSource::open`), and a sibling that is a symbolic link only when it leads into the folder
//! the named file itself is in ([`in_the_folder`]).

use std::fs;
use std::path::{Path, PathBuf};

use gguf_core::Header;
use gguf_core::split::{ShardName, SplitModel};
use ureq::Agent;

use crate::source::{self, Location, ReadError, ReadStats, http};

/// Reads the header of the file at `at`, with how it was read.
fn read_file(at: &Location, agent: &Agent) -> Result<(Header, ReadStats, Vec<String>), ReadError> {
    let mut source = at.open(agent)?;
    let (header, stats) = source::read_header(&mut *source)?;
    Ok((header, stats, source.notes().to_vec()))
}

/// A model read from one file, or from the shards of a split model.
pub struct ModelRead {
    pub model: SplitModel,
    /// The files read, in the model's terms: each shard's name and where it is.
    pub files: Vec<(String, Location)>,
    /// Bytes and reads, summed over the files.
    pub stats: ReadStats,
    /// How the files were read, when it matters (redirects, servers that ignore Range).
    pub notes: Vec<String>,
    /// Sibling shards that are there but could not be read, with why.
    pub unreadable: Vec<(Location, ReadError)>,
}

impl ModelRead {
    /// Where the file named `name` (a shard's, a missing shard's) is, or would be.
    pub fn location_of(&self, name: &str, asked: &Location) -> Location {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map_or_else(|| asked.sibling(name), |(_, at)| at.clone())
    }
}

/// Most shards read for one named shard: a name such as `-00001-of-01024` must not make a
/// thousand requests by itself. The largest published models have under 100 shards.
pub const MAX_SIBLINGS: u32 = 256;

/// Reads `asked` and, for one shard when `siblings` is set, its siblings (up to
/// [`MAX_SIBLINGS`], else the named file alone, said on stderr). Fails only when `asked` itself
/// cannot be read.
pub fn read_model(asked: &Location, siblings: bool) -> Result<ModelRead, ReadError> {
    let agent = http::agent();
    let name = asked.file_name();
    let names: Vec<String> = match ShardName::parse(&name) {
        Some(shard) if siblings && shard.count() <= MAX_SIBLINGS => shard.siblings().collect(),
        Some(shard) if siblings => {
            eprintln!(
                "ggufscope: {asked}: its name says the model has {} shards, more than the {MAX_SIBLINGS} read by themselves: only this file is read",
                shard.count()
            );
            vec![name.clone()]
        }
        _ => vec![name.clone()],
    };
    let mut read = ModelRead {
        model: SplitModel::new(Vec::new()),
        files: Vec::new(),
        stats: ReadStats::default(),
        notes: Vec::new(),
        unreadable: Vec::new(),
    };
    let mut headers = Vec::new();
    for sibling in &names {
        let at = if *sibling == name {
            asked.clone()
        } else {
            asked.sibling(sibling)
        };
        match in_the_folder(&at, asked).and_then(|()| read_file(&at, &agent)) {
            Ok((header, stats, notes)) => {
                read.stats.bytes += stats.bytes;
                read.stats.reads += stats.reads;
                read.notes.extend(notes);
                headers.push((sibling.clone(), header));
                read.files.push((sibling.clone(), at));
            }
            Err(e) if at == *asked => return Err(e),
            Err(e) if is_absent(&e) => {} // the model reports it missing
            Err(e) => read.unreadable.push((at, e)),
        }
    }
    read.model = SplitModel::new(headers);
    Ok(read)
}

/// Refuses a sibling on disk that is a symbolic link leading out of the folder `asked` really is in
/// (after its own links): a link planted beside a shard could otherwise show another file's first
/// bytes in a message. A link into that folder is followed (a Hugging Face cache links every shard
/// into one `blobs/` folder); `asked` itself is read wherever it leads, as it was named.
fn in_the_folder(at: &Location, asked: &Location) -> Result<(), ReadError> {
    let (Location::Path(path), Location::Path(asked_path)) = (at, asked) else {
        return Ok(());
    };
    if at == asked || !fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink()) {
        return Ok(());
    }
    let folder = |p: &Path| -> Result<Option<PathBuf>, ReadError> {
        let real = fs::canonicalize(p).map_err(ReadError::Io)?;
        Ok(real.parent().map(Path::to_path_buf))
    };
    if folder(path)? == folder(asked_path)? {
        return Ok(());
    }
    Err(ReadError::NotRead(
        "a symbolic link leading out of the named file's folder: a sibling is not followed there".into(),
    ))
}

/// Whether a read failed because the file is not there (rather than unreadable).
fn is_absent(e: &ReadError) -> bool {
    match e {
        ReadError::Io(e) => e.kind() == std::io::ErrorKind::NotFound,
        ReadError::Http(e) => matches!(e.status, Some(404 | 410)),
        ReadError::Gguf(_) | ReadError::NotRead(_) | ReadError::OverBudget(_) => false,
    }
}
