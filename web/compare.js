// Comparing two GGUF models in JavaScript: `compare(a, b)` resolves what differs between their
// headers — the summary side by side, metadata keys added, removed and changed, tensor infos
// added, removed and changed — as the document `ggufscope diff --json` prints; with
// `{values: true}` (or a list of tensor names) also the error of B's tensor values against A's,
// as `--values` adds it. A model is a file, a URL (read with Range requests), or the shards of a
// split model (an array of files), compared as one.
//
// The comparison and the JSON are gguf-diff's, in a wasm module of its own (web/pkg-diff, the
// diff module), and the values are compared by the values module (web/pkg-values-simd where the
// browser runs wasm SIMD, as a peek's are): both run in a worker (GgufClient.shared(),
// tools.js: under its watchdog, off the page's thread), fetched on the first compare, so the
// viewer's parser does not carry them. Plain JS with no DOM: it runs in a page, a worker, and
// under Node.
//
//   import { compare } from './web/gguf.js';
//   const diff = await compare(fileA, fileB, { values: true });
//   diff.same, diff.metadata.changed, diff.tensors.added, diff.values[0].rmse, …

import { GgufClient } from './gguf-client.js';
import { fileNameOf } from './http-blob.js';
import { Request } from './protocol.js';

/**
 * A model to compare: a File or Blob (or a look-alike), a split model's shards, a URL, or a
 * GgufClient's OpenedModel (see {@link Comparison.open}).
 * @typedef {import('./gguf.js').BlobLike|Blob[]|URL|string|import('./gguf-client.js').OpenedModel} Source
 */

/**
 * Two models read and compared, their tensor values measured on demand: what the page's Compare
 * panel holds while it is open. `compare()` is this opened, measured and closed at once. The
 * comparison itself lives in the worker; this holds what it answered.
 */
export class Comparison {
  #client;
  #handle;
  #remotes;
  #generation;
  #document;
  #valuesDocument;
  #measured;
  #closed = false;

  /**
   * Reads the headers of `a` (the reference) and `b` and compares them.
   *
   * Rejects with a ParseError (`{message, offset, context}`, and `file`: 'a' or 'b') when a file
   * is not a GGUF file or cannot be read, with an HttpError (http-blob.js) when a URL cannot be
   * opened, with a ParseError `not-loaded` when the module cannot be loaded, and with a
   * ParserFailure (`code` 'stalled', 'out-of-memory' or 'crashed', as failures.js says; `offset`
   * and `context` null) when the module was stopped.
   *
   * @param {Source} a  A File or Blob (or a look-alike: `size` and
   *   `slice(start, end).arrayBuffer()`), the shards of a split model (an array of them, any
   *   order, named by their `name`), or a URL (relative to the page) read with Range requests
   *   (a shard's URL brings its siblings, as the viewer opens it). (Also a GgufClient's
   *   OpenedModel — the viewer's model —, whose headers are taken as the viewer read them:
   *   nothing is read or requested again.)
   * @param {Source} b
   * @param {{names?: [string, string], client?: GgufClient}} [options]  What to call A and B in
   *   the document (`a` and `b`): by default a File's `name` (the first shard's) or a URL's file
   *   name, else 'a' and 'b'; the client whose worker runs it (GgufClient.shared()).
   * @returns {Promise<Comparison>}
   */
  static async open(a, b, { names = [nameOf(a, 'a'), nameOf(b, 'b')], client = GgufClient.shared() } = {}) {
    const sources = { a: filesOf(a, names[0]), b: filesOf(b, names[1]) };
    const opened = await client.request(Request.compare, { names }, { sources, keep: true });
    return new Comparison(client, opened);
  }

  /** Use {@link Comparison.open}. */
  constructor(client, { handle, remotes, pairs, document, valuesPart }) {
    const valuesDocument = { ...document, ...valuesPart };
    this.#client = client;
    this.#handle = handle;
    this.#remotes = remotes;
    this.#generation = client.generation;
    this.#document = document;
    this.#valuesDocument = valuesDocument;
    this.#measured = { values: valuesDocument.values, layers: valuesDocument.layers };
    /**
     * The pairs whose values can be compared — every tensor in both with the same shape, in A's
     * order —: `{name, type_a, type_b, n, shard_a, shard_b, bytes_a, bytes_b}`.
     * @type {{name: string, type_a: string, type_b: string, n: number, shard_a: string, shard_b: string, bytes_a: number, bytes_b: number}[]}
     */
    this.pairs = pairs;
  }

  /**
   * The document `ggufscope diff --json` prints (figures above 2^53 stay BigInt); with `values`,
   * as with `--values`, the pairs measured so far (in A's order) in `values` and `layers`.
   */
  document({ values = false } = {}) {
    this.#live();
    return values ? this.#valuesDocument : this.#document;
  }

  /**
   * Measures the values of `which` — every pair (`true`) or the pairs of these tensor names —,
   * each read in slices of 2^20 values of A then of B (gguf_diff::ValuePairs: memory stays
   * bounded), only those tensors' bytes; a pair measured before is measured again. Resolves
   * `{values, layers}` of every pair measured so far, as the document has them.
   *
   * Rejects with an Error naming a tensor that is not in both with one shape, or whose type cannot
   * be decoded; a ParseError (`file` 'a' or 'b') for a read that fails; the signal's reason when
   * cancelled (the pairs measured until then are kept); a ParserFailure when the module was stopped.
   *
   * @param {true|string[]} which
   * @param {{signal?: AbortSignal, onProgress?: (p: {pairs: number, done: number, name: string, bytesRead: number, bytesTotal: number}) => void}} [options]
   *   `onProgress` is called before each pair and after each read.
   */
  async measure(which, { signal, onProgress } = {}) {
    this.#live();
    const pairs = which === true ? this.pairs.map((_, i) => i) : which.map((name) => this.#pairIndex(name));
    const progress = (p) => {
      if (p.measured) this.#measured = p.measured;
      if (p.valuesPart) this.#valuesDocument = { ...this.#document, ...p.valuesPart };
      if (!p.final)
        onProgress?.({ pairs: p.pairs, done: p.done, name: p.name, bytesRead: p.bytesRead, bytesTotal: p.bytesTotal });
    };
    const result = await this.#client.request(
      Request.measure,
      { handle: this.#handle, pairs },
      { signal, onProgress: progress },
    );
    this.#measured = { values: result.values, layers: result.layers };
    this.#valuesDocument = { ...this.#document, ...result.valuesPart };
    return this.measuredValues();
  }

  /** `{values, layers}` of every pair measured so far (in A's order), as the document has them. */
  measuredValues() {
    this.#live();
    return this.#measured;
  }

  /** Whether {@link Comparison#close} was called. */
  get closed() {
    return this.#closed;
  }

  /** Frees the comparison; it cannot be used afterwards. */
  close() {
    if (!this.#closed && this.#generation === this.#client.generation) this.#client.free(this.#handle, this.#remotes);
    this.#closed = true;
  }

  #live() {
    if (this.#closed) throw new Error('this comparison is closed');
    this.#client.live(this.#generation, 'comparison');
  }

  #pairIndex(name) {
    const i = this.pairs.findIndex((p) => p.name === name);
    if (i >= 0) return i;
    const { tensors } = this.#document;
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
 * [{name, n, rmse, max_abs, cosine, snr_db, type_a, type_b, …}]` and `layers` (docs/json.md's
 * "The diff document" documents it; figures above 2^53 stay BigInt).
 *
 * Runs in a worker. Without `values` only the headers are read, never tensor data; with it, only
 * the compared tensors' bytes, a slice at a time. Rejects as {@link Comparison.open} and
 * {@link Comparison#measure} do.
 *
 * @param {Source} a  See {@link Comparison.open}.
 * @param {Source} b
 * @param {{names?: [string, string], values?: boolean|string[], signal?: AbortSignal, onProgress?: (p: import('./gguf.js').MeasureProgress) => void, client?: GgufClient}} [options]
 *   `values`: `true` for every tensor in both with the same shape, or a list of names;
 *   `signal` and `onProgress` as {@link Comparison#measure} takes them.
 * @returns {Promise<import('./gguf.js').DiffDocument>}
 */
export async function compare(a, b, { names, values = false, signal, onProgress, client } = {}) {
  const comparison = await Comparison.open(a, b, { ...(names && { names }), ...(client && { client }) });
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
  if (isUrl(source))
    return fileNameOf(String(new URL(source, globalThis.document?.baseURI ?? globalThis.location?.href)));
  if (source?.files) return source.files[0]?.name ?? fallback;
  return (Array.isArray(source) ? source[0]?.name : source.name) ?? fallback;
}

/**
 * The files of `source`, as the worker takes them: a URL as `{url}` (the worker opens it, with its
 * sibling shards when it is one: url-sources.js, as the viewer opens a URL); an OpenedModel's
 * files as they are; a Blob, or an array of them (shards), each named by its `name` (else by
 * `model`, the model's name, and its place), the names made distinct (a split model's shards are
 * known by name; errors about a tensor's bytes name its file).
 */
function filesOf(source, model) {
  if (isUrl(source)) return { url: new URL(source, globalThis.document?.baseURI ?? globalThis.location?.href).href };
  if (source?.files) return source.files;
  const blobs = [source].flat();
  if (blobs.length === 0) throw new Error('no file to compare: an empty list');
  const seen = new Set();
  return blobs.map((blob, i) => {
    let name = blob.name ?? (blobs.length === 1 ? model : `${model} (file ${i + 1})`);
    if (seen.has(name)) name = `${name} (${i + 1})`;
    seen.add(name);
    return { name, file: blob };
  });
}
