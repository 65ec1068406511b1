//! `ggufscope template`: a file's chat templates as stored, or rendered for the sample
//! conversation by the sandboxed engine (`gguf-template`), under its fuel and recursion bounds,
//! its time limit and a memory cap (`budget::TEMPLATE_MEMORY_CAP`), on another thread.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use gguf_core::Header;
use gguf_core::chat_template::{ChatTemplate, chat_templates};
use gguf_core::text::Escaped;
use gguf_core::tokenizer::Tokenizer;
use gguf_template::{Options, RenderError, SAMPLE_CONVERSATION, TIME_LIMIT};

use crate::budget::{TEMPLATE_MEMORY_CAP, heap};
use crate::cli::{self, EXIT_NOT_FOUND, complain, finish, read_model_or_exit};

/// The chat templates as stored (control characters other than newline and tab escaped), or
/// rendered for a sample conversation — system, user, assistant, user — with the file's bos and
/// eos tokens, in a sandbox: no files, no network, a fuel budget, a nesting limit and a time
/// limit. With several templates, each follows a line `==> NAME <==`.
///
/// Exit status: 0 when shown, 1 when the file has no such template or one fails to render
/// (the engine's message and the line on stderr), 2 when the file cannot be parsed.
#[derive(clap::Args, Debug)]
pub struct TemplateArgs {
    /// The .gguf file, or its URL.
    file: String,
    /// Render the templates instead of printing them.
    #[arg(long)]
    render: bool,
    /// Only the template NAME: `default` (tokenizer.chat_template) or the NAME of
    /// tokenizer.chat_template.NAME.
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Render without the generation prompt (the opening of the assistant's turn).
    #[arg(long, requires = "render")]
    no_generation_prompt: bool,
    /// Read only the file named, not the other shards of its split model.
    #[arg(long)]
    no_siblings: bool,
}

/// Runs `ggufscope template`.
pub fn run(args: &TemplateArgs) -> ExitCode {
    let arg = &args.file;
    let read = match read_model_or_exit(arg, !args.no_siblings) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let header = read.model.header();
    let templates = select(header, args.name.as_deref());
    if templates.is_empty() {
        match &args.name {
            Some(n) => complain!("{arg}: no chat template named {n}"),
            None => complain!("{arg}: no chat template (tokenizer.chat_template)"),
        }
        return ExitCode::from(EXIT_NOT_FOUND);
    }
    let mut stdout = cli::stdout();
    let mut status = ExitCode::SUCCESS;
    for t in &templates {
        let text = if args.render {
            match render(header, t, !args.no_generation_prompt) {
                Ok(output) => output.into_bytes(),
                Err(e) => {
                    complain!("{arg}: template {}: {e}", name_of(t));
                    status = ExitCode::from(EXIT_NOT_FOUND);
                    continue;
                }
            }
        } else {
            t.text.to_vec()
        };
        let heading = if templates.len() > 1 {
            format!("==> {} <==\n", name_of(t))
        } else {
            String::new()
        };
        // As it is, with a line end added only where it has none.
        let text = terminal_text(&text);
        let end = if text.ends_with('\n') { "" } else { "\n" };
        let written = write!(stdout, "{heading}{text}{end}").and_then(|()| stdout.flush());
        if finish(written) != ExitCode::SUCCESS {
            return ExitCode::FAILURE;
        }
    }
    status
}

/// How often the wait for a render looks whether it was stopped at the memory cap.
const POLL: Duration = Duration::from_millis(20);

/// The name a template is asked for by: `default` for `tokenizer.chat_template`, else its NAME.
fn name_of(template: &ChatTemplate<'_>) -> String {
    Escaped(template.title()).to_string()
}

/// The file's templates, or only the one named `name`.
fn select<'h>(header: &'h Header, name: Option<&str>) -> Vec<ChatTemplate<'h>> {
    chat_templates(header)
        .into_iter()
        .filter(|t| name.is_none_or(|n| name_of(t) == n))
        .collect()
}

/// Text for a terminal: as it is, except control characters other than newline and tab, escaped
/// as `Escaped` escapes them, so that a hostile template cannot write escape sequences.
fn terminal_text(text: &[u8]) -> String {
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
fn render(
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
