//! The memory module: the buffers llama.cpp allocates to run a model (`gguf_core::memory`), for
//! the page's "Will it fit" and the package's `fit()` — llama.cpp's options as JavaScript names
//! them (`ctx`, `ctk`, `ctv`, `flashAttn`, `parallel`, `ubatch`, `kvUnified`) made into the core's
//! [`Options`], the buffers given as the `memory` document of `ggufscope info --json`.
//!
//! A module of its own, so that the viewer's module (held under 100 KB gzipped) does not carry
//! llama.cpp's sizing rules; the worker makes a [`MemoryModel`] of the headers the viewer read.
//! The document is the core's report's ([`Memory`]), so it is `info --json`'s to the field.
//!
//! It also says what the file holds beyond its kind and what its model can do
//! ([`MemoryModel::describe`]), which the viewer's module goes without for the same reason.

use gguf_core::describe::Description;
use gguf_core::memory::{self, CacheType, Devices, FlashAttention, GPU_MARGIN, Options};
use gguf_core::report::Memory;
use gguf_core::report::describe::DescriptionDocument;
use gguf_core::split::SplitModel;
use gguf_core::text::Escaped;
use wasm_bindgen::prelude::*;

use crate::js::{error, to_js};
use crate::session::{GgufSession, named_headers};

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** The buffers llama.cpp allocates (`ggufscope info --json`'s `memory`); byte figures are BigInt. */
export type MemoryDocument = Record<string, unknown>;
/** Where llama.cpp would put the model on the user's devices (`ggufscope fit --json`). */
export type PlanDocument = Record<string, unknown>;
/** What the file is and can do: `ggufscope info --json`'s `kind`, `capabilities`, `adapter`, `imatrix`, `mmproj`, `control_vector`. */
export type DescriptionDocument = Record<string, unknown>;
"#;

/// A model (one file, or the shards of a split model) whose buffers are asked for.
#[wasm_bindgen]
pub struct MemoryModel {
    model: SplitModel,
}

#[wasm_bindgen]
impl MemoryModel {
    /// The model of the decoded `sessions`, whose files are named `names` (same order). Takes
    /// the sessions.
    #[wasm_bindgen(constructor)]
    pub fn new(sessions: Vec<GgufSession>, names: Vec<String>) -> Result<MemoryModel, JsValue> {
        Ok(MemoryModel {
            model: SplitModel::new(named_headers(sessions, names)?),
        })
    }

    /// What the file is and what its model can do: the report's `kind`, `capabilities`,
    /// `adapter`, `imatrix`, `mmproj` and `control_vector`, as `ggufscope info --json` gives them.
    #[wasm_bindgen(unchecked_return_type = "DescriptionDocument")]
    pub fn describe(&self) -> Result<JsValue, JsValue> {
        to_js(&DescriptionDocument::new(&Description::of(self.model.header())))
    }

    /// The buffers llama.cpp allocates to run the model (every shard's weights) with
    /// llama-server's options, each `undefined` for its default: `ctx` (`-c`, all sequences
    /// together; 0: the model's trained context), `ctk`/`ctv` (`-ctk`/`-ctv`: "f16", "q8_0", …),
    /// `flash_attn` (`-fa`: "on", "off", "auto"), `parallel` (`-np`), `ubatch` (`-ub`),
    /// `kv_unified` (`--kv-unified`): the `memory` of `ggufscope info --json` with the same
    /// options. Throws an `Error` saying why llama.cpp would refuse them.
    #[allow(clippy::too_many_arguments)] // one per llama.cpp option
    #[wasm_bindgen(unchecked_return_type = "MemoryDocument")]
    pub fn fit(
        &self,
        ctx: Option<f64>,
        ctk: Option<String>,
        ctv: Option<String>,
        flash_attn: Option<String>,
        parallel: Option<u32>,
        ubatch: Option<u32>,
        kv_unified: Option<bool>,
    ) -> Result<JsValue, JsValue> {
        let options = FitOptions {
            ctx,
            ctk,
            ctv,
            flash_attn,
            parallel,
            ubatch,
            kv_unified,
        }
        .options()?;
        let buffers = memory::buffers(self.model.header(), &options).map_err(error)?;
        to_js(&Memory::new(&options, &buffers))
    }

    /// Where llama.cpp would put the model on the user's devices, `ram` bytes of RAM and a GPU
    /// of each of `gpus`' free bytes, with `fit()`'s options: the document of `ggufscope fit
    /// --json` (verdict, -ngl, -ts, --n-cpu-moe, each device's share, the largest context per
    /// cache type). Throws an `Error` for a size that is not a whole number of bytes.
    #[allow(clippy::too_many_arguments)] // one per llama.cpp option, and the devices
    #[wasm_bindgen(unchecked_return_type = "PlanDocument")]
    pub fn plan(
        &self,
        ctx: Option<f64>,
        ctk: Option<String>,
        ctv: Option<String>,
        flash_attn: Option<String>,
        parallel: Option<u32>,
        ubatch: Option<u32>,
        kv_unified: Option<bool>,
        ram: f64,
        gpus: Vec<f64>,
    ) -> Result<JsValue, JsValue> {
        let options = FitOptions {
            ctx,
            ctk,
            ctv,
            flash_attn,
            parallel,
            ubatch,
            kv_unified,
        }
        .options()?;
        let devices = Devices {
            ram: whole(ram, "ram is not a whole number of bytes")?,
            gpus: gpus
                .into_iter()
                .map(|g| whole(g, "a GPU's memory is not a whole number of bytes"))
                .collect::<Result<_, _>>()?,
            margin: GPU_MARGIN,
        };
        let plan = memory::plan(self.model.header(), &options, &devices, Vec::new()).map_err(error)?;
        to_js(&plan)
    }
}

/// `n` as a count of bytes or tokens: a whole number a JavaScript number holds exactly; else an
/// `Error` saying `otherwise`.
fn whole(n: f64, otherwise: &str) -> Result<u64, JsValue> {
    if n >= 0.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER {
        Ok(n as u64)
    } else {
        Err(error(otherwise))
    }
}

/// The largest whole number a JavaScript number holds exactly (2^53 - 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// llama-server's options as `fit()` takes them; `None`, llama-server's default.
struct FitOptions {
    pub ctx: Option<f64>,
    pub ctk: Option<String>,
    pub ctv: Option<String>,
    pub flash_attn: Option<String>,
    pub parallel: Option<u32>,
    pub ubatch: Option<u32>,
    pub kv_unified: Option<bool>,
}

impl FitOptions {
    /// The core's options; an `Error` naming a cache type or flash-attention value llama.cpp
    /// does not take, or a context that is not a whole number of tokens.
    fn options(&self) -> Result<Options, JsValue> {
        let d = Options::default();
        let cache = |name: &Option<String>, default: CacheType| match name {
            None => Ok(default),
            Some(n) => CacheType::from_name(n).ok_or_else(|| {
                let all: Vec<&str> = CacheType::ALL.iter().map(|t| t.name()).collect();
                error(format!(
                    "unknown cache type \"{}\": llama.cpp takes {}",
                    Escaped(n.as_bytes()),
                    all.join(", ")
                ))
            }),
        };
        let flash_attn = match &self.flash_attn {
            None => d.flash_attn,
            Some(n) => FlashAttention::from_name(n).ok_or_else(|| {
                error(format!(
                    "unknown flash attention \"{}\": llama.cpp takes on, off or auto",
                    Escaped(n.as_bytes())
                ))
            })?,
        };
        let ctx = match self.ctx {
            None => d.ctx,
            Some(c) => whole(c, "ctx is not a whole number of tokens")?,
        };
        Ok(Options {
            ctx,
            parallel: self.parallel.or(d.parallel),
            kv_unified: self.kv_unified.unwrap_or(d.kv_unified),
            type_k: cache(&self.ctk, d.type_k)?,
            type_v: cache(&self.ctv, d.type_v)?,
            flash_attn,
            n_ubatch: self.ubatch.unwrap_or(d.n_ubatch),
            n_batch: d.n_batch,
        })
    }
}
