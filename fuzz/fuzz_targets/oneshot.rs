//! Any bytes: the header decodes or fails with an error inside the input; the summary never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match gguf_core::parse(data) {
        Ok(header) => {
            assert!(header.header_len <= data.len() as u64);
            let _ = header.summary();
        }
        Err(e) => assert!(e.offset() <= data.len() as u64, "{e}"),
    }
});
