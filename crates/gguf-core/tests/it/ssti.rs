//! The chat-template check against known ways to object internals: every payload in
//! `data/ssti-payloads.txt` (written for this test from public SSTI write-ups) gets the
//! `chat-template-code-execution` finding, and no real model's template does — the templates of
//! the fixtures and Gemma's — nor the ordinary constructs listed here. A heuristic: these are what
//! it is held to.

use gguf_core::validate::validate_chat_template;
use gguf_core::{FindingCode, Value, keys};
use gguf_test_support::fixtures;

const KEY: &[u8] = b"tokenizer.chat_template";

fn flagged(template: &str) -> bool {
    let findings = validate_chat_template(KEY, template.as_bytes());
    findings
        .iter()
        .all(|f| f.code == FindingCode::ChatTemplateCodeExecution)
        && !findings.is_empty()
}

#[test]
fn every_known_payload_is_flagged() {
    let payloads: Vec<&str> = include_str!("../data/ssti-payloads.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert!(payloads.len() >= 30, "{} payloads", payloads.len());
    let missed: Vec<&&str> = payloads.iter().filter(|p| !flagged(p)).collect();
    assert!(missed.is_empty(), "not flagged: {missed:#?}");
}

#[test]
fn real_templates_and_ordinary_code_are_not_flagged() {
    gguf_test_support::needs_fixtures!();
    let mut templates: Vec<(String, String)> = Vec::new();
    let mut files: Vec<_> = ["real", "synth"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(fixtures().join(dir)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gguf"))
        .collect();
    if let Some(gemma) = std::env::var_os("GGUF_GEMMA") {
        files.push(gemma.into());
    }
    for path in files {
        let Ok(header) = gguf_test_support::read_header(&path).0 else {
            continue;
        };
        for entry in header.metadata.entries() {
            if let (Some(_), Value::String(text)) =
                (keys::chat_template_name(entry.key.as_bytes()), &entry.value)
            {
                templates.push((
                    path.display().to_string(),
                    String::from_utf8_lossy(text.as_bytes()).into_owned(),
                ));
            }
        }
    }
    assert!(templates.len() >= 5, "{} real templates", templates.len());
    for snippet in [
        "{{ name|replace('-', '_') }}",
        "{{ '_'.join(parts) }}",
        "{{ tool.name ~ '_' ~ index }}",
        "{{ messages[0]['content'] }}",
        "{{ message|attr('content') }}",
        "{{ '<|' + message['role'] + '|>' }}",
        "{% set sep = '_' %}{{ a ~ sep ~ b }}",
        // Underscores as text, outside the tags (in code, a string of two or more is flagged:
        // `{% set u = '__' %}` is how dunder names are assembled).
        "____\n{{ x }}",
        "{{ 'Tools: ' ~ tools|tojson }}",
    ] {
        templates.push(("snippet".into(), snippet.into()));
    }
    let wrongly: Vec<_> = templates.iter().filter(|(_, t)| flagged(t)).collect();
    assert!(wrongly.is_empty(), "flagged: {wrongly:#?}");
}
