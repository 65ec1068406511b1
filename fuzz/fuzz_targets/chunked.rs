//! Feeding the same bytes in arbitrary chunks gives exactly the one-shot result, errors included.
#![no_main]

use gguf_core::{HeaderDecoder, Progress};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (Vec<u16>, &[u8])| {
    let (cuts, data) = input;
    let whole = gguf_core::parse(data);
    let mut d = HeaderDecoder::new(Some(data.len() as u64));
    let mut at = 0;
    let mut cuts = cuts.iter().map(|&c| usize::from(c % 4096) + 1).cycle();
    let chunked = loop {
        let end = (at + cuts.next().unwrap_or(1)).min(data.len());
        match d.feed(&data[at..end]) {
            Ok(Progress::Done) => break Ok(()),
            Ok(Progress::Need { offset, min_len }) => {
                assert_eq!(offset, end as u64);
                assert!(min_len > 0);
            }
            Err(e) => break Err(e),
        }
        at = end;
    };
    match (whole, chunked) {
        // Debug text: NaN values compare equal to themselves.
        (Ok(h), Ok(())) => assert_eq!(format!("{h:?}"), format!("{:?}", d.header().unwrap())),
        (Err(a), Err(b)) => assert_eq!(a, b),
        (a, b) => panic!("one-shot {a:?} but chunked {b:?}"),
    }
});
