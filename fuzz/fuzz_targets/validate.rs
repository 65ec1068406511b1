//! Any decodable header, checked against any claimed file length: validation never panics, every
//! finding's span is ordered, the JSON report serializes, and the memory figures (llama.cpp's
//! buffers, and the plan on devices) answer or err.
#![no_main]

use gguf_core::memory::{CacheType, Devices, FlashAttention, Options, buffers, plan};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (u64, &[u8])| {
    let (claimed_len, data) = input;
    if let Ok(header) = gguf_core::parse(data) {
        for file_len in [None, Some(claimed_len), Some(header.header_len), Some(claimed_len % (1 << 40))] {
            for finding in gguf_core::validate(&header, file_len).findings {
                assert!(finding.span.start <= finding.span.end, "{finding:?}");
                assert!(!finding.message.is_empty());
            }
        }
        serde_json::to_writer(std::io::sink(), &gguf_core::report::Report::new(&header)).unwrap();
        let hostile = Options {
            ctx: claimed_len >> 24,
            parallel: Some((claimed_len % 300) as u32),
            kv_unified: claimed_len & 1 == 1,
            type_k: CacheType::ALL[(claimed_len % 9) as usize],
            type_v: CacheType::ALL[((claimed_len >> 4) % 9) as usize],
            flash_attn: if claimed_len & 2 == 2 { FlashAttention::Off } else { FlashAttention::Auto },
            n_ubatch: (claimed_len >> 8) as u32,
            n_batch: (claimed_len >> 12) as u32,
        };
        let devices = Devices { ram: claimed_len, gpus: vec![claimed_len >> 8, claimed_len >> 20], margin: claimed_len >> 30 };
        for options in [Options::default(), hostile] {
            let _ = buffers(&header, &options);
            let _ = plan(&header, &options, &devices, Vec::new());
        }
    }
});
