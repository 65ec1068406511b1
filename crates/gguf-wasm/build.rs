//! Caps the module's memory at the `max-memory` that `wasm-pack.toml` gives the module being built
//! (the entry whose `feature` is enabled; of several, the largest), whatever builds it — the
//! project's build, `wasm-pack build`, plain cargo — and tells the crate the figure as
//! `WASM_MAX_MEMORY`, so that `maxMemory()` can tell the page.

use serde::Deserialize;
use std::path::PathBuf;

/// `wasm-pack.toml`: the modules, in order.
#[derive(Deserialize)]
struct Manifest {
    module: Vec<Module>,
}

/// The fields of a module this script needs (scripts/wasm-modules.mjs reads them all).
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct Module {
    feature: String,
    max_memory: u64,
}

/// wasm32's whole address space: the cap of a build with no module's feature.
const ADDRESS_SPACE: u64 = 4 << 30;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("run by cargo"));
    let path = dir.join("../../wasm-pack.toml");
    println!("cargo::rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let manifest: Manifest = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let enabled = |feature: &str| {
        let var = format!("CARGO_FEATURE_{}", feature.to_uppercase().replace('-', "_"));
        std::env::var_os(var).is_some()
    };
    let max = manifest
        .module
        .iter()
        .filter(|m| enabled(&m.feature))
        .map(|m| m.max_memory)
        .max()
        .unwrap_or(ADDRESS_SPACE);
    println!("cargo::rustc-env=WASM_MAX_MEMORY={max}");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo::rustc-link-arg-cdylib=--max-memory={max}");
    }
}
