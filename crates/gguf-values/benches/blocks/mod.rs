//! The benchmarks' blocks: the same pseudo-random 4 MiB of each type for `dequant` and
//! `dequant_endian`.

use gguf_core::{Endian, GgmlType};

/// The types measured, each with where its blocks' fp16 scales are.
pub const TYPES: [(GgmlType, &[usize]); 4] = [
    (GgmlType::Q4_K, &[0, 2]),
    (GgmlType::Q6_K, &[208]),
    (GgmlType::Q5_0, &[0]),
    (GgmlType::Q8_0, &[0]),
];

/// `len` bytes of `ty` blocks: pseudo-random quants with every fp16 scale set to a typical
/// weight scale (0x1c00 = 2^-8) in the byte order `endian`, so no block decodes to NaN or
/// infinity. (Written little-endian and read big-endian it would be 0x001c, a subnormal: a
/// different path through the fp16 conversion, not what a big-endian file holds.)
pub fn blocks(ty: GgmlType, endian: Endian, len: usize, scales: &[usize]) -> Vec<u8> {
    let size = ty.type_size().unwrap() as usize;
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut bytes: Vec<u8> = (0..len / size * size)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    for block in bytes.chunks_exact_mut(size) {
        for &at in scales {
            let scale = match endian {
                Endian::Little => 0x1c00u16.to_le_bytes(),
                Endian::Big => 0x1c00u16.to_be_bytes(),
            };
            block[at..at + 2].copy_from_slice(&scale);
        }
    }
    bytes
}
