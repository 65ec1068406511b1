//! Which bytes of the file hold a tensor, or its first rows: what a reader fetches before
//! decoding, so a 40 GB model costs only the rows looked at.

use super::DequantError;
use gguf_core::{Header, TensorInfo};

/// The bytes holding the first rows of a tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prefix {
    /// Absolute offset in the file of the tensor's first byte.
    pub offset: u64,
    /// Bytes to read: whole rows, so whole blocks.
    pub len: u64,
    /// Rows covered (at most the tensor's row count).
    pub rows: u64,
    /// Values they decode to: `rows × dims[0]`.
    pub elements: u64,
}

/// The bytes of `tensor`'s first `rows` rows (all of them for `None`). A row is `dims[0]`
/// values, always a whole number of blocks in a file ggml loads.
pub fn prefix(header: &Header, tensor: &TensorInfo, rows: Option<u64>) -> Result<Prefix, DequantError> {
    let ty = tensor.ty;
    let row_len = tensor.dims.first().copied().unwrap_or(1);
    let Some(block_size) = ty.block_size() else {
        return Err(DequantError::Unsupported { ty });
    };
    let overflow = |what| DequantError::Overflow { what };
    let total_rows = match row_len {
        0 => 0,
        n => {
            tensor
                .n_elements()
                .ok_or(overflow("element count (the product of its dimensions)"))?
                / n
        }
    };
    let row_bytes = ty
        .bytes_for(row_len, row_len)
        .ok_or(match row_len % u64::from(block_size) {
            0 => overflow("size in bytes"),
            _ => DequantError::BadShape { ty, row_len },
        })?;
    let rows = rows.map_or(total_rows, |r| r.min(total_rows));
    let len = rows.checked_mul(row_bytes).ok_or(overflow("size in bytes"))?;
    let offset = header
        .absolute_offset(tensor)
        .ok_or(overflow("offset plus the data section's start"))?;
    let end = offset.checked_add(len).ok_or(overflow("offset plus its size"))?;
    if let Some(file_len) = header.file_len.filter(|&l| end > l) {
        return Err(DequantError::PastEnd { end, file_len });
    }
    Ok(Prefix {
        offset,
        len,
        rows,
        elements: rows.saturating_mul(row_len),
    })
}
