//! Writes `hostile-templates.gguf` for the browser tests of the chat template view and preview:
//! a default template that reaches for `__class__` on its second line and carries HTML and script
//! in its text, and named ones that loop without end, recurse without end, and walk a sequence of
//! 10^8 items without charging fuel as they go (only the time limit stops that one). Its tokens
//! hold HTML and a bos/eos pair, so the preview's special-token marks have something to find.
//!
//! `cargo run -p gguf-template --example write_hostile_templates -- OUT.gguf`

use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::{Array, Value};

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "hostile-templates.gguf".into());
    let file = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("general.name", "hostile templates")
        .kv(
            "tokenizer.ggml.tokens",
            strings(&["<s>", "</s>", "<script>window.__pwned = 'token'</script>", "a"]),
        )
        .kv("tokenizer.ggml.token_type", Value::Array(Array::I32(vec![3, 3, 4, 1])))
        .kv("tokenizer.ggml.bos_token_id", 0u32)
        .kv("tokenizer.ggml.eos_token_id", 1u32)
        .kv(
            "tokenizer.chat_template",
            "{{ bos_token }}<script>window.__pwned = 'template'</script>\n{{ ''.__class__.__mro__[1].__subclasses__() }}\n{{ eos_token }}",
        )
        .kv(
            "tokenizer.chat_template.loop",
            "{% for i in range(100000) %}\n{% for j in range(100000) %}{{ i }}{% endfor %}\n{% endfor %}",
        )
        .kv(
            "tokenizer.chat_template.recursion",
            "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}\n\n{{ f(0) }}",
        )
        .kv("tokenizer.chat_template.slow", "{{ bos_token }}{{ 1 in [0] * 100000000 }}")
        .kv(
            "tokenizer.chat_template.html",
            "{{ bos_token }}<img src=x onerror=\"window.__pwned = 'output'\">{% for m in messages %}{{ m.content }}{% endfor %}{{ eos_token }}",
        )
        .build();
    std::fs::write(&out, file).expect("cannot write the file");
}
