// Moving bytes from a Blob into a wasm decoder, for any module's: a GgufSession's header (every
// module that reads one has the same), a tensor's values (tensor-read.js), a pair's (tools.js).
// Where and how much to read is the decoder's `nextRead()` — the core's read rule — so this only
// moves bytes. Plain JS with no DOM and no wasm of its own, so importing it loads no module.

import { parseError } from './protocol.js';

/**
 * Feeds `decoder` the bytes of `blob` that it asks for (`nextRead()`, until null), each read
 * starting where the last ended, so no byte is read twice and tensor data is never read. With
 * `end`, reads stop there (a read that would pass it is cut short; the decoder takes fewer bytes
 * than it asked for): an edit reads a new file's header from its header part only. Throws what
 * `feed` throws (the decoder's ParseError for a malformed file), a ParseError for a read that
 * fails, and the signal's reason when cancelled.
 *
 * @param {{nextRead(): {offset: number, length: number}|null, feed(bytes: Uint8Array): void, stats?: any}} decoder
 * @param {import('./gguf.js').BlobLike} blob  A File, a Blob, or anything with `size` and `slice(start, end).arrayBuffer()`.
 * @param {object} [options]
 * @param {AbortSignal} [options.signal]  Cancels the read.
 * @param {(stats: any) => void} [options.onProgress]  Called after each read with the decoder's `stats`.
 * @param {number} [options.end]  Read nothing at or past this offset while the decoder can do without.
 * @param {Uint8Array[]} [options.keep]  Every read's bytes are kept here, in order: the header,
 *   for another module to decode without reading it again.
 */
export async function feedFrom(decoder, blob, { signal, onProgress, end = Infinity, keep } = {}) {
  for (let read = decoder.nextRead(); read; read = decoder.nextRead()) {
    signal?.throwIfAborted();
    const stop = read.offset < end ? Math.min(read.offset + read.length, end) : read.offset + read.length;
    const bytes = await readSlice(blob, read.offset, stop);
    signal?.throwIfAborted();
    keep?.push(bytes);
    decoder.feed(bytes);
    onProgress?.(decoder.stats);
  }
}

/** Bytes `start..end` of `blob`; a {@link import('./protocol.js').ParseError} when the read fails or comes back short. */
export async function readSlice(blob, start, end) {
  let buffer;
  try {
    buffer = await blob.slice(start, end).arrayBuffer();
  } catch (e) {
    throw parseError('read-failed', `cannot read bytes ${start}–${end} of the file: ${e.message}`, start);
  }
  if (buffer.byteLength !== end - start) {
    throw parseError(
      'file-changed',
      `read ${buffer.byteLength} bytes at offset ${start} instead of ${end - start}: did the file change?`,
      start,
    );
  }
  return new Uint8Array(buffer);
}

/**
 * `header` then `tail`: a Blob when `tail` is one (a reference to the file's slice: nothing is
 * read or copied), else a look-alike reading the same way.
 * @param {Uint8Array<ArrayBuffer>} header
 * @param {import('./gguf.js').BlobLike} tail
 */
export function join(header, tail) {
  if (typeof Blob === 'function' && tail instanceof Blob) return new Blob([header, tail]);
  const part = (start, end) => ({
    size: end - start,
    slice: (s, e) => part(start + s, start + Math.min(e, end - start)),
    async arrayBuffer() {
      const bytes = new Uint8Array(end - start);
      const head = header.subarray(Math.min(start, header.length), Math.min(end, header.length));
      bytes.set(head);
      if (end > header.length) {
        const from = Math.max(start - header.length, 0);
        bytes.set(new Uint8Array(await tail.slice(from, end - header.length).arrayBuffer()), head.length);
      }
      return bytes.buffer;
    },
  });
  return /** @type {Blob} */ (/** @type {unknown} */ (part(0, header.length + tail.size)));
}
