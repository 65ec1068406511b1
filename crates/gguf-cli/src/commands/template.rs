//! `ggufscope template`: a file's chat templates as stored, or rendered for the sample
//! conversation by the sandboxed engine (`gguf-template`), under its fuel and recursion bounds,
//! its time limit and a memory cap (`budget::TEMPLATE_MEMORY_CAP`), on another thread.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use gguf_core::chat_template::{ChatTemplate, chat_templates};
use gguf_core::tokenizer::Tokenizer;
use gguf_core::{Escaped, Header};
use gguf_template::{Options, RenderError, SAMPLE_CONVERSATION, TIME_LIMIT};

use crate::budget::{TEMPLATE_MEMORY_CAP, heap};

/// How often the wait for a render looks whether it was stopped at the memory cap.
const POLL: Duration = Duration::from_millis(20);

/// The name a template is asked for by: `default` for `tokenizer.chat_template`, else its NAME.
pub fn name_of(template: &ChatTemplate<'_>) -> String {
    Escaped(template.title()).to_string()
}

/// The file's templates, or only the one named `name`.
pub fn select<'h>(header: &'h Header, name: Option<&str>) -> Vec<ChatTemplate<'h>> {
    chat_templates(header)
        .into_iter()
        .filter(|t| name.is_none_or(|n| name_of(t) == n))
        .collect()
}

/// Text for a terminal: as it is, except control characters other than newline and tab, escaped
/// as `Escaped` escapes them, so that a hostile template cannot write escape sequences.
pub fn terminal_text(text: &[u8]) -> String {
    let lines: Vec<String> = text
        .split(|&b| b == b'\n')
        .map(|line| {
            let parts: Vec<String> = line
                .split(|&b| b == b'\t')
                .map(|p| Escaped(p).to_string())
                .collect();
            parts.join("\t")
        })
        .collect();
    lines.join("\n")
}

/// Renders `template` with the file's bos and eos texts, giving up after the time limit or at
/// the memory cap (the render's thread allocates nothing more and waits for the process to end).
pub fn render(
    header: &Header,
    template: &ChatTemplate<'_>,
    add_generation_prompt: bool,
) -> Result<String, RenderError> {
    render_within(header, template, add_generation_prompt, TEMPLATE_MEMORY_CAP)
}

/// [`render`] with the memory cap given (the renders of a process share one).
fn render_within(
    header: &Header,
    template: &ChatTemplate<'_>,
    add_generation_prompt: bool,
    memory_cap: u64,
) -> Result<String, RenderError> {
    let text = std::str::from_utf8(template.text).map_err(|_| RenderError {
        message: "the template is not valid UTF-8".into(),
        line: None,
    })?;
    let tokenizer = Tokenizer::new(header);
    let special =
        |role| String::from_utf8_lossy(tokenizer.special_text(role).unwrap_or_default()).into_owned();
    let (bos, eos, text) = (special("bos"), special("eos"), text.to_owned());
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        heap::meter_this_thread(memory_cap);
        let options = Options {
            bos_token: &bos,
            eos_token: &eos,
            add_generation_prompt,
        };
        let _ = sender.send(gguf_template::render(&text, &SAMPLE_CONVERSATION, &options));
    });
    let stopped = |message: String| Err(RenderError { message, line: None });
    let started = Instant::now();
    loop {
        match receiver.recv_timeout(POLL) {
            Ok(rendered) => return rendered,
            Err(RecvTimeoutError::Timeout) if heap::renders_over_cap() => {
                return stopped(format!(
                    "stopped: rendering needed more than {} MiB of memory, the cap of the template renders",
                    memory_cap >> 20
                ));
            }
            Err(RecvTimeoutError::Timeout) if started.elapsed() < TIME_LIMIT => {}
            Err(_) => {
                return stopped(format!(
                    "stopped: the template ran for more than {} s",
                    TIME_LIMIT.as_secs()
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use gguf_core::testkit::GgufBuilder;

    use super::*;

    /// A render that needs more memory than its cap is stopped and said so; the fuel alone would
    /// let this one reach about 120 MB (a 60 MB string and its upper-cased copy).
    #[test]
    fn a_render_over_its_memory_cap_is_stopped() {
        let template = "{{ ('x' * 60000000).upper()|length }}";
        let file = GgufBuilder::new().kv("tokenizer.chat_template", template).build();
        let header = gguf_core::parse(&file).unwrap();
        let templates = select(&header, None);
        let e = render_within(&header, &templates[0], true, 16 << 20).unwrap_err();
        assert_eq!(
            e.message,
            "stopped: rendering needed more than 16 MiB of memory, the cap of the template renders"
        );
    }
}
