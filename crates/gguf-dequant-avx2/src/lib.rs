//! gguf-core's dequantizers, compiled a second time for AVX2 and picked at run time.
//!
//! The core is built for the target's baseline (SSE2 on x86-64), where its loops decode four
//! values per instruction. Here the same source ([`gguf_core::dequant::dequantize_into_inlined`],
//! every decoder inlined into it) is compiled inside a `#[target_feature(enable = "avx2")]`
//! function, so the compiler makes eight-wide code of it, and [`dequantize_into`] calls that
//! build when the CPU has AVX2 and the core's otherwise (other CPUs, other targets, wasm).
//! No decoder is written twice: both builds give the same values, to the bit (`tests/`).
//!
//! The one `unsafe` is that call, made after the CPU is checked: calling a function compiled
//! for features the CPU lacks would be undefined behaviour.

use gguf_core::Endian;
use gguf_core::GgmlType;
use gguf_core::dequant::DequantError;

/// As [`gguf_core::dequant::dequantize_into`] (the same values, appended to `out`), with the
/// AVX2 build of the decoders when the CPU has AVX2.
pub fn dequantize_into(
    ty: GgmlType,
    endian: Endian,
    bytes: &[u8],
    out: &mut Vec<f32>,
) -> Result<(), DequantError> {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        #[allow(unsafe_code)]
        // SAFETY: `avx2` is compiled for AVX2, which `has_avx2` has just found on this CPU; it
        // is otherwise a safe function.
        return unsafe { avx2(ty, endian, bytes, out) };
    }
    gguf_core::dequant::dequantize_into(ty, endian, bytes, out)
}

/// Whether this CPU runs the AVX2 build (std caches the CPU's answer after the first call).
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The core's decoding loop and decoders, compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2(ty: GgmlType, endian: Endian, bytes: &[u8], out: &mut Vec<f32>) -> Result<(), DequantError> {
    gguf_core::dequant::dequantize_into_inlined(ty, endian, bytes, out)
}
