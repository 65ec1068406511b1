//! A GGUF tensor's values from its bytes, sans-IO and `no_std`: the wing of ggufscope that reads
//! past the header.
//!
//! [`dequant`] decodes the bytes of any ggml type into `f32` values, bit for bit as ggml's
//! reference dequantizer, in either byte order, and says where a tensor's first rows are
//! ([`dequant::prefix`]). [`values::TensorValues`] streams a tensor (or its first rows) through
//! the decoders in bounded memory, saying which bytes to read next, into [`stats::Stats`]:
//! counts, range, moments and a histogram. [`avx2`] (feature `std`) is the same decoders built
//! for AVX2, picked at run time.
//!
//! The header (types, byte order, where a tensor is) comes from gguf-core; the reading stays
//! with the caller: a file for the CLI, `File.slice` or HTTP Range requests in the browser.
#![no_std]
// `unsafe_code` is denied (Cargo.toml), not forbidden: the one call into the AVX2 build is
// allowed where it is made, in `avx2`.

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "std")]
pub mod avx2;
pub mod dequant;
pub mod stats;
pub mod values;
