// The page's side of the parser worker: one method per request, promises for the replies.
// No DOM, so any page (or a model hub's) can use it.

import { Reply, Request } from './protocol.js';

/** Rejection of an `open` whose file was replaced by another before it finished. */
export class Cancelled extends Error {
  constructor() {
    super('cancelled: another file was opened');
    this.name = 'Cancelled';
  }
}

export class GgufClient {
  constructor() {
    this.worker = new Worker(new URL('./gguf-worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = ({ data }) => this.#receive(data);
    this.fileId = 0;
    this.opening = null; // {id, resolve, reject, onProgress}
    this.pages = new Map(); // request number → {resolve, reject}
    this.nextRequest = 0;
  }

  /**
   * Reads the header of a File or Blob in the worker. Resolves `{report, stats}`; rejects with a
   * ParseError for a bad file, or {@link Cancelled} when another file is opened first.
   * @param {Blob} file
   * @param {(stats: import('./protocol.js').ReadStats) => void} [onProgress]
   */
  open(file, onProgress) {
    return this.#open({ type: Request.open, file }, onProgress);
  }

  /** The same for a same-origin URL whose server honours Range requests. */
  openUrl(url, onProgress) {
    return this.#open({ type: Request.openUrl, url: String(url) }, onProgress);
  }

  /** Elements `start..start + count` of the array held by key-value pair `kvIndex` of the open file. */
  arrayPage(kvIndex, start, count) {
    const request = this.nextRequest++;
    this.worker.postMessage({ type: Request.arrayPage, id: this.fileId, request, kvIndex, start, count });
    return new Promise((resolve, reject) => this.pages.set(request, { resolve, reject }));
  }

  #open(message, onProgress) {
    this.opening?.reject(new Cancelled());
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
      case Reply.arrayPage: {
        const pending = this.pages.get(data.request);
        this.pages.delete(data.request);
        if (data.error) pending?.reject(data.error);
        else pending?.resolve(data.items);
        return;
      }
      default:
        throw new Error(`unknown reply type ${JSON.stringify(data.type)}`);
    }
  }
}
