// Reading a tensor's values: only the bytes of the tensor (or of its first rows), found by the
// header, in chunks, so a 40 GB model costs what is looked at and memory stays bounded. Plain JS
// with no DOM, so it runs in the worker, under Node and in the tests.

import { readSlice } from './read-loop.js';

/** Bytes per read. A larger tensor is read twice (statistics, then histogram), a chunk at a time. */
export const TENSOR_CHUNK = 8 * 1024 * 1024;

/**
 * Measures the values in bytes `prefix.offset .. prefix.offset + prefix.length` of `blob`: reads
 * them in chunks of whole blocks and hands each to `values` (a `TensorValues` of the
 * gguf-dequant-wasm package) twice — `measure` for the statistics, then `bin` for the histogram
 * over the range they found. Bytes that fit in one chunk are read once and kept for the second
 * pass. Nothing outside the prefix is read.
 *
 * Throws a {@link import('./protocol.js').ParseError} for a read that fails, the decoder's error
 * for bytes it refuses, and the signal's reason when cancelled; `values` is freed either way.
 *
 * @param {Blob} blob  A File, a Blob, or anything with `slice(start, end).arrayBuffer()`.
 * @param {{offset: number, length: number}} prefix  From `GgufSession.tensorPrefix`.
 * @param {{blockBytes: number, measure(b: Uint8Array): void, bin(b: Uint8Array): void, finish(): object, free(): void}} values
 * @param {object} [options]
 * @param {AbortSignal} [options.signal]
 * @param {number} [options.chunk]  Bytes per read, rounded down to whole blocks (at least one).
 * @returns {Promise<{stats: object, bytesRead: number, reads: number}>}
 */
export async function measureTensor(blob, prefix, values, { signal, chunk = TENSOR_CHUNK } = {}) {
  const step = Math.max(1, Math.floor(chunk / values.blockBytes)) * values.blockBytes;
  const end = prefix.offset + prefix.length;
  let bytesRead = 0;
  let reads = 0;
  const read = async (start) => {
    signal?.throwIfAborted();
    const bytes = await readSlice(blob, start, Math.min(start + step, end));
    signal?.throwIfAborted();
    bytesRead += bytes.length;
    reads += 1;
    return bytes;
  };
  try {
    let single = null; // the whole prefix, when one chunk holds it
    for (let at = prefix.offset; at < end; at += step) {
      const bytes = await read(at);
      values.measure(bytes);
      if (prefix.length <= step) single = bytes;
    }
    for (let at = prefix.offset; at < end; at += step) values.bin(single ?? (await read(at)));
  } catch (e) {
    values.free();
    throw e;
  }
  return { stats: values.finish(), bytesRead, reads };
}
