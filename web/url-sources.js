// The files to read for a URL: the file it names and, when that is one shard of a split model
// (`NAME-00002-of-00003.gguf`), its siblings beside it on the server, found by the naming
// convention. A sibling the server does not have is left for the model to report as missing.
// A name promising more than MAX_SIBLINGS shards opens the file named alone, and says so.

import { firstRead, shardNames } from './pkg/gguf_wasm.js';
import { fileNameOf, HttpBlob } from './http-blob.js';
import { parseError } from './protocol.js';

/**
 * Most shards opened by themselves for one URL, as in the CLI (`model_files::MAX_SIBLINGS`): a
 * name such as `-00001-of-01024` must not make a thousand requests. The largest published models
 * have under 100 shards.
 */
export const MAX_SIBLINGS = 256;

/**
 * Opens `url` and, for a shard, every sibling (at once; up to MAX_SIBLINGS). Resolves `[{name, blob}]`: HttpBlobs,
 * without the siblings the server answers 404 for. Rejects with the named URL's HttpError, or a
 * ParseError naming the sibling that failed otherwise (no access, CORS, …).
 * @param {string|URL} url
 * @param {{signal?: AbortSignal, siblings?: (name: string) => string[]|undefined, prefetch?: number}} [options]
 *   `siblings` and `prefetch`: the core's shard names and first read, from the viewer's module by
 *   default (another module's where that one is not loaded: every module that reads headers has them).
 */
export async function urlSources(url, { signal, siblings = shardNames, prefetch = firstRead() } = {}) {
  const name = fileNameOf(url);
  const promised = siblings(name) ?? [name];
  const names = promised.length <= MAX_SIBLINGS ? promised : [name];
  const opened = await Promise.allSettled(
    names.map((sibling) => {
      const at = new URL(url);
      at.pathname = at.pathname.replace(/[^/]*$/, encodeURIComponent(sibling));
      return HttpBlob.open(sibling === name ? url : at, { signal, prefetch });
    }),
  );
  const failure = opened.findIndex(
    (r, i) => r.status === 'rejected' && (names[i] === name || signal?.aborted || r.reason.status !== 404),
  );
  if (failure >= 0) {
    for (const r of opened) if (r.status === 'fulfilled') r.value.close();
    const e = /** @type {PromiseRejectedResult} */ (opened[failure]).reason;
    throw names[failure] === name || signal?.aborted
      ? e
      : parseError(e.code ?? 'read-failed', `${names[failure]} (another shard of this model): ${e.message}`);
  }
  if (names !== promised) {
    /** @type {PromiseFulfilledResult<HttpBlob>} */ (opened[0]).value.notes.push(
      `${name}: its name says the model has ${promised.length} shards, more than the ${MAX_SIBLINGS} read by themselves: only this file was read`,
    );
  }
  return opened.flatMap((r, i) => (r.status === 'fulfilled' ? [{ name: names[i], blob: r.value }] : []));
}
