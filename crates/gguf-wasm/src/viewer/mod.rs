//! The viewer's module: the sessions' headers made into one [`GgufModel`] that answers every
//! question the page asks, the summary sent before the report, and the Jinja spans the page
//! highlights templates with.

mod jinja;
mod model;
mod summary;

pub use jinja::{jinja_kinds, jinja_spans};
pub use model::GgufModel;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** The `ggufscope info --json` document; u64 figures are BigInt. */
export type GgufReport = Record<string, unknown>;
/** Where the first rows of a tensor are, and how to decode them (with the values module). */
export interface TensorPrefix { offset: number; length: number; rows: number; elements: number; typeId: number; bigEndian: boolean; file: string }
/** The tokenizer panel (`ggufscope tokens --json`). */
export type TokenizerReport = Record<string, unknown>;
/** A page of a token listing: how many tokens are listed, and some of them. */
export interface TokenPage { total: number; start: number; tokens: { id: number; text: string; decoded: string | null; type: string | null; score: number | string | null }[] }
"#;
