//! The AVX2 build gives the baseline's values, to the bit: every type ggml reads, random blocks
//! (random bytes, so NaN, infinite and subnormal scales too), both byte orders, runs long enough
//! to cross the pieces `dequantize_into` decodes at a time and to end in a partial one.
//! `tests/dequant_random.rs` holds the baseline build to ggml's layouts.

use gguf_core::{Endian, GgmlType};
use gguf_values::dequant::{DequantError, dequantize_into, dequantize_to, is_supported};

/// Blocks per run: more than one piece for every type, and not a whole number of pieces.
const BLOCKS: usize = 301;

/// xorshift64: the same bytes on every run.
fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// The values' bits, with every NaN as one: which NaN an operation on two NaNs returns may
/// depend on the order the compiler put the operands in, in either build.
fn bits(values: &[f32]) -> Vec<u32> {
    values
        .iter()
        .map(|v| if v.is_nan() { u32::MAX } else { v.to_bits() })
        .collect()
}

#[test]
fn this_machine_runs_the_avx2_build() {
    // Else the test below would compare the baseline build with itself.
    if cfg!(target_arch = "x86_64") {
        assert!(
            gguf_values::avx2::has_avx2(),
            "this x86-64 CPU has no AVX2: the builds cannot be compared here"
        );
    }
}

#[test]
fn the_avx2_build_gives_the_baseline_values_for_every_type_in_both_orders() {
    let mut compared = 0;
    for ty in GgmlType::all().filter(|&ty| is_supported(ty)) {
        let block_bytes = ty.type_size().unwrap() as usize;
        for (seed, endian) in [(1, Endian::Little), (2, Endian::Big)] {
            let bytes = random_bytes(BLOCKS * block_bytes, seed * 1000 + u64::from(ty.0));
            let (mut core, mut avx2) = (vec![7.0], vec![7.0]);
            dequantize_into(ty, endian, &bytes, &mut core).unwrap();
            gguf_values::avx2::dequantize_into(ty, endian, &bytes, &mut avx2).unwrap();
            assert_eq!(core.len(), 1 + BLOCKS * ty.block_size().unwrap() as usize, "{ty}");
            assert_eq!(bits(&avx2), bits(&core), "{ty} {endian:?}: the builds disagree");
            // Written over a buffer of the right length (here NaNs, so nothing is left unwritten).
            let (mut core_to, mut avx2_to) = (vec![f32::NAN; core.len() - 1], vec![f32::NAN; core.len() - 1]);
            dequantize_to(ty, endian, &bytes, &mut core_to).unwrap();
            gguf_values::avx2::dequantize_to(ty, endian, &bytes, &mut avx2_to).unwrap();
            assert_eq!(bits(&core_to), bits(&core[1..]), "{ty} {endian:?}: dequantize_to");
            assert_eq!(
                bits(&avx2_to),
                bits(&core[1..]),
                "{ty} {endian:?}: the AVX2 dequantize_to"
            );
            compared += 1;
        }
    }
    assert!(compared >= 2 * 30, "only {compared} runs compared");
}

#[test]
fn errors_are_the_baselines() {
    let mut out = Vec::new();
    for (ty, bytes) in [(GgmlType::Q4_K, &[0u8; 145][..]), (GgmlType(99), &[0; 4][..])] {
        let core = dequantize_into(ty, Endian::Little, bytes, &mut out);
        assert!(matches!(
            core,
            Err(DequantError::PartialBlock { .. } | DequantError::Unsupported { .. })
        ));
        assert_eq!(
            gguf_values::avx2::dequantize_into(ty, Endian::Little, bytes, &mut out),
            core
        );
    }
    assert!(out.is_empty());
    // An output of the wrong length: one block of Q4_K is 256 values.
    for len in [255, 257] {
        let mut out = vec![0.0; len];
        let expected = Err(DequantError::OutputLength { values: 256, len });
        assert_eq!(
            dequantize_to(GgmlType::Q4_K, Endian::Little, &[0; 144], &mut out),
            expected
        );
        assert_eq!(
            gguf_values::avx2::dequantize_to(GgmlType::Q4_K, Endian::Little, &[0; 144], &mut out),
            expected
        );
    }
}
