// The header read for what the wasm module cannot read itself — a URL's HttpBlob, or a Blob under
// Node. It only moves bytes (blob-read.js): where and how
// much to read is the session's `nextRead()`, the core's read rule, the same as the CLI's and as
// `readFile`'s (which reads local files in the worker through web-sys). Plain JS with no DOM.

import { GgufSession } from './pkg/gguf_wasm.js';
import { isAnswer } from './failures.js';
import { feedFrom } from './blob-read.js';

/**
 * Reads the header of `blob` into a new GgufSession, reading exactly what the session asks for:
 * each read starts where the last ended, so no byte is read twice, and tensor data is never read.
 * Resolves the session (the caller frees it). Throws the session's
 * {@link import('./protocol.js').ParseError} for a malformed file, a ParseError for a read that
 * fails, and the signal's reason when cancelled.
 *
 * @param {Blob} blob  A File, a Blob, or anything with `size` and `slice(start, end).arrayBuffer()`.
 * @param {object} [options]
 * @param {AbortSignal} [options.signal]  Cancels the read, e.g. when another file is opened.
 * @param {(stats: import('./protocol.js').ReadStats) => void} [options.onProgress]  Called after each read.
 * @returns {Promise<GgufSession>}
 */
export async function readHeader(blob, { signal, onProgress } = {}) {
  const session = new GgufSession(blob.size);
  try {
    await feedFrom(session, blob, { signal, onProgress });
  } catch (e) {
    // A module that trapped must not be called again, not even to free (failures.js).
    if (isAnswer(e) || e?.name === 'AbortError') session.free();
    throw e;
  }
  return session;
}
