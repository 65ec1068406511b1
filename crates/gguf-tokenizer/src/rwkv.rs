//! RWKV's "world" tokenizer, as llama.cpp's `llm_tokenizer_rwkv`: token texts are escaped bytes
//! (`\n`, `\xNN`…); text is matched greedily, longest token first, through a byte trie.

use alloc::vec::Vec;

use crate::trie::Trie;
use crate::vocab::Vocab;

/// llama.cpp's `llama_unescape_rwkv_token`.
pub(crate) fn unescape(escaped: &[u8], out: &mut Vec<u8>) {
    let (mut escaping, mut hex_left, mut acc) = (false, 0u8, 0u8);
    for &c in escaped {
        if hex_left != 0 {
            let v = if c >= b'a' {
                c.wrapping_sub(b'a').wrapping_add(10)
            } else {
                c.wrapping_sub(b'0')
            };
            acc = (acc << 4).wrapping_add(v);
            hex_left -= 1;
            if hex_left == 0 {
                out.push(acc);
                acc = 0;
            }
            continue;
        }
        if escaping {
            match c {
                b't' => out.push(b'\t'),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b'x' => hex_left = 2,
                _ => out.push(c),
            }
            escaping = false;
            continue;
        }
        if c == b'\\' {
            escaping = true;
            continue;
        }
        out.push(c);
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Rwkv {
    trie: Trie,
}

impl Rwkv {
    pub(crate) fn new(vocab: &Vocab) -> Rwkv {
        let mut trie = Trie::default();
        let mut buf = Vec::new();
        for id in 0..vocab.len() as u32 {
            buf.clear();
            unescape(vocab.text(id), &mut buf);
            trie.insert(&buf, id);
        }
        Rwkv { trie }
    }

    pub(crate) fn tokenize(&self, unk: Option<u32>, text: &[u8], out: &mut Vec<u32>) {
        let mut pos = 0;
        while pos < text.len() {
            let start = pos;
            let mut node = self.trie.child(Trie::ROOT, text[pos]);
            if node.is_none() {
                out.extend(unk);
                pos += 1;
                continue;
            }
            let (mut id, mut end) = (0, 0);
            while let Some(n) = node {
                if let Some(v) = self.trie.value(n) {
                    (id, end) = (v, pos + 1);
                }
                if pos + 1 >= text.len() {
                    break;
                }
                pos += 1;
                node = self.trie.child(n, text[pos]);
            }
            out.push(id);
            // When no prefix is a token llama.cpp starts over at 0 (and never ends); go on.
            pos = if end > start { end } else { start + 1 };
        }
    }
}
