//! The output buffer (`llama_context::output_reserve`): host memory for the logits of the
//! outputs of one batch, `n_vocab` f32 values for each. llama-server asks for one output per
//! sequence (no speculative decoding), so at start it holds `n_vocab × n_seq` floats.

use super::context::Context;
use super::hparams::HParams;

/// Bytes of the output buffer.
pub(crate) fn output_bytes(hp: &HParams, ctx: &Context) -> u64 {
    hp.n_vocab * ctx.n_seq.max(1) * 4
}
