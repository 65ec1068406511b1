//! `ggufscope diff` run as a user would: exit statuses 0/1/2, exactly the one difference of
//! builder-made pairs, the quantization error of Q8_0 and Q4_0 against F32 checked against
//! figures computed here, split models, and URLs served by the test server.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::cli::{ggufscope, stderr, stdout, temp_file};
use gguf_core::GgmlType;
use gguf_core::testkit::GgufBuilder;
use gguf_test_support::fixture;
use gguf_test_support::quant::{dequantize, encode, file_with, sample_values};
use serde_json::Value as Json;

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `diff --json` of two paths or URLs, with its exit status.
fn diff_json(a: &str, b: &str, extra: &[&str]) -> (i32, Json) {
    let out = ggufscope([&["diff", "--json", a, b], extra].concat());
    let code = out.status.code().unwrap();
    assert!(code < 2, "{}", stderr(&out));
    (code, serde_json::from_slice(&out.stdout).unwrap())
}

fn model(context: u32, token_types: Vec<i32>, attn_q: GgmlType, embd_rows: u64) -> Vec<u8> {
    GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("llama.context_length", context)
        .kv("tokenizer.ggml.token_type", gguf_core::Array::I32(token_types))
        .tensor("token_embd.weight", &[64, embd_rows], GgmlType::F32)
        .tensor("blk.0.attn_q.weight", &[64, 64], attn_q)
        .with_tensor_data()
        .build()
}

#[test]
fn a_file_against_itself_is_the_same_with_exit_0() {
    for rel in [
        "real/ggml-vocab-command-r.gguf",
        "synth/quants.gguf",
        "synth/sharded-00001-of-00003.gguf",
    ] {
        let f = fixture(rel);
        let (code, doc) = diff_json(path(&f), path(&f), &["--values"]);
        assert_eq!(code, 0, "{rel}");
        assert_eq!(
            (doc["same"].as_bool(), doc["differences"].as_u64()),
            (Some(true), Some(0))
        );
        for v in doc["values"].as_array().unwrap() {
            assert_eq!(
                (v["rmse"].as_f64(), v["exact"].as_bool()),
                (Some(0.0), Some(true)),
                "{v}"
            );
            assert_eq!(v["snr_db"], "inf");
        }
        let out = ggufscope(["diff", path(&f), path(&f)]);
        assert_eq!(out.status.code(), Some(0));
        assert!(
            stdout(&out).lines().nth(2) == Some("the same"),
            "{}",
            stdout(&out)
        );
    }
}

#[test]
fn builder_pairs_give_exactly_their_one_difference_with_exit_1() {
    let base = temp_file(
        "diff",
        "base.gguf",
        &model(4096, vec![3, 1, 1], GgmlType::Q8_0, 4),
    );
    let pairs = [
        ("key.gguf", model(8192, vec![3, 1, 1], GgmlType::Q8_0, 4)),
        ("element.gguf", model(4096, vec![3, 1, 6], GgmlType::Q8_0, 4)),
        ("type.gguf", model(4096, vec![3, 1, 1], GgmlType::Q4_0, 4)),
        ("shape.gguf", model(4096, vec![3, 1, 1], GgmlType::Q8_0, 5)),
    ];
    for (name, bytes) in pairs {
        let other = temp_file("diff", name, &bytes);
        let (code, doc) = diff_json(path(&base), path(&other), &[]);
        assert_eq!((code, doc["same"].as_bool()), (1, Some(false)), "{name}");
        let m = &doc["metadata"];
        let t = &doc["tensors"];
        assert_eq!(m["added"], serde_json::json!([]));
        assert_eq!(m["removed"], serde_json::json!([]));
        assert_eq!(
            (
                t["added"].as_array().unwrap().len(),
                t["removed"].as_array().unwrap().len()
            ),
            (0, 0)
        );
        let changed_keys: Vec<&str> = m["changed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["key"].as_str().unwrap())
            .collect();
        let changed_tensors: Vec<(&str, Json)> = t["changed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["name"].as_str().unwrap(), c["what"].clone()))
            .collect();
        match name {
            "key.gguf" => {
                assert_eq!(changed_keys, ["llama.context_length"]);
                let c = &m["changed"][0];
                assert_eq!(
                    (c["a"]["value"].as_u64(), c["b"]["value"].as_u64()),
                    (Some(4096), Some(8192))
                );
                assert_eq!(c["change"]["kind"], "value");
                assert!(changed_tensors.is_empty());
            }
            "element.gguf" => {
                assert_eq!(changed_keys, ["tokenizer.ggml.token_type"]);
                let c = &m["changed"][0]["change"];
                assert_eq!(
                    *c,
                    serde_json::json!({"kind": "array", "len_a": 3, "len_b": 3, "differing": 1,
                        "first": {"index": 2, "a": 1, "b": 6}})
                );
                assert!(changed_tensors.is_empty());
            }
            "type.gguf" => {
                assert!(changed_keys.is_empty());
                assert_eq!(
                    changed_tensors,
                    [("blk.0.attn_q.weight", serde_json::json!(["type", "size"]))]
                );
                let c = &t["changed"][0];
                assert_eq!(
                    (c["a"]["type"].as_str(), c["b"]["type"].as_str()),
                    (Some("Q8_0"), Some("Q4_0"))
                );
            }
            "shape.gguf" => {
                assert!(changed_keys.is_empty());
                assert_eq!(
                    changed_tensors,
                    [("token_embd.weight", serde_json::json!(["shape", "size"]))]
                );
            }
            _ => unreachable!(),
        }
        let same = if changed_tensors.is_empty() { 2 } else { 1 };
        assert_eq!(t["same"], same, "{name}");
        let out = ggufscope(["diff", path(&base), path(&other)]);
        assert_eq!(out.status.code(), Some(1));
    }
}

/// RMSE, max |b − a| and cosine computed directly in f64.
fn reference(a: &[f32], b: &[f32]) -> (f64, f64, f64) {
    let (mut e2, mut a2, mut b2, mut ab, mut max) = (0f64, 0f64, 0f64, 0f64, 0f64);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (f64::from(x), f64::from(y));
        e2 += (y - x).powi(2);
        a2 += x * x;
        b2 += y * y;
        ab += x * y;
        max = max.max((y - x).abs());
    }
    ((e2 / a.len() as f64).sqrt(), max, ab / (a2.sqrt() * b2.sqrt()))
}

#[test]
fn values_of_q8_0_and_q4_0_against_f32() {
    let values = sample_values(512 * 8);
    let half: Vec<f32> = (0..512 * 8).map(|i| (i % 64) as f32 / 4.0).collect();
    let dims: &[u64] = &[512, 8];
    let tensors = |ty| {
        [
            ("blk.0.ffn_up.weight", dims, ty, encode(ty, &values)),
            // F16 holds these exactly: zero error whatever A's type.
            (
                "blk.1.ffn_up.weight",
                dims,
                GgmlType::F16,
                encode(GgmlType::F16, &half),
            ),
        ]
    };
    let a = temp_file(
        "diff",
        "f32.gguf",
        &file_with(&[
            (
                "blk.0.ffn_up.weight",
                dims,
                GgmlType::F32,
                encode(GgmlType::F32, &values),
            ),
            (
                "blk.1.ffn_up.weight",
                dims,
                GgmlType::F32,
                encode(GgmlType::F32, &half),
            ),
        ]),
    );
    for (ty, file) in [(GgmlType::Q8_0, "q8_0.gguf"), (GgmlType::Q4_0, "q4_0.gguf")] {
        let b = temp_file("diff", file, &file_with(&tensors(ty)));
        let (code, doc) = diff_json(path(&a), path(&b), &["--values"]);
        assert_eq!(code, 1);
        let (rmse, max, cosine) = reference(&values, &dequantize(ty, &encode(ty, &values)));
        let v = &doc["values"];
        assert_eq!(v.as_array().unwrap().len(), 2);
        let q = &v[0];
        assert_eq!(
            (q["name"].as_str(), q["type_a"].as_str()),
            (Some("blk.0.ffn_up.weight"), Some("F32"))
        );
        assert_eq!(
            (q["type_b"].as_str(), q["n"].as_u64()),
            (Some(ty.to_string().as_str()), Some(4096))
        );
        assert!(
            (q["rmse"].as_f64().unwrap() - rmse).abs() <= 1e-12 * rmse,
            "{q} vs {rmse}"
        );
        assert_eq!(q["max_abs"].as_f64(), Some(max));
        assert!(
            (q["cosine"].as_f64().unwrap() - cosine).abs() <= 1e-12,
            "{q} vs {cosine}"
        );
        assert_eq!(q["exact"], false);
        let exact = &v[1];
        assert_eq!(
            (exact["rmse"].as_f64(), exact["max_abs"].as_f64()),
            (Some(0.0), Some(0.0))
        );
        assert_eq!(
            (exact["cosine"].as_f64(), exact["snr_db"].as_str()),
            (Some(1.0), Some("inf"))
        );
        // Per layer: blk.0 carries the error, blk.1 none.
        let layers = doc["layers"].as_array().unwrap();
        assert_eq!(layers.len(), 2);
        assert_eq!(
            (layers[0]["layer"].as_u64(), layers[1]["rmse"].as_f64()),
            (Some(0), Some(0.0))
        );
        assert_eq!(layers[0]["rmse"], q["rmse"]);
        // Only the named tensor, with --tensor; the text table sorted by RMSE.
        let (_, only) = diff_json(
            path(&a),
            path(&b),
            &["--values", "--tensor", "blk.1.ffn_up.weight"],
        );
        assert_eq!(only["values"].as_array().unwrap().len(), 1);
        let out = ggufscope(["diff", "--values", path(&a), path(&b)]);
        let text = stdout(&out);
        let first = text.find("blk.0.ffn_up.weight F32").unwrap();
        let second = text.find("blk.1.ffn_up.weight F32").unwrap();
        assert!(first < second, "{text}");
    }
}

#[test]
fn errors_exit_2() {
    let f = fixture("synth/quants.gguf");
    let missing = ggufscope(["diff", path(&f), "/nonexistent/x.gguf"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("/nonexistent/x.gguf"),
        "{}",
        stderr(&missing)
    );
    let unknown = ggufscope(["diff", "--values", "--tensor", "nope", path(&f), path(&f)]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("no tensor named \"nope\""),
        "{}",
        stderr(&unknown)
    );
    let cut = ggufscope(["diff", path(&f), path(&fixture("synth/truncated-in-kv.gguf"))]);
    assert_eq!(cut.status.code(), Some(2));
}

#[test]
fn a_chat_template_change_is_shown_as_lines() {
    let t = |s: &str| {
        GgufBuilder::new()
            .kv("general.architecture", "llama")
            .kv("tokenizer.chat_template", s)
            .build()
    };
    let a = temp_file(
        "diff",
        "t1.gguf",
        &t("{% for m in messages %}\n{{ m.content }}\n{% endfor %}"),
    );
    let b = temp_file(
        "diff",
        "t2.gguf",
        &t("{% for m in messages %}\n\x1b[2J{{ m.content }}\n{% endfor %}"),
    );
    let out = ggufscope(["diff", path(&a), path(&b)]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("~ tokenizer.chat_template: 1 lines removed, 1 added"),
        "{text}"
    );
    assert!(text.contains("    -    2 {{ m.content }}"), "{text}");
    assert!(text.contains("    +    2 \\x1B[2J{{ m.content }}"), "{text}");
    assert!(!text.contains('\x1b'));
    let (_, doc) = diff_json(path(&a), path(&b), &[]);
    let change = &doc["metadata"]["changed"][0]["change"];
    assert_eq!(
        (change["kind"].as_str(), change["cut"].as_bool()),
        (Some("lines"), Some(false))
    );
    assert_eq!(
        change["runs"][1],
        serde_json::json!({"op": "removed", "a": 1, "len": 1, "lines": ["{{ m.content }}"]})
    );
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn urls_and_split_models() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diff-url");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for name in [
        "quants.gguf",
        "sharded-00001-of-00003.gguf",
        "sharded-00002-of-00003.gguf",
        "sharded-00003-of-00003.gguf",
    ] {
        std::os::unix::fs::symlink(fixture(&format!("synth/{name}")), dir.join(name)).unwrap();
    }
    assert!(
        repo().join("node_modules/send").exists(),
        "run `npm ci` (scripts/test.sh does)"
    );
    let mut child: Child = Command::new("node")
        .arg(repo().join("scripts/model-server.mjs"))
        .arg(&dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut origin = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut origin)
        .unwrap();
    let url = |name: &str| format!("{}/{name}", origin.trim());
    let local = fixture("synth/quants.gguf");
    let (code, by_url) = diff_json(&url("quants.gguf"), path(&local), &["--values"]);
    assert_eq!(code, 0);
    assert_eq!(by_url["values"].as_array().unwrap().len(), 11);
    let (code, split) = diff_json(
        &url("sharded-00002-of-00003.gguf"),
        path(&fixture("synth/sharded-00001-of-00003.gguf")),
        &["--values"],
    );
    assert_eq!(code, 0, "{split}");
    let shards = split["values"].as_array().unwrap().len();
    assert!(shards > 0);
    let _ = child.kill();
    let _ = child.wait();
}
