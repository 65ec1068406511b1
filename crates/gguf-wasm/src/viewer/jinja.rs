//! The page's Jinja highlighting: the spans of a chat template as the core's lexer
//! (`gguf_core::jinja`, the project's only one) cuts it, in the units of JS string indices.

use gguf_core::jinja::{self, Kind};
use wasm_bindgen::prelude::*;

/// The tokens of `template` as flat triples `[start, end, kind, start, end, kind, …]`: each
/// token's bounds in UTF-16 code units (JS string indices) and its kind's number. The tokens
/// cover the template exactly and in order. Kinds (`gguf_core::jinja::Kind`; their names, in
/// this order, from `jinjaKinds()`): 0 text, 1 delimiter, 2 comment, 3 keyword, 4 string,
/// 5 number, 6 name, 7 filter (a name after `|`), 8 operator, 9 space.
#[wasm_bindgen(js_name = jinjaSpans)]
pub fn jinja_spans(template: &str) -> Vec<u32> {
    let bytes = template.as_bytes();
    let mut spans = Vec::new();
    let mut units = 0u32;
    for token in jinja::tokens(bytes) {
        let start = units;
        // Tokens start and end on character boundaries (at ASCII bytes): count the characters,
        // two units for those outside the Basic Multilingual Plane (four bytes in UTF-8).
        for &b in &bytes[token.range] {
            units += u32::from(b & 0xC0 != 0x80) + u32::from(b >= 0xF0);
        }
        spans.extend([start, units, token.kind as u32]);
    }
    spans
}

/// The names of the kinds `jinjaSpans` numbers, in the order of their numbers: `"text"`,
/// `"delimiter"`, … (the page's `j-NAME` classes).
#[wasm_bindgen(js_name = jinjaKinds)]
pub fn jinja_kinds() -> Vec<String> {
    Kind::ALL.iter().map(|k| k.name().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_in_utf16_units() {
        let s = "é{{ '😀' }}x";
        let spans = jinja_spans(s);
        let utf16: Vec<u16> = s.encode_utf16().collect();
        let pieces: Vec<(String, u32)> = spans
            .chunks(3)
            .map(|c| {
                (
                    String::from_utf16(&utf16[c[0] as usize..c[1] as usize]).unwrap(),
                    c[2],
                )
            })
            .collect();
        let kind = |k: Kind| k as u32;
        assert_eq!(
            pieces,
            [
                ("é".into(), kind(Kind::Text)),
                ("{{".into(), kind(Kind::Delimiter)),
                (" ".into(), kind(Kind::Space)),
                ("'😀'".into(), kind(Kind::String)),
                (" ".into(), kind(Kind::Space)),
                ("}}".into(), kind(Kind::Delimiter)),
                ("x".into(), kind(Kind::Text)),
            ]
        );
        assert_eq!(jinja_kinds()[kind(Kind::Filter) as usize], "filter");
    }
}
