//! `wasm-packages`: prints the packages of `wasm-pack.toml`, one a line, as
//! `CRATE<TAB>PROFILE<TAB>OUT-DIR<TAB>RUSTFLAGS` (the last maybe empty), for
//! `scripts/build-web.sh` to build.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let path = gguf_wasm_build::manifest_path(Path::new(env!("CARGO_MANIFEST_DIR")));
    let packages = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: {e}", path.display()))
        .and_then(|text| gguf_wasm_build::parse(&text).map_err(|e| e.to_string()));
    match packages {
        Ok(packages) => {
            for p in packages {
                println!("{}\t{}\t{}\t{}", p.crate_name, p.profile, p.out_dir, p.rustflags);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("wasm-packages: {e}");
            ExitCode::FAILURE
        }
    }
}
