// Metadata edits in JavaScript: `edit(file, edits)` resolves a new file — a new header, then the
// input's tensor data untouched — as a Blob, the way `ggufscope edit` writes one. Only the header
// is read; the data section is put in the result as `file.slice(oldDataOffset)`, never read or
// copied, so a 40 GB file is edited as fast as a 4 MB one and saved as fast as the browser
// writes. Nothing is uploaded.
//
// The rules (types, ranges, refusals, the writer) are gguf-core's, in a wasm module of its own
// (web/pkg-edit, the edit module) that runs in a worker (GgufClient.shared(), tools.js: under its
// watchdog, off the page's thread) and is fetched on the first edit, so the viewer's parser does
// not carry them. Plain JS with no DOM: it runs in a page, a worker, and under Node.
//
//   import { edit } from './web/gguf.js';
//   const blob = await edit(file, [
//     { set: 'tokenizer.chat_template', value: template },
//     { set: 'tokenizer.ggml.eot_token_id', value: 106, type: 'UINT32' },
//     { delete: 'tokenizer.ggml.padding_token_id' },
//   ]);

import { join } from './blob-read.js';
import { GgufClient } from './gguf-client.js';
import { Request } from './protocol.js';

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

/**
 * Edits the metadata of a GGUF file and resolves the new file as a Blob; the input is not
 * changed. See {@link editWithChanges} for the changes made.
 *
 * Runs in a worker (as `open()` does): it reads and decodes only the header — a few milliseconds
 * for most models, about 0.2 s for a 262,144-token vocabulary — and never the tensor data.
 *
 * Rejects with an {@link EditError} `{code, key, message}` when an edit is refused (nothing is
 * made then), with a ParseError `{message, offset, context}` (as `open()`) when the input is not a
 * GGUF file or cannot be read, with a ParseError `not-loaded` when the edit module cannot be
 * loaded, and with a ParserFailure (`code` 'stalled', 'out-of-memory' or 'crashed', as
 * failures.js says; `offset` and `context` null) when the module was stopped: a header that
 * needs more than its 512 MiB, or a bug. The next edit then starts a fresh worker.
 *
 * @param {import('./gguf.js').BlobLike} file  A File or Blob. (Also a Blob look-alike — `size` and `slice(start, end)`
 *   whose slices have `arrayBuffer()`, as the read loop takes —: the result is then a look-alike
 *   too, its header in memory and the rest sliced from `file`.)
 * @param {Edit[]} edits  Applied in order; none gives a copy byte for byte.
 * @returns {Promise<Blob>}
 */
export async function edit(file, edits) {
  return (await editWithChanges(file, edits)).file;
}

/**
 * A file of a GgufClient's OpenedModel (the viewer's model) with its header as read.
 * @typedef {import('./gguf-client.js').OpenedModel['files'][number]} OpenedFile
 */

/**
 * Whether `file` is a file of an OpenedModel that has the File it was read from.
 * @param {object} file
 * @returns {file is OpenedFile & {file: Blob}}
 */
function isOpenedFile(file) {
  return 'head' in file && Boolean(/** @type {OpenedFile} */ (file).file);
}

/**
 * {@link edit}, resolving what it made: the new file, the changes (for showing `old → new`), and
 * the sizes before and after. (`file` may also be a file of a GgufClient's OpenedModel — the
 * viewer's model —, whose header is then taken as the viewer read it: nothing is read again.)
 * @param {import('./gguf.js').BlobLike|OpenedFile} file
 * @param {Edit[]} edits
 * @param {{client?: GgufClient}} [options]  The client whose worker runs it (GgufClient.shared()).
 * @returns {Promise<Edited>}
 */
export async function editWithChanges(file, edits, { client = GgufClient.shared() } = {}) {
  const applied = await client.request(Request.edit, { edits }, { sources: { file } });
  const input = isOpenedFile(file) ? file.file : /** @type {import('./gguf.js').BlobLike} */ (file);
  // A vocabulary-only file may end before its data offset: then nothing follows the header.
  const start = Math.min(applied.oldDataOffset, input.size);
  // A look-alike's slices are look-alikes, with a size and slices of their own.
  const out = join(applied.header, /** @type {import('./gguf.js').BlobLike} */ (input.slice(start, input.size)));
  return {
    file: out,
    changes: applied.changes,
    header_size: { before: applied.oldHeaderSize, after: applied.headerSize },
    data_offset: { before: applied.oldDataOffset, after: applied.newDataOffset },
    file_size: { before: input.size, after: out.size },
    read: applied.read,
  };
}

/**
 * What `check` finds: every refused edit ({@link EditError} and its `index` in the list; each edit
 * is tried after the accepted ones before it), the findings (as the report's: `code`,
 * `severity`, `message`, and the `key` they are about or null) the result would have that the
 * input has not, and the indices of the edits that set a value to what it already is.
 * @typedef {{refusals: (EditError & {index: number})[], findings: {code: string, severity: string, message: string, key: string|null}[], unchanged: number[]}} Checked
 */

/**
 * A file's header decoded once, to check edits against while they are being made — an editor
 * shows every refusal and new finding as the user types, before Save. Reads only the header.
 * Call `free()` when done. Rejects as {@link editWithChanges} does.
 * @param {import('./gguf.js').BlobLike|OpenedFile} file
 * `check(edits)` writes and validates the whole new header (a few ms; some 0.3 s for a
 * 262,144-token vocabulary); `checkTemplate(key, text)` gives the validator's findings on one chat
 * template's text alone (microseconds: for checking as the user types); `text(key)` a string
 * value whole.
 * @param {{client?: GgufClient}} [options]  The client whose worker holds it (GgufClient.shared()).
 * @returns {Promise<{check(edits: Edit[]): Promise<Checked>, checkTemplate(key: string, text: string): Promise<Checked['findings']>, text(key: string): Promise<string|undefined>, free(): void}>}
 */
export async function editSession(file, { client = GgufClient.shared() } = {}) {
  const { handle, remotes } = await client.request(Request.editSession, {}, { sources: { file }, keep: true });
  const generation = client.generation;
  let gone = false;
  const call = async (type, fields) => {
    if (gone) throw new Error('this edit session was freed');
    client.live(generation, 'edit session');
    return client.request(type, { handle, ...fields });
  };
  return {
    check: (edits) => call(Request.editCheck, { edits }),
    checkTemplate: (key, text) => call(Request.checkTemplate, { key, text }),
    text: (key) => call(Request.editText, { key }),
    free() {
      if (!gone && generation === client.generation) client.free(handle, remotes);
      gone = true;
    },
  };
}
