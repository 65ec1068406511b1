//! `ggufscope info|validate|tensor` on URLs, run as a user would, against the server the browser tests
//! use (`scripts/model-server.mjs`: send, from the npm registry, on 127.0.0.1): one that honours
//! Range, one that ignores it, one that lacks a shard; the bytes each sent, as counted by the
//! server. And split models from files on disk. Needs Node.js and `npm ci` (scripts/test.sh).

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use crate::cli::ggufscope;
use gguf_test_support::fixture;
use serde_json::Value as Json;

const FIRST_READ: u64 = 256 << 10;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn reference(name: &str) -> Json {
    serde_json::from_slice(&std::fs::read(fixture(&format!("ref/{name}.summary.json"))).unwrap()).unwrap()
}

/// A model server serving `dir`, stopped when dropped.
struct Server {
    child: Child,
    origin: String,
}

impl Server {
    fn start(dir: &Path, flags: &[&str]) -> Server {
        assert!(
            repo().join("node_modules/send").exists(),
            "node_modules/send is missing: run `npm ci` (scripts/test.sh does)"
        );
        let mut child = Command::new("node")
            .arg(repo().join("scripts/model-server.mjs"))
            .arg(dir)
            .args(flags)
            .stdout(Stdio::piped())
            .spawn()
            .expect("node (Node.js 20+) runs the test server");
        let mut origin = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut origin)
            .unwrap();
        Server {
            child,
            origin: origin.trim().to_string(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.origin)
    }

    /// What the server has sent so far, in bytes, headers included.
    fn bytes_sent(&self) -> u64 {
        let stats = http_get(&self.url("_stats"));
        serde_json::from_str::<Json>(&stats).unwrap()["bytesSent"]
            .as_u64()
            .unwrap()
    }

    /// The requests the server has answered: `(method, url, range, status)`.
    fn requests(&self) -> Vec<Json> {
        let stats = http_get(&self.url("_stats"));
        serde_json::from_str::<Json>(&stats).unwrap()["requests"]
            .as_array()
            .unwrap()
            .clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A plain HTTP/1.0 GET, for the test's own look at the server's counters.
fn http_get(url: &str) -> String {
    let (host, path) = url.trim_start_matches("http://").split_once('/').unwrap();
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    write!(stream, "GET /{path} HTTP/1.0\r\nHost: {host}\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer.split_once("\r\n\r\n").unwrap().1.to_string()
}

/// A directory with the 40 GB sparse file, the three shards, a small file and the quantized
/// tensors; and one that lacks the second shard.
fn dirs() -> &'static (PathBuf, PathBuf) {
    static DIRS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    DIRS.get_or_init(|| {
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("url-cli");
        let (all, partial) = (base.join("all"), base.join("partial"));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&all).unwrap();
        std::fs::create_dir_all(&partial).unwrap();
        let restored = Command::new("sh")
            .arg(fixture("synth/sparse/restore.sh"))
            .arg(&all)
            .status()
            .unwrap();
        assert!(restored.success());
        for n in 1..=3 {
            let name = format!("sharded-0000{n}-of-00003.gguf");
            symlink(fixture(&format!("synth/{name}")), all.join(&name)).unwrap();
            if n != 2 {
                symlink(fixture(&format!("synth/{name}")), partial.join(&name)).unwrap();
            }
        }
        symlink(fixture("synth/minimal.gguf"), all.join("minimal.gguf")).unwrap();
        symlink(fixture("synth/quants.gguf"), all.join("quants.gguf")).unwrap();
        (all, partial)
    })
}

#[test]
fn info_reads_a_41_gb_file_by_url_with_one_range_request() {
    let server = Server::start(&dirs().0, &[]);
    let url = server.url("big-40g-sparse.gguf");
    let before = server.bytes_sent();
    let out = ggufscope(["info", "--json", &url]);
    let sent = server.bytes_sent() - before;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: Json = serde_json::from_slice(&out.stdout).unwrap();
    let reference = reference("big-40g-sparse.gguf");
    for (ours, theirs) in [
        ("file_size", "file_size"),
        ("parameters", "param_count"),
        ("tensor_count", "tensor_count"),
        ("data_offset", "data_offset"),
    ] {
        assert_eq!(r[ours], reference[theirs], "{ours}");
    }
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0]["range"], format!("bytes=0-{}", FIRST_READ - 1));
    assert_eq!(requests[0]["status"], 206);
    assert!(sent > FIRST_READ && sent < FIRST_READ + 1024, "sent {sent} bytes");

    let out = ggufscope(["info", &url]);
    assert!(
        text(&out.stdout).contains("  read          262.1 kB in 1 read\n"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_server_that_ignores_range_is_read_from_the_start_and_dropped() {
    let server = Server::start(&dirs().0, &["--no-range"]);
    let url = server.url("big-40g-sparse.gguf");
    let out = ggufscope(["info", &url]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("parameters"), "{stdout}");
    assert!(
        crate::cli::flat(&stdout, 16).contains(&format!("note          {url}: the server ignores Range requests, so the header was read from the start of a download of the whole file, which was then stopped")),
        "{stdout}"
    );
    std::thread::sleep(std::time::Duration::from_millis(300)); // the dropped download winds down
    let sent = server.bytes_sent();
    assert!(sent < 64 << 20, "sent {sent} bytes of 41.8 GB");
    assert_eq!(server.requests()[0]["status"], 200);
}

/// `ggufscope tensor --json` on `at`, parsed; it must succeed.
fn tensor_json(at: &str, name: &str, rows: &[&str]) -> Json {
    let out = ggufscope([&["tensor", "--json", at, name], rows].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn tensor_by_url_reads_only_that_tensors_bytes_and_says_what_a_file_says() {
    let server = Server::start(&dirs().0, &[]);
    let quants = fixture("synth/quants.gguf");
    for name in ["src.f32", "q.q4_0", "q.tq1_0", "q.mxfp4"] {
        assert_eq!(
            tensor_json(&server.url("quants.gguf"), name, &[]),
            tensor_json(quants.to_str().unwrap(), name, &[]),
            "{name}"
        );
    }

    // One row of the last weight of a 41.8 GB file: the header's read, then that row once.
    let url = server.url("big-40g-sparse.gguf");
    let (before, sent_before) = (server.requests().len(), server.bytes_sent());
    let r = tensor_json(&url, "output.weight", &["--rows", "1"]);
    assert_eq!((r["rows"].as_u64(), r["bytes"].as_u64()), (Some(1), Some(16_384)));
    assert_eq!(r["bytes_read"], 16_384);
    assert_eq!(r["stats"]["all_zero"], true);
    let offset = r["offset"].as_u64().unwrap();
    let ranges: Vec<Json> = server.requests()[before..]
        .iter()
        .map(|q| q["range"].clone())
        .collect();
    let row = format!("bytes={offset}-{}", offset + 16_383);
    assert_eq!(
        ranges,
        [
            Json::from(format!("bytes=0-{}", FIRST_READ - 1)),
            Json::from(row.as_str())
        ]
    );
    let sent = server.bytes_sent() - sent_before;
    assert!(sent < FIRST_READ + 64 * 1024, "sent {sent} bytes");

    // A server that ignores Range can give the header, not a tensor 35 GB into the file.
    let server = Server::start(&dirs().0, &["--no-range"]);
    let url = server.url("big-40g-sparse.gguf");
    let out = ggufscope(["tensor", &url, "output.weight", "--rows", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "ggufscope: {url}: the server ignores Range requests, so only the start of {url} can be read, in order\n"
        )
    );
}

#[test]
fn one_shards_url_brings_the_whole_split_model() {
    let server = Server::start(&dirs().0, &[]);
    let out = ggufscope(["info", "--json", &server.url("sharded-00003-of-00003.gguf")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["architecture"], "llama");
    assert_eq!(r["parameters"], 72);
    assert_eq!(r["file_size"], 1120);
    assert_eq!(r["split"]["count"], 3);
    let shards: Vec<u64> = r["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["shard"].as_u64().unwrap())
        .collect();
    assert_eq!(shards, [1, 1, 2, 2, 3, 3]);

    let out = ggufscope(["info", &server.url("sharded-00001-of-00003.gguf")]);
    assert!(
        crate::cli::flat(&text(&out.stdout), 16).contains("  shards        3 of 3: sharded-00001-of-00003.gguf, sharded-00002-of-00003.gguf, sharded-00003-of-00003.gguf\n"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_shard_missing_on_the_server_is_named_and_fails_validate() {
    let server = Server::start(&dirs().1, &[]);
    let first = server.url("sharded-00001-of-00003.gguf");
    let out = ggufscope(["info", &first]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        crate::cli::flat(&text(&out.stdout), 16).contains(
            "  missing       shard 2 of 3 (sharded-00002-of-00003.gguf): its tensors are not counted\n"
        ),
        "{}",
        text(&out.stdout)
    );

    let out = ggufscope(["validate", &first]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        crate::cli::flat(&text(&out.stdout), 4),
        format!(
            "{}:0: error shard-missing: shard 2 of 3 (sharded-00002-of-00003.gguf) is missing: its tensors are not counted\n",
            server.url("sharded-00002-of-00003.gguf")
        )
    );
    assert_eq!(
        text(&out.stderr),
        "ggufscope: 3 files checked, 0 unparsable; 1 errors, 0 warnings, 0 infos\n"
    );
}

#[test]
fn no_such_file_unreachable_and_redirects() {
    let server = Server::start(&dirs().0, &[]);
    let missing = server.url("nothing.gguf");
    let out = ggufscope(["info", &missing]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!("ggufscope: {missing}: HTTP 404 Not Found: there is no file at {missing}\n")
    );

    let out = ggufscope(["validate", &missing]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        crate::cli::flat(&text(&out.stdout), 4),
        format!("{missing}:0: error not-found: HTTP 404 Not Found: there is no file at {missing}\n")
    );

    let out = ggufscope(["info", "http://127.0.0.1:9/model.gguf"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with(
            "ggufscope: http://127.0.0.1:9/model.gguf: cannot reach http://127.0.0.1:9/model.gguf: "
        ),
        "{}",
        text(&out.stderr)
    );

    let redirect = server.url("redirect/minimal.gguf");
    let out = ggufscope(["info", "--json", &redirect]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["file_size"], reference("minimal.gguf")["file_size"]);
    let out = ggufscope(["info", &redirect]);
    assert!(
        crate::cli::flat(&text(&out.stdout), 16).contains(&format!(
            "note          {redirect}: redirected to {}\n",
            server.url("minimal.gguf")
        )),
        "{}",
        text(&out.stdout)
    );
    // The Range header went along with the redirect: a 206 from the file, not a whole download.
    let requests = server.requests();
    assert!(
        requests
            .iter()
            .any(|q| q["url"] == "/minimal.gguf" && q["status"] == 206),
        "{requests:?}"
    );
}

#[test]
fn split_models_from_files_are_one_model_and_each_shard_is_checked_once() {
    let shard = |n: u32| {
        fixture(&format!("synth/sharded-0000{n}-of-00003.gguf"))
            .display()
            .to_string()
    };
    let out = ggufscope(["info", "--json", &shard(2)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["parameters"], 72);
    assert_eq!(r["split"]["shards"].as_array().unwrap().len(), 3);

    // All three named: three files checked, not nine; clean.
    let out = ggufscope(["validate", &shard(1), &shard(2), &shard(3)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "ggufscope: 3 files checked, 0 unparsable; 0 errors, 0 warnings, 0 infos\n"
    );

    // A shard alone in a directory: the others are missing, by name.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("url-cli-alone");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let alone = dir.join("sharded-00002-of-00003.gguf");
    std::fs::copy(shard(2), &alone).unwrap();
    let out = ggufscope(["validate", "--json", alone.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let docs: Json = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<&str> = docs
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    let beside = |n: u32| {
        dir.join(format!("sharded-0000{n}-of-00003.gguf"))
            .display()
            .to_string()
    };
    assert_eq!(files, [alone.to_str().unwrap(), &beside(1), &beside(3)]);
    assert_eq!(docs[1]["findings"][0]["code"], "shard-missing");
}

/// Hang guard for the hostile servers' runs, not a timing: each ends within its `--timeout`.
const HANG_GUARD: std::time::Duration = std::time::Duration::from_secs(60);

/// A server sending a byte a second is stopped at the command's deadline, and one streaming a
/// header that never ends (Range ignored) at the header budget, each with a message naming the
/// flag (issue 18, finding 3: `info` waited for ever on the one, grew to 8 GB on the other).
#[test]
fn slow_and_endless_servers_are_stopped_by_the_deadline_and_the_budget() {
    let server = Server::start(&dirs().0, &[]);
    let slow = server.url("slow/minimal.gguf");
    for command in [vec!["info"], vec!["validate", "--json"], vec!["tensor"]] {
        let mut args: Vec<&str> = command.clone();
        args.extend(["--timeout", "2", &slow]);
        if command == ["tensor"] {
            args.push("t");
        }
        let out = crate::cli::ggufscope_bounded(&args, 512 << 20, HANG_GUARD);
        let said = crate::cli::flat(
            &text(if command[0] == "validate" {
                &out.stdout
            } else {
                &out.stderr
            }),
            4,
        );
        assert_eq!(out.code, Some(2), "{args:?}: {said}");
        assert!(
            said.contains(&format!(
                "the download of {slow} stopped short: the server had not answered in full within the command's deadline of 2 s (--timeout 2)"
            )),
            "{args:?}: {said}"
        );
    }

    let endless = server.url("endless.gguf");
    let budget = 256u64 << 20;
    for command in [vec!["info"], vec!["validate"], vec!["tensor"], vec!["tokens"]] {
        let budget = budget.to_string();
        let mut args: Vec<&str> = command.clone();
        args.extend(["--max-header-bytes", &budget, &endless]);
        if command == ["tensor"] {
            args.push("t");
        }
        // The budget holds under a 768 MiB address space (the process, its threads' stacks and
        // the heap); before it, `info` on this server grew to 8 GB.
        let out = crate::cli::ggufscope_bounded(&args, 768 << 20, HANG_GUARD);
        let said = crate::cli::flat(
            &text(if command[0] == "validate" {
                &out.stdout
            } else {
                &out.stderr
            }),
            4,
        );
        assert_eq!(out.code, Some(2), "{args:?}: {said}");
        let at = said
            .find("stopped at byte ")
            .unwrap_or_else(|| panic!("{args:?}: {said}"));
        assert!(
            said[at..].contains(&format!(
                "bytes of memory, more than the header budget of {budget} bytes (--max-header-bytes)"
            )),
            "{args:?}: {said}"
        );
        assert!(out.stdout_len + out.stderr_len < 4096, "{args:?}: {said}");
    }
}

#[test]
fn redirects_elsewhere_loops_and_web_pages_are_named() {
    let server = Server::start(&dirs().0, &[]);
    let said = |path: &str| {
        let url = server.url(path);
        let out = ggufscope(["info", &url]);
        assert_eq!(out.status.code(), Some(2), "{url}");
        text(&out.stderr).replace(&server.origin, "ORIGIN")
    };
    assert_eq!(
        said("to-file/minimal.gguf"),
        "ggufscope: ORIGIN/to-file/minimal.gguf: ORIGIN/to-file/minimal.gguf redirects to file:///etc/passwd, which is not an http or https address: not followed\n"
    );
    assert_eq!(
        said("loop/a"),
        "ggufscope: ORIGIN/loop/a: ORIGIN/loop/a redirects in a loop: ORIGIN/loop/a -> ORIGIN/loop/b -> ORIGIN/loop/a\n"
    );
    assert_eq!(
        said("html/minimal.gguf"),
        "ggufscope: ORIGIN/html/minimal.gguf: ORIGIN/html/minimal.gguf is a web page (text/html), not a file: use the file's download link (on Hugging Face, …/resolve/…, not …/blob/…)\n"
    );
}

/// A name claiming 1,024 shards reads the named file alone, says so, and makes one request: the
/// siblings read by themselves stop at 256.
#[test]
fn a_name_claiming_too_many_shards_reads_only_that_file() {
    let name = "capped-00001-of-01024.gguf";
    let link = dirs().0.join(name);
    if !link.exists() {
        symlink(fixture("synth/minimal.gguf"), &link).unwrap();
    }
    let server = Server::start(&dirs().0, &[]);
    let url = server.url(name);
    let out = ggufscope(["info", "--json", &url]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        format!(
            "ggufscope: {url}: its name says the model has 1024 shards, more than the 256 read by themselves: only this file is read\n"
        )
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0]["url"], format!("/{name}"));
}
