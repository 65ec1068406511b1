//! `ggufscope upstream` run as a user would: the complete Gemma 3 270M against the configuration
//! written for it (`crates/gguf-upstream/tests/data/gemma-3-270m`), from a directory and from a
//! base URL served by a small server in the test; its exit statuses; hostile text escaped.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::cli::{ggufscope, stderr, stdout, temp_file};
use gguf_core::testkit::{GgufBuilder, strings};
use serde_json::{Value as Json, json};

fn gemma_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../gguf-upstream/tests/data/gemma-3-270m")
}

/// A copy of Gemma's configuration in a directory of its own, with `config.json` edited.
fn edited(dir: &str, edit: impl FnOnce(&mut Json)) -> PathBuf {
    for name in ["tokenizer_config.json", "generation_config.json"] {
        temp_file(dir, name, &std::fs::read(gemma_config().join(name)).unwrap());
    }
    let mut config: Json =
        serde_json::from_slice(&std::fs::read(gemma_config().join("config.json")).unwrap()).unwrap();
    edit(&mut config);
    temp_file(dir, "config.json", config.to_string().as_bytes())
        .parent()
        .unwrap()
        .to_path_buf()
}

fn json_of(out: &std::process::Output) -> Json {
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_matching_configuration_exits_0() {
    let gemma = gguf_test_support::gemma();
    let out = ggufscope(["upstream".as_ref(), gemma.as_os_str(), gemma_config().as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let mut lines = text.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("gemma-3-270m-q4_k_m.gguf against ")
    );
    // Which files were read, and which were not (their fields unchecked).
    assert_eq!(
        lines.next(),
        Some("  checked    config.json, tokenizer_config.json, generation_config.json")
    );
    assert_eq!(
        lines.next(),
        Some("  not given  chat_template.jinja: what only they hold is not checked")
    );
    assert_eq!(lines.next(), Some("no differences"));
    assert!(
        text.contains("same (19): max_position_embeddings 32768, hidden_size 640,"),
        "{text}"
    );
    assert!(!text.contains("ggufscope edit"), "nothing to fix: {text}");

    let out = ggufscope([
        "upstream".as_ref(),
        gemma.as_os_str(),
        gemma_config().as_os_str(),
        "--json".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let doc = json_of(&out);
    assert_eq!(doc["differences"], 0);
    assert_eq!(doc["file"], gemma.to_str().unwrap());
    assert_eq!(doc["source"], gemma_config().to_str().unwrap());
    assert_eq!(
        doc["read"],
        json!(["config.json", "tokenizer_config.json", "generation_config.json"])
    );
    let checks = doc["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 19);
    assert!(checks.iter().all(|c| c["status"] == "same"));
}

#[test]
fn differences_exit_1_and_come_first() {
    let dir = edited("upstream-differs", |c| {
        c["rope_theta"] = json!(10000.0);
        c["eos_token_id"] = json!(106);
    });
    let gemma = gguf_test_support::gemma();
    let out = ggufscope(["upstream".as_ref(), gemma.as_os_str(), dir.as_os_str()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[3..10],
        [
            "1 difference",
            "  rope_theta differs",
            "    file      1000000.0 (gemma3.rope.freq_base)",
            "    upstream  10000.0 (config.json:rope_theta)",
            "    → positions are rotated at another frequency than in training: quality",
            "      drops, most at long context",
            "    fix       --set gemma3.rope.freq_base=10000.0",
        ]
    );
    // generation_config.json's eos list holds the file's eos: config.json's eos is not read.
    assert!(lines[10].starts_with("same (18): "), "{text}");
    // The fix, on one command line to copy.
    assert!(
        text.ends_with(&format!(
            "to give the file upstream's values:\n  ggufscope edit {} -o gemma-3-270m-q4_k_m.fixed.gguf \\\n    --set gemma3.rope.freq_base=10000.0\n",
            gemma.display()
        )),
        "{text}"
    );

    let out = ggufscope([
        "upstream".as_ref(),
        gemma.as_os_str(),
        dir.as_os_str(),
        "--json".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc = json_of(&out);
    assert_eq!(doc["differences"], 1);
    let differs: Vec<&Json> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] != "same")
        .collect();
    assert_eq!(differs.len(), 1);
    assert_eq!(
        (
            &differs[0]["field"],
            &differs[0]["gguf"],
            &differs[0]["upstream"],
            &differs[0]["status"]
        ),
        (
            &json!("rope_theta"),
            &json!(1000000.0),
            &json!(10000.0),
            &json!("differs")
        )
    );
}

#[test]
fn a_template_missing_in_the_file_is_shown() {
    let dir = edited("upstream-template", |_| {});
    temp_file(
        "upstream-template",
        "chat_template.jinja",
        b"{{ bos_token }}{% for m in messages %}\n<start_of_turn>{{ m.role }}\n{% endfor %}\n",
    );
    let out = ggufscope([
        "upstream".as_ref(),
        gguf_test_support::gemma().as_os_str(),
        dir.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains(
            "  chat_template missing in the file\n    file      (absent) (tokenizer.chat_template)\n"
        ),
        "{text}"
    );
    assert!(text.contains("(chat_template.jinja)"), "{text}");
}

#[test]
fn errors_exit_2() {
    let gemma = gguf_test_support::gemma();
    // No config.json.
    let dir = temp_file("upstream-empty", "tokenizer_config.json", b"{}");
    let out = ggufscope([
        "upstream".as_ref(),
        gemma.as_os_str(),
        dir.parent().unwrap().as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no config.json"), "{}", stderr(&out));
    // A config.json that is not JSON.
    let bad = temp_file("upstream-bad", "config.json", b"{\"hidden_size\": 640,");
    let out = ggufscope([
        "upstream".as_ref(),
        gemma.as_os_str(),
        bad.parent().unwrap().as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("config.json: not valid JSON"),
        "{}",
        stderr(&out)
    );
    // SOURCE that is not a directory; FILE that is not GGUF.
    let out = ggufscope(["upstream".as_ref(), gemma.as_os_str(), bad.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let not_gguf = temp_file(
        "upstream-not-gguf",
        "x.gguf",
        b"not a gguf file at all, not at all",
    );
    let out = ggufscope([
        "upstream".as_ref(),
        not_gguf.as_os_str(),
        gemma_config().as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
}

#[test]
fn hostile_text_is_escaped() {
    let file = GgufBuilder::new()
        .kv("general.architecture", "llama")
        .kv("tokenizer.ggml.tokens", strings(&["<s>", "</s>\x1b[2J\u{85}"]))
        .kv("tokenizer.ggml.eos_token_id", 1u32)
        .kv("tokenizer.chat_template", "{{ x }}\n\x1b]0;owned\x07\n")
        .build();
    let path = temp_file("upstream-hostile", "hostile.gguf", &file);
    let dir = temp_file("upstream-hostile-src", "config.json", b"{}");
    temp_file(
        "upstream-hostile-src",
        "tokenizer_config.json",
        br#"{"eos_token": "</s>\u001b[31m"}"#,
    );
    temp_file(
        "upstream-hostile-src",
        "chat_template.jinja",
        b"{{ x }}\n\x1b]0;other\x07\n",
    );
    let out = ggufscope([
        "upstream".as_ref(),
        path.as_os_str(),
        dir.parent().unwrap().as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(!text.bytes().any(|b| b == 0x1b || b == 0x07), "{text:?}");
    assert!(!text.contains('\u{85}'));
    assert!(
        text.contains(r#"file      "</s>\x1B[2J\u{85}" (tokenizer.ggml.tokens[1])"#),
        "{text}"
    );
    assert!(text.contains(r"    -\x1B]0;owned\x07"), "{text}");
    assert!(text.contains(r"    +\x1B]0;other\x07"), "{text}");
}

/// An HTTP server for the test: `files` by path (their bytes, or a file on disk for a model read
/// by Range requests), 404 for others; the paths asked for.
struct Server {
    origin: String,
    asked: Arc<Mutex<Vec<String>>>,
}

/// What the server has at a path.
enum Served {
    Bytes(Vec<u8>, &'static str),
    File(PathBuf),
}

impl Served {
    /// The bytes from `start` to `end` (exclusive) and the type.
    fn read(&self, start: u64, end: Option<u64>) -> (Vec<u8>, u64, &'static str) {
        match self {
            Served::Bytes(bytes, ty) => {
                let end = end.unwrap_or(bytes.len() as u64).min(bytes.len() as u64);
                (
                    bytes[start as usize..end as usize].to_vec(),
                    bytes.len() as u64,
                    ty,
                )
            }
            Served::File(path) => {
                let mut file = std::fs::File::open(path).unwrap();
                let len = file.metadata().unwrap().len();
                let end = end.unwrap_or(len).min(len);
                let mut bytes = vec![0; (end - start) as usize];
                file.seek(SeekFrom::Start(start)).unwrap();
                file.read_exact(&mut bytes).unwrap();
                (bytes, len, "application/octet-stream")
            }
        }
    }
}

impl Server {
    fn start(files: Vec<(&'static str, Served)>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&asked);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request = String::new();
                reader.read_line(&mut request).unwrap();
                // `Range: bytes=FIRST-LAST`, the only header read.
                let mut range = None;
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap() > 2 {
                    if let Some(r) = line.to_ascii_lowercase().strip_prefix("range: bytes=") {
                        let (first, last) = r.trim().split_once('-').unwrap();
                        range = Some((first.parse::<u64>().unwrap(), last.parse::<u64>().unwrap() + 1));
                    }
                    line.clear();
                }
                let path = request.split(' ').nth(1).unwrap_or_default().to_string();
                log.lock().unwrap().push(path.clone());
                let head = match files.iter().find(|(p, _)| *p == path) {
                    Some((_, served)) => {
                        let (start, end) = range.map_or((0, None), |(s, e)| (s, Some(e)));
                        let (body, len, ty) = served.read(start, end);
                        let status = match range {
                            Some(_) => format!(
                                "206 Partial Content\r\nContent-Range: bytes {start}-{}/{len}",
                                start + body.len() as u64 - 1
                            ),
                            None => "200 OK".to_string(),
                        };
                        (status, body, ty)
                    }
                    None => (
                        "404 Not Found".to_string(),
                        b"Entry not found".to_vec(),
                        "text/plain",
                    ),
                };
                let (status, body, ty) = head;
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\nContent-Type: {ty}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(&body);
            }
        });
        Server { origin, asked }
    }
}

#[test]
fn a_base_url_source() {
    let base = "/google/gemma-3-270m/resolve/main";
    let read = |name: &str| std::fs::read(gemma_config().join(name)).unwrap();
    let json = |name: &str| Served::Bytes(read(name), "application/json");
    let server = Server::start(vec![
        (
            "/google/gemma-3-270m/resolve/main/config.json",
            json("config.json"),
        ),
        (
            "/google/gemma-3-270m/resolve/main/tokenizer_config.json",
            json("tokenizer_config.json"),
        ),
        (
            "/google/gemma-3-270m/resolve/main/generation_config.json",
            json("generation_config.json"),
        ),
        (
            "/blob/config.json",
            Served::Bytes(b"<html></html>".to_vec(), "text/html; charset=utf-8"),
        ),
        (
            "/models/gemma-3-270m-q4_k_m.gguf",
            Served::File(gguf_test_support::gemma()),
        ),
    ]);
    let gemma = gguf_test_support::gemma();
    for source in [
        format!("{}{base}/", server.origin),
        format!("{}{base}", server.origin),
    ] {
        let out = ggufscope(["upstream", gemma.to_str().unwrap(), &source, "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc = json_of(&out);
        assert_eq!(
            doc["read"],
            json!(["config.json", "tokenizer_config.json", "generation_config.json"])
        );
        assert_eq!(doc["differences"], 0);
    }
    // Each file asked for once per run; chat_template.jinja's 404 is no error.
    let asked = server.asked.lock().unwrap().clone();
    let jinja = format!("{base}/chat_template.jinja");
    assert_eq!(asked.len(), 8, "{asked:?}");
    assert_eq!(asked.iter().filter(|p| **p == jinja).count(), 2);

    // The model too by URL, read by Range requests as other commands read one.
    let model = format!("{}/models/gemma-3-270m-q4_k_m.gguf", server.origin);
    let out = ggufscope(["upstream", &model, &format!("{}{base}/", server.origin)]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("gemma-3-270m-q4_k_m.gguf against http://"),
        "{}",
        stdout(&out)
    );

    // A repository without config.json, and a web page where the file should be.
    let out = ggufscope([
        "upstream",
        gemma.to_str().unwrap(),
        &format!("{}/nothing/", server.origin),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/nothing/config.json: no config.json"),
        "{}",
        stderr(&out)
    );
    let out = ggufscope([
        "upstream",
        gemma.to_str().unwrap(),
        &format!("{}/blob/", server.origin),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is a web page"), "{}", stderr(&out));
}

/// Templates that differ are compared by the prompts they build: a comment changes none; a
/// different turn marker is shown from the first character and token where the prompts part.
#[test]
fn templates_are_compared_by_their_prompts() {
    let tokens = [
        "<unk>",
        "<s>",
        "</s>",
        "<|turn|>",
        "▁",
        "▁Hello",
        "user",
        "assistant",
    ];
    let types: Vec<i32> = (0..tokens.len())
        .map(|i| match i {
            0 => 2,
            1..=3 => 3,
            _ => 1,
        })
        .collect();
    let template = "{% for m in messages %}<|turn|>{{ m.role }}\n{{ m.content }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}<|turn|>assistant\n{% endif %}";
    let file = temp_file(
        "upstream-prompts",
        "model.gguf",
        &GgufBuilder::new()
            .kv("general.architecture", "llama")
            .kv("tokenizer.ggml.model", "llama")
            .kv("tokenizer.ggml.tokens", gguf_core::Value::Array(strings(&tokens)))
            .kv(
                "tokenizer.ggml.scores",
                gguf_core::Value::Array(gguf_core::Array::F32(vec![0.0; tokens.len()])),
            )
            .kv(
                "tokenizer.ggml.token_type",
                gguf_core::Value::Array(gguf_core::Array::I32(types)),
            )
            .kv("tokenizer.ggml.bos_token_id", gguf_core::Value::U32(1))
            .kv("tokenizer.ggml.eos_token_id", gguf_core::Value::U32(2))
            .kv("tokenizer.chat_template", template)
            .build(),
    );
    let dir = file.parent().unwrap();
    temp_file("upstream-prompts", "config.json", br#"{"model_type": "llama"}"#);
    let run = |upstream: &str| {
        temp_file("upstream-prompts", "chat_template.jinja", upstream.as_bytes());
        ggufscope([
            "upstream".as_ref(),
            file.as_os_str(),
            dir.as_os_str(),
            "--json".as_ref(),
        ])
    };
    let out = run(&format!("{{# the same prompts #}}{template}"));
    let check = json_of(&out)["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["field"] == "chat_template")
        .unwrap()
        .clone();
    assert_eq!(check["status"], "differs");
    assert_eq!(check["prompts"], json!({"conversations": 4, "differences": []}));

    let out = run(&template.replace("<|turn|>assistant", "<|turn|>model"));
    let check = json_of(&out)["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["field"] == "chat_template")
        .unwrap()
        .clone();
    let differences = check["prompts"]["differences"].as_array().unwrap();
    // Every standard conversation ends with the generation prompt, where they part.
    assert_eq!(differences.len(), 4);
    assert_eq!(differences[0]["conversation"], "one user message");
    let prompt = "<|turn|>user\nHello</s><|turn|>assistant\n";
    assert_eq!(
        differences[0]["first_difference"],
        prompt.find("assistant").unwrap()
    );
    assert_eq!(differences[0]["gguf"], prompt);
    assert_eq!(differences[0]["upstream"], prompt.replace("assistant", "model"));
    // <s>, <|turn|>, "user"…: the ids part at the token after the second <|turn|>.
    assert!(differences[0]["first_token_difference"].as_u64().unwrap() > 3);
    let text = stdout(&ggufscope([
        "upstream".as_ref(),
        file.as_os_str(),
        dir.as_os_str(),
    ]));
    assert!(text.contains("    prompts   differ for 4 of 4 standard conversations:\n      one user message: from character 30, token 6\n"), "{text}");
}
