//! Blocks whose values are one `f16` scale times 32 signed bytes (`Q8_0`), seen as the scale and
//! the integers rather than decoded: statistics measure them so, since every value is exactly
//! `scale × q` (an 11-bit significand times an 8-bit integer fits the 24 bits of an `f32`), and
//! so only depends on the integers and one scale per block.

use super::float::f16_to_f32;
use gguf_core::Endian;
use gguf_core::GgmlType;

/// One block: its values are `scale × q` for each `q` of `ints`, in order.
#[derive(Debug, Clone, Copy)]
pub struct ScaledBlock<'a> {
    /// The scale's `f16` bits: the same bits, the same scale.
    pub scale_bits: u16,
    /// The scale.
    pub scale: f32,
    /// The integers, as two's-complement bytes.
    pub ints: &'a [u8; 32],
}

impl ScaledBlock<'_> {
    /// The block's values, decoded as [`super::dequantize`] decodes them.
    pub fn values(&self) -> [f32; 32] {
        self.ints.map(|q| f32::from(q as i8) * self.scale)
    }
}

/// The blocks of `bytes`, of type `ty` in a file of byte order `endian`, when `ty` is made of
/// scaled blocks and `bytes` of whole ones.
pub fn scaled_blocks(
    ty: GgmlType,
    endian: Endian,
    bytes: &[u8],
) -> Option<impl Iterator<Item = ScaledBlock<'_>>> {
    // A block is the scale, then the integers.
    let block_bytes = match (ty, ty.type_size()) {
        (GgmlType::Q8_0, Some(n)) => n as usize,
        _ => return None,
    };
    if bytes.len() % block_bytes != 0 {
        return None;
    }
    Some(bytes.chunks_exact(block_bytes).filter_map(move |block| {
        let (&[a, b], ints) = block.split_first_chunk::<2>()?;
        let scale_bits = endian.u16([a, b]);
        Some(ScaledBlock {
            scale_bits,
            scale: f16_to_f32(scale_bits),
            ints: ints.try_into().ok()?,
        })
    }))
}
