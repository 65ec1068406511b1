//! What a command-line argument names: a file on disk or a URL, and the files beside it.

use std::fmt;
use std::path::PathBuf;

use ureq::Agent;

use super::file::FileSource;
use super::http::HttpSource;
use super::{ReadError, Source};

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
    pub fn sibling(&self, name: &str) -> Location {
        match self {
            Location::Path(p) => Location::Path(p.with_file_name(name)),
            Location::Url(u) => {
                let (path, rest) = split_url(u);
                let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
                Location::Url(format!("{dir}{name}{rest}"))
            }
        }
    }

    /// The file named `name` inside this directory (a URL is a base: `…/resolve/main/`, its
    /// query kept).
    pub fn child(&self, name: &str) -> Location {
        match self {
            Location::Path(p) => Location::Path(p.join(name)),
            Location::Url(u) => {
                let (path, rest) = split_url(u);
                let slash = if path.ends_with('/') { "" } else { "/" };
                Location::Url(format!("{path}{slash}{name}{rest}"))
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
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Path(p) => p.display().fmt(f),
            Location::Url(u) => f.write_str(u),
        }
    }
}

/// `url` without its user information (`http://user:password@host/…` → `http://host/…`), or
/// `None` when it has none or is not an http(s) URL: credentials are never sent (ureq would send
/// them as Basic auth) nor printed.
pub fn without_user_info(url: &str) -> Option<String> {
    let scheme = ["http://", "https://"].into_iter().find(|s| {
        url.get(..s.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(s))
    })?;
    let rest = &url[scheme.len()..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let at = authority.rfind('@')?;
    Some(format!("{}{}", &url[..scheme.len()], &rest[at + 1..]))
}

/// A URL's path (with scheme and host) and what follows it (`?query#fragment`).
fn split_url(url: &str) -> (&str, &str) {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url.split_at(end)
}
