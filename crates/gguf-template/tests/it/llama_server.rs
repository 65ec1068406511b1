//! The prompts and ids llama.cpp 0c1e570's server gives (`tests/reference/apply-template.json`,
//! written by `scripts/reference/chat-template-refs.py`: `POST /apply-template`, then `POST
//! /tokenize` with add_special and parse_special): every chat template among the fixtures — each
//! real file's own and named templates, the ChatML fallback of a file without one — and a few of
//! llama.cpp's own templates, over conversations of 1 to 6 messages, with and without a system
//! message and the generation prompt, content parts, a final assistant turn, tools, and
//! `enable_thinking` where the template has it. Prompts and ids must be identical.

use std::path::PathBuf;

use gguf_core::Header;
use gguf_core::chat_template::chat_templates;
use gguf_template::{Conversation, Request, Templates, Vocab, apply};
use gguf_test_support::{fixtures, gemma_path, needs_fixtures, needs_gemma, read_header};
use gguf_tokenizer::Tokenizer;
use serde_json::Value;

fn path_of(file: &str) -> PathBuf {
    if file == "gemma-3-270m-q4_k_m.gguf" {
        gemma_path()
    } else {
        fixtures().join(file)
    }
}

/// The template named `name` (`None`: `tokenizer.chat_template`) of a header.
fn template<'h>(h: &'h Header, name: Option<&str>) -> Option<&'h str> {
    chat_templates(h)
        .into_iter()
        .find(|t| t.name == name.map(str::as_bytes))
        .map(|t| std::str::from_utf8(t.text).unwrap())
}

/// Seconds since 1970 at the start of a day written `YYYY-MM-DD`.
fn day(date: &str) -> i64 {
    let p: Vec<i64> = date.split('-').map(|x| x.parse().unwrap()).collect();
    let (y, m, d) = (p[0] - i64::from(p[1] <= 2), p[1], p[2]);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe - 719_468) * 86_400
}

#[test]
fn prompts_and_ids_as_llama_server_gives_them() {
    needs_fixtures!();
    needs_gemma!();
    let text = include_str!("../reference/apply-template.json");
    let doc: Value = serde_json::from_str(text).unwrap();
    // The conversations again, keys in their order (tools' JSON Schemas are printed as given).
    let ordered: gguf_template::Value = serde_json::from_str(text).unwrap();
    let conversations = ordered.get_attr("conversations").unwrap();
    let now = day(doc["date_utc"].as_str().unwrap());
    let (mut checked, mut failures) = (0, Vec::new());
    for subject in doc["subjects"].as_array().unwrap() {
        let label = subject["label"].as_str().unwrap();
        let header = read_header(&path_of(subject["file"].as_str().unwrap()))
            .0
            .unwrap();
        if let Some(why) = subject["refused"].as_str() {
            // llama.cpp refuses the vocabulary: so does the tokenizer.
            assert!(
                Tokenizer::new(&header).is_err(),
                "{label}: llama.cpp refuses it ({why})"
            );
            continue;
        }
        let tokenizer = Tokenizer::new(&header).unwrap();
        let from = subject["template_from"]
            .as_str()
            .map(|f| read_header(&fixtures().join(f)).0.unwrap());
        let templates = if let Some(h) = &from {
            Templates {
                default: template(h, None),
                tool_use: None,
            }
        } else if let Some(text) = subject["template_text"].as_str() {
            Templates {
                default: Some(text),
                tool_use: None,
            }
        } else if let Some(name) = subject["template"].as_str() {
            Templates {
                default: template(&header, Some(name)),
                tool_use: None,
            }
        } else {
            Templates {
                default: template(&header, None),
                tool_use: template(&header, Some("tool_use")),
            }
        };
        let chat = tokenizer.chat_tokens();
        let vocab = Vocab {
            bos: chat.bos.as_deref(),
            eos: chat.eos.as_deref(),
            add_bos: chat.add_bos,
            add_eos: chat.add_eos,
        };
        for case in subject["cases"].as_array().unwrap() {
            let name = case["conversation"].as_str().unwrap();
            let (conversation, _) = Conversation::from_value(&conversations.get_attr(name).unwrap()).unwrap();
            let kwargs = match case.get("kwargs") {
                Some(k) => gguf_template::kwargs_from_json(&k.to_string()).unwrap(),
                None => Vec::new(),
            };
            let generation = case["add_generation_prompt"].as_bool().unwrap();
            let request = Request {
                conversation: &conversation,
                add_generation_prompt: generation,
                kwargs: &kwargs,
                now,
            };
            let what = format!(
                "{label} {name} gen={generation} {}",
                case.get("kwargs").map(Value::to_string).unwrap_or_default()
            );
            let got = apply(&templates, &vocab, &request);
            checked += 1;
            match (case["prompt"].as_str(), got) {
                (Some(want), Ok(got)) => {
                    if got.text != want {
                        let at = want
                            .bytes()
                            .zip(got.text.bytes())
                            .take_while(|(a, b)| a == b)
                            .count();
                        let near = |s: &str| {
                            s.get(at.saturating_sub(40)..(at + 60).min(s.len()))
                                .unwrap_or_default()
                                .to_owned()
                        };
                        failures.push(format!(
                            "{what}: first difference at byte {at}\n  want …{:?}\n  got  …{:?}",
                            near(want),
                            near(&got.text)
                        ));
                        continue;
                    }
                    let Some(want_ids) = case["ids"].as_array() else {
                        continue;
                    };
                    let want_ids: Vec<u32> = want_ids.iter().map(|v| v.as_u64().unwrap() as u32).collect();
                    let ids = tokenizer.tokenize(got.text.as_bytes(), true, true);
                    if ids != want_ids {
                        failures.push(format!("{what} ids\n  want {want_ids:?}\n  got  {ids:?}"));
                    }
                }
                (Some(_), Err(e)) => failures.push(format!("{what}: got error {e}")),
                (None, Ok(got)) => failures.push(format!(
                    "{what}\n  want error {}\n  got {:?}",
                    case["error"], got.text
                )),
                (None, Err(_)) => {}
            }
        }
    }
    assert!(checked > 200, "{checked} cases");
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
