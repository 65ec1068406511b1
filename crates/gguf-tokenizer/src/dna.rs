//! HybridDNA (`tokenizer.ggml.model = hybriddna`), as llama.cpp's
//! `llm_tokenizer_hybriddna_session`: a byte-level BPE vocabulary whose text between `<dna>` and
//! `</dna>` is cut into 6-letter k-mers (upper case, the last one padded with `A`), each the
//! token of that k-mer, or `<oov>`. The k-mers are stored with a marker (U+E000) that keeps them
//! apart from BPE tokens of the same letters; llama.cpp looks them up with it and shows them
//! without it.

use alloc::vec::Vec;

use memchr::memmem;

use crate::vocab::Vocab;

/// The marker after each k-mer's text.
const MARKER: &[u8] = "\u{E000}".as_bytes();
const K: usize = 6;
const OPEN: &[u8] = b"<dna>";
const CLOSE: &[u8] = b"</dna>";

#[derive(Debug, Clone, Copy)]
pub(crate) struct Dna {
    open: u32,
    close: u32,
    oov: u32,
}

/// The texts llama.cpp shows for a HybridDNA vocabulary: the k-mers after `<oov>` without their
/// marker. `None` when it has no `<oov>`.
pub(crate) fn shown_texts(vocab: &Vocab) -> Option<Vec<&[u8]>> {
    let oov = vocab.find(b"<oov>")?;
    Some(
        (0..vocab.len() as u32)
            .map(|id| {
                let text = vocab.text(id);
                match text.strip_suffix(MARKER) {
                    Some(kmer) if id > oov && !kmer.is_empty() => kmer,
                    _ => text,
                }
            })
            .collect(),
    )
}

impl Dna {
    /// The DNA tokens of `vocab`; `None` (plain BPE, as llama.cpp falls back) without all three.
    pub(crate) fn find(vocab: &Vocab) -> Option<Dna> {
        Some(Dna {
            open: vocab.find(OPEN)?,
            close: vocab.find(CLOSE)?,
            oov: vocab.find(b"<oov>")?,
        })
    }

    /// `text`: outside `<dna>`…`</dna>` by `bpe`, inside as k-mers. A `<dna>` left open runs to
    /// the end.
    pub(crate) fn tokenize(
        &self,
        vocab: &Vocab,
        text: &[u8],
        out: &mut Vec<u32>,
        mut bpe: impl FnMut(&[u8], &mut Vec<u32>),
    ) {
        let mut pos = 0;
        while pos < text.len() {
            let Some(start) = memmem::find(&text[pos..], OPEN).map(|p| pos + p) else {
                bpe(&text[pos..], out);
                break;
            };
            if start > pos {
                bpe(&text[pos..start], out);
            }
            out.push(self.open);
            let content = start + OPEN.len();
            let end = memmem::find(&text[content..], CLOSE).map(|p| content + p);
            self.kmers(vocab, &text[content..end.unwrap_or(text.len())], out);
            let Some(end) = end else {
                break;
            };
            out.push(self.close);
            pos = end + CLOSE.len();
        }
    }

    fn kmers(&self, vocab: &Vocab, sequence: &[u8], out: &mut Vec<u32>) {
        let mut key = Vec::with_capacity(K + MARKER.len());
        for chunk in sequence.chunks(K) {
            key.clear();
            key.extend(chunk.iter().map(u8::to_ascii_uppercase));
            key.resize(K, b'A');
            key.extend_from_slice(MARKER);
            out.push(vocab.find(&key).unwrap_or(self.oov));
        }
    }
}
