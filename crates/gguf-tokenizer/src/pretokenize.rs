//! The BPE pre-tokenizers: how text is cut into words before merging, for every
//! `tokenizer.ggml.pre` llama.cpp accepts. Each is a sequence of patterns, each cutting the
//! pieces the previous ones left ([`split`], llama.cpp's `unicode_regex_split`). The common
//! patterns have hand-written splitters there, which are not always what the pattern says; the
//! rest run through `std::regex` over a "collapsed" text. Both are reproduced here.

use alloc::vec;
use alloc::vec::Vec;

use crate::regex::Regex;
use crate::unicode::{self, Flags};

/// A pre-tokenizer: what llama.cpp's `LLAMA_VOCAB_PRE_TYPE_*` selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)] // the names are llama.cpp's
pub enum Pre {
    Default,
    Llama3,
    Jais2,
    Dbrx,
    Smaug,
    DeepseekLlm,
    Deepseek3Llm,
    HunyuanDense,
    JoyaiLlm,
    HyV4,
    Spark2_5,
    Youtu,
    DeepseekCoder,
    Falcon,
    Mpt,
    Starcoder,
    Refact,
    CommandR,
    Smollm,
    Codeshell,
    Exaone,
    Minerva,
    Mellum2,
    Gpt2,
    Olmo,
    Jais,
    Trillion,
    GraniteDocling,
    Stablelm2,
    Qwen2,
    Hunyuan,
    SolarOpen,
    Qwen35,
    Poro,
    Bloom,
    Gpt3Finnish,
    Chatglm4,
    Viking,
    Tekken,
    Chameleon,
    Gpt4o,
    MinimaxM2,
    GraniteEmbMulti,
    TinyAya,
    KimiK2,
    Superbpe,
    Bailingmoe,
    SeedCoder,
    Ufakzeka,
    Grok2,
    Afmoe,
    Laguna,
    ExaoneMoe,
    Gemma4,
    SarvamMoe,
    Minicpm5,
    Whitespace,
}

/// What a `tokenizer.ggml.pre` name sets besides the pre-tokenizer (llama.cpp's `load`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PreFlags {
    pub(crate) ignore_merges: bool,
    pub(crate) add_bos: bool,
    pub(crate) add_sep: bool,
    /// `clean_spaces` is turned off.
    pub(crate) no_clean_spaces: bool,
    pub(crate) escape_whitespaces: bool,
    pub(crate) no_bos_id: bool,
    pub(crate) no_lowercase: bool,
}

/// The pre-tokenizer llama.cpp 0c1e570 selects for a BPE vocabulary's `tokenizer.ggml.pre`, or
/// `None` for a name it refuses ("unknown pre-tokenizer type").
pub(crate) fn pre_for_name(name: &str) -> Option<(Pre, PreFlags)> {
    let f = PreFlags::default();
    let keep = PreFlags {
        no_clean_spaces: true,
        ..f
    };
    Some(match name {
        "default" => (Pre::Default, f),
        "minicpm5" => (
            Pre::Minicpm5,
            PreFlags {
                ignore_merges: true,
                ..f
            },
        ),
        "llama3" | "llama-v3" | "llama-bpe" | "falcon3" | "falcon-h1" | "pixtral" | "midm-2.0" | "lfm2"
        | "jina-v5-nano" => (
            Pre::Llama3,
            PreFlags {
                ignore_merges: true,
                add_bos: true,
                ..f
            },
        ),
        "deepseek-llm" => (Pre::DeepseekLlm, keep),
        "deepseek-coder" => (Pre::DeepseekCoder, keep),
        "deepseek-v3" => (Pre::Deepseek3Llm, keep),
        "spark2_5" => (Pre::Spark2_5, keep),
        "youtu" => (
            Pre::Youtu,
            PreFlags {
                ignore_merges: true,
                ..keep
            },
        ),
        "falcon" => (Pre::Falcon, f),
        "mpt" => (Pre::Mpt, f),
        "starcoder" => (Pre::Starcoder, f),
        "gpt-2" | "phi-2" | "jina-es" | "jina-de" | "gigachat" | "jina-v2-es" | "jina-v2-de" | "a.x-4.0"
        | "mellum" | "modern-bert" => (Pre::Gpt2, f),
        "jais-2" => (Pre::Jais2, f),
        "gemma4" | "granite-embed-multi-311m" => (
            Pre::Gemma4,
            PreFlags {
                escape_whitespaces: true,
                ..f
            },
        ),
        "sarvam-moe" => (
            Pre::SarvamMoe,
            PreFlags {
                escape_whitespaces: true,
                ..keep
            },
        ),
        "jina-v1-en" | "jina-v2-code" | "roberta-bpe" => (Pre::Gpt2, PreFlags { add_sep: true, ..f }),
        "whitespace" => (
            Pre::Whitespace,
            PreFlags {
                no_lowercase: true,
                ..f
            },
        ),
        "refact" => (Pre::Refact, f),
        "command-r" => (Pre::CommandR, keep),
        "qwen2" | "deepseek-r1-qwen" | "kormo" | "f2llmv2" => (Pre::Qwen2, keep),
        "qwen35" => (Pre::Qwen35, keep),
        "stablelm2" => (Pre::Stablelm2, f),
        "olmo" => (Pre::Olmo, f),
        "dbrx" => (Pre::Dbrx, f),
        "smaug-bpe" => (Pre::Smaug, f),
        "poro-chat" => (Pre::Poro, keep),
        "chatglm-bpe" => (Pre::Chatglm4, PreFlags { no_bos_id: true, ..f }),
        "glm4" | "glm5" => (
            Pre::Chatglm4,
            PreFlags {
                no_bos_id: true,
                ignore_merges: true,
                ..f
            },
        ),
        "viking" => (Pre::Viking, keep),
        "jais" => (Pre::Jais, f),
        "tekken" => (
            Pre::Tekken,
            PreFlags {
                ignore_merges: true,
                add_bos: true,
                ..keep
            },
        ),
        "smollm" => (Pre::Smollm, keep),
        "codeshell" => (Pre::Codeshell, f),
        "bloom" => (Pre::Bloom, f),
        "gpt3-finnish" => (Pre::Gpt3Finnish, f),
        "exaone" => (Pre::Exaone, f),
        "exaone4" => (Pre::Gpt2, f),
        "exaone-moe" => (Pre::ExaoneMoe, f),
        "chameleon" => (
            Pre::Chameleon,
            PreFlags {
                add_bos: true,
                ..keep
            },
        ),
        "minerva-7b" => (Pre::Minerva, f),
        "megrez" => (Pre::Qwen2, f),
        "gpt-4o" | "llama4" | "kanana2" | "talkie" => (Pre::Gpt4o, keep),
        "granite-embed-multi-97m" => (
            Pre::GraniteEmbMulti,
            PreFlags {
                ignore_merges: true,
                ..keep
            },
        ),
        "tiny_aya" | "cohere2moe" => (Pre::TinyAya, keep),
        "superbpe" => (Pre::Superbpe, keep),
        "trillion" => (Pre::Trillion, keep),
        "granite-docling" => (Pre::GraniteDocling, keep),
        "bailingmoe" | "bailingmoe2" | "llada-moe" => (Pre::Bailingmoe, keep),
        "seed-coder" => (Pre::SeedCoder, keep),
        "hunyuan" => (Pre::Hunyuan, keep),
        "hunyuan-dense" => (Pre::HunyuanDense, keep),
        "hy_v4" => (Pre::HyV4, keep),
        "joyai-llm" => (Pre::JoyaiLlm, keep),
        "kimi-k2" => (Pre::KimiK2, keep),
        "ufakzeka" => (Pre::Ufakzeka, keep),
        "grok-2" => (Pre::Grok2, keep),
        "afmoe" => (Pre::Afmoe, keep),
        "laguna" => (Pre::Laguna, keep),
        "minimax-m2" => (Pre::MinimaxM2, keep),
        "solar-open" => (Pre::SolarOpen, keep),
        "mellum2" => (Pre::Mellum2, f),
        _ => return None,
    })
}

const GPT2: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)";
const LLAMA3: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
const QWEN2: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
const QWEN35: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
const NEWLINES: &str = r"[^\n]+|[\n]+";
const KIMI_K2: &str = r"\p{Han}+";
const AFMOE_DIGITS: &str = r"\p{AFMoE_digits}";
const TINY_AYA_DIGITS: &str = r"\d{1,3}(?=(?:\d{3})*\b)";
const GPT4O: &str = r"[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+";
const DEEPSEEK3: &str = r##"[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"##;
const CJK_KANA: &str = "[一-龥぀-ゟ゠-ヿ]+";
const CONTRACTIONS: &str = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])";

/// The patterns of a pre-tokenizer, and whether words are then written in GPT-2's byte map.
pub(crate) fn patterns(pre: Pre) -> (Vec<alloc::string::String>, bool) {
    use alloc::format;
    use alloc::string::ToString;
    let s = |p: &str| p.to_string();
    let youtu_letters = format!(
        r"[^\r\n\p{{L}}\p{{N}}]?[\p{{Lu}}\p{{Lt}}\p{{Lm}}\p{{Lo}}\p{{M}}]*[\p{{Ll}}\p{{Lm}}\p{{Lo}}\p{{M}}]+{CONTRACTIONS}?|[^\r\n\p{{L}}\p{{N}}]?[\p{{Lu}}\p{{Lt}}\p{{Lm}}\p{{Lo}}\p{{M}}]+[\p{{Ll}}\p{{Lm}}\p{{Lo}}\p{{M}}]*{CONTRACTIONS}?"
    );
    let list = match pre {
        Pre::Llama3 | Pre::Dbrx | Pre::Smaug | Pre::Chatglm4 => vec![s(LLAMA3)],
        Pre::Jais2 => vec![format!(
            r"{CONTRACTIONS}|[^\r\n\p{{L}}\p{{N}}]?\p{{L}}+|\p{{N}}{{1,3}}| ?[^\s\p{{L}}\p{{N}}]+[\r\n]*|\s*[\r\n]+|\s{{512}}(?!\S)|\s{{256}}(?!\S)|\s{{128}}(?!\S)|\s{{64}}(?!\S)|\s{{32}}(?!\S)|\s{{16}}(?!\S)|\s{{8}}(?!\S)|\s{{4}}(?!\S)|\s{{1,2}}(?!\S)|\s{{1}}"
        )],
        Pre::DeepseekLlm => vec![
            s("[\r\n]"),
            s(
                "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+",
            ),
            s("\\s?[!-/:-~！-／：-～‘-‟　-。]+"),
            s("\\s+$"),
            s("[一-龥ࠀ-一가-퟿]+"),
            s(r"\p{N}+"),
        ],
        Pre::Deepseek3Llm | Pre::HunyuanDense | Pre::JoyaiLlm | Pre::HyV4 => {
            vec![s(r"\p{N}{1,3}"), s(CJK_KANA), s(DEEPSEEK3)]
        }
        Pre::Spark2_5 => vec![
            s(r"\p{N}{1,3}"),
            s(CJK_KANA),
            s(
                r##"[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+|[\r\n]|\s+(?!\S)|\s+"##,
            ),
            s(r"\p{N}"),
        ],
        Pre::Youtu => vec![
            s("[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥぀-ゟ゠-ヿ]+"),
            format!(r"{youtu_letters}|\p{{N}}| ?[^\s\p{{L}}\p{{N}}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"),
        ],
        Pre::DeepseekCoder => vec![
            s("[\r\n]"),
            s(r"\s?\p{L}+"),
            s(r"\s?\p{P}+"),
            s("[一-龥ࠀ-一가-퟿]+"),
            s(r"\p{N}"),
        ],
        Pre::Falcon => vec![s(r"[\p{P}\$\+<=>\^~\|`]+"), s(GPT2), s("[0-9][0-9][0-9]")],
        Pre::Starcoder
        | Pre::Refact
        | Pre::CommandR
        | Pre::Smollm
        | Pre::Codeshell
        | Pre::Exaone
        | Pre::Minerva
        | Pre::Mellum2 => vec![s(r"\p{N}"), s(GPT2)],
        Pre::Gpt2 | Pre::Mpt | Pre::Olmo | Pre::Jais | Pre::Trillion | Pre::GraniteDocling => vec![s(GPT2)],
        Pre::Stablelm2 | Pre::Qwen2 | Pre::Hunyuan | Pre::SolarOpen | Pre::Grok2 => vec![s(QWEN2)],
        Pre::Qwen35 => vec![s(QWEN35)],
        Pre::Poro | Pre::Bloom | Pre::Gpt3Finnish => vec![s(" ?[^(\\s|.,!?…。，、।۔،)]+")],
        Pre::Viking => vec![s(" ?[^(\\s|.,!?…。，、।۔،)]+"), s(r"\p{N}")],
        Pre::Tekken => vec![s(
            r"[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        )],
        Pre::Chameleon => vec![
            s("<sentinel:[0-9]+>"),
            s("(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z"),
            s("([\\t\\n]|    |  )"),
            s(r"\p{N}"),
            s(r"[\p{P}!-/:-@\[-`{-~]"),
            s(GPT2),
        ],
        Pre::Gpt4o | Pre::MinimaxM2 => vec![s(GPT4O)],
        Pre::GraniteEmbMulti => vec![s(
            r"[^\r\n\p{L}\p{N}]?((?=[\p{L}\p{M}])([^a-z]))*((?=[\p{L}\p{M}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}\p{M}])([^a-z]))+((?=[\p{L}\p{M}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        )],
        Pre::TinyAya => vec![
            s(TINY_AYA_DIGITS),
            format!(
                r"{youtu_letters}|\p{{N}}{{1,3}}| ?[^\s\p{{L}}\p{{N}}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
            ),
        ],
        Pre::KimiK2 => vec![s(KIMI_K2)],
        Pre::Superbpe => vec![s(r"\p{N}+"), s(r"(?=(\d{3})+(?!\d))")],
        Pre::Bailingmoe => vec![s(
            r"'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+",
        )],
        Pre::SeedCoder => vec![format!(
            r"{CONTRACTIONS}|[^\r\n\p{{L}}\p{{N}}]?\p{{L}}+|\p{{N}}{{1}}| ?[^\s\p{{L}}\p{{N}}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+"
        )],
        Pre::Ufakzeka => vec![s(
            r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        )],
        Pre::Afmoe => vec![
            s(AFMOE_DIGITS),
            s("[一-鿿㐀-䶿豈-﫿぀-ゟ゠-ヿ･-ﾟ⼀-⿟เ-๿຀-໿ក-៿က-႟ꩠ-ꩿꧠ-꧿가-힯ᄀ-ᇿ]+"),
            s(
                r##"[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"##,
            ),
        ],
        Pre::Laguna => vec![s(NEWLINES), s(QWEN2)],
        Pre::ExaoneMoe => vec![format!(
            r"{CONTRACTIONS}|[^\r\n\p{{L}}\p{{N}}]?(?:\p{{L}}\p{{M}}*(?: \p{{L}}\p{{M}}*)*)+|\p{{N}}| ?[^\s\p{{L}}\p{{N}}]+[\r\n/]?|\s*[\r\n]|\s+(?!\S)|\s+"
        )],
        Pre::Gemma4 | Pre::SarvamMoe => vec![s(NEWLINES)],
        Pre::Minicpm5 => vec![
            s(r"\p{N}{1,3}"),
            format!(
                r"{CONTRACTIONS}|[^\r\n\p{{L}}\p{{N}}]?\p{{L}}+|\p{{N}}+| ?[^\s\p{{L}}\p{{N}}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
            ),
        ],
        Pre::Whitespace => vec![s(r"\S+")],
        Pre::Default => vec![
            s(r"[\p{P}\$\+<=>\^~\|]+"),
            s(GPT2),
            s(r"\p{N}+"),
            s("[0-9][0-9][0-9]"),
        ],
    };
    let byte_encode = !matches!(pre, Pre::Gemma4 | Pre::SarvamMoe | Pre::Whitespace);
    (list, byte_encode)
}

/// How one pattern cuts: a hand-written splitter, or the regex engine.
#[derive(Debug, Clone)]
enum Cutter {
    Gpt2,
    /// llama.cpp's llama3 / qwen2 / qwen35 splitters: the longest digit run, and whether letter
    /// runs take combining marks.
    Llama3 {
        max_digits: usize,
        marks: bool,
    },
    KimiK2,
    /// AFMoE's digit groups (also what llama.cpp runs for Tiny Aya's digit pattern).
    DigitGroups,
    Newlines,
    /// Over the collapsed text (a pattern with `\p{…}`), or over code points.
    Regex {
        regex: Regex,
        collapsed: bool,
    },
}

/// A compiled pre-tokenizer.
#[derive(Debug, Clone)]
pub(crate) struct PreTokenizer {
    cutters: Vec<Cutter>,
    collapse: bool,
    pub(crate) byte_encode: bool,
}

/// The Unicode classes llama.cpp writes into a collapsed pattern, and the category each stands
/// for (`k_ucat_enum`).
const CATEGORY_NAMES: [(&str, u16); 10] = [
    (r"\p{N}", Flags::NUMBER),
    (r"\p{L}", Flags::LETTER),
    (r"\p{P}", Flags::PUNCTUATION),
    (r"\p{M}", Flags::ACCENT_MARK),
    (r"\p{S}", Flags::SYMBOL),
    (r"\p{Lu}", Flags::LETTER),
    (r"\p{Ll}", Flags::LETTER),
    (r"\p{Lt}", Flags::LETTER),
    (r"\p{Lm}", Flags::LETTER),
    (r"\p{Lo}", Flags::LETTER),
];

/// The byte standing for a category in collapsed text, and the ASCII characters of that
/// category, as a class body (`k_ucat_cpt`, `k_ucat_map`).
fn category_stand_in(category: u16) -> Option<(u8, &'static [u8])> {
    Some(match category {
        Flags::NUMBER => (0xD1, b"0-9"),
        Flags::LETTER => (0xD2, b"A-Za-z"),
        Flags::PUNCTUATION => (0xD3, b"!-#%-*,-/:-;?-@\\[-\\]_\\{\\}"),
        Flags::ACCENT_MARK => (0xD4, b""),
        Flags::SYMBOL => (0xD5, b"\\$\\+<->^`\\|\\~"),
        _ => return None,
    })
}

fn uses_categories(pattern: &str) -> bool {
    CATEGORY_NAMES.iter().any(|(name, _)| pattern.contains(name))
}

/// llama.cpp's rewrite of a pattern for the collapsed text: each `\p{…}` class becomes its
/// stand-in byte plus its ASCII members (in brackets unless already inside a class).
fn collapse_pattern(pattern: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut inside = false;
    let mut i = 0;
    while i < pattern.len() {
        let c = pattern[i];
        if c == b'[' && (i == 0 || pattern[i - 1] != b'\\') {
            out.push(u32::from(b'['));
            inside = true;
            i += 1;
            continue;
        }
        if inside && c == b']' && pattern[i - 1] != b'\\' {
            out.push(u32::from(b']'));
            inside = false;
            i += 1;
            continue;
        }
        if c == b'\\' && i + 3 < pattern.len() && pattern[i + 1] == b'p' && pattern[i + 2] == b'{' {
            let close = pattern[i + 3..]
                .iter()
                .position(|&b| b == b'}')
                .map(|p| p + i + 3);
            if let Some(close) = close.filter(|&c| c <= i + 10) {
                let name = &pattern[i..=close];
                if let Some(&(_, cat)) = CATEGORY_NAMES.iter().find(|(n, _)| n.as_bytes() == name) {
                    let (stand_in, members) = category_stand_in(cat).unwrap();
                    if !inside {
                        out.push(u32::from(b'['));
                    }
                    out.push(u32::from(stand_in));
                    out.extend(members.iter().map(|&b| u32::from(b)));
                    if !inside {
                        out.push(u32::from(b']'));
                    }
                    i = close + 1;
                    continue;
                }
            }
        }
        out.push(u32::from(c));
        i += 1;
    }
    out
}

/// A pattern llama.cpp cannot run (only possible for a malformed table entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadPattern;

impl PreTokenizer {
    pub(crate) fn new(pre: Pre) -> Result<PreTokenizer, BadPattern> {
        let (list, byte_encode) = patterns(pre);
        let collapse = list.iter().any(|p| uses_categories(p));
        let cutters = list
            .iter()
            .map(|p| {
                Ok(match p.as_str() {
                    GPT2 => Cutter::Gpt2,
                    LLAMA3 => Cutter::Llama3 {
                        max_digits: 3,
                        marks: false,
                    },
                    QWEN2 => Cutter::Llama3 {
                        max_digits: 1,
                        marks: false,
                    },
                    QWEN35 => Cutter::Llama3 {
                        max_digits: 1,
                        marks: true,
                    },
                    KIMI_K2 => Cutter::KimiK2,
                    AFMOE_DIGITS | TINY_AYA_DIGITS => Cutter::DigitGroups,
                    NEWLINES => Cutter::Newlines,
                    _ if uses_categories(p) => {
                        if !p.is_ascii() {
                            return Err(BadPattern);
                        }
                        let regex = Regex::new(&collapse_pattern(p.as_bytes())).map_err(|_| BadPattern)?;
                        Cutter::Regex {
                            regex,
                            collapsed: true,
                        }
                    }
                    _ => {
                        let units: Vec<u32> = p.chars().map(u32::from).collect();
                        Cutter::Regex {
                            regex: Regex::new(&units).map_err(|_| BadPattern)?,
                            collapsed: false,
                        }
                    }
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(PreTokenizer {
            cutters,
            collapse,
            byte_encode,
        })
    }

    /// Cuts `text` into words, calling `each` with each word's bytes (in GPT-2's byte map when
    /// the pre-tokenizer says so). Bytes that are not UTF-8 become U+FFFD first, as in llama.cpp.
    pub(crate) fn split(&self, text: &[u8], mut each: impl FnMut(&[u8])) {
        let cpts = unicode::code_points(text);
        let collapsed: Vec<u32> = if self.collapse {
            cpts.iter()
                .map(|&c| {
                    if c < 128 {
                        return c;
                    }
                    let f = unicode::flags(c);
                    if f.is_whitespace() {
                        0x0B
                    } else {
                        u32::from(category_stand_in(f.category()).map_or(0xD0, |(b, _)| b))
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut wide: Option<Vec<u32>> = None;
        let mut offsets = alloc::vec![cpts.len()];
        for cutter in &self.cutters {
            let mut next = Vec::with_capacity(offsets.len());
            match cutter {
                Cutter::Gpt2 => each_piece(&offsets, |a, b| gpt2(&cpts, a, b, &mut next)),
                Cutter::Llama3 { max_digits, marks } => each_piece(&offsets, |a, b| {
                    llama3(&cpts, a, b, *max_digits, *marks, &mut next)
                }),
                Cutter::KimiK2 => each_piece(&offsets, |a, b| kimi_k2(&cpts, a, b, &mut next)),
                Cutter::DigitGroups => each_piece(&offsets, |a, b| digit_groups(&cpts, a, b, &mut next)),
                Cutter::Newlines => each_piece(&offsets, |a, b| newlines(&cpts, a, b, &mut next)),
                Cutter::Regex {
                    regex,
                    collapsed: true,
                } => each_piece(&offsets, |a, b| regex_piece(regex, &collapsed[a..b], &mut next)),
                Cutter::Regex {
                    regex,
                    collapsed: false,
                } => {
                    let wide = wide.get_or_insert_with(|| {
                        cpts.iter()
                            .map(|&c| {
                                if c > 0x7F && unicode::flags(c).is_whitespace() {
                                    0x0B
                                } else {
                                    c
                                }
                            })
                            .collect()
                    });
                    each_piece(&offsets, |a, b| regex_piece(regex, &wide[a..b], &mut next))
                }
            }
            // llama.cpp keeps the previous cut when a hand-written splitter gives nothing (only
            // an all-empty input), and falls back to std::regex, which gives nothing either.
            if !next.is_empty() || matches!(cutter, Cutter::Regex { .. }) {
                offsets = next;
            }
        }
        let mut word = Vec::new();
        let mut start = 0;
        for len in offsets {
            word.clear();
            for &c in &cpts[start..start + len] {
                if self.byte_encode {
                    let (utf8, len) = unicode::utf8(c);
                    for &b in &utf8[..len] {
                        unicode::push_utf8(&mut word, unicode::byte_to_char(b));
                    }
                } else {
                    unicode::push_utf8(&mut word, c);
                }
            }
            start += len;
            each(&word);
        }
    }
}

fn each_piece(offsets: &[usize], mut f: impl FnMut(usize, usize)) {
    let mut start = 0;
    for &len in offsets {
        f(start, start + len);
        start += len;
    }
}

/// `unicode_regex_split_stl`: the matches, and the gaps between them, as lengths.
fn regex_piece(regex: &Regex, units: &[u32], out: &mut Vec<usize>) {
    let mut prev = 0;
    regex.matches(units, |start, end| {
        if start > prev {
            out.push(start - prev);
        }
        out.push(end - start);
        prev = end;
    });
    if prev < units.len() {
        out.push(units.len() - prev);
    }
}

/// A piece `cpts[a..b]` seen by a hand-written splitter: outside it there is nothing
/// (flags 0, an out-of-range code point).
struct Piece<'c> {
    cpts: &'c [u32],
    a: usize,
    b: usize,
    prev_end: usize,
}

const OUT_OF_RANGE: u32 = u32::MAX;

impl Piece<'_> {
    fn new(cpts: &[u32], a: usize, b: usize) -> Piece<'_> {
        Piece {
            cpts,
            a,
            b,
            prev_end: a,
        }
    }
    fn cpt(&self, pos: usize) -> u32 {
        if self.a <= pos && pos < self.b {
            self.cpts[pos]
        } else {
            OUT_OF_RANGE
        }
    }
    fn flags(&self, pos: usize) -> Flags {
        if self.a <= pos && pos < self.b {
            unicode::flags(self.cpts[pos])
        } else {
            Flags::NONE
        }
    }
    /// Ends a word at `end`; returns its length.
    fn add(&mut self, end: usize, out: &mut Vec<usize>) -> usize {
        let len = end - self.prev_end;
        if len > 0 {
            out.push(len);
        }
        self.prev_end = end;
        len
    }
    /// `'s 't 'm 'd 're 've 'll` at `pos` (lower-cased when `fold`): its length.
    fn contraction(&self, pos: usize, fold: bool) -> Option<usize> {
        if self.cpt(pos) != u32::from(b'\'') || pos + 1 >= self.b {
            return None;
        }
        let low = |c: u32| if fold { unicode::to_lower(c) } else { c };
        let next = low(self.cpt(pos + 1));
        if [b's', b't', b'm', b'd'].iter().any(|&c| next == u32::from(c)) {
            return Some(2);
        }
        if pos + 2 < self.b {
            let next2 = low(self.cpt(pos + 2));
            let pair = |x: u8, y: u8| next == u32::from(x) && next2 == u32::from(y);
            if pair(b'r', b'e') || pair(b'v', b'e') || pair(b'l', b'l') {
                return Some(3);
            }
        }
        None
    }
    /// Whitespace from `pos`: how many, and the end of the last `\r` or `\n` among them (0: none).
    fn whitespace(&self, pos: usize) -> (usize, usize) {
        let (mut n, mut last_newline) = (0, 0);
        while self.flags(pos + n).is_whitespace() {
            let c = self.cpt(pos + n);
            if c == u32::from(b'\r') || c == u32::from(b'\n') {
                last_newline = pos + n + 1;
            }
            n += 1;
        }
        (n, last_newline)
    }
    /// The end of llama3's last alternatives from `pos`, `\s*[\r\n]+|\s+(?!\S)|\s+`, or one
    /// character when no whitespace starts there.
    fn whitespace_end(&self, pos: usize) -> usize {
        match self.whitespace(pos) {
            (_, last_newline) if last_newline > 0 => last_newline,
            (n, _) if n > 1 && self.cpt(pos + n) != OUT_OF_RANGE => pos + n - 1,
            (0, _) => pos + 1,
            (n, _) => pos + n,
        }
    }
}

fn is_newline(c: u32) -> bool {
    c == u32::from(b'\r') || c == u32::from(b'\n')
}

/// llama.cpp's GPT-2 splitter: `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)`
/// and then `\s+`.
fn gpt2(cpts: &[u32], a: usize, b: usize, out: &mut Vec<usize>) {
    let mut p = Piece::new(cpts, a, b);
    let mut pos = a;
    while pos < b {
        let cpt = p.cpt(pos);
        let flags = p.flags(pos);
        if let Some(n) = p.contraction(pos, false) {
            pos += p.add(pos + n, out);
            continue;
        }
        let space = cpt == u32::from(b' ');
        let mut f2 = if space { p.flags(pos + 1) } else { flags };
        if f2.is_letter() || f2.is_number() {
            let letter = f2.is_letter();
            pos += usize::from(space);
            while if letter { f2.is_letter() } else { f2.is_number() } {
                pos += 1;
                f2 = p.flags(pos);
            }
            p.add(pos, out);
            continue;
        }
        let other = |f: Flags| !(f.is_whitespace() || f.is_letter() || f.is_number()) && f.bits() != 0;
        if other(f2) {
            pos += usize::from(space);
            while other(f2) {
                pos += 1;
                f2 = p.flags(pos);
            }
            p.add(pos, out);
            continue;
        }
        let (n, _) = p.whitespace(pos);
        if n > 1 && p.cpt(pos + n) != OUT_OF_RANGE {
            pos += n - 1;
            p.add(pos, out);
            continue;
        }
        if n > 0 {
            pos += n;
            p.add(pos, out);
            continue;
        }
        pos += 1;
        p.add(pos, out);
    }
}

/// llama.cpp's llama3 splitter (`\p{N}{1,3}`), and its qwen2 (`\p{N}`) and qwen35 (letter runs
/// take `\p{M}`) variants.
fn llama3(cpts: &[u32], a: usize, b: usize, max_digits: usize, marks: bool, out: &mut Vec<usize>) {
    let mut p = Piece::new(cpts, a, b);
    let wordish = |f: Flags| f.is_letter() || (marks && f.is_accent_mark());
    let mut pos = a;
    while pos < b {
        let cpt = p.cpt(pos);
        let flags = p.flags(pos);
        if let Some(n) = p.contraction(pos, true) {
            pos += p.add(pos + n, out);
            continue;
        }
        if !(is_newline(cpt) || flags.is_number()) && (wordish(flags) || wordish(p.flags(pos + 1))) {
            pos += 1;
            while wordish(p.flags(pos)) {
                pos += 1;
            }
            p.add(pos, out);
            continue;
        }
        if flags.is_number() {
            let mut ini = pos;
            while p.flags(pos).is_number() {
                pos += 1;
                if pos - ini >= max_digits {
                    p.add(pos, out);
                    ini = pos;
                }
            }
            p.add(pos, out);
            continue;
        }
        let space = cpt == u32::from(b' ');
        let mut f2 = if space { p.flags(pos + 1) } else { flags };
        let other = |f: Flags| {
            !(f.is_whitespace() || f.is_letter() || (marks && f.is_accent_mark()) || f.is_number())
        };
        // llama.cpp tests the first character's flags here, not the one after the space.
        if other(f2) && flags.bits() != 0 {
            pos += usize::from(space);
            while other(f2) && f2.bits() != 0 {
                pos += 1;
                f2 = p.flags(pos);
            }
            while is_newline(p.cpt(pos)) {
                pos += 1;
            }
            p.add(pos, out);
            continue;
        }
        pos = p.whitespace_end(pos);
        p.add(pos, out);
    }
}

/// llama.cpp's Kimi-K2 splitter: Han runs, then letter words without Han with contractions,
/// digits by three, and the llama3 rest.
fn kimi_k2(cpts: &[u32], a: usize, b: usize, out: &mut Vec<usize>) {
    let mut p = Piece::new(cpts, a, b);
    let mut pos = a;
    while pos < b {
        let cpt = p.cpt(pos);
        let flags = p.flags(pos);
        if unicode::is_han(cpt) {
            while unicode::is_han(p.cpt(pos)) {
                pos += 1;
            }
            p.add(pos, out);
            continue;
        }
        let letter = |pos: usize| p.flags(pos).is_letter() && !unicode::is_han(p.cpt(pos));
        let leading = !(is_newline(cpt) || flags.is_letter() || flags.is_number());
        if (flags.is_letter() && !unicode::is_han(cpt)) || (leading && letter(pos + 1)) {
            if leading {
                pos += 1;
            }
            let mut has_letters = false;
            while letter(pos) {
                has_letters = true;
                pos += 1;
            }
            if has_letters || (!leading && letter(pos)) {
                if !has_letters {
                    pos += 1;
                }
                while letter(pos) {
                    pos += 1;
                }
                if let Some(n) = p.contraction(pos, true) {
                    pos += n;
                }
                p.add(pos, out);
                continue;
            } else if leading {
                pos -= 1;
            }
        }
        if flags.is_number() {
            let mut ini = pos;
            while p.flags(pos).is_number() {
                pos += 1;
                if pos - ini >= 3 {
                    p.add(pos, out);
                    ini = pos;
                }
            }
            p.add(pos, out);
            continue;
        }
        let space = cpt == u32::from(b' ');
        let mut f2 = if space { p.flags(pos + 1) } else { flags };
        let other = |f: Flags| !(f.is_whitespace() || f.is_letter() || f.is_number()) && f.bits() != 0;
        if other(f2) {
            pos += usize::from(space);
            while other(f2) {
                pos += 1;
                f2 = p.flags(pos);
            }
            while is_newline(p.cpt(pos)) {
                pos += 1;
            }
            p.add(pos, out);
            continue;
        }
        pos = p.whitespace_end(pos);
        p.add(pos, out);
    }
}

/// llama.cpp's AFMoE digit splitter: a digit run cut into groups of three from the right;
/// everything between runs stays one piece.
fn digit_groups(cpts: &[u32], a: usize, b: usize, out: &mut Vec<usize>) {
    let mut p = Piece::new(cpts, a, b);
    let mut pos = a;
    while pos < b {
        if p.flags(pos).is_number() {
            let start = pos;
            while pos < b && p.flags(pos).is_number() {
                pos += 1;
            }
            let count = pos - start;
            let mut current = start;
            if count % 3 > 0 {
                current += count % 3;
                p.add(current, out);
            }
            while current < start + count {
                current += 3;
                p.add(current, out);
            }
            continue;
        }
        pos += 1;
    }
    if p.prev_end < b {
        p.add(b, out);
    }
}

/// `[^\n]+|[\n]+`: runs of newlines and runs of everything else.
fn newlines(cpts: &[u32], a: usize, b: usize, out: &mut Vec<usize>) {
    let mut pos = a;
    while pos < b {
        let nl = cpts[pos] == u32::from(b'\n');
        let start = pos;
        while pos < b && (cpts[pos] == u32::from(b'\n')) == nl {
            pos += 1;
        }
        out.push(pos - start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;

    fn words(pre: Pre, text: &str) -> Vec<String> {
        let t = PreTokenizer::new(pre).unwrap();
        let mut out = Vec::new();
        t.split(text.as_bytes(), |w| {
            out.push(String::from_utf8(w.to_vec()).unwrap())
        });
        out
    }

    #[test]
    fn every_pre_tokenizer_compiles() {
        for name in gguf_core::testkit::PRE_NAMES {
            let (pre, _) = pre_for_name(name).unwrap();
            for p in patterns(pre).0 {
                let units: Vec<u32> = if uses_categories(&p) {
                    collapse_pattern(p.as_bytes())
                } else {
                    p.chars().map(u32::from).collect()
                };
                if let Err(e) = Regex::new(&units) {
                    panic!("{name}: {p} at {}", e.0);
                }
            }
            PreTokenizer::new(pre).unwrap();
        }
        assert!(pre_for_name("no-such-pre").is_none());
    }

    #[test]
    fn gpt2_words_in_the_byte_map() {
        assert_eq!(
            words(Pre::Gpt2, "Hello world's  x"),
            ["Hello", "Ġworld", "'s", "Ġ", "Ġx"]
        );
    }

    #[test]
    fn collapsed_patterns() {
        assert_eq!(
            collapse_pattern(br"\p{N}"),
            [u32::from(b'['), 0xD1, 0x30, 0x2D, 0x39, u32::from(b']')]
        );
        assert_eq!(words(Pre::Starcoder, "ab 123"), ["ab", "Ġ", "1", "2", "3"]);
    }
}
