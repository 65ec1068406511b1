//! The built-in sample model that the viewer opens first (`dist/sample.gguf`): a small
//! Llama-style model with grouped-query attention, a K-quant mix, a 512-token vocabulary and a
//! chat template, complete with tensor data whose values look like a trained model's (weights
//! about normal around 0, norms around 1), quantized by the tests' quantizer: a newcomer's first
//! peek at a tensor shows what a real one looks like. They are not trained: the model says nothing.

use gguf_core::testkit::strings;
use gguf_core::{Array, GgmlType};
use gguf_test_support::quant::{encode, file_from, weight_values};

const EMBED: u64 = 256;
const FF: u64 = 768;
const LAYERS: u64 = 4;
const HEADS: u32 = 8;
const KV_HEADS: u32 = 2;
const HEAD_DIM: u64 = EMBED / HEADS as u64;
const VOCAB: usize = 512;

const WORDS: &str = "the of and to a in is it you that he was for on are with as I his they be at one have this from \
or had by hot word but what some we can out other were all there when up use your how said an each she which do \
their time if will way about many then them write would like so these her long make thing see him two has look \
more day could go come did number sound no most people my over know water than call first who may down side been \
now find any new work part take get place made live where after back little only round man year came show every \
good me give our under name very through just form sentence great think say help low line differ turn cause much \
mean before move right boy old too same tell does set three want air well also play small end put home read hand \
port large spell add even land here must big high such follow act why ask men change went light kind off need \
house picture try us again animal point mother world near build self earth father head stand own page should \
country found answer school grow study still learn plant cover food sun four between state keep eye never last \
let thought city tree cross farm hard start might story saw far sea draw left late run don't while press close \
night real life few north open seem together next white children begin got walk example ease paper group always \
music those both mark often letter until mile river car feet care second book carry took science eat room friend \
began idea fish mountain stop once base hear horse cut sure watch color face wood main enough plain girl usual \
young ready above ever red list though feel talk bird soon body dog family direct pose leave song measure door \
product black short numeral class wind question happen complete ship area half rock order fire south problem \
piece told knew pass since top whole king space heard best hour better true during hundred five remember step \
early hold west ground interest reach fast verb sing listen six table travel less morning ten simple several";

/// The sample's bytes.
pub fn sample() -> Vec<u8> {
    let mut tokens: Vec<String> = vec!["<unk>".into(), "<s>".into(), "</s>".into()];
    tokens.extend((0..=255u8).map(|b| format!("<0x{b:02X}>")));
    tokens.extend(
        WORDS
            .split(' ')
            .map(|w| format!("\u{2581}{w}"))
            .take(VOCAB - tokens.len()),
    );
    let n = tokens.len();
    let token_types: Vec<i32> = (0..n)
        .map(|i| {
            if i == 0 {
                2
            } else if i < 3 {
                3
            } else if i < 259 {
                6
            } else {
                1
            }
        })
        .collect();
    let scores: Vec<f32> = (0..n)
        .map(|i| if i < 259 { 0.0 } else { -((i - 259) as f32) })
        .collect();
    let token_refs: Vec<&str> = tokens.iter().map(String::as_str).collect();

    let b = gguf_core::testkit::GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("general.type", "model")
        .kv("general.name", "ggufscope sample")
        .kv("general.size_label", "3.3M")
        .kv("general.license", "CC0-1.0")
        .kv("general.description", "A tiny Llama-shaped model header written by ggufscope to show the viewer at work.")
        .kv("llama.context_length", 2048u32)
        .kv("llama.embedding_length", EMBED as u32)
        .kv("llama.block_count", LAYERS as u32)
        .kv("llama.feed_forward_length", FF as u32)
        .kv("llama.rope.dimension_count", HEAD_DIM as u32)
        .kv("llama.rope.freq_base", 10000.0f32)
        .kv("llama.attention.head_count", HEADS)
        .kv("llama.attention.head_count_kv", KV_HEADS)
        .kv("llama.attention.layer_norm_rms_epsilon", 1e-5f32)
        .kv("general.file_type", 15u32)
        .kv("llama.vocab_size", n as u32)
        .kv("tokenizer.ggml.model", "llama")
        .kv("tokenizer.ggml.pre", "default")
        .kv("tokenizer.ggml.tokens", strings(&token_refs))
        .kv("tokenizer.ggml.scores", Array::F32(scores))
        .kv("tokenizer.ggml.token_type", Array::I32(token_types))
        .kv("tokenizer.ggml.bos_token_id", 1u32)
        .kv("tokenizer.ggml.eos_token_id", 2u32)
        .kv("tokenizer.ggml.unknown_token_id", 0u32)
        .kv("tokenizer.ggml.add_bos_token", true)
        .kv("tokenizer.ggml.add_eos_token", false)
        .kv(
            "tokenizer.chat_template",
            "{% for message in messages %}{{ '<|' + message['role'] + '|>\\n' + message['content'] + '</s>\\n' }}\
             {% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}",
        )
        .kv("general.quantization_version", 2u32);
    let kv_dim = HEAD_DIM * u64::from(KV_HEADS);
    let mut layout: Vec<(String, Vec<u64>, GgmlType)> =
        vec![("token_embd.weight".into(), vec![EMBED, n as u64], GgmlType::Q6_K)];
    for l in 0..LAYERS {
        let t = |name: &str| format!("blk.{l}.{name}.weight");
        layout.extend([
            (t("attn_norm"), vec![EMBED], GgmlType::F32),
            (t("attn_q"), vec![EMBED, EMBED], GgmlType::Q4_K),
            (t("attn_k"), vec![EMBED, kv_dim], GgmlType::Q4_K),
            (t("attn_v"), vec![EMBED, kv_dim], GgmlType::Q6_K),
            (t("attn_output"), vec![EMBED, EMBED], GgmlType::Q4_K),
            (t("ffn_norm"), vec![EMBED], GgmlType::F32),
            (t("ffn_gate"), vec![EMBED, FF], GgmlType::Q4_K),
            (t("ffn_up"), vec![EMBED, FF], GgmlType::Q4_K),
            (t("ffn_down"), vec![FF, EMBED], GgmlType::Q6_K),
        ]);
    }
    layout.extend([
        ("output_norm.weight".into(), vec![EMBED], GgmlType::F32),
        ("output.weight".into(), vec![EMBED, n as u64], GgmlType::Q6_K),
    ]);
    let tensors: Vec<(&str, &[u64], GgmlType, Vec<u8>)> = layout
        .iter()
        .enumerate()
        .map(|(i, (name, dims, ty))| {
            let count = dims.iter().product::<u64>() as usize;
            // Norms scale the hidden state, around 1; a matrix's spread shrinks with its width.
            let values = if name.ends_with("norm.weight") {
                weight_values(count, i as u64, 0.1)
                    .iter()
                    .map(|v| 1.0 + v)
                    .collect()
            } else {
                weight_values(count, i as u64, 1.0 / (dims[0] as f32).sqrt())
            };
            (name.as_str(), dims.as_slice(), *ty, encode(*ty, &values))
        })
        .collect();
    file_from(b, &tensors)
}
