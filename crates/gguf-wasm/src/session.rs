//! Decoding one file's header: [`GgufSession`], fed where its `nextRead()` says (by any loop:
//! `web/read-loop.js` reads URLs so), or a local file's bytes from the stream it opens on the file
//! through web-sys (`stream()`), chunk by chunk as they arrive.

use gguf_core::HeaderDecoder;
use gguf_wasm_js::{next_read, parse_error, to_js};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::{Blob, ReadableStream};

/// The decoder of one file's header.
#[wasm_bindgen]
pub struct GgufSession {
    pub(crate) decoder: HeaderDecoder,
    file_size: f64,
    /// Reads fed so far.
    reads: f64,
    /// Whether the bytes come from `stream()`: one read, however many chunks it arrives in.
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
    pub fn stream(&mut self, file: &Blob) -> Result<ReadableStream, JsValue> {
        self.reads += 1.0;
        self.streaming = true;
        Ok(file.slice_with_f64(self.decoder.bytes_fed() as f64)?.stream())
    }

    /// Feeds the bytes of the last `nextRead()`, or the next chunk of the `stream()`. Throws a
    /// `ParseError` (`{ code, message, offset, context }`) when the file is malformed.
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

/// How a header was read so far, for the page's progress.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReadStats {
    bytes_read: f64,
    reads: f64,
    file_size: f64,
}
