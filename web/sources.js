// How a file crosses to the worker: a `FileRef`, made on the page (`GgufClient`) and read in the
// worker as a Blob or a Blob look-alike (`readable`), so that the worker's read loops read every
// file alike. A Blob is posted as it is (the browser passes a reference: nothing is copied); a
// file only the page can read — a Blob look-alike (`{size, slice(start, end)}`), or under Node any
// Blob (`postable`) — stays on the page, and the worker asks for its bytes
// (`read`, answered by `bytes`); a URL is opened in the worker. A file whose header was already
// read (the viewer's model) brings those bytes (`head`), which the worker reads instead of the
// file: no header is read or requested twice. Plain JS with no DOM and no wasm, for both sides.

import { HttpBlob } from './http-blob.js';
import { parseError } from './protocol.js';

/**
 * A file as the worker is given it.
 * @typedef {object} FileRef
 * @property {string} name  What it is called: a split model's shards are known by name.
 * @property {number} size  Its size in bytes.
 * @property {Blob} [blob]  The file itself (a Blob, a File).
 * @property {number} [remote]  The number of a file only the page reads: the worker asks for its bytes.
 * @property {string} [url]  A URL (after redirects, for a file already opened) read with Range requests.
 * @property {Blob} [head]  The bytes from the file's start that were read already: its header.
 * @property {{etag: string|null, lastModified: string|null}} [validator]  Of a URL already opened: its first answer's.
 * @property {boolean} [rangeless]  Of a URL already opened: its server ignores Range (only its header could be read).
 * @property {string[]} [notes]  How it was read, when that matters (redirects, a server that ignores Range).
 */

/**
 * Whether `blob` can be posted to a worker: a real Blob, in a browser. Under Node none is: a
 * file-backed Blob cannot be posted, and one made of parts of such a file can, but reading it in
 * another thread brings Node down (20.x): the page reads every file for the worker there.
 */
export function postable(blob) {
  return typeof Blob === 'function' && blob instanceof Blob && !globalThis.process?.versions?.node;
}

/**
 * The worker's side: `ref` as something its read loops read (`size`, `slice(start, end)` whose
 * slices have `arrayBuffer()`), named. `ask(remote, start, end)` asks the page for bytes of a
 * remote file; `prefetch` is what a URL's first request asks for (the core's first read).
 * Resolves `{name, blob}`; an HttpError when a URL cannot be opened.
 * @param {FileRef} ref
 * @param {{ask: (remote: number, start: number, end: number) => Promise<Uint8Array>, prefetch: number, signal?: AbortSignal}} options
 */
export async function readable(ref, { ask, prefetch, signal }) {
  const head = ref.head ? new Uint8Array(await ref.head.arrayBuffer()) : null;
  let blob;
  if (ref.url !== undefined && head)
    blob = HttpBlob.reopened(ref.url, {
      size: ref.size,
      head,
      validator: ref.validator,
      rangeless: ref.rangeless,
      signal,
    });
  else if (ref.url !== undefined) blob = await HttpBlob.open(ref.url, { signal, prefetch });
  else if (ref.blob) blob = head ? headed(head, ref.blob) : ref.blob;
  else if (ref.remote !== undefined) {
    const file = remoteBlob(ref.remote, ref.size, ask);
    blob = head ? headed(head, file) : file;
  } else throw parseError('read-failed', `${ref.name}: nothing to read it from`);
  return { name: ref.name, blob };
}

/**
 * `file` whose first `head.length` bytes are `head`: reads within them never touch `file`.
 * @param {Uint8Array} head
 * @param {{size: number, slice(start: number, end: number): {arrayBuffer(): Promise<ArrayBuffer>}}} file
 */
export function headed(head, file) {
  const part = (start, end) => ({
    size: end - start,
    slice: (s = 0, e = end - start) => {
      const clamp = (i) => Math.max(0, Math.min(i, end - start));
      return part(start + clamp(s), start + Math.max(clamp(s), clamp(e)));
    },
    arrayBuffer: async () =>
      end <= head.length ? head.slice(start, end).buffer : file.slice(start, end).arrayBuffer(),
  });
  return part(0, file.size);
}

/** A file of `size` bytes that the page reads: each slice's bytes are asked for with `ask`. */
function remoteBlob(remote, size, ask) {
  const part = (start, end) => ({
    size: end - start,
    slice: (s = 0, e = end - start) => {
      const clamp = (i) => Math.max(0, Math.min(i, end - start));
      return part(start + clamp(s), start + Math.max(clamp(s), clamp(e)));
    },
    arrayBuffer: async () => (await ask(remote, start, end)).buffer,
  });
  return part(0, size);
}

/**
 * A Blob's text, refused when it is not UTF-8 (as the CLI refuses it): an Error naming it `name`.
 * @param {Blob} blob
 * @param {string} name
 */
export async function utf8Text(blob, name) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(await blob.arrayBuffer());
  } catch (e) {
    if (e instanceof TypeError) throw new Error(`${name}: not UTF-8 text`);
    throw e;
  }
}
