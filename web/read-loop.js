// Reading a header into a new GgufSession, in one of two ways. A local file (a File or Blob) is
// read as one stream from its start that the session opens on it (web-sys), its chunks fed as the
// browser hands them over and the rest cancelled where the header ends: one read, decoding while
// the bytes arrive. Anything else — a URL's HttpBlob — is read where the session's `nextRead()`
// says (blob-read.js), the core's read rule, the same as the CLI's. Plain JS with no DOM.

import { GgufSession } from './pkg/gguf_wasm.js';
import { isAnswer } from './failures.js';
import { feedFrom } from './blob-read.js';
import { parseError } from './protocol.js';

/**
 * Reads the header of `blob` into a new GgufSession, reading exactly what the session asks for:
 * each read starts where the last ended, so no byte is read twice, and tensor data is never read.
 * Resolves the session (the caller frees it). Throws the session's
 * {@link import('./protocol.js').ParseError} for a malformed file, a ParseError for a read that
 * fails, and the signal's reason when cancelled.
 *
 * @param {import('./protocol.js').Readable} blob  A File, a Blob, or anything with `size` and `slice(start, end).arrayBuffer()`.
 * @param {object} [options]
 * @param {AbortSignal} [options.signal]  Cancels the read, e.g. when another file is opened.
 * @param {(stats: import('./protocol.js').ReadStats) => void} [options.onProgress]  Called after each read.
 * @param {Uint8Array[]} [options.keep]  Every read's bytes are kept here, in order (blob-read.js).
 * @returns {Promise<GgufSession>}
 */
export function readHeader(blob, { signal, onProgress, keep } = {}) {
  return decode(blob, (session) => feedFrom(session, blob, { signal, onProgress, keep }));
}

/**
 * Reads the header of a local `file` into a new GgufSession as one stream from its start
 * (`session.stream(file)`), feeding each chunk as it arrives, and cancels the stream once the
 * header is decoded: what the browser had not handed over by then is never read. Bytes read are
 * the header and the rest of the chunk it ends in. Resolves and throws as {@link readHeader}; a
 * stream that ends before the header does is `file-changed`.
 *
 * @param {Blob} file  A File or Blob.
 * @param {object} [options]
 * @param {AbortSignal} [options.signal]  Cancels the read, e.g. when another file is opened.
 * @param {(stats: import('./protocol.js').ReadStats) => void} [options.onProgress]  Called after each chunk.
 * @param {Uint8Array[]} [options.keep]  Every chunk fed is kept here, in order.
 * @returns {Promise<GgufSession>}
 */
export function streamHeader(file, { signal, onProgress, keep } = {}) {
  return decode(file, async (session) => {
    const reader = session.stream(file).getReader();
    const cancel = () => reader.cancel().catch(() => {});
    signal?.addEventListener('abort', cancel);
    try {
      for (let need = session.nextRead(); need; need = session.nextRead()) {
        let chunk;
        const asked = performance.now();
        try {
          chunk = await reader.read();
          performance.measure('gguf:wait', { start: asked });
        } catch (e) {
          throw parseError('read-failed', `cannot read the file at byte ${need.offset}: ${e.message}`, need.offset);
        }
        signal?.throwIfAborted();
        if (chunk.done && need.offset < file.size) {
          throw parseError(
            'file-changed',
            `the file ended at byte ${need.offset}, before its header did, though it has ${file.size} bytes: did the file change?`,
            need.offset,
          );
        }
        // A stream that ends where the file does (an empty file's): the decoder says what is missing.
        if (!chunk.done) keep?.push(chunk.value);
        // The waits, the first bytes and each chunk's decode are User Timing entries: the benchmark's stages.
        if (need.offset === 0) performance.mark('gguf:first-bytes');
        const fed = performance.now();
        session.feed(chunk.done ? new Uint8Array(0) : chunk.value);
        performance.measure('gguf:feed', { start: fed });
        onProgress?.(session.stats);
      }
    } finally {
      signal?.removeEventListener('abort', cancel);
      cancel(); // the rest of the file is not read
    }
  });
}

/** A new session for `blob`, fed by `feed(session)`; freed when that fails, unless a module trapped. */
async function decode(blob, feed) {
  const session = new GgufSession(blob.size);
  try {
    await feed(session);
  } catch (e) {
    // A module that trapped must not be called again, not even to free (failures.js).
    if (isAnswer(e) || e?.name === 'AbortError') session.free();
    throw e;
  }
  return session;
}
