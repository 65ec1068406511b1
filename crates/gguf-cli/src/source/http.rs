//! A file on an HTTP server, read as the browser reads one (`web/http-blob.js`): the first request asks
//! for the file's first bytes with a Range header and the file's size comes from the answer's
//! Content-Range; each later read is one Range request, where and as large as the read loop says.
//! A server that ignores Range answers 200 with the whole file: its body is then read in order,
//! only as far as the header goes, and the connection is dropped. Every later answer must be of
//! the same file: its size and its validator (ETag, else Last-Modified) those of the first, or
//! the read stops (`file-changed`), so that a file replaced between two requests is never read as one.
//! Failures say what the server must do.

use std::io::Read;
use std::time::Duration;

use ureq::http::{Response, StatusCode};
use ureq::{Agent, Body, BodyReader};

use gguf_core::read::FIRST_READ;

use super::{HttpError, ReadError, Source};
use crate::budget;

/// Most redirects followed from one URL, as browsers and curl do.
const MAX_REDIRECTS: usize = 10;

impl HttpError {
    fn new(code: &'static str, status: Option<u16>, message: String) -> HttpError {
        HttpError {
            code,
            status,
            message,
        }
    }
}

/// The client every request goes through: statuses and redirects handled here ([`call`]), no
/// compression (Range counts the bytes of the file as stored), and a deadline on each request,
/// its body included: the command's (`--timeout`), so that a server sending a byte a second is
/// stopped as surely as one that sends nothing.
pub fn agent() -> Agent {
    Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(budget::time_left())
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_per_read(Some(Duration::from_secs(60)))
        .user_agent(concat!("ggufscope/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// A file on an HTTP server, read by Range requests.
pub struct HttpSource {
    agent: Agent,
    /// The URL the bytes come from, after redirects.
    url: String,
    len: u64,
    /// The first bytes, fetched with the request that gave the size.
    prefetched: Vec<u8>,
    /// The body of a 200 answer (a server that ignores Range) and where it has been read to.
    stream: Option<(BodyReader<'static>, u64)>,
    /// How the file was read, when it matters (`Source::notes`).
    notes: Vec<String>,
    /// The first answer's ETag, else its Last-Modified: each later answer must give the same.
    validator: Option<(&'static str, String)>,
}

/// The validator of an answer: its ETag, else its Last-Modified (which a later answer must
/// repeat for the bytes to be of the same file).
fn validator(response: &Response<Body>) -> Option<(&'static str, String)> {
    ["etag", "last-modified"]
        .into_iter()
        .find_map(|name| Some((name, header(response, name)?.to_string())))
}

impl HttpSource {
    /// Opens `url` with a request for its first bytes (which the first read then uses).
    pub fn open(agent: &Agent, url: &str) -> Result<HttpSource, HttpError> {
        let (response, final_url) = get(agent, url, 0, FIRST_READ)?;
        let status = response.status();
        let mut notes = Vec::new();
        if final_url != url {
            notes.push(format!("{url}: redirected to {final_url}"));
        }
        let mut source = HttpSource {
            agent: agent.clone(),
            url: final_url,
            len: 0,
            prefetched: Vec::new(),
            stream: None,
            notes,
            validator: validator(&response),
        };
        if status == StatusCode::PARTIAL_CONTENT {
            source.len = total_size(&response, url)?;
            let wanted = FIRST_READ.min(source.len);
            source.prefetched = read_body(response.into_body(), wanted, url)?;
        } else {
            // 200: the server ignored Range and sends the whole file.
            source.len = header(&response, "content-length")
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| {
                    HttpError::new(
                        "no-range",
                        Some(200),
                        format!("the server ignores Range requests and does not say how long {url} is (no Content-Length): it must honour Range (answer 206 with Content-Range)"),
                    )
                })?;
            source.stream = Some((response.into_body().into_reader(), 0));
            source.notes.push(format!(
                "{url}: the server ignores Range requests, so the header was read from the start of a download of the whole file, which was then stopped"
            ));
        }
        Ok(source)
    }
}

impl HttpSource {
    /// Whether `response` is of the file the first answer was: the same size, the same
    /// validator.
    fn same_file(&self, response: &Response<Body>) -> Result<(), HttpError> {
        let changed = |what: String| {
            HttpError::new(
                "file-changed",
                Some(response.status().as_u16()),
                format!(
                    "{} changed between two requests ({what}): stopped, since its bytes would be of two files",
                    self.url
                ),
            )
        };
        let len = total_size(response, &self.url)?;
        if len != self.len {
            return Err(changed(format!("its size was {} bytes, now {}", self.len, len)));
        }
        let now = validator(response);
        match (&self.validator, &now) {
            (Some((name, was)), now) if now.as_ref().is_none_or(|(_, v)| v != was) => {
                let now = now.as_ref().map_or("none", |(_, v)| v.as_str());
                Err(changed(format!(
                    "its {name} was {}, now {}",
                    gguf_core::text::Excerpt(was.as_bytes()),
                    gguf_core::text::Excerpt(now.as_bytes())
                )))
            }
            _ => Ok(()),
        }
    }
}

impl Source for HttpSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<(), ReadError> {
        let end = offset + buf.len() as u64;
        if end <= self.prefetched.len() as u64 {
            buf.copy_from_slice(&self.prefetched[offset as usize..end as usize]);
            return Ok(());
        }
        if let Some((reader, at)) = &mut self.stream {
            if *at != offset {
                let message = format!(
                    "the server ignores Range requests, so only the start of {} can be read, in order",
                    self.url
                );
                return Err(ReadError::Http(HttpError::new("no-range", Some(200), message)));
            }
            reader
                .read_exact(buf)
                .map_err(|e| ReadError::Http(stopped_short(&self.url, &e)))?;
            *at = end;
            return Ok(());
        }
        let (response, _) = get(&self.agent, &self.url, offset, buf.len() as u64).map_err(ReadError::Http)?;
        let range = header(&response, "content-range").unwrap_or_default();
        if response.status() != StatusCode::PARTIAL_CONTENT || !range.starts_with(&format!("bytes {offset}-"))
        {
            let message = format!(
                "the server answered HTTP {} to a request for bytes {offset}-{} of {}, not those bytes (206): it must honour Range requests",
                response.status().as_u16(),
                end - 1,
                self.url
            );
            return Err(ReadError::Http(HttpError::new(
                "no-range",
                Some(response.status().as_u16()),
                message,
            )));
        }
        self.same_file(&response).map_err(ReadError::Http)?;
        let bytes = read_body(response.into_body(), buf.len() as u64, &self.url).map_err(ReadError::Http)?;
        buf.copy_from_slice(&bytes);
        Ok(())
    }

    fn notes(&self) -> &[String] {
        &self.notes
    }
}

/// A GET of `len` bytes of `url` from `offset`, with the URL it came from after redirects; an
/// HttpError for a failure or an answer that is neither 206 nor 200.
fn get(agent: &Agent, url: &str, offset: u64, len: u64) -> Result<(Response<Body>, String), HttpError> {
    let range = format!("bytes={offset}-{}", offset + len.max(1) - 1);
    let (response, final_url) = call(agent, url, Some(&range))?;
    match response.status().as_u16() {
        200 | 206 => Ok((refuse_web_page(response, url)?, final_url)),
        status => Err(status_error(status, response.status().canonical_reason(), url)),
    }
}

/// A GET of `url`, its redirects followed here rather than by the client, so that each is
/// looked at: one to another scheme (`file:`, `ftp:`) is refused as such, a loop is named as a
/// loop. Answers the last response and its URL.
fn call(agent: &Agent, url: &str, range: Option<&str>) -> Result<(Response<Body>, String), HttpError> {
    let mut visited = vec![url.to_string()];
    loop {
        let at = visited.last().map_or(url, String::as_str);
        let mut request = agent.get(at);
        if let Some(range) = range {
            request = request.header("Range", range);
        }
        let response = request.call().map_err(|e| unreachable(at, &e))?;
        let location = header(&response, "location").filter(|_| response.status().is_redirection());
        let Some(location) = location else {
            return Ok((response, at.to_string()));
        };
        let next = redirect_target(at, location).map_err(|e| HttpError::new("redirect", None, e))?;
        if visited.contains(&next) {
            visited.push(next);
            return Err(HttpError::new(
                "redirect",
                Some(response.status().as_u16()),
                format!("{url} redirects in a loop: {}", visited.join(" -> ")),
            ));
        }
        if visited.len() > MAX_REDIRECTS {
            return Err(HttpError::new(
                "redirect",
                Some(response.status().as_u16()),
                format!("{url} redirects more than {MAX_REDIRECTS} times (last to {next})"),
            ));
        }
        visited.push(next);
    }
}

/// Where a redirect from `from` to `location` leads: an http(s) URL, or why it is not followed.
fn redirect_target(from: &str, location: &str) -> Result<String, String> {
    let scheme = location.split_once(':').map(|(s, _)| s).filter(|s| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+.-".contains(&b))
    });
    if let Some(scheme) = scheme {
        return if scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https") {
            Ok(location.to_string())
        } else {
            Err(format!(
                "{from} redirects to {}, which is not an http or https address: not followed",
                gguf_core::text::Excerpt(location.as_bytes())
            ))
        };
    }
    let (from_scheme, rest) = from.split_once("://").unwrap_or(("http", from));
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let origin = &from[..from_scheme.len() + 3 + host_end];
    Ok(if let Some(authority) = location.strip_prefix("//") {
        format!("{from_scheme}://{authority}")
    } else if location.starts_with('/') {
        format!("{origin}{location}")
    } else {
        let path = &rest[host_end..];
        let path = &path[..path.find(['?', '#']).unwrap_or(path.len())];
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        let dir = if dir.is_empty() { "/" } else { dir };
        format!("{origin}{dir}{location}")
    })
}

/// The answer, unless it is a web page (a hub's page about the file rather than the file).
fn refuse_web_page(response: Response<Body>, url: &str) -> Result<Response<Body>, HttpError> {
    if header(&response, "content-type").is_some_and(|t| t.starts_with("text/html")) {
        let message = format!(
            "{url} is a web page (text/html), not a file: use the file's download link (on Hugging Face, …/resolve/…, not …/blob/…)"
        );
        return Err(HttpError::new(
            "web-page",
            Some(response.status().as_u16()),
            message,
        ));
    }
    Ok(response)
}

/// A small text file (a configuration), whole: `None` when the server has none (404, 410).
/// Longer than `limit` bytes, or not UTF-8, it is an error.
pub fn get_text(agent: &Agent, url: &str, limit: u64) -> Result<Option<String>, HttpError> {
    let (response, _) = call(agent, url, None)?;
    let response = match response.status().as_u16() {
        200 => refuse_web_page(response, url)?,
        404 | 410 => return Ok(None),
        status => return Err(status_error(status, response.status().canonical_reason(), url)),
    };
    let mut bytes = Vec::new();
    response
        .into_body()
        .into_reader()
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| stopped_short(url, &e))?;
    if bytes.len() as u64 > limit {
        return Err(HttpError::new(
            "not-config",
            Some(200),
            format!("{url} is longer than {limit} bytes: not a configuration file"),
        ));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| HttpError::new("not-config", Some(200), format!("{url} is not UTF-8 text")))
}

fn status_error(status: u16, reason: Option<&str>, url: &str) -> HttpError {
    let said = format!(
        "HTTP {status}{}",
        reason.map(|r| format!(" {r}")).unwrap_or_default()
    );
    let (code, message) = match status {
        404 | 410 => ("not-found", format!("{said}: there is no file at {url}")),
        401 | 403 => (
            "access-denied",
            format!(
                "{said}: the server refuses to give {url} (a gated or private model needs access; this tool sends no credentials)"
            ),
        ),
        416 => ("http-status", format!("{said}: {url} is empty")),
        _ => ("http-status", format!("{said} from {url}")),
    };
    HttpError::new(code, Some(status), message)
}

fn unreachable(url: &str, e: &ureq::Error) -> HttpError {
    let (code, why) = match e {
        ureq::Error::HostNotFound => ("unreachable", "host not found".to_string()),
        ureq::Error::Timeout(ureq::Timeout::Global) => ("timeout", past_deadline()),
        e => ("unreachable", e.to_string()),
    };
    HttpError::new(code, None, format!("cannot reach {url}: {why}"))
}

/// A body that ended early, or was still coming at the deadline.
fn stopped_short(url: &str, e: &std::io::Error) -> HttpError {
    let (code, why) = match e.get_ref().and_then(|e| e.downcast_ref::<ureq::Error>()) {
        Some(ureq::Error::Timeout(ureq::Timeout::Global)) => ("timeout", past_deadline()),
        _ => ("interrupted", e.to_string()),
    };
    HttpError::new(code, None, format!("the download of {url} stopped short: {why}"))
}

fn past_deadline() -> String {
    let secs = budget::timeout_secs();
    format!(
        "the server had not answered in full within the command's deadline of {secs} s (--timeout {secs})"
    )
}

fn header<'a>(response: &'a Response<Body>, name: &str) -> Option<&'a str> {
    response.headers().get(name)?.to_str().ok()
}

/// The file's size from a 206 answer's `Content-Range: bytes FIRST-LAST/SIZE`.
fn total_size(response: &Response<Body>, url: &str) -> Result<u64, HttpError> {
    let range = header(response, "content-range").unwrap_or_default();
    range
        .rsplit_once('/')
        .and_then(|(_, size)| size.parse().ok())
        .ok_or_else(|| HttpError::new("no-range", Some(206), format!("the server answered the Range request for {url} without a Content-Range that gives the file's size (it sent {range:?})")))
}

/// Exactly `len` bytes of `body`.
fn read_body(body: Body, len: u64, url: &str) -> Result<Vec<u8>, HttpError> {
    let mut bytes = vec![0; len as usize];
    body.into_reader()
        .read_exact(&mut bytes)
        .map_err(|e| stopped_short(url, &e))?;
    Ok(bytes)
}
