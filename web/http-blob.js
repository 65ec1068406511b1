// A read-only Blob look-alike over a file on an HTTP server, so that the read loop reads a header
// from a URL as it reads a File, without downloading the rest. The first request asks for the
// file's first bytes with a Range header, and the file's size comes from the answer's
// Content-Range; each later slice is one Range request. A server that ignores Range answers 200
// with the whole file: its body is then read as a stream, only as far as the reads go, and
// cancelled by `close()`. Every body is read as a stream, no further than the bytes asked for —
// a server that sends more, or fewer, is refused, naming the URL and the range —, and a server
// that sends nothing for the stall limit (the watchdog's budget) is given up: a lying server costs
// neither memory nor a wait without end. Failures become messages that say what the server must do.

import { WATCHDOG_MS } from './watchdog.js';

/** How long a request waits for the server's next bytes: the watchdog's budget (setStallLimit). */
let stallMs = WATCHDOG_MS;

/**
 * Sets how long every request waits for its server's answer and each next part of its body, in
 * ms: a worker sets it to its watchdog's budget (gguf-worker.js).
 */
export function setStallLimit(ms) {
  stallMs = ms;
}

/**
 * A failed request, with what to do about it: an Error with the one error shape (protocol.js's
 * ParseError: `code` — `not-found`, `access-denied`, `http-status`, `no-range`, `web-page`,
 * `redirect`, `cors`, `unreachable`, `interrupted`, `not-config` — `message`, `offset` and
 * `context` null), and `status`, the HTTP status (0 when none came back).
 */
export class HttpError extends Error {
  constructor(code, message, status = 0) {
    super(message);
    this.name = 'HttpError';
    this.code = code;
    this.offset = null;
    this.context = null;
    this.status = status;
  }
}

/** The last path segment of `url`, decoded: the file's name. */
export function fileNameOf(url) {
  const segment = new URL(url).pathname.split('/').pop();
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * `url` without its user information (`http://user:password@host/…` → `http://host/…`): the page
 * never sends it (as Basic auth or otherwise) and never shows it. A string; `url` as it is (made
 * absolute) when it has none.
 * @param {string|URL} url
 */
export function withoutUserInfo(url) {
  const plain = new URL(url);
  plain.username = '';
  plain.password = '';
  return plain.href;
}

export class HttpBlob {
  /**
   * Opens `url` with a request for its first `prefetch` bytes (the core's first header read, a
   * wasm module's `firstRead()`), which later reads of them reuse.
   * Throws an HttpError that says what went wrong: no such file, no access, CORS, no size.
   * @param {string|URL} url
   * @param {{signal?: AbortSignal, prefetch: number}} options  `signal` cancels every request.
   */
  static async open(url, { signal, prefetch }) {
    if (!(prefetch > 0)) throw new TypeError('HttpBlob.open needs {prefetch}: the bytes its first request asks for');
    const given = String(url);
    url = withoutUserInfo(given);
    const response = await getRange(url, `bytes=0-${prefetch - 1}`, signal);
    const remote = {
      url: response.url || url,
      signal,
      size: 0,
      prefetched: new Uint8Array(0),
      stream: null,
      notes: [],
      validator: validatorOf(response),
    };
    if (url !== new URL(given).href)
      remote.notes.push(
        `${fileNameOf(url)}: the user name and password in its URL were left out (this page sends no credentials)`,
      );
    if (response.redirected) remote.notes.push(`${fileNameOf(url)}: redirected to ${response.url}`);
    if (response.status === 206) {
      remote.size = totalSize(response, url);
      // The first bytes, or the whole of a shorter file: Content-Range says which.
      const [first, last] = rangeOf(response) ?? [];
      if (first !== 0 || !(last < Math.min(prefetch, remote.size))) {
        await response.body?.cancel();
        throw new HttpError(
          'no-range',
          `${url}: the server answered a request for bytes 0–${prefetch - 1} with Content-Range: ${response.headers.get('content-range')}, not those bytes: it must honour Range requests`,
          206,
        );
      }
      remote.prefetched = await rangeBody(response, url, 0, last + 1, signal);
    } else {
      // 200: the server ignored Range and sends the whole file.
      remote.size = Number(response.headers.get('content-length'));
      if (!response.headers.has('content-length') || !Number.isSafeInteger(remote.size)) {
        await response.body?.cancel();
        throw new HttpError(
          'no-range',
          `the server ignores Range requests and does not say how long ${fileNameOf(url)} is (no Content-Length): it must honour Range (answer 206 with Content-Range)`,
          200,
        );
      }
      remote.stream = { reader: response.body.getReader(), at: 0, pending: new Uint8Array(0) };
      remote.notes.push(
        `${fileNameOf(url)}: the server ignores Range requests, so the header was read from the start of a download of the whole file, which was then cancelled`,
      );
    }
    return new HttpBlob(remote, 0, remote.size);
  }

  /**
   * A file opened before (in another worker: the viewer's), with no request: `head`, the bytes
   * read from its start then, is read from memory, the rest with Range requests. `url` is the one
   * after redirects; `validator` its first answer's; `rangeless` says its server ignores Range
   * (then nothing past `head` can be read).
   * @param {string} url
   * @param {{size: number, head: Uint8Array, validator?: {etag: string|null, lastModified: string|null}, rangeless?: boolean, signal?: AbortSignal}} options
   */
  static reopened(url, { size, head, validator = { etag: null, lastModified: null }, rangeless = false, signal }) {
    const remote = {
      url,
      signal,
      size,
      prefetched: head,
      stream: rangeless ? { closed: true } : null,
      notes: [],
      validator,
    };
    return new HttpBlob(remote, 0, size);
  }

  constructor(remote, start, end) {
    this.remote = remote;
    this.start = start;
    this.size = end - start;
  }

  /** The URL the bytes come from (after redirects). */
  get url() {
    return this.remote.url;
  }

  /** What the reader should know about how the file was read: redirects, a server that ignores Range. */
  get notes() {
    return this.remote.notes;
  }

  /** The first answer's validators, `{etag, lastModified}` (null where the server sent none or hides it): see {@link changedSince}. */
  get validator() {
    return this.remote.validator;
  }

  /** Bytes `start..end` of this blob, clamped to it, like `Blob.slice` with non-negative bounds. */
  slice(start = 0, end = this.size) {
    const clamp = (i) => Math.max(0, Math.min(i, this.size));
    return new HttpBlob(this.remote, this.start + clamp(start), this.start + Math.max(clamp(start), clamp(end)));
  }

  async arrayBuffer() {
    const [start, end] = [this.start, this.start + this.size];
    const { prefetched, stream } = this.remote;
    if (end <= prefetched.length) return prefetched.slice(start, end).buffer;
    if (stream) return (await readStream(this.remote, start, end)).buffer;
    const { url, signal } = this.remote;
    const response = await getRange(url, `bytes=${start}-${end - 1}`, signal);
    const [first, last] = rangeOf(response) ?? [];
    if (response.status !== 206 || first !== start || last !== end - 1) {
      await response.body?.cancel();
      throw new HttpError(
        'no-range',
        `${url}: the server answered HTTP ${response.status} to a request for bytes ${start}–${end - 1}, not those bytes (206): it must honour Range requests`,
        response.status,
      );
    }
    return (await rangeBody(response, url, start, end, signal)).buffer;
  }

  /** Whether its server ignores Range requests: only the start of the file can be read. */
  get rangeless() {
    return this.remote.stream !== null;
  }

  /** Stops the download of a server that ignores Range; nothing to do otherwise. */
  close() {
    const { stream } = this.remote;
    if (!stream || stream.closed) return;
    this.remote.stream = { ...stream, closed: true };
    stream.reader.cancel().catch(() => {});
  }
}

/** Bytes `start..end` from the body of a 200 answer, read in order. */
async function readStream(remote, start, end) {
  const stream = remote.stream;
  if (stream.closed || start !== stream.at) {
    throw new HttpError(
      'no-range',
      `the server ignores Range requests, so only the start of ${fileNameOf(remote.url)} can be read, in order, once (asked for bytes ${start}–${end - 1})`,
      200,
    );
  }
  const out = new Uint8Array(end - start);
  let filled = 0;
  while (filled < out.length) {
    let chunk = stream.pending;
    if (chunk.length === 0) {
      const { value, done } = await nextChunk(stream.reader, remote.url, `bytes ${start}–${end - 1}`, remote.signal);
      if (done)
        throw new HttpError(
          'interrupted',
          `the download of ${fileNameOf(remote.url)} ended after ${stream.at + filled} of ${remote.size} bytes`,
          200,
        );
      chunk = value;
    }
    const take = Math.min(chunk.length, out.length - filled);
    out.set(chunk.subarray(0, take), filled);
    stream.pending = chunk.subarray(take);
    filled += take;
  }
  stream.at = end;
  return out;
}

/**
 * Bytes `start..end` from the body of `response`, a 206 answer for them: read as a stream and no
 * further. An HttpError naming `url` and the range when the body goes on past them (`no-range`),
 * ends before (`interrupted`), breaks off, or stalls (nextChunk); the signal's reason when cancelled.
 * @returns {Promise<Uint8Array<ArrayBuffer>>}
 */
async function rangeBody(response, url, start, end, signal) {
  const range = `bytes ${start}–${end - 1}`;
  const out = new Uint8Array(end - start);
  const reader = response.body.getReader();
  try {
    for (let filled = 0; filled < out.length;) {
      const { value, done } = await nextChunk(reader, url, range, signal);
      if (done)
        throw new HttpError(
          'interrupted',
          `${url} (${range}): the answer ended after ${filled} of the ${out.length} bytes asked for`,
          206,
        );
      if (value.length > out.length - filled)
        throw new HttpError(
          'no-range',
          `${url} (${range}): the server sent more than the ${out.length} bytes asked for: it must honour Range requests`,
          206,
        );
      out.set(value, filled);
      filled += value.length;
    }
  } finally {
    reader.cancel().catch(() => {}); // whatever else comes is not read
  }
  return out;
}

/**
 * The next part of a body, waited for at most the stall limit: an HttpError `interrupted` naming
 * `url` and `range` when the server sends nothing for that long or the connection breaks off (the
 * read is cancelled then), the signal's reason when cancelled.
 * @param {ReadableStreamDefaultReader<Uint8Array>} reader
 */
async function nextChunk(reader, url, range, signal) {
  let timer;
  const stalled = new Promise((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new HttpError(
            'interrupted',
            `${url} (${range}): the server sent nothing for ${stallMs / 1000} s, and the read was given up`,
          ),
        ),
      stallMs,
    );
  });
  try {
    return await Promise.race([reader.read(), stalled]);
  } catch (e) {
    reader.cancel().catch(() => {});
    if (signal?.aborted) throw signal.reason;
    if (e instanceof HttpError) throw e;
    throw new HttpError('interrupted', `${url} (${range}): the download broke off: ${e.message}`);
  } finally {
    clearTimeout(timer);
  }
}

/** `[first, last]` of a 206 answer's `Content-Range: bytes FIRST-LAST/SIZE`, or null. */
function rangeOf(response) {
  const [, first, last] = /^bytes (\d+)-(\d+)\//.exec(response.headers.get('content-range') ?? '') ?? [];
  return first === undefined ? null : [Number(first), Number(last)];
}

/** The file's size from a 206 answer's `Content-Range: bytes FIRST-LAST/SIZE`. */
function totalSize(response, url) {
  const range = response.headers.get('content-range');
  if (range === null) {
    throw new HttpError(
      'cors',
      `the server answered the Range request for ${fileNameOf(url)} but does not let this page read its Content-Range header, which gives the file's size: ` +
        'it must send Access-Control-Expose-Headers: Content-Range, Content-Length',
      206,
    );
  }
  const size = Number(/\/(\d+)$/.exec(range)?.[1]);
  if (!Number.isSafeInteger(size))
    throw new HttpError(
      'no-range',
      `the server sent Content-Range: ${range}, which does not give the file's size`,
      206,
    );
  return size;
}

/**
 * A file's validators as an answer gives them: `{etag, lastModified}`, each null when the server
 * sends none or does not let the page read it (CORS: Access-Control-Expose-Headers).
 * @param {Response} response
 */
export function validatorOf(response) {
  return { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') };
}

/**
 * Whether `response` is of another version of the file than the answer `validator` came from: a
 * different strong ETag, or (when neither answer has an ETag) a different Last-Modified. Weak
 * ETags (`W/…`) are not compared, as a byte-for-byte sameness is what matters here; where the
 * validators are missing or hidden nothing can be told, and the answer is false.
 * @param {{etag: string|null, lastModified: string|null}} validator
 * @param {Response} response
 */
export function changedSince(validator, response) {
  const now = validatorOf(response);
  const strong = (etag) => etag !== null && !etag.startsWith('W/');
  if (strong(validator.etag) && strong(now.etag)) return validator.etag !== now.etag;
  if (validator.etag === null && now.etag === null && validator.lastModified !== null && now.lastModified !== null)
    return validator.lastModified !== now.lastModified;
  return false;
}

/**
 * A GET of `url` with a `Range` header (`bytes=…`), not kept in the HTTP cache. Resolves the
 * answer when it is 206 or 200 (a server that ignores Range); throws an HttpError that says what
 * to do for a failure (unreachable, CORS), another status, or a web page instead of a file, and
 * the signal's reason when cancelled.
 * @param {string} url
 * @param {string} range
 * @param {AbortSignal} [signal]
 * @returns {Promise<Response>}
 */
export async function getRange(url, range, signal) {
  let response;
  // Until the answer's headers come, at most the stall limit (then the body's reads keep their own).
  const stall = new AbortController();
  const timer = setTimeout(() => stall.abort(), stallMs);
  try {
    response = await fetch(url, {
      headers: { Range: range },
      cache: 'no-store',
      signal: signal ? AbortSignal.any([signal, stall.signal]) : stall.signal,
    });
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    if (stall.signal.aborted)
      throw new HttpError(
        'interrupted',
        `${url}: the server sent nothing for ${stallMs / 1000} s in answer to a request for ${range}, and the request was given up`,
      );
    throw await unreachable(url, signal);
  } finally {
    clearTimeout(timer);
  }
  if (response.status === 206 || response.status === 200) {
    if (response.headers.get('content-type')?.startsWith('text/html')) {
      await response.body?.cancel();
      throw new HttpError(
        'web-page',
        `${url} is a web page (text/html), not a file: use the file's download link (on Hugging Face, …/resolve/…, not …/blob/…)`,
        response.status,
      );
    }
    return response;
  }
  await response.body?.cancel();
  throw statusError(response, url);
}

function statusError(response, url) {
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const name = fileNameOf(url);
  switch (response.status) {
    case 404:
    case 410:
      return new HttpError('not-found', `${status}: there is no file at ${url}`, response.status);
    case 401:
    case 403:
      return new HttpError(
        'access-denied',
        `${status}: the server refuses to give ${name} to this page (a gated or private model needs access granted on its site)`,
        response.status,
      );
    case 416:
      return new HttpError('http-status', `${status}: ${name} is empty`, response.status);
    default:
      return new HttpError('http-status', `${status} from ${url}`, response.status);
  }
}

/**
 * Why a fetch failed. The browser says only "Failed to fetch", both when the server answered
 * without the CORS headers that let this page read the answer and when it cannot be reached at
 * all. A no-cors HEAD request tells them apart: it succeeds (with an answer the page cannot read)
 * whenever the server answers. When it fails too, a HEAD that does not follow redirects tells a
 * URL whose redirects cannot be followed (a loop, too many, or to an address that is not http)
 * from one that cannot be reached.
 */
async function unreachable(url, signal) {
  const origin = new URL(url).origin;
  const page = globalThis.location?.origin ?? 'this page';
  const answered = await fetch(url, { method: 'HEAD', mode: 'no-cors', cache: 'no-store', signal }).then(
    () => true,
    () => false,
  );
  if (!answered) {
    const redirects = await fetch(url, { method: 'HEAD', redirect: 'manual', cache: 'no-store', signal }).then(
      (r) => r.type === 'opaqueredirect',
      () => false,
    );
    if (redirects) {
      return new HttpError(
        'redirect',
        `${url} redirects, and its redirects cannot be followed: they go in a loop or on too long, ` +
          "or lead to an address that is not http(s) or that this page's Content-Security-Policy (connect-src) does not allow",
      );
    }
  }
  if (answered) {
    return new HttpError(
      'cors',
      `${origin} answered, but does not allow this page (${page}) to read ${fileNameOf(url)} (CORS). ` +
        `The server (or the one it redirects to) must send Access-Control-Allow-Origin: * (or ${page}), ` +
        "and Access-Control-Expose-Headers: Content-Range, Content-Length so that the file's size can be read",
    );
  }
  return new HttpError(
    'unreachable',
    `cannot reach ${origin}: the address is wrong, the server is down or redirects in circles, or this page's Content-Security-Policy (connect-src) does not allow it`,
  );
}
