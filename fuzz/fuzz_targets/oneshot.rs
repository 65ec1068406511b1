//! Any bytes: the header decodes or fails with an error inside the input; the summary never panics;
//! the header writer gives a decoded header back.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match gguf_core::parse(data) {
        Ok(header) => {
            assert!(header.header_len <= data.len() as u64);
            let _ = header.summary();
            // The writer gives the header back: as long, and the same when decoded again.
            let written = gguf_core::write::write_header(&header).unwrap();
            assert_eq!(written.bytes.len() as u64, header.header_len);
            let again = gguf_core::parse(&written.bytes).unwrap();
            assert_eq!(
                format!("{:?} {:?}", again.metadata, again.tensors),
                format!("{:?} {:?}", header.metadata, header.tensors)
            );
        }
        Err(e) => assert!(e.offset() <= data.len() as u64, "{e}"),
    }
});
