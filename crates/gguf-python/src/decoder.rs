//! `ggufscope.Decoder`: the core's [`HeaderDecoder`] for any Python I/O, within a byte budget.
//!
//! The caller asks [`Decoder::next_read`] what to read, reads it however it likes and hands the
//! bytes to [`Decoder::feed`], which decodes them with the GIL released (other threads read
//! meanwhile). `max_header_bytes` is the CLI's `--max-header-bytes`: the memory reading the
//! header may take. It is held as a budget of header bytes, [`MEMORY_PER_HEADER_BYTE`] times
//! smaller: no read is asked for past it and no byte past it is decoded, and the decoder refuses
//! every count the bytes cannot hold before allocating, so a hostile file costs at most its
//! budget (tests/test_budget.py measures it).

use gguf_core::report::{Report, ReportOptions};
use gguf_core::split::SplitModel;
use gguf_core::{ErrorDocument, HeaderDecoder, Progress};
use pyo3::prelude::*;

use crate::error::{decode_error, raise, to_python};

/// Default `max_header_bytes`: 1 GiB, the CLI's `--max-header-bytes` default, twenty times the
/// heaviest real header.
pub const DEFAULT_MAX_HEADER_BYTES: u64 = 1 << 30;

/// Where a decoder is.
enum State {
    Decoding(HeaderDecoder),
    /// The header, as the model the documents are made of (one file, as the CLI's
    /// `info --no-siblings` reads it).
    Done(SplitModel),
    /// The file is malformed: the decoder's error, given again to every call.
    Malformed(gguf_core::Error),
    /// The header goes on past the budget.
    OverBudget,
}

/// The most memory one header byte takes once decoded, with the read buffer it came in: the
/// worst measured is 6.4 (a table of 300,000 tensors; 5.7 for a million empty inner arrays, 4.8
/// for arrays of empty arrays), with room for a vector's doubling.
pub const MEMORY_PER_HEADER_BYTE: u64 = 8;

/// A header being decoded, then the decoded model.
#[pyclass(module = "ggufscope._native")]
pub struct Decoder {
    state: State,
    /// The file's name, as the report names it (a shard's name makes it part of a split model).
    name: String,
    file_size: u64,
    max_header_bytes: u64,
    /// The header bytes the memory budget allows.
    byte_budget: u64,
    /// Bytes fed (those past the budget are not).
    fed: u64,
}

impl Decoder {
    /// The decoded model, or the error that says why there is none.
    pub fn model(&self, py: Python<'_>) -> PyResult<&SplitModel> {
        match &self.state {
            State::Done(model) => Ok(model),
            State::Malformed(e) => Err(decode_error(py, e)),
            State::OverBudget => Err(self.over_budget(py)),
            State::Decoding(_) => {
                let message = format!(
                    "the header is not decoded yet: {} of the file's {} bytes fed",
                    self.fed, self.file_size
                );
                Err(raise(
                    py,
                    &ErrorDocument::other("truncated", message, Some(self.fed)),
                ))
            }
        }
    }

    fn over_budget(&self, py: Python<'_>) -> PyErr {
        let message = format!(
            "stopped at byte {}: reading the header would take more than the header budget of {} bytes of memory (max_header_bytes; {} bytes of header)",
            self.fed, self.max_header_bytes, self.byte_budget
        );
        raise(
            py,
            &ErrorDocument::other("header-budget", message, Some(self.fed)),
        )
    }
}

#[pymethods]
impl Decoder {
    /// A decoder for a file of `file_size` bytes, named `name` (its file name: a shard's name
    /// makes the report a split model's), whose header may take `max_header_bytes` of memory.
    #[new]
    #[pyo3(signature = (file_size, *, name = String::new(), max_header_bytes = DEFAULT_MAX_HEADER_BYTES))]
    fn new(file_size: u64, name: String, max_header_bytes: u64) -> Decoder {
        Decoder {
            state: State::Decoding(HeaderDecoder::new(Some(file_size))),
            name,
            file_size,
            max_header_bytes,
            byte_budget: max_header_bytes / MEMORY_PER_HEADER_BYTE,
            fed: 0,
        }
    }

    /// `(offset, length)` to read and feed next, by the core's read rule; `None` once the header
    /// is decoded. Raises `GgufError` once the file is known malformed or past the budget.
    fn next_read(&self, py: Python<'_>) -> PyResult<Option<(u64, u64)>> {
        match &self.state {
            State::Done(_) => Ok(None),
            State::Malformed(e) => Err(decode_error(py, e)),
            State::OverBudget => Err(self.over_budget(py)),
            State::Decoding(decoder) => {
                let Some(read) = decoder.next_read() else {
                    return Ok(None);
                };
                if read.offset >= self.byte_budget {
                    return Err(self.over_budget(py));
                }
                let room = self.byte_budget - read.offset;
                Ok(Some((read.offset, read.len.min(room))))
            }
        }
    }

    /// Feeds the next bytes of the file (from `bytes_fed` on), decoding them without the GIL.
    /// Returns whether the header is decoded. Raises `GgufError` for a malformed file (its code,
    /// offset and context) and for a header longer than the budget (`header-budget`).
    fn feed(&mut self, py: Python<'_>, data: &[u8]) -> PyResult<bool> {
        let State::Decoding(decoder) = &mut self.state else {
            self.model(py)?;
            return Ok(true);
        };
        let room = self.byte_budget.saturating_sub(self.fed);
        let data = &data[..usize::try_from(room).map_or(data.len(), |room| room.min(data.len()))];
        self.fed += data.len() as u64;
        let progress = py.detach(|| decoder.feed(data));
        match progress {
            Ok(Progress::Done) => {
                let State::Decoding(decoder) = std::mem::replace(&mut self.state, State::OverBudget) else {
                    unreachable!("decoding: matched above")
                };
                let header = decoder
                    .into_header()
                    .expect("the decoder said Done: its header is there");
                self.state = State::Done(SplitModel::new(vec![(self.name.clone(), header)]));
                Ok(true)
            }
            Ok(Progress::Need { .. }) if self.fed >= self.byte_budget => {
                self.state = State::OverBudget;
                Err(self.over_budget(py))
            }
            Ok(Progress::Need { .. }) => Ok(false),
            Err(e) => {
                let error = decode_error(py, &e);
                self.state = State::Malformed(e);
                Err(error)
            }
        }
    }

    /// Bytes fed so far.
    #[getter]
    fn bytes_fed(&self) -> u64 {
        self.fed
    }

    /// Whether the header is decoded.
    #[getter]
    fn done(&self) -> bool {
        matches!(self.state, State::Done(_))
    }

    /// The file's size, as given.
    #[getter]
    fn file_size(&self) -> u64 {
        self.file_size
    }

    /// The header's size in bytes, once decoded.
    #[getter]
    fn header_size(&self) -> Option<u64> {
        match &self.state {
            State::Done(model) => Some(model.header().header_len),
            _ => None,
        }
    }

    /// The report: the document `ggufscope info --json` prints (with its `memory`), as a dict.
    fn report(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let model = self.model(py)?;
        let mut report = Report::of_model(model, ReportOptions::default()).described();
        // As `info --json`: llama-server's default buffers, where the header can be sized.
        let options = gguf_core::memory::Options::default();
        if let Ok(buffers) = gguf_core::memory::buffers(model.header(), &options) {
            report = report.with_memory(options, buffers);
        }
        to_python(py, &report)
    }
}
