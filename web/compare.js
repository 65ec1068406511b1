// Comparing two GGUF models in JavaScript: `compare(a, b)` resolves what differs between their
// headers — the summary side by side, metadata keys added, removed and changed, tensor infos
// added, removed and changed — as the document `ggufscope diff --json` prints; with
// `{values: true}` (or a list of tensor names) also the error of B's tensor values against A's,
// as `--values` adds it. A model is a file, a URL (read with Range requests), or the shards of a
// split model (an array of files), compared as one.
//
// The comparison, the value statistics and the JSON are gguf-diff's, in a wasm module of its own
// (web/pkg-diff, gguf-diff-wasm) fetched on the first compare, so the viewer's parser does not
// carry them. Plain JS with no DOM: it runs in a page, a worker, and under Node.
//
//   import { compare } from './web/gguf.js';
//   const diff = await compare(fileA, fileB, { values: true });
//   diff.same, diff.metadata.changed, diff.tensors.added, diff.values[0].rmse, …

import { feedFrom, readSlice } from './blob-read.js';
import { HttpBlob, fileNameOf } from './http-blob.js';
import { urlSources } from './url-sources.js';
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
    const bytes = wasm.protocol === 'file:' ? await (await import(/* webpackIgnore: true */ 'node:fs/promises')).readFile(wasm) : wasm;
    const { memory } = await glue.default({ module_or_path: bytes });
    return { glue, memory, maxMemory: glue.maxMemory() };
  })().catch((e) => {
    loading = null; // the next compare tries again
    throw Object.assign(new Error(`the comparison module could not be loaded: ${e.message}`, { cause: e }), { code: 'not-loaded', offset: null, context: null });
  });
  return loading;
}

/**
 * Runs `work` against the module; a trap of it (WebAssembly.RuntimeError) becomes an Error named
 * `CompareFailure`, and the next compare loads a fresh instance: a trapped module is never called
 * again, not even to free.
 */
async function guarded(module, work) {
  try {
    return await work();
  } catch (e) {
    if (!(e instanceof WebAssembly.RuntimeError)) throw e;
    if (loading && (await loading.catch(() => null)) === module) loading = null;
    module.trapped = true;
    const { describeCrash } = await import('./failures.js');
    const { code, message } = describeCrash(e, module);
    throw Object.assign(new Error(`the comparison module crashed (${message}); the next compare starts a fresh one`, { cause: e }), { name: 'CompareFailure', code, offset: null, context: null });
  }
}

/**
 * Two models read and compared, their tensor values measured on demand: what the page's Compare
 * panel holds while it is open. `compare()` is this opened, measured and closed at once.
 */
export class Comparison {
  /**
   * Reads the headers of `a` (the reference) and `b` and compares them.
   *
   * Rejects with a ParseError (`{message, offset, context}`, and `file`: 'a' or 'b') when a file
   * is not a GGUF file or cannot be read, with an HttpError (http-blob.js) when a URL cannot be
   * opened, with an Error when the module cannot be loaded, and with an Error named
   * `CompareFailure` (`code` 'out-of-memory' or 'crashed', as failures.js says; `offset` and
   * `context` null) when the module trapped.
   *
   * @param {Blob|Blob[]|URL|string} a  A File or Blob (or a look-alike: `size` and
   *   `slice(start, end).arrayBuffer()`), the shards of a split model (an array of them, any
   *   order, named by their `name`), or a URL (relative to the page) read with Range requests
   *   (a shard's URL brings its siblings, as the viewer opens it).
   * @param {Blob|Blob[]|URL|string} b
   * @param {{names?: [string, string]}} [options]  What to call A and B in the document (`a` and
   *   `b`): by default a File's `name` (the first shard's) or a URL's file name, else 'a' and 'b'.
   * @returns {Promise<Comparison>}
   */
  static async open(a, b, { names = [nameOf(a, 'a'), nameOf(b, 'b')] } = {}) {
    const module = await diffModule();
    const { glue } = module;
    const sides = [];
    const headers = [];
    try {
      return await guarded(module, async () => {
        for (const [source, side] of [[a, 'a'], [b, 'b']]) {
          const files = await filesOf(source, glue, names[side === 'a' ? 0 : 1]);
          sides.push(files);
          for (const { blob } of files) {
            const header = new glue.GgufHeader(blob.size);
            headers.push(header);
            await feedFrom(header, blob).catch((e) => {
              throw e instanceof WebAssembly.RuntimeError ? e : Object.assign(e, { file: side });
            });
          }
        }
        // The constructor takes the headers (and frees them), whatever it answers.
        const taken = headers.splice(0);
        const [na, nb] = [sides[0].length, sides[1].length];
        const shardNames = (files) => files.map((f) => f.name);
        const inner = new glue.Comparison(names[0], taken.slice(0, na), shardNames(sides[0]), names[1], taken.slice(na, na + nb), shardNames(sides[1]));
        return new Comparison(module, inner, sides);
      });
    } finally {
      if (!module.trapped) for (const h of headers) h.free();
      // A server that ignores Range stops sending: its file's values then cannot be read (its
      // HttpBlob says so); one that honours Range is asked again for each slice.
      for (const files of sides) for (const { blob } of files) if (blob instanceof HttpBlob) blob.close();
    }
  }

  /** Use {@link Comparison.open}. */
  constructor(module, inner, sides) {
    this.module = module;
    this.inner = inner;
    /** Each side's files by name: `[Map<name, Blob>, Map<name, Blob>]`. */
    this.files = sides.map((files) => new Map(files.map((f) => [f.name, f.blob])));
    /**
     * The pairs whose values can be compared — every tensor in both with the same shape, in A's
     * order —: `{name, type_a, type_b, n, shard_a, shard_b, bytes_a, bytes_b}`.
     * @type {{name: string, type_a: string, type_b: string, n: number, shard_a: string, shard_b: string, bytes_a: number, bytes_b: number}[]}
     */
    this.pairs = inner.pairs();
  }

  /**
   * The document `ggufscope diff --json` prints (figures above 2^53 stay BigInt); with `values`,
   * as with `--values`, the pairs measured so far (in A's order) in `values` and `layers`.
   */
  document({ values = false } = {}) {
    this.#live();
    return safeNumbers(this.inner.document(values));
  }

  /**
   * Measures the values of `which` — every pair (`true`) or the pairs of these tensor names —,
   * each read in slices of 2^20 values of A then of B (gguf_diff::ValuePairs: memory stays
   * bounded), only those tensors' bytes; a pair measured before is measured again. Resolves
   * `{values, layers}` of every pair measured so far, as the document has them.
   *
   * Rejects with an Error naming a tensor that is not in both with one shape, or whose type cannot
   * be decoded; a ParseError (`file` 'a' or 'b') for a read that fails; the signal's reason when
   * cancelled (the pairs measured until then are kept); a `CompareFailure` when the module trapped.
   *
   * @param {true|string[]} which
   * @param {{signal?: AbortSignal, onProgress?: (p: {pairs: number, done: number, name: string, bytesRead: number, bytesTotal: number}) => void}} [options]
   *   `onProgress` is called before each pair and after each read.
   */
  async measure(which, { signal, onProgress } = {}) {
    this.#live();
    const indexes = which === true ? this.pairs.map((_, i) => i) : which.map((name) => this.#pairIndex(name));
    const bytesTotal = indexes.reduce((sum, i) => sum + this.pairs[i].bytes_a + this.pairs[i].bytes_b, 0);
    let bytesRead = 0;
    await guarded(this.module, async () => {
      for (const [done, i] of indexes.entries()) {
        const progress = () => onProgress?.({ pairs: indexes.length, done, name: this.pairs[i].name, bytesRead, bytesTotal });
        progress();
        this.#live(); // close() may have come while reading
        const values = this.inner.values(i);
        try {
          for (let read = values.nextRead(); read; read = values.nextRead()) {
            signal?.throwIfAborted();
            this.#live();
            const side = read.which === 'a' ? 0 : 1;
            const blob = this.files[side].get(read.shard);
            const bytes = await readSlice(blob, read.offset, read.offset + read.length).catch((e) => {
              throw Object.assign(e, { file: read.which });
            });
            signal?.throwIfAborted();
            values.feed(bytes);
            bytesRead += bytes.length;
            progress();
          }
        } catch (e) {
          if (!(e instanceof WebAssembly.RuntimeError)) values.free();
          throw e;
        }
        this.#live();
        this.inner.record(values); // takes `values`
      }
    });
    return this.measuredValues();
  }

  /** `{values, layers}` of every pair measured so far (in A's order), as the document has them. */
  measuredValues() {
    this.#live();
    return safeNumbers(this.inner.measuredValues());
  }

  /** Whether {@link Comparison#close} was called. */
  get closed() {
    return this.inner === null;
  }

  /** Frees the comparison; it cannot be used afterwards. */
  close() {
    if (this.inner && !this.module.trapped) this.inner.free();
    this.inner = null;
  }

  #live() {
    if (!this.inner) throw new Error('this comparison is closed');
    if (this.module.trapped) throw Object.assign(new Error('the comparison module crashed before: compare again'), { name: 'CompareFailure', code: 'crashed', offset: null, context: null });
  }

  #pairIndex(name) {
    const i = this.pairs.findIndex((p) => p.name === name);
    if (i >= 0) return i;
    const { tensors } = this.inner.document(false);
    const named = (list) => list.some((t) => t.name === name);
    if (named(tensors.changed)) throw new Error(`tensor "${name}" has another shape in each model`);
    const where = named(tensors.removed) ? 'B' : named(tensors.added) ? 'A' : 'either model';
    throw new Error(`no tensor named "${name}" in ${where}`);
  }
}

/**
 * Compares `a` (the reference) and `b`, and resolves `ggufscope diff --json`'s document: `{a, b,
 * same, differences, summary: [{field, a, b, differs}], metadata: {added, removed, changed},
 * tensors: {added, removed, changed, same}}`, and with `values` as with `--values`: `values:
 * [{name, n, rmse, max_abs, cosine, snr_db, type_a, type_b, …}]` and `layers` (the README's
 * "Diff" section documents it; figures above 2^53 stay BigInt).
 *
 * Runs on the calling thread. Without `values` only the headers are read, never tensor data; with
 * it, only the compared tensors' bytes, a slice at a time. Rejects as {@link Comparison.open} and
 * {@link Comparison#measure} do.
 *
 * @param {Blob|Blob[]|URL|string} a  See {@link Comparison.open}.
 * @param {Blob|Blob[]|URL|string} b
 * @param {{names?: [string, string], values?: boolean|string[], signal?: AbortSignal, onProgress?: Function}} [options]
 *   `values`: `true` for every tensor in both with the same shape, or a list of names;
 *   `signal` and `onProgress` as {@link Comparison#measure} takes them.
 * @returns {Promise<object>}
 */
export async function compare(a, b, { names, values = false, signal, onProgress } = {}) {
  const comparison = await Comparison.open(a, b, names && { names });
  try {
    if (values) await comparison.measure(values, { signal, onProgress });
    return comparison.document({ values: Boolean(values) });
  } finally {
    comparison.close();
  }
}

const isUrl = (source) => typeof source === 'string' || source instanceof URL;

/** What to call `source` by default: a URL's file name, a File's name (the first shard's), else `fallback`. */
function nameOf(source, fallback) {
  if (isUrl(source)) return fileNameOf(String(source));
  return (Array.isArray(source) ? source[0]?.name : source.name) ?? fallback;
}

/**
 * The files of `source`, `[{name, blob}]`: a URL opened (a Range request for the module's first
 * read), with its sibling shards when it is one (url-sources.js: as the viewer opens a URL); a
 * Blob, or an array of them (shards), each named by its `name` (else by `model`, the model's name,
 * and its place), the names made distinct (a split model's shards are known by name; errors about
 * a tensor's bytes name its file).
 */
async function filesOf(source, glue, model) {
  if (isUrl(source)) {
    const url = new URL(source, globalThis.document?.baseURI ?? globalThis.location?.href);
    return urlSources(url, { siblings: glue.shardNames, prefetch: glue.firstRead() });
  }
  const blobs = [source].flat();
  if (blobs.length === 0) throw new Error('no file to compare: an empty list');
  const seen = new Set();
  return blobs.map((blob, i) => {
    let name = blob.name ?? (blobs.length === 1 ? model : `${model} (file ${i + 1})`);
    if (seen.has(name)) name = `${name} (${i + 1})`;
    seen.add(name);
    return { name, blob };
  });
}
