//! Any bytes as any tensor type in either byte order: decoding gives one value per element or a
//! clear error, and the statistics over whatever comes out never panic.
#![no_main]

use gguf_values::dequant::dequantize;
use gguf_values::stats::Stats;
use gguf_core::{Endian, GgmlType};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (u8, bool, &[u8])| {
    let (id, big, bytes) = input;
    let ty = GgmlType(u32::from(id % 48));
    let endian = if big { Endian::Big } else { Endian::Little };
    if let Ok(values) = dequantize(ty, endian, bytes) {
        let (block, size) = (ty.block_size().unwrap(), ty.type_size().unwrap());
        assert_eq!(values.len() as u64, bytes.len() as u64 / u64::from(size) * u64::from(block));
        let stats = Stats::of(&values, 20, 16);
        assert!(stats.nan + stats.pos_inf + stats.neg_inf <= values.len() as u64);
    }
});
