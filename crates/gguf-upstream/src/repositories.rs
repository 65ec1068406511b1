//! The upstream repositories a file names: where to fetch the configuration it is checked
//! against. One rule for every reader (the page offers them as buttons): the source first
//! (`general.source.url`, `general.source.huggingface.repository`), then the base models
//! (`general.base_model.N.repo_url`), in the file's order, each Hugging Face model once. Other
//! URLs are left out: where their files are is not known.

use alloc::string::String;
use alloc::vec::Vec;

use gguf_core::{Metadata, Value, keys};
use serde::Serialize;

/// A Hugging Face model a file names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Repository {
    /// The key that names it.
    pub key: String,
    /// `ORG/REPO`.
    pub repo: String,
    /// The base URL its files are fetched from: `https://huggingface.co/ORG/REPO/resolve/main/`.
    pub base: String,
}

/// The Hugging Face models `metadata` names (see the module's documentation).
pub fn repositories(metadata: &Metadata) -> Vec<Repository> {
    let entries = metadata.entries();
    let is_source =
        |key: &[u8]| key == keys::SOURCE_URL.as_bytes() || key == keys::SOURCE_HF_REPOSITORY.as_bytes();
    let sources = entries.iter().filter(|e| is_source(e.key.as_bytes()));
    let bases = entries.iter().filter(|e| is_base_model_url(e.key.as_bytes()));
    let mut out: Vec<Repository> = Vec::new();
    for entry in sources.chain(bases) {
        let (Some(key), Value::String(value)) = (entry.key.as_str(), &entry.value) else {
            continue;
        };
        let Some(text) = value.as_str() else { continue };
        let repo = if key == keys::SOURCE_HF_REPOSITORY {
            repository_name(text.trim())
        } else {
            hugging_face_repository(text.trim())
        };
        if let Some(repo) = repo.filter(|repo| !out.iter().any(|r| r.repo == *repo)) {
            out.push(Repository {
                key: key.into(),
                base: alloc::format!("https://huggingface.co/{repo}/resolve/main/"),
                repo,
            });
        }
    }
    out
}

/// Whether `key` is `general.base_model.N.repo_url`, `N` a decimal number.
fn is_base_model_url(key: &[u8]) -> bool {
    key.strip_prefix(keys::BASE_MODEL_PREFIX.as_bytes())
        .and_then(|rest| rest.strip_suffix(keys::BASE_MODEL_REPO_URL.as_bytes()))
        .is_some_and(|n| !n.is_empty() && n.iter().all(u8::is_ascii_digit))
}

/// `ORG/REPO` of a Hugging Face model URL (`https://huggingface.co/ORG/REPO[/…]`, or hf.co), as
/// a browser's URL parser reads it: the scheme and host in any case, user info and the default
/// port allowed, `\` as `/`, `.` and `..` segments resolved; `None` for anything else.
fn hugging_face_repository(url: &str) -> Option<String> {
    let scheme = url.get(..8)?;
    if !scheme.eq_ignore_ascii_case("https://") {
        return None;
    }
    let rest = &url[8..];
    let end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    let (authority, rest) = rest.split_at(end);
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let host = host.strip_suffix(":443").unwrap_or(host);
    if !host.eq_ignore_ascii_case("huggingface.co") && !host.eq_ignore_ascii_case("hf.co") {
        return None;
    }
    let path = &rest[..rest.find(['?', '#']).unwrap_or(rest.len())];
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split(['/', '\\']) {
        match segment.to_ascii_lowercase().replace("%2e", ".").as_str() {
            "." => {}
            ".." => {
                segments.pop();
            }
            _ => segments.push(segment),
        }
    }
    let mut named = segments.into_iter().filter(|s| !s.is_empty());
    let (org, name) = (named.next()?, named.next()?);
    repository_name(&alloc::format!("{org}/{name}"))
}

/// `name` when it is a repository name as Hugging Face allows them (`ORG/REPO`: each part of
/// letters, digits, `_`, `.` and `-`, starting with a letter or digit, and no `..`).
fn repository_name(name: &str) -> Option<String> {
    let (org, repo) = name.split_once('/')?;
    let part = |p: &str| {
        p.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    };
    (part(org) && part(repo) && !name.contains("..")).then(|| name.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gguf_core::testkit::GgufBuilder;

    fn named(entries: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut builder = GgufBuilder::new().kv("general.base_model.count", 2u32);
        for (key, value) in entries {
            builder = builder.kv(key, *value);
        }
        let header = gguf_core::parse(&builder.build()).unwrap();
        repositories(&header.metadata)
            .into_iter()
            .map(|r| {
                assert_eq!(
                    r.base,
                    alloc::format!("https://huggingface.co/{}/resolve/main/", r.repo)
                );
                (r.key, r.repo)
            })
            .collect()
    }

    #[test]
    fn the_source_first_then_the_base_models_each_once() {
        let repos = named(&[
            ("general.name", "x"),
            (
                "general.base_model.0.repo_url",
                "https://huggingface.co/google/gemma-3-270m",
            ),
            ("general.base_model.1.repo_url", "https://example.com/not/a/hub"),
            (
                "general.source.url",
                "https://huggingface.co/google/gemma-3-270m-it/tree/main",
            ),
            ("general.source.huggingface.repository", "google/gemma-3-270m-it"),
            ("general.base_model.2.repo_url", "https://huggingface.co/../etc"),
            (
                "general.base_model.3.repo_url",
                "https://huggingface.co/org/re\u{202E}po",
            ),
        ]);
        let pair = |k: &str, r: &str| (String::from(k), String::from(r));
        assert_eq!(
            repos,
            [
                pair("general.source.url", "google/gemma-3-270m-it"),
                pair("general.base_model.0.repo_url", "google/gemma-3-270m"),
            ]
        );
        let qwen = named(&[("general.source.huggingface.repository", " Qwen/Qwen2.5-0.5B ")]);
        assert_eq!(
            qwen,
            [pair("general.source.huggingface.repository", "Qwen/Qwen2.5-0.5B")]
        );
    }

    #[test]
    fn urls_as_a_browser_reads_them() {
        let repo = |url: &str| hugging_face_repository(url);
        assert_eq!(repo("HTTPS://HF.co/a/b").as_deref(), Some("a/b"));
        assert_eq!(
            repo("https://user@huggingface.co:443/a/b?x#y").as_deref(),
            Some("a/b")
        );
        assert_eq!(repo("https://huggingface.co\\a\\.\\b/c").as_deref(), Some("a/b"));
        assert_eq!(
            repo("https://huggingface.co/a/x/%2e%2E/b").as_deref(),
            Some("a/b")
        );
        assert_eq!(
            repo("https://huggingface.co/a/%2e%2E/b/c").as_deref(),
            Some("b/c")
        );
        for refused in [
            "http://huggingface.co/a/b",
            "https://huggingface.co.evil/a/b",
            "https://huggingface.co:8443/a/b",
            "https://huggingface.co/a",
            "https://huggingface.co/a/b%20c",
            "https://huggingface.co/-a/b",
            "https://huggingface.co/a..b/c",
            "https://hf.co",
        ] {
            assert_eq!(repo(refused), None, "{refused}");
        }
    }
}
