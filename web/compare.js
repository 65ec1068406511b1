// Comparing two GGUF files in JavaScript: `compare(a, b)` resolves what differs between their
// headers — the summary side by side, metadata keys added, removed and changed, tensor infos
// added, removed and changed — as the document `ggufscope diff --json` prints (without
// `--values`: comparing tensor values is the CLI's for now). Only the two headers are read: of a
// URL, with Range requests.
//
// The comparison and its JSON are gguf-diff's, in a wasm module of its own (web/pkg-diff,
// gguf-diff-wasm) fetched on the first compare, so the viewer's parser does not carry them. Plain
// JS with no DOM: it runs in a page, a worker, and under Node.
//
//   import { compare } from './web/gguf.js';
//   const diff = await compare(fileA, fileB);
//   diff.same, diff.metadata.changed, diff.tensors.added, …

import { feedFrom } from './blob-read.js';
import { HttpBlob, fileNameOf } from './http-blob.js';
import { safeNumbers } from './numbers.js';

/** The module, being loaded or loaded: `{glue, memory, maxMemory}`, the glue's exports initialised. */
let loading = null;
/** How many instances were loaded: a module that trapped is replaced by a fresh instance. */
let instances = 0;

/**
 * The comparison module (web/pkg-diff), fetched on first use. Under Node (a `file:` URL) its
 * bytes are read from disk, as `fetch` reads no files there.
 */
function diffModule() {
  loading ??= (async () => {
    // A query makes a fresh instance of the glue and its module after one trapped.
    const glue = await import(instances++ ? `./pkg-diff/gguf_diff_wasm.js?instance=${instances}` : './pkg-diff/gguf_diff_wasm.js');
    const wasm = new URL('./pkg-diff/gguf_diff_wasm_bg.wasm', import.meta.url);
    const bytes = wasm.protocol === 'file:' ? await (await import('node:fs/promises')).readFile(wasm) : wasm;
    const { memory } = await glue.default({ module_or_path: bytes });
    return { glue, memory, maxMemory: glue.maxMemory() };
  })().catch((e) => {
    loading = null; // the next compare tries again
    throw new Error(`the comparison module could not be loaded: ${e.message}`, { cause: e });
  });
  return loading;
}

/**
 * Compares the headers of `a` (the reference) and `b`, and resolves `ggufscope diff --json`'s
 * document: `{a, b, same, differences, summary: [{field, a, b, differs}], metadata: {added,
 * removed, changed}, tensors: {added, removed, changed, same}}` (the README's "Diff" section
 * documents it; figures above 2^53 stay BigInt). Each file is taken alone: a shard of a split
 * model is compared as one file.
 *
 * Runs on the calling thread and reads only the two headers, never tensor data. Rejects with a
 * ParseError (`{message, offset, context}`, and `file`: 'a' or 'b') when a file is not a GGUF
 * file or cannot be read, with an HttpError (http-blob.js) when a URL cannot be opened, with an
 * Error when the module cannot be loaded, and with an Error named
 * `CompareFailure` (`kind` 'out-of-memory' or 'crashed', as failures.js says) when the module
 * trapped; the next compare then starts a fresh instance.
 *
 * @param {Blob|URL|string} a  A File or Blob (or a look-alike: `size` and
 *   `slice(start, end).arrayBuffer()`), or a URL (relative to the page) read with Range requests.
 * @param {Blob|URL|string} b
 * @param {{names?: [string, string]}} [options]  What to call A and B in the document (`a` and
 *   `b`): by default a File's `name` or a URL's file name, else 'a' and 'b'.
 * @returns {Promise<object>}
 */
export async function compare(a, b, { names = [nameOf(a, 'a'), nameOf(b, 'b')] } = {}) {
  const module = await diffModule();
  const { glue } = module;
  const made = [];
  const opened = [];
  try {
    for (const [source, side] of [[a, 'a'], [b, 'b']]) {
      const file = isUrl(source) ? await HttpBlob.open(new URL(source, globalThis.document?.baseURI ?? globalThis.location?.href), { prefetch: glue.firstRead() }) : source;
      if (file !== source) opened.push(file);
      const header = new glue.GgufHeader(file.size);
      made.push(header);
      await feedFrom(header, file).catch((e) => {
        throw e instanceof WebAssembly.RuntimeError ? e : Object.assign(e, { file: side });
      });
    }
    // compare() takes both headers (and frees them), whatever it answers.
    const [ha, hb] = made.splice(0);
    return safeNumbers(glue.compare(ha, names[0], hb, names[1]));
  } catch (e) {
    if (!(e instanceof WebAssembly.RuntimeError)) throw e;
    // A trapped module is never called again, not even to free: the next compare loads a fresh one.
    made.length = 0;
    loading = null;
    const { describeCrash } = await import('./failures.js');
    const { kind, message } = describeCrash(e, module);
    throw Object.assign(new Error(`the comparison module crashed (${message}); the next compare starts a fresh one`, { cause: e }), { name: 'CompareFailure', kind });
  } finally {
    for (const m of made) m.free();
    for (const blob of opened) blob.close(); // a server that ignores Range stops sending
  }
}

const isUrl = (source) => typeof source === 'string' || source instanceof URL;

/** What to call `source` by default: a URL's file name, a File's name, else `fallback`. */
function nameOf(source, fallback) {
  return isUrl(source) ? fileNameOf(String(source)) : (source.name ?? fallback);
}
