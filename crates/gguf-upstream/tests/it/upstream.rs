//! The upstream checks on the real fixtures (llama, qwen2, phi3, command-r, bert, dbrx, gpt2, a
//! DeepSeek LLM as llama, and the complete Gemma 3 270M) against configurations written for them in `tests/data` — each one matching, then
//! each field changed in turn — and on builder-made files for the rules: f32-rounded epsilons,
//! eos lists, per-layer values, RoPE scaling, templates, the bounded line diff.

use std::path::{Path, PathBuf};
use std::time::Instant;

use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::{Array, GgmlType, Header};
use gguf_upstream::{Check, Document, FIELDS, MAX_OUTPUT, Status, Upstream, compare, line_diff};
use serde_json::{Value as Json, json};

/// The upstream files of one model, as text, edited by the tests.
#[derive(Clone, Default)]
struct Set {
    config: String,
    tokenizer_config: Option<String>,
    generation_config: Option<String>,
    chat_template: Option<String>,
}

impl Set {
    fn load(dir: &str) -> Set {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(dir);
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
        Set {
            config: read("config.json").unwrap(),
            tokenizer_config: read("tokenizer_config.json"),
            generation_config: read("generation_config.json"),
            chat_template: read("chat_template.jinja"),
        }
    }

    fn config(config: Json) -> Set {
        Set {
            config: config.to_string(),
            ..Set::default()
        }
    }

    fn check(&self, header: &Header) -> Vec<Check> {
        let upstream = Upstream {
            config: &self.config,
            tokenizer_config: self.tokenizer_config.as_deref(),
            generation_config: self.generation_config.as_deref(),
            chat_template: self.chat_template.as_deref(),
        };
        compare(header, &upstream).unwrap()
    }

    /// The JSON file `name`, to edit.
    fn file(&mut self, name: &str) -> &mut Option<String> {
        match name {
            "config.json" => unreachable!("config.json is not optional"),
            "tokenizer_config.json" => &mut self.tokenizer_config,
            "generation_config.json" => &mut self.generation_config,
            "chat_template.jinja" => &mut self.chat_template,
            other => panic!("no file {other}"),
        }
    }

    /// Changes the value at `upstream_key` (`FILE:path`) with `change`.
    fn edit(&mut self, upstream_key: &str, change: impl FnOnce(&mut Json)) {
        let (file, path) = upstream_key.split_once(':').unwrap_or((upstream_key, ""));
        let text = if file == "config.json" {
            &mut self.config
        } else {
            self.file(file).as_mut().unwrap()
        };
        if path.is_empty() {
            let mut value = Json::String(text.clone());
            change(&mut value);
            *text = value.as_str().unwrap().to_string();
            return;
        }
        let mut doc: Json = serde_json::from_str(text).unwrap();
        let mut at = &mut doc;
        for part in path.split('.') {
            at = match part.split_once('[') {
                Some((name, index)) => &mut at[name][index.trim_end_matches(']').parse::<usize>().unwrap()],
                None => &mut at[part],
            };
        }
        change(at);
        *text = doc.to_string();
    }
}

fn header(path: &Path) -> Header {
    gguf_test_support::read_header(path).0.unwrap()
}

fn real(name: &str) -> PathBuf {
    gguf_test_support::fixture(&format!("real/ggml-vocab-{name}.gguf"))
}

fn status_of<'c>(checks: &'c [Check], field: &str) -> Option<&'c Check> {
    checks.iter().find(|c| c.field == field)
}

fn differences(checks: &[Check]) -> Vec<(&str, Status)> {
    checks
        .iter()
        .filter(|c| c.status.is_difference())
        .map(|c| (c.field.as_str(), c.status))
        .collect()
}

/// The fixtures with their configurations, and the fields each must find `same`.
fn models() -> Vec<(PathBuf, &'static str, Vec<&'static str>)> {
    let hyper = [
        "max_position_embeddings",
        "hidden_size",
        "intermediate_size",
        "num_hidden_layers",
        "num_attention_heads",
    ];
    let with = |extra: &[&'static str]| hyper.iter().chain(extra).copied().collect::<Vec<_>>();
    vec![
        (
            gguf_test_support::gemma(),
            "gemma-3-270m",
            with(&[
                "num_key_value_heads",
                "head_dim",
                "rope_theta",
                "rms_norm_eps",
                "sliding_window",
                "vocab_size",
                "bos_token_id",
                "eos_token_id",
                "pad_token_id",
                "bos_token",
                "eos_token",
                "pad_token",
                "add_bos_token",
                "add_eos_token",
            ]),
        ),
        (
            real("llama-spm"),
            "llama-spm",
            with(&[
                "num_key_value_heads",
                "rms_norm_eps",
                "vocab_size",
                "bos_token_id",
                "eos_token_id",
                "bos_token",
                "eos_token",
                "add_bos_token",
                "add_eos_token",
            ]),
        ),
        (
            real("qwen2"),
            "qwen2",
            with(&[
                "num_key_value_heads",
                "rope_theta",
                "rms_norm_eps",
                "vocab_size",
                "eos_token_id",
                "eos_token",
                "pad_token",
            ]),
        ),
        (
            real("phi-3"),
            "phi-3",
            with(&[
                "num_key_value_heads",
                "rope_theta",
                "rms_norm_eps",
                "rope_scaling.original_max_position_embeddings",
                "vocab_size",
                "bos_token_id",
                "eos_token_id",
                "pad_token_id",
                "bos_token",
                "eos_token",
                "pad_token",
                "add_bos_token",
                "add_eos_token",
            ]),
        ),
        (
            real("command-r"),
            "command-r",
            with(&[
                "num_key_value_heads",
                "rope_theta",
                "layer_norm_eps",
                "vocab_size",
                "bos_token_id",
                "eos_token_id",
                "pad_token_id",
                "bos_token",
                "eos_token",
                "pad_token",
                "add_bos_token",
                "add_eos_token",
            ]),
        ),
        (
            real("bert-bge"),
            "bert-bge",
            with(&["layer_norm_eps", "vocab_size", "pad_token_id", "pad_token"]),
        ),
        (
            // DBRX's own names: d_model, n_heads, attn_config.kv_n_heads, ffn_config.moe_num_experts…
            real("dbrx"),
            "dbrx",
            with(&[
                "num_key_value_heads",
                "rope_theta",
                "num_local_experts",
                "num_experts_per_tok",
                "vocab_size",
                "bos_token",
                "eos_token",
                "pad_token",
            ]),
        ),
        (
            real("gpt-2"),
            "gpt-2",
            vec![
                "max_position_embeddings",
                "hidden_size",
                "num_hidden_layers",
                "num_attention_heads",
                "layer_norm_eps",
                "vocab_size",
                "bos_token_id",
                "eos_token_id",
            ],
        ),
        (
            real("deepseek-llm"),
            "deepseek-llm",
            with(&[
                "num_key_value_heads",
                "rope_theta",
                "rms_norm_eps",
                "vocab_size",
                "bos_token_id",
                "eos_token_id",
                "bos_token",
                "eos_token",
                "add_bos_token",
                "add_eos_token",
            ]),
        ),
    ]
}

#[test]
fn each_fixture_matches_its_configuration() {
    for (path, dir, same) in models() {
        let checks = Set::load(dir).check(&header(&path));
        assert_eq!(differences(&checks), vec![], "{dir}");
        for field in same {
            let check = status_of(&checks, field).unwrap_or_else(|| panic!("{dir}: no {field} check"));
            assert_eq!(check.status, Status::Same, "{dir}: {field}: {check:?}");
        }
    }
}

#[test]
fn the_mapping_follows_the_converter_per_architecture() {
    let qwen2 = Set::load("qwen2").check(&header(&real("qwen2")));
    // Qwen 2's `sliding_window` is not written by the converter, so it is not checked.
    assert!(status_of(&qwen2, "sliding_window").is_none());
    let gemma = Set::load("gemma-3-270m").check(&header(&gguf_test_support::gemma()));
    let check = status_of(&gemma, "sliding_window").unwrap();
    assert_eq!(
        (check.gguf_key.as_str(), check.upstream_key.as_str(), &check.gguf),
        (
            "gemma3.attention.sliding_window",
            "config.json:sliding_window",
            &json!(512)
        )
    );
    let check = status_of(&gemma, "head_dim").unwrap();
    assert_eq!(check.gguf_key, "gemma3.attention.key_length");
    let check = status_of(&gemma, "rms_norm_eps").unwrap();
    assert_eq!((&check.gguf, &check.upstream), (&json!(1e-6), &json!(1e-6)));
    let check = status_of(&gemma, "eos_token_id").unwrap();
    assert_eq!(check.upstream_key, "generation_config.json:eos_token_id");
    assert_eq!(check.upstream, json!([1, 106]));
    let bert = Set::load("bert-bge").check(&header(&real("bert-bge")));
    assert_eq!(
        status_of(&bert, "layer_norm_eps").unwrap().gguf_key,
        "bert.attention.layer_norm_epsilon"
    );
    assert!(status_of(&bert, "rms_norm_eps").is_none());
    let command_r = Set::load("command-r").check(&header(&real("command-r")));
    // `rope.scaling.type = "none"` and no upstream scaling: nothing to compare.
    assert!(status_of(&command_r, "rope_scaling.type").is_none());
    // Every table field's key is one of the core's names.
    for field in FIELDS {
        assert!(
            !field.gguf.is_empty() && !field.upstream.is_empty(),
            "{}",
            field.name
        );
    }
}

/// `(field, gguf_key, upstream_key)` of every hyperparameter and RoPE check, in order.
fn keys(checks: &[Check]) -> Vec<(&str, &str, &str)> {
    checks
        .iter()
        .filter(|c| FIELDS.iter().any(|f| f.name == c.field) || c.field.starts_with("rope_scaling."))
        .map(|c| (c.field.as_str(), c.gguf_key.as_str(), c.upstream_key.as_str()))
        .collect()
}

/// Each fixture architecture's upstream names and the keys llama.cpp's converter (as vendored by
/// llama-cpp-python 0.3.36: `conversion/base.py` and the model classes) writes them to — read
/// there, written here by hand, so that a table change the converter does not make fails.
#[test]
fn the_converters_keys_per_architecture() {
    let hyper = |a: &'static str| {
        move |field: &'static str, key: &str, upstream: &'static str| {
            (field, format!("{a}.{key}"), format!("config.json:{upstream}"))
        }
    };
    let own = |checks: &[Check]| -> Vec<(String, String, String)> {
        keys(checks)
            .into_iter()
            .map(|(f, g, u)| (f.to_string(), g.to_string(), u.to_string()))
            .collect()
    };
    let expect = |rows: Vec<(&str, String, String)>| -> Vec<(String, String, String)> {
        rows.into_iter().map(|(f, g, u)| (f.to_string(), g, u)).collect()
    };

    // LlamaModel: TextModel's names; head_dim only when given (key_length).
    let l = hyper("llama");
    let llama = Set::load("llama-spm").check(&header(&real("llama-spm")));
    assert_eq!(
        own(&llama),
        expect(vec![
            l(
                "max_position_embeddings",
                "context_length",
                "max_position_embeddings"
            ),
            l("hidden_size", "embedding_length", "hidden_size"),
            l("intermediate_size", "feed_forward_length", "intermediate_size"),
            l("num_hidden_layers", "block_count", "num_hidden_layers"),
            l(
                "num_attention_heads",
                "attention.head_count",
                "num_attention_heads"
            ),
            l(
                "num_key_value_heads",
                "attention.head_count_kv",
                "num_key_value_heads"
            ),
            l("rms_norm_eps", "attention.layer_norm_rms_epsilon", "rms_norm_eps"),
        ])
    );

    // Qwen2Model: TextModel's names; `sliding_window` is not written (use_sliding_window false).
    let q = hyper("qwen2");
    let qwen2 = Set::load("qwen2").check(&header(&real("qwen2")));
    assert_eq!(
        own(&qwen2),
        expect(vec![
            q(
                "max_position_embeddings",
                "context_length",
                "max_position_embeddings"
            ),
            q("hidden_size", "embedding_length", "hidden_size"),
            q("intermediate_size", "feed_forward_length", "intermediate_size"),
            q("num_hidden_layers", "block_count", "num_hidden_layers"),
            q(
                "num_attention_heads",
                "attention.head_count",
                "num_attention_heads"
            ),
            q(
                "num_key_value_heads",
                "attention.head_count_kv",
                "num_key_value_heads"
            ),
            q("rope_theta", "rope.freq_base", "rope_theta"),
            q("rms_norm_eps", "attention.layer_norm_rms_epsilon", "rms_norm_eps"),
        ])
    );

    // Gemma3Model: head_dim → key_length, rope_theta of the global layers, sliding_window.
    let g = hyper("gemma3");
    let gemma = Set::load("gemma-3-270m").check(&header(&gguf_test_support::gemma()));
    assert_eq!(
        own(&gemma),
        expect(vec![
            g(
                "max_position_embeddings",
                "context_length",
                "max_position_embeddings"
            ),
            g("hidden_size", "embedding_length", "hidden_size"),
            g("intermediate_size", "feed_forward_length", "intermediate_size"),
            g("num_hidden_layers", "block_count", "num_hidden_layers"),
            g(
                "num_attention_heads",
                "attention.head_count",
                "num_attention_heads"
            ),
            g(
                "num_key_value_heads",
                "attention.head_count_kv",
                "num_key_value_heads"
            ),
            g("head_dim", "attention.key_length", "head_dim"),
            g("rope_theta", "rope.freq_base", "rope_theta"),
            g("rms_norm_eps", "attention.layer_norm_rms_epsilon", "rms_norm_eps"),
            g("sliding_window", "attention.sliding_window", "sliding_window"),
        ])
    );
    // Transformers 5 writes `rope_parameters`, per attention kind: the converter takes
    // `full_attention`'s (the global layers') first.
    let mut v5: Json = serde_json::from_str(&Set::load("gemma-3-270m").config).unwrap();
    let theta = v5.as_object_mut().unwrap().remove("rope_theta").unwrap();
    v5["rope_parameters"] = json!({
        "full_attention": {"rope_type": "default", "rope_theta": theta},
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
    });
    let checks = Set::config(v5).check(&header(&gguf_test_support::gemma()));
    let check = status_of(&checks, "rope_theta").unwrap();
    assert_eq!(
        (check.upstream_key.as_str(), check.status),
        (
            "config.json:rope_parameters.full_attention.rope_theta",
            Status::Same
        )
    );
    assert!(
        status_of(&checks, "rope_scaling.type").is_none(),
        "`default` is no scaling"
    );

    // Phi3MiniModel: its own names, and the original context from rope_scaling or the top level;
    // sliding_window written (0 when absent: this older fixture has none).
    let p = hyper("phi3");
    let phi3 = Set::load("phi-3").check(&header(&real("phi-3")));
    assert_eq!(
        own(&phi3),
        expect(vec![
            p(
                "max_position_embeddings",
                "context_length",
                "max_position_embeddings"
            ),
            p("hidden_size", "embedding_length", "hidden_size"),
            p("intermediate_size", "feed_forward_length", "intermediate_size"),
            p("num_hidden_layers", "block_count", "num_hidden_layers"),
            p(
                "num_attention_heads",
                "attention.head_count",
                "num_attention_heads"
            ),
            p(
                "num_key_value_heads",
                "attention.head_count_kv",
                "num_key_value_heads"
            ),
            p("rope_theta", "rope.freq_base", "rope_theta"),
            p("rms_norm_eps", "attention.layer_norm_rms_epsilon", "rms_norm_eps"),
            p(
                "rope_scaling.original_max_position_embeddings",
                "rope.scaling.original_context_length",
                "original_max_position_embeddings"
            ),
        ])
    );
    let window = GgufBuilder::new()
        .kv("general.architecture", "phi3")
        .kv("phi3.attention.sliding_window", 2047u32)
        .build();
    let checks = Set::config(json!({"sliding_window": 2047})).check(&gguf_core::parse(&window).unwrap());
    assert_eq!(
        keys(&checks),
        vec![(
            "sliding_window",
            "phi3.attention.sliding_window",
            "config.json:sliding_window"
        )]
    );
    assert_eq!(checks[0].status, Status::Same);

    // CommandR2Model: the context is `model_max_length` first (8192 in max_position_embeddings is
    // not what Command R was trained on); layer_norm_eps.
    let c = hyper("command-r");
    let command_r = Set::load("command-r").check(&header(&real("command-r")));
    assert_eq!(
        own(&command_r),
        expect(vec![
            c("max_position_embeddings", "context_length", "model_max_length"),
            c("hidden_size", "embedding_length", "hidden_size"),
            c("intermediate_size", "feed_forward_length", "intermediate_size"),
            c("num_hidden_layers", "block_count", "num_hidden_layers"),
            c(
                "num_attention_heads",
                "attention.head_count",
                "num_attention_heads"
            ),
            c(
                "num_key_value_heads",
                "attention.head_count_kv",
                "num_key_value_heads"
            ),
            c("rope_theta", "rope.freq_base", "rope_theta"),
            c("layer_norm_eps", "attention.layer_norm_epsilon", "layer_norm_eps"),
        ])
    );
    assert_eq!(
        status_of(&command_r, "max_position_embeddings").unwrap().upstream,
        json!(131072)
    );
    // Another architecture takes max_position_embeddings first.
    let llama_first = Set::config(json!({"max_position_embeddings": 4096, "model_max_length": 1_000_000}))
        .check(&header(&real("llama-spm")));
    assert_eq!(
        status_of(&llama_first, "max_position_embeddings")
            .unwrap()
            .upstream_key,
        "config.json:max_position_embeddings"
    );

    // BertModel: TextModel's names, layer_norm_eps (no RMS norm, no kv heads).
    let b = hyper("bert");
    let bert = Set::load("bert-bge").check(&header(&real("bert-bge")));
    assert_eq!(
        own(&bert),
        expect(vec![
            b(
                "max_position_embeddings",
                "context_length",
                "max_position_embeddings"
            ),
            b("hidden_size", "embedding_length", "hidden_size"),
            b("intermediate_size", "feed_forward_length", "intermediate_size"),
            b("num_hidden_layers", "block_count", "num_hidden_layers"),
            b(
                "num_attention_heads",
                "attention.head_count",
                "num_attention_heads"
            ),
            b("layer_norm_eps", "attention.layer_norm_epsilon", "layer_norm_eps"),
        ])
    );

    // DeepseekV2Model (MLA): one KV head and key_length = kv_lora_rank + qk_rope_head_dim are
    // the converter's, not upstream's, so neither is compared; the latent sizes are.
    let deepseek2 = GgufBuilder::new()
        .kv("general.architecture", "deepseek2")
        .kv("deepseek2.context_length", 163840u32)
        .kv("deepseek2.embedding_length", 2048u32)
        .kv("deepseek2.feed_forward_length", 10944u32)
        .kv("deepseek2.block_count", 27u32)
        .kv("deepseek2.attention.head_count", 16u32)
        .kv("deepseek2.attention.head_count_kv", 1u32)
        .kv("deepseek2.attention.key_length", 576u32)
        .kv("deepseek2.attention.value_length", 512u32)
        .kv("deepseek2.attention.value_length_mla", 128u32)
        .kv("deepseek2.attention.kv_lora_rank", 512u32)
        .kv("deepseek2.rope.dimension_count", 64u32)
        .kv("deepseek2.rope.freq_base", 10000.0f32)
        .kv("deepseek2.attention.layer_norm_rms_epsilon", 1e-6f32)
        .kv("deepseek2.expert_count", 64u32)
        .kv("deepseek2.expert_used_count", 6u32)
        .kv("deepseek2.expert_shared_count", 2u32)
        .kv("deepseek2.rope.scaling.type", "yarn")
        .kv("deepseek2.rope.scaling.factor", 40.0f32)
        .kv("deepseek2.rope.scaling.original_context_length", 4096u32)
        .build();
    // DeepSeek-V2-Lite's configuration, as far as the converter reads it.
    let lite = json!({
        "max_position_embeddings": 163840, "hidden_size": 2048, "intermediate_size": 10944,
        "num_hidden_layers": 27, "num_attention_heads": 16, "num_key_value_heads": 16,
        "kv_lora_rank": 512, "q_lora_rank": null, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
        "v_head_dim": 128, "n_routed_experts": 64, "n_shared_experts": 2, "num_experts_per_tok": 6,
        "rms_norm_eps": 1e-6, "rope_theta": 10000,
        "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
                         "beta_fast": 32, "beta_slow": 1, "mscale": 0.707, "mscale_all_dim": 0.707},
    });
    let checks = Set::config(lite).check(&gguf_core::parse(&deepseek2).unwrap());
    assert_eq!(differences(&checks), vec![], "{checks:#?}");
    let d = hyper("deepseek2");
    assert_eq!(
        own(&checks),
        expect(vec![
            d(
                "max_position_embeddings",
                "context_length",
                "max_position_embeddings"
            ),
            d("hidden_size", "embedding_length", "hidden_size"),
            d("intermediate_size", "feed_forward_length", "intermediate_size"),
            d("num_hidden_layers", "block_count", "num_hidden_layers"),
            d(
                "num_attention_heads",
                "attention.head_count",
                "num_attention_heads"
            ),
            d("rope_theta", "rope.freq_base", "rope_theta"),
            d("rms_norm_eps", "attention.layer_norm_rms_epsilon", "rms_norm_eps"),
            d("num_local_experts", "expert_count", "n_routed_experts"),
            d("num_experts_per_tok", "expert_used_count", "num_experts_per_tok"),
            d("n_shared_experts", "expert_shared_count", "n_shared_experts"),
            d("kv_lora_rank", "attention.kv_lora_rank", "kv_lora_rank"),
            d("qk_rope_head_dim", "rope.dimension_count", "qk_rope_head_dim"),
            d("v_head_dim", "attention.value_length_mla", "v_head_dim"),
            d("rope_scaling.type", "rope.scaling.type", "rope_scaling.type"),
            d(
                "rope_scaling.factor",
                "rope.scaling.factor",
                "rope_scaling.factor"
            ),
            d(
                "rope_scaling.original_max_position_embeddings",
                "rope.scaling.original_context_length",
                "rope_scaling.original_max_position_embeddings"
            ),
        ])
    );

    // The converter writes the old name `su` as `longrope`.
    let phi3_longrope = GgufBuilder::new()
        .kv("general.architecture", "phi3")
        .kv("phi3.rope.scaling.type", "longrope")
        .build();
    let checks = Set::config(json!({"rope_scaling": {"type": "su"}}))
        .check(&gguf_core::parse(&phi3_longrope).unwrap());
    assert_eq!(
        status_of(&checks, "rope_scaling.type").unwrap().status,
        Status::Same
    );
}

/// A value changed so that it no longer matches: numbers moved, strings and bools changed,
/// lists replaced.
fn changed(field: &str, value: &mut Json) {
    *value = match value.take() {
        Json::Number(n) if field == "vocab_size" => json!(n.as_u64().unwrap() - 1),
        Json::Number(n) if n.is_f64() => json!(n.as_f64().unwrap() * 2.0),
        Json::Number(n) => json!(n.as_u64().unwrap() + 1),
        Json::String(s) => Json::String(s + "x"),
        Json::Bool(b) => Json::Bool(!b),
        Json::Array(_) => json!([999_999]),
        Json::Object(mut o) => {
            let content = o["content"].as_str().unwrap().to_string() + "x";
            o.insert("content".into(), Json::String(content));
            Json::Object(o)
        }
        Json::Null => unreachable!(),
    };
}

#[test]
fn each_field_changed_in_turn_differs_alone() {
    for (path, dir, _) in models() {
        let header = header(&path);
        let set = Set::load(dir);
        let checks = set.check(&header);
        let mut tried = 0;
        let mut fixed = 0;
        for check in checks.iter().filter(|c| c.status == Status::Same) {
            let mut edited = set.clone();
            edited.edit(&check.upstream_key, |v| changed(&check.field, v));
            let after = edited.check(&header);
            assert_eq!(
                differences(&after),
                vec![(check.field.as_str(), Status::Differs)],
                "{dir}: {} changed",
                check.upstream_key
            );
            tried += 1;
            // Its fix, applied as `ggufscope edit` applies it, makes the file agree again.
            let difference = status_of(&after, &check.field).unwrap();
            let Some(fix) = &difference.fix else {
                // A vocabulary's size, and a token text the vocabulary lacks, are no key's value.
                assert!(
                    matches!(
                        check.field.as_str(),
                        "vocab_size" | "bos_token" | "eos_token" | "pad_token"
                    ) || check.field.starts_with("eot")
                        || check.field.starts_with("eom"),
                    "{dir}: {} has no fix",
                    check.field
                );
                continue;
            };
            // A shape the tensors contradict is refused by the edit (the validator's error): the
            // fix is still what upstream says.
            let Some(repaired) = apply_fix(&header, fix) else {
                continue;
            };
            // The field agrees (another may not: an id changed alone names another token).
            let again = edited.check(&repaired);
            let status = status_of(&again, &check.field).map(|c| c.status);
            assert_eq!(
                status,
                Some(Status::Same),
                "{dir}: {} fixed by {fix:?}",
                check.field
            );
            fixed += 1;
        }
        assert!(tried >= 8, "{dir}: only {tried} fields compared");
        assert!(fixed >= 4, "{dir}: only {fixed} fixes tried");
    }
}

/// `header` with `fix` applied, as `ggufscope edit --set KEY[:TYPE]=VALUE` applies it; `None`
/// when the edit is refused for the validator error it would make.
fn apply_fix(header: &Header, fix: &gguf_upstream::Fix) -> Option<Header> {
    let typed = fix.ty.map(|t| format!(":{t}")).unwrap_or_default();
    let set = format!("{}{typed}={}", fix.key, fix.value);
    if let Some(argument) = &fix.argument {
        // The argument is that edit, as the command line gives it.
        if let Some(arg) = argument.strip_prefix("--set ") {
            assert_eq!(arg, set);
        } else {
            assert_eq!(argument, &format!("--set-file {}=chat_template.jinja", fix.key));
        }
    }
    let edit = gguf_core::edit::Edit::parse_set(&set).unwrap();
    match gguf_core::edit::apply(header, &[edit]) {
        Ok(edited) => Some(edited.header),
        Err(e) if matches!(e.kind, gguf_core::edit::EditErrorKind::NewError { .. }) => None,
        Err(e) => panic!("{set}: {e}"),
    }
}

#[test]
fn only_config_json_checks_what_it_holds() {
    // Gemma against its config.json alone: the token texts, flags and templates that only
    // tokenizer_config.json, generation_config.json and chat_template.jinja hold go unchecked,
    // not "missing upstream".
    let gemma = header(&gguf_test_support::gemma());
    let set = Set::load("gemma-3-270m");
    let alone = Set {
        config: set.config.clone(),
        ..Set::default()
    };
    let checks = alone.check(&gemma);
    let missing: Vec<&str> = checks
        .iter()
        .filter(|c| c.status == Status::MissingUpstream)
        .map(|c| c.field.as_str())
        .collect();
    for unchecked in [
        "bos_token",
        "eos_token",
        "pad_token",
        "add_bos_token",
        "add_eos_token",
        "chat_template",
    ] {
        assert!(
            !checks.iter().any(|c| c.field == unchecked),
            "{unchecked}: {checks:#?}"
        );
    }
    // What config.json leaves out of what it would hold is still said.
    assert!(missing.iter().all(|f| !f.contains("token")), "{missing:?}");
    let read = ["config.json"];
    let doc = serde_json::to_value(Document::new("gemma.gguf", "dir/", &read, &checks)).unwrap();
    assert_eq!(
        doc["not_read"],
        json!([
            "tokenizer_config.json",
            "generation_config.json",
            "chat_template.jinja"
        ])
    );
    // With every file, the same fields are checked and agree.
    let all = set.check(&gemma);
    for field in ["bos_token", "eos_token", "add_bos_token"] {
        assert_eq!(status_of(&all, field).unwrap().status, Status::Same, "{field}");
    }
}

#[test]
fn fixes_name_the_key_its_type_and_the_value() {
    let gemma = header(&gguf_test_support::gemma());
    let mut set = Set::load("gemma-3-270m");
    set.edit("config.json:rope_theta", |v| *v = json!(500000.0));
    set.edit("generation_config.json:eos_token_id", |v| *v = json!([106, 107]));
    set.chat_template = Some("{% for m in messages %}{{ m.content }}{% endfor %}".into());
    let checks = set.check(&gemma);
    let fix = |field: &str| status_of(&checks, field).unwrap().fix.clone().unwrap();
    let rope = fix("rope_theta");
    assert_eq!(
        (
            rope.key.as_str(),
            rope.ty,
            rope.value.as_str(),
            rope.argument.as_deref()
        ),
        (
            "gemma3.rope.freq_base",
            None,
            "500000.0",
            Some("--set gemma3.rope.freq_base=500000.0")
        )
    );
    // An eos list: its first id.
    assert_eq!(
        fix("eos_token_id").argument.as_deref(),
        Some("--set tokenizer.ggml.eos_token_id=106")
    );
    // A template upstream keeps in chat_template.jinja: the file is named; a missing key is added
    // as a string.
    let template = fix("chat_template");
    assert_eq!(
        (template.ty, template.argument.as_deref()),
        (
            Some("str"),
            Some("--set-file tokenizer.chat_template=chat_template.jinja")
        )
    );
    assert_eq!(
        template.value,
        "{% for m in messages %}{{ m.content }}{% endfor %}"
    );
    // A key the file lacks gets the converter's type.
    let bare = gguf_core::parse(&GgufBuilder::new().kv("general.architecture", "llama").build()).unwrap();
    let checks = Set::config(json!({"rope_theta": 500000.0, "num_attention_heads": 32})).check(&bare);
    let args: Vec<&str> = checks
        .iter()
        .filter_map(|c| c.fix.as_ref()?.argument.as_deref())
        .collect();
    assert_eq!(
        args,
        [
            "--set llama.attention.head_count:u32=32",
            "--set llama.rope.freq_base:f32=500000.0"
        ]
    );
}

#[test]
fn each_field_missing_in_the_file_is_missing_in_gguf() {
    // The table's fields, written upstream under their usual names for a file that has none.
    let file = GgufBuilder::new().kv("general.architecture", "gemma3").build();
    let header = gguf_core::parse(&file).unwrap();
    let mut config = serde_json::Map::new();
    for field in FIELDS.iter().filter(|f| f.archs.includes("gemma3")) {
        config.insert(field.name.into(), json!(7));
    }
    let checks = Set::config(Json::Object(config)).check(&header);
    let missing: Vec<&str> = checks
        .iter()
        .filter(|c| c.status == Status::MissingInGguf)
        .map(|c| c.field.as_str())
        .collect();
    let expected: Vec<&str> = FIELDS
        .iter()
        .filter(|f| f.archs.includes("gemma3"))
        .map(|f| f.name)
        .collect();
    assert_eq!(missing, expected);
    assert!(missing.contains(&"sliding_window") && !missing.contains(&"v_head_dim"));
}

#[test]
fn a_template_missing_in_the_gguf_is_missing_in_gguf() {
    let mut set = Set::load("gemma-3-270m");
    set.chat_template = Some("{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}\n".into());
    let checks = set.check(&header(&gguf_test_support::gemma()));
    assert_eq!(
        differences(&checks),
        vec![("chat_template", Status::MissingInGguf)]
    );
    let check = status_of(&checks, "chat_template").unwrap();
    assert_eq!(
        (check.gguf_key.as_str(), check.upstream_key.as_str(), &check.gguf),
        ("tokenizer.chat_template", "chat_template.jinja", &Json::Null)
    );
}

/// The file's templates, by name (`default` for `tokenizer.chat_template`).
fn templates_of(header: &Header) -> Vec<(String, String)> {
    gguf_core::chat_template::chat_templates(header)
        .iter()
        .map(|t| {
            let name = String::from_utf8(t.title().to_vec()).unwrap();
            (name, String::from_utf8(t.text.to_vec()).unwrap())
        })
        .collect()
}

fn with_tokenizer_field(set: &Set, name: &str, value: Json) -> Set {
    let mut set = set.clone();
    let mut doc: Json = serde_json::from_str(set.tokenizer_config.as_deref().unwrap_or("{}")).unwrap();
    doc[name] = value;
    set.tokenizer_config = Some(doc.to_string());
    set
}

#[test]
fn templates_as_a_string_a_list_or_a_jinja_file() {
    // Phi-3: one template, as a string in tokenizer_config.json, then with Windows line endings,
    // then as chat_template.jinja.
    let phi3 = header(&real("phi-3"));
    let template = templates_of(&phi3).remove(0).1;
    let set = with_tokenizer_field(&Set::load("phi-3"), "chat_template", json!(template));
    let checks = set.check(&phi3);
    let check = status_of(&checks, "chat_template").unwrap();
    assert_eq!(
        (check.status, check.upstream_key.as_str()),
        (Status::Same, "tokenizer_config.json:chat_template")
    );
    let crlf = with_tokenizer_field(&set, "chat_template", json!(template.replace('\n', "\r\n")));
    assert_eq!(
        status_of(&crlf.check(&phi3), "chat_template").unwrap().status,
        Status::Same
    );
    let mut jinja = Set::load("phi-3");
    jinja.chat_template = Some(template.clone());
    assert_eq!(
        status_of(&jinja.check(&phi3), "chat_template").unwrap().status,
        Status::Same
    );
    // chat_template.jinja is the one transformers uses when both exist.
    let mut both = with_tokenizer_field(&Set::load("phi-3"), "chat_template", json!("other"));
    both.chat_template = Some(template.clone());
    assert_eq!(differences(&both.check(&phi3)), vec![]);

    // Command-R: a list of named templates, each against its own key.
    let command_r = header(&real("command-r"));
    let named = templates_of(&command_r);
    assert_eq!(named.len(), 3);
    let list: Vec<Json> = named
        .iter()
        .map(|(name, text)| json!({"name": name, "template": text}))
        .collect();
    let set = with_tokenizer_field(&Set::load("command-r"), "chat_template", json!(list));
    let checks = set.check(&command_r);
    assert_eq!(differences(&checks), vec![]);
    for (field, key) in [
        ("chat_template", "tokenizer.chat_template"),
        ("chat_template.tool_use", "tokenizer.chat_template.tool_use"),
        ("chat_template.rag", "tokenizer.chat_template.rag"),
    ] {
        let check = status_of(&checks, field).unwrap();
        assert_eq!(
            (check.gguf_key.as_str(), check.status),
            (key, Status::Same),
            "{field}"
        );
    }
    // Only the default upstream: the file's named ones are missing upstream, not differences.
    let set = with_tokenizer_field(&Set::load("command-r"), "chat_template", json!(named[0].1));
    let checks = set.check(&command_r);
    assert_eq!(differences(&checks), vec![]);
    assert_eq!(
        status_of(&checks, "chat_template.rag").unwrap().status,
        Status::MissingUpstream
    );
}

#[test]
fn a_changed_template_differs_with_its_lines() {
    let phi3 = header(&real("phi-3"));
    let template = templates_of(&phi3).remove(0).1;
    let lines = template.split('\n').count();
    assert!(lines > 3, "{lines}");
    let changed = template.replacen("{% for message in messages %}", "{% for m in messages %}", 1);
    assert_ne!(changed, template);
    let mut set = Set::load("phi-3");
    set.chat_template = Some(changed.clone());
    let checks = set.check(&phi3);
    let check = status_of(&checks, "chat_template").unwrap();
    assert_eq!(check.status, Status::Differs);
    let diff = check.diff.as_ref().unwrap();
    assert!(diff.complete);
    let removed: Vec<&String> = diff
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter(|l| l.starts_with('-'))
        .collect();
    let added: Vec<&String> = diff
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter(|l| l.starts_with('+'))
        .collect();
    let line = template
        .split('\n')
        .position(|l| l.contains("{% for message in messages %}"))
        .unwrap();
    assert_eq!(
        removed,
        vec![&format!("-{}", template.split('\n').nth(line).unwrap())]
    );
    assert_eq!(
        added,
        vec![&format!("+{}", changed.split('\n').nth(line).unwrap())]
    );
    assert!(diff.hunks[0].gguf_line <= line + 1);
}

#[test]
fn line_diff_hunks() {
    let a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12";
    let b = "1\n2\n3\nfour\n5\n6\n7\n8\n9\n10\n11\n12\n13";
    let diff = line_diff(a, b);
    assert!(diff.complete);
    assert_eq!(diff.hunks.len(), 2);
    assert_eq!((diff.hunks[0].gguf_line, diff.hunks[0].upstream_line), (2, 2));
    assert_eq!(diff.hunks[0].lines, [" 2", " 3", "-4", "+four", " 5", " 6"]);
    assert_eq!((diff.hunks[1].gguf_line, diff.hunks[1].upstream_line), (11, 11));
    assert_eq!(diff.hunks[1].lines, [" 11", " 12", "+13"]);
    // Changes close together share a hunk.
    let diff = line_diff("a\nb\nc\nd\ne", "A\nb\nc\nd\nE");
    assert_eq!(diff.hunks.len(), 1);
    assert_eq!(diff.hunks[0].lines, ["-a", "+A", " b", " c", " d", "-e", "+E"]);
    // An insertion and a deletion.
    let diff = line_diff("x\ny\nz", "x\nz\nw");
    assert_eq!(diff.hunks[0].lines, [" x", "-y", " z", "+w"]);
}

#[test]
fn line_diff_is_bounded_on_hostile_input() {
    // 200,000 lines that all differ, and 100,000 interleaved changes: no quadratic blowup, and
    // the output stops at its cap.
    let a: String = (0..200_000).map(|i| format!("a{i}\n")).collect();
    let b: String = (0..200_000).map(|i| format!("b{i}\n")).collect();
    let c: String = (0..100_000)
        .map(|i| {
            if i % 2 == 0 {
                format!("{i}\n")
            } else {
                format!("x{i}\n")
            }
        })
        .collect();
    let d: String = (0..100_000)
        .map(|i| {
            if i % 2 == 0 {
                format!("{i}\n")
            } else {
                format!("y{i}\n")
            }
        })
        .collect();
    for (x, y) in [(&a, &b), (&c, &d), (&a, &c)] {
        let started = Instant::now();
        let diff = line_diff(x, y);
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
        assert!(!diff.complete);
        let shown: usize = diff.hunks.iter().map(|h| h.lines.len()).sum();
        assert_eq!(shown, MAX_OUTPUT);
    }
}

#[test]
fn f32_rounded_epsilons_are_same() {
    let file = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("llama.attention.layer_norm_rms_epsilon", 1e-5f32)
        .kv("llama.attention.layer_norm_epsilon", 1e-12f32)
        .kv("llama.rope.freq_base", 500_000f32)
        .build();
    let header = gguf_core::parse(&file).unwrap();
    for (rms, ln, theta) in [
        (json!(1e-5), json!(1e-12), json!(500000.0)),
        (json!(0.00001), json!(9.99999999999e-13), json!(500000)),
        (json!(1.000_000_01e-5), json!(1.0000000001e-12), json!(500000.01)),
    ] {
        let checks = Set::config(json!({"rms_norm_eps": rms, "layer_norm_eps": ln, "rope_theta": theta}))
            .check(&header);
        assert_eq!(differences(&checks), vec![], "{rms} {ln} {theta}");
        assert_eq!(checks.len(), 3);
    }
    let checks =
        Set::config(json!({"rms_norm_eps": 1.1e-5, "layer_norm_eps": 1e-12, "rope_theta": 500000.0}))
            .check(&header);
    assert_eq!(differences(&checks), vec![("rms_norm_eps", Status::Differs)]);
}

fn with_ids(eos: u32, eot: Option<u32>) -> Header {
    let mut b = GgufBuilder::new()
        .kv("general.architecture", "gemma3")
        .kv(
            "tokenizer.ggml.tokens",
            strings(&["<pad>", "<eos>", "<bos>", "<end_of_turn>"]),
        )
        .kv("tokenizer.ggml.eos_token_id", eos);
    if let Some(eot) = eot {
        b = b.kv("tokenizer.ggml.eot_token_id", eot);
    }
    gguf_core::parse(&b.build()).unwrap()
}

#[test]
fn an_eos_list_must_hold_the_files_eos_and_eot() {
    let generation = |eos: Json| Set {
        config: "{}".into(),
        generation_config: Some(json!({"eos_token_id": eos}).to_string()),
        ..Set::default()
    };
    let statuses = |header: &Header, eos: Json| -> Vec<(String, Status)> {
        generation(eos)
            .check(header)
            .into_iter()
            .filter(|c| c.field.ends_with("_id"))
            .map(|c| (c.field, c.status))
            .collect()
    };
    let eos_only = with_ids(1, None);
    assert_eq!(
        statuses(&eos_only, json!([1, 3])),
        [("eos_token_id".into(), Status::Same)]
    );
    assert_eq!(
        statuses(&eos_only, json!(1)),
        [("eos_token_id".into(), Status::Same)]
    );
    assert_eq!(
        statuses(&eos_only, json!([2, 3])),
        [("eos_token_id".into(), Status::Differs)]
    );
    assert_eq!(
        statuses(&eos_only, json!(3)),
        [("eos_token_id".into(), Status::Differs)]
    );
    let with_eot = with_ids(1, Some(3));
    assert_eq!(
        statuses(&with_eot, json!([1, 3])),
        [
            ("eos_token_id".into(), Status::Same),
            ("eot_token_id".into(), Status::Same)
        ]
    );
    assert_eq!(
        statuses(&with_eot, json!(1)),
        [
            ("eos_token_id".into(), Status::Same),
            ("eot_token_id".into(), Status::Differs)
        ]
    );
    // generation_config.json wins over config.json, which is read when it has none.
    let mut set = generation(json!([1, 3]));
    set.config = json!({"eos_token_id": 2}).to_string();
    assert_eq!(differences(&set.check(&with_eot)), vec![]);
    set.generation_config = None;
    let checks = set.check(&with_eot);
    assert_eq!(
        status_of(&checks, "eos_token_id").unwrap().upstream_key,
        "config.json:eos_token_id"
    );
    assert_eq!(
        differences(&checks),
        vec![
            ("eos_token_id", Status::Differs),
            ("eot_token_id", Status::Differs)
        ]
    );
}

#[test]
fn token_texts_as_strings_or_added_tokens() {
    let header = with_ids(1, None);
    for eos in [json!("<eos>"), json!({"content": "<eos>", "special": true})] {
        let set = Set {
            config: "{}".into(),
            tokenizer_config: Some(json!({"eos_token": eos}).to_string()),
            ..Set::default()
        };
        let checks = set.check(&header);
        let check = status_of(&checks, "eos_token").unwrap();
        assert_eq!(
            (check.status, check.gguf_key.as_str(), &check.gguf),
            (Status::Same, "tokenizer.ggml.tokens[1]", &json!("<eos>"))
        );
    }
}

#[test]
fn per_layer_values_compare_layer_by_layer() {
    let file = |kv: Array| {
        let b = GgufBuilder::new()
            .kv("general.architecture", "llama")
            .kv("llama.attention.head_count_kv", kv);
        gguf_core::parse(&b.build()).unwrap()
    };
    let status = |header: &Header, upstream: Json| {
        let checks = Set::config(json!({"num_key_value_heads": upstream})).check(header);
        status_of(&checks, "num_key_value_heads").unwrap().status
    };
    let uniform = file(Array::U32(vec![4, 4, 4]));
    let varying = file(Array::U32(vec![4, 0, 8]));
    assert_eq!(status(&uniform, json!(4)), Status::Same);
    assert_eq!(status(&uniform, json!(8)), Status::Differs);
    assert_eq!(status(&varying, json!(4)), Status::Differs);
    assert_eq!(status(&varying, json!([4, 0, 8])), Status::Same);
    assert_eq!(status(&varying, json!([4, 8, 0])), Status::Differs);
}

#[test]
fn rope_scaling_as_keys_or_as_a_tensor() {
    let yarn = GgufBuilder::new()
        .kv("general.architecture", "qwen2")
        .kv("qwen2.rope.scaling.type", "yarn")
        .kv("qwen2.rope.scaling.factor", 4.0f32)
        .kv("qwen2.rope.scaling.original_context_length", 32768u32)
        .build();
    let yarn = gguf_core::parse(&yarn).unwrap();
    let config =
        json!({"rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}});
    let checks = Set::config(config).check(&yarn);
    assert_eq!(checks.len(), 3);
    assert!(checks.iter().all(|c| c.status == Status::Same), "{checks:?}");
    let checks = Set::config(json!({"rope_scaling": {"rope_type": "yarn", "factor": 8.0}})).check(&yarn);
    assert_eq!(
        differences(&checks),
        vec![("rope_scaling.factor", Status::Differs)]
    );
    assert_eq!(
        status_of(&checks, "rope_scaling.original_max_position_embeddings")
            .unwrap()
            .status,
        Status::MissingUpstream
    );

    // Llama 3's scaling is the rope_freqs tensor.
    let llama3 = json!({"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192}});
    let with = gguf_core::testkit::model_with_tensors(&[("rope_freqs.weight", &[64], GgmlType::F32)]);
    let checks = Set::config(llama3.clone()).check(&gguf_core::parse(&with).unwrap());
    assert_eq!(checks.len(), 1, "{checks:?}");
    assert_eq!(
        (checks[0].status, checks[0].gguf_key.as_str()),
        (Status::Same, "rope_freqs.weight")
    );
    assert!(checks[0].note.as_ref().unwrap().contains("rope_freqs.weight"));
    let without = gguf_core::testkit::model_with_tensors(&[("token_embd.weight", &[64], GgmlType::F32)]);
    let checks = Set::config(llama3).check(&gguf_core::parse(&without).unwrap());
    assert_eq!(
        differences(&checks),
        vec![("rope_scaling.type", Status::MissingInGguf)]
    );
}

#[test]
fn a_padded_upstream_vocabulary_is_a_note() {
    let llama = header(&real("llama-spm"));
    let checks = Set::config(json!({"vocab_size": 32064})).check(&llama);
    let check = status_of(&checks, "vocab_size").unwrap();
    assert_eq!(check.status, Status::Same);
    assert!(check.note.as_ref().unwrap().contains("32064"));
    let checks = Set::config(json!({"vocab_size": 32000})).check(&llama);
    assert_eq!(status_of(&checks, "vocab_size").unwrap().note, None);
    let checks = Set::config(json!({"vocab_size": 31999})).check(&llama);
    assert_eq!(status_of(&checks, "vocab_size").unwrap().status, Status::Differs);
}

#[test]
fn a_multimodal_models_text_config_comes_first() {
    let gemma = header(&gguf_test_support::gemma());
    let mut set = Set::load("gemma-3-270m");
    let text_config: Json = serde_json::from_str(&set.config).unwrap();
    set.config = json!({
        "architectures": ["Gemma3ForConditionalGeneration"],
        "text_config": text_config,
        "vision_config": {"hidden_size": 1152, "num_hidden_layers": 27, "num_attention_heads": 16},
        "hidden_size": 1,
    })
    .to_string();
    let checks = set.check(&gemma);
    assert_eq!(differences(&checks), vec![]);
    assert_eq!(
        status_of(&checks, "hidden_size").unwrap().upstream_key,
        "config.json:text_config.hidden_size"
    );
}

#[test]
fn files_that_are_not_json_objects_are_errors() {
    let header = with_ids(1, None);
    let bad = |config: &str, tokenizer: Option<&str>| {
        let upstream = Upstream {
            config,
            tokenizer_config: tokenizer,
            ..Upstream::default()
        };
        compare(&header, &upstream).unwrap_err()
    };
    let e = bad("{\"a\": ", None);
    assert_eq!(e.file, "config.json");
    assert!(e.message.contains("line 1"), "{}", e.message);
    assert_eq!(bad("[1, 2]", None).file, "config.json");
    assert_eq!(bad("{}", Some("\"text\"")).file, "tokenizer_config.json");
    // A byte-order mark is not an error.
    assert!(
        compare(
            &header,
            &Upstream {
                config: "\u{feff}{}",
                ..Upstream::default()
            }
        )
        .is_ok()
    );
}

#[test]
fn the_document() {
    let gemma = header(&gguf_test_support::gemma());
    let mut set = Set::load("gemma-3-270m");
    set.edit("config.json:rope_theta", |v| *v = json!(10000.0));
    let checks = set.check(&gemma);
    let read = ["config.json", "tokenizer_config.json", "generation_config.json"];
    let doc = serde_json::to_value(Document::new("gemma.gguf", "dir/", &read, &checks)).unwrap();
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["checks", "differences", "file", "not_read", "read", "source"]
    );
    assert_eq!(doc["not_read"], json!(["chat_template.jinja"]));
    assert_eq!(doc["differences"], 1);
    let rope = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["field"] == "rope_theta")
        .unwrap();
    let mut fields: Vec<&String> = rope.as_object().unwrap().keys().collect();
    fields.sort();
    assert_eq!(
        fields,
        [
            "diff",
            "field",
            "fix",
            "gguf",
            "gguf_key",
            "impact",
            "note",
            "status",
            "upstream",
            "upstream_key"
        ]
    );
    assert_eq!(
        (&rope["gguf"], &rope["upstream"], &rope["status"]),
        (&json!(1000000.0), &json!(10000.0), &json!("differs"))
    );
    assert_eq!(
        rope["fix"],
        json!({
            "key": "gemma3.rope.freq_base",
            "type": null,
            "value": "10000.0",
            "argument": "--set gemma3.rope.freq_base=10000.0"
        })
    );
}
