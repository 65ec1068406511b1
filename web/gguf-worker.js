// The worker: every wasm module runs here, off the page's thread, behind the one protocol
// (protocol.js) that the page's GgufClient speaks. It reads the headers of the model the page
// opens (one file, the shards of a split model, or a URL and its sibling shards) into one wasm
// GgufModel and answers the page's questions about it; and it runs the other modules' work
// (tools.js: edits, comparisons, upstream checks, template previews), on files the page hands it
// (sources.js). Opening a model cancels the one before. It answers the watchdog's pings at once;
// a crash (failures.js) is reported, after which it closes. The same file runs under Node, as a
// worker_threads worker.

import {
  NO_SIMD,
  Reply,
  Request,
  TOOLS,
  asParseError,
  inParts,
  parseError,
  postableError,
  watchdogOf,
} from './protocol.js';
import { describeCrash, isAnswer, loadModule, loadedModules } from './failures.js';
import { readModel } from './model-reader.js';
import { setStallLimit } from './http-blob.js';
import { urlSources } from './url-sources.js';
import { measureTensor } from './tensor-read.js';
import { safeNumbers } from './numbers.js';
import { headed, readable } from './sources.js';
import { feedFrom } from './blob-read.js';
import * as tools from './tools.js';
import { warmUp } from './warm-up.js';

// Under Node the worker's side of the channel is worker_threads' parentPort: given the names a
// browser's worker has, the rest of this file reads the same.
const threads = globalThis.process?.getBuiltinModule?.('node:worker_threads');
/**
 * Whether this is one of ggufscope's workers (a name that workerName gave), which this file
 * serves: a page that imports it (the package's gguf-worker-chunk.js, for its URL) it leaves alone.
 */
const ours = (name) => /^gguf(-|$)/.test(name ?? '');
/** A worker's global scope (the page's types have no WorkerGlobalScope). */
const WorkerScope = /** @type {any} */ (globalThis).WorkerGlobalScope;
const serving = threads?.parentPort
  ? ours(threads.workerData?.name)
  : typeof WorkerScope === 'function' && self instanceof WorkerScope && ours(self.name);
if (serving && threads?.parentPort) {
  const { parentPort, workerData } = threads;
  /** @type {any} */ (globalThis).self = globalThis;
  self.name = workerData?.name ?? '';
  self.postMessage = (message, transfer) => parentPort.postMessage(message, transfer);
  self.close = () => globalThis.process.exit(0);
  parentPort.on('message', (data) => self.onmessage(/** @type {MessageEvent} */ ({ data })));
}

const post = (message, transfer) => self.postMessage(message, transfer);

/** Whether the page asks `part` of this worker: its name has it (protocol.js's workerName). */
const named = (part) => `-${self.name}-`.includes(`-${part}-`);

// A server that sends nothing is waited for as long as the watchdog waits on a step.
const watchdogMs = watchdogOf(self.name);
if (serving && watchdogMs !== null) setStallLimit(watchdogMs);

/**
 * The smallest module using wasm SIMD (a function returning `i8x16.popcnt(i8x16.splat(0))`): a
 * browser that validates it runs the values module's SIMD build. Checked here, with no request.
 */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

/**
 * The values module (the dequantizers), its SIMD build where the browser runs wasm SIMD, unless
 * the page's client asked for the fallback (`simd: false`, which names this worker with
 * `NO_SIMD`): for a peek, and for a comparison of values.
 */
function loadValues() {
  return loadModule(!named(NO_SIMD) && WebAssembly.validate(SIMD_PROBE) ? 'values-simd' : 'values');
}

/**
 * The viewer's module, the parser: a worker that cannot load it has crashed (it is thrown on as
 * the browser's error: a policy without 'wasm-unsafe-eval', a file that is not there).
 */
function loadParser() {
  return loadModule('viewer').catch((e) => {
    throw e.cause ?? e;
  });
}

// A viewer's worker loads the parser as it starts, while the page sends it the file, and warms
// it up (warm-up.js) in a browser: in Node, where only tests and scripts start workers, it would
// only cost them time.
if (serving && !named(TOOLS)) {
  const warm = !globalThis.process?.versions?.node;
  loadParser()
    .then(() => warm && warmUp())
    .catch(() => {}); // the first request says what failed; a warm-up that failed only warmed less
}

/**
 * The model being read or shown: `{id, sources, model, controller, peek, heads, memory, tokenizer}`
 * (`sources`: its files, `{name, blob}`; `peek`: the running peek's AbortController; `heads`: each
 * file's bytes read, for `heads`; `memory`: the memory module's model of it, once asked;
 * `tokenizer`: its GgufTokenizer, once built).
 */
let current = null;

/** The page's answers to `read`s still waited for, by number. */
const reads = new Map();
let nextRead = 0;

/** The running requests that `cancel` stops, by request number. */
const running = new Map();

/** Asks the page for bytes `start..end` of the file it holds as `remote` (sources.js). */
function ask(remote, start, end) {
  const read = nextRead++;
  return new Promise((resolve, reject) => {
    reads.set(read, { resolve, reject });
    post({ type: Reply.read, read, source: remote, start, end });
  });
}

/** What the work of a request needs from the worker (tools.js). */
const io = {
  post,
  loadValues,

  /** `ref` (a FileRef) as a blob to read, `{name, blob}`; `prefetch`: a URL's first read. */
  readable: (ref, prefetch, signal) => readable(ref, { ask, prefetch, signal }),
};

if (serving) self.onmessage = onMessage;

/** @param {MessageEvent} event */
function onMessage({ data }) {
  switch (data.type) {
    case Request.ping:
      return post({ type: Reply.pong });
    case Request.bytes: {
      const pending = reads.get(data.read);
      reads.delete(data.read);
      return data.error ? pending?.reject(parseError('read-failed', data.error)) : pending?.resolve(data.bytes);
    }
    case Request.open:
    case Request.openUrl:
      post({ type: Reply.reading, id: data.id });
      return run(data);
    case Request.cancel: {
      const controller = running.get(data.request);
      if (controller) controller.signal.seen = data.seen;
      return controller?.abort(new DOMException('cancelled', 'AbortError'));
    }
    default:
      return run(data);
  }
}

/** Does request `data`; a crash is reported, and the worker closes. */
function run(data) {
  receive(data).catch((e) => {
    post({ type: Reply.crash, ...describeCrash(e, loadedModules()) });
    self.close(); // a trapped module must not be used again: the page starts another worker
  });
}

async function receive(data) {
  switch (data.type) {
    case Request.open:
      return open(data.id, (signal) => Promise.all(data.files.map((ref) => io.readable(ref, undefined, signal))));
    case Request.openUrl:
      return open(data.id, (signal) => urlSources(data.url, { signal }));
    case Request.arrayPage:
      return answer(data, (model) => model.arrayPage(data.kvIndex, data.start, data.count));
    case Request.tensorPeek:
      return tensorPeek(data);
    case Request.stopPeek:
      return current?.id === data.id && current.peek?.abort();
    case Request.fit:
      return answer(data, () => fit(current, data.options));
    case Request.plan:
      return answer(data, () => plan(current, data.options, data.devices));
    case Request.describe:
      return answer(data, async () => (await memoryModel(current)).describe());
    case Request.tokenizer:
      return answer(data, (model) => model.tokenizer());
    case Request.tokens:
      return answer(data, (model) => model.tokens(data.query, data.exactCase === true, data.start, data.count));
    case Request.splitSpecial:
      return answer(data, (model) => model.splitSpecial(data.text));
    case Request.jinjaSpans:
      return reply(data, async () => {
        const { glue } = await loadParser();
        return { spans: glue.jinjaSpans(data.text), kinds: glue.jinjaKinds() };
      });
    case Request.heads:
      return answer(data, () => heads(current));
    case Request.edit:
      return reply(data, () => tools.edit(data, io));
    case Request.editSession:
      return reply(data, () => tools.editSession(data, io));
    case Request.editCheck:
      return reply(data, () => tools.editCheck(data));
    case Request.editText:
      return reply(data, () => tools.editText(data));
    case Request.checkTemplate:
      return reply(data, () => tools.checkTemplate(data));
    case Request.compare:
      return reply(data, () => tools.compare(data, io));
    case Request.measure:
      return reply(data, (signal) => tools.measure(data, io, signal));
    case Request.upstream:
      return reply(data, () => tools.upstream(data, io));
    case Request.repositories:
      return reply(data, () => tools.repositories(data, io));
    case Request.visible:
      return reply(data, () => tools.visible(data));
    case Request.tokenize:
    case Request.detokenize:
      if (data.file) return reply(data, () => tools.tokenizeFile(data, io));
      return answer(data, () => modelTokenizer(current).then((tokenizer) => tools.tokenizeWith(tokenizer, data)));
    case Request.render:
      return reply(data, () => tools.render(data, io));
    case Request.templateChat:
    case Request.lintTemplates:
      return reply(data, () => tools.templateFacts(data, io));
    case Request.free:
      return tools.free(data.handle);
    default:
      throw new Error(`unknown request type ${JSON.stringify(data.type)}`);
  }
}

async function open(id, getSources) {
  close();
  const controller = new AbortController();
  const file = { id, sources: [], model: null, controller, peek: null, heads: [], memory: null, tokenizer: null };
  current = file;
  const { signal } = controller;
  // The User Timing entries are the benchmark's stages (scripts/bench-browser.mjs): the request
  // here, the parser ready, the first bytes and each chunk's decode (read-loop.js), the read, the
  // summary document and its post.
  performance.clearMarks();
  performance.clearMeasures();
  performance.mark('gguf:open');
  try {
    await loadParser();
    performance.mark('gguf:parser');
    file.sources = await getSources(signal);
    signal.throwIfAborted();
    const onProgress = (stats) => post({ type: Reply.progress, id, ...stats });
    const started = performance.now();
    const { model, stats, heads } = await readModel(file.sources, { signal, onProgress });
    if (signal.aborted) return model.free();
    file.model = model;
    file.heads = heads;
    // The summary goes first, from the header alone: the page paints it while the model is put
    // together, checked and reported on here.
    const read = performance.now();
    performance.measure('gguf:read', { start: started, end: read });
    const summary = safeNumbers(model.summary());
    const summarized = performance.now();
    performance.measure('gguf:summary', { start: read, end: summarized });
    if (summary) {
      performance.mark('gguf:summary-post');
      post({ type: Reply.summary, id, summary, stats });
    }
    const report = safeNumbers(model.report());
    performance.measure('gguf:report', { start: summarized });
    post({ type: Reply.header, id, report, stats });
    loadValues().catch(() => {}); // fetched now, so that a later peek works offline too; a peek reports a failure
  } catch (e) {
    if (signal.aborted) return;
    if (!isAnswer(e)) throw e;
    post({ type: Reply.error, id, error: asParseError(e) });
  }
}

/** Cancels the current read and frees its model: the worker keeps one model at a time. */
function close() {
  if (!current) return;
  current.controller.abort();
  current.model?.free();
  current.memory?.then((m) => m.free()).catch(() => {});
  current.tokenizer?.then(
    (tokenizer) => tokenizer.free(),
    () => {},
  );
  current = null;
}

/**
 * The open model's tokenizer (a GgufTokenizer): built on the first tokenization from the header
 * bytes the viewer read (nothing is read again), then kept with the model. Of a split model, the
 * first shard's, which holds the metadata. One that could not be built is tried again only when
 * its module could not be loaded.
 */
function modelTokenizer(file) {
  if (!file.tokenizer) {
    const names = file.sources.map((s) => s.name);
    const i = names.indexOf([...names].sort()[0]);
    const { name, blob } = file.sources[i];
    file.tokenizer = (async () => {
      const head = new Uint8Array(await file.heads[i]().arrayBuffer());
      return tools.buildTokenizer(name, headed(head, blob));
    })();
    file.tokenizer.catch((e) => {
      if (e?.code === 'not-loaded') file.tokenizer = null;
    });
  }
  return file.tokenizer;
}

/**
 * The open model's files with the bytes read of each (`head`, a Blob: passing it on copies
 * nothing; model-reader.js), and for a URL where it is after redirects and how its server
 * answered — the FileRefs another worker reads them by with no request for the header. A local
 * file itself is the page's: it adds it.
 */
function heads(file) {
  return file.sources.map(({ name, blob }, i) => {
    const ref = { name, size: blob.size, head: file.heads[i]() };
    if (typeof blob.url === 'string')
      Object.assign(ref, { url: blob.url, validator: blob.validator, rangeless: blob.rangeless, notes: blob.notes });
    return ref;
  });
}

/**
 * The buffers llama.cpp allocates to run the model of `file` with llama-server's `options`
 * (FitOptions, each absent for its default): the core's `memory` document, from the memory module.
 * @param {any} file
 * @param {import('./protocol.js').FitOptions} [options]
 */
async function fit(file, { ctx, ctk, ctv, flashAttn, parallel, ubatch, kvUnified } = {}) {
  const model = await memoryModel(file);
  return model.fit(number(ctx), ctk, ctv, flashAttn, number(parallel), number(ubatch), kvUnified);
}

/**
 * Where llama.cpp would put the model of `file` on `devices` (`{ram, gpus}` in bytes) with
 * `fit`'s options: the core's plan (`ggufscope fit --json`), from the memory module.
 * @param {any} file
 * @param {import('./protocol.js').FitOptions} options
 * @param {{ram: number, gpus: number[]}} devices
 */
async function plan(file, { ctx, ctk, ctv, flashAttn, parallel, ubatch, kvUnified }, { ram, gpus }) {
  const model = await memoryModel(file);
  const sizes = Float64Array.from(gpus ?? [], Number);
  return model.plan(number(ctx), ctk, ctv, flashAttn, number(parallel), number(ubatch), kvUnified, Number(ram), sizes);
}

/** An option's number, `undefined` when absent (its default). */
function number(n) {
  return n == null ? undefined : Number(n);
}

/**
 * The memory module's model of `file`'s model, made at its first question: its headers decoded
 * again from the bytes the viewer read (`heads`), so that no file is read or requested twice.
 */
function memoryModel(file) {
  file.memory ??= (async () => {
    const { glue } = await loadModule('memory');
    const sessions = [];
    try {
      for (const [i, { blob }] of file.sources.entries()) {
        const head = new Uint8Array(await file.heads[i]().arrayBuffer());
        sessions.push(new glue.GgufSession(blob.size));
        // The bytes the viewer decoded the header from hold all of it: one feed, no read.
        sessions[i].feed(head);
        if (sessions[i].nextRead() !== null) await feedFrom(sessions[i], headed(head, blob));
      }
    } catch (e) {
      for (const session of sessions) session.free();
      throw e;
    }
    return new glue.MemoryModel(
      sessions,
      file.sources.map((s) => s.name),
    );
  })().catch((e) => {
    file.memory = null; // the next question tries again
    throw e;
  });
  return file.memory;
}

/** Answers request `data` with `ask(model)` for the open model `data.id`, or its error. */
async function answer(data, ask) {
  if (current?.id !== data.id || !current.model) {
    return post({
      type: Reply.answer,
      id: data.id,
      request: data.request,
      error: parseError('cancelled', 'this file is no longer open'),
    });
  }
  const { model } = current;
  return reply(data, async () => safeNumbers(await ask(model)));
}

/**
 * Answers request `data` with what `compute(signal)` resolves to (`{result, transfer}` when it
 * hands over buffers), or its error — in the form `postableError` gives it, unless it is a model
 * request's (a ParseError); a crash is thrown on. `signal` is aborted by a `cancel`.
 */
async function reply(data, compute) {
  const message = { type: Reply.answer, id: data.id, request: data.request };
  const controller = new AbortController();
  running.set(data.request, controller);
  try {
    const result = await compute(controller.signal);
    const send = (path, items) => post({ type: Reply.part, request: data.request, path, items });
    if (result instanceof tools.Transfer) post({ ...message, result: inParts(result.value, send) }, result.buffers);
    else post({ ...message, result: inParts(result, send) });
  } catch (e) {
    if (e?.name === 'AbortError' && !controller.signal.aborted) return; // superseded: the page has stopped waiting for it
    if (!isAnswer(e) && e?.name !== 'AbortError') throw e;
    post({ ...message, error: data.id === undefined ? postableError(e) : asParseError(e) });
  } finally {
    running.delete(data.request);
  }
}

/** Reads and measures a tensor's values; a peek cancels the one before, and closing the file cancels it. */
function tensorPeek(data) {
  const file = current;
  file?.peek?.abort();
  return answer(data, async (model) => {
    const controller = new AbortController();
    file.peek = controller;
    const signal = AbortSignal.any([controller.signal, file.controller.signal]);
    const prefix = model.tensorPrefix(data.index, data.rows);
    const { blob } = file.sources.find((source) => source.name === prefix.file);
    const { glue } = await loadValues();
    signal.throwIfAborted();
    const values = new glue.TensorValues(prefix, data.bins, data.first);
    return { prefix, ...(await measureTensor(blob, values, { signal })) };
  });
}
