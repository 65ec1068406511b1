//! The derived report writes what the hand-written serializers wrote, for every fixture: the
//! same fields in the same order with the same values, and every number of the same Rust type
//! (the wasm bindings turn a u64 into a BigInt and a u32 into a number), the new
//! `schema_version` aside.

mod common;

use std::io;
use std::path::{Path, PathBuf};

use gguf_core::Header;
use gguf_core::memory::{self, KvType, MemoryOptions};
use gguf_core::report::{self, Report, ReportOptions, legacy};
use gguf_core::split::SplitModel;
use gguf_core::stats::Stats;
use gguf_core::tokenizer::{Listing, Tokenizer};
use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter};

use common::{fixtures, gemma, read_header};

/// JSON with each number's Rust type written before it (`u32:7`).
struct Typed;

macro_rules! typed {
    ($($method:ident: $ty:ty),*) => {
        $(fn $method<W: ?Sized + io::Write>(&mut self, w: &mut W, v: $ty) -> io::Result<()> {
            w.write_all(concat!(stringify!($ty), ":").as_bytes())?;
            CompactFormatter.$method(w, v)
        })*
    };
}

impl Formatter for Typed {
    typed!(write_u8: u8, write_u16: u16, write_u32: u32, write_u64: u64, write_i8: i8,
        write_i16: i16, write_i32: i32, write_i64: i64, write_f32: f32, write_f64: f64);
}

fn typed(value: &impl Serialize) -> String {
    let mut out = Vec::new();
    value
        .serialize(&mut serde_json::Serializer::with_formatter(&mut out, Typed))
        .unwrap();
    String::from_utf8(out).unwrap()
}

/// Asserts that `new` (with `schema_version` first) writes what `old` wrote.
fn same(what: &str, old: &impl Serialize, new: &impl Serialize, versioned: bool) {
    let (old, mut new) = (typed(old), typed(new));
    if versioned {
        let field = r#"{"schema_version":u32:1,"#;
        assert!(new.starts_with(field), "{what}: no schema_version first");
        new.replace_range(..field.len(), "{");
    }
    if old != new {
        let at = old.bytes().zip(new.bytes()).take_while(|(a, b)| a == b).count();
        let from = at.saturating_sub(200);
        panic!(
            "{what}: the reports differ at byte {at}\nold: …{}\nnew: …{}",
            &old[from..(at + 200).min(old.len())],
            &new[from..(at + 200).min(new.len())]
        );
    }
}

fn gguf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            gguf_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "gguf") {
            out.push(path);
        }
    }
}

/// Every fixture that decodes, with Gemma when it is there.
fn headers() -> Vec<(String, Header)> {
    let mut paths = Vec::new();
    gguf_files(&fixtures().join("real"), &mut paths);
    gguf_files(&fixtures().join("synth"), &mut paths);
    paths.sort();
    let gemma = std::panic::catch_unwind(gemma).ok();
    paths.extend(gemma);
    assert!(
        paths.len() > 20,
        "fixtures not found under {}",
        fixtures().display()
    );
    paths
        .iter()
        .filter_map(|p| Some((p.display().to_string(), read_header(p).0.ok()?)))
        .collect()
}

const OPTIONS: [ReportOptions; 4] = [
    ReportOptions {
        array_head: 8,
        max_string_len: None,
    },
    // The wasm module's.
    ReportOptions {
        array_head: 8,
        max_string_len: Some(256 << 10),
    },
    ReportOptions {
        array_head: 0,
        max_string_len: Some(0),
    },
    ReportOptions {
        array_head: 3,
        max_string_len: Some(5),
    },
];

#[test]
fn the_derived_report_writes_what_the_old_one_wrote() {
    let headers = headers();
    for (name, h) in &headers {
        for options in OPTIONS {
            let what = format!("{name} {options:?}");
            same(
                &what,
                &legacy::Report::with_options(h, options),
                &Report::with_options(h, options),
                true,
            );
            let model = SplitModel::new(vec![(name.clone(), h.clone())]);
            same(
                &what,
                &legacy::Report::of_model(&model, options),
                &Report::of_model(&model, options),
                true,
            );
            for entry in h.metadata.entries() {
                if let Some(array) = entry.value.as_array() {
                    for (start, count) in [(0, 5), (3, 100), (usize::MAX, 2)] {
                        same(
                            &what,
                            &legacy::ArrayPage::new(array, start, count, options),
                            &report::array_page(array, start, count, &options),
                            false,
                        );
                    }
                }
            }
        }
        for (context, kv_type, parallel) in [(None, KvType::F16, 1), (Some(4096), KvType::Q4_0, 3)] {
            let options = MemoryOptions {
                context,
                kv_type,
                parallel,
            };
            if let Ok(estimate) = memory::estimate(h, &options) {
                same(
                    name,
                    &legacy::Report::new(h).with_memory(estimate.clone()),
                    &Report::new(h).with_memory(estimate.clone()),
                    true,
                );
                same(name, &legacy::LegacyMemory(&estimate), &estimate, false);
            }
        }
        let validation = gguf_core::validate(h, h.file_len);
        same(
            name,
            &legacy::Findings::new(h, &validation.findings),
            &report::findings(h, &validation.findings),
            false,
        );
        same(
            name,
            &legacy::FindingsOmitted(&validation.omitted),
            &report::findings_omitted(&validation.omitted),
            false,
        );
        tokenizer_reports(name, h);
    }
}

fn tokenizer_reports(name: &str, h: &Header) {
    same(
        name,
        &legacy::TokenizerReport(h),
        &report::TokenizerReport::new(h),
        true,
    );
    let tokenizer = Tokenizer::new(h);
    let all = Listing::All(tokenizer.len());
    let some = Listing::Matches(vec![3, 1, 4, 1, 5, u32::MAX]);
    for listing in [&all, &some] {
        for (start, count) in [(0, usize::MAX), (2, 3), (usize::MAX, 1)] {
            same(
                name,
                &legacy::TokenPage::new(&tokenizer, listing, start, count),
                &report::TokenPage::new(&tokenizer, listing, start, count),
                false,
            );
        }
    }
    let special: Vec<String> = tokenizer
        .special_tokens()
        .iter()
        .filter_map(|t| Some(String::from_utf8_lossy(t.text?).into_owned()))
        .collect();
    let text = format!("Hi {} there{}", special.join(" and "), special.join(""));
    let pieces = tokenizer.split_special(&text);
    same(
        name,
        &legacy::PiecesJson(&pieces),
        &report::pieces(&pieces),
        false,
    );
}

#[test]
fn split_models_are_reported_as_before() {
    let shard = |n: u32| {
        let name = format!("sharded-0000{n}-of-00003.gguf");
        let header = read_header(&fixtures().join("synth").join(&name)).0.unwrap();
        (name, header)
    };
    let other = || {
        let header = read_header(&fixtures().join("synth/minimal.gguf")).0.unwrap();
        ("minimal.gguf".to_string(), header)
    };
    let sets = [
        vec![shard(1), shard(2), shard(3)],
        vec![shard(3), shard(1)],
        vec![shard(2)],
        vec![shard(1), other(), shard(2)],
    ];
    for files in sets {
        let model = SplitModel::new(files);
        for options in OPTIONS {
            same(
                "split",
                &legacy::Report::of_model(&model, options),
                &Report::of_model(&model, options),
                true,
            );
        }
    }
}

#[test]
fn stats_are_written_as_before() {
    let values = [
        1.5,
        -2.0,
        0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        3.25,
        0.0,
    ];
    for (bins, keep) in [(4, 3), (0, 0), (16, 100)] {
        for len in [0, 1, 3, values.len()] {
            let stats = Stats::of(&values[..len], bins, keep);
            same("stats", &legacy::LegacyStats(&stats), &stats, false);
        }
    }
}
