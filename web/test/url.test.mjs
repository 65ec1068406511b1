// Reading models from URLs under Node, with the real wasm, against a real server (send, through
// scripts/model-server.mjs) on 127.0.0.1: what was read and what the server sent, for a server
// that honours Range and one that ignores it; split models found from one shard's URL; missing
// shards, 404, redirects, unreachable servers. (CORS is the browser's: www/e2e/url.test.mjs.)
// Run: node --test web/test/ (after scripts/build-web.sh and npm ci).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

import { initSync } from '../pkg/gguf_wasm.js';
import { readModel } from '../model-reader.js';
import { urlSources } from '../url-sources.js';
import { HttpBlob, setStallLimit } from '../http-blob.js';
import { safeNumbers } from '../numbers.js';
import { startModelServer } from '../../scripts/model-server.mjs';
import { startLyingServer } from '../../scripts/lying-server.mjs';

/** The core's first header read (gguf_core::read::FIRST_READ). */
const FIRST_READ = 256 * 1024;

initSync({ module: readFileSync(new URL('../pkg/gguf_wasm_bg.wasm', import.meta.url)) });

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const ref = (name) => JSON.parse(readFileSync(`${fixtures}ref/${name}.summary.json`, 'utf8'));

let scratch;
let partial; // shards 1 and 3 only
const servers = {};

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-url-`);
  execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`, scratch]);
  for (const name of ['vocab-262k.gguf', 'minimal.gguf', ...[1, 2, 3].map((n) => `sharded-0000${n}-of-00003.gguf`)]) {
    symlinkSync(`${fixtures}synth/${name}`, `${scratch}/${name}`);
  }
  partial = mkdtempSync(`${tmpdir()}/ggufscope-url-partial-`);
  for (const n of [1, 3])
    symlinkSync(`${fixtures}synth/sharded-0000${n}-of-00003.gguf`, `${partial}/sharded-0000${n}-of-00003.gguf`);
  servers.range = await startModelServer(scratch);
  servers.noRange = await startModelServer(scratch, { range: false });
  servers.partial = await startModelServer(partial);
  servers.lying = await startLyingServer(scratch);
});

after(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  rmSync(scratch, { recursive: true, force: true });
  rmSync(partial, { recursive: true, force: true });
});

/** Reads the model at `url`; resolves its report and read statistics. */
async function open(url) {
  const { model, stats } = await readModel(await urlSources(url));
  try {
    return { report: safeNumbers(model.report()), stats };
  } finally {
    model.free();
  }
}

/** What `server` sent and was asked while `f` ran. */
async function measured(server, f) {
  const [bytes, asked] = [server.bytesSent(), server.requests.length];
  const result = await f();
  await new Promise((resolve) => setTimeout(resolve, 200)); // let a cancelled download wind down
  return { result, sent: server.bytesSent() - bytes, requests: server.requests.slice(asked) };
}

test('the 40 GB sparse file from a server that honours Range: one 256 KiB request', async () => {
  const server = servers.range;
  const { result, sent, requests } = await measured(server, () => open(`${server.origin}/big-40g-sparse.gguf`));
  const r = ref('big-40g-sparse.gguf');
  assert.equal(result.report.file_size, r.file_size);
  assert.equal(result.report.parameters, r.param_count);
  assert.equal(result.report.tensor_count, r.tensor_count);
  assert.deepEqual(result.stats, { bytesRead: FIRST_READ, reads: 1, fileSize: r.file_size, notes: [] });
  assert.deepEqual(
    requests.map((q) => [q.method, q.range, q.status]),
    [['GET', `bytes=0-${FIRST_READ - 1}`, 206]],
  );
  assert.ok(sent > FIRST_READ && sent < FIRST_READ + 1024, `sent ${sent} bytes`);
});

test('a 24 MB header by Range: reads grow by a quarter, the server sends what was read', async () => {
  const server = servers.range;
  const { result, sent, requests } = await measured(server, () => open(`${server.origin}/vocab-262k.gguf`));
  const { report, stats } = result;
  assert.equal(report.vocab_size, 262144);
  assert.equal(stats.reads, requests.length);
  assert.ok(requests.every((q) => q.status === 206));
  assert.ok(stats.bytesRead <= 1.25 * report.header_size + FIRST_READ, `read ${stats.bytesRead}`);
  assert.ok(
    sent >= stats.bytesRead && sent < stats.bytesRead + 1024 * requests.length,
    `sent ${sent}, read ${stats.bytesRead}`,
  );
});

test('a server that ignores Range: the header from the start of the download, which is then cancelled', async () => {
  const server = servers.noRange;
  const { result, sent, requests } = await measured(server, () => open(`${server.origin}/big-40g-sparse.gguf`));
  assert.equal(result.report.parameters, ref('big-40g-sparse.gguf').param_count);
  assert.deepEqual(result.stats.notes, [
    'big-40g-sparse.gguf: the server ignores Range requests, so the header was read from the start of a download of the whole file, which was then cancelled',
  ]);
  assert.equal(requests.length, 1);
  assert.equal(requests[0].status, 200);
  // The 41.8 GB download stops after what the client's and the kernel's buffers held.
  assert.ok(sent < 64 << 20, `sent ${sent} bytes`);

  // The same for a 24 MB header, read in order from one stream.
  const big = await measured(server, () => open(`${server.origin}/vocab-262k.gguf`));
  assert.equal(big.result.report.vocab_size, 262144);
  assert.equal(big.requests.length, 1);
});

test("one shard's URL opens the whole split model, from any shard", async () => {
  for (const n of [1, 2, 3]) {
    const server = servers.range;
    const { result, requests } = await measured(server, () =>
      open(`${server.origin}/sharded-0000${n}-of-00003.gguf?download=true`),
    );
    const { report } = result;
    assert.equal(report.architecture, 'llama');
    assert.equal(report.parameters, 72);
    assert.equal(report.tensor_count, 6);
    assert.equal(report.file_size, 1120);
    assert.deepEqual(
      report.tensors.map((t) => t.shard),
      [1, 1, 2, 2, 3, 3],
    );
    assert.deepEqual(
      report.split.shards.map((s) => s.file),
      [1, 2, 3].map((k) => `sharded-0000${k}-of-00003.gguf`),
    );
    assert.deepEqual(report.findings, []);
    // Siblings are asked for beside the shard, with the same query (a hub's download flag or token).
    assert.deepEqual(
      requests.map((q) => q.url).sort(),
      [1, 2, 3].map((k) => `/sharded-0000${k}-of-00003.gguf?download=true`),
    );
  }
});

test('a shard the server does not have is reported missing, by name', async () => {
  const { report } = await open(`${servers.partial.origin}/sharded-00001-of-00003.gguf`);
  assert.equal(report.parameters, 48);
  assert.deepEqual(report.split.missing, [{ number: 2, file: 'sharded-00002-of-00003.gguf' }]);
  assert.deepEqual(
    report.findings.map((f) => [f.code, f.shard, f.file]),
    [['shard-missing', 2, 'sharded-00002-of-00003.gguf']],
  );
});

test('no such file: 404, said with the URL', async () => {
  const url = `${servers.range.origin}/nothing-here.gguf`;
  await assert.rejects(open(url), {
    name: 'HttpError',
    code: 'not-found',
    status: 404,
    message: `HTTP 404 Not Found: there is no file at ${url}`,
  });
  // The shard that was asked for must exist; its siblings may be missing.
  const shard = `${servers.partial.origin}/sharded-00002-of-00003.gguf`;
  await assert.rejects(open(shard), {
    code: 'not-found',
    status: 404,
    message: `HTTP 404 Not Found: there is no file at ${shard}`,
  });
});

test('a redirect is followed, and said', async () => {
  const server = servers.range;
  const { report, stats } = await open(`${server.origin}/redirect/minimal.gguf`);
  assert.equal(report.file_size, ref('minimal.gguf').file_size);
  assert.deepEqual(stats.notes, [`minimal.gguf: redirected to ${server.origin}/minimal.gguf`]);
});

test('a server that cannot be reached', async () => {
  const closed = await startModelServer(scratch);
  await closed.close();
  await assert.rejects(open(`${closed.origin}/minimal.gguf`), {
    code: 'unreachable',
    message: `cannot reach ${closed.origin}: the address is wrong, the server is down or redirects in circles, or this page's Content-Security-Policy (connect-src) does not allow it`,
  });
});

test('reads past what a Range-ignoring server has streamed are refused, not guessed', async () => {
  const blob = await HttpBlob.open(`${servers.noRange.origin}/minimal.gguf`, { prefetch: 16 });
  const head = new Uint8Array(await blob.slice(0, 4).arrayBuffer());
  assert.equal(new TextDecoder().decode(head), 'GGUF');
  await assert.rejects(blob.slice(50, 60).arrayBuffer(), {
    code: 'no-range',
    message: /only the start of minimal\.gguf can be read, in order, once/,
  });
  blob.close();
  await assert.rejects(blob.slice(4, 8).arrayBuffer(), /only the start/);
});

// A lying server (issue 33): every body is read as a stream, no further than the bytes asked for.

test('a server whose 206 bodies never end: each read stops at the bytes asked for, and the 24 MB header is read', async () => {
  const { lying } = servers;
  const before = lying.bytesSent();
  const { report, stats } = await open(`${lying.origin}/endless/vocab-262k.gguf`);
  assert.equal(report.kv_count, ref('vocab-262k.gguf').kv_count);
  await new Promise((resolve) => setTimeout(resolve, 1500)); // what the server would send on after its pause
  const sent = lying.bytesSent() - before;
  // The header, and what the server could push into the connection before it was cancelled.
  assert.ok(sent < stats.bytesRead + stats.reads * (8 << 20), `${sent} bytes sent for ${stats.bytesRead} read`);
});

test('a 206 body shorter than asked for is refused, naming the URL and the range', async () => {
  const url = `${servers.lying.origin}/short/minimal.gguf`;
  await assert.rejects(open(url), {
    name: 'HttpError',
    code: 'interrupted',
    message: new RegExp(`^${url} \\(bytes 0–95\\)`),
  });
});

test('a 206 body longer than asked for is refused, naming the URL and the range', async () => {
  // One chunk past the range (a real server's chunks fall where they fall).
  const fetched = globalThis.fetch;
  const bytes = readFileSync(`${fixtures}synth/minimal.gguf`);
  globalThis.fetch = async () =>
    new Response(Buffer.concat([bytes, Buffer.alloc(100)]), {
      status: 206,
      headers: { 'Content-Range': `bytes 0-${bytes.length - 1}/${bytes.length}` },
    });
  try {
    await assert.rejects(open('http://127.0.0.1:9/more/minimal.gguf'), {
      code: 'no-range',
      message:
        /^http:\/\/127\.0\.0\.1:9\/more\/minimal\.gguf \(bytes 0–95\): the server sent more than the 96 bytes asked for/,
    });
  } finally {
    globalThis.fetch = fetched;
  }
});

test('a server that sends nothing — no answer, or headers and no body — is given up after the stall limit', async () => {
  setStallLimit(300);
  try {
    for (const kind of ['silent', 'silent-body']) {
      const url = `${servers.lying.origin}/${kind}/minimal.gguf`;
      await assert.rejects(open(url), { code: 'interrupted', message: new RegExp(`^${url}.*nothing for 0\\.3 s`) });
    }
  } finally {
    setStallLimit(10_000);
  }
});
