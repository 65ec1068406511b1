// Text to token ids in JavaScript, exactly as llama.cpp does it: `tokenize(file, text)` resolves
// the ids llama.cpp's tokenizer gives `text` for a GGUF file — the document `ggufscope tokenize
// --json` prints, `{ids, pieces, count}` — and `detokenize(file, ids)` the text of ids. Only the
// file's header is read (of a URL, with Range requests): the vocabulary is in it.
//
// The tokenizer is gguf-tokenizer's, in a wasm module of its own (web/pkg-tokenizer, the
// tokenizer module) that runs in a worker (GgufClient.shared(): under its watchdog, off the
// page's thread) and is fetched on the first call, so the viewer's parser does not carry it.
// Each call reads the header and builds the tokenizer again; the page's Tokenize panel keeps the
// open model's (GgufClient.tokenize). Plain JS with no DOM: it runs in a page, a worker, and
// under Node.
//
//   import { tokenize } from './web/gguf.js';
//   const { ids, pieces, count } = await tokenize(file, 'Hello world');
//   await tokenize(file, '<|im_start|>user', { parseSpecial: false, addSpecial: false });

import { GgufClient } from './gguf-client.js';
import { Request } from './protocol.js';

/**
 * Text's token ids and what each stands for: `ggufscope tokenize --json`'s document.
 * @typedef {object} Tokens
 * @property {number[]} ids  The token ids.
 * @property {string[]} pieces  What each token stands for (`llama_token_to_piece`, special tokens
 *   as their text); a piece that is not UTF-8 on its own (a byte token) has U+FFFD for its bytes.
 * @property {number} count  The number of ids.
 * @property {string} [text]  The text of the ids (detokenize only).
 */

/**
 * Tokenizes `text` as llama.cpp 0c1e570 does with `file`'s tokenizer, as `llama-tokenize` and
 * `ggufscope tokenize` do: special-token text (`<|im_start|>`) is that token unless
 * `parseSpecial` is false; BOS (and EOS, SEP) are added as the file's tokenizer says unless
 * `addSpecial` is false.
 *
 * Runs in a worker and reads only the file's header. Rejects with a ParseError (`{code, message,
 * offset, context}`) when the file is not a GGUF file or cannot be read, with an HttpError when a
 * URL cannot be read, with an Error when llama.cpp would refuse the file's tokenizer (none, an
 * unknown model or pre-tokenizer: the message says which), with a ParseError `not-loaded` when
 * the module cannot be loaded, and with a ParserFailure (`code` 'stalled', 'out-of-memory' or
 * 'crashed') when the module was stopped; the next call then starts a fresh worker.
 *
 * @param {Blob|URL|string|{files: object[]}} file  A File or Blob (or a look-alike: `size` and
 *   `slice(start, end).arrayBuffer()`), a URL (relative to the page) read with Range requests, or
 *   a GgufClient's OpenedModel (the viewer's model: its first file's header as the viewer read it).
 *   Of a split model, give the first shard: it holds the tokenizer.
 * @param {string} text
 * @param {{parseSpecial?: boolean, addSpecial?: boolean, client?: GgufClient}} [options]
 * @returns {Promise<Tokens>}
 */
export function tokenize(file, text, { parseSpecial = true, addSpecial = true, client = GgufClient.shared() } = {}) {
  if (typeof text !== 'string') throw new TypeError(`tokenize(): text must be a string, not ${typeof text}`);
  return client.request(
    Request.tokenize,
    { text, parseSpecial: parseSpecial !== false, addSpecial: addSpecial !== false },
    { sources: { file: source(file) } },
  );
}

/**
 * The text of token `ids` with `file`'s tokenizer (`llama_detokenize`, control tokens written as
 * their text), and their pieces: `{text, ids, pieces, count}`, as `ggufscope tokenize --ids`
 * prints it. Rejects with an Error for an id outside the vocabulary, and as {@link tokenize} does.
 * @param {Blob|URL|string|{files: object[]}} file  As {@link tokenize} takes it.
 * @param {number[]|Uint32Array} ids
 * @param {{client?: GgufClient}} [options]
 * @returns {Promise<Tokens & {text: string}>}
 */
export function detokenize(file, ids, { client = GgufClient.shared() } = {}) {
  const list = Array.from(ids, Number);
  const bad = list.find((id) => !Number.isInteger(id) || id < 0 || id >= 2 ** 32);
  if (bad !== undefined) throw new TypeError(`detokenize(): ${bad} is not a token id`);
  return client.request(Request.detokenize, { ids: list }, { sources: { file: source(file) } });
}

/** `file` as GgufClient.request takes a source: a URL as `{url}`, an OpenedModel as its first file. */
function source(file) {
  if (typeof file === 'string' || file instanceof URL)
    return { url: new URL(file, globalThis.document?.baseURI ?? globalThis.location?.href).href };
  if (file !== null && typeof file === 'object' && Array.isArray(file.files)) return file.files[0];
  return file;
}
