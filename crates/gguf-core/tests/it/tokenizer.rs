//! The tokenizer panel's figures on the real fixtures and the Gemma model: special tokens against
//! gguf-py's dump (ids) and texts known from the files (checked with gguf-py's reader when these
//! tests were written), token type counts, search (multi-byte text included), the split at special
//! tokens, chat templates and their marks; then synthetic files for what the fixtures lack.

use gguf_core::chat_template::chat_templates;
use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::tokenizer::{
    Case, Listing, Piece, SearchIndex, TokenType, Tokenizer, TypeCounts, parse_visible, visible,
};
use gguf_core::{Array, Header, parse};
use gguf_test_support::{fixture, gemma, read_header};
use proptest::prelude::*;
use serde_json::Value as Json;

fn header(path: &std::path::Path) -> Header {
    read_header(path).0.unwrap()
}

fn real(name: &str) -> Header {
    header(&fixture(&format!("real/{name}")))
}

/// A special token as `(role, id, text)`.
type Special = (&'static str, u64, Option<String>);

/// Every special token the file names.
fn specials(h: &Header) -> Vec<Special> {
    Tokenizer::new(h)
        .special_tokens()
        .iter()
        .map(|s| {
            (
                s.role,
                s.id,
                s.text.map(|t| String::from_utf8(t.to_vec()).unwrap()),
            )
        })
        .collect()
}

/// The `*_token_id` keys and values of gguf-py's dump of `name`.
fn reference_ids(name: &str) -> Vec<(String, u64)> {
    let dump: Json =
        serde_json::from_str(&std::fs::read_to_string(fixture(&format!("ref/{name}.dump.json"))).unwrap())
            .unwrap();
    dump["metadata"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.starts_with("tokenizer.ggml.") && k.ends_with("_token_id"))
        .map(|(k, v)| (k.clone(), v["value"].as_u64().unwrap()))
        .collect()
}

fn some(s: &str) -> Option<String> {
    Some(s.into())
}

#[test]
fn special_tokens_match_the_reference_ids_and_the_files_texts() {
    gguf_test_support::needs_fixtures!();
    let cases: [(&str, Vec<Special>); 5] = [
        (
            "ggml-vocab-command-r.gguf",
            vec![
                ("bos", 5, some("<BOS_TOKEN>")),
                ("eos", 255001, some("<|END_OF_TURN_TOKEN|>")),
                ("padding", 0, some("<PAD>")),
            ],
        ),
        (
            "ggml-vocab-phi-3.gguf",
            vec![
                ("bos", 1, some("<s>")),
                ("eos", 32000, some("<|endoftext|>")),
                ("unknown", 0, some("<unk>")),
                ("padding", 32000, some("<|endoftext|>")),
            ],
        ),
        (
            "ggml-vocab-stablelm.gguf",
            vec![
                ("bos", 100257, some("<|endoftext|>")),
                ("eos", 100257, some("<|endoftext|>")),
                ("unknown", 100257, some("<|endoftext|>")),
                ("padding", 100257, some("<|endoftext|>")),
            ],
        ),
        // llama.cpp's spelling, `seperator_token_id`.
        (
            "ggml-vocab-bert-bge.gguf",
            vec![
                ("unknown", 100, some("[UNK]")),
                ("separator", 102, some("[SEP]")),
                ("padding", 0, some("[PAD]")),
                ("mask", 103, some("[MASK]")),
                ("cls", 101, some("[CLS]")),
            ],
        ),
        (
            "ggml-vocab-qwen2.gguf",
            vec![
                ("bos", 151643, some("<|endoftext|>")),
                ("eos", 151643, some("<|endoftext|>")),
                ("padding", 151643, some("<|endoftext|>")),
            ],
        ),
    ];
    for (name, expected) in cases {
        let h = real(name);
        assert_eq!(specials(&h), expected, "{name}");
        let tokenizer = Tokenizer::new(&h);
        let mut found: Vec<(String, u64)> = tokenizer
            .special_tokens()
            .iter()
            .map(|s| (s.key.to_string(), s.id))
            .collect();
        let mut reference = reference_ids(name);
        found.sort();
        reference.sort();
        assert_eq!(found, reference, "{name}: ids against gguf-py's dump");
    }
}

#[test]
fn gemma_tokenizer_panel() {
    gguf_test_support::needs_fixtures!();
    gguf_test_support::needs_gemma!();
    let h = header(&gemma());
    let t = Tokenizer::new(&h);
    assert_eq!(
        (t.model(), t.pre(), t.len(), t.merges(), t.has_scores()),
        (Some("llama"), Some("default"), 262_144, None, true)
    );
    assert_eq!(
        specials(&h),
        vec![
            ("bos", 2, some("<bos>")),
            ("eos", 1, some("<eos>")),
            ("unknown", 3, some("<unk>")),
            ("padding", 0, some("<pad>"))
        ]
    );
    let mut reference = reference_ids("gemma-3-270m-q4_k_m.gguf");
    let mut found: Vec<(String, u64)> = t
        .special_tokens()
        .iter()
        .map(|s| (s.key.to_string(), s.id))
        .collect();
    reference.sort();
    found.sort();
    assert_eq!(found, reference);
    assert_eq!(
        t.type_counts(),
        TypeCounts {
            normal: 255_474,
            control: 6_249,
            user_defined: 165,
            byte: 256,
            ..TypeCounts::default()
        }
    );
    assert_eq!(
        t.flags(),
        [
            ("add_bos_token", true),
            ("add_eos_token", false),
            ("add_sep_token", false),
            ("add_space_prefix", false)
        ]
    );
    let bos = t.token(2).unwrap();
    assert_eq!(
        (bos.text, bos.ty, bos.score),
        (&b"<bos>"[..], Some(TokenType::Control), Some(-1000.0))
    );
    assert_eq!(t.token(262_144), None);
    // The base model carries no chat template.
    assert!(chat_templates(&h).is_empty());

    assert_eq!(
        ids(&t, "日本"),
        [
            10956, 33375, 76444, 94951, 119_234, 136_467, 193_830, 230_495, 232_442
        ]
    );
    assert_eq!(ids(&t, "▁für"), [4591, 216_566]);
    assert_eq!(ids(&t, "<start_of_turn>"), [105]);
    // A newline, typed as the browser shows it: `\n`. The tokens that are exactly one come first:
    // "\n" itself and the byte token <0x0A>, which stands for one; then the 30 runs of newlines.
    let newlines = exact_case(&t, &parse_visible("\\n"));
    assert_eq!(
        (newlines.len(), newlines.id(0), newlines.id(1)),
        (32, Some(107), Some(248))
    );
    assert_eq!(t.token(248).unwrap().text, b"<0x0A>");
    let e_acute = exact_case(&t, "é".as_bytes());
    assert_eq!(
        (e_acute.len(), e_acute.id(0), e_acute.id(1)),
        (2071, Some(236_859), Some(1559))
    );
}

/// The tokens containing `query`, upper and lower case told apart.
fn exact_case(t: &Tokenizer<'_>, query: &[u8]) -> Listing {
    SearchIndex::new(t).list(query, Case::Sensitive)
}

fn ids(t: &Tokenizer<'_>, query: &str) -> Vec<usize> {
    listed(&exact_case(t, query.as_bytes()))
}

fn listed(listing: &Listing) -> Vec<usize> {
    (0..listing.len()).map(|i| listing.id(i).unwrap()).collect()
}

#[test]
fn token_type_counts_of_the_fixtures() {
    gguf_test_support::needs_fixtures!();
    let cases = [
        (
            "ggml-vocab-command-r.gguf",
            TypeCounts {
                normal: 254_992,
                control: 9,
                user_defined: 999,
                ..Default::default()
            },
        ),
        (
            "ggml-vocab-phi-3.gguf",
            TypeCounts {
                normal: 31_741,
                unknown: 53,
                control: 13,
                user_defined: 1,
                byte: 256,
                ..Default::default()
            },
        ),
        (
            "ggml-vocab-stablelm.gguf",
            TypeCounts {
                normal: 100_256,
                control: 33,
                user_defined: 63,
                ..Default::default()
            },
        ),
        (
            "ggml-vocab-llama-spm.gguf",
            TypeCounts {
                normal: 31_741,
                unknown: 1,
                control: 2,
                byte: 256,
                ..Default::default()
            },
        ),
        (
            "ggml-vocab-gpt-2.gguf",
            TypeCounts {
                normal: 50_256,
                control: 1,
                ..Default::default()
            },
        ),
    ];
    for (name, expected) in cases {
        assert_eq!(Tokenizer::new(&real(name)).type_counts(), expected, "{name}");
    }
    let synth = header(&fixture("synth/vocab-262k.gguf"));
    assert_eq!(
        Tokenizer::new(&synth).type_counts(),
        TypeCounts {
            normal: 261_880,
            control: 264,
            ..Default::default()
        }
    );
}

#[test]
fn search_finds_known_tokens() {
    gguf_test_support::needs_fixtures!();
    let command_r = real("ggml-vocab-command-r.gguf");
    let t = Tokenizer::new(&command_r);
    assert_eq!(
        (t.model(), t.pre(), t.len(), t.merges(), t.has_scores()),
        (Some("gpt2"), Some("command-r"), 256_000, Some(253_333), false)
    );
    assert_eq!(ids(&t, "<BOS_TOKEN>"), [5]);
    assert_eq!(ids(&t, "ĠHello"), [46609]);
    assert_eq!(ids(&t, "Hello"), [28339, 46609, 251_240]);
    assert_eq!(ids(&t, "TURN"), [57014, 90216, 255_000, 255_001]);
    // Byte-level BPE writes é (C3 A9) as the two characters "Ã©": multi-byte on both counts.
    let e_acute = exact_case(&t, "Ã©".as_bytes());
    assert_eq!(
        (e_acute.len(), e_acute.id(0), e_acute.id(1)),
        (4112, Some(1751), Some(2301))
    );
    assert_eq!(exact_case(&t, b"no such token \x00").len(), 0);
    assert_eq!(exact_case(&t, b""), Listing::All(256_000));

    let phi3 = real("ggml-vocab-phi-3.gguf");
    let t = Tokenizer::new(&phi3);
    assert_eq!(ids(&t, "▁für"), [1865]);
    assert_eq!(ids(&t, "<0x0A>"), [13]);
    assert_eq!(t.token(13).unwrap().ty, Some(TokenType::Byte));
    let u_umlaut = exact_case(&t, "ü".as_bytes());
    assert_eq!(
        (u_umlaut.len(), u_umlaut.id(0), u_umlaut.id(1)),
        (96, Some(29993), Some(1276))
    );
    let the = exact_case(&t, "▁the".as_bytes());
    assert_eq!((the.len(), the.id(0), the.id(1)), (21, Some(278), Some(727)));

    let synth = header(&fixture("synth/vocab-262k.gguf"));
    let t = Tokenizer::new(&synth);
    assert_eq!(exact_case(&t, b"a").len(), 42_598);
    assert_eq!(exact_case(&t, b"the").len(), 1_817);
}

#[test]
fn output_is_split_at_special_tokens() {
    gguf_test_support::needs_fixtures!();
    gguf_test_support::needs_gemma!();
    let command_r = real("ggml-vocab-command-r.gguf");
    let t = Tokenizer::new(&command_r);
    let text = "<BOS_TOKEN><|START_OF_TURN_TOKEN|><|USER_TOKEN|>Hi <PAD>x<|END_OF_TURN_TOKEN|>";
    let pieces: Vec<(&str, Option<usize>)> = t
        .split_special(text)
        .iter()
        .map(|p| (p.text, p.special))
        .collect();
    assert_eq!(
        pieces,
        [
            ("<BOS_TOKEN>", Some(5)),
            ("<|START_OF_TURN_TOKEN|>", Some(255_000)),
            ("<|USER_TOKEN|>", Some(255_006)),
            ("Hi ", None),
            ("<PAD>", Some(0)),
            ("x", None),
            ("<|END_OF_TURN_TOKEN|>", Some(255_001)),
        ]
    );
    assert_eq!(t.split_special(""), Vec::<Piece<'_>>::new());
    assert_eq!(
        t.split_special("plain <|END_OF_TURN"),
        [Piece {
            text: "plain <|END_OF_TURN",
            special: None
        }]
    );

    // Gemma's user-defined runs of newlines are not marked; its turn markers are.
    let g = header(&gemma());
    let t = Tokenizer::new(&g);
    let pieces: Vec<(&str, Option<usize>)> = t
        .split_special("<bos><start_of_turn>user\nHi<end_of_turn>\n\n")
        .iter()
        .map(|p| (p.text, p.special))
        .collect();
    assert_eq!(
        pieces,
        [
            ("<bos>", Some(2)),
            ("<start_of_turn>", Some(105)),
            ("user\nHi", None),
            ("<end_of_turn>", Some(106)),
            ("\n\n", None)
        ]
    );
}

#[test]
fn chat_templates_of_the_fixtures() {
    gguf_test_support::needs_fixtures!();
    let command_r = real("ggml-vocab-command-r.gguf");
    let templates = chat_templates(&command_r);
    let names: Vec<Option<&[u8]>> = templates.iter().map(|t| t.name).collect();
    // The default first; in the file it comes last.
    assert_eq!(names, [None, Some(&b"tool_use"[..]), Some(&b"rag"[..])]);
    // gguf-py's dump numbers them 29, 26 and 27: it counts the three header fields first.
    assert_eq!(
        templates.iter().map(|t| t.kv_index).collect::<Vec<_>>(),
        [26, 23, 24]
    );
    assert!(templates.iter().all(|t| t.marks.is_empty()));
    assert_eq!(
        templates.iter().map(|t| t.lines()).collect::<Vec<_>>(),
        [1, 32, 16]
    );
    assert_eq!(templates[1].key, b"tokenizer.chat_template.tool_use");

    let stablelm = real("ggml-vocab-stablelm.gguf");
    let templates = chat_templates(&stablelm);
    assert_eq!(templates.len(), 1);
    assert_eq!((templates[0].name, templates[0].lines()), (None, 15));
}

#[test]
fn marks_are_the_validators_places_by_line() {
    let template = "{{ bos_token }}\n{% for m in messages %}\n{{ m.__class__.__mro__ }}\n{% endfor %}\n{{ cycler.__init__.__globals__.os }}";
    let bytes = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("tokenizer.chat_template.evil", template)
        .kv("tokenizer.chat_templates", strings(&["evil"]))
        .kv("tokenizer.chat_template", "{{ messages }}")
        .build();
    let h = parse(&bytes).unwrap();
    let templates = chat_templates(&h);
    assert_eq!(
        templates.len(),
        2,
        "tokenizer.chat_templates (a list of names) is not a template"
    );
    let evil = &templates[1];
    let marked: Vec<(usize, &str)> = evil
        .marks
        .iter()
        .map(|m| (m.line, &template[m.range.clone()]))
        .collect();
    assert_eq!(
        marked,
        [
            (3, "__class__"),
            (3, "__mro__"),
            (5, "cycler"),
            (5, "__init__"),
            (5, "__globals__")
        ]
    );
    // The validator's finding names the first of them, at its absolute offset.
    let finding = gguf_core::validate(&h, None)
        .findings
        .into_iter()
        .find(|f| f.code.id() == "chat-template-code-execution")
        .unwrap();
    let entry = &h.metadata.entries()[evil.kv_index];
    let text_start = entry.span.end - template.len() as u64;
    assert_eq!(finding.span.start - text_start, evil.marks[0].range.start as u64);
    assert!(templates[0].marks.is_empty());
}

#[test]
fn marks_on_every_line_of_a_long_template() {
    // Lines counted in one pass: each mark's line, with blank lines and several marks per line.
    let lines: Vec<String> = (0..20_000)
        .map(|i| match i % 3 {
            0 => String::new(),
            1 => "{{ x.__class__ }}".into(),
            _ => "é {{ os.popen }} {{ y._z }}".into(),
        })
        .collect();
    let template = lines.join("\n");
    let bytes = GgufBuilder::new()
        .kv("tokenizer.chat_template", template.as_str())
        .build();
    let h = parse(&bytes).unwrap();
    let t = &chat_templates(&h)[0];
    let expected: Vec<usize> = (0..20_000)
        .flat_map(|i| match i % 3 {
            0 => vec![],
            1 => vec![i + 1],
            _ => vec![i + 1; 3],
        })
        .collect();
    let got: Vec<usize> = t.marks.iter().map(|m| m.line).collect();
    assert_eq!(got, expected);
    let line_of = |at: usize| 1 + template.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count();
    assert!(t.marks.iter().all(|m| m.line == line_of(m.range.start)));
    assert_eq!(t.lines(), 20_000);
}

#[test]
fn synthetic_tokenizers() {
    let tokens = Array::String(["<s>", "a\nb", "", "\u{200B}", "é"].iter().collect());
    let bytes = GgufBuilder::new()
        .kv("tokenizer.ggml.model", "llama")
        .kv("tokenizer.ggml.tokens", tokens)
        .kv("tokenizer.ggml.token_type", Array::I32(vec![3, 1, 9, -1, 0]))
        .kv("tokenizer.ggml.scores", Array::F32(vec![0.0, -1.5, f32::NAN]))
        .kv("tokenizer.ggml.separator_token_id", 4u32)
        .kv("tokenizer.ggml.bos_token_id", 0u32)
        .kv("tokenizer.ggml.eos_token_id", 99u32)
        .kv("tokenizer.ggml.eot_token_id", "not a number")
        .kv("tokenizer.ggml.add_bos_token", true)
        .kv("tokenizer.ggml.add_space_prefix", 1u8)
        .build();
    let h = parse(&bytes).unwrap();
    let t = Tokenizer::new(&h);
    assert_eq!(
        specials(&h),
        vec![
            ("bos", 0, some("<s>")),
            ("eos", 99, None),
            ("separator", 4, some("é"))
        ],
        "the spec's spelling; an id outside the vocabulary has no text; a string id is skipped"
    );
    assert_eq!(
        t.flags(),
        [("add_bos_token", true)],
        "a flag that is not a boolean is not shown"
    );
    assert_eq!(
        t.type_counts(),
        TypeCounts {
            control: 1,
            normal: 1,
            other: 2,
            undefined: 1,
            ..Default::default()
        }
    );
    assert_eq!(t.token(3).unwrap().ty, Some(TokenType::Other(-1)));
    assert_eq!(t.token(1).unwrap().score, Some(-1.5));
    assert_eq!(t.token(3).unwrap().score, None, "the score array is shorter");
    assert_eq!(visible(t.token(1).unwrap().text), "a\\nb");
    assert_eq!(visible(t.token(3).unwrap().text), "\\u{200B}");
    assert_eq!(ids(&t, ""), [0, 1, 2, 3, 4]);
    assert_eq!(
        exact_case(&t, &parse_visible("\\u{200B}")),
        Listing::Matches(vec![3])
    );

    // Types of another integer width, and none at all.
    let h = parse(
        &GgufBuilder::new()
            .kv("tokenizer.ggml.tokens", strings(&["a", "b", "c"]))
            .kv("tokenizer.ggml.token_type", Array::U8(vec![6, 5]))
            .build(),
    )
    .unwrap();
    assert_eq!(
        Tokenizer::new(&h).type_counts(),
        TypeCounts {
            byte: 1,
            unused: 1,
            untyped: 1,
            ..Default::default()
        }
    );
    let empty = parse(&GgufBuilder::new().kv("general.architecture", "llama").build()).unwrap();
    let t = Tokenizer::new(&empty);
    assert_eq!(
        (t.len(), t.model(), exact_case(&t, b"x"), t.special_tokens().len()),
        (0, None, Listing::Matches(vec![]), 0)
    );
    assert_eq!(
        t.split_special("<s>"),
        [Piece {
            text: "<s>",
            special: None
        }]
    );
}

proptest! {
    #[test]
    fn visible_form_reads_back(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        prop_assert_eq!(parse_visible(&visible(&bytes)), bytes);
    }

    #[test]
    fn search_agrees_with_a_naive_one(
        vocab in proptest::collection::vec(proptest::collection::vec(0u8..4, 0..6), 1..40),
        query in proptest::collection::vec(0u8..4, 1..4),
    ) {
        let h = parse(&GgufBuilder::new().kv("tokenizer.ggml.tokens", Array::String(vocab.iter().collect())).build()).unwrap();
        let contains = |t: &[u8]| t.windows(query.len()).any(|w| w == query);
        let exact = (0..vocab.len()).filter(|&i| vocab[i] == query);
        let others = (0..vocab.len()).filter(|&i| vocab[i] != query && contains(&vocab[i]));
        let expected: Vec<u32> = exact.chain(others).map(|i| i as u32).collect();
        prop_assert_eq!(SearchIndex::new(&Tokenizer::new(&h)).list(&query, Case::Sensitive), Listing::Matches(expected));
    }

    #[test]
    fn any_case_search_agrees_with_a_naive_one(
        vocab in proptest::collection::vec(proptest::collection::vec(proptest::sample::select(b"aAb".to_vec()), 0..6), 1..40),
        query in proptest::collection::vec(proptest::sample::select(b"aAb".to_vec()), 1..4),
    ) {
        let h = parse(&GgufBuilder::new().kv("tokenizer.ggml.tokens", Array::String(vocab.iter().collect())).build()).unwrap();
        let contains = |t: &[u8], q: &[u8]| t.windows(q.len()).any(|w| w == q);
        let lower = |t: &[u8]| t.to_ascii_lowercase();
        let rank = |t: &[u8]| {
            if t == query.as_slice() {
                Some(0)
            } else if lower(t) == lower(&query) {
                Some(1)
            } else if contains(t, &query) {
                Some(2)
            } else {
                contains(&lower(t), &lower(&query)).then_some(3)
            }
        };
        let mut expected: Vec<(usize, u32)> = (0..vocab.len())
            .filter_map(|i| rank(&vocab[i]).map(|r| (r, i as u32)))
            .collect();
        expected.sort();
        let expected: Vec<u32> = expected.into_iter().map(|(_, i)| i).collect();
        prop_assert_eq!(SearchIndex::new(&Tokenizer::new(&h)).list(&query, Case::Insensitive), Listing::Matches(expected));
    }
}

/// The tokens containing `query` as a person types it (`\n` for a newline), any case.
fn typed(t: &Tokenizer<'_>, query: &str) -> Vec<usize> {
    listed(&SearchIndex::new(t).list(&parse_visible(query), Case::Insensitive))
}

fn vocabulary(model: &str, tokens: &[&str]) -> Header {
    parse(
        &GgufBuilder::new()
            .kv("tokenizer.ggml.model", model)
            .kv("tokenizer.ggml.tokens", strings(tokens))
            .build(),
    )
    .unwrap()
}

#[test]
fn byte_level_search_finds_what_people_type() {
    let h = vocabulary(
        "gpt2",
        &[
            "Ġthe",         // 0: " the"
            "The",          // 1
            "the",          // 2
            "Ċ",            // 3: "\n"
            "ĊĊ",           // 4: "\n\n"
            "ä½ł",          // 5: "你"
            "ä½łå¥½",       // 6: "你好"
            "<|im_start|>", // 7: an added token, stored as is
            "ĠThe",         // 8: " The"
            "hello world",  // 9: an added token with a real space: no decoded form
            "ĠÃī",          // 10: " É"
        ],
    );
    let t = Tokenizer::new(&h);
    assert_eq!(typed(&t, "\\n"), [3, 4]);
    assert_eq!(typed(&t, "\\n\\n"), [4]);
    // Equal in the same case, equal in another, containing in the same case, in another.
    assert_eq!(typed(&t, " the"), [0, 8]);
    assert_eq!(typed(&t, "the"), [2, 1, 0, 8]);
    assert_eq!(typed(&t, "THE"), [1, 2, 0, 8]);
    assert_eq!(ids(&t, "the"), [2, 0]);
    assert_eq!(typed(&t, "你"), [5, 6]);
    assert_eq!(typed(&t, "你好"), [6]);
    // The stored forms are found too.
    assert_eq!(typed(&t, "Ġthe"), [0, 8]);
    assert_eq!(typed(&t, "ä½ł"), [5, 6]);
    assert_eq!(typed(&t, "<|im_start|>"), [7]);
    assert_eq!(typed(&t, "o w"), [9]);
    // Latin-1 letters fold too: " é" finds " É".
    assert_eq!(typed(&t, " é"), [10]);
    assert_eq!(typed(&t, "qzx"), Vec::<usize>::new());
    assert_eq!(t.decoding().decode("Ġthe".as_bytes()), Some(b" the".to_vec()));
    assert_eq!(t.decoding().decode(b"the"), None, "the same text");
}

#[test]
fn sentencepiece_search_reads_spaces_and_byte_tokens() {
    let h = vocabulary(
        "llama",
        &["▁the", "<0x0A>", "▁The", "the", "▁", "<0x0a>", "<0xZZ>"],
    );
    let t = Tokenizer::new(&h);
    assert_eq!(typed(&t, " the"), [0, 2]);
    assert_eq!(typed(&t, "▁the"), [0, 2]);
    assert_eq!(typed(&t, "the"), [3, 0, 2]);
    // <0x0A> is the byte 0x0A; case makes no difference to the hex.
    assert_eq!(typed(&t, "\\n"), [1, 5]);
    assert_eq!(typed(&t, " "), [4, 0, 2]);
    assert_eq!(typed(&t, "<0xzz>"), [6]);
    // A vocabulary of another model is searched as stored.
    let h = vocabulary("bert", &["▁the", "##the"]);
    assert_eq!(typed(&Tokenizer::new(&h), " the"), Vec::<usize>::new());
}

#[test]
fn plamo2_search_reads_byte_tokens_and_leaves_spaces() {
    // PLaMo-2 writes spaces as spaces: `▁` is itself.
    let h = vocabulary("plamo2", &[" the", "<0x0A>", "▁the", "the"]);
    let t = Tokenizer::new(&h);
    assert_eq!(typed(&t, " the"), [0]);
    assert_eq!(typed(&t, "\\n"), [1]);
    assert_eq!(t.decoding().decode(b"<0x0A>"), Some(b"\n".to_vec()));
    assert_eq!(t.decoding().decode("▁the".as_bytes()), None);
}

#[test]
fn real_byte_level_vocabularies_find_newlines_spaces_and_cjk() {
    gguf_test_support::needs_fixtures!();
    // Ids from gguf-py's reader: Ċ, Ġthe, ĠThe, ä½ł (你), ä½łå¥½ (你好), æĹ¥æľ¬ (日本).
    for (name, newline, the, the_upper, ni, nihao, nihon) in [
        (
            "ggml-vocab-deepseek-llm.gguf",
            185,
            254,
            429,
            1372,
            84_313,
            10_162,
        ),
        ("ggml-vocab-qwen2.gguf", 198, 279, 576, 56_568, 108_386, 101_059),
    ] {
        let h = real(name);
        let t = Tokenizer::new(&h);
        assert_eq!(t.decoding(), gguf_core::tokenizer::Decoding::ByteLevel);
        assert_eq!(typed(&t, "\\n")[0], newline, "{name}");
        let the_ = typed(&t, " the");
        assert_eq!(&the_[..2], [the, the_upper], "{name}");
        assert_eq!(typed(&t, "你")[0], ni, "{name}");
        assert_eq!(typed(&t, "你好")[0], nihao, "{name}");
        assert_eq!(typed(&t, "日本")[0], nihon, "{name}");
        assert!(typed(&t, "no such token \\x00").is_empty(), "{name}");
    }
}
