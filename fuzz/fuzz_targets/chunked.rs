//! Feeding the same bytes in arbitrary chunks gives exactly the one-shot result, errors included
//! (`testkit::assert_same_in_chunks`, the check the incremental and regression tests use).
#![no_main]

use gguf_core::testkit::assert_same_in_chunks;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (Vec<u16>, &[u8])| {
    let (cuts, data) = input;
    let cuts = cuts.iter().map(|&c| usize::from(c % 4096) + 1).cycle().take(data.len());
    assert_same_in_chunks("the fuzz input", data, cuts);
});
