// Moving a header's bytes from a Blob into a wasm decoder, for any module's decoder: the viewer's
// GgufSession (read-loop.js) and the edit module's GgufEditor (edit.js). Where and how much to
// read is the decoder's `nextRead()` — the core's read rule — so this only moves bytes. Plain JS
// with no DOM and no wasm of its own, so importing it loads no module.

import { parseError } from './protocol.js';

/**
 * Feeds `decoder` the bytes of `blob` that it asks for (`nextRead()`, until null), each read
 * starting where the last ended, so no byte is read twice and tensor data is never read. With
 * `end`, reads stop there (a read that would pass it is cut short; the decoder takes fewer bytes
 * than it asked for): edit.js reads a new file's header from its header part only. Throws what
 * `feed` throws (the decoder's ParseError for a malformed file), a ParseError for a read that
 * fails, and the signal's reason when cancelled.
 *
 * @param {{nextRead(): {offset: number, length: number}|null, feed(bytes: Uint8Array): void, stats?: any}} decoder
 * @param {Blob} blob  A File, a Blob, or anything with `size` and `slice(start, end).arrayBuffer()`.
 * @param {object} [options]
 * @param {AbortSignal} [options.signal]  Cancels the read.
 * @param {(stats: any) => void} [options.onProgress]  Called after each read with the decoder's `stats`.
 * @param {number} [options.end]  Read nothing at or past this offset while the decoder can do without.
 */
export async function feedFrom(decoder, blob, { signal, onProgress, end = Infinity } = {}) {
  for (let read = decoder.nextRead(); read; read = decoder.nextRead()) {
    signal?.throwIfAborted();
    const stop = read.offset < end ? Math.min(read.offset + read.length, end) : read.offset + read.length;
    const bytes = await readSlice(blob, read.offset, stop);
    signal?.throwIfAborted();
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
    throw parseError('file-changed', `read ${buffer.byteLength} bytes at offset ${start} instead of ${end - start}: did the file change?`, start);
  }
  return new Uint8Array(buffer);
}
