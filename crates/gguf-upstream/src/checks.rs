//! The checks: the table's hyperparameters, RoPE scaling, the vocabulary size, special token ids
//! and texts, tokenizer flags and chat templates.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use gguf_core::chat_template::chat_templates;
use gguf_core::header::LayerValues;
use gguf_core::keys::{self, arch};
use gguf_core::text::lossy;
use gguf_core::tokenizer::Tokenizer;
use gguf_core::{Header, Value};
use serde_json::Value as Json;

use crate::diff::line_diff;
use crate::fields::{FIELDS, Kind, ROPE_IMPACT, ROPE_SCALING};
use crate::{
    CHAT_TEMPLATE, CONFIG, Check, Fix, GENERATION_CONFIG, Status, TOKENIZER_CONFIG, Upstream, UpstreamError,
};

/// Checks `header` against `upstream`: every field either side has, in a fixed order
/// (hyperparameters in [`FIELDS`] order, RoPE scaling, vocabulary, special tokens, flags, chat
/// templates). Fails only when an upstream file is not a JSON object.
pub fn compare(header: &Header, upstream: &Upstream<'_>) -> Result<Vec<Check>, UpstreamError> {
    let files = Files {
        config: parse(CONFIG, upstream.config)?,
        tokenizer: upstream
            .tokenizer_config
            .map(|t| parse(TOKENIZER_CONFIG, t))
            .transpose()?,
        generation: upstream
            .generation_config
            .map(|t| parse(GENERATION_CONFIG, t))
            .transpose()?,
        template: upstream.chat_template,
    };
    let mut checks = Vec::new();
    if let Some(architecture) = header.metadata.architecture() {
        hyperparameters(&mut checks, header, &files, architecture);
        rope_scaling(&mut checks, header, &files, architecture);
    }
    vocabulary(&mut checks, header, &files);
    special_tokens(&mut checks, header, &files);
    templates(&mut checks, header, &files);
    Ok(checks)
}

/// The upstream files, parsed.
struct Files<'a> {
    config: Json,
    tokenizer: Option<Json>,
    generation: Option<Json>,
    template: Option<&'a str>,
}

/// A value found upstream, with where: `FILE:path`.
struct Found<'j> {
    key: String,
    value: &'j Json,
}

impl Files<'_> {
    /// The first of `paths` that `config.json` has, each looked for in `text_config` first (a
    /// multimodal model's language model), as the converter merges them.
    fn config(&self, paths: &[&str]) -> Option<Found<'_>> {
        paths.iter().find_map(|p| {
            ["text_config.", ""].iter().find_map(|prefix| {
                let path = format!("{prefix}{p}");
                let value = at(&self.config, &path)?;
                Some(Found {
                    key: format!("{CONFIG}:{path}"),
                    value,
                })
            })
        })
    }

    /// A token id: from `generation_config.json` (what generation uses), else `config.json`.
    fn token_id(&self, name: &str) -> Option<Found<'_>> {
        let generation = self.generation.as_ref().and_then(|g| at(g, name));
        match generation {
            Some(value) => Some(Found {
                key: format!("{GENERATION_CONFIG}:{name}"),
                value,
            }),
            None => self.config(&[name]),
        }
    }

    /// A field of `tokenizer_config.json`.
    fn tokenizer(&self, name: &str) -> Option<Found<'_>> {
        let value = at(self.tokenizer.as_ref()?, name)?;
        Some(Found {
            key: format!("{TOKENIZER_CONFIG}:{name}"),
            value,
        })
    }
}

/// Where upstream has a field (`found`), or would have it: `FILE:path`.
fn upstream_key(found: &Option<Found<'_>>, file: &str, path: &str) -> String {
    found
        .as_ref()
        .map_or_else(|| format!("{file}:{path}"), |f| f.key.clone())
}

/// The value upstream has, if any.
fn upstream_value(found: &Option<Found<'_>>) -> Option<Json> {
    found.as_ref().map(|f| f.value.clone())
}

fn parse(file: &'static str, text: &str) -> Result<Json, UpstreamError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Json = serde_json::from_str(text).map_err(|e| UpstreamError {
        file,
        message: format!("not valid JSON: {e}"),
    })?;
    if !value.is_object() {
        return Err(UpstreamError {
            file,
            message: "not a JSON object".to_string(),
        });
    }
    Ok(value)
}

/// The value at `path` (`a.b` is `b` inside `a`); null counts as absent, as configurations write
/// `"pad_token_id": null` for none.
fn at<'j>(value: &'j Json, path: &str) -> Option<&'j Json> {
    path.split('.')
        .try_fold(value, |v, name| v.get(name))
        .filter(|v| !v.is_null())
}

/// One field on both sides, before it is judged.
struct Pair {
    field: String,
    gguf_key: String,
    upstream_key: String,
    gguf: Option<Json>,
    upstream: Option<Json>,
    impact: &'static str,
    /// Whether every upstream file that could hold the field was read: else its absence
    /// upstream says nothing, and the field is not checked.
    known: bool,
}

impl Pair {
    /// The check, by `same`; `None` when neither side has the field, or when only the file has
    /// it and upstream's files that would were not read.
    fn judge(self, same: impl FnOnce(&Json, &Json) -> bool) -> Option<Check> {
        let status = match (&self.gguf, &self.upstream) {
            (None, None) => return None,
            (Some(_), None) if !self.known => return None,
            (Some(_), None) => Status::MissingUpstream,
            (None, Some(_)) => Status::MissingInGguf,
            (Some(g), Some(u)) if same(g, u) => Status::Same,
            (Some(_), Some(_)) => Status::Differs,
        };
        Some(Check {
            field: self.field,
            gguf_key: self.gguf_key,
            upstream_key: self.upstream_key,
            gguf: self.gguf.unwrap_or(Json::Null),
            upstream: self.upstream.unwrap_or(Json::Null),
            status,
            impact: self.impact,
            note: None,
            diff: None,
            prompts: None,
            fix: None,
        })
    }
}

impl Check {
    /// The check with its fix: setting its key to upstream's value, in type `ty` where the file
    /// lacks the key (or holds one value where upstream has one per layer, or the reverse).
    fn fixed(mut self, ty: &'static str) -> Check {
        if self.status.is_difference() {
            let shape_differs = self.upstream.is_array() != self.gguf.is_array();
            let ty = (self.gguf.is_null() || shape_differs).then_some(ty);
            let ty = match (ty, self.upstream.is_array()) {
                (Some("u32"), true) => Some("arr[u32]"),
                (ty, _) => ty,
            };
            self.fix = value_text(&self.upstream).map(|value| Fix::set(&self.gguf_key, ty, value));
        }
        self
    }
}

/// A JSON value as `ggufscope edit --set` reads it: numbers and booleans as JSON writes them, a
/// string's text, an array of numbers as `[1,2]`; `None` for anything else.
fn value_text(value: &Json) -> Option<String> {
    match value {
        Json::Number(_) | Json::Bool(_) => Some(value.to_string()),
        Json::String(s) => Some(s.clone()),
        Json::Array(items) if items.iter().all(Json::is_number) => Some(value.to_string()),
        _ => None,
    }
}

/// A metadata value as JSON: floats by their shortest f32 spelling (`1e-6`, not
/// `9.999999974752427e-7`), per-layer arrays as arrays, strings with invalid bytes escaped.
fn gguf_json(value: &Value) -> Option<Json> {
    Some(match value {
        Value::F32(v) => float(format!("{v}").parse().unwrap_or(f64::NAN)),
        Value::F64(v) => float(*v),
        Value::Bool(b) => Json::Bool(*b),
        Value::String(s) => Json::String(lossy(s.as_bytes()).into_owned()),
        Value::Array(_) => match LayerValues::of(value)? {
            LayerValues::One(v) => Json::from(v),
            LayerValues::PerLayer(values) => Json::from(values),
        },
        Value::I8(v) => Json::from(*v),
        Value::I16(v) => Json::from(*v),
        Value::I32(v) => Json::from(*v),
        Value::I64(v) => Json::from(*v),
        v => Json::from(v.as_u64()?),
    })
}

/// A float, or `"nan"`, `"inf"`, `"-inf"`, which JSON cannot hold (as the report writes them).
fn float(v: f64) -> Json {
    serde_json::Number::from_f64(v).map_or_else(
        || {
            Json::String(
                match v {
                    v if v.is_nan() => "nan",
                    v if v > 0.0 => "inf",
                    _ => "-inf",
                }
                .to_string(),
            )
        },
        Json::Number,
    )
}

/// One integer, or an array of them.
fn counts(v: &Json) -> Option<Vec<u64>> {
    match v {
        Json::Array(items) => items.iter().map(Json::as_u64).collect(),
        v => Some(alloc::vec![v.as_u64()?]),
    }
}

/// Equal counts: one value each, the same per-layer values, or one value that every layer of the
/// other side has.
fn same_count(g: &Json, u: &Json) -> bool {
    match (counts(g), counts(u)) {
        (Some(a), Some(b)) => {
            let all = |values: &[u64], one: &[u64]| one.len() == 1 && values.iter().all(|v| *v == one[0]);
            a == b || all(&a, &b) || all(&b, &a)
        }
        _ => false,
    }
}

/// The comparison for `kind`.
fn same(kind: Kind) -> fn(&Json, &Json) -> bool {
    match kind {
        Kind::Count => same_count,
        Kind::Float => same_float,
    }
}

/// Equal floats after rounding to f32, the precision the file stores them in.
fn same_float(g: &Json, u: &Json) -> bool {
    match (g.as_f64(), u.as_f64()) {
        (Some(a), Some(b)) => a as f32 == b as f32,
        _ => false,
    }
}

/// A token id that is upstream's, or one of upstream's list (`"eos_token_id": [1, 106]`).
fn id_in(gguf: &Json, upstream: &Json) -> bool {
    match upstream {
        Json::Array(ids) => ids.contains(gguf),
        id => id == gguf,
    }
}

fn hyperparameters(checks: &mut Vec<Check>, header: &Header, files: &Files<'_>, architecture: &str) {
    for field in FIELDS.iter().filter(|f| f.archs.includes(architecture)) {
        let found = files.config(field.upstream);
        let pair = Pair {
            field: field.name.to_string(),
            gguf_key: format!("{architecture}.{}", field.gguf),
            upstream_key: upstream_key(&found, CONFIG, field.name),
            gguf: header.metadata.arch_get(field.gguf).and_then(gguf_json),
            upstream: upstream_value(&found),
            impact: field.impact,
            known: true,
        };
        checks.extend(
            pair.judge(same(field.kind))
                .map(|c| c.fixed(field.kind.edit_type())),
        );
    }
}

/// RoPE scaling: type, factor and original context. Llama 3's and LongRoPE's scaling are written
/// as a tensor of factors, not as keys: for them, the tensor is what the file must have.
fn rope_scaling(checks: &mut Vec<Check>, header: &Header, files: &Files<'_>, architecture: &str) {
    let gguf = |suffix: &str| header.metadata.arch_get(suffix).and_then(gguf_json);
    let key = |suffix: &str| format!("{architecture}.{suffix}");
    let found_type = files
        .config(&[
            "rope_parameters.full_attention.rope_type",
            "rope_parameters.rope_type",
            "rope_scaling.rope_type",
            "rope_scaling.type",
        ])
        .filter(|f| f.value.as_str() != Some("default"));
    let gguf_type = gguf(arch::ROPE_SCALING_TYPE).filter(|t| t.as_str() != Some("none"));
    let tensor = found_type
        .as_ref()
        .and_then(|f| match f.value.as_str()? {
            "llama3" => Some(keys::ROPE_FREQS_TENSOR),
            "longrope" | "su" => Some(keys::ROPE_FACTORS_LONG_TENSOR),
            _ => None,
        })
        .filter(|_| gguf_type.is_none());
    let type_check = match tensor {
        Some(name) => {
            let has = header.tensors.iter().any(|t| t.name == *name);
            let note = if has {
                format!("written as the {name} tensor, not as rope.scaling keys")
            } else {
                format!("the converter writes this scaling as the {name} tensor, which the file lacks")
            };
            let pair = Pair {
                field: "rope_scaling.type".to_string(),
                gguf_key: name.to_string(),
                upstream_key: upstream_key(&found_type, CONFIG, "rope_scaling.rope_type"),
                gguf: upstream_value(&found_type).filter(|_| has),
                upstream: upstream_value(&found_type),
                impact: ROPE_IMPACT,
                known: true,
            };
            pair.judge(|_, _| true).map(|c| Check {
                note: Some(note),
                ..c
            })
        }
        None => Pair {
            field: "rope_scaling.type".to_string(),
            gguf_key: key(arch::ROPE_SCALING_TYPE),
            upstream_key: upstream_key(&found_type, CONFIG, "rope_scaling.rope_type"),
            gguf: gguf_type,
            upstream: upstream_value(&found_type),
            impact: ROPE_IMPACT,
            known: true,
        }
        // The converter writes the old name `su` as `longrope`.
        .judge(|g, u| g == u || (g == "longrope" && u == "su"))
        .map(|c| {
            let mut c = c.fixed("str");
            if let Some(fix) = c.fix.as_mut().filter(|f| f.value == "su") {
                *fix = Fix::set(&fix.key, fix.ty, "longrope".to_string());
            }
            c
        }),
    };
    checks.extend(type_check);
    for field in ROPE_SCALING {
        let value = gguf(field.gguf);
        // A scaling written as a tensor carries its factor in the tensor.
        if tensor.is_some() && value.is_none() {
            continue;
        }
        let found = files.config(field.upstream);
        let pair = Pair {
            field: field.name.to_string(),
            gguf_key: key(field.gguf),
            upstream_key: upstream_key(&found, CONFIG, field.name),
            gguf: value,
            upstream: upstream_value(&found),
            impact: field.impact,
            known: true,
        };
        checks.extend(
            pair.judge(same(field.kind))
                .map(|c| c.fixed(field.kind.edit_type())),
        );
    }
}

/// `vocab_size` against the tokens the file lists (else `{arch}.vocab_size`). An upstream
/// embedding padded past the tokenizer (to a multiple of 64, say) is a note, not a difference.
fn vocabulary(checks: &mut Vec<Check>, header: &Header, files: &Files<'_>) {
    let tokens = Tokenizer::new(header).len();
    let (gguf_key, gguf) = if tokens > 0 {
        (keys::TOKENS.to_string(), Some(tokens as u64))
    } else {
        let key = header.metadata.architecture().map_or_else(
            || arch::VOCAB_SIZE.to_string(),
            |a| format!("{a}.{}", arch::VOCAB_SIZE),
        );
        (
            key,
            header.metadata.arch_get(arch::VOCAB_SIZE).and_then(Value::as_u64),
        )
    };
    let found = files.config(&["vocab_size"]);
    let upstream = found.as_ref().and_then(|f| f.value.as_u64());
    let padded = matches!((gguf, upstream), (Some(g), Some(u)) if u > g);
    let pair = Pair {
        field: "vocab_size".to_string(),
        gguf_key,
        upstream_key: upstream_key(&found, CONFIG, "vocab_size"),
        gguf: gguf.map(Json::from),
        upstream: upstream_value(&found),
        impact: "token ids past the model's embedding, or embedding rows no token reaches: the tokenizer belongs to another model",
        known: true,
    };
    checks.extend(pair.judge(|_, _| upstream.is_some() && gguf <= upstream).map(|c| Check {
        note: padded.then(|| {
            format!(
                "upstream's embedding has {} rows, padded past the file's {} tokens: the extra rows are never used",
                upstream.unwrap_or_default(),
                gguf.unwrap_or_default()
            )
        }),
        ..c
    }));
}

/// Special token ids, the texts of those tokens, and the add-bos/eos flags.
fn special_tokens(checks: &mut Vec<Check>, header: &Header, files: &Files<'_>) {
    let tokenizer = Tokenizer::new(header);
    let id_of = |role: &str| {
        let key = keys::special_token_key(role)?;
        Some((key, header.metadata.get(key).and_then(gguf_json)))
    };
    const IDS: [(&str, &str, &str); 3] = [
        (
            "bos_token_id",
            "bos",
            "prompts start with another token than in training: quality drops",
        ),
        (
            "eos_token_id",
            "eos",
            "generation does not stop where the model ends its answer, or stops early",
        ),
        (
            "pad_token_id",
            "padding",
            "batches are padded with another token than upstream's: usually harmless, but it can leak into embeddings",
        ),
    ];
    for (field, role, impact) in IDS {
        let Some((key, gguf)) = id_of(role) else { continue };
        let found = files.token_id(field);
        let pair = Pair {
            field: field.to_string(),
            gguf_key: key.to_string(),
            upstream_key: upstream_key(&found, CONFIG, field),
            gguf,
            upstream: upstream_value(&found),
            impact,
            // Where config.json lacks the id, generation_config.json may hold it.
            known: files.generation.is_some(),
        };
        checks.extend(pair.judge(id_in).map(|mut c| {
            // Upstream's id, or the first of its list (`"eos_token_id": [1, 106]`).
            let first = match &c.upstream {
                Json::Array(ids) => ids.first().cloned().unwrap_or(Json::Null),
                id => id.clone(),
            };
            if c.status.is_difference() {
                let ty = c.gguf.is_null().then_some("u32");
                c.fix = value_text(&first).map(|value| Fix::set(key, ty, value));
            }
            c
        }));
    }
    // End-of-turn and end-of-message ids stop generation in llama.cpp: upstream must stop there too.
    for (field, role) in [("eot_token_id", "eot"), ("eom_token_id", "eom")] {
        let Some((key, Some(gguf))) = id_of(role) else {
            continue;
        };
        let found = files.token_id("eos_token_id");
        let pair = Pair {
            field: field.to_string(),
            gguf_key: key.to_string(),
            upstream_key: upstream_key(&found, CONFIG, "eos_token_id"),
            gguf: Some(gguf),
            upstream: upstream_value(&found),
            impact: "the file stops generation at a token upstream does not stop at",
            known: files.generation.is_some(),
        };
        checks.extend(pair.judge(id_in));
    }
    for (field, role) in [
        ("bos_token", "bos"),
        ("eos_token", "eos"),
        ("pad_token", "padding"),
    ] {
        let Some(id_key) = keys::special_token_key(role) else {
            continue;
        };
        let id = header.metadata.get(id_key).and_then(Value::as_u64);
        let text = id
            .and_then(|id| tokenizer.token(usize::try_from(id).ok()?))
            .map(|t| Json::String(lossy(t.text).into_owned()));
        let found = files.tokenizer(field);
        // A string, or an added token: `{"content": "<eos>", …}`.
        let upstream = found
            .as_ref()
            .and_then(|f| f.value.get("content").unwrap_or(f.value).as_str())
            .map(|s| Json::String(s.to_owned()));
        let pair = Pair {
            field: field.to_string(),
            gguf_key: id.map_or_else(|| id_key.to_string(), |id| format!("{}[{id}]", keys::TOKENS)),
            upstream_key: upstream_key(&found, TOKENIZER_CONFIG, field),
            gguf: text,
            upstream,
            impact: "the token upstream names is another token in the file: templates and stop conditions refer to different tokens",
            known: files.tokenizer.is_some(),
        };
        checks.extend(pair.judge(|g, u| g == u).map(|mut c| {
            // The fix names the token upstream names: its id in the file's vocabulary.
            let named = c.upstream.as_str().and_then(|text| id_of_text(&tokenizer, text));
            if let (true, Some(named)) = (c.status.is_difference(), named) {
                let ty = id.is_none().then_some("u32");
                c.fix = Some(Fix::set(id_key, ty, named.to_string()));
            }
            c
        }));
    }
    for (field, impact) in [
        (
            "add_bos_token",
            "prompts get a leading BOS token where upstream's do not, or lack one: quality drops",
        ),
        (
            "add_eos_token",
            "prompts get an EOS token appended where upstream's do not, or lack one",
        ),
    ] {
        let Some(&(_, key)) = keys::TOKENIZER_FLAGS.iter().find(|(name, _)| *name == field) else {
            continue;
        };
        let found = files.tokenizer(field);
        let pair = Pair {
            field: field.to_string(),
            gguf_key: key.to_string(),
            upstream_key: upstream_key(&found, TOKENIZER_CONFIG, field),
            gguf: header.metadata.get(key).and_then(gguf_json),
            upstream: upstream_value(&found),
            impact,
            known: files.tokenizer.is_some(),
        };
        checks.extend(pair.judge(|g, u| g == u).map(|c| c.fixed("bool")));
    }
}

/// The id of the token whose text is `text`, the first if several have it.
fn id_of_text(tokenizer: &Tokenizer<'_>, text: &str) -> Option<u64> {
    (0..tokenizer.len())
        .find(|&i| tokenizer.token(i).is_some_and(|t| t.text == text.as_bytes()))
        .map(|i| i as u64)
}

/// A chat template found upstream.
struct Template {
    /// `None` for the default one.
    name: Option<String>,
    key: String,
    text: String,
}

/// Upstream's templates: `chat_template.jinja` (which transformers prefers) or
/// `tokenizer_config.json`'s `chat_template`, a string or a list of `{name, template}`.
fn upstream_templates(files: &Files<'_>) -> Vec<Template> {
    let mut out = Vec::new();
    if let Some(text) = files.template {
        out.push(Template {
            name: None,
            key: CHAT_TEMPLATE.to_string(),
            text: text.to_string(),
        });
    }
    let has_default = !out.is_empty();
    match files.tokenizer("chat_template").map(|f| f.value) {
        Some(Json::String(text)) if !has_default => out.push(Template {
            name: None,
            key: format!("{TOKENIZER_CONFIG}:chat_template"),
            text: text.clone(),
        }),
        Some(Json::Array(list)) => {
            for (i, item) in list.iter().enumerate() {
                let (Some(name), Some(text)) = (
                    item.get("name").and_then(Json::as_str),
                    item.get("template").and_then(Json::as_str),
                ) else {
                    continue;
                };
                let name = (name != keys::DEFAULT_TEMPLATE_NAME).then(|| name.to_string());
                if name.is_none() && has_default {
                    continue;
                }
                out.push(Template {
                    name,
                    key: format!("{TOKENIZER_CONFIG}:chat_template[{i}].template"),
                    text: text.to_string(),
                });
            }
        }
        _ => {}
    }
    out
}

/// Line endings made `\n`: a template saved on Windows is the same template.
fn normalized(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

fn templates(checks: &mut Vec<Check>, header: &Header, files: &Files<'_>) {
    let upstream = upstream_templates(files);
    let gguf = chat_templates(header);
    let gguf_name = |t: &gguf_core::chat_template::ChatTemplate<'_>| t.name.map(|n| lossy(n).into_owned());
    // The default first, then the file's named ones, then upstream's the file lacks.
    let mut names: Vec<Option<String>> = alloc::vec![None];
    for name in gguf
        .iter()
        .map(gguf_name)
        .chain(upstream.iter().map(|t| t.name.clone()))
    {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    for name in names {
        let ours = gguf.iter().find(|t| gguf_name(t) == name);
        let theirs = upstream.iter().find(|t| t.name == name);
        let suffix = name.as_ref().map(|n| format!(".{n}")).unwrap_or_default();
        let pair = Pair {
            field: format!("chat_template{suffix}"),
            gguf_key: format!("{}{suffix}", keys::CHAT_TEMPLATE),
            upstream_key: theirs.map_or_else(|| CHAT_TEMPLATE.to_string(), |t| t.key.clone()),
            gguf: ours.map(|t| Json::String(lossy(t.text).into_owned())),
            upstream: theirs.map(|t| Json::String(t.text.clone())),
            impact: "prompts are formatted otherwise than the model was trained with: worse answers, broken tool calls, turns that do not end",
            // The default template may be in either file; a named one only in tokenizer_config.json.
            known: files.tokenizer.is_some() && (name.is_some() || files.template.is_some()),
        };
        let Some(mut check) = pair.judge(|g, u| {
            let text = |v: &Json| normalized(v.as_str().unwrap_or_default());
            text(g) == text(u)
        }) else {
            continue;
        };
        if check.status == Status::Differs {
            let text = |v: &Json| normalized(v.as_str().unwrap_or_default());
            check.diff = Some(line_diff(&text(&check.gguf), &text(&check.upstream)));
        }
        if let (true, Some(theirs)) = (check.status.is_difference(), theirs) {
            let key = &check.gguf_key;
            // A file of its own is named on the command line; a template inside
            // tokenizer_config.json has to be saved to one first.
            let argument = (theirs.key == CHAT_TEMPLATE).then(|| format!("--set-file {key}={CHAT_TEMPLATE}"));
            check.fix = Some(Fix {
                key: key.clone(),
                ty: check.gguf.is_null().then_some("str"),
                value: theirs.text.clone(),
                argument,
            });
        }
        checks.push(check);
    }
}
