//! llama-server's options that change what it allocates, as `info` and `fit` take them: named
//! and meaning as llama.cpp's (`--ctx` is `-c`, `--ctk` is `-ctk`, …), with its defaults.

use gguf_core::memory::{CacheType, FlashAttention, Options};

/// `--ctx`, `--ctk`, `--ctv`, `--flash-attn`, `--parallel`, `--ubatch`, `--kv-unified`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MemoryArgs {
    /// llama.cpp's -c: tokens of context for all sequences together; 0 for the model's trained
    /// context (per sequence without a unified cache) [default: 0].
    #[arg(long, value_name = "N")]
    ctx: Option<u64>,
    /// llama.cpp's -ctk: the K cache's type [default: f16].
    #[arg(long, value_name = "TYPE", value_parser = cache_type)]
    ctk: Option<CacheType>,
    /// llama.cpp's -ctv: the V cache's type [default: f16].
    #[arg(long, value_name = "TYPE", value_parser = cache_type)]
    ctv: Option<CacheType>,
    /// llama.cpp's -fa: on, off or auto (on a CPU, auto runs flash attention) [default: auto].
    #[arg(long, value_name = "WHEN", value_parser = flash_attn)]
    flash_attn: Option<FlashAttention>,
    /// llama.cpp's -np: sequences decoded at once [default: auto, 4 sharing one cache].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    parallel: Option<u32>,
    /// llama.cpp's -ub: tokens of one physical batch [default: 512].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    ubatch: Option<u32>,
    /// llama.cpp's --kv-unified: one KV cache for all sequences.
    #[arg(long)]
    kv_unified: bool,
}

fn cache_type(name: &str) -> Result<CacheType, String> {
    CacheType::from_name(name).ok_or_else(|| {
        let all: Vec<&str> = CacheType::ALL.iter().map(|t| t.name()).collect();
        format!("llama.cpp takes {}", all.join(", "))
    })
}

fn flash_attn(name: &str) -> Result<FlashAttention, String> {
    FlashAttention::from_name(name).ok_or_else(|| "llama.cpp takes on, off or auto".to_string())
}

impl MemoryArgs {
    /// Whether any option was given.
    pub fn given(&self) -> bool {
        self.ctx.is_some()
            || self.ctk.is_some()
            || self.ctv.is_some()
            || self.flash_attn.is_some()
            || self.parallel.is_some()
            || self.ubatch.is_some()
            || self.kv_unified
    }

    /// The core's options: llama-server's defaults but for what was given.
    pub fn options(&self) -> Options {
        let d = Options::default();
        Options {
            ctx: self.ctx.unwrap_or(d.ctx),
            parallel: self.parallel.or(d.parallel),
            kv_unified: self.kv_unified || d.kv_unified,
            type_k: self.ctk.unwrap_or(d.type_k),
            type_v: self.ctv.unwrap_or(d.type_v),
            flash_attn: self.flash_attn.unwrap_or(d.flash_attn),
            n_ubatch: self.ubatch.unwrap_or(d.n_ubatch),
            n_batch: d.n_batch,
        }
    }
}
