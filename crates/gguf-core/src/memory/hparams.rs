//! The hyperparameters llama.cpp sizes its buffers from, read from the header as its loader
//! reads them (`llama_model_base::load_hparams`, `llama-hparams.cpp` and each architecture's
//! `load_arch_hparams` in `src/models/`): per-layer head counts and head sizes, which layers
//! slide and which are recurrent, multi-head latent attention's sizes, the recurrent state's
//! widths.

use alloc::string::String;
use alloc::vec::Vec;

use super::{MemoryError, architectures};
use crate::header::{Header, LayerValues, Value};
use crate::keys::{self, arch as key};

/// More layers than llama.cpp loads (`LLAMA_MAX_LAYERS`).
pub const MAX_LAYERS: u64 = 512;

/// How the model keeps its past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum MemoryKind {
    /// A KV cache (one, or a global and a sliding-window one).
    KvCache,
    /// A recurrent state only (Mamba, RWKV).
    Recurrent,
    /// Both: attention layers with a KV cache, recurrent layers with a state (Jamba, LFM2, …).
    Hybrid,
    /// Neither: an encoder (BERT and its kin) or a diffusion model, which llama.cpp runs
    /// without memory.
    None,
}

/// What llama.cpp reads from the header to size its buffers.
#[derive(Debug, Clone)]
pub(crate) struct HParams {
    pub arch: String,
    /// Layers, with the next-token-prediction (MTP) layers at the end.
    pub n_layer_all: usize,
    /// The MTP layers, which the main context's cache leaves out.
    pub n_layer_nextn: usize,
    pub n_ctx_train: u64,
    pub n_embd: u64,
    pub n_vocab: u64,
    pub n_head: Vec<u64>,
    pub n_head_kv: Vec<u64>,
    pub head_k_full: u64,
    pub head_v_full: u64,
    pub head_k_swa: u64,
    pub head_v_swa: u64,
    pub n_swa: u64,
    pub is_swa: Vec<bool>,
    pub is_recr: Vec<bool>,
    /// Layers with attention, so in the KV cache (a hybrid's filter: not its recurrent layers,
    /// all of Falcon-H1's, neither Nemotron-H's recurrent nor its MLP layers).
    pub is_attn: Vec<bool>,
    /// Layers from the first that have their own KV cache (Gemma 3n and 4 share the rest).
    pub n_layer_kv: usize,
    /// Multi-head latent attention: `key_length_mla`/`value_length_mla` given; K only.
    pub mla: bool,
    pub kind: MemoryKind,
    /// Recurrent state widths per layer and sequence, in f32 values.
    pub n_embd_r: u64,
    pub n_embd_s: u64,
    pub n_expert_used: u64,
    /// The feed-forward blocks, as the tensor table shapes them.
    pub ffn: Ffn,
    /// The mixer of the recurrent layers and its sizes.
    pub ssm: Ssm,
    /// Values per token and layer of per-layer token embeddings (Gemma 3n and 4), else 0.
    pub n_embd_per_layer: u64,
}

/// The feed-forward blocks llama.cpp builds, read from the tensors the loader takes
/// (`ffn_down`'s input width is the hidden size whatever the hyperparameters say).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Ffn {
    /// The hidden size of the widest dense block (`ffn_down`), 0 without one.
    pub dense: u64,
    /// Whether the dense blocks are gated (`ffn_gate`, or `ffn_up` twice as wide: gate and up in
    /// one matrix); BERT's and GPT-2's are not.
    pub gated: bool,
    /// The hidden size of one routed expert (`ffn_down_exps`), 0 without experts.
    pub expert: u64,
    /// The hidden size of the shared expert (`ffn_down_shexp`), 0 without one.
    pub shared: u64,
}

/// How a recurrent layer mixes tokens, as llama.cpp's graph for the architecture does it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Mixer {
    /// No recurrent layers.
    #[default]
    None,
    /// Mamba's selective scan (Mamba, Jamba).
    Mamba,
    /// Mamba 2's grouped scan (Mamba 2, Granite hybrid, Falcon-H1, Nemotron-H).
    Mamba2,
    /// A gated delta net (Qwen 3 Next, Qwen 3.5, Kimi Linear).
    DeltaNet,
    /// A short convolution (LFM2).
    ShortConv,
    /// RWKV 6's time mix.
    Rwkv6,
    /// RWKV 7's time mix.
    Rwkv7,
}

/// A recurrent mixer and its widths.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Ssm {
    pub mixer: Mixer,
    /// `ssm.inner_size`.
    pub d_inner: u64,
    /// `ssm.state_size`.
    pub d_state: u64,
    /// `ssm.group_count`.
    pub n_group: u64,
    /// `ssm.time_step_rank`: Mamba 2's heads.
    pub dt_rank: u64,
}

impl Mixer {
    fn of(arch: &str) -> Mixer {
        match arch {
            "mamba" | "jamba" => Mixer::Mamba,
            "mamba2" | "granitehybrid" | "falcon-h1" | "nemotron_h" | "nemotron_h_moe" => Mixer::Mamba2,
            "qwen3next" | "qwen35" | "qwen35moe" | "kimi-linear" => Mixer::DeltaNet,
            "lfm2" | "lfm2moe" => Mixer::ShortConv,
            "rwkv6" | "rwkv6qwen2" => Mixer::Rwkv6,
            "rwkv7" | "arwkv7" => Mixer::Rwkv7,
            _ => Mixer::None,
        }
    }
}

impl Ffn {
    /// The blocks of `header`'s tensor table.
    fn read(header: &Header) -> Ffn {
        let mut ffn = Ffn::default();
        let mut up_widest = 0;
        for t in &header.tensors {
            let Some(name) = t.name.as_str().and_then(|n| n.strip_prefix("blk.")) else {
                continue;
            };
            let Some((_, tensor)) = name.split_once('.') else {
                continue;
            };
            let first = t.dims.first().copied().unwrap_or(0);
            let second = t.dims.get(1).copied().unwrap_or(0);
            match tensor {
                "ffn_down.weight" => ffn.dense = ffn.dense.max(first),
                "ffn_up.weight" => up_widest = up_widest.max(second),
                "ffn_gate.weight" => ffn.gated = true,
                "ffn_down_exps.weight" => ffn.expert = ffn.expert.max(first),
                "ffn_down_shexp.weight" => ffn.shared = ffn.shared.max(first),
                _ => {}
            }
        }
        ffn.gated |= ffn.dense > 0 && up_widest == 2 * ffn.dense;
        ffn
    }
}

/// Architectures llama.cpp runs as recurrent models (`llm_arch_is_recurrent`).
const RECURRENT: [&str; 6] = ["mamba", "mamba2", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7"];

/// Hybrid architectures (`llm_arch_is_hybrid`).
const HYBRID: [&str; 18] = [
    "jamba",
    "falcon-h1",
    "plamo2",
    "granitehybrid",
    "lfm2",
    "lfm2moe",
    "nemotron_h",
    "nemotron_h_moe",
    "qwen3next",
    "kimi-linear",
    "bailingmoe3",
    "kimi-k3",
    "glm5-next",
    "qwen35",
    "qwen35moe",
    "qwen4exp",
    "deepseek4",
    "minimax-01",
];

/// Architectures llama.cpp gives no memory (`create_memory`'s first case).
const NO_MEMORY: [&str; 14] = [
    "bert",
    "jina-bert-v2",
    "jina-bert-v3",
    "nomic-bert",
    "nomic-bert-moe",
    "neo-bert",
    "eurobert",
    "wavtokenizer-dec",
    "modern-bert",
    "gemma-embedding",
    "dream",
    "llada",
    "llada-moe",
    "rnd1",
];

/// Sliding-window architectures whose pattern has a built-in period: (architecture, period,
/// dense first), from each `load_arch_hparams`' `load_swa_pattern(ml, period, dense_first)`.
/// Layer `i` slides unless `i % period == period - 1` (dense first: unless `i % period == 0`);
/// `attention.sliding_window_pattern` in the file overrides the period or gives a flag per layer.
const SWA_PERIODS: [(&str, u64, bool); 16] = [
    ("afmoe", 4, false),
    ("cohere2", 4, false),
    ("cohere2moe", 4, true),
    ("exaone-moe", 4, false),
    ("exaone4", 4, false),
    ("gemma2", 2, false),
    ("gemma3", 6, false),
    ("gemma3n", 5, false),
    ("laguna", 4, true),
    ("llama4", 4, false),
    ("mellum", 4, false),
    ("muse-glimmer", 4, false),
    ("olmo2", 4, false),
    ("gpt-oss", 2, false),
    ("plamo3", 8, false),
    ("smallthinker", 4, true),
];

/// Sliding-window architectures that read their layers from the file's pattern only.
const SWA_FROM_FILE: [&str; 7] = [
    "gemma4",
    "granite_swa",
    "maple",
    "mimo2",
    "step35",
    "spark2_5",
    "lfm2",
];

impl HParams {
    pub(crate) fn read(header: &Header) -> Result<HParams, MemoryError> {
        let m = &header.metadata;
        let arch = String::from(m.architecture().ok_or(MemoryError::NoArchitecture)?);
        let u = |suffix: &str| m.arch_get(suffix).and_then(Value::as_u64);
        let indexer = arch == "hy_v4" && u("attention.indexer.top_k").is_some_and(|k| k > 0);
        architectures::check(&arch, indexer)?;
        let n_layer_file = u(key::BLOCK_COUNT).ok_or(MemoryError::NoLayers)?;
        // Nanbeige runs its layers `num_loops` times, each pass with a cache of its own.
        let loops = match arch.as_str() {
            "nanbeige" => u("num_loops").unwrap_or(1).max(1),
            _ => 1,
        };
        let n_layer_all = n_layer_file.saturating_mul(loops);
        if n_layer_all == 0 || n_layer_all > MAX_LAYERS {
            return Err(MemoryError::TooManyLayers { layers: n_layer_all });
        }
        let n = n_layer_all as usize;
        let n_layer_nextn = (u("nextn_predict_layers").unwrap_or(0) as usize).min(n);
        let n_ctx_train = u(key::CONTEXT_LENGTH).ok_or(MemoryError::NoContextLength)?;
        let n_embd = u(key::EMBEDDING_LENGTH).ok_or(MemoryError::NoEmbedding)?;
        let n_vocab = match m.get(keys::TOKENS) {
            Some(Value::Array(a)) => a.len() as u64,
            _ => u(key::VOCAB_SIZE).unwrap_or(0),
        };
        // Per-layer values are the file's layers', repeated for each loop.
        let per_layer = |suffix: &'static str| -> Result<Option<Vec<u64>>, MemoryError> {
            let Some(values) = m.arch_layers(suffix) else {
                return Ok(None);
            };
            let file =
                fill(&values, n_layer_file as usize).ok_or(MemoryError::ShortLayerArray { key: suffix })?;
            Ok(Some(file.iter().copied().cycle().take(n).collect()))
        };
        let layers = |suffix: &'static str, default: u64| -> Result<Vec<u64>, MemoryError> {
            Ok(per_layer(suffix)?.unwrap_or_else(|| alloc::vec![default; n]))
        };
        let n_head = layers(key::HEAD_COUNT, 0)?;
        let n_head_kv = per_layer(key::HEAD_COUNT_KV)?.unwrap_or_else(|| n_head.clone());
        let n_ff = layers(key::FEED_FORWARD_LENGTH, 0)?;
        let (head_k_full, head_v_full) = match n_head[0] {
            0 => (0, 0),
            h => (
                u(key::KEY_LENGTH).unwrap_or(n_embd / h),
                u(key::VALUE_LENGTH).unwrap_or(n_embd / h),
            ),
        };
        let head_k_swa = u(key::KEY_LENGTH_SWA).unwrap_or(head_k_full);
        let head_v_swa = u(key::VALUE_LENGTH_SWA).unwrap_or(head_v_full);

        let kind = if NO_MEMORY.contains(&arch.as_str()) {
            MemoryKind::None
        } else if RECURRENT.contains(&arch.as_str()) {
            MemoryKind::Recurrent
        } else if HYBRID.contains(&arch.as_str()) {
            MemoryKind::Hybrid
        } else {
            MemoryKind::KvCache
        };
        let is_recr = recurrent_layers(header, &arch, kind, n, n_layer_nextn, &n_head_kv, &n_ff);

        let is_attn: Vec<bool> = (0..n)
            .map(|i| match (kind, arch.as_str()) {
                (MemoryKind::Hybrid, "falcon-h1") => true,
                (MemoryKind::Hybrid, "nemotron_h" | "nemotron_h_moe") => !is_recr[i] && n_ff[i] == 0,
                (MemoryKind::Hybrid, _) => !is_recr[i],
                (MemoryKind::KvCache, _) => true,
                _ => false,
            })
            .collect();
        let n_swa = window(&arch, u(key::SLIDING_WINDOW));
        let is_swa = sliding_layers(header, &arch, n, n_layer_nextn, n_swa, &is_recr);

        let n_layer_kv = match arch.as_str() {
            "gemma3n" => 20.min(n),
            "gemma4" => n.saturating_sub(u("attention.shared_kv_layers").unwrap_or(0) as usize),
            _ => n,
        };
        let mla = u("attention.key_length_mla").is_some_and(|v| v > 0)
            && u(key::VALUE_LENGTH_MLA).is_some_and(|v| v > 0);

        // llama-hparams.cpp's n_embd_r()/n_embd_s().
        let wkv_head = u(key::WKV_HEAD_SIZE).unwrap_or(0);
        let shortconv = u("shortconv.l_cache").unwrap_or(0);
        let d_conv = u(key::SSM_CONV_KERNEL).unwrap_or(0);
        let d_inner = u("ssm.inner_size").unwrap_or(0);
        let d_state = u(key::SSM_STATE_SIZE).unwrap_or(0);
        let n_group = u("ssm.group_count").unwrap_or(0);
        let kda = u("kda.head_dim").unwrap_or(0);
        let (n_embd_r, n_embd_s) = if wkv_head != 0 {
            (u("token_shift_count").unwrap_or(2) * n_embd, n_embd * wkv_head)
        } else if shortconv != 0 {
            (n_embd * (shortconv - 1), d_state * d_inner)
        } else if kda != 0 {
            // Kimi's delta attention: a convolution state for Q, K and V, a matrix per head.
            let conv = if d_conv > 0 { d_conv - 1 } else { 3 };
            (3 * conv * n_head[0] * kda, kda * kda * n_head[0])
        } else if arch == "minimax-01" {
            // Lightning attention's state: a matrix per head.
            (
                d_conv.saturating_sub(1) * (d_inner + 2 * n_group * d_state),
                head_k_full * head_k_full * n_head[0],
            )
        } else {
            (
                d_conv.saturating_sub(1) * (d_inner + 2 * n_group * d_state),
                d_state * d_inner,
            )
        };

        Ok(HParams {
            n_layer_all: n,
            n_layer_nextn,
            n_ctx_train,
            n_embd,
            n_vocab,
            n_head,
            n_head_kv,
            head_k_full,
            head_v_full,
            head_k_swa,
            head_v_swa,
            n_swa,
            is_swa,
            is_recr,
            is_attn,
            n_layer_kv,
            mla,
            kind,
            n_embd_r,
            n_embd_s,
            n_expert_used: m
                .arch_layers(key::EXPERT_USED_COUNT)
                .and_then(|v| v.for_layers(n))
                .and_then(|v| v.into_iter().max())
                .unwrap_or(0),
            ffn: Ffn::read(header),
            ssm: Ssm {
                mixer: Mixer::of(&arch),
                d_inner,
                d_state,
                n_group,
                dt_rank: u("ssm.time_step_rank").unwrap_or(0),
            },
            n_embd_per_layer: u("embedding_length_per_layer_input").unwrap_or(0),
            arch,
        })
    }

    /// Layers of the main model (the MTP layers left out).
    pub fn n_layer(&self) -> usize {
        self.n_layer_all - self.n_layer_nextn
    }

    pub fn head_k(&self, il: usize) -> u64 {
        if self.is_swa[il] {
            self.head_k_swa
        } else {
            self.head_k_full
        }
    }

    pub fn head_v(&self, il: usize) -> u64 {
        if self.is_swa[il] {
            self.head_v_swa
        } else {
            self.head_v_full
        }
    }

    /// K values per token in layer `il`, all KV heads.
    pub fn n_embd_k_gqa(&self, il: usize) -> u64 {
        self.head_k(il) * self.n_head_kv[il]
    }

    /// V values per token in layer `il`.
    pub fn n_embd_v_gqa(&self, il: usize) -> u64 {
        self.head_v(il) * self.n_head_kv[il]
    }

    /// The widest V row of any layer: without flash attention V is stored transposed, every
    /// layer padded to it (llama.cpp's `[TAG_V_CACHE_VARIABLE]`).
    pub fn n_embd_v_gqa_max(&self) -> u64 {
        (0..self.n_layer_all)
            .map(|il| self.n_embd_v_gqa(il))
            .max()
            .unwrap_or(0)
    }

    /// Whether the model is causal (encoders are not; their batch is not bounded by the context).
    pub fn causal(&self) -> bool {
        self.kind != MemoryKind::None
    }
}

/// One value per layer, a single value repeated; `None` when an array is shorter.
fn fill(values: &LayerValues, n: usize) -> Option<Vec<u64>> {
    values.for_layers(n)
}

/// llama.cpp's `is_recr` per layer.
fn recurrent_layers(
    header: &Header,
    arch: &str,
    kind: MemoryKind,
    n: usize,
    nextn: usize,
    n_head_kv: &[u64],
    n_ff: &[u64],
) -> Vec<bool> {
    let trunk = n - nextn;
    match kind {
        MemoryKind::Recurrent => alloc::vec![true; n],
        MemoryKind::Hybrid => match arch {
            "falcon-h1" => alloc::vec![true; n],
            "nemotron_h" | "nemotron_h_moe" => (0..n)
                .map(|i| i < trunk && n_head_kv[i] == 0 && n_ff[i] == 0)
                .collect(),
            "qwen3next" | "qwen35" | "qwen35moe" | "qwen4exp" | "minimax-01" => {
                let m = &header.metadata;
                if let Some(Value::Array(a)) = m.arch_get("attention.recurrent_layers") {
                    return (0..n)
                        .map(|i| {
                            matches!(a.get(i), Some(Value::Bool(true)))
                                || a.get_u64(i).is_some_and(|v| v != 0)
                        })
                        .collect();
                }
                let interval = m
                    .arch_get("full_attention_interval")
                    .and_then(Value::as_u64)
                    .filter(|&v| v > 0)
                    .unwrap_or(if arch == "minimax-01" { 8 } else { 4 });
                (0..n)
                    .map(|i| i < trunk && (i as u64 + 1) % interval != 0)
                    .collect()
            }
            _ => n_head_kv.iter().map(|&kv| kv == 0).collect(),
        },
        _ => alloc::vec![false; n],
    }
}

/// The sliding window llama.cpp uses: the file's, but Gemma 2's loader has a default of 4096,
/// and Llama 4's chunked attention has chunks of 8192 whatever the file says (none when it
/// says 0).
fn window(arch: &str, file: Option<u64>) -> u64 {
    match (arch, file) {
        ("gemma2", None) => 4096,
        ("llama4", Some(0)) => 0,
        ("llama4", _) => 8192,
        (_, w) => w.unwrap_or(0),
    }
}

/// llama.cpp's `is_swa` per layer (all false when its `swa_type` is none).
fn sliding_layers(
    header: &Header,
    arch: &str,
    n: usize,
    nextn: usize,
    n_swa: u64,
    is_recr: &[bool],
) -> Vec<bool> {
    let none = alloc::vec![false; n];
    let trunk = n - nextn;
    let pattern = header.metadata.arch_get(key::SLIDING_WINDOW_PATTERN);
    if let Some(&(_, period, dense_first)) = SWA_PERIODS.iter().find(|(a, ..)| *a == arch) {
        // Gemma 3, Llama 4 and the others that read the window as optional have no SWA without it.
        if n_swa == 0 {
            return none;
        }
        let flags = match pattern {
            Some(Value::Array(a)) => flags(a, n),
            other => {
                let p = other.and_then(Value::as_u64).unwrap_or(period);
                by_period(p, dense_first, trunk, n)
            }
        };
        return flags;
    }
    if SWA_FROM_FILE.contains(&arch) {
        if n_swa == 0 {
            return none;
        }
        if arch == "lfm2" {
            return is_recr.iter().map(|r| !r).collect();
        }
        let flags = match pattern {
            Some(Value::Array(a)) => flags(a, n),
            Some(v) => by_period(v.as_u64().unwrap_or(0), false, trunk, n),
            None => alloc::vec![false; n],
        };
        if flags.iter().any(|&f| f) {
            return flags;
        }
    }
    none
}

fn flags(a: &crate::header::Array, n: usize) -> Vec<bool> {
    (0..n)
        .map(|i| matches!(a.get(i), Some(Value::Bool(true))) || a.get_u64(i).is_some_and(|v| v != 0))
        .collect()
}

/// `llama_hparams::set_swa_pattern`.
fn by_period(period: u64, dense_first: bool, trunk: usize, n: usize) -> Vec<bool> {
    (0..n)
        .map(|il| {
            let i = il as u64;
            il < trunk
                && (period == 0
                    || if dense_first {
                        i % period != 0
                    } else {
                        i % period < period - 1
                    })
        })
        .collect()
}
