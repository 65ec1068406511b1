//! The recurrent state of SSM, RWKV and hybrid models (`llama_memory_recurrent`): per recurrent
//! layer, an R tensor (the convolution or token-shift state, `n_embd_r` values) and an S tensor
//! (the SSM or WKV state, `n_embd_s` values) of one row per sequence, in f32. Its size does not
//! depend on the context.

use super::context::Context;
use super::hparams::{HParams, MemoryKind};
use super::{CPU_ALIGNMENT, MemoryError};

/// The recurrent state.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RecurrentState {
    /// Recurrent layers.
    pub layers: u64,
    /// Cells: one per sequence.
    pub cells: u64,
    /// f32 values of R per layer and cell.
    pub r_values: u64,
    /// f32 values of S per layer and cell.
    pub s_values: u64,
    /// Bytes of R, all layers.
    pub r_bytes: u64,
    /// Bytes of S, all layers.
    pub s_bytes: u64,
}

impl RecurrentState {
    /// R and S.
    pub fn bytes(&self) -> u64 {
        self.r_bytes + self.s_bytes
    }
}

/// The state, for a recurrent or hybrid model.
pub(crate) fn recurrent_state(hp: &HParams, ctx: &Context) -> Result<Option<RecurrentState>, MemoryError> {
    if !matches!(hp.kind, MemoryKind::Recurrent | MemoryKind::Hybrid) {
        return Ok(None);
    }
    let cells = ctx.n_seq.max(1);
    let layers = (0..hp.n_layer()).filter(|&il| hp.is_recr[il]).count() as u64;
    let bytes = |values: u64| -> Result<u64, MemoryError> {
        values
            .checked_mul(4 * cells)
            .map(|b| b.next_multiple_of(CPU_ALIGNMENT))
            .and_then(|b| b.checked_mul(layers))
            .ok_or(MemoryError::Overflow)
    };
    Ok(Some(RecurrentState {
        layers,
        cells,
        r_values: hp.n_embd_r,
        s_values: hp.n_embd_s,
        r_bytes: bytes(hp.n_embd_r)?,
        s_bytes: bytes(hp.n_embd_s)?,
    }))
}
