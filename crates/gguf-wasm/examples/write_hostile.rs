//! Writes `hostile.gguf` for the browser tests: keys, values, token strings, a chat template and
//! tensor names that hold HTML and script, plus bytes that are not UTF-8. The viewer must show
//! all of it as text and run none of it (each payload would set `window.__pwned`).
//!
//! `cargo run -p gguf-wasm --example write_hostile -- OUT.gguf`

use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::{GgmlType, Value};

fn main() {
    let out = std::env::args().nth(1).unwrap_or_else(|| "hostile.gguf".into());
    let file = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv(
            "general.name",
            "<b>bold</b><script>window.__pwned = 'name'</script>",
        )
        .kv("<img src=x onerror=\"window.__pwned = 'key'\">", 1u32)
        .kv(
            "general.description",
            "<img src=\"https://evil.example/beacon.png\" onerror=\"window.__pwned = 'value'\">",
        )
        .kv("llama.block_count", 2u32)
        .kv(
            "tokenizer.chat_template",
            "</pre><script>window.__pwned = 'template'</script>{{ messages }}",
        )
        .kv(
            "tokenizer.ggml.tokens",
            strings(&[
                "<script>window.__pwned = 'token'</script>",
                "<iframe src=\"javascript:window.__pwned = 'iframe'\"></iframe>",
                "&lt;entity&gt;",
                "plain",
                "a",
                "b",
                "c",
                "d",
                "e",
                "f",
            ]),
        )
        .kv_raw("general.not_utf8", &{
            let value = Value::String(b"bad \xff\xfe <u>bytes</u>".to_vec().into());
            let mut raw = 8u32.to_le_bytes().to_vec();
            raw.extend(GgufBuilder::new().encode_value(&value));
            raw
        })
        .tensor(
            "<svg onload=\"window.__pwned = 'tensor'\">.weight",
            &[4, 4],
            GgmlType::F32,
        )
        .with_tensor_data()
        .build();
    std::fs::write(&out, file).unwrap_or_else(|e| panic!("cannot write {out}: {e}"));
}
