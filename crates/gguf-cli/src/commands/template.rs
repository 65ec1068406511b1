//! `ggufscope template`: a file's chat templates as stored, or the prompt llama.cpp builds from
//! them for a conversation (`gguf-template`'s sandboxed engine, under its fuel and recursion
//! bounds, its time limit and a memory cap, `budget::TEMPLATE_MEMORY_CAP`, on another thread),
//! and that prompt's token ids.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gguf_core::Header;
use gguf_core::chat_template::{ChatTemplate, chat_templates};
use gguf_core::text::Escaped;
use gguf_template::{Conversation, Prompt, RenderError, Request, Source, TIME_LIMIT, Templates, Vocab};
use gguf_tokenizer::{ChatTokens, Tokenizer, Tokens};
use serde::Serialize;

use crate::budget::{TEMPLATE_MEMORY_CAP, heap};
use crate::cli::{self, EXIT_NOT_FOUND, complain, finish, read_model_or_exit};

/// The chat templates as stored (control characters other than newline and tab escaped), or
/// with `--render` the prompt llama.cpp 0c1e570's server builds — for a sample conversation
/// (system, user, assistant, user) or the one in `--messages` — in a sandbox: no files, no
/// network, a fuel budget, a nesting limit and a time limit. With several templates, each
/// follows a line `==> NAME <==`.
///
/// Exit status: 0 when shown, 1 when the file has no such template or one fails to render
/// (the engine's message and the line on stderr), 2 when the file cannot be parsed.
#[derive(clap::Args, Debug)]
pub struct TemplateArgs {
    /// The .gguf file, or its URL.
    file: String,
    /// Print the prompt llama-server builds instead of the templates: from
    /// tokenizer.chat_template (tokenizer.chat_template.tool_use when the conversation has
    /// tools; ChatML, said on stderr, when the file has no template).
    #[arg(long)]
    render: bool,
    /// Only the template NAME: `default` (tokenizer.chat_template) or the NAME of
    /// tokenizer.chat_template.NAME (with --render: used in the default's place, as
    /// llama-server's --chat-template-file).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// The conversation, a JSON file: a list of messages ({role, content}), or llama-server's
    /// request body ({messages, tools, add_generation_prompt, chat_template_kwargs}).
    #[arg(long, value_name = "CONV.json", requires = "render")]
    messages: Option<String>,
    /// Template variables as a JSON object, e.g. '{"enable_thinking": false}'.
    #[arg(long, value_name = "JSON", requires = "render")]
    kwargs: Option<String>,
    /// Render without the generation prompt (the opening of the assistant's turn).
    #[arg(long, requires = "render")]
    no_generation_prompt: bool,
    /// With --render: {"prompt", "ids", "template", "notes"} as JSON; ids are the prompt's
    /// tokens as llama-server feeds them to the model (special tokens parsed, BOS added where
    /// the tokenizer adds it).
    #[arg(long, requires = "render")]
    json: bool,
    /// Read only the file named, not the other shards of its split model.
    #[arg(long)]
    no_siblings: bool,
}

/// `--render --json`'s document.
#[derive(Serialize)]
struct Rendered<'a> {
    /// The prompt.
    prompt: &'a str,
    /// Its token ids, `null` when the file's tokenizer cannot be built.
    ids: Option<Vec<u32>>,
    /// `default`, `tool_use`, the NAME given, or `chatml` (the fallback of a file without one).
    template: String,
    /// What llama.cpp did besides rendering.
    notes: &'a [String],
}

/// Runs `ggufscope template`.
pub fn run(args: &TemplateArgs) -> ExitCode {
    let arg = &args.file;
    let read = match read_model_or_exit(arg, !args.no_siblings) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let header = read.model.header();
    if args.render {
        return run_render(args, header);
    }
    let templates = select(header, args.name.as_deref());
    if templates.is_empty() {
        match &args.name {
            Some(n) => complain!("{arg}: no chat template named {n}"),
            None => complain!("{arg}: no chat template (tokenizer.chat_template)"),
        }
        return ExitCode::from(EXIT_NOT_FOUND);
    }
    let mut stdout = cli::stdout();
    for t in &templates {
        let heading = if templates.len() > 1 {
            format!("==> {} <==\n", name_of(t))
        } else {
            String::new()
        };
        // As it is, with a line end added only where it has none.
        let text = terminal_text(t.text);
        let end = if text.ends_with('\n') { "" } else { "\n" };
        let written = write!(stdout, "{heading}{text}{end}").and_then(|()| stdout.flush());
        if finish(written) != ExitCode::SUCCESS {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// `--render`: the prompt for the conversation, and with `--json` its ids.
fn run_render(args: &TemplateArgs, header: &Header) -> ExitCode {
    let arg = &args.file;
    let (conversation, fields) = match &args.messages {
        None => (Conversation::sample(), Default::default()),
        Some(path) => {
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => {
                    complain!("{path}: {e}");
                    return ExitCode::from(EXIT_NOT_FOUND);
                }
            };
            match Conversation::from_json(&text) {
                Ok(c) => c,
                Err(e) => {
                    complain!("{path}: {e}");
                    return ExitCode::from(EXIT_NOT_FOUND);
                }
            }
        }
    };
    let mut kwargs = fields.kwargs;
    if let Some(text) = &args.kwargs {
        match gguf_template::kwargs_from_json(text) {
            Ok(more) => {
                for (k, v) in more {
                    kwargs.retain(|(old, _)| *old != k);
                    kwargs.push((k, v));
                }
            }
            Err(e) => {
                complain!("--kwargs: {e}");
                return ExitCode::from(EXIT_NOT_FOUND);
            }
        }
    }
    let text_of = |t: &ChatTemplate<'_>| String::from_utf8_lossy(t.text).into_owned();
    let (default, tool_use) = match &args.name {
        Some(n) => match select(header, Some(n)).first() {
            Some(t) => (Some(text_of(t)), None),
            None => {
                complain!("{arg}: no chat template named {n}");
                return ExitCode::from(EXIT_NOT_FOUND);
            }
        },
        None => (
            select(header, Some("default")).first().map(text_of),
            select(header, Some("tool_use")).first().map(text_of),
        ),
    };
    let tokenizer = Tokenizer::new(header);
    let chat = gguf_template::chat_tokens(header, tokenizer.as_ref().ok());
    let job = Job {
        default,
        tool_use,
        chat,
        conversation,
        kwargs,
        add_generation_prompt: !args.no_generation_prompt && fields.add_generation_prompt.unwrap_or(true),
        now: now(),
    };
    let prompt = match render_within(job, TEMPLATE_MEMORY_CAP) {
        Ok(p) => p,
        Err(e) => {
            complain!("{arg}: {e}");
            return ExitCode::from(EXIT_NOT_FOUND);
        }
    };
    let template = match (&args.name, prompt.source) {
        (Some(n), _) => n.clone(),
        (None, Source::Default) => "default".into(),
        (None, Source::ToolUse) => "tool_use".into(),
        (None, Source::Fallback) => "chatml".into(),
    };
    let mut notes = prompt.notes.clone();
    if let Err(e) = &tokenizer {
        notes.push(format!("llama.cpp would not load this file's tokenizer ({e}): bos and eos are the tokens' texts as stored"));
    }
    let mut stdout = cli::stdout();
    let written = if args.json {
        let ids = tokenizer
            .ok()
            .map(|t| Tokens::of_prompt(&t, prompt.text.as_bytes()).ids);
        let document = Rendered {
            prompt: &prompt.text,
            ids,
            template,
            notes: &notes,
        };
        crate::json::write(&mut stdout, &document)
    } else {
        for note in &notes {
            complain!("{arg}: note: {note}");
        }
        let text = terminal_text(prompt.text.as_bytes());
        let end = if text.ends_with('\n') { "" } else { "\n" };
        write!(stdout, "{text}{end}")
    };
    finish(written.and_then(|()| stdout.flush()))
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

/// What a render needs, owned, to move to the render's thread.
struct Job {
    default: Option<String>,
    tool_use: Option<String>,
    chat: ChatTokens,
    conversation: Conversation,
    kwargs: Vec<(String, gguf_template::Value)>,
    add_generation_prompt: bool,
    now: i64,
}

/// gguf-template's findings on the header's chat templates (those that need a render), found on
/// another thread under the same bounds as a render (`gguf_template::lint_within`, the memory cap
/// metered); none when the renders run out of time or memory (said on stderr).
pub fn lint(arg: &str, header: &Header) -> Vec<gguf_core::Finding> {
    let found = gguf_template::lint_within(header.clone(), now(), TIME_LIMIT, || {
        heap::meter_this_thread(TEMPLATE_MEMORY_CAP);
    });
    match found {
        Some(found) if !heap::renders_over_cap() => found,
        _ => {
            complain!(
                "{arg}: the chat templates' renders were stopped (time or memory): their render checks are left out"
            );
            Vec::new()
        }
    }
}

/// Compares the prompts of the chat-template checks of `checks` that differ
/// (`gguf_template::compare_upstream_prompts`), on another thread under the same bounds as a
/// render; leaves them uncompared when the renders run out of time or memory (said on stderr).
pub fn compare_upstream_prompts(arg: &str, header: &Header, checks: &mut Vec<gguf_upstream::Check>) {
    if !checks
        .iter()
        .any(|c| c.field.starts_with("chat_template") && c.diff.is_some())
    {
        return;
    }
    let (sender, receiver) = mpsc::channel();
    let (header, mut owned) = (header.clone(), checks.clone());
    thread::spawn(move || {
        heap::meter_this_thread(TEMPLATE_MEMORY_CAP);
        let tokenizer = Tokenizer::new(&header).ok();
        gguf_template::compare_upstream_prompts(&mut owned, &header, tokenizer.as_ref(), now());
        let _ = sender.send(owned);
    });
    let started = Instant::now();
    loop {
        match receiver.recv_timeout(POLL) {
            Ok(compared) => return *checks = compared,
            Err(RecvTimeoutError::Timeout) if !heap::renders_over_cap() && started.elapsed() < TIME_LIMIT => {
            }
            Err(_) => {
                complain!(
                    "{arg}: the chat templates' renders were stopped (time or memory): their prompts are not compared"
                );
                return;
            }
        }
    }
}

/// Now, in seconds since 1970.
fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Builds the prompt on another thread, giving up after the time limit or at the memory cap
/// (the render's thread allocates nothing more and waits for the process to end).
fn render_within(job: Job, memory_cap: u64) -> Result<Prompt, RenderError> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        heap::meter_this_thread(memory_cap);
        let templates = Templates {
            default: job.default.as_deref(),
            tool_use: job.tool_use.as_deref(),
        };
        let vocab = Vocab {
            bos: job.chat.bos.as_deref(),
            eos: job.chat.eos.as_deref(),
            add_bos: job.chat.add_bos,
            add_eos: job.chat.add_eos,
        };
        let request = Request {
            conversation: &job.conversation,
            add_generation_prompt: job.add_generation_prompt,
            kwargs: &job.kwargs,
            now: job.now,
        };
        let _ = sender.send(gguf_template::apply(&templates, &vocab, &request));
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
        let text = String::from_utf8_lossy(select(&header, None)[0].text).into_owned();
        let job = Job {
            default: Some(text),
            tool_use: None,
            chat: ChatTokens::default(),
            conversation: Conversation::sample(),
            kwargs: Vec::new(),
            add_generation_prompt: true,
            now: 0,
        };
        let e = render_within(job, 16 << 20).unwrap_err();
        assert_eq!(
            e.message,
            "stopped: rendering needed more than 16 MiB of memory, the cap of the template renders"
        );
    }
}
