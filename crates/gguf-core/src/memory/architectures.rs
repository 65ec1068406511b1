//! What llama.cpp 0c1e570 knows of each architecture, as far as its memory goes: the names it
//! loads (`LLM_ARCH_NAMES`), those whose memory ggufscope does not size and why, and those whose
//! figures ggufscope holds to llama.cpp's own (`tests/reference/memory`).

use super::MemoryError;

/// Every architecture llama.cpp 0c1e570 loads; it refuses any other ("unknown model
/// architecture").
const LLAMA_CPP: [&str; 153] = [
    "clip",
    "llama",
    "llama4",
    "deci",
    "falcon",
    "grok",
    "gpt2",
    "gptj",
    "gptneox",
    "mpt",
    "baichuan",
    "starcoder",
    "refact",
    "bert",
    "modern-bert",
    "nomic-bert",
    "nomic-bert-moe",
    "neo-bert",
    "jina-bert-v2",
    "jina-bert-v3",
    "eurobert",
    "bloom",
    "stablelm",
    "qwen",
    "qwen2",
    "qwen2moe",
    "qwen2vl",
    "qwen3",
    "qwen3moe",
    "qwen3next",
    "qwen3vl",
    "qwen3vlmoe",
    "qwen35",
    "qwen35moe",
    "qwen4exp",
    "phi2",
    "phi3",
    "phimoe",
    "plamo",
    "plamo2",
    "plamo3",
    "codeshell",
    "orion",
    "internlm2",
    "minicpm",
    "minicpm3",
    "gemma",
    "gemma2",
    "gemma3",
    "gemma3n",
    "gemma4",
    "gemma4-assistant",
    "gemma-embedding",
    "starcoder2",
    "mamba",
    "mamba2",
    "maple",
    "jamba",
    "falcon-h1",
    "xverse",
    "command-r",
    "cohere2",
    "cohere2moe",
    "dbrx",
    "olmo",
    "olmo2",
    "olmoe",
    "muse-glimmer",
    "openelm",
    "arctic",
    "deepseek",
    "deepseek2",
    "deepseek2-ocr",
    "deepseek32",
    "deepseek4",
    "chatglm",
    "glm4",
    "glm4moe",
    "glm-dsa",
    "bitnet",
    "t5",
    "t5encoder",
    "jais",
    "jais2",
    "nemotron",
    "nemotron_h",
    "nemotron_h_moe",
    "exaone",
    "exaone4",
    "exaone-moe",
    "rwkv6",
    "rwkv6qwen2",
    "rwkv7",
    "arwkv7",
    "granite",
    "granitemoe",
    "granitehybrid",
    "graniteswitch",
    "granite_swa",
    "chameleon",
    "wavtokenizer-dec",
    "plm",
    "bailingmoe",
    "bailingmoe2",
    "bailingmoe3",
    "dots1",
    "dots3note",
    "arcee",
    "afmoe",
    "laguna",
    "ernie4_5",
    "ernie4_5-moe",
    "hunyuan-moe",
    "hunyuan-dense",
    "hunyuan_vl",
    "hy_v3",
    "hy_v4",
    "smollm3",
    "gpt-oss",
    "lfm2",
    "lfm2moe",
    "dream",
    "smallthinker",
    "llada",
    "llada-moe",
    "seed_oss",
    "grovemoe",
    "apertus",
    "minimax-01",
    "hrm_text",
    "minimax-m2",
    "minimax-m3",
    "cogvlm",
    "rnd1",
    "pangu-embedded",
    "mistral3",
    "eagle3",
    "dflash",
    "mistral4",
    "paddleocr",
    "mimo2",
    "step35",
    "spark2_5",
    "llama-embed",
    "maincoder",
    "kimi-linear",
    "kimi-k3",
    "glm5-next",
    "talkie",
    "mellum",
    "nanbeige",
    "qwen3tts",
    "pockettts",
];

/// Architectures whose memory llama.cpp builds by rules ggufscope does not follow, and why.
const NOT_SIZED: [(&str, &str); 13] = [
    (
        "deepseek32",
        "it keeps its indexer's keys in a cache of their own beside the latent attention cache (llama_kv_cache_dsa)",
    ),
    (
        "glm-dsa",
        "it keeps its indexer's keys in a cache of their own beside the latent attention cache (llama_kv_cache_dsa)",
    ),
    (
        "dots3note",
        "it keeps its indexer's keys in a cache of their own beside the latent attention and sliding-window caches (llama_kv_cache_dsa_iswa)",
    ),
    (
        "minimax-m3",
        "it keeps its sparse layers' indexer keys in a cache of their own (llama_kv_cache_msa)",
    ),
    (
        "deepseek4",
        "it compresses its cache by rules of its own (llama_kv_cache_dsv4)",
    ),
    (
        "qwen4exp",
        "it keeps its indexer's keys beside its hybrid cache (llama_memory_hybrid_idx) and mixes hyper-connections",
    ),
    (
        "glm5-next",
        "it keeps an indexer's keys beside its hybrid cache (llama_memory_hybrid_idx)",
    ),
    (
        "t5",
        "it is an encoder-decoder, whose decoder cache and encoder output llama.cpp sizes by rules of their own",
    ),
    (
        "t5encoder",
        "it is the encoder of an encoder-decoder, which llama.cpp runs by rules of its own",
    ),
    (
        "graniteswitch",
        "it adds a router layer for its adapters to the cache",
    ),
    (
        "wavtokenizer-dec",
        "it is an audio decoder (WavTokenizer), not a language model",
    ),
    (
        "eagle3",
        "it is a draft model, run beside the model it drafts for (-md)",
    ),
    (
        "dflash",
        "it is a draft model, run beside the model it drafts for (-md)",
    ),
];

/// Architectures whose figures are in llama.cpp's reference data: their compute estimate is
/// held within 10%; other architectures' is the same model of the graph, with a wider range.
const REFERENCE: [&str; 19] = [
    "llama",
    "gemma3",
    "deepseek2",
    "mamba",
    "lfm2",
    "qwen3",
    "qwen3moe",
    "command-r",
    "phi3",
    "gemma2",
    "gemma4",
    "gpt-oss",
    "llama4",
    "bert",
    "rwkv6",
    "rwkv7",
    "qwen3next",
    "granitehybrid",
    "falcon-h1",
];

/// Whether ggufscope sizes `arch`'s memory: an error saying why not, or llama.cpp's refusal.
/// `indexer` is whether the file gives an indexer (Hunyuan V4's `attention.indexer.top_k` not 0),
/// which turns its cache into one ggufscope does not size.
pub(crate) fn check(arch: &str, indexer: bool) -> Result<(), MemoryError> {
    if !LLAMA_CPP.contains(&arch) {
        return Err(MemoryError::UnknownArchitecture {
            architecture: arch.into(),
        });
    }
    match arch {
        "clip" => Err(MemoryError::Refused {
            reason: "CLIP cannot be used as main model, use it with --mmproj instead",
        }),
        "gemma4-assistant" => Err(MemoryError::Refused {
            reason: "Gemma4Assistant requires ctx_other to be set: it runs beside its Gemma 4 model (-md)",
        }),
        "hy_v4" if indexer => Err(MemoryError::NotSized {
            architecture: arch.into(),
            reason: "with an indexer it keeps the indexer's keys in a cache of their own (llama_kv_cache_dsa)",
        }),
        _ => match NOT_SIZED.iter().find(|(a, _)| *a == arch) {
            Some(&(_, reason)) => Err(MemoryError::NotSized {
                architecture: arch.into(),
                reason,
            }),
            None => Ok(()),
        },
    }
}

/// Whether `arch`'s figures are held to llama.cpp's reference data.
pub(crate) fn in_reference(arch: &str) -> bool {
    REFERENCE.contains(&arch)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `LLM_ARCH_NAMES` of llama.cpp 0c1e570's `src/llama-arch.cpp`, in its order, as
    /// `scripts/reference/llama-arch-names.py` writes it.
    const REFERENCE_NAMES: &str =
        include_str!("../../../../tests/reference/memory/llama-arch-names-0c1e570.txt");

    #[test]
    fn the_names_are_llama_cpps() {
        let names: alloc::vec::Vec<&str> = REFERENCE_NAMES.lines().collect();
        assert_eq!(LLAMA_CPP.as_slice(), names.as_slice());
    }

    #[test]
    fn what_is_not_sized_or_in_the_reference_is_an_architecture_llama_cpp_loads() {
        for (arch, _) in NOT_SIZED {
            assert!(LLAMA_CPP.contains(&arch), "{arch}");
            assert!(!REFERENCE.contains(&arch), "{arch}");
        }
        for arch in REFERENCE {
            assert!(LLAMA_CPP.contains(&arch), "{arch}");
            assert_eq!(check(arch, false), Ok(()), "{arch}");
        }
    }
}
