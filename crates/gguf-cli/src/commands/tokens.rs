//! `ggufscope tokens`: the tokenizer as text — the summary, the tokens containing a text, or one
//! token. Token texts are shown in their visible form (`gguf_core::tokenizer::visible`): control
//! characters, tabs and newlines escaped, so a row is one line and a hostile token cannot write
//! escape sequences to the terminal; `--search` reads the same escapes.

use std::fmt::Write;

use gguf_core::Escaped;
use gguf_core::Header;
use gguf_core::chat_template::chat_templates;
use gguf_core::tokenizer::{Listing, Token, Tokenizer, TypeCounts, visible};

use crate::format::grouped;

/// The tokenizer panel as text.
pub fn render_summary(name: &str, header: &Header) -> String {
    let t = Tokenizer::new(header);
    let mut out = String::new();
    let _ = writeln!(out, "{}", Escaped(name.as_bytes()));
    let line = |out: &mut String, label: &str, value: &str| {
        let _ = writeln!(out, "  {label:<15} {value}");
    };
    if t.is_empty() {
        line(&mut out, "vocabulary", "none: the file lists no tokens");
    } else {
        let model = match (t.model(), t.pre()) {
            (Some(model), Some(pre)) => format!("{model} (pre-tokenizer {pre})"),
            (Some(model), None) => model.to_string(),
            (None, _) => "-".into(),
        };
        line(&mut out, "model", &Escaped(model.as_bytes()).to_string());
        let merges = t
            .merges()
            .map_or_else(String::new, |m| format!(", {} merges", grouped(m as u64)));
        let scores = if t.has_scores() { "scores" } else { "no scores" };
        line(
            &mut out,
            "vocabulary",
            &format!("{} tokens{merges}, {scores}", grouped(t.len() as u64)),
        );
        line(&mut out, "token types", &types(&t.type_counts()));
    }
    let specials = t.special_tokens();
    for (i, s) in specials.iter().enumerate() {
        let text = s.text.map_or_else(|| "(outside the vocabulary)".into(), visible);
        line(
            &mut out,
            if i == 0 { "special tokens" } else { "" },
            &format!("{} {} {text}", s.role, s.id),
        );
    }
    let flags: Vec<String> = t
        .flags()
        .iter()
        .map(|(name, on)| format!("{name} {on}"))
        .collect();
    if !flags.is_empty() {
        line(&mut out, "flags", &flags.join(", "));
    }
    let templates: Vec<String> = chat_templates(header)
        .iter()
        .map(|c| {
            let name = Escaped(c.title());
            let lines = c.lines();
            format!("{name} ({lines} line{})", if lines == 1 { "" } else { "s" })
        })
        .collect();
    line(
        &mut out,
        "chat templates",
        &if templates.is_empty() {
            "none".into()
        } else {
            templates.join(", ")
        },
    );
    out
}

/// `254,992 normal, 9 control, 999 user-defined`: the types that have tokens.
fn types(c: &TypeCounts) -> String {
    let all = [
        (c.normal, "normal"),
        (c.control, "control"),
        (c.user_defined, "user-defined"),
        (c.byte, "byte"),
        (c.unknown, "unknown"),
        (c.unused, "unused"),
        (c.undefined, "undefined"),
        (c.other, "of other types"),
        (c.untyped, "without a type"),
    ];
    let present: Vec<String> = all
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, name)| format!("{} {name}", grouped(*n)))
        .collect();
    present.join(", ")
}

/// The listed tokens, one a line: id, type, score and text, separated by tabs (`-` for a type or
/// score the file does not give).
pub fn render_rows(tokenizer: &Tokenizer<'_>, listing: &Listing) -> String {
    let mut out = String::new();
    for token in (0..listing.len()).filter_map(|i| tokenizer.token(listing.id(i)?)) {
        let _ = writeln!(out, "{}", row(&token));
    }
    out
}

fn row(t: &Token<'_>) -> String {
    let ty = t.ty.map_or("-", |ty| ty.name());
    let score = t.score.map_or_else(|| "-".into(), |s| s.to_string());
    format!("{}\t{ty}\t{score}\t{}", t.id, visible(t.text))
}
