//! The dequantizers compiled a second time for AVX2, and picked at run time (feature `std`, for
//! the CPU check).
//!
//! The crate is built for the target's baseline (SSE2 on x86-64), where its loops decode four
//! values per instruction. Here each type's decoder (the same source, inlined) is compiled
//! inside a `#[target_feature(enable = "avx2")]` function, so the compiler makes eight-wide
//! code of it, and [`dequantize_into`] and [`dequantize_to`] use that build when the CPU has
//! AVX2 and the baseline otherwise (other CPUs, other targets). No decoder is written twice:
//! both builds give the same values, to the bit (`tests/`).
//!
//! The one `unsafe` of the crate is the call into the AVX2 build, which is reached only after
//! the CPU is checked: running code compiled for features the CPU lacks would be undefined
//! behaviour.

use alloc::vec::Vec;

use gguf_core::{Endian, GgmlType};

use crate::dequant::{self, DequantError};

/// As [`dequant::dequantize_into`] (the same values, appended to `out`), with the AVX2 build of
/// the decoders when the CPU has AVX2.
pub fn dequantize_into(
    ty: GgmlType,
    endian: Endian,
    bytes: &[u8],
    out: &mut Vec<f32>,
) -> Result<(), DequantError> {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        return dequant::dequantize_into_with::<x86::Avx2>(ty, endian, bytes, out);
    }
    dequant::dequantize_into(ty, endian, bytes, out)
}

/// As [`dequant::dequantize_to`] (the same values, written over `out`), with the AVX2 build of
/// the decoders when the CPU has AVX2.
pub fn dequantize_to(
    ty: GgmlType,
    endian: Endian,
    bytes: &[u8],
    out: &mut [f32],
) -> Result<(), DequantError> {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        return dequant::dequantize_to_with::<x86::Avx2>(ty, endian, bytes, out);
    }
    dequant::dequantize_to(ty, endian, bytes, out)
}

/// Whether this CPU runs the AVX2 build (std caches the CPU's answer after the first call).
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use gguf_core::Endian;

    use crate::dequant::{Build, decode_blocks};

    /// The AVX2 build. Private to this module, and used only by [`super::dequantize_into`] and
    /// [`super::dequantize_to`] once [`super::has_avx2`] has answered yes.
    pub(super) struct Avx2;

    impl Build for Avx2 {
        fn decode<const TY: u32>(bytes: &[u8], e: Endian, out: &mut [f32]) {
            // The crate's one exception to `unsafe_code = "deny"` (Cargo.toml): calling a
            // `#[target_feature]` function is unsafe, and this is the only way into the build.
            #[allow(unsafe_code)]
            // SAFETY: `Avx2` is only used after `has_avx2` found AVX2 on this CPU, the one
            // requirement of calling a function compiled for it; `decode` is otherwise safe.
            unsafe {
                decode::<TY>(bytes, e, out)
            }
        }
    }

    /// One type's decoder, compiled for AVX2.
    #[target_feature(enable = "avx2")]
    fn decode<const TY: u32>(bytes: &[u8], e: Endian, out: &mut [f32]) {
        decode_blocks::<TY>(bytes, e, out);
    }
}
