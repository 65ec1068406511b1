//! `schema/codes.json` is every finding code (`FindingCode`: id, severity, meaning) and every error
//! code (`ErrorDocument::CODES`: code, meaning, who gives it), written from the core's two tables
//! and compared, so that the committed file — which the docs' code tables are made from
//! (`node scripts/docs-blocks.mjs`) and tools may read — cannot drift from the code.

use std::path::Path;

use gguf_core::{ErrorDocument, FindingCode, Limit, Severity};

/// The document the two tables give.
fn codes_json() -> String {
    let severity = |s: Severity| match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    };
    let findings: Vec<_> = FindingCode::ALL
        .iter()
        .map(
            |c| serde_json::json!({"code": c.id(), "severity": severity(c.severity()), "meaning": c.about()}),
        )
        .collect();
    let errors: Vec<_> = ErrorDocument::CODES
        .iter()
        .map(|(code, meaning, from)| serde_json::json!({"code": code, "meaning": meaning, "from": from}))
        .collect();
    let document = serde_json::json!({
        "$comment": "Generated from gguf_core::FindingCode and gguf_core::ErrorDocument::CODES: do not edit; \
                     GGUF_BLESS=1 cargo test -p gguf-core --profile ci --test it codes rewrites it.",
        "findings": findings,
        "errors": errors,
    });
    serde_json::to_string_pretty(&document).unwrap() + "\n"
}

#[test]
fn the_committed_codes_are_the_tables_ones() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/codes.json");
    let derived = codes_json();
    if std::env::var_os("GGUF_BLESS").is_some() {
        std::fs::write(&path, &derived).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == derived,
        "{} differs from the core's code tables: regenerate it with \
         `GGUF_BLESS=1 cargo test -p gguf-core --profile ci --test it codes`, then `node scripts/docs-blocks.mjs`, and commit both",
        path.display()
    );
}

#[test]
fn error_codes_are_stable_kebab_case_unique_and_say_who_gives_them() {
    let mut codes: Vec<&str> = ErrorDocument::CODES.iter().map(|(code, _, _)| *code).collect();
    for (code, meaning, from) in ErrorDocument::CODES {
        assert!(
            code.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
                && !code.starts_with('-')
                && !code.ends_with('-'),
            "{code}"
        );
        assert!(!meaning.is_empty(), "{code}");
        assert!(
            ["decoder", "CLI", "page", "CLI, page"].contains(from),
            "{code}: {from}"
        );
    }
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), ErrorDocument::CODES.len(), "a code listed twice");
}

#[test]
fn every_code_the_decoder_gives_is_listed_as_the_decoders() {
    let decoders = |code: &str| {
        ErrorDocument::CODES
            .iter()
            .any(|&(c, _, from)| c == code && from == "decoder")
    };
    for limit in [
        Limit::StringLength,
        Limit::ArrayLength,
        Limit::ArrayDepth,
        Limit::KvCount,
        Limit::TensorCount,
        Limit::Dimensions,
    ] {
        assert!(decoders(limit.code()), "{}", limit.code());
    }
    // The other kinds, from files that cause them; and whatever the hostile headers cause.
    let mut files = gguf_core::testkit::hostile_headers();
    files.push(("not GGUF", b"GGUX\x03\0\0\0".to_vec()));
    files.push((
        "version 9",
        b"GGUF\x09\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec(),
    ));
    files.push(("empty", Vec::new()));
    let mut seen = Vec::new();
    for (name, file) in &files {
        if let Err(e) = gguf_core::parse(file) {
            assert!(
                decoders(e.kind().code()),
                "{name}: {} is not listed",
                e.kind().code()
            );
            seen.push(e.kind().code());
        }
    }
    for code in ["not-gguf", "unsupported-version", "truncated"] {
        assert!(seen.contains(&code), "no file here gives {code}");
    }
}
