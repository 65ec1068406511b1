//! Dequantization: the bytes of a tensor, or of its first rows, decoded into `f32` values.
//!
//! Plain functions over byte slices, no I/O: the CLI reads a tensor's bytes with a seek, the
//! browser with `File.slice` or a range request, and both hand them to [`dequantize`].
//! [`prefix`] says which bytes hold the first rows, so a caller reads only those.
//!
//! Every value matches ggml's reference dequantizer (`ggml-quants.c`) and gguf-py bit for bit:
//! the arithmetic is done in `f32` in the same order, without fused multiply-adds.
//!
//! Byte order: in a big-endian file every number that ggml's reference dequantizer reads as a
//! multi-byte word (fp16 scales, `Q5_0`'s high-bit word, `IQ2_XS`'s 16-bit indices, …) is
//! big-endian, as ggml on a big-endian host reads it and as `gguf-convert-endian` writes it;
//! single bytes (packed quants, 6-bit scales, grid indices) are the same in both orders. A
//! big-endian block is turned back into its little-endian form first, so one decoder serves both.

mod float;
mod fp4;
mod grids;
mod iquants;
mod kquants;
mod legacy;
mod scaled;
mod span;
mod ternary;

use core::fmt;

use alloc::vec::Vec;

use gguf_core::Endian;
use gguf_core::{GgmlType, TypeStatus};

pub use scaled::{ScaledBlock, scaled_blocks};
pub use span::{Prefix, prefix};

/// Why bytes could not be decoded, or a tensor's bytes located.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DequantError {
    /// No decoder for this type: an id ggml never assigned, or one it removed.
    Unsupported {
        /// The type.
        ty: GgmlType,
    },
    /// The bytes end inside a block: a dequantizer decodes whole blocks only.
    PartialBlock {
        /// The type.
        ty: GgmlType,
        /// Bytes given.
        len: usize,
        /// Bytes per block.
        block_bytes: u32,
    },
    /// A row of the tensor is not a whole number of blocks.
    BadShape {
        /// The tensor's type.
        ty: GgmlType,
        /// Elements per row (`dims[0]`).
        row_len: u64,
    },
    /// A figure of the tensor's info does not fit in 64 bits (a damaged or hostile header).
    Overflow {
        /// Which: its element count, its size in bytes, or where its bytes start or end
        /// (`element count (the product of its dimensions)`, …).
        what: &'static str,
    },
    /// An output slice that does not hold exactly the values of the bytes given.
    OutputLength {
        /// Values the bytes decode to.
        values: usize,
        /// Length of the output.
        len: usize,
    },
    /// The tensor's bytes end past the end of the file.
    PastEnd {
        /// Where the bytes end (absolute offset).
        end: u64,
        /// The file's length.
        file_len: u64,
    },
}

impl fmt::Display for DequantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DequantError::Unsupported { ty } => match ty.status() {
                None => write!(f, "{ty} cannot be decoded: ggml never assigned this type id"),
                Some(_) => write!(
                    f,
                    "{ty} cannot be decoded: ggml removed this type (it refuses files that use it)"
                ),
            },
            DequantError::PartialBlock { ty, len, block_bytes } => write!(
                f,
                "{len} bytes of {ty} end inside a block ({ty} blocks are {block_bytes} bytes)"
            ),
            DequantError::BadShape { ty, row_len } => write!(
                f,
                "a row of {row_len} elements is not a whole number of {ty} blocks"
            ),
            DequantError::Overflow { what } => write!(f, "the tensor's {what} overflows 64 bits"),
            DequantError::OutputLength { values, len } => write!(
                f,
                "the bytes decode to {values} values, and the output holds {len}"
            ),
            DequantError::PastEnd { end, file_len } => write!(
                f,
                "the tensor's bytes end at offset {end}, past the end of the file ({file_len} bytes)"
            ),
        }
    }
}

impl core::error::Error for DequantError {}

/// Decodes whole blocks of one type into `out`, which has room for them.
type Decoder = fn(&[u8], Endian, &mut [f32]);

/// A build of the decoders: [`Baseline`], or the same source compiled for wider vectors
/// ([`crate::avx2`]'s AVX2 build). `decode::<TY>` decodes whole blocks of the type
/// whose id is `TY`: an implementation calls [`decode_blocks::<TY>`](decode_blocks), which inlines
/// that type's decoder, from a function compiled as it chooses — one function per type, so each
/// decoder is optimized on its own, as in the baseline build.
pub(crate) trait Build {
    /// Decodes whole blocks of type id `TY` (one with a decoder) into `out`.
    fn decode<const TY: u32>(bytes: &[u8], e: Endian, out: &mut [f32]);
}

/// The decoders as compiled for the target's baseline (SSE2 on x86-64, `simd128` or not on wasm).
pub(crate) struct Baseline;

impl Build for Baseline {
    fn decode<const TY: u32>(bytes: &[u8], e: Endian, out: &mut [f32]) {
        decode_blocks::<TY>(bytes, e, out);
    }
}

/// Every type's decoder, listed once: `decoder` (a type's decoder in a build) and
/// `decode_blocks` (a type id's decoder, inlined) are both made from this list.
macro_rules! decoders {
    ($($ty:ident => $decode:path,)*) => {
        /// The decoder of `ty` in build `B`, or `None` for ids ggml never assigned or removed.
        fn decoder<B: Build>(ty: GgmlType) -> Option<Decoder> {
            Some(match ty {
                $(GgmlType::$ty => B::decode::<{ GgmlType::$ty.0 }>,)*
                _ => return None,
            })
        }

        /// Decodes whole blocks of type id `TY` into `out` with that type's decoder, inlined
        /// into the caller: for [`Build`] implementations. An id without a decoder decodes nothing.
        #[inline(always)]
        pub(crate) fn decode_blocks<const TY: u32>(bytes: &[u8], e: Endian, out: &mut [f32]) {
            match GgmlType(TY) {
                $(GgmlType::$ty => $decode(bytes, e, out),)*
                _ => {}
            }
        }
    };
}

decoders! {
    F32 => float::f32s,
    F16 => float::f16s,
    BF16 => float::bf16s,
    F64 => float::f64s,
    I8 => float::i8s,
    I16 => float::i16s,
    I32 => float::i32s,
    I64 => float::i64s,
    Q4_0 => legacy::q4_0,
    Q4_1 => legacy::q4_1,
    Q5_0 => legacy::q5_0,
    Q5_1 => legacy::q5_1,
    Q8_0 => legacy::q8_0,
    Q8_1 => legacy::q8_1,
    Q1_0 => legacy::q1_0,
    Q2_0 => legacy::q2_0,
    Q2_K => kquants::q2_k,
    Q3_K => kquants::q3_k,
    Q4_K => kquants::q4_k,
    Q5_K => kquants::q5_k,
    Q6_K => kquants::q6_k,
    Q8_K => kquants::q8_k,
    IQ2_XXS => iquants::iq2_xxs,
    IQ2_XS => iquants::iq2_xs,
    IQ2_S => iquants::iq2_s,
    IQ3_XXS => iquants::iq3_xxs,
    IQ3_S => iquants::iq3_s,
    IQ1_S => iquants::iq1_s,
    IQ1_M => iquants::iq1_m,
    IQ4_NL => iquants::iq4_nl,
    IQ4_XS => iquants::iq4_xs,
    TQ1_0 => ternary::tq1_0,
    TQ2_0 => ternary::tq2_0,
    MXFP4 => fp4::mxfp4,
    NVFP4 => fp4::nvfp4,
}

/// Whether [`dequantize`] decodes this type: every type ggml reads (all but the removed ids).
pub fn is_supported(ty: GgmlType) -> bool {
    ty.status() == Some(TypeStatus::Active) && decoder::<Baseline>(ty).is_some()
}

/// Decodes `bytes` of type `ty`, in the byte order of the file they come from, into `f32` values
/// (`block_size` values per `type_size` bytes; integers are converted, `F64` rounded).
pub fn dequantize(ty: GgmlType, endian: Endian, bytes: &[u8]) -> Result<Vec<f32>, DequantError> {
    let mut out = Vec::new();
    dequantize_into(ty, endian, bytes, &mut out)?;
    Ok(out)
}

/// [`dequantize_to`]'s signature, for callers that take a dequantizer (this one, or the AVX2
/// build's `avx2::dequantize_to`, feature `std`).
pub type DequantizeTo = fn(GgmlType, Endian, &[u8], &mut [f32]) -> Result<(), DequantError>;

/// As [`dequantize`], appending to `out`, so that a caller decoding a large tensor in chunks
/// reuses one buffer.
pub fn dequantize_into(
    ty: GgmlType,
    endian: Endian,
    bytes: &[u8],
    out: &mut Vec<f32>,
) -> Result<(), DequantError> {
    dequantize_into_with::<Baseline>(ty, endian, bytes, out)
}

/// [`dequantize_into`] with build `B` of the decoders: the same values, to the bit (the same
/// source; Rust never fuses a multiply and an add on its own), at that build's speed.
pub(crate) fn dequantize_into_with<B: Build>(
    ty: GgmlType,
    endian: Endian,
    bytes: &[u8],
    out: &mut Vec<f32>,
) -> Result<(), DequantError> {
    let (decode, block_len, block_bytes) = decoding::<B>(ty, bytes)?;
    // The output is made (zeroed) and filled a few thousand values at a time, while they are in
    // the cache: zeroing all of a large output first, then filling it, would write it twice.
    out.reserve(bytes.len() / block_bytes * block_len);
    let piece_blocks = (CACHED_VALUES / block_len).max(1);
    for piece in bytes.chunks(piece_blocks * block_bytes) {
        let start = out.len();
        out.resize(start + piece.len() / block_bytes * block_len, 0.0);
        if let Some(tail) = out.get_mut(start..) {
            decode(piece, endian, tail);
        }
    }
    Ok(())
}

/// As [`dequantize`], writing over `out`, which holds exactly as many values as `bytes` decode
/// to: a caller decoding slice after slice into one buffer makes it once, where
/// [`dequantize_into`] zeroes each slice's output before decoding into it (a quarter of Q4_K's
/// time when the output stays in the cache).
pub fn dequantize_to(
    ty: GgmlType,
    endian: Endian,
    bytes: &[u8],
    out: &mut [f32],
) -> Result<(), DequantError> {
    dequantize_to_with::<Baseline>(ty, endian, bytes, out)
}

/// [`dequantize_to`] with build `B` of the decoders (see [`dequantize_into_with`]).
pub(crate) fn dequantize_to_with<B: Build>(
    ty: GgmlType,
    endian: Endian,
    bytes: &[u8],
    out: &mut [f32],
) -> Result<(), DequantError> {
    let (decode, block_len, block_bytes) = decoding::<B>(ty, bytes)?;
    let values = bytes.len() / block_bytes * block_len;
    if out.len() != values {
        return Err(DequantError::OutputLength {
            values,
            len: out.len(),
        });
    }
    decode(bytes, endian, out);
    Ok(())
}

/// The decoder of `ty` in build `B`, with its values and bytes per block, for `bytes` that are
/// whole blocks of it.
fn decoding<B: Build>(ty: GgmlType, bytes: &[u8]) -> Result<(Decoder, usize, usize), DequantError> {
    let (Some(decode), Some(block_len), Some(block_bytes)) =
        (decoder::<B>(ty), ty.block_size(), ty.type_size())
    else {
        return Err(DequantError::Unsupported { ty });
    };
    if bytes.len() % block_bytes as usize != 0 {
        return Err(DequantError::PartialBlock {
            ty,
            len: bytes.len(),
            block_bytes,
        });
    }
    Ok((decode, block_len as usize, (block_bytes as usize).max(1)))
}

/// How many values [`dequantize_into`] makes at a time: 2 KiB. Measured on 4 MiB of blocks decoded
/// at once (`benches/dequant.rs`, 2026-12-01): Q4_K 1.2 GiB/s with 16 KiB pieces, 1.7 with 4 KiB,
/// 1.95 with 2 KiB, 1.8 with 1 KiB — small pieces keep zeroing and decoding close together, so
/// the output's writes to memory overlap the decoding of the next piece.
const CACHED_VALUES: usize = 512;

/// A multi-byte word that ggml's reference dequantizer reads from a block as a number: `count`
/// words of `width` bytes, the first at byte `at`, then every `stride` bytes.
#[derive(Clone, Copy)]
struct Word {
    at: usize,
    width: usize,
    count: usize,
    stride: usize,
}

/// One fp16 (or other 2-byte) field at `at`.
const fn half(at: usize) -> Word {
    Word {
        at,
        width: 2,
        count: 1,
        stride: 2,
    }
}

/// `count` consecutive words of `width` bytes from `at`.
const fn words(at: usize, width: usize, count: usize) -> Word {
    Word {
        at,
        width,
        count,
        stride: width,
    }
}

/// Decodes `bytes` block by block: `f` sees each block of `B` bytes in its little-endian form
/// and fills its `N` values. `words` lists the block's multi-byte numbers, reversed for a
/// big-endian file before `f` sees the block.
fn each_block<const B: usize, const N: usize>(
    bytes: &[u8],
    endian: Endian,
    words: &[Word],
    out: &mut [f32],
    f: impl Fn(&[u8; B], &mut [f32; N]),
) {
    let blocks = bytes.chunks_exact(B).zip(out.chunks_exact_mut(N));
    let blocks = blocks.filter_map(|(chunk, values)| {
        Some((
            <&[u8; B]>::try_from(chunk).ok()?,
            <&mut [f32; N]>::try_from(values).ok()?,
        ))
    });
    match endian {
        Endian::Little => blocks.for_each(|(block, values)| f(block, values)),
        Endian::Big => blocks.for_each(|(block, values)| {
            let mut little = *block;
            for w in words {
                for k in 0..w.count {
                    let at = w.at + k * w.stride;
                    if let Some(word) = little.get_mut(at..at + w.width) {
                        word.reverse();
                    }
                }
            }
            f(&little, values)
        }),
    }
}

/// The fp16 number in bytes `at..at + 2` of a little-endian block.
#[inline]
fn f16_at<const B: usize>(block: &[u8; B], at: usize) -> f32 {
    float::f16_to_f32(u16_at(block, at))
}

/// The little-endian u16 in bytes `at..at + 2` (0 past the end, which callers never ask for).
#[inline]
fn u16_at<const B: usize>(block: &[u8; B], at: usize) -> u16 {
    match block.get(at..at + 2) {
        Some(&[a, b]) => u16::from_le_bytes([a, b]),
        _ => 0,
    }
}

/// The little-endian u32 in bytes `at..at + 4` (0 past the end, which callers never ask for).
#[inline]
fn u32_at<const B: usize>(block: &[u8; B], at: usize) -> u32 {
    match block.get(at..at + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_active_type_has_a_decoder_of_the_right_geometry() {
        for ty in GgmlType::all() {
            let active = ty.status() == Some(TypeStatus::Active);
            assert_eq!(is_supported(ty), active, "{ty}");
            if !active {
                continue;
            }
            let (block_bytes, block_len) = (
                ty.type_size().unwrap() as usize,
                ty.block_size().unwrap() as usize,
            );
            // Three different blocks: a decoder whose block geometry disagreed with the type
            // table would read the third block from the wrong bytes, or not at all.
            let bytes: Vec<u8> = (0..3 * block_bytes).map(|i| (i * 37 + 11) as u8).collect();
            let all = dequantize(ty, Endian::Little, &bytes).unwrap();
            assert_eq!(all.len(), 3 * block_len, "{ty}");
            let third = dequantize(ty, Endian::Little, &bytes[2 * block_bytes..]).unwrap();
            assert!(
                third.iter().any(|v| *v != 0.0),
                "{ty}: a block of varied bytes decodes to zeros"
            );
            assert_eq!(
                all[2 * block_len..]
                    .iter()
                    .map(|v| v.to_bits())
                    .collect::<Vec<_>>(),
                third.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "{ty}: the third block decodes alone as in the run"
            );
        }
    }

    #[test]
    fn unknown_removed_and_partial_input_are_errors() {
        assert_eq!(
            dequantize(GgmlType(99), Endian::Little, &[0; 4]),
            Err(DequantError::Unsupported { ty: GgmlType(99) })
        );
        assert_eq!(
            dequantize(GgmlType::Q4_0_4_4, Endian::Little, &[0; 18]),
            Err(DequantError::Unsupported {
                ty: GgmlType::Q4_0_4_4
            })
        );
        assert_eq!(
            dequantize(GgmlType::Q4_K, Endian::Little, &[0; 145]),
            Err(DequantError::PartialBlock {
                ty: GgmlType::Q4_K,
                len: 145,
                block_bytes: 144
            })
        );
        assert_eq!(dequantize(GgmlType::F16, Endian::Little, &[]), Ok(Vec::new()));
    }
}
