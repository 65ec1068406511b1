// Warm start on a hub's page: a page with a <gguf-viewer> and no file yet (a copy of dist/ with
// such a page, under the embedding policy) starts the parser's worker and compiles its wasm in
// idle time, asking for nothing but the page's own files — no model, no other origin, no file the
// site does not have — and the first file opened takes that worker: no second worker, no second
// request for the worker or the parser. The site's page, which opens its sample as it loads, hands
// a file dropped while the sample is still read to the same worker. How fast each is, is measured
// by scripts/bench-browser.mjs, not here.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { drop, fixtures, repo, servedAs, startViewer, waitFor } from './browser.mjs';
import { policy } from '../../scripts/csp.mjs';
import { startModelServer } from '../../scripts/model-server.mjs';

let scratch;
let viewer;

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-e2e-warm-`);
  cpSync(`${repo}dist`, scratch, { recursive: true });
  writeFileSync(
    `${scratch}/hub.html`,
    `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>A hub's page, no file yet</title>
    <script type="module" src="gguf-viewer.js"></script>
  </head>
  <body>
    <input type="file" id="file" />
    <gguf-viewer id="viewer"></gguf-viewer>
  </body>
</html>
`,
  );
  viewer = await startViewer({ root: scratch, headers: { 'Content-Security-Policy': policy('embedding') } });
});

after(async () => {
  await viewer?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test("before a file is opened, the element's page starts the worker and compiles the parser, asking for nothing but its own files; the first file takes that worker", async () => {
  const page = await viewer.browser.newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  const workers = [];
  page.on('worker', (w) => workers.push(w.url()));
  await page.goto(`${viewer.origin}/hub.html`, { waitUntil: 'load' });
  // The page's idle time comes after its load; the parser is compiled once its wasm is in.
  await page.waitForResponse((r) => r.url().endsWith(servedAs('web/pkg/gguf_wasm_bg.wasm')), { timeout: 30_000 });
  await page.waitForTimeout(500);
  assert.deepEqual(
    workers.map((url) => new URL(url).pathname),
    [servedAs('web/gguf-worker.js')],
    'one worker, started before any file',
  );
  const before = requests.map((url) => new URL(url));
  for (const url of before) {
    assert.equal(url.origin, viewer.origin, `${url.href}: nothing from another origin`);
    assert.ok(
      existsSync(`${scratch}${decodeURIComponent(url.pathname)}`),
      `${url.pathname} is one of the page's files`,
    );
  }
  const asked = before.map((url) => url.pathname);
  assert.ok(!asked.some((p) => p.endsWith('.gguf')), 'no model asked for');
  assert.ok(!asked.some((p) => /\/web\/pkg-/.test(p)), 'no other wasm module than the parser');

  await page.setInputFiles('#file', `${fixtures}real/ggml-vocab-command-r.gguf`);
  const report = await page.evaluate(() =>
    /** @type {any} */ (document.getElementById('viewer')).open(
      /** @type {HTMLInputElement} */ (document.getElementById('file')).files[0],
    ),
  );
  assert.equal(report.architecture, 'command-r');
  assert.equal(await page.evaluate(() => document.getElementById('viewer').dataset.state), 'ready');
  assert.equal(workers.length, 1, 'the file was read in the worker started before it');
  const again = requests.slice(before.length).map((url) => new URL(url).pathname);
  assert.ok(!again.includes(servedAs('web/gguf-worker.js')), 'the worker was not asked for again');
  assert.ok(!again.includes(servedAs('web/pkg/gguf_wasm_bg.wasm')), 'nor the parser');
  await page.close();
});

test("the site's page hands a file dropped while another is still read to the same worker", async () => {
  // A model server sending its file a byte a second: the read is still going when the file is dropped.
  const models = await startModelServer(scratch);
  const site = await startViewer();
  try {
    const page = await site.browser.newPage();
    const workers = [];
    page.on('worker', (w) => workers.push(new URL(w.url()).pathname));
    await page.goto(`${site.origin}/?url=${encodeURIComponent(`${models.origin}/slow/sample.gguf`)}`);
    await page.waitForFunction(
      () => document.body.dataset.state === 'loading' && document.body.dataset.file === 'sample.gguf',
    );
    await drop(page, `${fixtures}real/ggml-vocab-command-r.gguf`);
    await waitFor(page, 'ggml-vocab-command-r.gguf');
    assert.deepEqual(workers, [servedAs('web/gguf-worker.js')], 'no second worker started for the file');
    await page.close();
  } finally {
    await site.close();
    await models.close();
  }
});
