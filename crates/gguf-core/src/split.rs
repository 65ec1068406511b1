//! Split models: one model stored as several GGUF files ("shards",
//! `NAME-00001-of-00003.gguf`), each with a header of its own. Every shard carries `split.no`
//! (counted from 0, while file names count from 1), `split.count` and `split.tensors.count` (the
//! total over all shards); only the first carries `general.*` and `tokenizer.*`, and a shard may
//! hold no tensors at all. [`SplitModel`] puts the headers back together as the one model people
//! mean, and says which shards are missing and which files do not belong.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::endian::Endian;
use crate::header::{DEFAULT_ALIGNMENT, Header, Metadata, Value};
use crate::keys;
use crate::sort::sort_by;
use crate::validate::{Finding, FindingCode, MAX_FINDINGS_PER_CODE, Omitted, Subject, validate};

/// The most shards a model may have here: names with a higher count are not taken for shard
/// names, and a higher `split.count` is reported rather than enumerated, so that neither a
/// crafted name nor a crafted header makes a reader look for billions of files. (llama.cpp
/// stores `split.count` as a u16; real models have tens of shards.)
pub const MAX_SHARDS: u32 = 1024;

/// A file name that follows llama.cpp's shard naming, `PREFIX-NNNNN-of-MMMMM.gguf`
/// (`llama_split_path`: five digits, numbered from 1), so that its siblings can be named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardName<'a> {
    prefix: &'a str,
    number: u32,
    number_width: usize,
    count: u32,
    count_text: &'a str,
}

impl<'a> ShardName<'a> {
    /// Parses a file name (not a path); `None` unless it ends in `-N-of-M.gguf` with decimal
    /// `1 <= N <= M <= MAX_SHARDS` after a non-empty prefix.
    pub fn parse(file_name: &'a str) -> Option<ShardName<'a>> {
        let stem = file_name.strip_suffix(".gguf")?;
        let (rest, count_text) = stem.rsplit_once("-of-")?;
        let (prefix, number_text) = rest.rsplit_once('-')?;
        let decimal = |s: &str| -> Option<u32> {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            s.parse().ok()
        };
        let (number, count) = (decimal(number_text)?, decimal(count_text)?);
        (!prefix.is_empty() && number >= 1 && number <= count && count <= MAX_SHARDS).then_some(ShardName {
            prefix,
            number,
            number_width: number_text.len(),
            count,
            count_text,
        })
    }

    /// What comes before `-N-of-M.gguf`.
    pub fn prefix(&self) -> &'a str {
        self.prefix
    }

    /// This shard's number, from 1.
    pub fn number(&self) -> u32 {
        self.number
    }

    /// How many shards the name says there are.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The file name of shard `number` of the same model, written as this one is.
    pub fn sibling(&self, number: u32) -> String {
        format!(
            "{}-{:0width$}-of-{}.gguf",
            self.prefix,
            number,
            self.count_text,
            width = self.number_width
        )
    }

    /// The file names of all the shards, from the first.
    pub fn siblings(&self) -> impl Iterator<Item = String> + '_ {
        (1..=self.count).map(|n| self.sibling(n))
    }
}

/// A shard of the model: one file's name and header.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Shard {
    /// The file's name, as given.
    pub name: String,
    /// Its number as file names count, from 1 (`split.no + 1`; 1 for a file without split keys).
    pub number: u64,
    /// Its header.
    pub header: Header,
}

/// A shard that `split.count` promises but was not among the files read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingShard {
    /// Its number, from 1.
    pub number: u64,
    /// Its file name, when the first shard's name follows the naming convention.
    pub name: Option<String>,
}

/// A finding about one file of a split model (or about one that is missing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardFinding {
    /// The file it is about: a shard, a missing shard (its expected name, or `shard N of M`), or
    /// a file that was left out.
    pub file: String,
    /// The shard's number, from 1; `None` for a file that was left out.
    pub shard: Option<u64>,
    /// The finding; offsets and subjects are in that file.
    pub finding: Finding,
}

/// Findings of one code past the cap in one shard (see [`crate::validate::Omitted`]): at most
/// [`MAX_FINDINGS_PER_CODE`] are listed from the shard's own check, and as many again from the
/// shards compared (a tensor name in two shards).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardOmitted {
    /// The shard's file.
    pub file: String,
    /// The shard's number, from 1.
    pub shard: Option<u64>,
    /// The code and how many of its findings were left out.
    pub omitted: Omitted,
}

/// The `split.*` keys of one header: `(split.no, split.count, split.tensors.count)`.
fn split_keys(header: &Header) -> (Option<u64>, Option<u64>, Option<u64>) {
    let get = |key: &str| header.metadata.get(key).and_then(Value::as_u64);
    (
        get(keys::SPLIT_NO),
        get(keys::SPLIT_COUNT),
        get(keys::SPLIT_TENSORS_COUNT),
    )
}

/// Whether `header` is a shard of a split model: it carries any of the `split.*` keys.
pub fn is_shard(header: &Header) -> bool {
    split_keys(header) != (None, None, None)
}

/// The model made of shards. Built from the headers of any set of files: the shard with the
/// lowest `split.no` defines the model (its `split.count`, and its name for naming the others);
/// a file that does not fit it is left out and reported.
#[derive(Debug, Clone)]
pub struct SplitModel {
    shards: Vec<Shard>,
    left_out: Vec<Shard>,
    missing: Vec<MissingShard>,
    count: u64,
    split: bool,
    /// The shards' header merged; `None` for one shard, whose own header is the model's (a
    /// vocabulary of a quarter of a million tokens is not copied), or none ([`NO_SHARDS`]).
    merged: Option<Header>,
    tensor_shards: Vec<usize>,
    findings: Vec<ShardFinding>,
    omitted: Vec<ShardOmitted>,
}

impl SplitModel {
    /// Puts the headers of `files` (`(file name, header)`, any order) together.
    pub fn new(files: Vec<(String, Header)>) -> SplitModel {
        let split = files.len() > 1 || files.iter().any(|(_, h)| is_shard(h));
        let keyed = |h: &Header| match split_keys(h) {
            (Some(no), Some(count), _) => Some((no, count)),
            _ => None,
        };
        let reference = files
            .iter()
            .enumerate()
            .min_by_key(|(i, (_, h))| (keyed(h).map_or(u64::MAX, |(no, _)| no), *i))
            .map_or(0, |(i, _)| i);
        let count = files
            .get(reference)
            .and_then(|(_, h)| keyed(h))
            .map_or(1, |(_, count)| count.max(1));
        let reference_name = files
            .get(reference)
            .map(|(name, _)| name.clone())
            .unwrap_or_default();
        let name_of = ShardName::parse(&reference_name).filter(|n| u64::from(n.count()) == count);

        let mut findings = Vec::new();
        let (mut shards, mut left_out) = (Vec::<Shard>::new(), Vec::new());
        for (i, (name, header)) in files.into_iter().enumerate() {
            let number = keyed(&header).map_or(1, |(no, _)| no.saturating_add(1));
            let why_not = if i == reference {
                None
            } else {
                match keyed(&header) {
                    None => Some(String::from(
                        "it has no split.no and split.count: a model of its own, not a shard",
                    )),
                    Some((_, c)) if c != count => Some(format!(
                        "its split.count is {c}, not {count} as in {reference_name}"
                    )),
                    Some((no, _)) if no >= count => Some(format!(
                        "its split.no is {no}, beyond split.count {count} (split.no counts from 0)"
                    )),
                    _ => match (ShardName::parse(&name), name_of) {
                        (Some(a), Some(b)) if a.prefix() != b.prefix() => {
                            Some(format!("its name is not that of a shard of {reference_name}"))
                        }
                        _ => shards
                            .iter()
                            .find(|s| s.number == number)
                            .map(|s| format!("it is a second shard {number} of {count}, besides {}", s.name)),
                    },
                }
            };
            let shard = Shard { name, number, header };
            match why_not {
                Some(why) => {
                    let message = format!("{} is left out of the model: {why}", shard.name);
                    findings.push(set_finding(&shard.name, None, FindingCode::ShardLeftOut, message));
                    left_out.push(shard);
                }
                None => shards.push(shard),
            }
        }
        // Numbers are unique here (a number taken twice was left out above): the crate's small
        // unstable sort will do.
        sort_by(&mut shards, |a, b| a.number.cmp(&b.number));

        if count > u64::from(MAX_SHARDS) {
            let message = format!("split.count is {count}: more than the {MAX_SHARDS} shards looked for");
            findings.extend(shards.first().map(|s| key_finding(s, keys::SPLIT_COUNT, message)));
        }
        let missing: Vec<MissingShard> = (1..=count.min(u64::from(MAX_SHARDS)))
            .filter(|n| !shards.iter().any(|s| s.number == *n))
            .map(|number| MissingShard {
                number,
                name: name_of.and_then(|n| u32::try_from(number).ok().map(|k| n.sibling(k))),
            })
            .collect();
        for m in &missing {
            let (file, named) = match &m.name {
                Some(name) => (name.clone(), format!(" ({name})")),
                None => (format!("shard {} of {count}", m.number), String::new()),
            };
            let message = format!(
                "shard {} of {count}{named} is missing: its tensors are not counted",
                m.number
            );
            findings.push(set_finding(
                &file,
                Some(m.number),
                FindingCode::ShardMissing,
                message,
            ));
        }
        let mut omitted = Vec::new();
        if split {
            let (model_findings, model_omitted) = consistency(&shards, count, missing.is_empty());
            findings.extend(model_findings);
            omitted.extend(model_omitted);
        }
        for s in &shards {
            let validation = validate(&s.header, None);
            findings.extend(validation.findings.into_iter().map(|finding| ShardFinding {
                file: s.name.clone(),
                shard: Some(s.number),
                finding,
            }));
            for o in validation.omitted {
                // A code past the cap both across shards and in the shard itself: one count.
                match omitted
                    .iter_mut()
                    .find(|m: &&mut ShardOmitted| m.file == s.name && m.omitted.code == o.code)
                {
                    Some(m) => m.omitted.count += o.count,
                    None => omitted.push(ShardOmitted {
                        file: s.name.clone(),
                        shard: Some(s.number),
                        omitted: o,
                    }),
                }
            }
        }
        sort_by(&mut findings, |a, b| {
            (a.shard.unwrap_or(u64::MAX), a.finding.span.start, a.finding.code)
                .cmp(&(b.shard.unwrap_or(u64::MAX), b.finding.span.start, b.finding.code))
                .then_with(|| a.finding.message.cmp(&b.finding.message))
        });

        let (merged, tensor_shards) = merge(&shards);
        SplitModel {
            shards,
            left_out,
            missing,
            count,
            split,
            merged,
            tensor_shards,
            findings,
            omitted,
        }
    }

    /// Whether this is a split model (a file with split keys, or several files), rather than one
    /// ordinary file.
    pub fn is_split(&self) -> bool {
        self.split
    }

    /// `split.count` of the first shard: how many shards the model has (1 when not split).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The shards read, by number.
    pub fn shards(&self) -> &[Shard] {
        &self.shards
    }

    /// The shards `split.count` promises that were not read, by number.
    pub fn missing(&self) -> &[MissingShard] {
        &self.missing
    }

    /// Files given that are not shards of this model.
    pub fn left_out(&self) -> &[Shard] {
        &self.left_out
    }

    /// The model as one header: the first shard's version, byte order, alignment, data offset and
    /// metadata; the tensors of every shard, by shard; `header_len` and `file_len` summed over
    /// the shards. A tensor's `offset` and `span` stay those in its own shard ([`Self::shard_of`]).
    pub fn header(&self) -> &Header {
        match (&self.merged, self.shards.first()) {
            (Some(merged), _) => merged,
            (None, Some(only)) => &only.header,
            (None, None) => &NO_SHARDS,
        }
    }

    /// The shard holding tensor `index` of [`Self::header`].
    pub fn shard_of(&self, index: usize) -> Option<&Shard> {
        self.shards.get(*self.tensor_shards.get(index)?)
    }

    /// Every finding: the validator's for each shard, and the model's own (missing shards, files
    /// left out, split keys that disagree across shards); by shard, then offset.
    pub fn findings(&self) -> &[ShardFinding] {
        &self.findings
    }

    /// Per shard and code, the validator's findings past its cap: counted, not in [`Self::findings`].
    pub fn omitted(&self) -> &[ShardOmitted] {
        &self.omitted
    }
}

fn set_finding(file: &str, shard: Option<u64>, code: FindingCode, message: String) -> ShardFinding {
    ShardFinding {
        file: String::from(file),
        shard,
        finding: Finding {
            severity: code.severity(),
            code,
            message,
            span: 0..0,
            subject: Subject::File,
        },
    }
}

/// What the shards say against each other: `split.tensors.count` the same in all and equal to
/// the tensors they hold (at least, while shards are missing); file names that agree with
/// `split.no`; no tensor name in two shards (per shard, the first [`MAX_FINDINGS_PER_CODE`]
/// listed and the rest counted, as the validator does).
fn consistency(shards: &[Shard], count: u64, complete: bool) -> (Vec<ShardFinding>, Vec<ShardOmitted>) {
    let (mut out, mut omitted) = (Vec::new(), Vec::new());
    let Some(first) = shards.first() else {
        return (out, omitted);
    };
    let declared = split_keys(&first.header).2;
    for s in shards {
        let total = split_keys(&s.header).2;
        if let (Some(t), Some(d)) = (total, declared) {
            if t != d {
                let message = format!("split.tensors.count is {t} here, but {d} in {}", first.name);
                out.push(key_finding(s, keys::SPLIT_TENSORS_COUNT, message));
            }
        }
        if let Some(name) = ShardName::parse(&s.name) {
            if u64::from(name.number()) != s.number || u64::from(name.count()) != count {
                let message = format!(
                    "the file name says shard {} of {}, but split.no {} and split.count {count} make it shard {} of {count}",
                    name.number(),
                    name.count(),
                    s.number - 1,
                    s.number
                );
                out.push(key_finding(s, keys::SPLIT_NO, message));
            }
        }
    }
    let held: u64 = shards.iter().map(|s| s.header.tensors.len() as u64).sum();
    if let Some(d) = declared {
        if held > d || (complete && held != d) {
            let shards_read = match shards.len() {
                1 => String::from("the 1 shard read holds"),
                n => format!("the {n} shards read hold"),
            };
            let message = format!("split.tensors.count is {d}, but {shards_read} {held} tensors");
            out.push(key_finding(first, keys::SPLIT_TENSORS_COUNT, message));
        }
    }
    let mut seen: BTreeMap<&[u8], &str> = BTreeMap::new();
    for s in shards {
        let mut found = 0u64;
        for (i, t) in s.header.tensors.iter().enumerate() {
            match seen.insert(t.name.as_bytes(), &s.name) {
                Some(other) if other != s.name => {
                    found += 1;
                    if found > MAX_FINDINGS_PER_CODE as u64 {
                        continue;
                    }
                    let mut f = set_finding(
                        &s.name,
                        Some(s.number),
                        FindingCode::DuplicateTensorName,
                        format!("tensor {} is also in {other}", t.name.excerpt()),
                    );
                    f.finding.span = t.span.clone();
                    f.finding.subject = Subject::Tensor(i);
                    out.push(f);
                }
                _ => {}
            }
        }
        if let Some(count) = found.checked_sub(MAX_FINDINGS_PER_CODE as u64).filter(|&n| n > 0) {
            omitted.push(ShardOmitted {
                file: s.name.clone(),
                shard: Some(s.number),
                omitted: Omitted {
                    code: FindingCode::DuplicateTensorName,
                    count,
                },
            });
        }
    }
    (out, omitted)
}

/// A `split-keys-inconsistent` finding about key `key` of shard `s`.
fn key_finding(s: &Shard, key: &str, message: String) -> ShardFinding {
    let mut f = set_finding(
        &s.name,
        Some(s.number),
        FindingCode::SplitKeysInconsistent,
        message,
    );
    let entries = s.header.metadata.entries();
    if let Some(i) = entries.iter().position(|e| e.key.as_bytes() == key.as_bytes()) {
        f.finding.span = entries[i].span.clone();
        f.finding.subject = Subject::Kv(i);
    }
    f
}

/// The model of no shards: no metadata, no tensors, an empty file.
static NO_SHARDS: Header = Header {
    version: 3,
    endian: Endian::Little,
    metadata: Metadata(Vec::new()),
    tensors: Vec::new(),
    alignment: DEFAULT_ALIGNMENT,
    header_len: 0,
    data_offset: 0,
    file_len: Some(0),
};

/// The merged header, `None` when it would be the one shard's own or [`NO_SHARDS`], and for
/// each of its tensors the index of its shard.
fn merge(shards: &[Shard]) -> (Option<Header>, Vec<usize>) {
    let mut tensor_shards = Vec::new();
    let [first, _, ..] = shards else {
        tensor_shards.extend(
            shards
                .iter()
                .flat_map(|s| core::iter::repeat_n(0, s.header.tensors.len())),
        );
        return (None, tensor_shards);
    };
    let mut tensors = Vec::new();
    let (mut header_len, mut file_len) = (0u64, Some(0u64));
    for (i, s) in shards.iter().enumerate() {
        tensors.extend(s.header.tensors.iter().cloned());
        tensor_shards.extend(core::iter::repeat_n(i, s.header.tensors.len()));
        header_len = header_len.saturating_add(s.header.header_len);
        file_len = file_len.zip(s.header.file_len).map(|(a, b)| a.saturating_add(b));
    }
    let first = &first.header;
    let header = Header {
        version: first.version,
        endian: first.endian,
        metadata: first.metadata.clone(),
        tensors,
        alignment: first.alignment,
        header_len,
        data_offset: first.data_offset,
        file_len,
    };
    (Some(header), tensor_shards)
}
