// The messages between the page and the worker (gguf-worker.js), shared by both sides and the
// tests: the one protocol every wasm module is reached through. A worker holds at most one model
// (`open`, `open-url`: the viewer's) and any number of objects made by the other modules (an edit
// session, a comparison), named by a `handle`; every request but those is answered by an `answer`
// naming its `request` number. Requests about the model name it by `id`, so that replies about a
// model replaced in the meantime can be recognised and dropped.

/**
 * The worker's name says what the page asks of it — a name, not a query, so that the worker's
 * URL stays one literal that bundlers follow: `gguf`, then `-no-simd` when the page asks for the
 * values module's fallback build, not the SIMD one (`new GgufClient({simd: false})`, the page's
 * `?simd=off`), and `-tools` for a worker that does no viewer's work, which does not load the
 * parser as it starts (`new GgufClient({tools: true})`), and `-watchdog` with the watchdog's
 * budget in ms (`-watchdog10000`): how long the worker waits on a server that sends nothing
 * (http-blob.js).
 * @param {{simd: boolean, tools: boolean, watchdogMs: number}} options
 */
export function workerName({ simd, tools, watchdogMs }) {
  return ['gguf', !simd && NO_SIMD, tools && TOOLS, `${WATCHDOG}${Math.round(watchdogMs)}`].filter(Boolean).join('-');
}

/** The watchdog's budget in ms that a worker's name gives (workerName), or null. */
export function watchdogOf(name) {
  const ms = Number(new RegExp(`-${WATCHDOG}(\\d+)(-|$)`).exec(name)?.[1]);
  return ms > 0 ? ms : null;
}

/** A part of a worker's name (workerName), before the watchdog's budget. */
const WATCHDOG = 'watchdog';

/** A part of a worker's name (workerName): the values module's fallback build. */
export const NO_SIMD = 'no-simd';
/** A part of a worker's name (workerName): no viewer's work. */
export const TOOLS = 'tools';

/** Page → worker. */
export const Request = Object.freeze({
  /**
   * `{type, id, files}`: read the headers of files (`FileRef`s, sources.js: one file, or shards
   * of a split model: one model either way); cancels the model being read.
   */
  open: 'open',
  /** `{type, id, url}`: the same for a URL, read with HTTP Range requests, and its sibling shards. */
  openUrl: 'open-url',
  /** `{type, id, request, kvIndex, start, count}`: elements of one array of file `id`. */
  arrayPage: 'array-page',
  /**
   * `{type, id, request, index, rows, bins, first}`: the values of tensor `index`'s first `rows`
   * rows (null: all), read from the file; cancels the peek before it.
   */
  tensorPeek: 'tensor-peek',
  /** `{type, id}`: stops the running peek (it is not answered). */
  stopPeek: 'stop-peek',
  /**
   * `{type, id, request, options}`: the buffers llama.cpp allocates to run the model with
   * llama-server's `options` (`FitOptions`: ctx, ctk, ctv, flashAttn, parallel, ubatch,
   * kvUnified; absent: its default), the `memory` document of `ggufscope info --json`.
   */
  fit: 'fit',
  /**
   * `{type, id, request, options, devices}`: where llama.cpp would put the model on `devices`
   * (`{ram, gpus}` in bytes) with `fit`'s options: the document of `ggufscope fit --json`.
   */
  plan: 'plan',
  /**
   * `{type, id, request}`: what the file holds beyond its kind and what its model can do — the
   * report's `kind`, `capabilities`, `adapter`, `imatrix`, `mmproj`, `control_vector` —, from the
   * memory module (the viewer's module goes without).
   */
  describe: 'describe',
  /** `{type, id, request}`: the tokenizer panel (`ggufscope tokens --json`). */
  tokenizer: 'tokenizer',
  /** `{type, id, request, query, start, count}`: a page of the tokens containing `query` (all for ''). */
  tokens: 'tokens',
  /** `{type, id, request, text}`: `text` split at the special tokens. */
  splitSpecial: 'split-special',
  /**
   * `{type, id?, request, text}`: the Jinja tokens of template `text`, as the core's lexer cuts it
   * — `{spans, kinds}`: `spans` a Uint32Array of triples `start, end, kind` (UTF-16 indices of
   * `text`, covering it exactly, in order), `kinds` the kinds' names by number. Needs no open file.
   */
  jinjaSpans: 'jinja-spans',
  /**
   * `{type, id, request}`: the open model's files as `FileRef`s with the header bytes read
   * (`head`), so that another worker reads and decodes none of them again (edit, compare,
   * upstream on the model shown).
   */
  heads: 'heads',
  /**
   * `{type, request, file, edits}`: `file` (a `FileRef`) with `edits` made (edit.js): the new
   * header's bytes, checked by reading them back, and the figures (`EditResult`).
   */
  edit: 'edit',
  /** `{type, request, file}`: `file`'s header decoded to check edits against: `{handle}`. */
  editSession: 'edit-session',
  /** `{type, request, handle, edits}`: what the session's `check(edits)` finds. */
  editCheck: 'edit-check',
  /** `{type, request, handle, key}`: string key `key`'s whole value, or undefined. */
  editText: 'edit-text',
  /** `{type, request, key, text}`: the validator's findings on a chat template's text. */
  checkTemplate: 'check-template',
  /**
   * `{type, request, a, b, names}`: two models compared (compare.js; `a` and `b` each a list of
   * `FileRef`s or `{url}`): `{handle, pairs, document, valuesPart}` (tools.js: the document with
   * `--values` but its header parts, which `document` has).
   */
  compare: 'compare',
  /**
   * `{type, request, handle, pairs}`: the values of those pairs (indexes into `pairs`) measured:
   * `progress` replies as it goes, then `{values, layers, valuesPart}`. Cancelled by `cancel`.
   */
  measure: 'measure',
  /** `{type, request, file, fileName, sourceName, texts}`: `file` checked against upstream's texts (upstream.js). */
  upstream: 'upstream',
  /** `{type, request, file}`: the Hugging Face repositories `file` names (gguf_upstream::repositories). */
  repositories: 'repositories',
  /** `{type, request, texts}`: each text in the form the page shows file text in. */
  visible: 'visible',
  /**
   * `{type, id, request, text, parseSpecial, addSpecial}`: `text` tokenized by open model `id`'s
   * tokenizer (built on the first, then kept with the model) — or, with `file` (a `FileRef`) and
   * no `id`, by that file's, built for this request: `ggufscope tokenize --json`'s `Tokens`.
   * With `visible`, each piece in the form the page shows token text in, too (`shown`). With
   * `prompt`, `text` is tokenized as llama-server tokenizes a chat prompt (`parseSpecial` and
   * `addSpecial` ignored).
   */
  tokenize: 'tokenize',
  /** `{type, id, request, ids}` or `{type, request, file, ids}`: the text of token `ids` and their pieces (`Tokens`). */
  detokenize: 'detokenize',
  /**
   * `{type, request, template, chat, addGenerationPrompt, conversation?, kwargs?, now}`: the prompt
   * llama.cpp builds with `template` ('' for none: ChatML) — `chat` the vocabulary's `ChatTokens`,
   * `conversation` and `kwargs` JSON text, `now` seconds since 1970 — `{prompt, template, notes}`.
   */
  render: 'render',
  /** `{type, request, file}`: the bos and eos texts `file`'s (a FileRef's) templates get: `ChatTokens`. */
  templateChat: 'template-chat',
  /** `{type, request, file}`: every chat-template finding of `file` (a FileRef), each with its template line: `TemplateLint[]`. */
  lintTemplates: 'lint-templates',
  /** `{type, handle}`: frees an object a request made (not answered). */
  free: 'free',
  /**
   * `{type, request, seen}`: stops request `request` (a measure): it rejects with an AbortError.
   * `seen` is the `done` of the last `progress` the page had when it stopped it: what the worker
   * did past that is undone, so that the result is the one the page saw.
   */
  cancel: 'cancel',
  /** `{type, read, bytes}` or `{type, read, error}`: the answer to the worker's `read`. */
  bytes: 'bytes',
  /** `{type}`: the watchdog's ping (watchdog.js), answered at once unless the worker's thread is held. */
  ping: 'ping',
});

/** Worker → page. */
export const Reply = Object.freeze({
  /**
   * `{type, id, bytesRead, reads, fileSize}` after each read of the model; `{type, request, done,
   * ...}` as a request (a measure) goes on.
   */
  progress: 'progress',
  /**
   * `{type, id, summary, stats}`: the header is decoded; `summary` has the report's fields that
   * the summary cards show (the same names and values), before the report. Not sent for a split
   * model, whose figures are the whole's.
   */
  summary: 'summary',
  /** `{type, id, report, stats}`: the header is decoded, and this is its report. */
  header: 'header',
  /** `{type, id, error}`: the file could not be read or decoded. */
  error: 'error',
  /** `{type, id, request, result}` or `{type, id, request, error}`: the answer to request `request`. */
  answer: 'answer',
  /**
   * `{type, request, path, items}`: before an `answer`, some items of a long list in its result,
   * at `path` (keys from the result's root), where the answer has an empty list: see {@link inParts}.
   */
  part: 'part',
  /**
   * `{type, request, limitMs}`: request `request` starts a step that may hold the worker for
   * `limitMs` at most (a template's render): past that the page ends the worker.
   */
  started: 'started',
  /**
   * `{type, read, source, start, end}`: the worker asks the page for bytes `start..end` of a
   * file only the page can read (sources.js: a Blob look-alike); answered by `bytes`.
   */
  read: 'read',
  /** `{type}`: the answer to a ping. */
  pong: 'pong',
  /**
   * `{type, id}`: the worker has model `id` to read (`open`, `open-url`), sent as the request
   * comes: its thread is free, so the page keeps it rather than start another.
   */
  reading: 'reading',
  /**
   * `{type, code, message}`: the worker crashed (`code`: 'out-of-memory' or 'crashed'; failures.js)
   * and closed itself: nothing it was asked will be answered.
   */
  crash: 'crash',
});

/**
 * A file that cannot be read or decoded: what went wrong and where. The one shape of every
 * ggufscope error — the wasm modules' (gguf_core::ErrorDocument), `ggufscope validate --json`'s,
 * and the fields an HttpError, ParserFailure or Cancelled has besides being an Error.
 * @typedef {object} ParseError
 * @property {string} code  Stable code (docs/json.md, "Errors"): the core's (`not-gguf`, `truncated`,
 *   `string-too-long`, …) for a malformed file; a reader's (`read-failed`, `file-changed`,
 *   `not-found`, `no-range`, `cors`, …) for a file that cannot be read.
 * @property {string} message  What went wrong, in which key or tensor (no offset).
 * @property {number|null} offset  Absolute byte offset in the file; null when unknown.
 * @property {ErrorContext|null} context  The part of the header being read; null outside it.
 */

/**
 * @typedef {{section: 'header'}
 *   | {section: 'kv', index: number, key: string|null, element: number|null}
 *   | {section: 'tensor', index: number, name: string|null}} ErrorContext
 */

/**
 * How a header was read.
 * @typedef {object} ReadStats
 * @property {number} bytesRead  Bytes read from the file.
 * @property {number} reads  Number of reads: a local file's stream is one, however many chunks it brings.
 * @property {number} fileSize  The file's size.
 * @property {string[]} [notes]  How the files were read, when it matters: redirects, a server that ignores Range.
 */

/**
 * A look at a tensor's values.
 * @typedef {object} TensorPeek
 * @property {{offset: number, length: number, rows: number, typeId: number, bigEndian: boolean}} prefix  The bytes decoded.
 * @property {object} stats  `ggufscope tensor --json`'s `stats`.
 * @property {number} bytesRead  Bytes read from the file for it.
 * @property {number} reads  Number of slices read.
 */

/**
 * The report: the document `ggufscope info --json` prints (field names are the page's
 * `data-field` hooks). Integers up to 2^53 are numbers; larger ones are BigInt.
 * @typedef {Record<string, any>} Report
 */

/**
 * llama-server's options that size its buffers, named as llama.cpp's; each absent for llama-server's
 * default: `ctx` (`-c`: tokens of context for all sequences together; 0: the model's trained
 * context), `ctk`/`ctv` (`-ctk`/`-ctv`: 'f32', 'f16', 'bf16', 'q8_0', 'q4_0', 'q4_1', 'iq4_nl',
 * 'q5_0', 'q5_1'), `flashAttn` (`-fa`: 'on', 'off', 'auto'), `parallel` (`-np`), `ubatch` (`-ub`),
 * `kvUnified` (`--kv-unified`).
 * @typedef {{ctx?: number|bigint, ctk?: string, ctv?: string, flashAttn?: string, parallel?: number, ubatch?: number, kvUnified?: boolean}} FitOptions
 */

/**
 * A Blob, or a File: a Blob that has a name.
 * @typedef {Blob & {name?: string}} NamedBlob
 */

/**
 * A file the read loop reads (read-loop.js): a File or Blob, an HttpBlob (http-blob.js), or a
 * look-alike with `size` and `slice(start, end).arrayBuffer()`. An HttpBlob also says how it was
 * read (`notes`) and stops a download of the whole file (`close()`).
 * @typedef {import('./gguf.js').BlobLike & {close?: () => void, notes?: string[]}} Readable
 */

/**
 * What a failure to load one of the files loaded after the page (the worker, a wasm module, a
 * module imported on demand) says: on the site they are named by their content
 * (scripts/version-lazy-files.mjs), so one that is not there is almost always an old build's,
 * removed by a deploy since this page was loaded.
 */
export const RELOAD_FOR_UPDATE = 'the site may have been updated since this page was loaded: reload the page';

/** @returns {ParseError} */
export function parseError(code, message, offset = null, context = null) {
  return { code, message, offset, context };
}

/**
 * Whether `e` is a {@link ParseError} as a plain object (rather than a bug, a cancellation or
 * another Error with the same fields).
 */
export function isParseError(e) {
  return (
    e !== null &&
    typeof e === 'object' &&
    typeof e.code === 'string' &&
    typeof e.message === 'string' &&
    'offset' in e &&
    !(e instanceof Error)
  );
}

/**
 * `e`, an answer (failures.js `isAnswer`), as a ParseError that can be posted: an HttpError keeps
 * its code; a wasm module's refusal of a request ("there is no tensor #9") is `invalid-request`.
 */
export function asParseError(e) {
  return isParseError(e) ? e : parseError(e.code ?? 'invalid-request', e.message);
}

/**
 * `e`, an answer thrown in the worker, as it can cross to the page and be thrown there again
 * ({@link thrownError}): a plain object (a ParseError, an edit's refusal, a template's render
 * failure) as it is, with its fields; an Error by its class name, message and own fields (`code`,
 * `status`, `file`, …), which a structured clone would drop.
 */
export function postableError(e) {
  if (e instanceof Error) return { error: { ...e, name: e.name, message: e.message } };
  return { plain: { ...e } };
}

/**
 * What the page throws for a posted {@link postableError}: the plain object, or an Error with
 * the same name, message and fields (an HttpError's class is kept: `HttpError` is passed in, as
 * protocol.js imports nothing).
 * @param {{plain?: object, error?: {name: string, message: string, code?: string, status?: number}}} posted
 * @param {{HttpError?: new (code: string, message: string, status?: number) => Error}} [classes]
 */
export function thrownError(posted, { HttpError } = {}) {
  if (posted.plain) return posted.plain;
  const { name, message, ...fields } = posted.error;
  const e = name === 'HttpError' && HttpError ? new HttpError(fields.code, message, fields.status) : new Error(message);
  if (name !== 'Error') Object.defineProperty(e, 'name', { value: name, configurable: true, writable: true });
  return Object.assign(e, fields);
}

/** Items of a list sent in one `part`: the page rebuilds at most this many objects in one task. */
export const PART_ITEMS = 10_000;

/**
 * `value` with every list longer than PART_ITEMS left empty, each given to `send(path, items)`
 * first, PART_ITEMS at a time, `path` the keys that lead to it through plain objects (lists in
 * lists are sent as they are). A message's objects are rebuilt on the receiving thread in one
 * task, so an answer as long as a hostile header makes it (300,000 tensors added) would hold the
 * page for seconds; sent in parts, each is a task of its own. {@link fromParts} puts it together.
 */
export function inParts(value, send, path = []) {
  if (Array.isArray(value)) {
    if (value.length <= PART_ITEMS) return value;
    for (let i = 0; i < value.length; i += PART_ITEMS) send(path, value.slice(i, i + PART_ITEMS));
    return [];
  }
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out = {};
  for (const [key, field] of Object.entries(value)) out[key] = inParts(field, send, [...path, key]);
  return out;
}

/** `value` (an answer's result) with the `parts` ({@link inParts}' `[path, items]`, in order) put back. */
export function fromParts(value, parts) {
  for (const [path, items] of parts) {
    const list = path.reduce((at, key) => at[key], value);
    for (const item of items) list.push(item);
  }
  return value;
}
