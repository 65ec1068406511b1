//! The files the browser tests open (`www/e2e`, `web/test`), each made for one view's worst case.

use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::{Array, GgmlType, Value};

/// `hostile.gguf`: keys, values, token strings, a chat template and tensor names that hold HTML
/// and script, plus bytes that are not UTF-8. The viewer must show all of it as text and run none
/// of it (each payload would set `window.__pwned`).
pub fn hostile() -> Vec<u8> {
    GgufBuilder::new()
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
        .build()
}

/// `hostile-templates.gguf`, for the chat template view and preview: a default template that
/// reaches for `__class__` on its second line and carries HTML and script in its text, and named
/// ones that loop without end, recurse without end, and walk a sequence of 10^8 items without
/// charging fuel as they go (only the time limit stops that one). Its tokens hold HTML and a
/// bos/eos pair, so the preview's special-token marks have something to find.
pub fn hostile_templates() -> Vec<u8> {
    GgufBuilder::new()
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
        .build()
}

/// `lint-templates.gguf`, for the template lint on the page: a SentencePiece vocabulary and a
/// template that writes `<|turn_start|>` (not in the vocabulary) on its third line and always
/// opens the assistant's turn, so `add_generation_prompt` changes nothing.
pub fn lint_templates() -> Vec<u8> {
    let tokens = [
        "<unk>",
        "<s>",
        "</s>",
        "<|turn|>",
        "▁",
        "▁Hello",
        "user",
        "assistant",
    ];
    let types: Vec<i32> = (0..tokens.len())
        .map(|i| match i {
            0 => 2,
            1..=3 => 3,
            _ => 1,
        })
        .collect();
    GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("general.name", "lint templates")
        .kv("tokenizer.ggml.model", "llama")
        .kv("tokenizer.ggml.tokens", strings(&tokens))
        .kv("tokenizer.ggml.scores", Value::Array(Array::F32(vec![0.0; tokens.len()])))
        .kv("tokenizer.ggml.token_type", Value::Array(Array::I32(types)))
        .kv("tokenizer.ggml.bos_token_id", 1u32)
        .kv("tokenizer.ggml.eos_token_id", 2u32)
        .kv(
            "tokenizer.chat_template",
            "{% for m in messages %}<|turn|>{{ m.role }}\n{{ m.content }}{{ eos_token }}{% endfor %}\n\n<|turn_start|>assistant\n",
        )
        .build()
}

/// `many-findings.gguf`: 150 tensors of one name at one offset, so 149 duplicate-tensor-name and
/// 149 tensors-overlap findings, of which the validator keeps 100 of each and counts the rest
/// (the page says "… and 49 more").
pub fn many_findings() -> Vec<u8> {
    let mut b = GgufBuilder::new().kv("general.architecture", "llama");
    for _ in 0..150 {
        b = b.tensor_at("blk.0.attn_q.weight", &[8], GgmlType::F32, 0);
    }
    b.with_tensor_data().build()
}

/// `many-tensors.gguf`: 1,200 zeroed F32 tensors, so that the tensor table shows only its first
/// 1,000 at first. Tensor #1,100 repeats the name of tensor #2 (a duplicate-tensor-name finding
/// about a row not shown at first), and tensor #3 is of type 4, Q4_2, which ggml removed: it
/// cannot be decoded.
pub fn many_tensors() -> Vec<u8> {
    let mut builder = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("llama.block_count", 1200u32);
    for i in 0..1200 {
        let (name, ty) = match i {
            3 => (String::from("blk.3.removed_type.weight"), GgmlType(4)),
            1100 => (String::from("blk.2.weight"), GgmlType::F32),
            _ => (format!("blk.{i}.weight"), GgmlType::F32),
        };
        builder = builder.tensor(name, &[32, 2], ty);
    }
    builder.with_tensor_data().build()
}

/// `layout-gap.gguf`, for the file map: a tensor stored at an unaligned offset after 744 unused
/// bytes (a `tensor-data-gap` finding, and the map's gap), the padding after a tensor that ends
/// unaligned, a tensor without elements (no bits per weight), and 100 bytes after the last
/// tensor (the tail).
///
/// Data section, relative offsets: `blk.0.attn_q.weight` 0..256; unused 256..1000;
/// `blk.0.ffn_up.weight` 1000..1256, padded to 1280; `blk.1.ffn_up.weight` (Q4_0) 1280..1856;
/// `output_norm.weight` 1856..2112; `blk.1.empty.weight` at 2112, 0 bytes; then the tail.
pub fn layout_gap() -> Vec<u8> {
    GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("llama.block_count", 2u32)
        .tensor("blk.0.attn_q.weight", &[64], GgmlType::F32)
        .tensor_at("blk.0.ffn_up.weight", &[128], GgmlType::F16, 1000)
        .tensor("blk.1.ffn_up.weight", &[256, 4], GgmlType::Q4_0)
        .tensor("output_norm.weight", &[64], GgmlType::F32)
        .tensor("blk.1.empty.weight", &[0], GgmlType::F32)
        .with_tensor_data()
        .trailing(&[0; 100])
        .build()
}
