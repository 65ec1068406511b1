//! A guard the engine lacks: minijinja parses and compiles an expression recursively, one level
//! per link of a chain such as `1 + 1 + …`, `not not …` or `x|f|f…`, and its own nesting limit
//! does not count those. A tag long enough overflows the stack — a crash natively, a trap in wasm
//! (whose stack is 1 MiB) — instead of failing cleanly, so tags are measured before parsing.

/// Tokens one tag (`{{ … }}` or `{% … %}`) may hold. Chains of about 5,600 links overflow the
/// wasm module's stack; real templates' longest tags hold a few dozen.
pub const MAX_TAG_TOKENS: usize = 2_000;

/// The first tag holding more than [`MAX_TAG_TOKENS`] tokens: its line (from 1) and its count.
/// A token is a name or number, a string literal, or any other character that is not a space.
pub fn oversized_tag(template: &str) -> Option<(usize, usize)> {
    let t = template.as_bytes();
    let mut i = 0;
    while i + 1 < t.len() {
        match (t[i], t[i + 1]) {
            (b'{', b'{' | b'%') => {
                let (end, tokens) = tag(t, i + 2);
                if tokens > MAX_TAG_TOKENS {
                    let line = 1 + t[..i].iter().filter(|&&b| b == b'\n').count();
                    return Some((line, tokens));
                }
                i = end;
            }
            (b'{', b'#') => {
                i = t[i + 2..]
                    .windows(2)
                    .position(|w| w == b"#}")
                    .map_or(t.len(), |p| i + p + 4);
            }
            _ => i += 1,
        }
    }
    None
}

/// Counts the tokens of the tag whose code starts at `i`; returns where it ends and the count.
fn tag(t: &[u8], mut i: usize) -> (usize, usize) {
    let (mut tokens, mut depth) = (0, 0usize);
    while i < t.len() {
        let b = t[i];
        if depth == 0 && matches!(b, b'}' | b'%') && t.get(i + 1) == Some(&b'}') {
            return (i + 2, tokens);
        }
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        tokens += 1;
        i += match b {
            b'\'' | b'"' => string_len(t, i),
            b if b.is_ascii_alphanumeric() || b == b'_' => t[i..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count(),
            _ => {
                match b {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                1
            }
        };
    }
    (i, tokens)
}

/// The length of the string literal opening at `t[open]`, quotes included.
fn string_len(t: &[u8], open: usize) -> usize {
    let quote = t[open];
    let mut i = open + 1;
    while i < t.len() && t[i] != quote {
        i += if t[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(t.len()) - open
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
