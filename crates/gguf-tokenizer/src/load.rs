//! Building the tokenizer from a header, by llama.cpp's `llama_vocab::impl::load`: the model
//! and pre-tokenizer names and what they imply, the token arrays, the special ids, the flags,
//! and the attribute fixes llama.cpp applies by token text.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use gguf_core::tokenizer::{FIM_MID_TEXTS, FIM_PRE_TEXTS, FIM_SUF_TEXTS};
use gguf_core::{Array, Header, Value, ValueType};

use crate::bpe::Merges;
use crate::pretokenize::{Pre, PreTokenizer, pre_for_name};
use crate::vocab::{Attr, Vocab};
use crate::{Error, Flags, Kind, Model, Specials, Tokenizer, Warning};

const MODEL: &str = "tokenizer.ggml.model";
const PRE: &str = "tokenizer.ggml.pre";
const TOKENS: &str = "tokenizer.ggml.tokens";
const SCORES: &str = "tokenizer.ggml.scores";
const TOKEN_TYPE: &str = "tokenizer.ggml.token_type";
const MERGES: &str = "tokenizer.ggml.merges";
const CHARSMAP: &str = "tokenizer.ggml.precompiled_charsmap";

/// Where a special-token id goes.
type Slot = fn(&mut Specials) -> &mut Option<u32>;

/// A special-token key and the slot it fills, in llama.cpp's order (later keys win).
const ID_KEYS: [(&str, Slot); 17] = [
    ("tokenizer.ggml.bos_token_id", |s| &mut s.bos),
    ("tokenizer.ggml.eos_token_id", |s| &mut s.eos),
    ("tokenizer.ggml.eot_token_id", |s| &mut s.eot),
    ("tokenizer.ggml.eom_token_id", |s| &mut s.eom),
    ("tokenizer.ggml.unknown_token_id", |s| &mut s.unk),
    ("tokenizer.ggml.seperator_token_id", |s| &mut s.sep),
    ("tokenizer.ggml.padding_token_id", |s| &mut s.pad),
    ("tokenizer.ggml.mask_token_id", |s| &mut s.mask),
    ("tokenizer.ggml.fim_pre_token_id", |s| &mut s.fim_pre),
    ("tokenizer.ggml.fim_suf_token_id", |s| &mut s.fim_suf),
    ("tokenizer.ggml.fim_mid_token_id", |s| &mut s.fim_mid),
    ("tokenizer.ggml.fim_pad_token_id", |s| &mut s.fim_pad),
    ("tokenizer.ggml.fim_rep_token_id", |s| &mut s.fim_rep),
    ("tokenizer.ggml.fim_sep_token_id", |s| &mut s.fim_sep),
    ("tokenizer.ggml.prefix_token_id", |s| &mut s.fim_pre),
    ("tokenizer.ggml.suffix_token_id", |s| &mut s.fim_suf),
    ("tokenizer.ggml.middle_token_id", |s| &mut s.fim_mid),
];

/// Texts llama.cpp takes for end-of-turn, end-of-message and fill-in-the-middle tokens when
/// the file names none, making each a control token (the prefix, suffix and middle ones are the
/// core's, which tells fill-in-the-middle models by them).
const EOT_TEXTS: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "<｜end▁of▁sentence｜>",
    "<end_of_utterance>",
];
const EOM_TEXTS: &[&str] = &["<|eom_id|>"];
const FIM_PAD_TEXTS: &[&str] = &["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"];
const FIM_REP_TEXTS: &[&str] = &[
    "<|fim_repo|>",
    "<|repo_name|>",
    "<fim-repo>",
    "<REPO>",
    "<reponame>",
];
const FIM_SEP_TEXTS: &[&str] = &["<|file_sep|>"];
/// Texts that end generation; each becomes a control token.
const EOG_TEXTS: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|flush|>",
    "<|calls|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "</s>",
    "<|eom_id|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "[EOS]",
    "<|end_of_text|>",
    "<end_of_utterance>",
    "<eos>",
    "<turn|>",
    "<|tool_response>",
    "<｜end▁of▁sentence｜>",
    "[e~[",
];
/// Harmony's markers, which llama.cpp makes user-defined.
const USER_DEFINED_TEXTS: &[&str] = &["<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"];

struct Meta<'h>(&'h Header);

impl<'h> Meta<'h> {
    fn get(&self, key: &str) -> Option<&'h Value> {
        self.0.metadata.get(key)
    }
    fn wrong(key: &str, found: ValueType) -> Error {
        Error::WrongType {
            key: key.to_owned(),
            found,
        }
    }
    fn string(&self, key: &str) -> Result<Option<&'h [u8]>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_bytes())),
            Some(v) => Err(Self::wrong(key, v.ty())),
        }
    }
    fn boolean(&self, key: &str) -> Result<Option<bool>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(Self::wrong(key, v.ty())),
        }
    }
    fn u32(&self, key: &str) -> Result<Option<u32>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::U32(n)) => Ok(Some(*n)),
            Some(v) => Err(Self::wrong(key, v.ty())),
        }
    }
    fn array(&self, key: &str) -> Result<Option<&'h Array>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(v) => Err(Self::wrong(key, v.ty())),
        }
    }
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub(crate) fn load(header: &Header) -> Result<Tokenizer, Error> {
    let meta = Meta(header);
    let mut warnings = Vec::new();
    let model_name = meta.string(MODEL)?.ok_or(Error::NoTokenizer)?;
    let mut pre_name = meta.string(PRE)?.map(text_of);
    let mut flags = Flags {
        add_space_prefix: false,
        add_bos: false,
        add_eos: false,
        add_sep: false,
        ignore_merges: false,
        clean_spaces: false,
        remove_extra_whitespaces: false,
        escape_whitespaces: true,
        treat_whitespace_as_suffix: false,
        lowercase: true,
        strip_accents: true,
    };
    let none = Specials::default();
    let mut specials = Specials {
        bos: Some(1),
        eos: Some(2),
        unk: Some(0),
        ..none
    };
    let model = match model_name {
        b"no_vocab" | b"none" => return Err(Error::NoVocabulary),
        b"llama" => Model::Spm,
        b"bert" => {
            specials = Specials {
                bos: Some(101),
                unk: Some(100),
                sep: Some(102),
                pad: Some(0),
                mask: Some(103),
                ..none
            };
            flags.add_sep = true;
            Model::Wpm
        }
        b"gpt2" | b"hybriddna" | b"whitespace" => {
            specials = Specials {
                bos: Some(11),
                eos: Some(11),
                ..none
            };
            Model::Bpe
        }
        b"gemma4" => {
            specials = none;
            pre_name = Some("gemma4".into());
            Model::Bpe
        }
        b"t5" => {
            specials = Specials {
                eos: Some(1),
                unk: Some(2),
                pad: Some(0),
                ..none
            };
            Model::Ugm
        }
        b"rwkv" => {
            specials = none;
            Model::Rwkv
        }
        b"test" => {
            specials = none;
            Model::Test
        }
        b"plamo2" => {
            specials = Specials {
                bos: Some(1),
                eos: Some(2),
                unk: Some(0),
                pad: Some(3),
                ..none
            };
            Model::Plamo2
        }
        other => return Err(Error::UnknownModel(text_of(other))),
    };

    let merges = if model == Model::Bpe {
        match meta.array(MERGES)? {
            Some(Array::String(list)) => Some(Merges::new(list.clone())),
            Some(other) => {
                return Err(Error::WrongType {
                    key: MERGES.into(),
                    found: other.elem_type(),
                });
            }
            None if pre_name.as_deref() == Some("kimi-k2") => Some(Merges::new(Default::default())),
            None => return Err(Error::MissingKey(MERGES)),
        }
    } else {
        None
    };

    let mut pre = Pre::Default;
    match model {
        Model::Bpe => {
            flags.escape_whitespaces = false;
            flags.clean_spaces = true;
            match pre_name.as_deref() {
                None | Some("") => warnings.push(Warning::MissingPre),
                Some(name) => {
                    let (p, f) = pre_for_name(name).ok_or_else(|| Error::UnknownPre(name.into()))?;
                    pre = p;
                    flags.ignore_merges |= f.ignore_merges;
                    flags.add_bos |= f.add_bos;
                    flags.add_sep |= f.add_sep;
                    flags.clean_spaces &= !f.no_clean_spaces;
                    flags.escape_whitespaces |= f.escape_whitespaces;
                    if f.no_bos_id {
                        specials.bos = None;
                    }
                    if f.no_lowercase {
                        flags.lowercase = false;
                    }
                }
            }
        }
        Model::Spm => {
            flags.add_space_prefix = true;
            flags.add_bos = true;
        }
        Model::Wpm => {
            flags.clean_spaces = true;
            flags.add_bos = true;
            flags.add_sep = true;
        }
        Model::Ugm => flags.add_eos = true,
        _ => {}
    }
    if let Some(b) = meta.boolean("tokenizer.ggml.add_space_prefix")? {
        flags.add_space_prefix = b;
    }
    if let Some(b) = meta.boolean("tokenizer.ggml.remove_extra_whitespaces")? {
        flags.remove_extra_whitespaces = b;
    }

    // The token arrays.
    let tokens = match meta.array(TOKENS)? {
        Some(Array::String(t)) => t,
        Some(other) => {
            return Err(Error::WrongType {
                key: TOKENS.into(),
                found: other.elem_type(),
            });
        }
        None => return Err(Error::MissingKey(TOKENS)),
    };
    let n = tokens.len();
    if n == 0 && model == Model::Test {
        return Err(Error::NoTokens);
    }
    let scores: Vec<f32> = match meta.array(SCORES)? {
        None => alloc::vec![0.0; n],
        Some(Array::F32(s)) if s.len() >= n => s[..n].to_vec(),
        Some(Array::I32(s)) if s.len() >= n => s[..n].iter().map(|&v| v as f32).collect(),
        Some(a @ (Array::F32(_) | Array::I32(_))) => {
            return Err(Error::ShortArray {
                key: SCORES,
                len: a.len(),
                tokens: n,
            });
        }
        Some(other) => {
            return Err(Error::WrongType {
                key: SCORES.into(),
                found: other.elem_type(),
            });
        }
    };
    let attrs: Vec<Attr> = match meta.array(TOKEN_TYPE)? {
        None => alloc::vec![Attr::NORMAL; n],
        Some(Array::I32(t)) if t.len() >= n => t[..n].iter().map(|&ty| Attr::from_type(ty)).collect(),
        Some(a @ Array::I32(_)) => {
            return Err(Error::ShortArray {
                key: TOKEN_TYPE,
                len: a.len(),
                tokens: n,
            });
        }
        Some(other) => {
            return Err(Error::WrongType {
                key: TOKEN_TYPE.into(),
                found: other.elem_type(),
            });
        }
    };
    // The header's array as it is (two copies), unless a token is empty.
    let texts = if tokens.iter().any(<[u8]>::is_empty) {
        tokens
            .iter()
            .enumerate()
            .map(|(i, t)| -> alloc::borrow::Cow<'_, [u8]> {
                if t.is_empty() {
                    format!("[EMPTY_{i}]").into_bytes().into()
                } else {
                    t.into()
                }
            })
            .collect()
    } else {
        tokens.clone()
    };
    let mut vocab = Vocab::new(texts, scores, attrs).map_err(|d| Error::DuplicateToken {
        first: d.first,
        second: d.second,
    })?;
    if model_name == b"hybriddna" {
        if let Some(shown) = crate::dna::shown_texts(&vocab) {
            let shown = shown.into_iter().collect();
            vocab.show_as(shown);
        }
    }

    // Special ids: defaults out of range are dropped; keys out of range are ignored.
    for (_, slot) in ID_KEYS {
        let id = slot(&mut specials);
        if id.is_some_and(|i| i as usize >= n) {
            *id = None;
        }
    }
    for (key, slot) in ID_KEYS {
        if let Some(new) = meta.u32(key)? {
            if (new as usize) < n {
                *slot(&mut specials) = Some(new);
            } else {
                warnings.push(Warning::BadSpecialId { key, id: new });
            }
        }
    }
    if let Some(b) = meta.boolean("tokenizer.ggml.add_bos_token")? {
        flags.add_bos = b;
    }
    if let Some(b) = meta.boolean("tokenizer.ggml.add_eos_token")? {
        flags.add_eos = b;
    }
    if let Some(b) = meta.boolean("tokenizer.ggml.add_sep_token")? {
        flags.add_sep = b;
    }
    if pre == Pre::Gemma4 && !flags.add_bos {
        flags.add_bos = true;
    }
    if let Some(b) = meta.boolean("tokenizer.ggml.normalizer.lowercase")? {
        flags.lowercase = b;
    }
    flags.strip_accents = flags.lowercase;
    if let Some(b) = meta.boolean("tokenizer.ggml.normalizer.strip_accents")? {
        flags.strip_accents = b;
    }

    // llama.cpp builds PLaMo-2's table from the token types as the file gives them, before
    // its fixes by token text.
    let plamo2 = match model {
        Model::Plamo2 => Some(crate::plamo2::Plamo2::new(&vocab)?),
        _ => None,
    };
    let eog = fix_attributes(&mut vocab, &mut specials);

    // Matched in text before tokenizing, longest first.
    let mut special_cache: Vec<u32> = (0..n as u32)
        .filter(|&id| {
            vocab
                .attr(id)
                .has(Attr::CONTROL | Attr::USER_DEFINED | Attr::UNKNOWN)
        })
        .collect();
    special_cache.sort_by_key(|&id| core::cmp::Reverse(vocab.text(id).len()));

    let name = match meta.string("general.name")? {
        Some(n) => n.to_ascii_lowercase(),
        None => Vec::new(),
    };
    let arch = meta.string("general.architecture")?.unwrap_or_default();
    let contains = |hay: &[u8], needles: &[&str]| {
        needles
            .iter()
            .any(|n| memchr::memmem::find(hay, n.as_bytes()).is_some())
    };
    let raw_pre = meta.string(PRE)?.unwrap_or_default();
    if contains(raw_pre, &["jina-v2-de", "jina-v2-es", "jina-v2-code"])
        || contains(arch, &["nomic-bert-moe", "jina-bert-v3"])
    {
        if let Some(id) = vocab.find(b"<mask>") {
            vocab.attrs[id as usize] = vocab.attr(id) | Attr::LSTRIP;
        }
    } else if contains(&name, &["phi-3", "phi3"]) {
        for &id in &special_cache {
            vocab.attrs[id as usize] = vocab.attr(id) | Attr::RSTRIP;
        }
        if let Some(id) = vocab.find(b"</s>") {
            vocab.attrs[id as usize] = vocab.attr(id) | Attr::RSTRIP;
        }
        for t in [&b"<unk>"[..], b"<s>", b"<|endoftext|>"] {
            if let Some(id) = vocab.find(t) {
                vocab.attrs[id as usize] = Attr(vocab.attr(id).0 & !Attr::RSTRIP.0);
            }
        }
    } else if contains(&name, &["modern-bert"]) {
        if let Some(id) = vocab.find(b"[MASK]") {
            vocab.attrs[id as usize] = vocab.attr(id) | Attr::LSTRIP;
        }
    }

    let kind = match (model, plamo2) {
        (_, Some(table)) => Kind::Plamo2(alloc::boxed::Box::new(table)),
        (Model::Spm, None) => Kind::Spm,
        (Model::Bpe, None) => Kind::Bpe {
            pre,
            pretokenizer: PreTokenizer::new(pre)
                .map_err(|_| Error::UnknownPre(pre_name.clone().unwrap_or_default()))?,
            merges: merges.unwrap_or_else(|| Merges::new(Default::default())),
            whitespace_model: model_name == b"whitespace",
            dna: (model_name == b"hybriddna")
                .then(|| crate::dna::Dna::find(&vocab))
                .flatten(),
        },
        (Model::Wpm, None) => Kind::Wpm,
        (Model::Ugm, None) => Kind::Ugm(crate::ugm::Ugm::new(&vocab, charsmap(&meta)?)?),
        (Model::Rwkv, None) => Kind::Rwkv(crate::rwkv::Rwkv::new(&vocab)),
        (Model::Test, None) => Kind::Test,
        (Model::Plamo2, None) => unreachable!("PLaMo-2's table is built above"),
    };
    Ok(Tokenizer {
        vocab,
        kind,
        model,
        flags,
        specials,
        special_cache,
        eog,
        warnings,
    })
}

fn charsmap(meta: &Meta<'_>) -> Result<Option<Vec<u8>>, Error> {
    Ok(match meta.array(CHARSMAP)? {
        None => None,
        Some(Array::U8(b)) => Some(b.clone()),
        Some(Array::I8(b)) => Some(b.iter().map(|&v| v as u8).collect()),
        Some(other) => {
            return Err(Error::WrongType {
                key: CHARSMAP.into(),
                found: other.elem_type(),
            });
        }
    })
}

/// llama.cpp's fixes by token text: end-of-turn, end-of-message and fill-in-the-middle tokens
/// found by name become control tokens, control tokens named `unused` are unused, Harmony's
/// markers are user-defined, and the end-of-generation set decides two more. Returns that set.
fn fix_attributes(vocab: &mut Vocab, s: &mut Specials) -> Vec<u32> {
    let add = |vocab: &mut Vocab, id: u32, a: Attr| vocab.attrs[id as usize] = vocab.attr(id) | a;
    // The first listed text present stands in for llama.cpp's first in hash order.
    let by_name = |vocab: &mut Vocab, slot: &mut Option<u32>, texts: &[&str]| {
        if slot.is_none() {
            let found = texts.iter().filter_map(|t| vocab.find(t.as_bytes())).min();
            if let Some(id) = found {
                *slot = Some(id);
                add(vocab, id, Attr::CONTROL);
            }
        }
    };
    by_name(vocab, &mut s.eot, EOT_TEXTS);
    by_name(vocab, &mut s.eom, EOM_TEXTS);
    by_name(vocab, &mut s.fim_pre, FIM_PRE_TEXTS);
    by_name(vocab, &mut s.fim_suf, FIM_SUF_TEXTS);
    by_name(vocab, &mut s.fim_mid, FIM_MID_TEXTS);
    by_name(vocab, &mut s.fim_pad, FIM_PAD_TEXTS);
    by_name(vocab, &mut s.fim_rep, FIM_REP_TEXTS);
    by_name(vocab, &mut s.fim_sep, FIM_SEP_TEXTS);

    for id in 0..vocab.len() as u32 {
        let a = vocab.attr(id);
        if a.has(Attr::CONTROL)
            && !a.has(Attr::UNUSED)
            && memchr::memmem::find(vocab.text(id), b"unused").is_some()
        {
            add(vocab, id, Attr::UNUSED);
        }
    }

    let mut eog: Vec<u32> = [s.fim_pad, s.fim_rep, s.fim_sep].into_iter().flatten().collect();
    for t in EOG_TEXTS {
        if let Some(id) = vocab.find(t.as_bytes()) {
            eog.push(id);
            add(vocab, id, Attr::CONTROL);
        }
    }
    for t in USER_DEFINED_TEXTS {
        if let Some(id) = vocab.find(t.as_bytes()) {
            vocab.attrs[id as usize] = Attr::USER_DEFINED;
        }
    }
    eog.extend([s.eos, s.eot, s.eom].into_iter().flatten());
    let has =
        |eog: &[u32], vocab: &Vocab, texts: &[&[u8]]| eog.iter().any(|&id| texts.contains(&vocab.text(id)));
    let end = eog.iter().copied().find(|&id| vocab.text(id) == b"<|end|>");
    if let Some(end) = end {
        let (ret, call, flush) = (
            has(&eog, vocab, &[b"<|return|>"]),
            has(&eog, vocab, &[b"<|call|>", b"<|calls|>"]),
            has(&eog, vocab, &[b"<|flush|>"]),
        );
        if call && (ret || flush) {
            eog.retain(|&id| id != end);
            vocab.attrs[end as usize] = Attr::USER_DEFINED;
        }
    }
    let s_id = eog.iter().copied().find(|&id| vocab.text(id) == b"</s>");
    if let Some(s_id) = s_id {
        if has(&eog, vocab, &[b"<|tool_response>", b"<|plamo:eos|>"]) {
            vocab.attrs[s_id as usize] = Attr::NORMAL;
        }
    }
    eog
}
