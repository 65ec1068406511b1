// `saveEditedUrl(url, edits, writable, {size})` (web/url-save.js) under Node, against real servers
// on 127.0.0.1: send through scripts/model-server.mjs (with Range, and ignoring it), and small
// hand-made servers that misbehave (a file that changed, a body too short or too long, another
// ETag, a download that stalls until cancelled). The written bytes must equal, byte for byte,
// what a local `edit()` of the same file makes; the header read and the one data request are
// counted.
// Run: node --test web/test/url-save.test.mjs (after scripts/build-web.sh and npm ci).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, openAsBlob, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

import { edit, editWithChanges } from '../edit.js';
import { saveEditedUrl, UrlSaveError } from '../url-save.js';
import { startModelServer } from '../../scripts/model-server.mjs';

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const ALL_TYPES = `${fixtures}synth/all-types.gguf`;
const EDITS = [
  { set: 'general.name', value: 'saved from a URL' },
  { set: 'tokenizer.ggml.eos_token_id', value: 7, type: 'UINT32' },
];

let scratch;
const servers = {};

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-url-save-`);
  execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`, scratch]);
  for (const name of ['all-types.gguf', 'vocab-262k.gguf', ...[1, 2, 3].map((n) => `sharded-0000${n}-of-00003.gguf`)]) {
    symlinkSync(`${fixtures}synth/${name}`, `${scratch}/${name}`);
  }
  servers.range = await startModelServer(scratch);
  servers.noRange = await startModelServer(scratch, { range: false });
});

after(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  rmSync(scratch, { recursive: true, force: true });
});

/** A writable like FileSystemWritableFileStream's that keeps what is written (or only its hash). */
function collector({ hashOnly = false } = {}) {
  const hash = createHash('sha256');
  return {
    chunks: [],
    writes: 0,
    length: 0,
    closed: false,
    aborted: null,
    async write(chunk) {
      this.writes += 1;
      this.length += chunk.length;
      if (hashOnly) hash.update(chunk);
      else this.chunks.push(Buffer.from(chunk));
    },
    async close() {
      this.closed = true;
    },
    async abort(reason) {
      this.aborted = reason ?? true;
    },
    bytes() {
      return Buffer.concat(this.chunks);
    },
    digest() {
      return hash.digest('hex');
    },
  };
}

/** What a local edit of `path` makes: the bytes to expect. */
async function expected(path, edits = EDITS) {
  return Buffer.from(await (await edit(await openAsBlob(path), edits)).arrayBuffer());
}

/** What `server` was asked and sent while `f` ran. */
async function measured(server, f) {
  const [bytes, asked] = [server.bytesSent(), server.requests.length];
  const result = await f();
  await new Promise((resolve) => setTimeout(resolve, 100));
  return {
    result,
    sent: server.bytesSent() - bytes,
    requests: server.requests.slice(asked).map((q) => [q.range, q.status]),
  };
}

test('all-types.gguf from a server that honours Range: the header, then the data section from one request, byte for byte', async () => {
  const size = statSync(ALL_TYPES).size;
  const local = await editWithChanges(await openAsBlob(ALL_TYPES), EDITS);
  const out = collector();
  const progress = [];
  const { result, requests } = await measured(servers.range, () =>
    saveEditedUrl(`${servers.range.origin}/all-types.gguf`, EDITS, out, { size, onProgress: (p) => progress.push(p) }),
  );
  assert.ok(out.closed);
  assert.equal(out.aborted, null);
  assert.ok(out.bytes().equals(await expected(ALL_TYPES)), 'the written file is what a local edit makes');
  const old = local.data_offset.before;
  assert.ok(old > 0 && old < size);
  // One request for the header (the editor's first read covers this header), one for the data.
  assert.deepEqual(requests, [
    [`bytes=0-${size - 1}`, 206],
    [`bytes=${old}-`, 206],
  ]);
  assert.equal(result.read.bytesRead, Math.min(size, 256 * 1024));
  assert.equal(result.written, local.file_size.after);
  assert.equal(result.dataBytes, size - old);
  assert.equal(result.skipped, 0);
  assert.deepEqual(result.changes, local.changes);
  assert.deepEqual(progress.at(-1), {
    written: result.written,
    total: result.written,
    dataBytes: size - old,
    dataTotal: size - old,
  });
});

test('a server that ignores Range (200): the old header is skipped as the body streams', async () => {
  const size = statSync(ALL_TYPES).size;
  const out = collector();
  const { result, requests } = await measured(servers.noRange, () =>
    saveEditedUrl(`${servers.noRange.origin}/all-types.gguf`, EDITS, out, { size }),
  );
  assert.ok(out.bytes().equals(await expected(ALL_TYPES)));
  assert.equal(result.skipped, result.data_offset.before);
  assert.deepEqual(requests, [
    [`bytes=0-${size - 1}`, 200],
    [`bytes=${result.data_offset.before}-`, 200],
  ]);
  assert.ok(result.notes.some((n) => /ignores Range/.test(n)));
});

test('the first shard of a split model, and a 24 MB header read in several Range requests', async () => {
  for (const name of ['sharded-00001-of-00003.gguf', 'vocab-262k.gguf']) {
    const path = `${scratch}/${name}`;
    const size = statSync(path).size;
    const out = collector();
    const { result, requests } = await measured(servers.range, () =>
      saveEditedUrl(`${servers.range.origin}/${name}`, EDITS, out, { size }),
    );
    assert.ok(out.bytes().equals(await expected(path)), name);
    const start = Math.min(result.data_offset.before, size);
    // Header reads never overlap and never pass the data offset; the data, one open-ended request.
    const data = requests.filter(([range]) => range.endsWith('-'));
    assert.deepEqual(data, start < size ? [[`bytes=${start}-`, 206]] : [], name);
    assert.ok(
      result.read.bytesRead <= Math.max(start, 256 * 1024) + (16 << 20),
      `${name}: ${result.read.bytesRead} bytes read for the header`,
    );
    console.log(
      `${name}: header read ${result.read.bytesRead} bytes in ${result.read.reads} reads (${requests.length - data.length} requests); data section ${result.dataBytes} bytes`,
    );
  }
});

test('the 0.7 GB sparse model: its data section streams through at disk speed, hashed, equal to a local edit', async () => {
  const path = `${scratch}/gqa-llama-1.1b.gguf`;
  const size = statSync(path).size;
  const out = collector({ hashOnly: true });
  const started = performance.now();
  const result = await saveEditedUrl(`${servers.range.origin}/gqa-llama-1.1b.gguf`, EDITS, out, { size });
  const seconds = (performance.now() - started) / 1000;
  const want = createHash('sha256');
  for await (const chunk of (await edit(await openAsBlob(path), EDITS)).stream()) want.update(chunk);
  assert.equal(out.digest(), want.digest('hex'));
  assert.equal(out.length, result.written);
  assert.ok(out.writes < result.dataBytes / (1 << 20), `${out.writes} writes: gathered into 4 MiB`);
  console.log(
    `gqa-llama-1.1b.gguf: header read ${result.read.bytesRead} bytes; ${result.dataBytes} data bytes in ${seconds.toFixed(2)} s (${(result.dataBytes / 1e6 / seconds).toFixed(0)} MB/s), ${out.writes} writes`,
  );
});

/**
 * A server of `bytes` that honours closed Ranges (the header reads) and hands the open-ended one
 * (the data request) to `data(req, res, start)`.
 */
async function misbehaving(bytes, data, { etag = null } = {}) {
  const server = createServer((req, res) => {
    const [, from, to] = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '') ?? [];
    if (from === undefined) {
      res.writeHead(200, { 'Content-Length': bytes.length });
      return res.end(bytes);
    }
    if (to === '') return data(req, res, Number(from));
    const [start, end] = [Number(from), Math.min(Number(to), bytes.length - 1)];
    res.writeHead(206, {
      'Content-Range': `bytes ${start}-${end}/${bytes.length}`,
      'Content-Length': end - start + 1,
      ...(etag && { ETag: etag }),
    });
    res.end(bytes.subarray(start, end + 1));
  });
  const sockets = new Set();
  server.on('connection', (s) => sockets.add(s).size && s.on('close', () => sockets.delete(s)));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/all-types.gguf`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Saves all-types.gguf from `server`; resolves what it rejected with and the writable. */
async function failed(server, options = {}) {
  const out = collector();
  try {
    const error = await saveEditedUrl(server.url, EDITS, out, { size: statSync(ALL_TYPES).size, ...options }).then(
      () => assert.fail('it was saved'),
      (e) => e,
    );
    return { error, out };
  } finally {
    await server.close();
  }
}

test('the file on the server changed since it was opened: another size, another Content-Range total, another ETag', async () => {
  const bytes = readFileSync(ALL_TYPES);
  // Opened when it had another size.
  let { error, out } = await failed(await misbehaving(bytes, () => assert.fail('no data request')), {
    size: bytes.length + 4096,
  });
  assert.ok(error instanceof UrlSaveError);
  assert.equal(error.code, 'changed');
  assert.match(error.message, /changed since it was opened/);
  assert.ok(out.aborted && !out.closed && out.writes === 0);
  // Grown between the header read and the data request.
  ({ error, out } = await failed(
    await misbehaving(bytes, (req, res, start) => {
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${bytes.length + 99}/${bytes.length + 100}` });
      res.end(Buffer.concat([bytes.subarray(start), Buffer.alloc(100)]));
    }),
  ));
  assert.equal(error.code, 'changed');
  assert.ok(out.aborted && !out.closed);
  // Same size, another ETag.
  ({ error, out } = await failed(
    await misbehaving(
      bytes,
      (req, res, start) => {
        res.writeHead(206, { 'Content-Range': `bytes ${start}-${bytes.length - 1}/${bytes.length}`, ETag: '"two"' });
        res.end(bytes.subarray(start));
      },
      { etag: '"one"' },
    ),
  ));
  assert.equal(error.code, 'changed');
  assert.match(error.message, /ETag/);
  assert.ok(out.aborted && !out.closed);
});

test('a body shorter or longer than the data section: aborted, with the byte counts', async () => {
  const bytes = readFileSync(ALL_TYPES);
  const range = (start) => ({ 'Content-Range': `bytes ${start}-${bytes.length - 1}/${bytes.length}` }); // no Content-Length: chunked
  let { error, out } = await failed(
    await misbehaving(bytes, (req, res, start) => {
      res.writeHead(206, range(start));
      res.end(bytes.subarray(start, bytes.length - 100));
    }),
  );
  assert.ok(error instanceof UrlSaveError);
  assert.equal(error.code, 'short');
  assert.equal(error.received, error.expected - 100);
  assert.match(error.message, new RegExp(`after ${error.received} of its data section's ${error.expected} bytes`));
  assert.ok(out.aborted && !out.closed);

  ({ error, out } = await failed(
    await misbehaving(bytes, (req, res, start) => {
      res.writeHead(206, range(start));
      res.end(Buffer.concat([bytes.subarray(start), Buffer.alloc(10)]));
    }),
  ));
  assert.equal(error.code, 'long');
  assert.equal(error.received, error.expected + 10);
  assert.match(error.message, new RegExp(`more than the ${error.expected} bytes`));
  assert.ok(out.aborted && !out.closed);

  // A server that ignores Range and sends a 200 cut short.
  ({ error, out } = await failed(
    await misbehaving(bytes, (req, res) => {
      res.writeHead(200);
      res.end(bytes.subarray(0, 100));
    }),
  ));
  assert.equal(error.code, 'short');
  assert.equal(error.received, 0);
  assert.ok(out.aborted && !out.closed);
});

test('cancel: the download stops, the writable is aborted, the error is an AbortError', async () => {
  const bytes = readFileSync(ALL_TYPES);
  /** A server that sends the first 1000 bytes of the data section, then nothing, until cancelled. */
  const stalling = () =>
    misbehaving(bytes, (req, res, start) => {
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${bytes.length - 1}/${bytes.length}` });
      res.write(bytes.subarray(start, start + 1000));
    });
  // Cancelled between two writes.
  let controller = new AbortController();
  let { error, out } = await failed(await stalling(), {
    signal: controller.signal,
    chunkSize: 100,
    onProgress: (p) => p.dataBytes > 0 && controller.abort(),
  });
  assert.equal(error.name, 'AbortError');
  assert.equal(out.aborted?.name, 'AbortError', 'the writable was aborted');
  assert.ok(!out.closed);
  // Cancelled while waiting for the stalled body.
  controller = new AbortController();
  setTimeout(() => controller.abort(), 300);
  ({ error, out } = await failed(await stalling(), { signal: controller.signal }));
  assert.equal(error.name, 'AbortError');
  assert.equal(out.aborted?.name, 'AbortError');
  assert.ok(!out.closed);
  assert.ok(out.length > 0, 'the header had been written when the write was aborted');
});
