//! The template module: `gguf-template`'s sandboxed engine, for the viewer's chat template
//! preview.
//!
//! A module of its own: the template engine is several times the size of the viewer's parser, so
//! the page loads it (in the preview's worker) only when a preview is asked for, and the viewer's
//! first load stays small. Thin on purpose: the sandbox, its bounds and the sample conversation
//! live in `gguf-template`.

use gguf_template::{FUEL, Options, RECURSION_LIMIT, SAMPLE_CONVERSATION, TIME_LIMIT};
use wasm_bindgen::prelude::*;

/// Why a template did not render: the engine's message and the template line (from 1), if known.
#[wasm_bindgen(getter_with_clone)]
pub struct RenderFailure {
    /// What went wrong.
    pub message: String,
    /// The line in the template, or `undefined`.
    pub line: Option<u32>,
}

/// Renders `template` for the sample conversation (system, user, assistant, user) with the
/// file's bos and eos texts. Returns the text; throws a `RenderFailure`.
#[wasm_bindgen]
pub fn render(
    template: &str,
    bos_token: &str,
    eos_token: &str,
    add_generation_prompt: bool,
) -> Result<String, RenderFailure> {
    let options = Options {
        bos_token,
        eos_token,
        add_generation_prompt,
        now: 0,
    };
    gguf_template::render(template, &SAMPLE_CONVERSATION, &options).map_err(|e| RenderFailure {
        message: e.message,
        line: e.line.and_then(|l| u32::try_from(l).ok()),
    })
}

/// The fuel of one render (units of instructions and data).
#[wasm_bindgen]
pub fn fuel() -> f64 {
    FUEL as f64
}

/// The nesting depth a render may reach.
#[wasm_bindgen(js_name = recursionLimit)]
pub fn recursion_limit() -> u32 {
    u32::try_from(RECURSION_LIMIT).unwrap_or(u32::MAX)
}

/// How long a render may run, in milliseconds: the page ends the worker it runs in after that.
#[wasm_bindgen(js_name = timeLimitMs)]
pub fn time_limit_ms() -> f64 {
    TIME_LIMIT.as_millis() as f64
}
