//! Decoding one file's header, the one decoder binding of every module that reads headers:
//! [`GgufSession`], fed where its `nextRead()` says (by any loop: `web/blob-read.js` reads so), or
//! — in the viewer — a local file's bytes from the stream it opens on the file through web-sys
//! (`stream()`), chunk by chunk as they arrive. A module then takes the decoded session: the
//! viewer's `GgufModel`, the edit module's `GgufEditor`, the diff module's `Comparison`, the
//! upstream module's `check`. With it, the two facts a reader of a model needs from the core: the
//! first read's size and the names of a split model's shards.

use gguf_core::split::ShardName;
use gguf_core::{Header, HeaderDecoder};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::js::{error, next_read, parse_error, to_js};

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** How a header was read so far. */
export interface ReadStats { bytesRead: number; reads: number; fileSize: number }
"#;

/// The decoder of one file's header.
#[wasm_bindgen]
pub struct GgufSession {
    decoder: HeaderDecoder,
    file_size: f64,
    /// Reads fed so far.
    reads: f64,
    /// Whether the bytes come from `stream()`: one read, however many chunks it arrives in.
    #[cfg_attr(not(feature = "viewer"), allow(dead_code))]
    streaming: bool,
}

#[wasm_bindgen]
impl GgufSession {
    /// A session for a file of `file_size` bytes (`File.size`).
    #[wasm_bindgen(constructor)]
    pub fn new(file_size: f64) -> GgufSession {
        #[cfg(debug_assertions)]
        console_error_panic_hook::set_once();
        GgufSession {
            decoder: HeaderDecoder::new(Some(file_size as u64)),
            file_size,
            reads: 0.0,
            streaming: false,
        }
    }

    /// How the header was read so far: `{ bytesRead, reads, fileSize }`.
    #[wasm_bindgen(getter, unchecked_return_type = "ReadStats")]
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        to_js(&ReadStats {
            bytes_read: self.decoder.bytes_fed() as f64,
            reads: self.reads,
            file_size: self.file_size,
        })
    }

    /// The bytes to read and feed next, `{ offset, length }` — the core's read rule, the same
    /// as the CLI's — or `null` once the header is decoded.
    #[wasm_bindgen(js_name = nextRead, unchecked_return_type = "ReadRange | null")]
    pub fn next_read(&self) -> Result<JsValue, JsValue> {
        next_read(self.decoder.next_read())
    }

    /// The rest of `file` (a `File` or `Blob`) from where the decoder stands, as one stream
    /// (`Blob.slice` + `Blob.stream`): a local file's header read in a single read, fed chunk by
    /// chunk as the browser hands them over, so decoding overlaps reading and no read waits on
    /// another. Cancel it once `nextRead()` is null: what the browser has not handed over by then is
    /// never read. After this, `feed` takes the stream's chunks, and the stream counts as one read.
    #[cfg(feature = "viewer")]
    pub fn stream(&mut self, file: &web_sys::Blob) -> Result<web_sys::ReadableStream, JsValue> {
        self.reads += 1.0;
        self.streaming = true;
        Ok(file.slice_with_f64(self.decoder.bytes_fed() as f64)?.stream())
    }

    /// Feeds the bytes of the last `nextRead()` (or fewer), or the next chunk of the `stream()`.
    /// Throws a `ParseError` (`{ code, message, offset, context }`) when the file is malformed.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        if !self.streaming {
            self.reads += 1.0;
        }
        match self.decoder.feed(bytes) {
            Ok(_) => Ok(()),
            Err(e) => Err(parse_error(&e)),
        }
    }
}

impl GgufSession {
    /// The file's size, as given.
    #[cfg(feature = "edit")]
    pub(crate) fn file_size(&self) -> f64 {
        self.file_size
    }

    /// The decoded header; an `Error` naming `file` while it is still being read.
    #[cfg(any(feature = "edit", feature = "upstream"))]
    pub(crate) fn header(&self, file: &str) -> Result<&Header, JsValue> {
        self.decoder.header().ok_or_else(|| not_decoded(file))
    }

    /// The decoded header, taken; an `Error` naming `file` while it is still being read.
    pub(crate) fn into_header(self, file: &str) -> Result<Header, JsValue> {
        self.decoder.into_header().ok_or_else(|| not_decoded(file))
    }
}

fn not_decoded(file: &str) -> JsValue {
    error(format!(
        "the header of {file} is not decoded yet: feed what nextRead() asks"
    ))
}

/// The decoded `sessions` of files named `names` (same order), as the core's split model takes
/// them: `(name, header)`. Takes the sessions; an `Error` when the lists differ in length or are
/// empty, or a header is not decoded.
#[cfg(any(feature = "viewer", feature = "diff", feature = "memory"))]
pub(crate) fn named_headers(
    sessions: Vec<GgufSession>,
    names: Vec<String>,
) -> Result<Vec<(String, Header)>, JsValue> {
    if sessions.len() != names.len() || sessions.is_empty() {
        return Err(error("one name is needed per session, and one session at least"));
    }
    sessions
        .into_iter()
        .zip(names)
        .map(|(session, name)| session.into_header(&name).map(|header| (name, header)))
        .collect()
}

/// How a header was read so far, for the page's progress.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReadStats {
    bytes_read: f64,
    reads: f64,
    file_size: f64,
}

/// The size of the first header read (the core's `read::FIRST_READ`): what a URL's first
/// request fetches along with the file's size.
#[wasm_bindgen(js_name = firstRead)]
pub fn first_read() -> f64 {
    gguf_core::read::FIRST_READ as f64
}

/// The file names of every shard of the model that `file_name` names a shard of (llama.cpp's
/// `NAME-00002-of-00003.gguf`), from the first; `undefined` for any other name.
#[wasm_bindgen(js_name = shardNames)]
pub fn shard_names(file_name: &str) -> Option<Vec<String>> {
    ShardName::parse(file_name).map(|name| name.siblings().collect())
}
