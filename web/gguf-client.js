// The page's side of the parser worker: one method per request, promises for the replies, and
// the worker's keeper. A watchdog (watchdog.js) ends a worker whose thread one step has held for
// too long — a parse that makes no progress; a worker that crashes (failures.js: a wasm trap, out
// of memory, a bug) is ended too. Either way what was asked of it fails with a ParserFailure that
// says why, and the next request starts a fresh worker. No DOM, so any page (or a model hub's)
// can use it.

import { NO_SIMD, Reply, Request } from './protocol.js';
import { Watchdog } from './watchdog.js';

/**
 * Rejection of a request overtaken by another: a file opened, or another tensor peeked at. The
 * one error shape (protocol.js's ParseError): `code` 'cancelled', `offset` and `context` null.
 */
export class Cancelled extends Error {
  constructor(message = 'cancelled: another file was opened') {
    super(message);
    this.name = 'Cancelled';
    this.code = 'cancelled';
    this.offset = null;
    this.context = null;
  }
}

/**
 * The parser was stopped, and its worker replaced: `code` is 'stalled' (it made no progress for
 * the watchdog's budget), 'out-of-memory' or 'crashed'. Unlike a ParseError, its `offset` and
 * `context` are null: the file made the parser fail rather than being found wrong at some place.
 */
export class ParserFailure extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'ParserFailure';
    this.code = code;
    this.offset = null;
    this.context = null;
  }
}

/**
 * How long one step may hold the worker's thread before the watchdog ends it: 10 s. The longest
 * step of a real header — the last slice of a 262,144-token vocabulary decoded, and its report —
 * takes 0.2 s here, so a slow device has room fifty times over.
 */
export const WATCHDOG_MS = 10_000;

export class GgufClient {
  #worker = null;
  #watchdog;
  #simd;

  /**
   * @param {{watchdogMs?: number, simd?: boolean}} [options]  The watchdog's budget (tests set it
   *   low); `simd: false` makes the worker load the dequantizers' fallback build even where the
   *   browser runs wasm SIMD (the tests of the fallback).
   */
  constructor({ watchdogMs = WATCHDOG_MS, simd = true } = {}) {
    this.#simd = simd;
    const stalled = `the parser made no progress for ${watchdogMs / 1000} s and was stopped: this file keeps it busy far longer than a real model's header does; it was restarted`;
    this.#watchdog = new Watchdog(watchdogMs, {
      ping: () => this.#worker?.postMessage({ type: Request.ping }),
      onStall: () => this.#fail(new ParserFailure('stalled', stalled)),
    });
    this.fileId = 0;
    this.opening = null; // {id, resolve, reject, onProgress, onSummary}
    this.pending = new Map(); // request number → {resolve, reject}
    this.peeking = null; // request number of the running peek
    this.nextRequest = 0;
  }

  /**
   * Reads the header of a File or Blob — or of several: the shards of a split model, shown as one
   * model — in the worker. Resolves `{report, stats}`; rejects with a ParseError for a bad file,
   * a {@link ParserFailure} when the parser is stopped, or {@link Cancelled} when another file is
   * opened first. Every request rejects with a ParserFailure in the same way.
   * `onSummary(summary, stats)` is called first, when the header is decoded, with the report's
   * fields that a summary shows (not for a split model): the report takes longer to build.
   * @param {Blob|Blob[]} files
   * @param {(stats: import('./protocol.js').ReadStats) => void} [onProgress]
   * @param {(summary: import('./protocol.js').Report, stats: import('./protocol.js').ReadStats) => void} [onSummary]
   */
  open(files, onProgress, onSummary) {
    return this.#open({ type: Request.open, files: [files].flat() }, onProgress, onSummary);
  }

  /** The same for a URL (and, for one shard, its sibling shards), read with HTTP Range requests. */
  openUrl(url, onProgress, onSummary) {
    return this.#open({ type: Request.openUrl, url: String(url) }, onProgress, onSummary);
  }

  /** Elements `start..start + count` of the array held by key-value pair `kvIndex` of the open file. */
  arrayPage(kvIndex, start, count) {
    return this.#ask({ type: Request.arrayPage, kvIndex, start, count });
  }

  /**
   * Reads and measures the values of tensor `index` of the open file (its first `rows` rows, or
   * all for null) into `bins` histogram bins, keeping the first `first` values. Only those bytes
   * are read. A second peek rejects the first with {@link Cancelled}.
   * @returns {Promise<import('./protocol.js').TensorPeek>}
   */
  tensorPeek(index, { rows = null, bins, first }) {
    this.#settle(this.peeking, (p) => p.reject(new Cancelled('cancelled: another tensor was peeked at')));
    this.peeking = this.nextRequest++;
    return this.#ask({ type: Request.tensorPeek, index, rows, bins, first }, this.peeking);
  }

  /** Stops the running peek, which rejects with {@link Cancelled}. */
  stopPeek() {
    this.#settle(this.peeking, (p) => p.reject(new Cancelled('cancelled: the peek was stopped')));
    this.#worker?.postMessage({ type: Request.stopPeek, id: this.fileId });
  }

  /** The memory estimate for `context` tokens per sequence (null: the model's), a KV cache type and `parallel` sequences. */
  memory(context, kvType, parallel) {
    return this.#ask({ type: Request.memory, context, kvType, parallel });
  }

  /** The tokenizer panel of the open file: `ggufscope tokens --json`'s document. */
  tokenizer() {
    return this.#ask({ type: Request.tokenizer });
  }

  /**
   * `{total, start, tokens}`: up to `count` of the tokens whose stored or decoded text (`Ġthe` is
   * ` the`) contains `query` (typed as token texts are shown: `\n` for a newline), upper and lower
   * case alike unless `exactCase`, best first; or of all tokens for '', from the `start`th on.
   * Only that page crosses from the worker; paging through one query's matches searches once.
   */
  tokens(query, start, count, exactCase = false) {
    return this.#ask({ type: Request.tokens, query, start, count, exactCase });
  }

  /** `[{text, special}]`: `text` split at the open file's special tokens (`special`: the token's id, or null). */
  splitSpecial(text) {
    return this.#ask({ type: Request.splitSpecial, text });
  }

  /**
   * The Jinja tokens of template `text`, cut by the core's lexer in the worker (no file needs to
   * be open): `{spans, kinds}`, `spans` a Uint32Array of triples `start, end, kind` in UTF-16
   * indices of `text`, covering it exactly, and `kinds` the kinds' names by number ('text',
   * 'delimiter', 'comment', 'keyword', 'string', 'number', 'name', 'filter', 'operator', 'space').
   * @returns {Promise<{spans: Uint32Array, kinds: string[]}>}
   */
  jinjaSpans(text) {
    return this.#ask({ type: Request.jinjaSpans, text });
  }

  #ask(message, request = this.nextRequest++) {
    const answer = new Promise((resolve, reject) => this.pending.set(request, { resolve, reject }));
    this.#start().postMessage({ ...message, id: this.fileId, request });
    this.#watch();
    return answer;
  }

  /** Removes request `request` from the pending ones and calls `f` with it, if it is pending. */
  #settle(request, f) {
    const pending = this.pending.get(request);
    this.pending.delete(request);
    this.#watch();
    if (pending) f(pending);
  }

  /** Stops the worker and cancels what was asked of it. */
  close() {
    this.#cancelAll(new Cancelled('cancelled: the viewer was closed'));
    this.#stop();
  }

  #cancelAll(reason) {
    this.opening?.reject(reason);
    this.opening = null;
    for (const request of [...this.pending.keys()]) this.#settle(request, (p) => p.reject(reason));
    this.#watch();
  }

  #open(message, onProgress, onSummary) {
    // A file still being read goes with its worker, which may be stuck on it (a hostile file):
    // the next file never waits behind it. Otherwise the worker drops the old file's unfinished
    // work: its requests will not be answered.
    if (this.opening) this.#stop();
    this.#cancelAll(new Cancelled());
    const id = ++this.fileId;
    const header = new Promise((resolve, reject) => {
      this.opening = { id, resolve, reject, onProgress, onSummary };
    });
    this.#start().postMessage({ ...message, id });
    this.#watch();
    return header;
  }

  /** The worker, started when there is none (at first, and after one was stopped). */
  #start() {
    if (!this.#worker) {
      // One literal URL, so that bundlers find the worker; the fallback is asked for by its name.
      const worker = new Worker(new URL('./gguf-worker.js', import.meta.url), { type: 'module', name: this.#simd ? 'gguf' : NO_SIMD });
      const mine = (handler) => (event) => worker === this.#worker && handler(event);
      worker.onmessage = mine(({ data }) => this.#receive(data));
      worker.onerror = mine((event) => {
        event.preventDefault(); // said on the page instead
        this.#fail(new ParserFailure('crashed', `the parser crashed (${event.message || 'its script could not be loaded'}); it was restarted`));
      });
      worker.onmessageerror = mine(() => this.#fail(new ParserFailure('crashed', 'the parser crashed (one of its answers could not be read); it was restarted')));
      this.#worker = worker;
    }
    return this.#worker;
  }

  #stop() {
    this.#worker?.terminate();
    this.#worker = null;
  }

  /** Ends the worker and fails what was asked of it with `failure`; the next request starts another. */
  #fail(failure) {
    this.#stop();
    this.#cancelAll(failure);
  }

  /** The watchdog watches while the page waits on the worker. */
  #watch() {
    this.#watchdog.watch(this.opening !== null || this.pending.size > 0);
  }

  #receive(data) {
    switch (data.type) {
      case Reply.pong:
        return this.#watchdog.answered();
      case Reply.crash:
        return this.#fail(new ParserFailure(data.code, `the parser crashed (${data.message}); it was restarted`));
      case Reply.progress:
        if (this.opening?.id === data.id) this.opening.onProgress?.(data);
        return;
      case Reply.summary:
        if (this.opening?.id === data.id) this.opening.onSummary?.(data.summary, data.stats);
        return;
      case Reply.header:
      case Reply.error:
        if (this.opening?.id !== data.id) return;
        if (data.type === Reply.header) this.opening.resolve({ report: data.report, stats: data.stats });
        else this.opening.reject(data.error);
        this.opening = null;
        this.#watch();
        return;
      case Reply.answer:
        this.#settle(data.request, (p) => (data.error ? p.reject(data.error) : p.resolve(data.result)));
        return;
      default:
        throw new Error(`unknown reply type ${JSON.stringify(data.type)}`);
    }
  }
}
