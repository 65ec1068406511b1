// The read loop: feeds a GGUF header decoder from a Blob, reading exactly where the decoder
// needs bytes. Plain JS with no DOM, so it runs in the worker, under Node and in the tests.

import { parseError } from './protocol.js';

/** First read. A small header (or the fixed part of a big one) fits in it. */
export const FIRST_READ = 256 * 1024;
/** Largest read: later reads double up to it, so memory stays bounded whatever a file claims. */
export const MAX_READ = 16 * 1024 * 1024;

/**
 * Reads the header of `blob` into `session` (a `GgufSession` from the wasm package, or anything
 * with the same `firstNeed()` / `feed(bytes)`). Each read starts where the previous one ended —
 * no byte is read twice — and is at least what the decoder says the header still needs; each read
 * is twice the one before, from `firstRead` up to `maxRead`, so a 10 MB header takes a handful of reads and a
 * 40 GB file one small read. Tensor data is never read.
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
  let chunk = firstRead; // the next read's size unless the decoder needs more
  let bytesRead = 0;
  let reads = 0;
  for (let need = session.firstNeed(); need; ) {
    signal?.throwIfAborted();
    if (need.offset !== bytesRead) {
      throw new Error(`decoder asked for offset ${need.offset} after ${bytesRead} bytes were fed`);
    }
    const start = bytesRead;
    const end = Math.min(start + Math.min(Math.max(need.minLen, chunk), maxRead), fileSize);
    if (end <= start) {
      throw new Error(`decoder asked for bytes past the end of the file (${fileSize} bytes)`);
    }
    const bytes = await readSlice(blob, start, end);
    signal?.throwIfAborted();
    bytesRead = end;
    reads += 1;
    onProgress?.({ bytesRead, reads, fileSize });
    need = session.feed(bytes);
    chunk = Math.min(2 * (end - start), maxRead);
  }
  return { bytesRead, reads, fileSize };
}

async function readSlice(blob, start, end) {
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
