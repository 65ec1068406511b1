// The parser worker: owns one wasm GgufSession per opened file, runs the read loop off the page's
// thread, and answers the page's requests (protocol.js). Opening a file cancels the one before.

import init, { GgufSession } from './pkg/gguf_wasm.js';
import { HttpBlob } from './http-blob.js';
import { isParseError, parseError, Reply, Request } from './protocol.js';
import { readHeader } from './read-loop.js';
import { measureTensor } from './tensor-read.js';
import { safeNumbers } from './numbers.js';

const ready = init();

/**
 * The dequantizers (gguf-dequant-wasm, a module of their own): fetched once the first header is
 * shown, so that the summary never waits for them and a later peek works offline too.
 */
let dequant = null;

function loadDequant() {
  dequant ??= import('./pkg-dequant/gguf_dequant_wasm.js')
    .then(async (module) => (await module.default(), module))
    .catch((e) => {
      dequant = null; // the next peek tries again
      throw e;
    });
  return dequant;
}

/** The file being read or shown: `{id, blob, session, controller, peek}` (`peek`: the running peek's AbortController). */
let current = null;

self.onmessage = async ({ data }) => {
  await ready;
  switch (data.type) {
    case Request.open:
      return open(data.id, () => data.file);
    case Request.openUrl:
      return open(data.id, () => HttpBlob.open(data.url));
    case Request.arrayPage:
      return answer(data, (session) => session.arrayPage(data.kvIndex, data.start, data.count));
    case Request.tensorPeek:
      return tensorPeek(data);
    case Request.memory:
      return answer(data, (session) => session.memory(data.context, data.kvType, data.parallel));
    default:
      throw new Error(`unknown request type ${JSON.stringify(data.type)}`);
  }
};

async function open(id, getBlob) {
  close();
  const controller = new AbortController();
  const file = { id, blob: null, session: null, controller, peek: null };
  current = file;
  const { signal } = controller;
  try {
    file.blob = await getBlob();
    signal.throwIfAborted();
    file.session = new GgufSession(file.blob.size);
    const onProgress = (stats) => postMessage({ type: Reply.progress, id, ...stats });
    const stats = await readHeader(file.blob, file.session, { signal, onProgress });
    const report = safeNumbers(file.session.report());
    postMessage({ type: Reply.header, id, report, stats });
    loadDequant().catch(() => {}); // a peek reports the failure
  } catch (e) {
    if (signal.aborted) return;
    postMessage({ type: Reply.error, id, error: isParseError(e) ? e : parseError(String(e.message ?? e)) });
  }
}

/** Cancels the current read and frees its session: the worker keeps one file at a time. */
function close() {
  if (!current) return;
  current.controller.abort();
  current.session?.free();
  current = null;
}

/** Answers request `data` with `ask(session)` for the open file `data.id`, or its error. */
async function answer(data, ask) {
  const reply = { type: Reply.answer, id: data.id, request: data.request };
  if (current?.id !== data.id || !current.session) {
    return postMessage({ ...reply, error: parseError('this file is no longer open') });
  }
  try {
    postMessage({ ...reply, result: safeNumbers(await ask(current.session)) });
  } catch (e) {
    if (e?.name === 'AbortError') return; // superseded: the page has stopped waiting for it
    postMessage({ ...reply, error: isParseError(e) ? e : parseError(String(e.message ?? e)) });
  }
}

/** Reads and measures a tensor's values; a peek cancels the one before, and closing the file cancels it. */
function tensorPeek(data) {
  const file = current;
  file?.peek?.abort();
  return answer(data, async (session) => {
    const controller = new AbortController();
    file.peek = controller;
    const signal = AbortSignal.any([controller.signal, file.controller.signal]);
    const prefix = session.tensorPrefix(data.index, data.rows);
    const { TensorValues } = await loadDequant();
    signal.throwIfAborted();
    const values = new TensorValues(prefix.typeId, prefix.bigEndian, data.bins, data.first);
    return { prefix, ...(await measureTensor(file.blob, prefix, values, { signal })) };
  });
}
