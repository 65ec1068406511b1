//! Decoding one file's header: [`GgufSession`], fed where its `nextRead()` says (by any loop:
//! `web/read-loop.js` reads URLs so), and [`read_file`], which reads a local file into one
//! through web-sys — in the worker, off the page's thread.

use gguf_core::HeaderDecoder;
use gguf_wasm_js::{next_read, parse_error, read_error, to_js};
use js_sys::{Function, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::{Blob, FileReaderSync};

/// The decoder of one file's header.
#[wasm_bindgen]
pub struct GgufSession {
    pub(crate) decoder: HeaderDecoder,
    file_size: f64,
    /// Reads fed so far.
    reads: f64,
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

    /// Feeds the bytes of the last `nextRead()`. Throws a `ParseError` (`{ code, message, offset,
    /// context }`) when the file is malformed.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.reads += 1.0;
        match self.decoder.feed(bytes) {
            Ok(_) => Ok(()),
            Err(e) => Err(parse_error(&e)),
        }
    }
}

/// Reads the header of `file` — a `File` or `Blob` in a Web Worker — by the core's read rule,
/// each read starting where the last ended, so no byte is read twice and tensor data is never
/// read: `Blob.slice` read with `FileReaderSync` (workers only), copied into wasm memory.
/// `on_progress({bytesRead, reads, fileSize})` is called after each read. Returns the decoded
/// session; throws a `ParseError` (`{ code, message, offset, context }`) for a malformed file or a
/// read that fails.
#[wasm_bindgen(js_name = readFile)]
pub fn read_file(
    file: &Blob,
    #[wasm_bindgen(unchecked_param_type = "((stats: ReadStats) => void) | undefined")] on_progress: Option<
        Function,
    >,
) -> Result<GgufSession, JsValue> {
    let reader = FileReaderSync::new()?;
    let mut session = GgufSession::new(file.size());
    while let Some(read) = session.decoder.next_read() {
        // The same messages as web/read-loop.js's `readSlice`. Offsets are formatted as
        // integers: float formatting would weigh on the module.
        let (start, end) = (read.offset, read.end());
        let slice = file.slice_with_f64_and_f64(start as f64, end as f64)?;
        let bytes = match reader.read_as_array_buffer(&slice) {
            Ok(buffer) => Uint8Array::new(&buffer),
            Err(e) => {
                let why = js_sys::Error::from(e).message().as_string().unwrap_or_default();
                return Err(read_error(
                    "read-failed",
                    format!("cannot read bytes {start}–{end} of the file: {why}"),
                    start,
                ));
            }
        };
        if u64::from(bytes.length()) != read.len {
            let (got, len) = (bytes.length(), read.len);
            let message =
                format!("read {got} bytes at offset {start} instead of {len}: did the file change?");
            return Err(read_error("file-changed", message, start));
        }
        session.feed(&bytes.to_vec())?;
        if let Some(f) = &on_progress {
            f.call1(&JsValue::NULL, &session.stats()?)?;
        }
    }
    Ok(session)
}

/// How a header was read so far, for the page's progress.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReadStats {
    bytes_read: f64,
    reads: f64,
    file_size: f64,
}
