// The read loop: feeds a GGUF header decoder from a Blob, reading exactly where the decoder
// needs bytes. Plain JS with no DOM, so it runs in the worker, under Node and in the tests.

import { parseError } from './protocol.js';

/** Smallest read. A small header (or the fixed part of a big one) fits in the first. */
export const FIRST_READ = 256 * 1024;
/** Largest read, so memory stays bounded whatever a file claims. */
export const MAX_READ = 16 * 1024 * 1024;

/**
 * Reads the header of `blob` into `session` (a `GgufSession` from the wasm package, or anything
 * with the same `firstNeed()` / `feed(bytes)`). Each read starts where the previous one ended —
 * no byte is read twice — and is at least what the decoder says the header still needs. Past
 * that, a read is a quarter of what was read before it (at least `firstRead`, at most
 * `maxRead`): sizes grow geometrically, so a 24 MB header takes a dozen reads, and the last read
 * overshoots the header's end by at most a quarter of the header (or `firstRead`), so a 40 GB
 * file costs one 256 KiB read. Tensor data is never read beyond that.
 *
 * Throws the session's {@link import('./protocol.js').ParseError} for a malformed file, a
 * ParseError for a read that fails, and the signal's reason when cancelled.
 *
 * @param {Blob} blob  A File, a Blob, or anything with `size` and `slice(start, end).arrayBuffer()`.
 * @param {{firstNeed(): Need, feed(bytes: Uint8Array): Need|null}} session
 * @param {object} [options]
 * @param {AbortSignal} [options.signal]  Cancels the read, e.g. when another file is opened.
 * @param {(stats: import('./protocol.js').ReadStats) => void} [options.onProgress]  Called after each read.
 * @param {number} [options.firstRead]
 * @param {number} [options.maxRead]
 * @returns {Promise<import('./protocol.js').ReadStats>}
 * @typedef {{offset: number, minLen: number}} Need
 */
export async function readHeader(blob, session, options = {}) {
  const { signal, onProgress, firstRead = FIRST_READ, maxRead = MAX_READ } = options;
  const fileSize = blob.size;
  let bytesRead = 0;
  let reads = 0;
  for (let need = session.firstNeed(); need; ) {
    signal?.throwIfAborted();
    if (need.offset !== bytesRead) {
      throw new Error(`decoder asked for offset ${need.offset} after ${bytesRead} bytes were fed`);
    }
    const start = bytesRead;
    const size = Math.min(Math.max(need.minLen, firstRead, Math.floor(start / 4)), maxRead);
    const end = Math.min(start + size, fileSize);
    if (end <= start) {
      throw new Error(`decoder asked for bytes past the end of the file (${fileSize} bytes)`);
    }
    const bytes = await readSlice(blob, start, end);
    signal?.throwIfAborted();
    bytesRead = end;
    reads += 1;
    onProgress?.({ bytesRead, reads, fileSize });
    need = session.feed(bytes);
  }
  return { bytesRead, reads, fileSize };
}

/** Bytes `start..end` of `blob`; a {@link import('./protocol.js').ParseError} when the read fails or comes back short. */
export async function readSlice(blob, start, end) {
  let buffer;
  try {
    buffer = await blob.slice(start, end).arrayBuffer();
  } catch (e) {
    throw parseError(`cannot read bytes ${start}–${end} of the file: ${e.message}`, start);
  }
  if (buffer.byteLength !== end - start) {
    throw parseError(`read ${buffer.byteLength} bytes at offset ${start} instead of ${end - start}: did the file change?`, start);
  }
  return new Uint8Array(buffer);
}
