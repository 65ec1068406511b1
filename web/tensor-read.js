// Reading a tensor's values: only the bytes of the tensor (or of its first rows), where the
// dequantizer module's TensorValues asks for them — the core's rule, the same as the CLI's — so a
// 40 GB model costs what is looked at and memory stays bounded. Plain JS with no DOM, so it runs in
// the worker, under Node and in the tests.

import { feedFrom } from './blob-read.js';
import { isAnswer } from './failures.js';

/**
 * Feeds `values` (a `TensorValues` of the values module) the bytes of `blob` it asks
 * for, until it asks for none, and resolves its statistics with how they were read.
 *
 * Throws a {@link import('./protocol.js').ParseError} for a read that fails, the decoder's error
 * for bytes it refuses, and the signal's reason when cancelled; `values` is freed then (not after
 * a trap: a trapped module is not called again).
 *
 * @param {Blob} blob  A File, a Blob, or anything with `slice(start, end).arrayBuffer()`.
 * @param {{nextRead(): {offset: number, length: number}|null, feed(b: Uint8Array): void, finish(): object, free(): void}} values
 * @param {{signal?: AbortSignal}} [options]
 * @returns {Promise<{stats: object, bytesRead: number, reads: number}>}
 */
export async function measureTensor(blob, values, { signal } = {}) {
  let bytesRead = 0;
  let reads = 0;
  const counted = {
    nextRead: () => values.nextRead(),
    feed: (bytes) => {
      bytesRead += bytes.length;
      reads += 1;
      values.feed(bytes);
    },
  };
  try {
    await feedFrom(counted, blob, { signal });
  } catch (e) {
    // A module that trapped is never called again, not even to free (failures.js).
    if (isAnswer(e) || e?.name === 'AbortError') values.free();
    throw e;
  }
  return { stats: values.finish(), bytesRead, reads };
}
