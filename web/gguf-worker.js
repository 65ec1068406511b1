// The parser worker: owns one wasm GgufSession per opened file, runs the read loop off the page's
// thread, and answers the page's requests (protocol.js). Opening a file cancels the one before.

import init, { GgufSession } from './pkg/gguf_wasm.js';
import { HttpBlob } from './http-blob.js';
import { isParseError, parseError, Reply, Request } from './protocol.js';
import { readHeader } from './read-loop.js';
import { safeNumbers } from './numbers.js';

const ready = init();

/** The file being read or shown: `{id, session, controller}`. */
let current = null;

self.onmessage = async ({ data }) => {
  await ready;
  switch (data.type) {
    case Request.open:
      return open(data.id, () => data.file);
    case Request.openUrl:
      return open(data.id, () => HttpBlob.open(data.url));
    case Request.arrayPage:
      return arrayPage(data);
    default:
      throw new Error(`unknown request type ${JSON.stringify(data.type)}`);
  }
};

async function open(id, getBlob) {
  close();
  const controller = new AbortController();
  const file = { id, session: null, controller };
  current = file;
  const { signal } = controller;
  try {
    const blob = await getBlob();
    signal.throwIfAborted();
    file.session = new GgufSession(blob.size);
    const onProgress = (stats) => postMessage({ type: Reply.progress, id, ...stats });
    const stats = await readHeader(blob, file.session, { signal, onProgress });
    const report = safeNumbers(file.session.report());
    postMessage({ type: Reply.header, id, report, stats });
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

function arrayPage({ id, request, kvIndex, start, count }) {
  const reply = { type: Reply.arrayPage, id, request };
  if (current?.id !== id || !current.session) {
    return postMessage({ ...reply, error: parseError('this file is no longer open') });
  }
  try {
    postMessage({ ...reply, items: safeNumbers(current.session.arrayPage(kvIndex, start, count)) });
  } catch (e) {
    postMessage({ ...reply, error: parseError(String(e.message ?? e)) });
  }
}
