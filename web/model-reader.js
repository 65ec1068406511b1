// Reads a model: the header of each of its files (one file, or the shards of a split model) into
// one GgufModel. A local file (a File or Blob) is read as one stream from its start, anything else
// (a URL's HttpBlob) by the core's read rule (read-loop.js); this only puts the files together.
// Plain JS with no DOM, so it runs in the worker, under Node and in the tests.

import { GgufModel } from './pkg/gguf_wasm.js';
import { isParseError, parseError } from './protocol.js';
import { isAnswer } from './failures.js';
import { readHeader, streamHeader } from './read-loop.js';

/**
 * Whether `blob` is a local file, read as a stream: a real Blob (a File too), not an HttpBlob.
 * @returns {blob is Blob}
 */
const isLocal = (blob) => typeof Blob === 'function' && blob instanceof Blob;

/**
 * Reads the headers of `sources` and puts them together. Resolves the GgufModel (the caller
 * frees it), how the headers were read, summed over the files, with `notes` on how they were
 * read (the HttpBlob's: redirects, a server that ignores Range), and the bytes read of each file
 * (`heads`, in the order of `sources`: each a function making a Blob of its header, maybe a
 * little more), so that another module can decode a header with no request for it. A remote
 * file's bytes are kept as they come; a local file's are its own first bytes (a slice: nothing
 * is kept, which would weigh on the read of a big header, and a local read costs no request).
 * Rejects with a ParseError whose message names the file when there are several; the signal's
 * reason when cancelled; a crash (failures.js) as it was thrown.
 * @param {{name: string, blob: import('./protocol.js').Readable}[]} sources  `blob`: anything the read loop reads (readHeader).
 * @param {{signal?: AbortSignal, onProgress?: (stats: import('./protocol.js').ReadStats) => void}} [options]
 * @returns {Promise<{model: GgufModel, stats: import('./protocol.js').ReadStats & {notes: string[]}, heads: (() => Blob)[]}>}
 */
export async function readModel(sources, { signal, onProgress } = {}) {
  const kept = sources.map(() => []);
  const read = sources.map(() => ({ bytesRead: 0, reads: 0 }));
  const fileSize = sources.reduce((sum, s) => sum + s.blob.size, 0);
  const total = () => ({
    bytesRead: read.reduce((sum, r) => sum + r.bytesRead, 0),
    reads: read.reduce((sum, r) => sum + r.reads, 0),
    fileSize,
  });
  const results = await Promise.allSettled(
    sources.map(async ({ blob }, i) => {
      const progress = (stats) => {
        read[i] = stats;
        onProgress?.(total());
      };
      try {
        return await (isLocal(blob)
          ? streamHeader(blob, { signal, onProgress: progress })
          : readHeader(blob, { signal, onProgress: progress, keep: kept[i] }));
      } finally {
        blob.close?.(); // a download of the whole file (a server that ignores Range) stops here
      }
    }),
  );
  const sessions = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  // A crash first, as thrown: a module that trapped must not be called again, not even to free.
  const crash = results.find((r) => r.status === 'rejected' && !isAnswer(r.reason) && r.reason?.name !== 'AbortError');
  if (crash) throw /** @type {PromiseRejectedResult} */ (crash).reason;
  const failed = results.findIndex((r) => r.status === 'rejected');
  if (failed >= 0) {
    for (const session of sessions) session.free();
    const e = /** @type {PromiseRejectedResult} */ (results[failed]).reason;
    if (signal?.aborted || sources.length === 1) throw e;
    const name = sources[failed].name;
    throw isParseError(e)
      ? { ...e, message: `${name}: ${e.message}` }
      : parseError(e.code ?? 'read-failed', `${name}: ${e.message}`);
  }
  const model = new GgufModel(
    sessions,
    sources.map((s) => s.name),
  ); // takes the sessions
  const heads = sources.map(({ blob }, i) =>
    isLocal(blob) ? () => blob.slice(0, read[i].bytesRead) : () => new Blob(kept[i]),
  );
  return { model, stats: { ...total(), notes: sources.flatMap((s) => s.blob.notes ?? []) }, heads };
}
