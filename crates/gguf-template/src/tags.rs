//! A guard the engine lacks: minijinja parses and compiles an expression recursively, one level
//! per link of a chain such as `1 + 1 + …`, `not not …` or `x|f|f…`, and its own nesting limit
//! does not count those. A tag long enough overflows the stack — a crash natively, a trap in wasm
//! (whose stack is 1 MiB) — instead of failing cleanly, so tags are measured before parsing.

use gguf_core::jinja::{self, Kind};

/// Tokens one tag (`{{ … }}` or `{% … %}`) may hold. Chains of about 5,600 links overflow the
/// wasm module's stack; real templates' longest tags hold a few dozen.
pub const MAX_TAG_TOKENS: usize = 2_000;

/// The first tag holding more than [`MAX_TAG_TOKENS`] tokens: its line (from 1) and its count.
/// A token is one of the tag's tokens as the core's Jinja lexer ([`gguf_core::jinja`]) cuts
/// them — a name or number, a string literal, an operator — not counting spaces and the
/// delimiters.
pub fn oversized_tag(template: &str) -> Option<(usize, usize)> {
    let t = template.as_bytes();
    // The open tag: where it starts and its tokens so far.
    let mut tag: Option<(usize, usize)> = None;
    let oversized = |(start, tokens): (usize, usize)| {
        let line = 1 + t[..start].iter().filter(|&&b| b == b'\n').count();
        (tokens > MAX_TAG_TOKENS).then_some((line, tokens))
    };
    for token in jinja::tokens(t) {
        match token.kind {
            Kind::Delimiter if token.opens(t) => tag = Some((token.range.start, 0)),
            Kind::Delimiter => {
                if let Some(found) = tag.take().and_then(oversized) {
                    return Some(found);
                }
            }
            Kind::Space | Kind::Text | Kind::Comment => {}
            _ => {
                if let Some((_, tokens)) = &mut tag {
                    *tokens += 1;
                }
            }
        }
    }
    // A tag that is not closed runs to the end.
    tag.and_then(oversized)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_tokens_per_tag() {
        let chain = |n: usize| format!("a\n{{{{ 1{} }}}}", " + 1".repeat(n));
        // `1` and then `+ 1` per link: 1 + 2n tokens.
        assert_eq!(oversized_tag(&chain(999)), None);
        assert_eq!(oversized_tag(&chain(1000)), Some((2, 2001)));
        let nots = format!("{{% if {}x %}}{{% endif %}}", "not ".repeat(MAX_TAG_TOKENS));
        assert_eq!(oversized_tag(&nots), Some((1, MAX_TAG_TOKENS + 2)));
        // Strings are one token, whatever they hold; comments and text are not counted.
        let long = format!(
            "{{{{ '{}' }}}}{{# {} #}}{}",
            "}} + ".repeat(5000),
            "x ".repeat(5000),
            "+ ".repeat(5000)
        );
        assert_eq!(oversized_tag(&long), None);
        // A dict's braces do not end the tag.
        let dict = format!("{{{{ {{'a': {{'b': 1}}}}{} }}}}", " + 1".repeat(1000));
        assert_eq!(oversized_tag(&dict).map(|(line, _)| line), Some(1));
        assert_eq!(oversized_tag("{{ unterminated"), None);
        assert_eq!(oversized_tag("{{ 'unterminated"), None);
    }
}
