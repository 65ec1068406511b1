//! Golden tests: small files written by the test builder (`tests/golden/*.gguf` at the top of the
//! repository, committed), and beside each what `info`, `info --json` and `validate` print for it
//! (`NAME.info.txt`, `NAME.info.json`, `NAME.validate.txt`), and every other command's text and
//! every command's `--help` (`tests/golden/commands/`), all at `COLUMNS=80`, compared byte for
//! byte; and no line of them wider than 80 columns, but the data a user asked to see whole. A
//! change to the output, or to a file's recipe here, fails until the goldens are rewritten on
//! purpose: `GGUF_BLESS=1 cargo test -p gguf-cli --profile ci --test it golden`, then review the
//! diff.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use gguf_core::testkit::{GgufBuilder, strings};
use gguf_core::{Array, Endian, GgmlType};

/// `tests/golden` at the top of the repository.
fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden")
}

fn bless() -> bool {
    std::env::var_os("GGUF_BLESS").is_some_and(|v| v == "1")
}

/// A llama-like model of two layers: a 16-token SentencePiece vocabulary with scores and types,
/// bos and eos, a chat template, and tensors of three types (F32, Q8_0, Q4_0).
fn llama(endian: Endian) -> Vec<u8> {
    let tokens = [
        "<unk>",
        "<s>",
        "</s>",
        "<0x0A>",
        "▁",
        "▁the",
        "▁a",
        "▁hello",
        "▁world",
        "<|user|>",
        "<|assistant|>",
        "<|end|>",
        "e",
        "t",
        "he",
        "llo",
    ];
    let scores: Vec<f32> = (0..tokens.len()).map(|i| -(i as f32)).collect();
    let types: Vec<i32> = tokens
        .iter()
        .map(|t| match *t {
            "<unk>" => 2,
            "<s>" | "</s>" | "<|end|>" => 3,
            "<|user|>" | "<|assistant|>" => 4,
            "<0x0A>" => 6,
            _ => 1,
        })
        .collect();
    let mut b = GgufBuilder::new()
        .endian(endian)
        .kv("general.architecture", "llama")
        .kv("general.name", "Golden Llama")
        .kv("general.size_label", "tiny")
        .kv("general.file_type", 7u32)
        .kv("general.quantization_version", 2u32)
        .kv("llama.context_length", 2048u32)
        .kv("llama.embedding_length", 32u32)
        .kv("llama.block_count", 2u32)
        .kv("llama.feed_forward_length", 32u32)
        .kv("llama.attention.head_count", 2u32)
        .kv("llama.attention.head_count_kv", 1u32)
        .kv("llama.attention.layer_norm_rms_epsilon", 1e-5f32)
        .kv("llama.rope.freq_base", 10_000f32)
        .kv("llama.vocab_size", tokens.len() as u32)
        .kv("tokenizer.ggml.model", "llama")
        .kv("tokenizer.ggml.tokens", strings(&tokens))
        .kv("tokenizer.ggml.scores", Array::F32(scores))
        .kv("tokenizer.ggml.token_type", Array::I32(types))
        .kv("tokenizer.ggml.bos_token_id", 1u32)
        .kv("tokenizer.ggml.eos_token_id", 2u32)
        .kv("tokenizer.ggml.add_bos_token", true)
        .kv(
            "tokenizer.chat_template",
            "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}",
        )
        .tensor("token_embd.weight", &[32, 16], GgmlType::Q4_0)
        .tensor("output_norm.weight", &[32], GgmlType::F32);
    for layer in 0..2 {
        let t = |name: &str| format!("blk.{layer}.{name}.weight");
        b = b
            .tensor(t("attn_norm"), &[32], GgmlType::F32)
            .tensor(t("attn_q"), &[32, 32], GgmlType::Q8_0)
            .tensor(t("attn_k"), &[32, 16], GgmlType::Q8_0)
            .tensor(t("attn_v"), &[32, 16], GgmlType::Q8_0)
            .tensor(t("attn_output"), &[32, 32], GgmlType::Q8_0)
            .tensor(t("ffn_norm"), &[32], GgmlType::F32)
            .tensor(t("ffn_gate"), &[32, 32], GgmlType::Q8_0)
            .tensor(t("ffn_up"), &[32, 32], GgmlType::Q8_0)
            .tensor(t("ffn_down"), &[32, 32], GgmlType::Q8_0);
    }
    b.with_tensor_data().build()
}

/// A mixture of experts with multi-head latent attention (DeepSeek-V2's layout): 4 experts, 2
/// used, 1 shared.
fn moe_mla() -> Vec<u8> {
    GgufBuilder::new()
        .kv("general.architecture", "deepseek2")
        .kv("general.name", "Golden MoE")
        .kv("deepseek2.context_length", 4096u32)
        .kv("deepseek2.embedding_length", 16u32)
        .kv("deepseek2.block_count", 1u32)
        .kv("deepseek2.feed_forward_length", 32u32)
        .kv("deepseek2.expert_feed_forward_length", 8u32)
        .kv("deepseek2.attention.head_count", 4u32)
        .kv("deepseek2.attention.head_count_kv", 4u32)
        .kv("deepseek2.attention.kv_lora_rank", 8u32)
        .kv("deepseek2.attention.q_lora_rank", 8u32)
        .kv("deepseek2.attention.key_length", 12u32)
        .kv("deepseek2.attention.value_length", 8u32)
        .kv("deepseek2.rope.dimension_count", 4u32)
        .kv("deepseek2.rope.freq_base", 10_000f32)
        .kv("deepseek2.rope.scaling.type", "yarn")
        .kv("deepseek2.rope.scaling.factor", 4f32)
        .kv("deepseek2.rope.scaling.original_context_length", 1024u32)
        .kv("deepseek2.expert_count", 4u32)
        .kv("deepseek2.expert_used_count", 2u32)
        .kv("deepseek2.expert_shared_count", 1u32)
        .tensor("token_embd.weight", &[16, 8], GgmlType::F32)
        .tensor("blk.0.attn_kv_a_mqa.weight", &[16, 12], GgmlType::F16)
        .tensor("blk.0.attn_kv_b.weight", &[8, 64], GgmlType::F16)
        .tensor("blk.0.attn_q_a.weight", &[16, 8], GgmlType::F16)
        .tensor("blk.0.attn_q_b.weight", &[8, 48], GgmlType::F16)
        .tensor("blk.0.attn_output.weight", &[32, 16], GgmlType::F16)
        .tensor("blk.0.ffn_gate_inp.weight", &[16, 4], GgmlType::F32)
        .tensor("blk.0.ffn_gate_exps.weight", &[16, 8, 4], GgmlType::F16)
        .tensor("blk.0.ffn_up_exps.weight", &[16, 8, 4], GgmlType::F16)
        .tensor("blk.0.ffn_down_exps.weight", &[8, 16, 4], GgmlType::F16)
        .tensor("blk.0.ffn_gate_shexp.weight", &[16, 8], GgmlType::F16)
        .tensor("blk.0.ffn_up_shexp.weight", &[16, 8], GgmlType::F16)
        .tensor("blk.0.ffn_down_shexp.weight", &[8, 16], GgmlType::F16)
        .with_tensor_data()
        .build()
}

/// A file the validator has much to say about: its data section cut short, overlapping tensors,
/// a bos id outside the vocabulary, an unsafe chat template, a key that disguises itself.
fn findings() -> Vec<u8> {
    let file = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("general.name", "Golden Findings")
        .kv("general.alignment", 32u32)
        .kv("llama.block_count", 1u32)
        .kv("llama.context_length", 0u32)
        .kv("tokenizer.ggml.model", "llama")
        .kv("tokenizer.ggml.tokens", strings(&["<s>", "</s>", "a"]))
        .kv("tokenizer.ggml.bos_token_id", 7u32)
        .kv("general.n\u{200B}ame", "shadow")
        .kv(
            "tokenizer.chat_template",
            "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        )
        .tensor("token_embd.weight", &[4, 3], GgmlType::F32)
        .tensor_at("blk.0.attn_q.weight", &[4, 4], GgmlType::F32, 16)
        .tensor("blk.0.attn_k.weight", &[4, 4], GgmlType::F32)
        .with_tensor_data()
        .build();
    file[..file.len() - 20].to_vec()
}

/// The golden files: name and bytes. The kinds that are not models are the testkit's, as
/// llama.cpp's writers lay them out.
fn files() -> Vec<(&'static str, Vec<u8>)> {
    use gguf_core::testkit;
    vec![
        ("llama-tiny.gguf", llama(Endian::Little)),
        ("llama-tiny-be.gguf", llama(Endian::Big)),
        ("moe-mla.gguf", moe_mla()),
        ("findings.gguf", findings()),
        ("lora.gguf", testkit::lora_adapter()),
        ("imatrix.gguf", testkit::imatrix()),
        // Not named mmproj*.gguf: `info` would take it for the projector of every model here.
        ("projector.gguf", testkit::mmproj_vision_audio()),
        ("control-vector.gguf", testkit::control_vector()),
    ]
}

/// `expected` is `path`'s content, or with `GGUF_BLESS=1` is written there; the mismatches are
/// collected, so that one run names them all.
fn compare(path: &Path, actual: &[u8], mismatches: &mut Vec<String>) {
    if bless() {
        std::fs::write(path, actual).unwrap();
        return;
    }
    match std::fs::read(path) {
        Ok(expected) if expected == actual => {}
        Ok(expected) => mismatches.push(format!(
            "{} differs; got:\n{}\n(was:\n{})",
            path.display(),
            String::from_utf8_lossy(actual),
            String::from_utf8_lossy(&expected)
        )),
        Err(e) => mismatches.push(format!("{}: {e}", path.display())),
    }
}

/// Runs `ggufscope ARGS FILE` in the golden folder (so outputs name the file, not a path), in
/// an 80-column terminal's environment (`COLUMNS=80`, colour asked for but not a terminal); its
/// standard output, after checking the exit status.
fn run(args: &[&str], file: &str, status: i32) -> Vec<u8> {
    run_in(&golden_dir(), &[args, &[file]].concat(), status)
}

/// Runs `ggufscope ARGS` in `dir`, as [`run`] does.
fn run_in(dir: &Path, args: &[&str], status: i32) -> Vec<u8> {
    let file = args.last().copied().unwrap_or_default();
    let args = &args[..args.len().saturating_sub(1)];
    let out = Command::new(env!("CARGO_BIN_EXE_ggufscope"))
        .args(args)
        .arg(file)
        .current_dir(dir)
        .env("COLUMNS", "80")
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(status),
        "ggufscope {args:?} {file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The files and their outputs against the committed ones (or, with `GGUF_BLESS=1`, written), then
/// what the outputs must say whatever they are blessed to: one test, so that blessing writes no
/// file another test is reading.
#[test]
fn golden_files_and_their_outputs() {
    let dir = golden_dir();
    let mut mismatches = Vec::new();
    let mut outputs = HashMap::new();
    for (name, bytes) in files() {
        assert!(
            bytes.len() < 32 << 10,
            "{name}: {} bytes; keep golden files small",
            bytes.len()
        );
        compare(&dir.join(name), &bytes, &mut mismatches);
        let stem = name.trim_end_matches(".gguf");
        let denied = i32::from(name == "findings.gguf");
        // Under 80 columns, or data asked for whole (a path, a name) on a line of its own.
        for (suffix, output) in [
            ("info.txt", run(&["info"], name, 0)),
            ("info.json", run(&["info", "--json"], name, 0)),
            ("validate.txt", run(&["validate"], name, denied)),
        ] {
            let file = format!("{stem}.{suffix}");
            compare(&dir.join(&file), &output, &mut mismatches);
            outputs.insert(file, String::from_utf8(output).unwrap());
        }
    }
    for (file, text) in commands(&dir) {
        compare(
            &dir.join("commands").join(&file),
            text.as_bytes(),
            &mut mismatches,
        );
        outputs.insert(format!("commands/{file}"), text);
    }
    assert!(
        mismatches.is_empty(),
        "{} golden output(s) differ (GGUF_BLESS=1 rewrites them):\n\n{}",
        mismatches.len(),
        mismatches.join("\n\n")
    );
    // No line is wider than 80 columns: colour is off (not a terminal), every text wraps.
    for (file, text) in outputs.iter().filter(|(f, _)| f.ends_with(".txt")) {
        assert!(!text.contains('\x1b'), "{file}: colour written to a file");
        for line in text.lines() {
            let width = line.chars().count();
            assert!(
                width <= 80 || asked_whole(file, line),
                "{file}: {width} columns:\n{line}"
            );
        }
    }

    // The big-endian twin reads as the little-endian file: only its name and byte order differ,
    // and the validator adds only that llama.cpp will not load it.
    let lines = |file: &str| -> Vec<String> {
        crate::cli::flat(&outputs[file], 16)
            .replace("llama-tiny-be.gguf", "llama-tiny.gguf")
            .lines()
            .map(String::from)
            .collect()
    };
    let (little, big) = (lines("llama-tiny.info.txt"), lines("llama-tiny-be.info.txt"));
    let differing: Vec<_> = little.iter().zip(&big).filter(|(a, b)| a != b).collect();
    assert_eq!(differing.len(), 1, "{differing:?}");
    assert!(differing[0].1.contains("big-endian"), "{differing:?}");
    let big = crate::cli::flat(&outputs["llama-tiny-be.validate.txt"], 4);
    assert!(
        big.starts_with("llama-tiny-be.gguf:4: warning big-endian: ") && big.lines().count() == 1,
        "{big}"
    );

    // Each kind is described for what it is.
    let lora = &outputs["lora.info.txt"];
    assert!(
        lora.contains("  adapter       LoRA, rank 8, alpha 16, scale 2\n"),
        "{lora}"
    );
    assert!(!lora.contains("attention"), "{lora}");
    let imatrix = &outputs["imatrix.info.txt"];
    assert!(
        imatrix.contains("  entries       15 weight matrices\n"),
        "{imatrix}"
    );
    assert_eq!(outputs["imatrix.validate.txt"], "imatrix.gguf: ok\n");
    let mmproj = &outputs["projector.info.txt"];
    assert!(
        mmproj.contains("  capabilities  vision: an image encoder"),
        "{mmproj}"
    );
    assert_eq!(outputs["llama-tiny.validate.txt"], "llama-tiny.gguf: ok\n");

    // Each file is what its name says.
    let moe = &outputs["moe-mla.info.txt"];
    assert!(moe.contains("  attention     MLA, kv_lora_rank 8,"), "{moe}");
    assert!(
        moe.contains("  experts       4 total, 2 used, 1 shared\n"),
        "{moe}"
    );
    let findings = &outputs["findings.validate.txt"];
    for code in [
        "tensors-overlap",
        "tensor-past-end-of-file",
        "chat-template-code-execution",
        "disguised-key",
    ] {
        assert!(findings.contains(code), "{code}: {findings}");
    }
}

/// Lines past 80 columns that are data a user asked to see whole: a chat template's text in
/// `template`, a token's text, an argument naming a file.
fn asked_whole(file: &str, line: &str) -> bool {
    file.contains("template") || (file.contains("tokens") && line.contains('\t'))
}

/// Every command's text on the golden files, and every command's `--help`, by golden file name.
fn commands(dir: &Path) -> Vec<(String, String)> {
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    let mut out = Vec::new();
    for command in [
        "", "info", "fit", "tensor", "validate", "tokens", "tokenize", "template", "edit", "diff", "upstream",
    ] {
        let name = if command.is_empty() {
            "help".to_string()
        } else {
            format!("{command}.help")
        };
        let args: Vec<&str> = [command, "--help"]
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect();
        out.push((format!("{name}.txt"), text(run_in(dir, &args, 0))));
    }
    let llama = "llama-tiny.gguf";
    for (name, args, status) in [
        ("fit.txt", vec!["fit", "--ram", "8GiB", llama], 0),
        ("tensor.txt", vec!["tensor", llama, "token_embd.weight"], 0),
        ("tokens.txt", vec!["tokens", llama], 0),
        ("tokens-search.txt", vec!["tokens", llama, "--search", "he"], 0),
        ("tokenize.txt", vec!["tokenize", llama, "hello world"], 0),
        ("template.txt", vec!["template", llama], 0),
        ("diff.txt", vec!["diff", llama, "moe-mla.gguf"], 1),
        (
            "diff-values-identical.txt",
            vec!["diff", "--values", llama, "llama-tiny-be.gguf"],
            0,
        ),
        ("upstream.txt", vec!["upstream", llama, "upstream"], 1),
        (
            "validate-many.txt",
            vec!["validate", llama, "lora.gguf", "findings.gguf"],
            1,
        ),
    ] {
        out.push((name.to_string(), text(run_in(dir, &args, status))));
    }
    // `edit` writes a copy: into a scratch folder, the input named by its path.
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("golden-edit");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let input = dir.join(llama);
    let input = input.to_str().unwrap();
    let edit = |args: &[&str], status: i32| {
        let all = [&["edit", input, "-o", "edited.gguf"], args].concat();
        let _ = std::fs::remove_file(scratch.join("edited.gguf"));
        text(run_in(&scratch, &all, status))
    };
    out.push((
        "edit.txt".into(),
        edit(
            &[
                "--set",
                "general.name=Golden Llama, edited",
                "--set",
                "llama.context_length=4096",
            ],
            0,
        ),
    ));
    // A change the validator warns about: nothing written without --allow-findings.
    let bad = ["--set", "tokenizer.ggml.eos_token_id=999999"];
    assert_eq!(edit(&bad, 1), "");
    assert!(!scratch.join("edited.gguf").exists(), "nothing written");
    out.push((
        "edit-findings.txt".into(),
        edit(&[&bad[..], &["--allow-findings"]].concat(), 0),
    ));
    std::fs::remove_dir_all(&scratch).unwrap();
    out
}
