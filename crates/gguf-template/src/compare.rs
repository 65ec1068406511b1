//! A file's chat template against upstream's, by what they build: both rendered as llama.cpp
//! would render the file's template ([`crate::apply`], the file's bos and eos texts and flags) for
//! the standard conversations, the prompts compared character by character and, tokenized as the
//! server tokenizes them, token by token. Two texts that differ only where it does not show (a
//! comment, whitespace that a block trims) give the same prompts; the first character that differs
//! is what a model sees otherwise than it was trained on.

use gguf_core::Header;
use gguf_tokenizer::Tokenizer;
use gguf_upstream::{Check, PromptCheck, PromptDifference};

use crate::lint::standard;
use crate::prompt::{Request, Templates, Vocab, apply, chat_tokens};

/// Characters shown before and after the first difference.
const AROUND: usize = 40;

/// How the prompts of template `gguf` and of `upstream` compare over the standard conversations.
pub fn compare_prompts(
    gguf: &str,
    upstream: &str,
    header: &Header,
    tokenizer: Option<&Tokenizer>,
    now: i64,
) -> PromptCheck {
    let chat = chat_tokens(header, tokenizer);
    let vocab = Vocab {
        bos: chat.bos.as_deref(),
        eos: chat.eos.as_deref(),
        add_bos: chat.add_bos,
        add_eos: chat.add_eos,
    };
    let conversations = standard();
    let mut differences = Vec::new();
    for (name, conversation) in &conversations {
        let render = |template: &str| {
            let templates = Templates {
                default: Some(template),
                tool_use: None,
            };
            let request = Request {
                conversation,
                add_generation_prompt: true,
                kwargs: &[],
                now,
            };
            apply(&templates, &vocab, &request).map(|p| p.text)
        };
        let difference =
            |first: usize, gguf: String, upstream: String, token: Option<usize>| PromptDifference {
                conversation: (*name).to_owned(),
                first_difference: first,
                gguf,
                upstream,
                first_token_difference: token,
            };
        match (render(gguf), render(upstream)) {
            (Ok(a), Ok(b)) if a == b => {}
            (Ok(a), Ok(b)) => {
                let first = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
                let token = tokenizer.map(|t| {
                    let (x, y) = (
                        t.tokenize(a.as_bytes(), true, true),
                        t.tokenize(b.as_bytes(), true, true),
                    );
                    x.iter().zip(&y).take_while(|(p, q)| p == q).count()
                });
                differences.push(difference(first, around(&a, first), around(&b, first), token));
            }
            (a, b) => {
                let shown = |r: Result<String, crate::RenderError>| match r {
                    Ok(p) => around(&p, 0),
                    Err(e) => format!("(fails: {e})"),
                };
                differences.push(difference(0, shown(a), shown(b), None));
            }
        }
    }
    PromptCheck {
        conversations: conversations.len(),
        differences,
    }
}

/// The prompts of every chat-template check of `checks` that differs and has both sides, compared
/// (`Check::prompts`).
pub fn compare_upstream_prompts(
    checks: &mut [Check],
    header: &Header,
    tokenizer: Option<&Tokenizer>,
    now: i64,
) {
    for check in checks
        .iter_mut()
        .filter(|c| c.field.starts_with("chat_template") && c.diff.is_some())
    {
        if let (Some(gguf), Some(upstream)) = (check.gguf.as_str(), check.upstream.as_str()) {
            check.prompts = Some(compare_prompts(gguf, upstream, header, tokenizer, now));
        }
    }
}

/// The characters of `text` from [`AROUND`] before character `at` to [`AROUND`] after it.
fn around(text: &str, at: usize) -> String {
    text.chars()
        .skip(at.saturating_sub(AROUND))
        .take(2 * AROUND)
        .collect()
}
