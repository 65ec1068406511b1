//! What `info` and `validate` read: a file or a URL, and, when its name is one shard's
//! (`NAME-00002-of-00003.gguf`), its sibling shards beside it, put together as one model
//! (`gguf_core::split::SplitModel`). A sibling that is not there is left for the model to report
//! missing; one that cannot be read is reported with its error.

use std::fmt;
use std::path::PathBuf;

use gguf_core::Header;
use gguf_core::split::{ShardName, SplitModel};
use ureq::Agent;

use crate::http::{self, HttpSource};
use crate::read::{self, FileSource, ReadError, ReadStats, Source};

/// A file on disk, or a URL (`http://`, `https://`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Path(PathBuf),
    Url(String),
}

impl Location {
    /// A command-line argument: a URL when it starts with `http://` or `https://`.
    pub fn parse(arg: &str) -> Location {
        if arg.starts_with("http://") || arg.starts_with("https://") {
            Location::Url(arg.to_string())
        } else {
            Location::Path(PathBuf::from(arg))
        }
    }

    /// The file's name: the last component of the path, or the last segment of the URL's path
    /// (as written, query left out).
    pub fn file_name(&self) -> String {
        match self {
            Location::Path(p) => p
                .file_name()
                .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned()),
            Location::Url(u) => {
                let (path, _) = split_url(u);
                path.rsplit('/').next().unwrap_or_default().to_string()
            }
        }
    }

    /// The file named `name` beside this one (a URL keeps its query: a hub's token or flag).
    fn sibling(&self, name: &str) -> Location {
        match self {
            Location::Path(p) => Location::Path(p.with_file_name(name)),
            Location::Url(u) => {
                let (path, rest) = split_url(u);
                let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
                Location::Url(format!("{dir}{name}{rest}"))
            }
        }
    }

    /// The file, ready to be read: opened, or asked for its first bytes (and its size).
    pub fn open(&self, agent: &Agent) -> Result<Box<dyn Source>, ReadError> {
        Ok(match self {
            Location::Path(p) => Box::new(FileSource::open(p)?),
            Location::Url(u) => Box::new(HttpSource::open(agent, u).map_err(ReadError::Http)?),
        })
    }

    fn read(&self, agent: &Agent) -> Result<(Header, ReadStats, Vec<String>), ReadError> {
        let mut source = self.open(agent)?;
        let (header, stats) = read::read_from(&mut *source)?;
        Ok((header, stats, source.notes().to_vec()))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Path(p) => p.display().fmt(f),
            Location::Url(u) => f.write_str(u),
        }
    }
}

/// A URL's path (with scheme and host) and what follows it (`?query#fragment`).
fn split_url(url: &str) -> (&str, &str) {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url.split_at(end)
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

/// Reads `asked` and, for one shard, its siblings. Fails only when `asked` itself cannot be read.
pub fn read_model(asked: &Location) -> Result<ModelRead, ReadError> {
    let agent = http::agent();
    let name = asked.file_name();
    let names: Vec<String> =
        ShardName::parse(&name).map_or_else(|| vec![name.clone()], |n| n.siblings().collect());
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
        match at.read(&agent) {
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

/// Whether a read failed because the file is not there (rather than unreadable).
fn is_absent(e: &ReadError) -> bool {
    match e {
        ReadError::Io(e) => e.kind() == std::io::ErrorKind::NotFound,
        ReadError::Http(e) => matches!(e.status, Some(404 | 410)),
        ReadError::Gguf(_) => false,
    }
}
