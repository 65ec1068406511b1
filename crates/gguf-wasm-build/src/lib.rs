//! The project's WebAssembly packages, as `wasm-pack.toml` at the top of the workspace declares
//! them: what `scripts/build-web.sh` builds, and the memory cap each wasm crate's build script
//! sets on its module ([`cap_memory`]), so that adding a module is one entry in one file.
//!
//! The file is read with a parser for the small part of TOML it uses (`[[package]]` tables of
//! `key = "string"` and `key = integer` lines, `#` comments), so build scripts need no
//! dependency.
#![forbid(unsafe_code)]

use std::fmt;
use std::path::{Path, PathBuf};

/// One wasm package.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Package {
    /// The workspace crate it is built from.
    pub crate_name: String,
    /// The cargo profile of its build.
    pub profile: String,
    /// Where the ES-module package is written, from the workspace root.
    pub out_dir: String,
    /// rustc flags of this build (`RUSTFLAGS`), e.g. a target feature; empty for none.
    pub rustflags: String,
    /// The most memory the module may grow to, in bytes.
    pub max_memory: Option<u64>,
    /// Who loads it, and when.
    pub loaded_by: String,
}

/// A line of the manifest that cannot be read, with its number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "wasm-pack.toml line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ManifestError {}

/// The packages the manifest text declares, in order.
pub fn parse(text: &str) -> Result<Vec<Package>, ManifestError> {
    let mut packages: Vec<Package> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let fail = |message: String| ManifestError { line: i + 1, message };
        let line = raw.split_once(" #").map_or(raw, |(code, _)| code).trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line == "[[package]]" {
            packages.push(Package::default());
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| fail(format!("expected `key = value` or `[[package]]`, found {line:?}")))?;
        let package = packages
            .last_mut()
            .ok_or_else(|| fail("a key before the first [[package]]".into()))?;
        let (key, value) = (key.trim(), value.trim());
        let text = || {
            value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .map(str::to_string)
                .ok_or_else(|| fail(format!("{key} must be a quoted string")))
        };
        match key {
            "crate" => package.crate_name = text()?,
            "profile" => package.profile = text()?,
            "out-dir" => package.out_dir = text()?,
            "rustflags" => package.rustflags = text()?,
            "loaded-by" => package.loaded_by = text()?,
            "max-memory" => {
                let bytes = value
                    .replace('_', "")
                    .parse()
                    .map_err(|_| fail(format!("max-memory must be a number of bytes, found {value:?}")))?;
                package.max_memory = Some(bytes);
            }
            other => return Err(fail(format!("unknown key {other:?}"))),
        }
    }
    for (n, p) in packages.iter().enumerate() {
        if p.crate_name.is_empty() || p.profile.is_empty() || p.out_dir.is_empty() {
            return Err(ManifestError {
                line: 0,
                message: format!("package #{} needs crate, profile and out-dir", n + 1),
            });
        }
    }
    Ok(packages)
}

/// The manifest at the top of the workspace that holds the crate in `manifest_dir`.
pub fn manifest_path(manifest_dir: &Path) -> PathBuf {
    manifest_dir.join("../../wasm-pack.toml")
}

/// For a wasm crate's build script: caps the module's memory at the `max-memory` its
/// `wasm-pack.toml` entry gives (a linker argument of the wasm32 cdylib, so every build of the
/// module has it), and tells the crate the figure as `WASM_MAX_MEMORY` (`env!`), so that it can
/// tell the page. A crate built twice takes its first entry's figure. Panics — failing the
/// build — when the crate has no entry.
pub fn cap_memory() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("run from a build script"));
    let name = std::env::var("CARGO_PKG_NAME").expect("run from a build script");
    let path = manifest_path(&dir);
    println!("cargo::rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let packages = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let package = packages
        .iter()
        .find(|p| p.crate_name == name)
        .unwrap_or_else(|| panic!("{name} has no [[package]] entry in {}", path.display()));
    let max = package.max_memory.unwrap_or(4 << 30);
    println!("cargo::rustc-env=WASM_MAX_MEMORY={max}");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo::rustc-link-arg-cdylib=--max-memory={max}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_projects_manifest() {
        let text = std::fs::read_to_string(manifest_path(Path::new(env!("CARGO_MANIFEST_DIR")))).unwrap();
        let packages = parse(&text).unwrap();
        let names: Vec<&str> = packages.iter().map(|p| p.crate_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "gguf-wasm",
                "gguf-dequant-wasm",
                "gguf-dequant-wasm",
                "gguf-template-wasm",
                "gguf-edit-wasm",
                "gguf-diff-wasm",
                "gguf-upstream-wasm"
            ]
        );
        assert_eq!(packages[0].max_memory, Some(512 << 20));
        assert_eq!(packages[0].out_dir, "web/pkg");
        assert_eq!(packages[0].rustflags, "");
        // The dequantizers twice: plain, and with wasm SIMD in a profile of its own.
        assert_eq!(
            (packages[2].out_dir.as_str(), packages[2].rustflags.as_str()),
            ("web/pkg-dequant-simd", "-C target-feature=+simd128")
        );
        assert_ne!(packages[2].profile, packages[1].profile);
    }

    #[test]
    fn says_which_line_is_wrong() {
        assert_eq!(parse("crate = \"x\"").unwrap_err().line, 1);
        assert_eq!(parse("[[package]]\n\ncrate = x").unwrap_err().line, 3);
        assert_eq!(parse("[[package]]\nmax-memory = \"big\"").unwrap_err().line, 2);
        assert!(parse("[[package]]\ncrate = \"a\"").is_err());
        let ok = parse(
            "# c\n[[package]]\ncrate = \"a\" # why\nprofile = \"p\"\nout-dir = \"o\"\nmax-memory = 1_024\n",
        )
        .unwrap();
        assert_eq!(ok[0].max_memory, Some(1024));
    }
}
