// The page's side of the worker (gguf-worker.js), the one host of every wasm module: one method
// per request, promises for the replies, and the worker's keeper. A watchdog (watchdog.js) ends a
// worker whose thread one step has held for too long — a parse that makes no progress; a worker
// that crashes (failures.js: a wasm trap, out of memory, a bug) is ended too. Either way what was
// asked of it fails with a ParserFailure that says why, and the next request starts a fresh
// worker. The viewer's model lives in one client's worker; edits, comparisons and upstream checks
// run in another's (`GgufClient.shared()`), and the template preview in a third, so that none of
// them can take the others down. No DOM, so any page (or a model hub's) can use it; under Node
// the worker is a worker_threads worker.

import { HttpError } from './http-blob.js';
import { RELOAD_FOR_UPDATE, Reply, Request, fromParts, thrownError, workerName } from './protocol.js';
import { postable } from './sources.js';
import { WATCHDOG_MS, Watchdog } from './watchdog.js';

export { WATCHDOG_MS };

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
 * A worker was stopped, and replaced: `code` is 'stalled' (a step made no progress for the
 * watchdog's budget, or ran past its time limit), 'out-of-memory' or 'crashed'. The one failure
 * of every wasm module, whichever was running. Unlike a ParseError, its `offset` and `context` are
 * null: the file made the module fail rather than being found wrong at some place.
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
 * A model a client has open, as another client's requests take it (`GgufClient#opened`): each
 * file with the bytes of it read (its header), so that they are never read again.
 * @typedef {{files: {name: string, size: number, head: Blob, file?: Blob, url?: string, validator?: object, rangeless?: boolean}[]}} OpenedModel
 */

/**
 * Whether the files beside this module are where `new URL('./file', import.meta.url)` says: this
 * module is itself (no bundler), or the bundler followed such URLs and wrote their files (Vite,
 * webpack, Parcel). A bundler that follows none (esbuild, Rollup without plugins) leaves them
 * naming files beside its bundle that it never wrote: then the worker is one of the bundle's own
 * chunks instead ({@link chunkWorker}). Told without a request: located.txt's URL is rewritten by
 * a bundler that follows it, and unchanged by one that does not.
 */
function located() {
  const here = new URL(import.meta.url);
  const marker = new URL('./located.txt', import.meta.url);
  const unfollowed = new URL(['.', 'located.txt'].join('/'), here);
  return marker.href !== unfollowed.href || here.pathname.endsWith('/web/gguf-client.js');
}

/** A worker running gguf-worker.js: the browser's, or under Node worker_threads' with the same face. */
function startWorker(name) {
  if (typeof Worker === 'function') {
    // One literal URL, so that bundlers find the worker (a file with no imports: any bundler takes
    // it as it is); Vite 5 would otherwise refuse options it cannot read at build time (`name`).
    if (located())
      return new Worker(new URL('./gguf-worker.js', import.meta.url), /* @vite-ignore */ { type: 'module', name });
    return chunkWorker(name);
  }
  const threads = globalThis.process?.getBuiltinModule?.('node:worker_threads');
  if (!threads) throw new Error('no Web Worker here (nor Node worker_threads) to run the wasm modules in');
  // Named so that no bundler follows it: a browser's bundle has the worker once, from the literal above.
  const file = new URL(['.', 'gguf-worker.js'].join('/'), import.meta.url);
  const thread = new threads.Worker(file, { name, workerData: { name } });
  const worker = {
    onmessage: null,
    onerror: null,
    onmessageerror: null,
    postMessage: (message, transfer) => thread.postMessage(message, transfer),
    terminate: () => thread.terminate(),
    /** An idle worker does not keep Node running. */
    hold: (busy) => (busy ? thread.ref() : thread.unref()),
  };
  thread.on('message', (data) => worker.onmessage?.({ data }));
  thread.on('error', (e) => worker.onerror?.({ message: e.message, preventDefault() {} }));
  thread.on('messageerror', () => worker.onmessageerror?.());
  thread.unref();
  return worker;
}

/**
 * The worker as one of the bundle's own chunks (gguf-worker-chunk.js, which the bundler splits off
 * as it does any `import()`), for a bundler that wrote no file for `new URL`: started once the
 * chunk says where it is; what is posted meanwhile waits. A bundle with no chunks (esbuild
 * without `--splitting`) has no file the worker could run: that fails, saying so.
 */
function chunkWorker(name) {
  const queue = [];
  let worker = null;
  let ended = false;
  const face = {
    onmessage: null,
    onerror: null,
    onmessageerror: null,
    postMessage: (message, transfer) =>
      worker ? worker.postMessage(message, transfer) : queue.push([message, transfer]),
    terminate: () => {
      ended = true;
      worker?.terminate();
    },
  };
  import('./gguf-worker-chunk.js')
    .then(({ workerUrl }) => {
      if (ended) return;
      if (workerUrl === import.meta.url)
        throw new Error(
          'the worker has no file of its own: this bundle was built without code splitting (esbuild: add --splitting)',
        );
      worker = new Worker(workerUrl, { type: 'module', name });
      worker.onmessage = (event) => face.onmessage?.(event);
      worker.onerror = (event) => face.onerror?.(event);
      worker.onmessageerror = (event) => face.onmessageerror?.(event);
      for (const [message, transfer] of queue.splice(0)) worker.postMessage(message, transfer);
    })
    .catch((e) => !ended && face.onerror?.({ message: e.message, preventDefault() {} }));
  return face;
}

/**
 * A viewer's worker started ahead of the first file (`prewarm`): `{name, worker}`, or `{name,
 * idle}` while it waits for the page's idle time.
 */
let spare = null;

/**
 * Starts a viewer's worker with the default options in the page's idle time, so that the first
 * file opened finds it running and its parser compiled (the worker compiles it as it starts); the
 * next client that starts a worker of that kind takes it. Called as the library and the element
 * are imported, and by `open()` for the next call: what it fetches — the worker and the parser's
 * wasm — is what the first file would fetch, nothing else. Nothing under Node.
 */
export function prewarm() {
  if (spare !== null || typeof requestIdleCallback !== 'function') return;
  const name = workerName({ simd: true, tools: false, watchdogMs: WATCHDOG_MS });
  spare = { name, idle: requestIdleCallback(() => (spare = { name, worker: startWorker(name) }), { timeout: 2000 }) };
}

/** The spare worker if it is of kind `name` (taken: the next prewarm starts another), else null. */
function takeSpare(name) {
  if (spare?.name !== name) return null;
  const { worker, idle } = spare;
  spare = null;
  // A worker of that kind is started now: one started later would only idle beside it.
  if (!worker) cancelIdleCallback(idle);
  return worker ?? null;
}

let shared = null;

/**
 * How long a worker reading a file has to take the next one (to say so: `reading`) before it is
 * ended as stuck. A worker whose thread is free answers within milliseconds.
 */
const HANDOVER_MS = 250;

export class GgufClient {
  #worker = null;
  #watchdog;
  #workerName;
  #name;
  /** Files only this page can read, that the worker reads through it (sources.js), by number. */
  #remotes = new Map();
  #nextRemote = 0;
  /** The files of the model being read or open, as given (`open`), by index, with the remotes they took. */
  #given = Object.assign([], { remotes: [] });

  /**
   * @param {{watchdogMs?: number, simd?: boolean, tools?: boolean, name?: string}} [options]  The
   *   watchdog's budget (tests set it low); `simd: false` makes the worker load the values
   *   module's fallback build even where the browser runs wasm SIMD (the tests of the fallback);
   *   `tools: true` for a worker that reads no model for a viewer (edits, comparisons, previews),
   *   which then loads no parser as it starts; `name`, what a failure calls the worker ('the
   *   parser').
   */
  constructor({ watchdogMs = WATCHDOG_MS, simd = true, tools = false, name = 'the parser' } = {}) {
    this.#workerName = workerName({ simd, tools, watchdogMs });
    this.#name = name;
    const stalled = `${name} made no progress for ${watchdogMs / 1000} s and was stopped: this file keeps it busy far longer than a real model's header does; it was restarted`;
    this.#watchdog = new Watchdog(watchdogMs, {
      ping: () => this.#worker?.postMessage({ type: Request.ping }),
      onStall: () => this.#fail(new ParserFailure('stalled', stalled)),
    });
    this.fileId = 0;
    this.opening = null; // {id, resolve, reject, onProgress, onSummary, handover}
    this.pending = new Map(); // request number → {resolve, reject, tool, onProgress, timer}
    this.peeking = null; // request number of the running peek
    this.nextRequest = 0;
    /** Workers started so far: an object a request made lives in one of them (`live`). */
    this.generation = 0;
  }

  /**
   * The client that edit(), compare(), upstream() and their sessions run in when given none: one
   * worker for all of them, started on the first. The first call's options make it.
   * @param {{watchdogMs?: number, simd?: boolean}} [options]
   */
  static shared(options) {
    shared ??= new GgufClient({ ...options, tools: true, name: 'the worker' });
    return shared;
  }

  /**
   * Reads the header of a File or Blob — or of several: the shards of a split model, shown as one
   * model — in the worker. Resolves `{report, stats}`; rejects with a ParseError for a bad file,
   * a {@link ParserFailure} when the parser is stopped, or {@link Cancelled} when another file is
   * opened first. Every request rejects with a ParserFailure in the same way.
   * `onSummary(summary, stats)` is called first, when the header is decoded, with the report's
   * fields that a summary shows (not for a split model): the report takes longer to build.
   * @param {import('./protocol.js').NamedBlob|import('./protocol.js').NamedBlob[]} files
   * @param {(stats: import('./protocol.js').ReadStats) => void} [onProgress]
   * @param {(summary: import('./protocol.js').Report, stats: import('./protocol.js').ReadStats) => void} [onSummary]
   */
  open(files, onProgress, onSummary) {
    // A Blob has no name (an edit()'s result, say): it is named by its place.
    const given = [files].flat().map((file, i) => ({ name: file.name ?? `blob-${i + 1}.gguf`, file }));
    const remotes = [];
    const refs = given.map(({ name, file }) => this.#ref(file, name, remotes));
    return this.#open({ type: Request.open, files: refs }, onProgress, onSummary, Object.assign(given, { remotes }));
  }

  /** The same for a URL (and, for one shard, its sibling shards), read with HTTP Range requests. */
  openUrl(url, onProgress, onSummary) {
    return this.#open(
      { type: Request.openUrl, url: String(url) },
      onProgress,
      onSummary,
      Object.assign([], { remotes: [] }),
    );
  }

  /**
   * The model open (its header read: `open` or `openUrl` resolved), as another client's requests
   * take it — edit(), compare() and upstream() on the model shown: its files with the bytes read
   * of each, so that no header is read or requested again.
   * @returns {Promise<OpenedModel>}
   */
  async opened() {
    const given = this.#given;
    const files = await this.#ask({ type: Request.heads });
    return { files: files.map((f, i) => (given[i] ? { ...f, file: given[i].file } : f)) };
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

  /**
   * The buffers llama.cpp allocates to run the open model with llama-server's `options` (each
   * absent: its default): the `memory` document of `ggufscope info --json` with those options.
   * Rejects with an Error saying why llama.cpp would refuse them.
   * @param {import('./protocol.js').FitOptions} [options]
   */
  fit(options = {}) {
    return this.#ask({ type: Request.fit, options });
  }

  /**
   * Where llama.cpp would put the open model on `devices` (`{ram, gpus}`: RAM and each GPU's
   * free memory in bytes) with `fit`'s `options`: the document of `ggufscope fit --json`.
   * @param {import('./protocol.js').FitOptions} options
   * @param {{ram: number, gpus: number[]}} devices
   */
  plan(options, devices) {
    return this.#ask({ type: Request.plan, options, devices });
  }

  /**
   * What the open file holds beyond its kind and what its model can do: `ggufscope info
   * --json`'s `kind`, `capabilities`, `adapter`, `imatrix`, `mmproj` and `control_vector`.
   */
  describe() {
    return this.#ask({ type: Request.describe });
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

  /**
   * `text` tokenized by the open file's tokenizer as llama.cpp does it (`ggufscope tokenize
   * --json`'s document, `{ids, pieces, count}`), with `shown`: each piece in the form the page
   * shows token text in. The tokenizer module is fetched, and the tokenizer built from the header
   * already read, on the first call.
   * @param {string} text
   * @param {{parseSpecial?: boolean, addSpecial?: boolean}} [options]
   * @returns {Promise<import('./tokenize.js').Tokens & {shown: string[]}>}
   */
  tokenize(text, { parseSpecial = true, addSpecial = true } = {}) {
    return this.#ask({ type: Request.tokenize, text, parseSpecial, addSpecial, visible: true });
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

  /** `text` tokenized as llama-server tokenizes a chat prompt, by the open model's tokenizer: `Tokens` with `shown`. */
  tokenizePrompt(text) {
    return this.#ask({ type: Request.tokenize, text, prompt: true, visible: true });
  }

  /**
   * The prompt llama.cpp 0c1e570's server builds with chat `template` ('' for none: its ChatML)
   * for the sample conversation (system, user, assistant, user) or `conversation` (JSON text), with
   * the vocabulary's `chat` tokens, in the sandboxed engine. Resolves `{prompt, template, notes}`;
   * rejects with `{message, line}` (`line` in the template, or null) when it does not render, and
   * with a ParserFailure (`stalled`) when it runs past the engine's time limit: the worker is
   * ended then.
   * @param {string} template
   * @param {{chat: {bos: string|null, eos: string|null, addBos: boolean, addEos: boolean}, addGenerationPrompt: boolean, conversation?: string, kwargs?: string}} options
   * @returns {Promise<{prompt: string, template: string, notes: string[]}>}
   */
  renderTemplate(template, { chat, addGenerationPrompt, conversation, kwargs }) {
    return this.request(
      Request.render,
      { template, chat, addGenerationPrompt, conversation, kwargs, now: Date.now() / 1000 },
      {
        limited: (ms) => `stopped: the template ran for more than ${ms / 1000} s`,
      },
    );
  }

  /** The bos and eos texts the chat templates of `model` (an opened model's file) get: `ChatTokens`. */
  templateChat(model) {
    return this.request(Request.templateChat, {}, { sources: { file: model } });
  }

  /**
   * Every chat-template finding of `model` (an opened model's file) — the validator's and those
   * that need a render — each with its template line: `TemplateLint[]`.
   */
  lintTemplates(model) {
    return this.request(
      Request.lintTemplates,
      {},
      { sources: { file: model }, limited: (ms) => `stopped: the templates' checks ran for more than ${ms / 1000} s` },
    );
  }

  /**
   * Request `type` of another module (protocol.js: edit, compare, upstream, …) with `fields`, its
   * files given as `sources` (each field of `sources` a source or a list of them: a Blob or Blob
   * look-alike, a `{url}`, or a file of an {@link OpenedModel}), which become FileRefs. Resolves
   * the worker's answer; rejects as the worker's module did (an Error, a ParseError, a refusal),
   * with the signal's reason when `signal` stops it, or a ParserFailure.
   * `onProgress` is called with each `progress` reply. Files only the page can read stay readable
   * to the worker until the request settles — or, with `keep`, until `free(handle)`.
   * @param {string} type
   * @param {object} fields
   * @param {{sources?: object, onProgress?: (p: object) => void, signal?: AbortSignal, keep?: boolean, limited?: (ms: number) => string}} [options]
   * @returns {Promise<any>}
   */
  request(type, fields, { sources = {}, onProgress, signal, keep = false, limited } = {}) {
    signal?.throwIfAborted();
    const remotes = [];
    const refs = {};
    const one = (source) => {
      if (source === null || typeof source !== 'object') throw new TypeError(`not a file: ${String(source)}`);
      // A URL to open (its shards beside it), or a described file: `{name, file?, head?, url?, …}`.
      if ('url' in source && !('size' in source)) return { url: String(source.url) };
      if (!(source instanceof Blob) && 'name' in source && ('file' in source || 'head' in source)) {
        const { file, ...ref } = source;
        return file === undefined ? ref : { ...ref, ...this.#ref(file, source.name, remotes) };
      }
      return this.#ref(source, source.name ?? 'file', remotes);
    };
    for (const [field, value] of Object.entries(sources))
      refs[field] = Array.isArray(value) ? value.map(one) : one(value);
    const request = this.nextRequest++;
    const answer = new Promise((resolve, reject) =>
      this.pending.set(request, {
        resolve,
        reject,
        tool: true,
        onProgress,
        limited,
        timer: null,
        remotes: keep ? [] : remotes,
      }),
    );
    // A stopped request is answered all the same (after what it did until then: a measure's last
    // `progress`), and rejects with the signal's reason then.
    const onAbort = () => {
      const pending = this.pending.get(request);
      if (pending) pending.aborted = signal;
      this.#worker?.postMessage({ type: Request.cancel, request, seen: pending?.seen ?? 0 });
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#start().postMessage({ type, ...fields, ...refs, request });
    this.#watch();
    return answer
      .then(
        (result) => (keep && result?.handle !== undefined ? Object.assign(result, { remotes }) : result),
        (e) => {
          if (keep) this.#unshare(remotes);
          throw e;
        },
      )
      .finally(() => signal?.removeEventListener('abort', onAbort));
  }

  /** Frees object `handle` that a request made (with the files it read through the page: `remotes`). */
  free(handle, remotes = []) {
    this.#unshare(remotes);
    this.#worker?.postMessage({ type: Request.free, handle });
  }

  /**
   * Throws a ParserFailure when the worker that made an object (started as `generation`) is gone:
   * the object went with it.
   */
  live(generation, what) {
    if (generation !== this.generation || !this.#worker) {
      throw new ParserFailure(
        'crashed',
        `${this.#name} holding this ${what} was stopped (see the error before); ${what === 'comparison' ? 'compare' : 'start'} again`,
      );
    }
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
    if (pending) {
      clearTimeout(pending.timer);
      this.#unshare(pending.remotes ?? []);
    }
    this.#watch();
    if (pending) f(pending);
  }

  /** Stops the worker and cancels what was asked of it. */
  close() {
    this.#cancelAll(new Cancelled('cancelled: the viewer was closed'));
    this.#stop();
    this.#remotes.clear();
    if (shared === this) shared = null;
  }

  #cancelAll(reason) {
    this.opening?.reject(reason);
    this.opening = null;
    for (const request of [...this.pending.keys()]) this.#settle(request, (p) => p.reject(reason));
    this.#watch();
  }

  #open(message, onProgress, onSummary, given) {
    // A file still being read is dropped by its worker, which then reads the next: started, its
    // parser compiled. A worker that does not say within HANDOVER_MS that it has the next file
    // may be stuck on the one before (a hostile file): it is ended and the file opened in another,
    // so that the next file never waits behind it. The old file's unfinished work is dropped
    // either way: its requests will not be answered.
    const reading = this.opening !== null;
    this.#cancelAll(new Cancelled());
    this.#unshare(this.#given.remotes ?? []);
    this.#given = given;
    const id = ++this.fileId;
    const header = new Promise((resolve, reject) => {
      this.opening = { id, resolve, reject, onProgress, onSummary, handover: null };
    });
    const post = () => this.#start().postMessage({ ...message, id });
    post();
    if (reading) {
      this.opening.handover = setTimeout(() => {
        if (this.opening?.id !== id) return;
        this.#stop();
        post();
        this.#watch();
      }, HANDOVER_MS);
    }
    this.#watch();
    return header;
  }

  /**
   * `source` (named `name`) as the worker is given it (a FileRef, sources.js): a Blob as it is; a
   * file only this page can read as a number the worker asks for bytes by (kept in `remotes`).
   */
  #ref(source, name, remotes) {
    if (postable(source)) return { name, size: source.size, blob: source };
    const remote = this.#nextRemote++;
    this.#remotes.set(remote, source);
    remotes.push(remote);
    return { name, size: source.size, remote };
  }

  #unshare(remotes) {
    for (const remote of remotes) this.#remotes.delete(remote);
  }

  /** The worker, started when there is none (at first, and after one was stopped). */
  #start() {
    if (!this.#worker) {
      const worker = takeSpare(this.#workerName) ?? startWorker(this.#workerName);
      const mine = (handler) => (event) => worker === this.#worker && handler(event);
      worker.onmessage = mine(({ data }) => this.#receive(data));
      worker.onerror = mine((event) => {
        event.preventDefault(); // said on the page instead
        this.#fail(
          new ParserFailure(
            'crashed',
            event.message
              ? `${this.#name} crashed (${event.message}); it was restarted`
              : `${this.#name} could not be started: its script could not be loaded (${RELOAD_FOR_UPDATE})`,
          ),
        );
      });
      worker.onmessageerror = mine(() =>
        this.#fail(
          new ParserFailure(
            'crashed',
            `${this.#name} crashed (one of its answers could not be read); it was restarted`,
          ),
        ),
      );
      this.#worker = worker;
      this.generation++;
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
    const waiting = this.opening !== null || this.pending.size > 0;
    this.#watchdog.watch(waiting);
    this.#worker?.hold?.(waiting);
  }

  /** Answers the worker's `read` of a file only this page can read. */
  async #read({ read, source, start, end }) {
    const worker = this.#worker;
    try {
      const blob = this.#remotes.get(source);
      if (!blob) throw new Error('the file is no longer given');
      const bytes = new Uint8Array(await blob.slice(start, end).arrayBuffer());
      if (worker === this.#worker) worker.postMessage({ type: Request.bytes, read, bytes }, [bytes.buffer]);
    } catch (e) {
      if (worker === this.#worker)
        worker.postMessage({
          type: Request.bytes,
          read,
          error: `cannot read bytes ${start}–${end} of the file: ${e?.message ?? e}`,
        });
    }
  }

  #receive(data) {
    switch (data.type) {
      case Reply.pong:
        return this.#watchdog.answered();
      case Reply.reading:
        if (this.opening?.id === data.id) clearTimeout(this.opening.handover);
        return;
      case Reply.crash:
        return this.#fail(new ParserFailure(data.code, `${this.#name} crashed (${data.message}); it was restarted`));
      case Reply.read:
        return this.#read(data);
      case Reply.started: {
        const pending = this.pending.get(data.request);
        if (pending?.limited)
          pending.timer = setTimeout(
            () => this.#fail(new ParserFailure('stalled', pending.limited(data.limitMs))),
            data.limitMs,
          );
        return;
      }
      case Reply.progress:
        if (data.request !== undefined) {
          const pending = this.pending.get(data.request);
          // A stopped request's steps are not told (the page has stopped it), but its last one.
          if (!pending || (pending.aborted && !data.final)) return;
          // What the page has seen done, which a cancel from the callback keeps (protocol.js).
          if (!data.final) pending.seen = data.done;
          pending.onProgress?.(data);
          return;
        }
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
      case Reply.part: {
        const pending = this.pending.get(data.request);
        if (pending) (pending.parts ??= []).push([data.path, data.items]);
        return;
      }
      case Reply.answer:
        this.#settle(data.request, (p) => {
          if (p.aborted) return p.reject(p.aborted.reason);
          if (!data.error) return p.resolve(p.parts ? fromParts(data.result, p.parts) : data.result);
          p.reject(p.tool ? thrownError(data.error, { HttpError }) : data.error);
        });
        return;
      default:
        throw new Error(`unknown reply type ${JSON.stringify(data.type)}`);
    }
  }
}
