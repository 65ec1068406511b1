//! Split models: shard names, the three-shard fixture put together (figures against gguf-py's
//! per-shard references), missing shards, files left out, and split keys that disagree.

use gguf_core::report::{Report, ReportOptions};
use gguf_core::split::{ShardName, SplitModel};
use gguf_core::testkit::GgufBuilder;
use gguf_core::{FindingCode, GgmlType, Header, Severity, parse};
use serde_json::Value as Json;

use gguf_test_support::{fixture, read_header};

fn shard(n: u32) -> (String, Header) {
    let name = format!("sharded-0000{n}-of-00003.gguf");
    let header = read_header(&fixture(&format!("synth/{name}"))).0.unwrap();
    (name, header)
}

fn reference(n: u32) -> Json {
    let path = fixture(&format!("ref/sharded-0000{n}-of-00003.gguf.summary.json"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn json(model: &SplitModel) -> Json {
    serde_json::to_value(Report::of_model(model, ReportOptions::default())).unwrap()
}

fn codes(model: &SplitModel) -> Vec<(&str, Option<u64>, &str)> {
    model
        .findings()
        .iter()
        .map(|f| (f.finding.code.id(), f.shard, f.file.as_str()))
        .collect()
}

/// A shard written by the project's builder: `split.no`, `split.count`, `split.tensors.count`
/// and the given tensors (F32), with `general.*` on the first only.
fn built(no: u16, count: u16, total: i32, tensors: &[&str]) -> Header {
    let mut b = GgufBuilder::new();
    if no == 0 {
        b = b
            .kv("general.architecture", "llama")
            .kv("llama.block_count", 2u32);
    }
    b = b
        .kv("split.no", no)
        .kv("split.count", count)
        .kv("split.tensors.count", total);
    for t in tensors {
        b = b.tensor(t, &[8], GgmlType::F32);
    }
    parse(&b.with_tensor_data().build()).unwrap()
}

#[test]
fn shard_names_follow_llama_cpp() {
    let n = ShardName::parse("Qwen3-235B-A22B-Q4_K_M-00002-of-00004.gguf").unwrap();
    assert_eq!(
        (n.prefix(), n.number(), n.count()),
        ("Qwen3-235B-A22B-Q4_K_M", 2, 4)
    );
    assert_eq!(n.sibling(1), "Qwen3-235B-A22B-Q4_K_M-00001-of-00004.gguf");
    assert_eq!(
        n.siblings().collect::<Vec<_>>(),
        ["1", "2", "3", "4"].map(|i| format!("Qwen3-235B-A22B-Q4_K_M-0000{i}-of-00004.gguf"))
    );
    // Written as found: other widths survive.
    assert_eq!(
        ShardName::parse("m-2-of-12.gguf").unwrap().sibling(11),
        "m-11-of-12.gguf"
    );
    assert_eq!(
        ShardName::parse("m-002-of-012.gguf").unwrap().sibling(3),
        "m-003-of-012.gguf"
    );
    for not in [
        "model.gguf",
        "sharded-00001-of-00003.gguf.part",
        "sharded-00000-of-00003.gguf",
        "sharded-00004-of-00003.gguf",
        "-00001-of-00003.gguf",
        "sharded-0a001-of-00003.gguf",
        "sharded-00001-of-.gguf",
        "sharded-+1-of-3.gguf",
        "sharded-00001-of-00003.GGUF",
    ] {
        assert_eq!(ShardName::parse(not), None, "{not}");
    }
}

#[test]
fn the_three_shards_are_one_model_with_the_figures_summed() {
    gguf_test_support::needs_fixtures!();
    let model = SplitModel::new(vec![shard(1), shard(2), shard(3)]);
    assert!(model.is_split());
    assert_eq!(model.count(), 3);
    assert!(model.missing().is_empty() && model.left_out().is_empty());
    assert_eq!(codes(&model), []);

    let refs = [reference(1), reference(2), reference(3)];
    let sum = |field: &str| refs.iter().map(|r| r[field].as_u64().unwrap()).sum::<u64>();
    let r = json(&model);
    assert_eq!(r["architecture"], "llama");
    assert_eq!(r["name"], "sharded model");
    assert_eq!(r["kv_count"], refs[0]["kv_count"]);
    assert_eq!(r["tensor_count"], 6);
    assert_eq!(r["parameters"], sum("param_count"));
    assert_eq!(r["parameters"], 72);
    assert_eq!(r["tensor_bytes"], sum("tensor_bytes"));
    assert_eq!(r["file_size"], sum("file_size"));
    assert_eq!(r["file_size"], 1120);
    assert_eq!(r["data_offset"], refs[0]["data_offset"]);
    assert_eq!(r["findings"], serde_json::json!([]));

    // Every tensor, with its shard and its offset in that shard's file.
    let tensors = r["tensors"].as_array().unwrap();
    let expected: Vec<(u64, &Json)> = refs
        .iter()
        .enumerate()
        .flat_map(|(i, r)| {
            r["tensors"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |t| (i as u64 + 1, t))
        })
        .collect();
    assert_eq!(tensors.len(), expected.len());
    for (ours, (number, theirs)) in tensors.iter().zip(&expected) {
        assert_eq!(ours["shard"], *number);
        assert_eq!(ours["name"], theirs["name"]);
        assert_eq!(ours["absolute_offset"], theirs["abs_offset"]);
        assert_eq!(ours["n_bytes"], theirs["n_bytes"]);
    }

    let split = &r["split"];
    assert_eq!(split["count"], 3);
    assert_eq!(split["tensors_count"], 6);
    assert_eq!(split["missing"], serde_json::json!([]));
    assert_eq!(split["left_out"], serde_json::json!([]));
    let shards = split["shards"].as_array().unwrap();
    for (i, s) in shards.iter().enumerate() {
        assert_eq!(s["number"], i + 1);
        assert_eq!(s["file"], refs[i]["file"]);
        assert_eq!(s["file_size"], refs[i]["file_size"]);
        assert_eq!(s["data_offset"], refs[i]["data_offset"]);
        assert_eq!(s["tensor_count"], refs[i]["tensor_count"]);
        assert_eq!(s["kv_count"], refs[i]["kv_count"]);
    }
}

#[test]
fn the_order_files_come_in_does_not_matter() {
    gguf_test_support::needs_fixtures!();
    let forward = json(&SplitModel::new(vec![shard(1), shard(2), shard(3)]));
    for order in [[3, 1, 2], [2, 3, 1], [3, 2, 1]] {
        let model = SplitModel::new(order.iter().map(|&n| shard(n)).collect());
        assert_eq!(json(&model), forward, "{order:?}");
    }
}

#[test]
fn a_missing_shard_is_named_and_not_counted() {
    gguf_test_support::needs_fixtures!();
    let model = SplitModel::new(vec![shard(3), shard(1)]);
    assert_eq!(model.missing().len(), 1);
    assert_eq!(model.missing()[0].number, 2);
    assert_eq!(
        model.missing()[0].name.as_deref(),
        Some("sharded-00002-of-00003.gguf")
    );
    assert_eq!(
        codes(&model),
        [("shard-missing", Some(2), "sharded-00002-of-00003.gguf")]
    );
    let f = &model.findings()[0].finding;
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(
        f.message,
        "shard 2 of 3 (sharded-00002-of-00003.gguf) is missing: its tensors are not counted"
    );
    let r = json(&model);
    assert_eq!(r["parameters"], 48);
    assert_eq!(r["tensor_count"], 4);
    assert_eq!(r["architecture"], "llama");
    assert_eq!(
        r["split"]["missing"],
        serde_json::json!([{"number": 2, "file": "sharded-00002-of-00003.gguf"}])
    );
    assert_eq!(r["findings"][0]["shard"], 2);
    assert_eq!(r["findings"][0]["file"], "sharded-00002-of-00003.gguf");
    assert_eq!(r["findings"][0]["code"], "shard-missing");
}

#[test]
fn one_shard_alone_is_a_model_with_the_others_missing() {
    gguf_test_support::needs_fixtures!();
    let model = SplitModel::new(vec![shard(2)]);
    assert!(model.is_split());
    assert_eq!(
        model.missing().iter().map(|m| m.number).collect::<Vec<_>>(),
        [1, 3]
    );
    assert_eq!(
        codes(&model),
        [
            ("shard-missing", Some(1), "sharded-00001-of-00003.gguf"),
            ("shard-missing", Some(3), "sharded-00003-of-00003.gguf"),
        ]
    );
    // The metadata is the first shard's: without it, no architecture.
    let r = json(&model);
    assert_eq!(r["architecture"], Json::Null);
    assert_eq!(r["parameters"], 24);
}

#[test]
fn files_that_are_not_shards_of_the_model_are_left_out() {
    gguf_test_support::needs_fixtures!();
    let other = (
        "model.gguf".to_string(),
        read_header(&fixture("synth/minimal.gguf")).0.unwrap(),
    );
    let model = SplitModel::new(vec![shard(1), other, shard(2), shard(2), shard(3)]);
    assert_eq!(model.shards().len(), 3);
    assert_eq!(
        model
            .left_out()
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["model.gguf", "sharded-00002-of-00003.gguf"]
    );
    let messages: Vec<&str> = model
        .findings()
        .iter()
        .map(|f| f.finding.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "model.gguf is left out of the model: it has no split.no and split.count: a model of its own, not a shard",
            "sharded-00002-of-00003.gguf is left out of the model: it is a second shard 2 of 3, besides sharded-00002-of-00003.gguf",
        ]
    );
    assert!(
        model
            .findings()
            .iter()
            .all(|f| f.finding.code == FindingCode::ShardLeftOut && f.shard.is_none())
    );
    assert_eq!(json(&model)["parameters"], 72);

    // Another split.count, and another model's shard with the same count.
    let four = ("big-00002-of-00004.gguf".to_string(), built(1, 4, 2, &["x"]));
    let stranger = ("other-00002-of-00003.gguf".to_string(), built(1, 3, 6, &["y"]));
    let model = SplitModel::new(vec![shard(1), shard(2), shard(3), four, stranger]);
    let messages: Vec<&str> = model
        .findings()
        .iter()
        .map(|f| f.finding.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "big-00002-of-00004.gguf is left out of the model: its split.count is 4, not 3 as in sharded-00001-of-00003.gguf",
            "other-00002-of-00003.gguf is left out of the model: its name is not that of a shard of sharded-00001-of-00003.gguf",
        ]
    );
}

#[test]
fn split_keys_that_disagree_across_shards_are_found() {
    // split.tensors.count says 5, the shards hold 4 — and the second shard says 4.
    let model = SplitModel::new(vec![
        (
            "m-00001-of-00002.gguf".into(),
            built(0, 2, 5, &["blk.0.a", "blk.0.b"]),
        ),
        (
            "m-00002-of-00002.gguf".into(),
            built(1, 2, 4, &["blk.1.a", "blk.1.b"]),
        ),
    ]);
    let found: Vec<(&str, Option<u64>, &str)> = model
        .findings()
        .iter()
        .map(|f| (f.finding.code.id(), f.shard, f.finding.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "split-keys-inconsistent",
                Some(1),
                "split.tensors.count is 5, but the 2 shards read hold 4 tensors"
            ),
            (
                "split-keys-inconsistent",
                Some(2),
                "split.tensors.count is 4 here, but 5 in m-00001-of-00002.gguf"
            ),
        ]
    );
    let f = &model.findings()[0].finding;
    let first = &model.shards()[0].header;
    assert_eq!(f.span, first.metadata.entry("split.tensors.count").unwrap().span);
    // A key of the first shard is a row of the model's metadata; one of another shard is not.
    let r = json(&model);
    assert_eq!(
        r["findings"][0]["subject"],
        serde_json::json!({"kind": "kv", "index": 4, "name": "split.tensors.count"})
    );
    assert_eq!(
        r["findings"][1]["subject"],
        serde_json::json!({"kind": "kv", "index": null, "name": "split.tensors.count"})
    );

    // A name that says one shard and keys that say another; a tensor in two shards.
    let model = SplitModel::new(vec![
        ("m-00002-of-00002.gguf".into(), built(0, 2, 2, &["blk.0.a"])),
        ("m-00001-of-00002.gguf".into(), built(1, 2, 2, &["blk.0.a"])),
    ]);
    let found: Vec<(&str, &str, &str)> = model
        .findings()
        .iter()
        .map(|f| (f.finding.code.id(), f.file.as_str(), f.finding.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "split-keys-inconsistent",
                "m-00002-of-00002.gguf",
                "the file name says shard 2 of 2, but split.no 0 and split.count 2 make it shard 1 of 2"
            ),
            (
                "split-keys-inconsistent",
                "m-00001-of-00002.gguf",
                "the file name says shard 1 of 2, but split.no 1 and split.count 2 make it shard 2 of 2"
            ),
            (
                "duplicate-tensor-name",
                "m-00001-of-00002.gguf",
                "tensor blk.0.a is also in m-00002-of-00002.gguf"
            ),
        ]
    );
}

#[test]
fn each_shard_is_validated_on_its_own_and_its_findings_say_which() {
    // The second shard is cut inside its tensor data.
    let mut bytes = GgufBuilder::new()
        .kv("split.no", 1u16)
        .kv("split.count", 2u16)
        .kv("split.tensors.count", 2i32)
        .tensor("blk.1.a", &[64], GgmlType::F32)
        .with_tensor_data()
        .build();
    bytes.truncate(bytes.len() - 10);
    let second = parse(&bytes).unwrap();
    let model = SplitModel::new(vec![
        ("m-00001-of-00002.gguf".into(), built(0, 2, 2, &["blk.0.a"])),
        ("m-00002-of-00002.gguf".into(), second),
    ]);
    assert_eq!(
        codes(&model),
        [("tensor-past-end-of-file", Some(2), "m-00002-of-00002.gguf")]
    );
    let r = json(&model);
    assert_eq!(r["findings"][0]["shard"], 2);
    // Subjects are numbered as the model's tensors are: blk.1.a comes after shard 1's one tensor.
    assert_eq!(
        r["findings"][0]["subject"],
        serde_json::json!({"kind": "tensor", "index": 1, "name": "blk.1.a"})
    );
}

#[test]
fn one_ordinary_file_is_reported_as_itself() {
    gguf_test_support::needs_fixtures!();
    for name in [
        "synth/all-types.gguf",
        "real/ggml-vocab-phi-3.gguf",
        "synth/truncated-in-data.gguf",
    ] {
        let header = read_header(&fixture(name)).0.unwrap();
        let alone = serde_json::to_value(Report::new(&header)).unwrap();
        let model = SplitModel::new(vec![(name.into(), header)]);
        assert!(!model.is_split());
        assert_eq!(json(&model), alone, "{name}");
    }
}

#[test]
fn the_model_buffer_of_the_whole_counts_every_shard() {
    use gguf_core::memory::{Options, buffers};
    let first = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("llama.context_length", 64u32)
        .kv("llama.block_count", 2u32)
        .kv("llama.embedding_length", 8u32)
        .kv("llama.attention.head_count", 2u32)
        .kv("split.no", 0u16)
        .kv("split.count", 2u16)
        .kv("split.tensors.count", 2i32)
        .tensor("blk.0.a", &[8], GgmlType::F32)
        .with_tensor_data()
        .build();
    let first = parse(&first).unwrap();
    let options = Options::default();
    assert_eq!(buffers(&first, &options).unwrap().model.bytes, 32);
    let model = SplitModel::new(vec![
        ("m-00001-of-00002.gguf".into(), first),
        ("m-00002-of-00002.gguf".into(), built(1, 2, 2, &["blk.1.a"])),
    ]);
    assert_eq!(buffers(model.header(), &options).unwrap().model.bytes, 64);
}

#[test]
fn a_crafted_shard_count_is_not_enumerated() {
    assert_eq!(ShardName::parse("x-00001-of-99999.gguf"), None);
    assert!(ShardName::parse("x-00001-of-01024.gguf").is_some());
    let model = SplitModel::new(vec![(
        "x.gguf".into(),
        parse(
            &GgufBuilder::new()
                .kv("split.no", 0u64)
                .kv("split.count", u64::MAX)
                .kv("split.tensors.count", 0u64)
                .build(),
        )
        .unwrap(),
    )]);
    assert_eq!(model.count(), u64::MAX);
    assert_eq!(model.missing().len(), 1023);
    let message = |code| {
        let f = model.findings().iter().find(|f| f.finding.code == code).unwrap();
        (f.file.clone(), f.finding.message.clone())
    };
    let max = u64::MAX;
    assert_eq!(
        message(FindingCode::SplitKeysInconsistent),
        (
            "x.gguf".into(),
            format!("split.count is {max}: more than the 1024 shards looked for")
        )
    );
    assert_eq!(model.missing()[0].name, None);
    assert_eq!(
        message(FindingCode::ShardMissing),
        (
            format!("shard 2 of {max}"),
            format!("shard 2 of {max} is missing: its tensors are not counted")
        )
    );
}

/// 150 tensor names in both shards: the second shard lists the first 100 as duplicates and
/// counts the other 50, as the validator caps its own findings.
#[test]
fn tensors_in_two_shards_are_capped_per_shard() {
    let names: Vec<String> = (0..150).map(|i| format!("t{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let model = SplitModel::new(vec![
        ("m-00001-of-00002.gguf".into(), built(0, 2, 300, &names)),
        ("m-00002-of-00002.gguf".into(), built(1, 2, 300, &names)),
    ]);
    let dups = model
        .findings()
        .iter()
        .filter(|f| f.finding.code == FindingCode::DuplicateTensorName)
        .count();
    assert_eq!(dups, 100);
    let omitted: Vec<(&str, FindingCode, u64)> = model
        .omitted()
        .iter()
        .map(|o| (o.file.as_str(), o.omitted.code, o.omitted.count))
        .collect();
    assert_eq!(
        omitted,
        [("m-00002-of-00002.gguf", FindingCode::DuplicateTensorName, 50)]
    );
    assert_eq!(
        json(&model)["findings_omitted"],
        serde_json::json!([{"shard": 2, "file": "m-00002-of-00002.gguf", "severity": "error", "code": "duplicate-tensor-name", "count": 50}])
    );
}
