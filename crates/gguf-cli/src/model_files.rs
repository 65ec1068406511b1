//! What `info` and `validate` read: a file or a URL, and, when its name is one shard's
//! (`NAME-00002-of-00003.gguf`), its sibling shards beside it, put together as one model
//! (`gguf_core::split::SplitModel`). A sibling that is not there is left for the model to report
//! missing; one that cannot be read is reported with its error. Only regular files are read, and a
//! sibling only where it leads into the folder the named file is in or the one it really is in
//! (`source::file::Inside`: a Hugging Face cache links every shard into one `blobs/` folder).

use std::path::{Path, PathBuf};

use gguf_core::Header;
use gguf_core::split::{ShardName, SplitModel};
use ureq::Agent;

use crate::source::file::{FileSource, Inside, real_folder};
use crate::source::{self, Location, ReadError, ReadStats, Source, http};

/// Reads the header of the file at `at`, with how it was read: `asked` wherever it leads, as it
/// was named; a sibling on disk only inside `roots`.
fn read_file(
    at: &Location,
    asked: &Location,
    roots: &[PathBuf],
    agent: &Agent,
) -> Result<(Header, ReadStats, Vec<String>), ReadError> {
    let mut source: Box<dyn Source> = match at {
        Location::Path(path) if at != asked => {
            let inside = Inside {
                roots,
                folder: "the named file's folder",
            };
            Box::new(FileSource::open_inside(path, &inside)?)
        }
        _ => at.open(agent)?,
    };
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
            crate::cli::complain!(
                "{asked}: its name says the model has {} shards, more than the {MAX_SIBLINGS} read by themselves: only this file is read",
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
    let roots = sibling_roots(asked, names.len());
    for sibling in &names {
        let at = if *sibling == name {
            asked.clone()
        } else {
            asked.sibling(sibling)
        };
        match read_file(&at, asked, &roots, &agent) {
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

/// Where the siblings of `asked` may lead: the folder it is named in and the one it really is
/// in, after its links (none when there are no siblings to read, or `asked` is a URL).
fn sibling_roots(asked: &Location, files: usize) -> Vec<PathBuf> {
    let Location::Path(path) = asked else {
        return Vec::new();
    };
    if files < 2 {
        return Vec::new();
    }
    let named_in = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    [std::fs::canonicalize(named_in), real_folder(path)]
        .into_iter()
        .flatten()
        .collect()
}

/// Whether a read failed because the file is not there (rather than unreadable).
fn is_absent(e: &ReadError) -> bool {
    match e {
        ReadError::Io(e) => e.kind() == std::io::ErrorKind::NotFound,
        ReadError::Http(e) => matches!(e.status, Some(404 | 410)),
        ReadError::Gguf(_) | ReadError::NotRead(_) | ReadError::OverBudget(_) => false,
    }
}

/// The first `mmproj*.gguf` beside `file` (a local path), by name: the multimodal projector
/// `fit` counts and `info` says the model can see or hear with.
pub fn projector_beside(file: &str) -> Option<String> {
    let dir = Path::new(file).parent()?;
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.to_ascii_lowercase().starts_with("mmproj") && n.ends_with(".gguf"))
        .collect();
    found.sort();
    found.first().map(|n| dir.join(n).to_string_lossy().into_owned())
}
