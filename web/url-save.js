// Saving an edited copy of a model opened by URL without holding the file in memory: the header
// is read with Range requests (http-blob.js) — or taken as the viewer read it (`head`) — and
// edited (edit.js) exactly as a local file's, then
// the new header is written into a writable file — the File System Access API's
// FileSystemWritableFileStream, or anything with `write`, `close` and `abort` — and the data
// section follows it from ONE GET with `Range: bytes=OLD_DATA_OFFSET-`, streamed chunk by chunk.
// The answer must be the file that was opened (its size, its ETag where the server shows one);
// a server that ignores Range sends the whole file, whose first OLD_DATA_OFFSET bytes are then
// skipped as they come. On any failure, or a cancel, the writable is aborted, so a file written
// through the picker is left as it was. Plain JS with no DOM: it runs in a page and under Node.
//
//   import { saveEditedUrl } from './web/url-save.js';
//   const handle = await showSaveFilePicker({ suggestedName: 'model.edited.gguf' });
//   await saveEditedUrl(url, edits, await handle.createWritable(), { size: report.file_size, signal, onProgress });

import { editWithChanges } from './edit.js';
import { changedSince, fileNameOf, getRange, HttpBlob, HttpError } from './http-blob.js';

/**
 * A save that could not be finished because of what the server sent: `code` is `changed` (the
 * file on the server is not the one opened: another size, another ETag, or a Content-Range of
 * other bytes), `short` (the body ended early) or `long` (the body went on past the file's end);
 * `expected` and `received` the byte counts of the data section where they apply.
 */
export class UrlSaveError extends Error {
  constructor(code, message, { expected = null, received = null } = {}) {
    super(message);
    this.name = 'UrlSaveError';
    this.code = code;
    this.expected = expected;
    this.received = received;
  }
}

/**
 * What a save made: {@link import('./edit.js').Edited}'s figures without the file (which is in the
 * writable), plus what was written and read.
 * @typedef {object} UrlSaved
 * @property {import('./edit.js').Change[]} changes
 * @property {{before: number, after: number}} header_size
 * @property {{before: number, after: number}} data_offset
 * @property {{before: number, after: number}} file_size
 * @property {{bytesRead: number, reads: number}} read  What the header read took from the server.
 * @property {number} written  Bytes written: the new file's size.
 * @property {number} dataBytes  Of those, the data section's, streamed from the server.
 * @property {number} skipped  Bytes of the body skipped: the old header, from a server that ignores Range.
 * @property {string[]} notes  What the reader should know (redirects, a server that ignores Range).
 */

/**
 * Writes a copy of the model at `url` with `edits` made (as `edit()` makes them) into `writable`,
 * and closes it. Only the header is read to edit it (a few Range requests); the data section is
 * streamed from one request into `writable`, never held in memory.
 *
 * Rejects — after aborting `writable` — with what `editWithChanges` rejects with (an EditError
 * `{code, key, message}` for a refused edit, a ParseError), an HttpError for a failed request, a
 * {@link UrlSaveError} when the server's file changed or its body is too short or too long, and
 * the signal's reason (an Error named AbortError) when cancelled.
 *
 * @param {string|URL} url  The model's URL (for a split model, its first shard's: the metadata is there).
 * @param {import('./edit.js').Edit[]} edits
 * @param {{write(chunk: Uint8Array): Promise<void>, close(): Promise<void>, abort(reason?: any): Promise<void>}} writable
 * @param {object} options
 * @param {number} options.size  The file's size when it was opened (its report's `file_size`): a
 *   file that has another size now is not mixed with the edit made from the old one.
 * @param {{head: Blob, url: string, validator?: {etag: string|null, lastModified: string|null}, notes?: string[]}} [options.opened]
 *   The file as the viewer opened it (a file of GgufClient#opened): the header is edited from the
 *   bytes read then (`head`), with no request for it, and the data section is asked of `url` (the
 *   one after redirects) and must be of the same version (`validator`).
 * @param {AbortSignal} [options.signal]  Cancels the reads and the download; `writable` is aborted.
 * @param {(progress: {written: number, total: number, dataBytes: number, dataTotal: number}) => void} [options.onProgress]
 *   Called after each write: bytes written of the new file's total, and of its data section.
 * @param {number} [options.chunkSize]  Writes are gathered up to this many bytes (4 MiB).
 * @returns {Promise<UrlSaved>}
 */
export async function saveEditedUrl(
  url,
  edits,
  writable,
  // Without options, `size` is missing and the check below says so.
  { size, opened, signal, onProgress, chunkSize = 4 << 20 } = /** @type {any} */ ({}),
) {
  if (!Number.isSafeInteger(size) || size < 0)
    throw new TypeError(
      "saveEditedUrl needs {size}: the size the file had when it was opened (its report's file_size)",
    );
  url = String(url);
  const source = lazyHttpBlob(url, size, signal, opened && new Uint8Array(await opened.head.arrayBuffer()));
  try {
    const made = await editWithChanges(source.blob, edits);
    signal?.throwIfAborted();
    // The file as the viewer opened it needs no request before its data; else it is opened now.
    const remote = opened
      ? {
          url: opened.url,
          validator: opened.validator ?? { etag: null, lastModified: null },
          notes: opened.notes ?? [],
        }
      : await source.opened();
    if (!opened) remote.close(); // a server that ignores Range: its download of the whole file stops here
    // The new file is the new header, then the old file from its data offset (a vocabulary-only
    // file may end before it: then nothing follows the header).
    const start = Math.min(made.data_offset.before, size);
    const total = made.file_size.after;
    const header = new Uint8Array(await made.file.slice(0, total - (size - start)).arrayBuffer()); // in memory: no request
    const progress = { written: 0, total, dataBytes: 0, dataTotal: size - start };
    await writable.write(header);
    progress.written = header.length;
    onProgress?.({ ...progress });
    let skipped = 0;
    if (start < size) {
      skipped = await streamData(
        remote.url,
        { start, size, validator: remote.validator, signal, chunkSize },
        async (chunk) => {
          await writable.write(chunk);
          signal?.throwIfAborted();
          progress.written += chunk.length;
          progress.dataBytes += chunk.length;
          onProgress?.({ ...progress });
        },
      );
    }
    await writable.close();
    const { file, ...figures } = made;
    return { ...figures, written: progress.written, dataBytes: progress.dataBytes, skipped, notes: remote.notes };
  } catch (e) {
    source.close();
    // The header read reports a failed read as a ParseError ("cannot read bytes …"): the reason
    // the file could not be opened (a changed size, an HttpError) says more.
    const error = signal?.aborted ? signal.reason : ((await source.failure()) ?? e);
    await Promise.resolve()
      .then(() => writable.abort(error))
      .catch(() => {});
    throw error;
  }
}

/**
 * A Blob look-alike of `size` bytes over `url` that opens it (HttpBlob.open) on the first read,
 * asking for exactly the bytes of that read, so the header read takes what the editor asks for
 * and no more; reads within `head` (the bytes from the start read before) are answered from it.
 * The server's size must be `size`. Returns `{blob, opened(), close(), failure()}`: `close()`
 * when done stops a server that ignores Range from sending the rest.
 */
export function lazyHttpBlob(url, size, signal, head = new Uint8Array(0)) {
  let opening = null;
  const open = (prefetch) =>
    (opening ??= HttpBlob.open(url, { signal, prefetch }).then((blob) => {
      if (blob.size !== size) {
        blob.close();
        throw changed(url, `it is ${blob.size} bytes now, ${size} when it was opened`);
      }
      return blob;
    }));
  const part = (start, end) => {
    const clamp = (i) => Math.max(0, Math.min(i, end - start));
    return {
      size: end - start,
      slice: (s = 0, e = end - start) => part(start + clamp(s), start + Math.max(clamp(s), clamp(e))),
      arrayBuffer: async () =>
        end <= head.length
          ? head.slice(start, end).buffer
          : (await open(Math.max(end, 1))).slice(start, end).arrayBuffer(),
    };
  };
  return {
    blob: part(0, size),
    opened: () => opening ?? open(1),
    close: () =>
      opening?.then(
        (b) => b.close(),
        () => {},
      ),
    failure: async () =>
      opening?.then(
        () => null,
        (e) => e,
      ) ?? null,
  };
}

function changed(url, why) {
  return new UrlSaveError(
    'changed',
    `the file on the server changed since it was opened (${fileNameOf(url)}: ${why}); open it again, make the changes again, then save`,
  );
}

/**
 * Streams bytes `start..size` of `url` from one GET into `write`, gathered into writes of up to
 * `chunkSize` bytes. Resolves how many bytes of the body were skipped (`start` from a server that
 * ignores Range, none otherwise).
 */
async function streamData(url, { start, size, validator, signal, chunkSize }, write) {
  const response = await getRange(url, `bytes=${start}-`, signal);
  const expected = size - start;
  let skip = 0;
  const refuse = async (error) => {
    await response.body?.cancel().catch(() => {});
    throw error;
  };
  if (response.status === 206) {
    const range = response.headers.get('content-range');
    const parts = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range ?? '');
    if (range === null)
      return refuse(
        new HttpError(
          'cors',
          `the server answered the Range request for ${fileNameOf(url)} but hides its Content-Range: it must send Access-Control-Expose-Headers: Content-Range, Content-Length`,
          206,
        ),
      );
    if (!parts)
      return refuse(
        new HttpError(
          'no-range',
          `the server sent Content-Range: ${range} for bytes ${start}– of ${fileNameOf(url)}, which this page cannot read`,
          206,
        ),
      );
    const [first, last, total] = parts.slice(1).map(Number);
    if (total !== size) return refuse(changed(url, `it is ${total} bytes now, ${size} when it was opened`));
    if (first !== start || last !== size - 1)
      return refuse(changed(url, `asked for bytes ${start}–${size - 1}, the server sent ${first}–${last}`));
  } else {
    // 200: a server that ignores Range sends the whole file; its old header is skipped as it comes.
    const length = response.headers.get('content-length');
    if (length !== null && Number(length) !== size)
      return refuse(changed(url, `it is ${length} bytes now, ${size} when it was opened`));
    skip = start;
  }
  if (changedSince(validator, response))
    return refuse(changed(url, 'its ETag or Last-Modified is not the one the header was read with'));

  const reader = response.body.getReader();
  let received = 0; // of the data section
  let buffer = null;
  let filled = 0;
  const flush = async () => {
    if (filled === 0) return;
    const full = buffer.subarray(0, filled);
    buffer = null;
    filled = 0;
    await write(full);
  };
  try {
    for (;;) {
      let chunk;
      try {
        const next = await reader.read();
        if (next.done) break;
        chunk = next.value;
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        throw new HttpError(
          'interrupted',
          `the download of ${fileNameOf(url)} broke off after ${received} of the data section's ${expected} bytes: ${e.message}`,
          response.status,
        );
      }
      if (skip > 0) {
        const n = Math.min(skip, chunk.length);
        chunk = chunk.subarray(n);
        skip -= n;
      }
      if (received + chunk.length > expected) {
        throw new UrlSaveError(
          'long',
          `the server sent more than the ${expected} bytes of ${fileNameOf(url)}'s data section (at least ${received + chunk.length}): the file on the server is not the one opened`,
          { expected, received: received + chunk.length },
        );
      }
      received += chunk.length;
      while (chunk.length > 0) {
        if (filled === 0 && chunk.length >= chunkSize) {
          await write(chunk);
          break;
        }
        buffer ??= new Uint8Array(chunkSize);
        const n = Math.min(chunk.length, chunkSize - filled);
        buffer.set(chunk.subarray(0, n), filled);
        filled += n;
        chunk = chunk.subarray(n);
        if (filled === chunkSize) await flush();
      }
    }
    if (skip > 0 || received < expected) {
      throw new UrlSaveError(
        'short',
        `the download of ${fileNameOf(url)} ended after ${received} of its data section's ${expected} bytes${skip > 0 ? ` (and ${skip} bytes before it were missing)` : ''}: the file on the server is not the one opened, or the connection was cut`,
        { expected, received },
      );
    }
    await flush();
    return response.status === 206 ? 0 : start;
  } catch (e) {
    reader.cancel().catch(() => {});
    throw e;
  }
}
