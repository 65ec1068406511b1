//! Properties over generated input: de-tokenizing what was tokenized gives the text back where
//! llama.cpp's round trip holds (byte-level BPE and SentencePiece with byte fallback hold it for
//! any text but the spaces `clean_spaces` tidies before `?!.,'`, PLaMo-2 for any text but a
//! leading byte order mark; WordPiece and Unigram normalize text, so they are left out), and the
//! tokenizer built from a header fed in any chunking is the one built from it whole.

use std::sync::OnceLock;

use gguf_core::{Header, HeaderDecoder, Progress};
use gguf_test_support::{Rng, fixture, needs_fixtures, read_header};
use gguf_tokenizer::{Model, Tokenizer};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Vocabularies that round-trip: SentencePiece (Llama 2), and byte-level BPE with the
/// pre-tokenizers of Llama 3, Qwen 2 and GPT-2.
const ROUND_TRIP: [&str; 4] = [
    "real/ggml-vocab-llama-spm.gguf",
    "real/ggml-vocab-llama-bpe.gguf",
    "real/ggml-vocab-qwen2.gguf",
    "real/ggml-vocab-gpt-2.gguf",
];

fn tokenizers() -> &'static [(&'static str, Tokenizer)] {
    static ALL: OnceLock<Vec<(&str, Tokenizer)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all: Vec<(&str, Tokenizer)> = ROUND_TRIP
            .iter()
            .map(|&name| {
                let header = read_header(&fixture(name)).0.unwrap();
                (name, Tokenizer::new(&header).unwrap())
            })
            .collect();
        let plamo2 = gguf_core::parse(&gguf_core::testkit::plamo2_vocab()).unwrap();
        all.push(("testkit's PLaMo-2", Tokenizer::new(&plamo2).unwrap()));
        all
    })
}

/// Text as people write it, and any character: letters, digits, whitespace runs, punctuation,
/// accents, CJK, emoji with ZWJ and variation selectors, control and bidi characters.
fn text() -> impl Strategy<Value = String> {
    let pool: Vec<char> = "aAzZ09 _-\n\t\r:;()[]{}<>/\\\"#@&*=+éèüßñçøЖжλ中文字日本한국🏳🌈👍\u{200D}\u{FE0F}\u{202E}\u{200B}\u{0}\u{7F}"
        .chars()
        .collect();
    let character = prop_oneof![
        4 => proptest::sample::select(pool),
        1 => any::<char>(),
    ];
    proptest::collection::vec(character, 0..48).prop_map(|chars| chars.into_iter().collect())
}

/// Whether llama.cpp's de-tokenizer, tidying spaces (`clean_spaces`), would change `text`: a space
/// before `?!.,` or `'`.
fn tidied(text: &str) -> bool {
    ["?", "!", ".", ",", "'"]
        .iter()
        .any(|p| text.contains(&format!(" {p}")))
}

#[test]
fn detokenize_gives_back_what_was_tokenized() {
    needs_fixtures!();
    for (name, t) in tokenizers() {
        let mut runner = TestRunner::new(Config {
            cases: 512,
            failure_persistence: None,
            ..Config::default()
        });
        let clean = t.flags().clean_spaces;
        runner
            .run(&text(), |text| {
                let bom_skipped = t.model() == Model::Plamo2 && text.starts_with('\u{FEFF}');
                if clean && tidied(&text) || bom_skipped {
                    return Ok(());
                }
                // As llama.cpp's test-tokenizer-1 does it: no special tokens either way.
                let ids = t.tokenize(text.as_bytes(), false, false);
                let back = t.detokenize(&ids, false, false);
                prop_assert_eq!(String::from_utf8_lossy(&back), text.as_str(), "ids {:?}", ids);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// The header of `bytes` fed to the decoder in pieces of the lengths `cuts` gives (the rest in
/// one piece when they run out).
fn decode_in_pieces(bytes: &[u8], mut cuts: impl FnMut() -> usize) -> Header {
    let mut decoder = HeaderDecoder::new(Some(bytes.len() as u64));
    let mut at = 0;
    loop {
        let end = (at + cuts()).min(bytes.len());
        match decoder.feed(&bytes[at..end]).unwrap() {
            Progress::Done => return decoder.into_header().unwrap(),
            Progress::Need { .. } => at = end,
        }
    }
}

/// What a tokenizer does, compared: its size, every token's piece, and the ids of texts.
fn same_tokenizer(name: &str, a: &Tokenizer, b: &Tokenizer, texts: &[&str]) {
    assert_eq!(a.len(), b.len(), "{name}");
    assert_eq!(a.flags(), b.flags(), "{name}");
    assert_eq!(a.specials(), b.specials(), "{name}");
    for id in 0..a.len() as u32 {
        assert_eq!(a.piece(id, true), b.piece(id, true), "{name}: token {id}");
    }
    for text in texts {
        for (add, parse) in [(true, true), (false, false)] {
            assert_eq!(
                a.tokenize(text.as_bytes(), add, parse),
                b.tokenize(text.as_bytes(), add, parse),
                "{name}: {text:?}"
            );
        }
    }
}

#[test]
fn any_chunking_of_the_header_gives_the_same_tokenizer() {
    needs_fixtures!();
    let doc: serde_json::Value =
        serde_json::from_str(include_str!("../reference/llama-tokenize.json")).unwrap();
    let texts: Vec<&str> = doc["texts"]
        .as_object()
        .unwrap()
        .values()
        .map(|t| t.as_str().unwrap())
        .collect();
    let files = [
        (
            "real/ggml-vocab-llama-spm.gguf",
            std::fs::read(fixture("real/ggml-vocab-llama-spm.gguf")).unwrap(),
        ),
        (
            "real/ggml-vocab-qwen2.gguf",
            std::fs::read(fixture("real/ggml-vocab-qwen2.gguf")).unwrap(),
        ),
        ("testkit's PLaMo-2", gguf_core::testkit::plamo2_vocab()),
    ];
    for (name, bytes) in files {
        let whole = Tokenizer::new(&decode_in_pieces(&bytes, || usize::MAX)).unwrap();
        let mut rng = Rng(bytes.len() as u64);
        // One byte at a time (the small file), then random pieces: tiny, item-sized, read-sized.
        let mut chunkings: Vec<(String, Box<dyn FnMut() -> usize>)> = Vec::new();
        if bytes.len() < 1 << 20 {
            chunkings.push(("byte by byte".into(), Box::new(|| 1)));
        }
        for max in [7u64, 100, 4096, 1 << 16] {
            let mut pieces = Rng(rng.next());
            chunkings.push((
                format!("pieces of 1 to {max} bytes"),
                Box::new(move || pieces.below(1..max + 1) as usize),
            ));
        }
        for (how, cuts) in chunkings {
            let chunked = Tokenizer::new(&decode_in_pieces(&bytes, cuts)).unwrap();
            same_tokenizer(&format!("{name}, {how}"), &whole, &chunked, &texts);
        }
    }
}
