//! PLaMo-2 beyond llama-tokenize's reference ids (`llama_tokenize.rs` holds the builder's
//! vocabulary to those): pieces and de-tokenizing, and the vocabularies llama.cpp refuses or
//! that are not UTF-8.

use gguf_core::testkit::{GgufBuilder, plamo2_vocab};
use gguf_core::{Array, Value};
use gguf_tokenizer::{Error, Model, Tokenizer};

fn plamo2() -> Tokenizer {
    Tokenizer::new(&gguf_core::parse(&plamo2_vocab()).unwrap()).unwrap()
}

/// A PLaMo-2 vocabulary of the control tokens, the byte tokens `bytes` gives texts for, and
/// `pieces` (text, score).
fn vocab(bytes: impl Fn(u8) -> Vec<u8>, pieces: &[(&[u8], f32)]) -> Vec<u8> {
    let mut tokens: Vec<Vec<u8>> = vec![b"<|plamo:unk|>".to_vec(), b"<|plamo:bos|>".to_vec()];
    let mut types = vec![2, 3];
    let mut scores = vec![0.0, 0.0];
    for b in 0..=255u8 {
        tokens.push(bytes(b));
        types.push(6);
        scores.push(0.0);
    }
    for (text, score) in pieces {
        tokens.push(text.to_vec());
        types.push(1);
        scores.push(*score);
    }
    GgufBuilder::new()
        .kv("tokenizer.ggml.model", Value::String("plamo2".into()))
        .kv(
            "tokenizer.ggml.tokens",
            Value::Array(Array::String(tokens.iter().collect())),
        )
        .kv("tokenizer.ggml.scores", Value::Array(Array::F32(scores)))
        .kv("tokenizer.ggml.token_type", Value::Array(Array::I32(types)))
        .build()
}

fn hex(b: u8) -> Vec<u8> {
    format!("<0x{b:02X}>").into_bytes()
}

fn load(bytes: &[u8]) -> Result<Tokenizer, Error> {
    Tokenizer::new(&gguf_core::parse(bytes).unwrap())
}

#[test]
fn byte_tokens_are_their_bytes_and_pieces_their_text() {
    let t = plamo2();
    assert_eq!(t.model(), Model::Plamo2);
    let text = "Hello world! こんにちは 🦙 jumps";
    let ids = t.tokenize(text.as_bytes(), true, true);
    // The llama falls back to its four UTF-8 bytes: <0xF0> is token 5 + 0xF0.
    assert!(ids.windows(4).any(|w| w == [245, 164, 171, 158]), "{ids:?}");
    assert_eq!(t.piece(245, false).as_deref(), Some(&b"\xF0"[..]));
    // The later of two byte tokens for `j` (<0x6A>, then <0x6a>) is the one used.
    let j = t.find(b"<0x6a>").unwrap();
    assert_eq!(t.tokenize(b"j", false, false), [j]);
    assert_eq!(t.piece(j, false).as_deref(), Some(&b"j"[..]));
    // Plain text, spaces as spaces: no SentencePiece escape, no space prefix.
    assert_eq!(t.detokenize(&ids, false, false), text.as_bytes());
    // No BOS is added, though the vocabulary says add_bos; one given is dropped with
    // remove_special, as llama_detokenize does.
    assert!(t.flags().add_bos);
    assert_ne!(ids.first(), Some(&1));
    assert_eq!(
        t.detokenize(&[1, ids[0]], true, true),
        t.detokenize(&ids[..1], false, false)
    );
    assert_eq!(t.detokenize(&[1], false, true), b"<|plamo:bos|>");
}

#[test]
fn a_leading_byte_order_mark_is_skipped() {
    let t = plamo2();
    assert_eq!(
        t.tokenize("\u{FEFF}Hello".as_bytes(), false, false),
        t.tokenize(b"Hello", false, false)
    );
    // Only the first: a second one falls back to its bytes.
    let ids = t.tokenize("\u{FEFF}\u{FEFF}".as_bytes(), false, false);
    assert_eq!(t.detokenize(&ids, false, false), "\u{FEFF}".as_bytes());
}

#[test]
fn a_vocabulary_without_every_byte_token_is_refused() {
    let missing = vocab(
        |b| if b == 0x0A { b"<0x0a".to_vec() } else { hex(b) },
        &[(b"a", -1.0)],
    );
    let e = load(&missing).unwrap_err();
    assert_eq!(e, Error::MissingByteToken(0x0A));
    assert!(e.to_string().contains("no byte token <0x0A>"), "{e}");
}

#[test]
fn a_token_past_u10ffff_is_refused_and_text_that_is_not_utf8_is_not() {
    let past = vocab(hex, &[(b"a\xF4\x90\x80\x80", -1.0)]);
    assert_eq!(load(&past).unwrap_err(), Error::BadToken { id: 258 });
    // Bad bytes in tokens are kept as llama.cpp keeps them (the token itself by its bytes, its
    // suffixes by U+FFFD); text with bad bytes, or a code point past U+10FFFF, tokenizes.
    let odd = vocab(
        hex,
        &[
            (b"a\xFFb", -1.0),
            (b"\xEF\xBF\xBDb", -2.0),
            (b"b", -3.0),
            (b"\xC0\x80", -1.0),
        ],
    );
    let t = load(&odd).unwrap();
    for text in [
        &b"a\xFFb"[..],
        b"\xFFb\xFF",
        b"\xC0\x80",
        b"x\xF5\x80\x80\x80",
        b"\xF4\x90\x80\x80b",
    ] {
        let ids = t.tokenize(text, true, true);
        assert!(
            !ids.is_empty() && ids.iter().all(|&id| (id as usize) < t.len()),
            "{text:?}: {ids:?}"
        );
    }
    // U+FFFD is what the text's bad byte reads as.
    assert_eq!(t.tokenize(b"\xFFb", false, false), [259]);
}

#[test]
fn scores_as_llama_cpps_table_rounds_them() {
    // "ab" beats "a" + "b" unless their scores (times 10⁴, rounded) add up to more; a tie goes
    // to the longer piece.
    let ids = |ab: f32| {
        let t = load(&vocab(hex, &[(b"a", -1.0), (b"b", -1.0), (b"ab", ab)])).unwrap();
        t.tokenize(b"ab", false, false)
    };
    assert_eq!(ids(-1.9999), [260]);
    assert_eq!(ids(-2.0), [260]);
    assert_eq!(ids(-2.00004), [260]);
    assert_eq!(ids(-2.00006), [258, 259]);
    // Not finite: no token at all.
    assert_eq!(ids(f32::NAN), [258, 259]);
}
