//! What a file is and what its model can do: every kind the test builder writes as llama.cpp's
//! writers lay it out, the same files without `general.type`, the real vocabularies of the shared
//! fixtures and of llama.cpp's tree, and llama.cpp's own chat templates.

use std::path::Path;

use gguf_core::capabilities::{Capability, capabilities};
use gguf_core::describe::Description;
use gguf_core::testkit::{self, GgufBuilder, strings};
use gguf_core::{Array, FileKind, GgmlType, Header};
use gguf_test_support::{fixture, gemma, llama_cpp_tree, read_header};

fn header(file: &[u8]) -> Header {
    gguf_core::parse(file).unwrap()
}

fn summary(file: &[u8]) -> Description {
    let h = header(file);
    let d = Description::of(&h);
    // The summary says the same kind.
    assert_eq!(h.summary().kind, d.kind);
    d
}

fn header_at(path: &Path) -> Header {
    read_header(path)
        .0
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The capabilities' ids, in order.
fn can(h: &Header) -> Vec<&'static str> {
    capabilities(h).iter().map(|c| c.capability.id()).collect()
}

/// `file` written again without the keys `drop` names.
fn without(file: &[u8], drop: &[&str]) -> Vec<u8> {
    let h = header(file);
    let edits: Vec<gguf_core::edit::Edit> = drop
        .iter()
        .map(|k| gguf_core::edit::Edit::Delete {
            key: (*k).to_string(),
        })
        .collect();
    let edited = gguf_core::edit::apply(&h, &edits).unwrap();
    let mut out = edited.bytes.clone();
    out.resize(out.len() + edited.padding as usize, 0);
    out.extend_from_slice(&file[h.data_offset as usize..]);
    out
}

#[test]
fn an_importance_matrix_is_described_by_its_chunks_and_entries() {
    let s = summary(&testkit::imatrix());
    assert_eq!(s.kind, FileKind::Imatrix);
    assert_eq!(s.kind.id(), "imatrix");
    let m = s.imatrix.unwrap();
    assert_eq!(m.datasets, ["wiki.train.raw"]);
    assert_eq!((m.chunk_count, m.chunk_size), (Some(100), Some(512)));
    // Seven matrices in each of two layers, and the output.
    assert_eq!(m.entries, 15);
    assert!(s.adapter.is_none() && s.mmproj.is_none() && s.control_vector.is_none());
    assert_eq!(s.capabilities, []);
    // Without general.type, its keys say what it is.
    let bare = summary(&without(&testkit::imatrix(), &["general.type"]));
    assert_eq!(bare.kind, FileKind::Imatrix);
}

#[test]
fn a_lora_adapter_is_described_by_rank_alpha_and_base_model() {
    let file = testkit::lora_adapter();
    let s = summary(&file);
    assert_eq!(s.kind, FileKind::Adapter);
    let a = s.adapter.clone().unwrap();
    assert_eq!(a.adapter_type.as_deref(), Some("lora"));
    assert_eq!(
        (a.alpha, a.ranks.clone(), a.rank()),
        (Some(16.0), vec![8], Some(8))
    );
    assert_eq!(a.scale(), Some(2.0));
    assert_eq!((a.pairs, a.layers), (6, 2));
    assert_eq!(a.targets, ["attn_q", "attn_k", "attn_v"]);
    let base = &a.base_models[..];
    assert_eq!(base.len(), 1);
    assert_eq!(base[0].name.as_deref(), Some("Toy Llama"));
    assert_eq!(base[0].organization.as_deref(), Some("Ggufscope"));
    assert_eq!(
        base[0].repo_url.as_deref(),
        Some("https://huggingface.co/ggufscope/toy-llama")
    );
    let [found] = &s.capabilities[..] else {
        panic!("{:?}", s.capabilities)
    };
    assert_eq!(found.capability, Capability::Adapter);
    assert_eq!(found.source, "general.type");
    assert_eq!(found.evidence, "a LoRA adapter over Toy Llama");
    // Without general.type, adapter.type says it.
    assert_eq!(
        summary(&without(&file, &["general.type"])).kind,
        FileKind::Adapter
    );
    // No alpha: llama.cpp scales by 1; ranks that differ have no one scale.
    let no_alpha = summary(&without(&file, &["adapter.lora.alpha"])).adapter.unwrap();
    assert_eq!((no_alpha.alpha, no_alpha.scale()), (None, Some(1.0)));
    let mixed = GgufBuilder::new()
        .kv("general.type", "adapter")
        .kv("adapter.lora.alpha", 16f32)
        .tensor("blk.0.attn_q.weight.lora_a", &[64, 8], GgmlType::F32)
        .tensor("blk.0.attn_q.weight.lora_b", &[8, 64], GgmlType::F32)
        .tensor("blk.0.attn_v.weight.lora_a", &[64, 16], GgmlType::F32)
        .tensor("blk.0.attn_v.weight.lora_b", &[16, 64], GgmlType::F32)
        .build();
    let mixed = summary(&mixed).adapter.unwrap();
    assert_eq!((mixed.ranks.clone(), mixed.scale()), (vec![8, 16], None));
}

#[test]
fn a_projector_is_described_by_its_encoders() {
    let s = summary(&testkit::mmproj_vision());
    assert_eq!(s.kind, FileKind::Mmproj);
    let p = s.mmproj.unwrap();
    assert_eq!(p.projector_type.as_deref(), Some("gemma3"));
    let v = p.vision.unwrap();
    assert_eq!(
        (
            v.image_size,
            v.patch_size,
            v.embedding_length,
            v.block_count,
            v.head_count,
            v.projection_dim
        ),
        (Some(16), Some(4), Some(16), Some(2), Some(4), Some(64))
    );
    assert_eq!((v.feed_forward_length, v.num_mel_bins), (Some(32), None));
    assert!(p.audio.is_none());
    assert_eq!(can(&header(&testkit::mmproj_vision())), ["vision"]);

    let both = header(&testkit::mmproj_vision_audio());
    let p = Description::of(&both).mmproj.unwrap();
    assert_eq!(p.projector_type, None);
    assert_eq!(p.vision.unwrap().projector_type.as_deref(), Some("gemma3nv"));
    let audio = p.audio.unwrap();
    assert_eq!(audio.projector_type.as_deref(), Some("gemma3na"));
    assert_eq!((audio.num_mel_bins, audio.embedding_length), (Some(16), Some(16)));
    assert_eq!(can(&both), ["vision", "audio"]);

    // An mmproj with clip.* keys only (no general.type, no architecture) is still one.
    let bare = without(
        &testkit::mmproj_vision(),
        &["general.type", "general.architecture"],
    );
    let s = summary(&bare);
    assert_eq!(s.kind, FileKind::Mmproj);
    assert_eq!(s.mmproj.unwrap().vision.unwrap().image_size, Some(16));
}

#[test]
fn a_control_vector_names_its_model_and_layers() {
    let s = summary(&testkit::control_vector());
    assert_eq!(s.kind, FileKind::ControlVector);
    let c = s.control_vector.unwrap();
    assert_eq!(
        (c.model_hint.as_deref(), c.layer_count, c.directions),
        (Some("llama"), Some(2), 2)
    );
}

#[test]
fn real_files_are_models_or_vocabularies() {
    gguf_test_support::needs_fixtures!();
    for entry in std::fs::read_dir(fixture("real")).unwrap() {
        let path = entry.unwrap().path();
        let h = header_at(&path);
        assert_eq!(h.summary().kind, FileKind::VocabOnly, "{}", path.display());
    }
    gguf_test_support::needs_gemma!();
    let gemma = header_at(&gemma());
    assert_eq!(gemma.summary().kind, FileKind::Model);
    // Gemma 3 270M (the pretrained model) carries no chat template.
    assert_eq!(can(&gemma), Vec::<&str>::new());
}

#[test]
fn capabilities_of_the_shared_fixtures() {
    gguf_test_support::needs_fixtures!();
    let of = |name: &str| can(&header_at(&fixture(&format!("real/ggml-vocab-{name}.gguf"))));
    // Command R's named tool_use template takes tools.
    assert_eq!(of("command-r"), ["chat", "tools"]);
    assert_eq!(of("qwen2"), ["chat"]);
    assert_eq!(of("phi-3"), ["chat"]);
    // StableLM 2's vocabulary has <fim_prefix>, <fim_suffix> and <fim_middle>.
    assert_eq!(of("stablelm"), ["chat", "fill-in-middle"]);
    // BERT attends both ways: an embedding model.
    assert_eq!(of("bert-bge"), ["embedding"]);
    let bge = capabilities(&header_at(&fixture("real/ggml-vocab-bert-bge.gguf")));
    assert_eq!(bge[0].source, "bert.attention.causal");
    for plain in [
        "llama-spm",
        "llama-bpe",
        "gpt-2",
        "falcon",
        "aquila",
        "deepseek-llm",
    ] {
        assert_eq!(of(plain), Vec::<&str>::new(), "{plain}");
    }
    let tools = capabilities(&header_at(&fixture("real/ggml-vocab-command-r.gguf")));
    assert_eq!(tools[0].evidence, "3 chat templates: default, tool_use, rag");
    assert_eq!(tools[1].source, "tokenizer.chat_template.tool_use");
}

#[test]
fn capabilities_of_llama_cpps_vocabularies() {
    gguf_test_support::needs_llama_cpp!();
    let of = |name: &str| header_at(&llama_cpp_tree().join(format!("models/ggml-vocab-{name}.gguf")));
    let gemma4 = of("gemma-4");
    assert_eq!(gemma4.summary().kind, FileKind::VocabOnly);
    assert_eq!(can(&gemma4), ["chat", "tools", "thinking"]);
    assert_eq!(
        capabilities(&gemma4)[2].evidence,
        "the template reads enable_thinking"
    );
    // Its vocabulary file carries Qwen 2's plain template.
    assert_eq!(can(&of("qwen35")), ["chat"]);
    // Fill-in-the-middle tokens found by their text, as llama.cpp finds them.
    let coder = capabilities(&of("deepseek-coder"));
    let [fim] = &coder[..] else { panic!("{coder:?}") };
    assert_eq!(fim.capability, Capability::FillInMiddle);
    assert_eq!(fim.source, "tokenizer.ggml.tokens");
    assert_eq!(
        fim.evidence,
        "the tokens <｜fim▁begin｜>, <｜fim▁hole｜>, <｜fim▁end｜>"
    );
    assert_eq!(can(&of("starcoder")), ["fill-in-middle"]);
    // nomic-bert-moe pools its tokens: an embedding model.
    let nomic = capabilities(&of("nomic-bert-moe"));
    assert_eq!(nomic[0].capability, Capability::Embedding);
    assert_eq!(nomic[0].source, "nomic-bert-moe.pooling_type");
}

/// A model whose only chat template is `template`.
fn with_template(template: &str) -> Header {
    header(
        &GgufBuilder::new()
            .kv("general.architecture", "llama")
            .kv("tokenizer.chat_template", template)
            .build(),
    )
}

#[test]
fn tools_and_thinking_of_llama_cpps_templates() {
    gguf_test_support::needs_llama_cpp!();
    // (template, takes tools, thinks): what each model's card says it does.
    let table = [
        ("Qwen-Qwen3-0.6B", true, true),
        ("Qwen-Qwen2.5-7B-Instruct", true, false),
        ("meta-llama-Llama-3.1-8B-Instruct", true, false),
        ("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", false, true),
        ("google-gemma-2-2b-it", false, false),
        ("microsoft-Phi-3.5-mini-instruct", false, false),
        ("openai-gpt-oss-120b", true, true),
        ("mistralai-Ministral-3-14B-Reasoning-2512", true, true),
        ("mistralai-Mistral-Nemo-Instruct-2407", true, false),
        ("NVIDIA-Nemotron-Nano-v2", true, true),
    ];
    for (name, tools, thinking) in table {
        let path = llama_cpp_tree().join(format!("models/templates/{name}.jinja"));
        let text = std::fs::read_to_string(&path).unwrap();
        let found = can(&with_template(&text));
        assert_eq!(found.contains(&"tools"), tools, "{name}: {found:?}");
        assert_eq!(found.contains(&"thinking"), thinking, "{name}: {found:?}");
        assert_eq!(found[0], "chat", "{name}");
    }
}

#[test]
fn names_in_strings_and_text_are_not_variables() {
    // `tools` printed as text, or in a string, is not the variable.
    assert_eq!(can(&with_template("tools: {{ 'tools' }}")), ["chat"]);
    assert_eq!(
        can(&with_template("{% if tools %}{{ tools | tojson }}{% endif %}")),
        ["chat", "tools"]
    );
    // A thinking tag in the text, or in a string the template prints.
    let tag = capabilities(&with_template("{{ '<think>\\n' }}"));
    assert_eq!(tag[1].evidence, "the template writes <think>");
    assert_eq!(
        can(&with_template("<think></think>{{ x }}")),
        ["chat", "thinking"]
    );
}

/// A vocabulary of `tokens` with the pieces llama.cpp reads.
fn vocab(b: GgufBuilder, tokens: &[&str]) -> GgufBuilder {
    b.kv("tokenizer.ggml.model", "gpt2")
        .kv("tokenizer.ggml.tokens", strings(tokens))
        .kv("tokenizer.ggml.token_type", Array::I32(vec![1; tokens.len()]))
}

#[test]
fn fill_in_the_middle_needs_all_three_tokens() {
    let llama = || GgufBuilder::new().kv("general.architecture", "llama");
    let three = ["a", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"];
    assert_eq!(can(&header(&vocab(llama(), &three).build())), ["fill-in-middle"]);
    assert_eq!(
        can(&header(&vocab(llama(), &three[..3]).build())),
        Vec::<&str>::new()
    );
    // Named by id, whatever their text.
    let named = vocab(llama(), &["a", "p", "s", "m"])
        .kv("tokenizer.ggml.fim_pre_token_id", 1u32)
        .kv("tokenizer.ggml.fim_suf_token_id", 2u32)
        .kv("tokenizer.ggml.fim_mid_token_id", 3u32)
        .build();
    let found = capabilities(&header(&named));
    assert_eq!(found[0].source, "tokenizer.ggml.fim_pre_token_id");
    assert_eq!(found[0].evidence, "the tokens p, s, m");
    // An id past the vocabulary names nothing.
    let past = vocab(llama(), &["a", "p", "s"])
        .kv("tokenizer.ggml.fim_pre_token_id", 1u32)
        .kv("tokenizer.ggml.fim_suf_token_id", 2u32)
        .kv("tokenizer.ggml.fim_mid_token_id", 9u32)
        .build();
    assert_eq!(can(&header(&past)), Vec::<&str>::new());
}

#[test]
fn embedding_and_reranking_from_pooling_and_classifier_heads() {
    let model = |pooling: Option<u32>| {
        let mut b = GgufBuilder::new().kv("general.architecture", "qwen3");
        if let Some(p) = pooling {
            b = b.kv("qwen3.pooling_type", p);
        }
        b
    };
    let with = |b: GgufBuilder| capabilities(&header(&b.build()));
    let mean = with(model(Some(1)));
    assert_eq!(
        (mean[0].capability, mean[0].evidence.as_str()),
        (Capability::Embedding, "mean pooling")
    );
    assert_eq!(with(model(Some(3)))[0].evidence, "last pooling");
    let rank = with(model(Some(4)));
    assert_eq!(
        (rank[0].capability, rank[0].evidence.as_str()),
        (Capability::Reranking, "rank pooling")
    );
    let labels = with(model(None).kv("qwen3.classifier.output_labels", strings(&["no", "yes"])));
    assert_eq!(labels[0].evidence, "a classifier head with 2 labels");
    let head = with(model(None).tensor("cls.output.weight", &[64, 1], GgmlType::F32));
    assert_eq!(
        (head[0].capability, head[0].source.as_str()),
        (Capability::Reranking, "cls.output.weight")
    );
    assert_eq!(with(model(None)), []);
    // A decoder that attends one way is no encoder.
    assert_eq!(with(model(None).kv("qwen3.attention.causal", true)), []);
}

#[test]
fn a_vocabulary_alone_and_an_unknown_general_type() {
    let vocab_only = vocab(
        GgufBuilder::new().kv("general.architecture", "llama"),
        &["a", "b"],
    )
    .build();
    assert_eq!(summary(&vocab_only).kind, FileKind::VocabOnly);
    // general.type "model" with no tensors: a vocabulary all the same.
    let typed = vocab(GgufBuilder::new().kv("general.type", "model"), &["a"]).build();
    assert_eq!(summary(&typed).kind, FileKind::VocabOnly);
    // A general.type no writer uses: the keys decide.
    let odd = GgufBuilder::new()
        .kv("general.type", "merged")
        .kv("general.architecture", "llama")
        .tensor("w", &[4], GgmlType::F32)
        .build();
    assert_eq!(summary(&odd).kind, FileKind::Model);
}

#[test]
fn a_projector_beside_a_model_lets_it_see_and_hear() {
    let model = with_template("{{ messages }}");
    let projector = header(&testkit::mmproj_vision());
    let d = Description::of(&model).with_projector("mmproj-model.gguf", &projector);
    let found: Vec<(&str, &str)> = d
        .capabilities
        .iter()
        .map(|c| (c.capability.id(), c.source.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("chat", "tokenizer.chat_template"),
            ("vision", "mmproj-model.gguf")
        ]
    );
    assert_eq!(
        d.capabilities[1].evidence,
        "an image encoder in the projector beside it"
    );
    // A file that is not a projector adds nothing.
    let d = Description::of(&model).with_projector("other.gguf", &header(&testkit::lora_adapter()));
    assert_eq!(d.capabilities.len(), 1);
}
