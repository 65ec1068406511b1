// The parser worker: reads the headers of the model the page opens (one file, the shards of a
// split model, or a URL and its sibling shards) off the page's thread into one wasm GgufModel, and
// answers the page's requests (protocol.js). Opening a model cancels the one before. It answers
// the watchdog's pings at once, and a crash (failures.js) is reported, after which it closes.

import init, { jinjaKinds, jinjaSpans, maxMemory } from './pkg/gguf_wasm.js';
import { asParseError, NO_SIMD, parseError, Reply, Request } from './protocol.js';
import { describeCrash, isAnswer } from './failures.js';
import { readModel } from './model-reader.js';
import { urlSources } from './url-sources.js';
import { measureTensor } from './tensor-read.js';
import { safeNumbers } from './numbers.js';

/** The parser module's memory and the cap on it, once loaded: what a crash report needs. */
let parser = null;
const ready = init().then((wasm) => (parser = { memory: wasm.memory, maxMemory: maxMemory() }));

/**
 * The dequantizers (gguf-dequant-wasm, a module of their own): fetched once the first header is
 * shown, so that the summary never waits for them and a later peek works offline too.
 */
let dequant = null;

/**
 * The smallest module using wasm SIMD (a function returning `i8x16.popcnt(i8x16.splat(0))`): a
 * browser that validates it runs the dequantizers' SIMD build. Checked here, with no request.
 */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

/**
 * Whether to load the SIMD build: where the browser runs wasm SIMD, unless the page's client asked
 * for the fallback (`simd: false`, which starts this worker with the name `NO_SIMD`).
 */
function useSimd() {
  return self.name !== NO_SIMD && WebAssembly.validate(SIMD_PROBE);
}

function loadDequant() {
  dequant ??= (useSimd() ? import('./pkg-dequant-simd/gguf_dequant_wasm.js') : import('./pkg-dequant/gguf_dequant_wasm.js'))
    .then(async (module) => (await module.default(), module))
    .catch((e) => {
      dequant = null; // the next peek tries again
      throw parseError('not-loaded', `the dequantizers could not be loaded: ${e.message}`);
    });
  return dequant;
}

/**
 * The model being read or shown: `{id, sources, model, controller, peek}` (`sources`: its files,
 * `{name, blob}`; `peek`: the running peek's AbortController).
 */
let current = null;

self.onmessage = ({ data }) => {
  if (data.type === Request.ping) return postMessage({ type: Reply.pong });
  receive(data).catch((e) => {
    postMessage({ type: Reply.crash, ...describeCrash(e, parser) });
    self.close(); // a trapped module must not be used again: the page starts another worker
  });
};

async function receive(data) {
  await ready;
  switch (data.type) {
    case Request.open:
      // A Blob has no name (an edit()'s result, say): it is named by its place.
      return open(data.id, () => data.files.map((file, i) => ({ name: file.name ?? `blob-${i + 1}.gguf`, blob: file })));
    case Request.openUrl:
      return open(data.id, (signal) => urlSources(data.url, { signal }));
    case Request.arrayPage:
      return answer(data, (model) => model.arrayPage(data.kvIndex, data.start, data.count));
    case Request.tensorPeek:
      return tensorPeek(data);
    case Request.stopPeek:
      return current?.id === data.id && current.peek?.abort();
    case Request.memory:
      return answer(data, (model) => model.memory(data.context, data.kvType, data.parallel));
    case Request.tokenizer:
      return answer(data, (model) => model.tokenizer());
    case Request.tokens:
      return answer(data, (model) => model.tokens(data.query, data.exactCase === true, data.start, data.count));
    case Request.splitSpecial:
      return answer(data, (model) => model.splitSpecial(data.text));
    case Request.jinjaSpans:
      return reply(data, () => ({ spans: jinjaSpans(data.text), kinds: jinjaKinds() }));
    default:
      throw new Error(`unknown request type ${JSON.stringify(data.type)}`);
  }
}

async function open(id, getSources) {
  close();
  const controller = new AbortController();
  const file = { id, sources: [], model: null, controller, peek: null };
  current = file;
  const { signal } = controller;
  try {
    file.sources = await getSources(signal);
    signal.throwIfAborted();
    const onProgress = (stats) => postMessage({ type: Reply.progress, id, ...stats });
    performance.clearMarks();
    performance.clearMeasures();
    const started = performance.now();
    const { model, stats } = await readModel(file.sources, { signal, onProgress });
    if (signal.aborted) return model.free();
    file.model = model;
    // The summary goes first, from the header alone: the page paints it while the model is put
    // together, checked and reported on here. The User Timing entries are the benchmark's stages.
    const read = performance.now();
    performance.measure('gguf:read', { start: started, end: read });
    const summary = safeNumbers(model.summary());
    const summarized = performance.now();
    performance.measure('gguf:summary', { start: read, end: summarized });
    if (summary) {
      performance.mark('gguf:summary-post');
      postMessage({ type: Reply.summary, id, summary, stats });
    }
    const report = safeNumbers(model.report());
    performance.measure('gguf:report', { start: summarized });
    postMessage({ type: Reply.header, id, report, stats });
    loadDequant().catch(() => {}); // a peek reports the failure
  } catch (e) {
    if (signal.aborted) return;
    if (!isAnswer(e)) throw e;
    postMessage({ type: Reply.error, id, error: asParseError(e) });
  }
}

/** Cancels the current read and frees its model: the worker keeps one model at a time. */
function close() {
  if (!current) return;
  current.controller.abort();
  current.model?.free();
  current = null;
}

/** Answers request `data` with `ask(model)` for the open model `data.id`, or its error. */
async function answer(data, ask) {
  if (current?.id !== data.id || !current.model) {
    return postMessage({ type: Reply.answer, id: data.id, request: data.request, error: parseError('cancelled', 'this file is no longer open') });
  }
  const { model } = current;
  return reply(data, async () => safeNumbers(await ask(model)));
}

/** Answers request `data` with what `compute()` resolves to, or its error (a crash is thrown on). */
async function reply(data, compute) {
  const message = { type: Reply.answer, id: data.id, request: data.request };
  try {
    postMessage({ ...message, result: await compute() });
  } catch (e) {
    if (e?.name === 'AbortError') return; // superseded: the page has stopped waiting for it
    if (!isAnswer(e)) throw e;
    postMessage({ ...message, error: asParseError(e) });
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
    const { TensorValues } = await loadDequant();
    signal.throwIfAborted();
    const values = new TensorValues(prefix, data.bins, data.first);
    return { prefix, ...(await measureTensor(blob, values, { signal })) };
  });
}
