// The page's side of the parser worker: one method per request, promises for the replies.
// No DOM, so any page (or a model hub's) can use it.

import { Reply, Request } from './protocol.js';

/** Rejection of a request overtaken by another: a file opened, or another tensor peeked at. */
export class Cancelled extends Error {
  constructor(message = 'cancelled: another file was opened') {
    super(message);
    this.name = 'Cancelled';
  }
}

export class GgufClient {
  constructor() {
    this.worker = new Worker(new URL('./gguf-worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = ({ data }) => this.#receive(data);
    this.fileId = 0;
    this.opening = null; // {id, resolve, reject, onProgress}
    this.pending = new Map(); // request number → {resolve, reject}
    this.peeking = null; // request number of the running peek
    this.nextRequest = 0;
  }

  /**
   * Reads the header of a File or Blob — or of several: the shards of a split model, shown as one
   * model — in the worker. Resolves `{report, stats}`; rejects with a ParseError for a bad file,
   * or {@link Cancelled} when another file is opened first.
   * @param {Blob|Blob[]} files
   * @param {(stats: import('./protocol.js').ReadStats) => void} [onProgress]
   */
  open(files, onProgress) {
    return this.#open({ type: Request.open, files: [files].flat() }, onProgress);
  }

  /** The same for a URL (and, for one shard, its sibling shards), read with HTTP Range requests. */
  openUrl(url, onProgress) {
    return this.#open({ type: Request.openUrl, url: String(url) }, onProgress);
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
    this.worker.postMessage({ type: Request.stopPeek, id: this.fileId });
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
   * `{total, start, tokens}`: up to `count` of the tokens whose text contains `query` (typed as
   * token texts are shown: `\n` for a newline), or of all tokens for '', from the `start`th on.
   * Only that page crosses from the worker; paging through one query's matches searches once.
   */
  tokens(query, start, count) {
    return this.#ask({ type: Request.tokens, query, start, count });
  }

  /** `[{text, special}]`: `text` split at the open file's special tokens (`special`: the token's id, or null). */
  splitSpecial(text) {
    return this.#ask({ type: Request.splitSpecial, text });
  }

  #ask(message, request = this.nextRequest++) {
    this.worker.postMessage({ ...message, id: this.fileId, request });
    return new Promise((resolve, reject) => this.pending.set(request, { resolve, reject }));
  }

  /** Removes request `request` from the pending ones and calls `f` with it, if it is pending. */
  #settle(request, f) {
    const pending = this.pending.get(request);
    this.pending.delete(request);
    if (pending) f(pending);
  }

  /** Stops the worker and cancels what was asked of it: the client cannot be used afterwards. */
  close() {
    this.#cancelAll(new Cancelled('cancelled: the viewer was closed'));
    this.worker.terminate();
  }

  #cancelAll(reason) {
    this.opening?.reject(reason);
    this.opening = null;
    for (const request of [...this.pending.keys()]) this.#settle(request, (p) => p.reject(reason));
  }

  #open(message, onProgress) {
    // The worker drops the old file's unfinished work: its requests will not be answered.
    this.#cancelAll(new Cancelled());
    const id = ++this.fileId;
    this.worker.postMessage({ ...message, id });
    return new Promise((resolve, reject) => {
      this.opening = { id, resolve, reject, onProgress };
    });
  }

  #receive(data) {
    switch (data.type) {
      case Reply.progress:
        if (this.opening?.id === data.id) this.opening.onProgress?.(data);
        return;
      case Reply.header:
      case Reply.error:
        if (this.opening?.id !== data.id) return;
        if (data.type === Reply.header) this.opening.resolve({ report: data.report, stats: data.stats });
        else this.opening.reject(data.error);
        this.opening = null;
        return;
      case Reply.answer:
        this.#settle(data.request, (p) => (data.error ? p.reject(data.error) : p.resolve(data.result)));
        return;
      default:
        throw new Error(`unknown reply type ${JSON.stringify(data.type)}`);
    }
  }
}
