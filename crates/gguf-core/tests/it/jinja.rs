//! The Jinja lexer (`gguf_core::jinja`): kinds on real templates, the rules one by one, tokens that
//! tile any bytes, and the validator's marks being the lexer's own tokens.

use gguf_core::chat_template::chat_templates;
use gguf_core::jinja::{self, Kind, Token};
use gguf_core::testkit::GgufBuilder;
use gguf_core::{GgmlType, Value, keys, parse};
use gguf_test_support::{Rng, fixture};
use proptest::prelude::*;

/// The tokens of `t` as `(kind, text)`, after checking that they tile it.
fn lex(t: &[u8]) -> Vec<(Kind, String)> {
    let tokens: Vec<Token> = jinja::tokens(t).collect();
    assert_tiles(t, &tokens);
    tokens
        .into_iter()
        .map(|token| (token.kind, String::from_utf8_lossy(&t[token.range]).into_owned()))
        .collect()
}

/// The tokens cover `t` exactly, in order, none empty.
fn assert_tiles(t: &[u8], tokens: &[Token]) {
    let mut at = 0;
    for token in tokens {
        assert_eq!(token.range.start, at, "{tokens:?}");
        assert!(token.range.end > token.range.start, "{tokens:?}");
        at = token.range.end;
    }
    assert_eq!(at, t.len());
}

fn kinds(pairs: &[(Kind, &str)]) -> Vec<(Kind, String)> {
    pairs.iter().map(|&(k, s)| (k, s.to_owned())).collect()
}

use Kind::{
    Comment as C, Delimiter as D, Filter as F, Keyword as K, Name as N, Number as Num, Operator as O,
    Space as S, String as Str, Text as T,
};

fn real_template(name: &str) -> Vec<u8> {
    let file = std::fs::read(fixture(&format!("real/{name}"))).unwrap();
    let header = parse(&file).unwrap();
    let Some(Value::String(text)) = header.metadata.get(keys::CHAT_TEMPLATE) else {
        panic!("{name} has no chat template")
    };
    text.as_bytes().to_vec()
}

#[test]
fn kinds_on_a_real_template() {
    gguf_test_support::needs_fixtures!();
    let phi3 = real_template("ggml-vocab-phi-3.gguf");
    let tokens = lex(&phi3);
    assert_eq!(
        tokens[..18],
        kinds(&[
            (D, "{{"),
            (S, " "),
            (N, "bos_token"),
            (S, " "),
            (D, "}}"),
            (D, "{%"),
            (S, " "),
            (K, "for"),
            (S, " "),
            (N, "message"),
            (S, " "),
            (K, "in"),
            (S, " "),
            (N, "messages"),
            (S, " "),
            (D, "%}"),
            (D, "{%"),
            (S, " "),
        ])[..]
    );
    assert!(tokens.contains(&(Str, "'<|user|>'".into())));
    assert!(tokens.contains(&(Str, "'\n'".into())), "a newline in a string");
    assert_eq!(
        tokens.iter().filter(|(k, _)| *k == K).count(),
        6,
        "for in if elif endif endfor"
    );
    assert!(
        tokens.iter().all(|(k, _)| *k != T),
        "phi-3's template is all tags"
    );

    let command_r = real_template("ggml-vocab-command-r.gguf");
    let tokens = lex(&command_r);
    assert!(tokens.contains(&(Str, "'You are Command-R, a brilliant, sophisticated, AI-assistant trained to assist human users by providing thorough responses. You are trained by Cohere.'".into())));
    assert!(tokens.contains(&(Num, "0".into())));
    assert!(tokens.contains(&(K, "false".into())));
    // Every tag that opens closes.
    let opened = jinja::tokens(&command_r).filter(|t| t.opens(&command_r)).count();
    let delimiters = tokens.iter().filter(|(k, _)| *k == D).count();
    assert_eq!(delimiters, 2 * opened);
}

#[test]
fn text_comments_and_whitespace_control() {
    assert_eq!(
        lex(b"Hi {# note {{ x }} #}{%- if x|trim == 'a}}' -%}{{+ y +}} bye"),
        kinds(&[
            (T, "Hi "),
            (C, "{# note {{ x }} #}"),
            (D, "{%-"),
            (S, " "),
            (K, "if"),
            (S, " "),
            (N, "x"),
            (O, "|"),
            (F, "trim"),
            (S, " "),
            (O, "="),
            (O, "="),
            (S, " "),
            (Str, "'a}}'"),
            (S, " "),
            (D, "-%}"),
            (D, "{{+"),
            (S, " "),
            (N, "y"),
            (S, " "),
            (D, "+}}"),
            (T, " bye"),
        ])
    );
    // A comment that is not closed runs to the end; `{#}` does not close itself.
    assert_eq!(lex(b"a{#}b"), kinds(&[(T, "a"), (C, "{#}b")]));
    // Braces that open nothing are text.
    assert_eq!(lex(b"{ x } {"), kinds(&[(T, "{ x } {")]));
    // The first word of a statement is a keyword, whatever it is; a keyword after `|` stays one.
    assert_eq!(
        lex(b"{% generation %}{{ x|filter }}"),
        kinds(&[
            (D, "{%"),
            (S, " "),
            (K, "generation"),
            (S, " "),
            (D, "%}"),
            (D, "{{"),
            (S, " "),
            (N, "x"),
            (O, "|"),
            (K, "filter"),
            (S, " "),
            (D, "}}"),
        ])
    );
}

#[test]
fn brackets_keep_tags_open() {
    assert_eq!(
        lex(b"{{ [1, {'k': {'j': 2}}] }}x"),
        kinds(&[
            (D, "{{"),
            (S, " "),
            (O, "["),
            (Num, "1"),
            (O, ","),
            (S, " "),
            (O, "{"),
            (Str, "'k'"),
            (O, ":"),
            (S, " "),
            (O, "{"),
            (Str, "'j'"),
            (O, ":"),
            (S, " "),
            (Num, "2"),
            (O, "}"),
            (O, "}"),
            (O, "]"),
            (S, " "),
            (D, "}}"),
            (T, "x"),
        ])
    );
    // Inside brackets no delimiter closes (though its `}` counts as a closing bracket); a stray
    // closing bracket does not go below zero.
    assert_eq!(
        lex(b"{{ [[x %}]] }}"),
        kinds(&[
            (D, "{{"),
            (S, " "),
            (O, "["),
            (O, "["),
            (N, "x"),
            (S, " "),
            (O, "%"),
            (O, "}"),
            (O, "]"),
            (O, "]"),
            (S, " "),
            (D, "}}"),
        ])
    );
}

#[test]
fn unclosed_tags_and_strings_run_to_the_end() {
    assert_eq!(
        lex(b"{{ unclosed"),
        kinds(&[(D, "{{"), (S, " "), (N, "unclosed")])
    );
    assert_eq!(
        lex(br"{{ 'it\'s }} {{ x"),
        kinds(&[(D, "{{"), (S, " "), (Str, r"'it\'s }} {{ x")])
    );
    // A backslash as the last byte escapes nothing but still belongs to the string.
    assert_eq!(lex(b"{{ \"a\\"), kinds(&[(D, "{{"), (S, " "), (Str, "\"a\\")]));
    assert_eq!(jinja::string_contents(br"'it\'s'"), br"it\'s");
    assert_eq!(jinja::string_contents(br"'it\'"), br"it\'");
    assert_eq!(jinja::string_contents(b"'"), b"");
    assert_eq!(jinja::string_contents(b"\"ab"), b"ab");
}

#[test]
fn numbers_and_names() {
    assert_eq!(
        lex(b"{{ 1_000 + 1.5e-3 - 2.x + 1e5x + 1__class__ }}")
            .into_iter()
            .filter(|(k, _)| *k != S)
            .collect::<Vec<_>>(),
        kinds(&[
            (D, "{{"),
            (Num, "1_000"),
            (O, "+"),
            (Num, "1.5e-3"),
            (O, "-"),
            (Num, "2"),
            (O, "."),
            (N, "x"),
            (O, "+"),
            (Num, "1"),
            (N, "e5x"),
            (O, "+"),
            (Num, "1"),
            (N, "__class__"),
            (D, "}}"),
        ])
    );
}

#[test]
fn invalid_utf8_and_other_bytes() {
    let t = b"\xff{{ \xe9t\xc3\xa9 + '\xfe' }}\x80{# \xff #}";
    assert_eq!(
        lex(t),
        kinds(&[
            (T, "\u{fffd}"),
            (D, "{{"),
            (S, " "),
            (O, "\u{fffd}"),
            (N, "t"),
            (O, "\u{e9}"),
            (S, " "),
            (O, "+"),
            (S, " "),
            (Str, "'\u{fffd}'"),
            (S, " "),
            (D, "}}"),
            (T, "\u{fffd}"),
            (C, "{# \u{fffd} #}"),
        ])
    );
    // Every boundary is at an ASCII byte, so in valid UTF-8 no token splits a character.
    let s = "{{ é + '日本' }}ü{% if ö %}😀";
    for token in jinja::tokens(s.as_bytes()) {
        assert!(s.is_char_boundary(token.range.start) && s.is_char_boundary(token.range.end));
    }
    assert_eq!(jinja::tokens(b"").count(), 0);
}

#[test]
fn kind_numbers_and_names_are_stable() {
    for (i, kind) in Kind::ALL.into_iter().enumerate() {
        assert_eq!(kind as usize, i);
    }
    let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(
        names,
        [
            "text",
            "delimiter",
            "comment",
            "keyword",
            "string",
            "number",
            "name",
            "filter",
            "operator",
            "space"
        ]
    );
}

/// Bytes mostly from Jinja's alphabet, so that tags, strings and brackets are common.
fn jinja_bytes() -> impl Strategy<Value = Vec<u8>> {
    let alphabet: &[u8] = b"{}%#-+ \n'\"\\()[]|._ax1e\xc3\xa9\xff";
    prop::collection::vec(
        prop_oneof![
            3 => prop::sample::select(alphabet),
            1 => any::<u8>(),
        ],
        0..200,
    )
}

proptest! {
    #[test]
    fn tokens_tile_any_bytes(t in jinja_bytes()) {
        let tokens: Vec<Token> = jinja::tokens(&t).collect();
        assert_tiles(&t, &tokens);
        // Text and comments are only outside tags, spaces and the rest only inside.
        let mut inside = false;
        for token in &tokens {
            match token.kind {
                Kind::Delimiter => inside = token.opens(&t),
                Kind::Text | Kind::Comment => prop_assert!(!inside),
                _ => prop_assert!(inside),
            }
        }
    }

    #[test]
    fn tokens_tile_random_bytes(t in prop::collection::vec(any::<u8>(), 0..300)) {
        assert_tiles(&t, &jinja::tokens(&t).collect::<Vec<_>>());
    }
}

#[test]
fn long_inputs_lex_in_linear_time() {
    // Patterns that a quadratic search would make slow: many openings, a long unclosed string,
    // comment and tag.
    let mut rng = Rng(7);
    let n = 1 << 20;
    let noise: Vec<u8> = (0..n).map(|_| b"{{%#}'\\ x"[rng.below(0..9) as usize]).collect();
    for t in [
        b"{".repeat(n),
        noise,
        [b"{{ '".as_slice(), &b"x".repeat(n)].concat(),
        [b"{#".as_slice(), &b"#".repeat(n)].concat(),
        b"{{ (".repeat(n / 4),
    ] {
        let started = std::time::Instant::now();
        assert_tiles(&t, &jinja::tokens(&t).collect::<Vec<_>>());
        assert!(started.elapsed().as_secs() < 10);
    }
}

/// The validator's marks (and so its finding) are the lexer's own word and string tokens.
#[test]
fn the_validators_marks_are_lexer_tokens() {
    let hostile = [
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{% set x = cycler.__init__.__globals__.os.popen('id').read() %}",
        r"{{ x|attr('\x5f\x5fclass\x5f\x5f') }} {{ os . system('ls') }}{{ self._TemplateReference__context }}",
        "{%- import 'm' as m -%}{{ {'a': {'b': lipsum}} }}{# __class__ #}",
        "text eval {{ [1, {'k': 2}]|map(attribute='__doc__') }}{{ 1__dict__ }}",
    ];
    let mut b = GgufBuilder::new().kv("general.architecture", "llama");
    for (i, t) in hostile.iter().enumerate() {
        b = b.kv(format!("{}.t{i}", keys::CHAT_TEMPLATE), *t);
    }
    b = b.tensor("w", &[1], GgmlType::F32);
    let header = parse(&b.build()).unwrap();
    let templates = chat_templates(&header);
    assert_eq!(templates.len(), hostile.len());
    let marked: Vec<Vec<&str>> = templates
        .iter()
        .map(|template| {
            let tokens: Vec<Token> = jinja::tokens(template.text).collect();
            template
                .marks
                .iter()
                .map(|mark| {
                    let token = tokens
                        .iter()
                        .find(|t| t.range == mark.range)
                        .unwrap_or_else(|| panic!("{mark:?} is no token of {tokens:?}"));
                    assert!(token.kind.is_word() || token.kind == Kind::String, "{token:?}");
                    std::str::from_utf8(&template.text[mark.range.clone()]).unwrap()
                })
                .collect()
        })
        .collect();
    assert_eq!(
        marked,
        [
            vec!["__class__", "__mro__", "__subclasses__"],
            vec!["cycler", "__init__", "__globals__", "os", "popen"],
            vec![r"'\x5f\x5fclass\x5f\x5f'", "os", "_TemplateReference__context"],
            vec!["import", "lipsum"],
            vec!["'__doc__'", "__dict__"],
        ]
    );
}
