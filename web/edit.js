// Metadata edits in JavaScript: `edit(file, edits)` resolves a new file — a new header, then the
// input's tensor data untouched — as a Blob, the way `ggufscope edit` writes one. Only the header
// is read; the data section is put in the result as `file.slice(oldDataOffset)`, never read or
// copied, so a 40 GB file is edited as fast as a 4 MB one and saved as fast as the browser
// writes. Nothing is uploaded.
//
// The rules (types, ranges, refusals, the writer) are gguf-core's, in a wasm module of its own
// (web/pkg-edit, gguf-edit-wasm) that is fetched on the first edit, so the viewer's parser does
// not carry them. Plain JS with no DOM: it runs in a page, a worker, and under Node.
//
//   import { edit } from './web/gguf.js';
//   const blob = await edit(file, [
//     { set: 'tokenizer.chat_template', value: template },
//     { set: 'tokenizer.ggml.eot_token_id', value: 106, type: 'UINT32' },
//     { delete: 'tokenizer.ggml.padding_token_id' },
//   ]);

import { feedFrom } from './blob-read.js';
import { safeNumbers } from './numbers.js';

/**
 * One edit. `{set: KEY, value, type?}` sets KEY's value: in `type` when given, else in the key's
 * own type; a missing key is added (at the end) only when `type` is given. `{delete: KEY}` removes
 * a key (every copy of a duplicated one). Edits apply in order, each seeing those before it.
 *
 * `type` is a type name as the JSON report gives it — `UINT8`, `INT8`, `UINT16`, `INT16`,
 * `UINT32`, `INT32`, `UINT64`, `INT64`, `FLOAT32`, `FLOAT64`, `BOOL`, `STRING` (or the CLI's short
 * forms, `u32`, `str`, any case) — or an array: `{type: 'ARRAY', element_type: 'UINT32'}` (also
 * `type: 'ARRAY', element_type: 'UINT32'` on the edit itself, or `'ARRAY[UINT32]'`).
 *
 * `value` is a number, a BigInt (64-bit integers above 2^53), a boolean, a string, or an array of
 * those. It is read as `ggufscope edit --set` reads its text, in the value's type: a number must
 * fit the type (`300` is not a UINT8; `1.5` is not an integer), a string is parsed for a number
 * type (`'106'` is a UINT32) and taken as is for a STRING, and any value given for a STRING
 * becomes its text (`106` → `"106"`).
 *
 * @typedef {{set: string, value: EditValue | EditValue[], type?: string | {type: 'ARRAY', element_type: string}, element_type?: string}
 *   | {delete: string}} Edit
 * @typedef {number | bigint | boolean | string} EditValue
 */

/**
 * A refused edit: `code` the core's stable id — `alignment` (`general.alignment` would move every
 * tensor), `empty-key`, `no-such-key` (a delete of a missing key, or a set of one without a
 * type), `duplicate-key`, `bad-value` (the value does not fit its type, or the type is unknown),
 * `invalid-utf8`, `too-long-for-v1`, `new-error-finding` (the result would have a validator error
 * the input does not), `syntax` (not an edit object), `write` (the new file does not read back:
 * a bug) —; `key` the key it is about (for `new-error-finding`, the key the finding is about);
 * `message` the reason, starting with the key.
 * @typedef {object} EditError
 * @property {string} code
 * @property {string} key
 * @property {string} message
 */

/**
 * One change made: `ggufscope edit --json`'s `changes[]` — `action` is 'set', 'add' or 'delete',
 * `type` the value's type, `old`/`new` as the report's metadata values (arrays as
 * `{element_type, len, head}`), null where there is none.
 * @typedef {{key: string, action: 'set'|'add'|'delete', type: string, old: any, new: any}} Change
 */

/**
 * What an edit made: the new file, the changes, and `ggufscope edit --json`'s sizes.
 * @typedef {object} Edited
 * @property {Blob} file  The new file: `new Blob([header, input.slice(oldDataOffset)])`.
 * @property {Change[]} changes  One per edit, in order.
 * @property {{before: number, after: number}} header_size  The header's size before padding.
 * @property {{before: number, after: number}} data_offset  Where the tensor data starts.
 * @property {{before: number, after: number}} file_size
 * @property {{bytesRead: number, reads: number}} read  What was read of the input: its header.
 */

/** The module, being loaded or loaded: `{glue, memory, maxMemory}`, the glue's exports initialised. */
let loading = null;
/** How many instances were loaded: a module that trapped is replaced by a fresh instance. */
let instances = 0;

/**
 * The edit module (web/pkg-edit), fetched on first use. Under Node (a `file:` URL) its bytes are
 * read from disk, as `fetch` reads no files there.
 */
function editModule() {
  loading ??= (async () => {
    // A query makes a fresh instance of the glue and its module after one trapped.
    const glue = await import(instances++ ? `./pkg-edit/gguf_edit_wasm.js?instance=${instances}` : './pkg-edit/gguf_edit_wasm.js');
    const wasm = new URL('./pkg-edit/gguf_edit_wasm_bg.wasm', import.meta.url);
    const bytes = wasm.protocol === 'file:' ? await (await import(/* webpackIgnore: true */ 'node:fs/promises')).readFile(wasm) : wasm;
    const { memory } = await glue.default({ module_or_path: bytes });
    return { glue, memory, maxMemory: glue.maxMemory() };
  })().catch((e) => {
    loading = null; // the next edit tries again
    throw Object.assign(new Error(`the edit module could not be loaded: ${e.message}`, { cause: e }), { code: 'not-loaded', offset: null, context: null });
  });
  return loading;
}

/**
 * Edits the metadata of a GGUF file and resolves the new file as a Blob; the input is not
 * changed. See {@link editWithChanges} for the changes made.
 *
 * Runs on the calling thread (unlike `open()`, which reads in a Web Worker): it reads and decodes
 * only the header — a few milliseconds for most models, about 0.2 s for a 262,144-token
 * vocabulary — and never the tensor data.
 *
 * Rejects with an {@link EditError} `{code, key, message}` when an edit is refused (nothing is
 * made then), with a ParseError `{message, offset, context}` (as `open()`) when the input is not a
 * GGUF file or cannot be read, with an Error when the edit module cannot be loaded, and with an
 * Error named `EditFailure` (`code` 'out-of-memory' or 'crashed', as failures.js says; `offset` and `context` null) when the
 * module trapped: a header that needs more than its 512 MiB, or a bug. The next edit then starts
 * a fresh instance of the module.
 *
 * @param {Blob} file  A File or Blob. (Also a Blob look-alike — `size` and `slice(start, end)`
 *   whose slices have `arrayBuffer()`, as the read loop takes —: the result is then a look-alike
 *   too, its header in memory and the rest sliced from `file`.)
 * @param {Edit[]} edits  Applied in order; none gives a copy byte for byte.
 * @returns {Promise<Blob>}
 */
export async function edit(file, edits) {
  return (await editWithChanges(file, edits)).file;
}

/**
 * {@link edit}, resolving what it made: the new file, the changes (for showing `old → new`), and
 * the sizes before and after.
 * @param {Blob} file
 * @param {Edit[]} edits
 * @returns {Promise<Edited>}
 */
export async function editWithChanges(file, edits) {
  const module = await editModule();
  const { glue } = module;
  const made = [];
  let trapped = false;
  try {
    const editor = new glue.GgufEditor(file.size);
    made.push(editor);
    const read = countingReads(file);
    await feedFrom(editor, read.blob);
    const applied = editor.apply(edits);
    // A vocabulary-only file may end before its data offset: then nothing follows the header.
    const start = Math.min(applied.oldDataOffset, file.size);
    const out = join(applied.header, file.slice(start, file.size));
    // The proof: the new file's header, read back by the same decoder from the new file (its
    // header part: the data section is not read), is the one written, with the input's tensors.
    const check = new glue.GgufEditor(out.size);
    made.push(check);
    await feedFrom(check, out, { end: applied.header.length });
    editor.verify(check);
    return {
      file: out,
      changes: safeNumbers(applied.changes),
      header_size: { before: applied.oldHeaderSize, after: applied.headerSize },
      data_offset: { before: applied.oldDataOffset, after: applied.newDataOffset },
      file_size: { before: file.size, after: out.size },
      read: read.stats,
    };
  } catch (e) {
    trapped = e instanceof WebAssembly.RuntimeError;
    throw await failure(e, module);
  } finally {
    if (!trapped) for (const m of made) m.free();
  }
}

/**
 * What to throw for `e`: a trap of the module (out of memory, a bug) as an `EditFailure`, after
 * which the module is never called again, not even to free — the next edit loads a fresh
 * instance —; anything else as it is.
 */
async function failure(e, module) {
  if (!(e instanceof WebAssembly.RuntimeError)) return e;
  loading = null;
  // failures.js's rule for what a trap was (loaded only now: it brings the viewer's glue).
  const { describeCrash } = await import('./failures.js');
  const { code, message } = describeCrash(e, module);
  return Object.assign(new Error(`the edit module crashed (${message}); the next edit starts a fresh one`, { cause: e }), { name: 'EditFailure', code, offset: null, context: null });
}

/**
 * What `check` finds: every refused edit ({@link EditError} and its `index` in the list; each edit
 * is tried after the accepted ones before it), and the findings (as the report's: `code`,
 * `severity`, `message`, and the `key` they are about or null) the result would have that the
 * input has not.
 * @typedef {{refusals: (EditError & {index: number})[], findings: {code: string, severity: string, message: string, key: string|null}[]}} Checked
 */

/**
 * A file's header decoded once, to check edits against while they are being made — an editor
 * shows every refusal and new finding as the user types, before Save. Reads only the header.
 * Call `free()` when done. Rejects as {@link editWithChanges} does.
 * @param {Blob} file
 * `check(edits)` writes and validates the whole new header (a few ms; some 0.3 s for a
 * 262,144-token vocabulary); `checkTemplate(key, text)` gives the validator's findings on one chat
 * template's text alone (microseconds: for checking as the user types); `text(key)` a string
 * value whole.
 * @returns {Promise<{check(edits: Edit[]): Promise<Checked>, checkTemplate(key: string, text: string): Promise<Checked['findings']>, text(key: string): Promise<string|undefined>, free(): void}>}
 */
export async function editSession(file) {
  const module = await editModule();
  const editor = new module.glue.GgufEditor(file.size);
  let gone = false;
  const call = async (fn) => {
    if (gone) throw new Error('this edit session was freed, or its module crashed');
    try {
      return fn();
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) gone = true;
      throw await failure(e, module);
    }
  };
  try {
    await feedFrom(editor, file);
  } catch (e) {
    if (!(e instanceof WebAssembly.RuntimeError)) editor.free();
    throw await failure(e, module);
  }
  return {
    check: (edits) => call(() => safeNumbers(editor.check(edits))),
    checkTemplate: (key, text) => call(() => module.glue.checkTemplate(key, text)),
    text: (key) => call(() => editor.text(key)),
    free() {
      if (!gone) editor.free();
      gone = true;
    },
  };
}

/** `file`, counting the bytes read from it. */
function countingReads(file) {
  const stats = { bytesRead: 0, reads: 0 };
  const blob = {
    size: file.size,
    slice(start, end) {
      const part = file.slice(start, end);
      return {
        async arrayBuffer() {
          const buffer = await part.arrayBuffer();
          stats.bytesRead += buffer.byteLength;
          stats.reads += 1;
          return buffer;
        },
      };
    },
  };
  return { blob, stats };
}

/**
 * `header` then `tail`: a Blob when `tail` is one (the browser keeps a reference to the file's
 * slice: nothing is read or copied), else a look-alike reading the same way.
 * @param {Uint8Array} header
 * @param {Blob} tail
 * @returns {Blob}
 */
function join(header, tail) {
  if (typeof Blob === 'function' && tail instanceof Blob) return new Blob([header, tail]);
  const part = (start, end) => ({
    size: end - start,
    slice: (s, e) => part(start + s, start + Math.min(e, end - start)),
    async arrayBuffer() {
      const bytes = new Uint8Array(end - start);
      const head = header.subarray(Math.min(start, header.length), Math.min(end, header.length));
      bytes.set(head);
      if (end > header.length) {
        const from = Math.max(start - header.length, 0);
        bytes.set(new Uint8Array(await tail.slice(from, end - header.length).arrayBuffer()), head.length);
      }
      return bytes.buffer;
    },
  });
  return /** @type {Blob} */ (/** @type {unknown} */ (part(0, header.length + tail.size)));
}
