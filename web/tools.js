// What the worker does for edit() (edit.js), compare() (compare.js), upstream() (upstream.js),
// tokenize() (tokenize.js) and the template preview: each request's work against its wasm module
// (the edit, diff, values, upstream, tokenizer and template modules, failures.js's loader), on files the page hands over (FileRefs,
// sources.js). A header is read by the core's read rule into the module's own GgufSession — or,
// for the model the viewer shows, from the bytes the viewer read: nothing is read twice. Objects
// that outlive a request (an edit session, a comparison) are kept here by handle until freed.
// A module that traps is never called again, not even to free: the worker closes (gguf-worker.js).

import { feedFrom, join, readSlice } from './blob-read.js';
import { HttpBlob } from './http-blob.js';
import { isAnswer, loadModule } from './failures.js';
import { urlSources } from './url-sources.js';
import { safeNumbers } from './numbers.js';
import { Reply } from './protocol.js';
import { utf8Text } from './sources.js';

/** A result whose buffers are handed over to the page rather than copied. */
export class Transfer {
  constructor(value, buffers) {
    this.value = value;
    this.buffers = buffers;
  }
}

/** Objects kept between requests, by handle: `{free()}` and what their requests use. */
const objects = new Map();
let nextHandle = 1;

function keep(object) {
  const handle = nextHandle++;
  objects.set(handle, object);
  return handle;
}

function kept(handle, kind) {
  const object = objects.get(handle);
  if (object?.kind !== kind) throw new Error(`this ${kind} was freed, or its worker was restarted`);
  return object;
}

/** Frees object `handle` (nothing if there is none). */
export function free(handle) {
  objects.get(handle)?.free();
  objects.delete(handle);
}

/** Frees `things` (wasm objects) unless `e` is a crash: a trapped module is not called again. */
function freeUnlessCrash(e, ...things) {
  if (isAnswer(e) || e?.name === 'AbortError') for (const t of things) t?.free();
}

/**
 * A new GgufSession of module `glue` fed the header of `blob` (blob-read.js: the core's read rule;
 * `options` as feedFrom takes them), freed when that fails.
 */
async function decoded(glue, blob, options) {
  const session = new glue.GgufSession(blob.size);
  try {
    await feedFrom(session, blob, options);
  } catch (e) {
    freeUnlessCrash(e, session);
    throw e;
  }
  return session;
}

/** Stops the download of a URL whose server ignores Range: only its header was wanted. */
function closeUrl({ blob }) {
  if (blob instanceof HttpBlob) blob.close();
}

// ------------------------------------------------------------------------------------- edit

/** `blob`, counting the bytes read from it: what an edit reports it read of its input. */
function countingReads(blob) {
  const stats = { bytesRead: 0, reads: 0 };
  const counted = {
    size: blob.size,
    slice: (start, end) => {
      const part = blob.slice(start, end);
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
  return { blob: counted, stats };
}

/**
 * `{file, edits}`: the file's header edited (`GgufEditor.apply`), the new file's header read back
 * by the same decoder from the new file (its header part, then its data part if the decoder asks)
 * and checked against what was written. Resolves the EditResult with `read` (what was read of the
 * input: its header), the header's bytes handed over.
 */
export async function edit({ file, edits }, io) {
  const { glue } = await loadModule('edit');
  const input = await io.readable(file, glue.firstRead());
  try {
    const read = countingReads(input.blob);
    const editor = new glue.GgufEditor(await decoded(glue, read.blob));
    try {
      const applied = editor.apply(edits);
      // A vocabulary-only file may end before its data offset: then nothing follows the header.
      const start = Math.min(applied.oldDataOffset, input.blob.size);
      const out = join(applied.header, input.blob.slice(start, input.blob.size));
      const check = await decoded(glue, out, { end: applied.header.length });
      try {
        editor.verify(check);
      } finally {
        check.free();
      }
      editor.free();
      const result = { ...applied, changes: safeNumbers(applied.changes), read: read.stats };
      return new Transfer(result, [applied.header.buffer]);
    } catch (e) {
      freeUnlessCrash(e, editor);
      throw e;
    }
  } finally {
    closeUrl(input);
  }
}

/** `{file}`: the file's header decoded once, kept to check edits against: `{handle}`. */
export async function editSession({ file }, io) {
  const { glue } = await loadModule('edit');
  const input = await io.readable(file, glue.firstRead());
  try {
    const editor = new glue.GgufEditor(await decoded(glue, input.blob));
    return { handle: keep({ kind: 'edit session', editor, free: () => editor.free() }) };
  } finally {
    closeUrl(input);
  }
}

/** `{handle, edits}`: what the session finds in `edits` (`GgufEditor.check`). */
export function editCheck({ handle, edits }) {
  return safeNumbers(kept(handle, 'edit session').editor.check(edits));
}

/** `{handle, key}`: string key `key`'s whole value, or undefined. */
export function editText({ handle, key }) {
  return kept(handle, 'edit session').editor.text(key);
}

/** `{key, text}`: the validator's findings on a chat template's text alone. */
export async function checkTemplate({ key, text }) {
  const { glue } = await loadModule('edit');
  return glue.checkTemplate(key, text);
}

// ---------------------------------------------------------------------------------- compare

/**
 * `{a, b, names}`: the two models' headers read (each a list of FileRefs, or `{url}`: the URL
 * and its sibling shards), decoded by the diff module and compared; the comparison kept.
 * Resolves `{handle, pairs, document, valuesPart}`: the pairs whose values can be compared,
 * the document `ggufscope diff --json` prints, and the same with `--values` (its {@link valuesPart}) before any is
 * measured. A ParseError of a file gets `file`: 'a' or 'b'.
 */
export async function compare({ a, b, names }, io) {
  const { glue } = await loadModule('diff');
  const prefetch = glue.firstRead();
  const sides = [];
  const sessions = [];
  try {
    for (const [source, side] of [
      [a, 'a'],
      [b, 'b'],
    ]) {
      const files = Array.isArray(source)
        ? await Promise.all(source.map((ref) => io.readable(ref, prefetch)))
        : await urlSources(source.url, { siblings: glue.shardNames, prefetch });
      sides.push(files);
      for (const { blob } of files) {
        sessions.push(
          await decoded(glue, blob).catch((e) => {
            throw isAnswer(e) ? Object.assign(e, { file: side }) : e;
          }),
        );
      }
    }
  } catch (e) {
    freeUnlessCrash(e, ...sessions);
    throw e;
  } finally {
    // A server that ignores Range stops sending: its file's values then cannot be read (its
    // HttpBlob says so); one that honours Range is asked again for each slice.
    for (const files of sides) for (const file of files) closeUrl(file);
  }
  // The constructor takes the sessions (and frees them), whatever it answers.
  const [na, nb] = [sides[0].length, sides[1].length];
  const named = (files) => files.map((f) => f.name);
  const comparison = new glue.Comparison(
    names[0],
    sessions.slice(0, na),
    named(sides[0]),
    names[1],
    sessions.slice(na, na + nb),
    named(sides[1]),
  );
  const pairs = comparison.pairs();
  const handle = keep({
    kind: 'comparison',
    comparison,
    pairs,
    files: sides.map((files) => new Map(files.map((f) => [f.name, f.blob]))),
    free: () => comparison.free(),
  });
  return {
    handle,
    pairs,
    document: safeNumbers(comparison.document(false)),
    valuesPart: valuesPart(comparison),
  };
}

/**
 * The header's parts of a diff document, the same with `--values` as without: a hostile header
 * makes them large (300,000 tensors added), and a message's objects are rebuilt on the page's
 * thread, so they cross once (the document without values), never again.
 */
const HEADER_PARTS = ['summary', 'metadata', 'tensors'];

/**
 * The comparison's document with `--values` without its {@link HEADER_PARTS}: the page puts it
 * over the document it has (compare.js), which gives the whole in the same order.
 */
function valuesPart(comparison) {
  const document = safeNumbers(comparison.document(true));
  for (const part of HEADER_PARTS) delete document[part];
  return document;
}

/** Resolves in a task of its own: the messages waiting (a `cancel`) are handled first. */
function nextTask() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve(undefined);
    };
    channel.port2.postMessage(null);
  });
}

/** How often, at most, a measure sends the values measured so far (`measured`) while it goes on. */
const SNAPSHOT_MS = 250;

/**
 * A measure reads each tensor of a pair ahead of its decoding, in slices of READ_BYTES, at most
 * SLICES_AHEAD at a time: both tensors at once, and the next pair's as this one is measured, so
 * that no read waits for another and the decoding for none (at most 64 MiB held). A slice of a
 * file is one request to the browser, whose cost is per request more than per byte: 8 MiB
 * slices compared all of Gemma's values in less time than 1 or 4 MiB ones.
 */
const READ_BYTES = 8 << 20;
const SLICES_AHEAD = 2;

/**
 * Bytes `offset..offset + length` of `blob` (side `which` of a pair: 'a' or 'b'), read ahead in
 * slices of `sliceBytes`, SLICES_AHEAD at a time ({@link READ_BYTES}). `take(start, count)`
 * resolves bytes `start..start + count`; asked in order, from `offset` on, as the pair's
 * `nextRead()`s come. A read that fails rejects with a ParseError naming the side (`file`).
 * @param {import('./gguf.js').BlobLike} blob
 * @param {number} offset
 * @param {number} length
 * @param {'a'|'b'} which
 * @param {{sliceBytes?: number}} [options]
 */
export function readsAhead(blob, offset, length, which, { sliceBytes = READ_BYTES } = {}) {
  const end = offset + length;
  /** @type {{from: number, to: number, bytes: Promise<Uint8Array>}[]} */
  const slices = [];
  let next = offset;
  const fill = () => {
    while (slices.length < SLICES_AHEAD && next < end) {
      const [from, to] = [next, Math.min(end, next + sliceBytes)];
      const bytes = readSlice(blob, from, to).catch((e) => {
        throw Object.assign(e, { file: which });
      });
      bytes.catch(() => {}); // a slice left unread by a stop is not waited for
      slices.push({ from, to, bytes });
      next = to;
    }
  };
  fill();
  return {
    /** @returns {Promise<Uint8Array>} */
    async take(start, count) {
      const parts = [];
      for (let at = start; at < start + count;) {
        fill();
        const slice = slices[0];
        if (!slice || at < slice.from || at >= slice.to)
          throw new Error(`bytes ${at}… of side ${which} are not the next to read`);
        const bytes = await slice.bytes;
        const to = Math.min(slice.to, start + count);
        parts.push(bytes.subarray(at - slice.from, to - slice.from));
        at = to;
        if (at === slice.to) slices.shift();
      }
      fill();
      if (parts.length === 1) return parts[0];
      const joined = new Uint8Array(count);
      parts.reduce((at, part) => (joined.set(part, at), at + part.length), 0);
      return joined;
    },
  };
}

/**
 * `{handle, pairs}`: the values of the comparison's pairs `pairs` (indexes) measured, each read
 * in steps of 2^20 values of A then of B (gguf_diff::ValuePairs, in the values module: its SIMD
 * build where the browser runs it), only those tensors' bytes, read ahead ({@link readsAhead}). Posts `progress` (`{pairs, done,
 * name, bytesRead, bytesTotal}`, before each pair and after each read; with `measured` — `{values,
 * layers}` so far — at most every SNAPSHOT_MS; and a `final` one with the document when it stops
 * early), and resolves `{values, layers, valuesPart}` (the document with `--values`: its valuesPart). Stopped by `signal`: the pairs measured until then
 * are kept. A read that fails is a ParseError with `file`: 'a' or 'b'.
 */
export async function measure({ request, handle, pairs: indexes }, io, signal) {
  const object = kept(handle, 'comparison');
  const { comparison, pairs, files } = object;
  const { glue } = await io.loadValues();
  const bytesTotal = indexes.reduce((sum, i) => sum + pairs[i].bytes_a + pairs[i].bytes_b, 0);
  let bytesRead = 0;
  let snapshotAt = performance.now();
  const measured = () => safeNumbers(comparison.measuredValues());
  const progress = (done, name, last = false) => {
    const message = { type: Reply.progress, request, pairs: indexes.length, done, name, bytesRead, bytesTotal };
    if (last || performance.now() - snapshotAt >= SNAPSHOT_MS) {
      message.measured = measured();
      snapshotAt = performance.now();
    }
    // The last, sent when the measure stops early: the document as it stands, not a step.
    if (last) Object.assign(message, { final: true, valuesPart: valuesPart(comparison) });
    return message;
  };
  // What each pair measured here had before, to give it back when the page stops the measure
  // at a pair it had not seen begin (its `cancel` says how many it saw done).
  const before = [];
  /**
   * Pair `i`'s sides with their bytes being read ahead (`a`, `b`: {@link readsAhead}); for a pair
   * asked for early (`early`), null when it cannot be located: its turn says why.
   */
  const ahead = (i, early = false) => {
    let sides;
    try {
      sides = comparison.sides(i);
    } catch (e) {
      if (early) return null;
      throw e;
    }
    const side = (which) =>
      readsAhead(files[which === 'a' ? 0 : 1].get(sides[which].file), sides[which].offset, sides[which].length, which);
    return { index: i, sides, a: side('a'), b: side('b') };
  };
  let upcoming = null;
  try {
    for (const [done, i] of indexes.entries()) {
      const pair = pairs[i];
      io.post(progress(done, pair.name));
      // Reads served from memory never leave the worker's task: a cancel is heard here.
      await nextTask();
      signal.throwIfAborted();
      // This pair's bytes were asked for as the one before began (else now), and the next pair's are now.
      const current = upcoming?.index === i ? upcoming : ahead(i);
      upcoming = done + 1 < indexes.length ? ahead(indexes[done + 1], true) : null;
      const values = new glue.PairValues(current.sides.a, current.sides.b, pair.name);
      try {
        for (let read = values.nextRead(); read; read = values.nextRead()) {
          signal.throwIfAborted();
          const bytes = await current[read.which].take(read.offset, read.length);
          signal.throwIfAborted();
          values.feed(bytes);
          bytesRead += bytes.length;
          io.post(progress(done, pair.name));
        }
      } catch (e) {
        freeUnlessCrash(e, values);
        throw e;
      }
      before.push([i, comparison.sums(i)]);
      comparison.record(i, values.finish()); // finish frees `values`
    }
  } catch (e) {
    if (e?.name === 'AbortError') {
      // Stopped: the pairs the page had seen done stay measured, the others as they were.
      for (const [i, sums] of before.slice(signal.seen ?? 0).reverse()) comparison.record(i, sums);
    }
    if (isAnswer(e) || e?.name === 'AbortError') io.post(progress(indexes.length, '', true)); // what was measured stays
    throw e;
  }
  return { ...measured(), valuesPart: valuesPart(comparison) };
}

// --------------------------------------------------------------------------------- upstream

/**
 * `{file, fileName, sourceName, texts}`: the file's header checked against the upstream texts
 * (`{config, tokenizerConfig?, generationConfig?, chatTemplate?}`: strings, or Blobs read here as UTF-8): `ggufscope upstream --json`'s
 * document.
 */
export async function upstream({ file, fileName, sourceName, texts }, io) {
  const { glue } = await loadModule('upstream');
  // Files given as Blobs are read here, off the page's thread (upstream.js).
  for (const [field, text] of Object.entries(texts))
    if (text instanceof Blob) texts[field] = await utf8Text(text, /** @type {File} */ (text).name);
  const input = await io.readable(file, glue.firstRead());
  try {
    const session = await decoded(glue, input.blob);
    // check() takes the session (and frees it), whatever it answers.
    return safeNumbers(
      glue.check(
        session,
        fileName,
        sourceName,
        texts.config,
        texts.tokenizerConfig,
        texts.generationConfig,
        texts.chatTemplate,
      ),
    );
  } finally {
    closeUrl(input);
  }
}

/** `{file}`: the Hugging Face repositories the file names (gguf_upstream::repositories). */
export async function repositories({ file }, io) {
  const { glue } = await loadModule('upstream');
  const input = await io.readable(file, glue.firstRead());
  try {
    const session = await decoded(glue, input.blob);
    try {
      return glue.repositories(session);
    } finally {
      session.free();
    }
  } finally {
    closeUrl(input);
  }
}

/** `{texts}`: each text in the form the page shows file text in (gguf_core::tokenizer::visible). */
export async function visible({ texts }) {
  const { glue } = await loadModule('upstream');
  return glue.visible(texts);
}

// -------------------------------------------------------------------------------- tokenizer

/**
 * The tokenizer module's GgufTokenizer of the file `blob` (named `name`): its header decoded by
 * the core's read rule, the tokenizer built from it as llama.cpp loads it. Rejects with a
 * ParseError for a malformed file, an Error when llama.cpp would refuse its tokenizer.
 */
export async function buildTokenizer(name, blob) {
  const { glue } = await loadModule('tokenizer');
  // The constructor takes the session (and frees it), whatever it answers.
  return new glue.GgufTokenizer(await decoded(glue, blob), name);
}

/**
 * `{type, text, parseSpecial, addSpecial, visible}` (tokenize) or `{type, ids}` (detokenize),
 * answered by `tokenizer` (a GgufTokenizer): the `Tokens` document, with `shown` (each piece's
 * visible form) when `visible`.
 */
export function tokenizeWith(tokenizer, { type, text, parseSpecial, addSpecial, ids, visible, prompt }) {
  const tokens = safeNumbers(
    type === 'detokenize'
      ? tokenizer.detokenize(Uint32Array.from(ids))
      : prompt
        ? tokenizer.tokenizePrompt(text)
        : tokenizer.tokenize(text, parseSpecial, addSpecial),
  );
  if (visible) tokens.shown = tokenizer.visible(Uint32Array.from(tokens.ids));
  return tokens;
}

/** The same with the tokenizer of `file` (a FileRef), built for this request alone. */
export async function tokenizeFile(data, io) {
  const { glue } = await loadModule('tokenizer');
  const input = await io.readable(data.file, glue.firstRead());
  try {
    const tokenizer = await buildTokenizer(input.name, input.blob);
    try {
      const tokens = tokenizeWith(tokenizer, data);
      tokenizer.free();
      return tokens;
    } catch (e) {
      freeUnlessCrash(e, tokenizer);
      throw e;
    }
  } finally {
    closeUrl(input);
  }
}

// --------------------------------------------------------------------------------- template

/**
 * `{request, template, chat, addGenerationPrompt, conversation, kwargs, now}`: the prompt llama.cpp
 * builds with `template` for the sample conversation (or `conversation`): `{prompt, template,
 * notes}`. The render is one call that may hold the worker up to the engine's time limit, which the
 * page is told first (`started`): past it the page ends the worker. A render that fails rejects
 * with `{message, line}` (`line` in the template, or null).
 */
export async function render({ request, template, chat, addGenerationPrompt, conversation, kwargs, now }, io) {
  const { glue } = await loadModule('template');
  io.post({ type: Reply.started, request, limitMs: glue.timeLimitMs() });
  try {
    return glue.applyTemplate(
      template,
      chat.bos ?? undefined,
      chat.eos ?? undefined,
      chat.addBos,
      chat.addEos,
      conversation,
      kwargs,
      addGenerationPrompt,
      now,
    );
  } catch (e) {
    if (!(e instanceof glue.RenderFailure)) throw e; // a trap or a stack overflow
    const failure = { message: e.message, line: e.line ?? null };
    e.free();
    throw failure;
  }
}

/**
 * `{type, request, file}`: what the template views need of `file` (a FileRef), by the template
 * module: its `ChatTokens` (type `template-chat`: protocol.js's `templateChat`), or every chat-template finding — the
 * validator's and those that need a render — found under the engine's time limit (told first, as
 * a render is): `TemplateLint[]` (type `lint-templates`).
 */
export async function templateFacts({ type, request, file }, io) {
  const { glue } = await loadModule('template');
  const input = await io.readable(file, glue.firstRead());
  try {
    const session = await decoded(glue, input.blob);
    // chatTokens() and lintTemplates() take the session (and free it).
    if (type === 'template-chat') return glue.chatTokens(session, input.name);
    io.post({ type: Reply.started, request, limitMs: glue.timeLimitMs() });
    return glue.lintTemplates(session, input.name, Date.now() / 1000);
  } finally {
    closeUrl(input);
  }
}
