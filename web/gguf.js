// The package's API for a page that wants the figures without the viewer: `open(fileOrUrl)`
// reads a model's header in a Web Worker of its own and resolves its report, the document
// `ggufscope info --json` prints; `edit(file, edits)` (edit.js) resolves a copy of a file with
// its metadata changed, as a Blob; `compare(a, b)` (compare.js) resolves what differs between two
// models, the document `ggufscope diff --json` prints (with `--values`' figures when asked);
// `upstream(file, source)` (upstream.js) checks a file against its upstream configuration, the
// document `ggufscope upstream --json` prints; `fit(fileOrReport, options)` resolves the buffers
// llama.cpp allocates to run the model with llama-server's options, the `memory` document of
// `ggufscope info --json`; `tokenize(file, text)` (tokenize.js) resolves the token ids llama.cpp
// gives a text. Each runs its wasm module in a Web Worker (under
// Node, a worker_threads worker). No DOM, no globals.
//
//   import { compare, edit, open } from './web/gguf.js';
//   const report = await open('https://…/model-00001-of-00003.gguf');
//   report.parameters, report.architecture, report.split?.missing, …
//   const fixed = await edit(file, [{ set: 'tokenizer.ggml.eos_token_id', value: 106 }]);
//   const diff = await compare(file, fixed); // diff.metadata.changed[0].key
//   const memory = await fit(report, { ctx: 8192, ctk: 'q8_0', ctv: 'q8_0' }); // memory.total

import { GgufClient, prewarm } from './gguf-client.js';

// The first open() finds the worker started and its parser compiled, in the page's idle time.
prewarm();

/**
 * `edit(file, edits)`: a copy of `file` with its metadata changed — a new header, then the
 * input's tensor data, never read — as a Blob; `editWithChanges` resolves the changes made too.
 * They read and decode only the header, in a worker (with gguf-core's writer in a wasm module of
 * its own, web/pkg-edit, fetched on the first edit). `editSession(file)` decodes a header once to
 * check edits against as they are made. See edit.js.
 */
export { edit, editSession, editWithChanges } from './edit.js';

/**
 * `compare(a, b)`: what differs between two models' headers (summary, metadata, tensor infos), as
 * `ggufscope diff --json` prints it, and with `{values: true}` the error of B's tensor values
 * against A's, as `--values` adds it; in a worker, with gguf-diff in a wasm module of its own
 * (web/pkg-diff, fetched on the first compare) and the values decoded by the dequantizers' SIMD
 * build where the browser has one; `Comparison` is the same in steps, its values measured on
 * demand. See compare.js.
 */
export { Comparison, compare } from './compare.js';

/**
 * `upstream(file, source)`: the file's metadata checked against its upstream repository's
 * config.json, tokenizer_config.json, generation_config.json and chat template (a base URL, or
 * their texts or Files), as `ggufscope upstream --json` prints it; only the header is read, in a
 * worker, with gguf-upstream in a wasm module of its own (web/pkg-upstream, fetched on the first
 * check). See upstream.js.
 */
export { fetchUpstream, upstream, upstreamRepositories } from './upstream.js';

/**
 * `tokenize(file, text)`: the token ids llama.cpp's tokenizer gives `text` for the file, as
 * `ggufscope tokenize --json` prints them (`{ids, pieces, count}`); `detokenize(file, ids)` the
 * text of ids. Only the header is read, in a worker, with gguf-tokenizer in a wasm module of its
 * own (web/pkg-tokenizer, fetched on the first call). See tokenize.js.
 */
export { detokenize, tokenize } from './tokenize.js';

/**
 * Reads the header of a File or Blob, of several (the shards of a split model, as one model), or
 * of a URL (relative to the page; one shard's URL brings its siblings). Resolves the report, with
 * what the file holds beyond its kind and can do (`capabilities`, `adapter`, `imatrix`, `mmproj`,
 * `control_vector`) and the buffers llama.cpp allocates with llama-server's defaults as its
 * `memory` (see `fit()`), as `ggufscope info --json` gives them;
 * rejects, in the one error shape `{code, message, offset, context}`, with a ParseError when the
 * model cannot be read (`code` as docs/json.md's "Errors" lists: `not-gguf`, `truncated`,
 * `not-found`, …), or a ParserFailure (an Error with `code` 'stalled', 'out-of-memory' or
 * 'crashed', offset and context null) when reading it made the parser fail.
 * @param {Blob|Blob[]|string|URL} fileOrUrl
 * @param {{onProgress?: (stats: import('./protocol.js').ReadStats) => void}} [options]
 * @returns {Promise<import('./protocol.js').Report>}
 */
export async function open(fileOrUrl, { onProgress } = {}) {
  const client = new GgufClient();
  try {
    const report = await read(client, fileOrUrl, onProgress);
    sources.set(report, fileOrUrl);
    Object.assign(report, await client.describe());
    try {
      report.memory = await client.fit();
    } catch (e) {
      // A model whose buffers the header cannot size has no `memory`, as in the CLI's report.
      if (e?.code !== 'invalid-request') throw e;
    }
    return report;
  } finally {
    client.close();
    prewarm(); // for the next call
  }
}

/** The source each report `open()` resolved was read from, for `fit(report)`. */
const sources = new WeakMap();

/**
 * The buffers llama.cpp allocates to run a model with llama-server's `options` (each absent: its
 * default; `ctx` 0: the model's trained context): the `memory` document `ggufscope info --json`
 * prints with the same options, computed by the same core code. The model is a File, Blob, shards
 * or URL as {@link open} takes, or a report `open()` resolved (its header is read again, in a
 * worker of its own). Rejects as `open()` does, and with an Error saying why llama.cpp would
 * refuse the options (a quantized V cache without flash attention, say).
 * @param {Blob|Blob[]|string|URL|import('./protocol.js').Report} fileOrReport
 * @param {import('./protocol.js').FitOptions} [options]
 */
export async function fit(fileOrReport, options = {}) {
  const source = (typeof fileOrReport === 'object' && sources.get(fileOrReport)) || fileOrReport;
  const model = source instanceof Blob || Array.isArray(source) || typeof source === 'string' || source instanceof URL;
  if (!model) throw new TypeError('fit() takes a model (a File, Blob, shards or URL) or a report that open() resolved');
  const client = new GgufClient();
  try {
    await read(client, source);
    return await client.fit(options);
  } finally {
    client.close();
    prewarm();
  }
}

/** Reads `fileOrUrl` in `client`, resolving its report. */
async function read(client, fileOrUrl, onProgress = undefined) {
  const files = fileOrUrl instanceof Blob || Array.isArray(fileOrUrl);
  const { report } = files
    ? await client.open(fileOrUrl, onProgress)
    : await client.openUrl(new URL(fileOrUrl, globalThis.document?.baseURI ?? location.href), onProgress);
  return report;
}
