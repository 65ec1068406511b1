//! A plan for the user's devices: where llama.cpp would put each layer of the model given RAM
//! and zero or more GPUs with their free memory, whether it fits, and the largest context that
//! fits for each KV cache type.
//!
//! llama.cpp's rules (`llama_model::load_tensors`, common/fit.cpp at 0c1e570):
//! - `-ngl N` offloads the last N of the `n_layer + 1` layers, the output layer being the last;
//!   the input layer (the token embeddings) always stays on the CPU, and a model whose output
//!   reuses the embeddings gets a copy of them on the output layer's device;
//! - the offloaded layers are split between GPUs in contiguous runs by `-ts` (by default in
//!   proportion to each GPU's free memory), layer `j` of them to the first GPU whose running
//!   share exceeds `j / N`;
//! - a layer's KV cache and recurrent state live on its device;
//! - `--n-cpu-moe N` keeps the expert matrices (`ffn_*_exps`) of the first N layers on the CPU;
//! - `--fit` leaves a margin on every GPU (`-fitt`, 1024 MiB) and, for an MoE that does not fit,
//!   first moves experts to the CPU before it offloads fewer layers.
//!
//! The plan tries, in that order: every layer on the GPUs; an MoE with the experts of its first
//! layers on the CPU; as many layers on the GPUs as fit, the rest (and an MoE's experts) on the
//! CPU. Every GPU that holds a layer gets a compute buffer the size of the whole graph's (ggml
//! reserves each backend's for its part of the graph; the largest part is the bound); RAM holds
//! the CPU's layers, the output buffer and, when it runs layers, a compute buffer too.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::MIB;
use super::context::Context;
use super::estimate::{Buffers, MemoryError, buffers};
use super::hparams::HParams;
use super::kv_cache::layer_kv;
use super::model_buffer::loaded;
use super::options::{CacheType, FlashAttention, Options};
use crate::header::Header;

/// What `--fit` leaves free on every GPU by default (`-fitt 1024`).
pub const GPU_MARGIN: u64 = 1024 * MIB;

/// The least context `--fit` reduces to (`-fitc 4096`).
pub const MIN_FIT_CONTEXT: u64 = 4096;

/// The user's memory: RAM and the free memory of each GPU, in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Devices {
    /// Free RAM.
    pub ram: u64,
    /// Free memory of each GPU, in llama.cpp's device order.
    pub gpus: Vec<u64>,
    /// Bytes to leave free on each GPU ([`GPU_MARGIN`] by default).
    pub margin: u64,
}

/// A file the model needs beside it: a multimodal projector or a draft model.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Sidecar {
    /// Its file name.
    pub file: String,
    /// `"mmproj"` (a projector, `--mmproj`) or `"draft"` (`-md`).
    pub role: &'static str,
    /// Its weights: on the first GPU when there is one (llama.cpp offloads both), else in RAM.
    pub bytes: u64,
}

impl Sidecar {
    /// The sidecar `file` of `role` whose header is `header`.
    pub fn new(file: String, role: &'static str, header: &Header) -> Sidecar {
        Sidecar {
            file,
            role,
            bytes: super::model_buffer::model_bytes(header, None).bytes,
        }
    }
}

/// The answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "snake_case"))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Verdict {
    /// Every layer on the GPUs (or, without GPUs, the whole model in RAM).
    Fits,
    /// Every layer on the GPUs but some experts on the CPU (`--n-cpu-moe`).
    FitsWithExpertsOnCpu,
    /// Some layers on the GPUs, the rest on the CPU.
    FitsPartly,
    /// Not even with every layer on the CPU.
    DoesNotFit,
}

/// What one device holds.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeviceUse {
    /// `"RAM"` or `"GPU 0"`, `"GPU 1"`, ….
    pub device: String,
    /// Its free memory.
    pub free: u64,
    /// What may be used: free memory less the margin on a GPU.
    pub budget: u64,
    /// Layers on it (the output layer counts as one).
    pub layers: u64,
    /// Weights, sidecars' included.
    pub model: u64,
    /// KV cache and recurrent state of its layers.
    pub context: u64,
    /// Its compute buffer (and, in RAM, the output buffer).
    pub compute: u64,
    /// `model + context + compute`.
    pub total: u64,
    /// Whether `total` is within `budget`.
    pub fits: bool,
}

/// The largest context that fits with one KV cache type (`-ctk` and `-ctv` both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MaxContext {
    /// The type.
    pub cache_type: CacheType,
    /// `-c`: all sequences together, a multiple of 256 up to the trained context; 0 when not
    /// even 256 tokens fit.
    pub ctx: u64,
}

/// Where llama.cpp would put the model, and what each device then holds.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Plan {
    /// The answer.
    pub verdict: Verdict,
    /// `-ngl`: layers on the GPUs, the output layer counted (`n_layer + 1` is all of them).
    pub n_gpu_layers: u64,
    /// Layers of the model, the output layer counted.
    pub layers: u64,
    /// `-ts`: layers per GPU (empty with one GPU or none).
    pub tensor_split: Vec<u64>,
    /// `--n-cpu-moe`: layers whose experts stay on the CPU (0 for a dense model).
    pub n_cpu_moe: u64,
    /// The context the plan is for.
    pub context: Context,
    /// RAM first, then each GPU.
    pub devices: Vec<DeviceUse>,
    /// With this layout, the largest context for each cache type llama.cpp can run.
    pub max_context: Vec<MaxContext>,
    /// The projector and draft model counted.
    pub sidecars: Vec<Sidecar>,
}

/// A layer's weights: the dense part and the experts.
#[derive(Debug, Clone, Copy, Default)]
struct LayerWeights {
    dense: u64,
    experts: u64,
}

/// The model's weights by where they can go.
struct Weights {
    /// Always on the CPU: the token embeddings and what no layer owns.
    input: u64,
    /// Layer `i` for `i < n_layer`, then the output layer.
    layers: Vec<LayerWeights>,
    /// The embeddings again, for a model whose output reuses them: llama.cpp loads them a second
    /// time on the output layer's device when that is a GPU (`TENSOR_DUPLICATED`); on the CPU
    /// both are the one mapped range.
    tied_output: u64,
}

/// Whether `name` is an expert matrix (`--n-cpu-moe`'s pattern `ffn_(up|down|gate_up|gate)_(ch|)exps`).
fn is_expert(name: &str) -> bool {
    ["ffn_up_", "ffn_down_", "ffn_gate_", "ffn_gate_up_"]
        .iter()
        .any(|p| name.contains(p) && (name.contains("_exps") || name.contains("_chexps")))
}

impl Weights {
    fn read(header: &Header, hp: &HParams) -> Weights {
        let n_layer = hp.n_layer_all;
        let mut w = Weights {
            input: 0,
            layers: vec![LayerWeights::default(); n_layer + 1],
            tied_output: 0,
        };
        let mut has_output = false;
        let mut embeddings = 0;
        for t in header.tensors.iter().filter(|t| loaded(hp, t)) {
            let bytes = t.n_bytes().unwrap_or(0);
            let name = t.name.as_str().unwrap_or("");
            let layer = name
                .strip_prefix("blk.")
                .and_then(|r| r.split('.').next())
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&il| il < n_layer);
            if let Some(il) = layer {
                let l = &mut w.layers[il];
                if is_expert(name) {
                    l.experts += bytes;
                } else {
                    l.dense += bytes;
                }
            } else if name.starts_with("output.") || name.starts_with("output_norm.") {
                has_output |= name.starts_with("output.");
                w.layers[n_layer].dense += bytes;
            } else {
                if name.starts_with("token_embd.") {
                    embeddings = bytes;
                }
                w.input += bytes;
            }
        }
        if !has_output {
            w.tied_output = embeddings;
        }
        w
    }
}

/// A layout: how many layers each GPU holds (from the end of the model), and the experts kept
/// on the CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Layout {
    per_gpu: Vec<u64>,
    n_cpu_moe: u64,
}

impl Layout {
    fn n_gpu_layers(&self) -> u64 {
        self.per_gpu.iter().sum()
    }

    /// The device of layer `il` (of `n`, the output layer counted): `None` for the CPU.
    fn device(&self, il: usize, n: usize) -> Option<usize> {
        let first = n as u64 - self.n_gpu_layers();
        let mut start = first;
        for (g, &count) in self.per_gpu.iter().enumerate() {
            if (il as u64) >= start && (il as u64) < start + count {
                return Some(g);
            }
            start += count;
        }
        None
    }
}

/// llama.cpp's split of `ngl` layers in proportion to `shares` (`-ts`, or free memory).
fn split(shares: &[u64], ngl: u64) -> Vec<u64> {
    let sum: u64 = shares.iter().sum();
    let mut per = vec![0u64; shares.len()];
    if sum == 0 || ngl == 0 {
        return per;
    }
    let mut running = 0f64;
    let points: Vec<f32> = shares
        .iter()
        .map(|&s| {
            running += s as f64;
            (running / sum as f64) as f32
        })
        .collect();
    for j in 0..ngl {
        let x = j as f32 / ngl as f32;
        let g = points.iter().position(|&p| p > x).unwrap_or(shares.len() - 1);
        per[g] += 1;
    }
    per
}

/// The model, its options and the user's devices: everything a layout is judged by.
struct Planner<'a> {
    header: &'a Header,
    hp: HParams,
    weights: Weights,
    devices: &'a Devices,
    sidecars: u64,
}

impl Planner<'_> {
    /// What each device holds with `layout` and `options`; RAM first.
    fn usage(&self, layout: &Layout, options: &Options) -> Result<(Buffers, Vec<DeviceUse>), MemoryError> {
        let b = buffers(self.header, options)?;
        let n = self.hp.n_layer_all;
        let gpus = self.devices.gpus.len();
        let mut model = vec![0u64; gpus + 1];
        let mut context = vec![0u64; gpus + 1];
        let mut layers = vec![0u64; gpus + 1];
        let slot = |il: usize| layout.device(il, n + 1).map_or(0, |g| g + 1);
        model[0] += self.weights.input;
        model[if gpus > 0 { 1 } else { 0 }] += self.sidecars;
        let recurrent_per_layer = b
            .recurrent
            .as_ref()
            .and_then(|r| r.bytes().checked_div(r.layers))
            .unwrap_or(0);
        for (il, w) in self.weights.layers.iter().enumerate() {
            let d = slot(il);
            layers[d] += 1;
            let experts_on_cpu = (il as u64) < layout.n_cpu_moe;
            model[d] += w.dense;
            if il == n && d > 0 {
                model[d] += self.weights.tied_output;
            }
            model[if experts_on_cpu { 0 } else { d }] += w.experts;
            if il < n {
                if let Some((_, k, v)) = layer_kv(&self.hp, &b.context, options, il)? {
                    context[d] += k + v;
                }
                if self.hp.is_recr.get(il).copied().unwrap_or(false) {
                    context[d] += recurrent_per_layer;
                }
            }
        }
        let cpu_runs_layers = layers[0] > 0 || layout.n_cpu_moe > 0;
        let host_inputs = 4 * self.hp.n_embd * b.context.graph_tokens();
        let mut uses = Vec::with_capacity(gpus + 1);
        for d in 0..=gpus {
            let (name, free, budget) = if d == 0 {
                ("RAM".into(), self.devices.ram, self.devices.ram)
            } else {
                let free = self.devices.gpus[d - 1];
                (
                    alloc::format!("GPU {}", d - 1),
                    free,
                    free.saturating_sub(self.devices.margin),
                )
            };
            let compute = if d == 0 {
                b.output
                    + if cpu_runs_layers {
                        b.compute.bytes
                    } else {
                        host_inputs
                    }
            } else if layers[d] > 0 {
                b.compute.bytes
            } else {
                0
            };
            let total = model[d] + context[d] + compute;
            uses.push(DeviceUse {
                device: name,
                free,
                budget,
                layers: layers[d],
                model: model[d],
                context: context[d],
                compute,
                total,
                fits: total <= budget,
            });
        }
        Ok((b, uses))
    }

    fn fits(&self, layout: &Layout, options: &Options) -> Result<bool, MemoryError> {
        Ok(self.usage(layout, options)?.1.iter().all(|d| d.fits))
    }

    /// `ngl` layers split between the GPUs in proportion to what each can hold.
    fn layout(&self, ngl: u64, n_cpu_moe: u64) -> Layout {
        let budgets: Vec<u64> = self
            .devices
            .gpus
            .iter()
            .map(|&g| g.saturating_sub(self.devices.margin))
            .collect();
        Layout {
            per_gpu: split(&budgets, ngl),
            n_cpu_moe,
        }
    }

    /// The first layout that fits, in the order `--fit` tries them, and the verdict.
    fn choose(&self, options: &Options) -> Result<(Layout, Verdict), MemoryError> {
        let all = self.weights.layers.len() as u64;
        let n_layer = all - 1;
        let moe = self.weights.layers.iter().any(|l| l.experts > 0);
        if self.devices.gpus.is_empty() {
            let cpu = Layout {
                per_gpu: Vec::new(),
                n_cpu_moe: 0,
            };
            let verdict = if self.fits(&cpu, options)? {
                Verdict::Fits
            } else {
                Verdict::DoesNotFit
            };
            return Ok((cpu, verdict));
        }
        let whole = self.layout(all, 0);
        if self.fits(&whole, options)? {
            return Ok((whole, Verdict::Fits));
        }
        if moe {
            // The fewest layers with experts on the CPU: more of them only frees GPU memory.
            let fit = |n: u64| self.fits(&self.layout(all, n), options);
            if fit(n_layer)? {
                let (mut lo, mut hi) = (0, n_layer);
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    if fit(mid)? { hi = mid } else { lo = mid + 1 }
                }
                return Ok((self.layout(all, lo), Verdict::FitsWithExpertsOnCpu));
            }
        }
        // The most layers on the GPUs, with every expert on the CPU for an MoE. RAM can only
        // gain from more layers on the GPUs, so each layout is tried from the most down.
        let experts = if moe { n_layer } else { 0 };
        for ngl in (1..all).rev() {
            let layout = self.layout(ngl, experts);
            if self.fits(&layout, options)? {
                return Ok((layout, Verdict::FitsPartly));
            }
        }
        let cpu = self.layout(0, 0);
        let verdict = if self.fits(&cpu, options)? {
            Verdict::FitsPartly
        } else {
            Verdict::DoesNotFit
        };
        Ok((cpu, verdict))
    }

    /// The largest `-c` (a multiple of 256, up to the trained context of every stream) with
    /// which `layout` fits, K and V both of `cache_type`; 0 when none does.
    fn max_context(
        &self,
        layout: &Layout,
        options: &Options,
        cache_type: CacheType,
    ) -> Result<u64, MemoryError> {
        let with = |ctx: u64| Options {
            ctx,
            type_k: cache_type,
            type_v: cache_type,
            ..*options
        };
        let streams = if options.unified() {
            1
        } else {
            u64::from(options.sequences())
        };
        let top = (self.hp.n_ctx_train * streams) / 256;
        let fits = |blocks: u64| self.fits(layout, &with(blocks * 256));
        if top == 0 || !fits(1)? {
            return Ok(0);
        }
        let (mut lo, mut hi) = (1, top);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if fits(mid)? { lo = mid } else { hi = mid - 1 }
        }
        Ok(lo * 256)
    }
}

/// The plan for running the model in `header` with `options` on `devices`, the `sidecars`
/// beside it. With `options.ctx` 0 and a model that does not fit at its trained context, the
/// context is reduced as `--fit` does: to the largest that fits, not below 4096 tokens a
/// sequence.
pub fn plan(
    header: &Header,
    options: &Options,
    devices: &Devices,
    sidecars: Vec<Sidecar>,
) -> Result<Plan, MemoryError> {
    let hp = HParams::read(header)?;
    let weights = Weights::read(header, &hp);
    let planner = Planner {
        header,
        weights,
        devices,
        sidecars: sidecars.iter().map(|s| s.bytes).sum(),
        hp,
    };
    let mut options = *options;
    let (mut layout, mut verdict) = planner.choose(&options)?;
    if options.ctx == 0 && verdict != Verdict::Fits {
        // `--fit` reduces the context first, with every layer offloaded, then moves layers.
        let streams = if options.unified() {
            1
        } else {
            u64::from(options.sequences())
        };
        let trained = planner.hp.n_ctx_train * streams;
        let min = (MIN_FIT_CONTEXT * streams).min(trained);
        let all = planner.layout(planner.weights.layers.len() as u64, 0);
        let best = planner.max_context(&all, &options, options.type_k)?;
        options.ctx = best.max(min);
        (layout, verdict) = planner.choose(&options)?;
    }
    let (buffers, uses) = planner.usage(&layout, &options)?;
    let mut max_context = Vec::new();
    for cache_type in CacheType::ALL {
        let quantized_v_without_fa = cache_type.is_quantized() && options.flash_attn == FlashAttention::Off;
        if quantized_v_without_fa {
            continue;
        }
        match planner.max_context(&layout, &options, cache_type) {
            Ok(ctx) => max_context.push(MaxContext { cache_type, ctx }),
            Err(MemoryError::PartialBlock { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    let tensor_split = if layout.per_gpu.len() > 1 {
        layout.per_gpu.clone()
    } else {
        Vec::new()
    };
    Ok(Plan {
        verdict,
        n_gpu_layers: layout.n_gpu_layers(),
        layers: planner.weights.layers.len() as u64,
        tensor_split,
        n_cpu_moe: layout.n_cpu_moe,
        context: buffers.context,
        devices: uses,
        max_context,
        sidecars,
    })
}
