// End-to-end tests of URL mode and split models in headless Chromium. The page is served by
// scripts/serve.mjs on one origin; the models by send (scripts/model-server.mjs) on others, so
// every request is cross-origin and CORS is really checked: a server that honours Range, one that
// ignores it, one without CORS headers, one that allows the page but hides Content-Range, and one
// that lacks a shard. The bytes each server sent are counted. Run after scripts/build-web.sh.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { drop, fields, fixtures, pick, repo, startViewer, waitFor } from './browser.mjs';
import { startModelServer } from '../../scripts/model-server.mjs';

/** The core's first header read (gguf_core::read::FIRST_READ). */
const FIRST_READ = 256 * 1024;

const shots = `${repo}test-results/`;
const ref = (name) => JSON.parse(readFileSync(`${fixtures}ref/${name}.summary.json`, 'utf8'));
const shard = (n) => `sharded-0000${n}-of-00003.gguf`;

let viewer;
let page;
let scratch;
let partial;
const servers = {};
const closedOrigins = []; // servers asked for that were gone
const requests = [];
const pageErrors = [];

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-e2e-url-`);
  execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`, scratch]);
  for (const name of ['minimal.gguf', shard(1), shard(2), shard(3)])
    symlinkSync(`${fixtures}synth/${name}`, `${scratch}/${name}`);
  symlinkSync(`${fixtures}real/ggml-vocab-command-r.gguf`, `${scratch}/ggml-vocab-command-r.gguf`);
  partial = mkdtempSync(`${tmpdir()}/ggufscope-e2e-partial-`);
  for (const n of [1, 3]) symlinkSync(`${fixtures}synth/${shard(n)}`, `${partial}/${shard(n)}`);
  servers.range = await startModelServer(scratch);
  servers.noRange = await startModelServer(scratch, { range: false });
  servers.noCors = await startModelServer(scratch, { cors: false });
  servers.noExpose = await startModelServer(scratch, { expose: false });
  servers.partial = await startModelServer(partial);
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on(
    'console',
    (m) =>
      m.type() === 'error' && !/Failed to load resource|blocked by CORS/.test(m.text()) && pageErrors.push(m.text()),
  );
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
});

after(async () => {
  await viewer?.close();
  await Promise.all(Object.values(servers).map((s) => s.close()));
  for (const dir of [scratch, partial]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Types `url` into the page's URL field and opens it. */
async function enter(url) {
  await page.fill('#url-input', url);
  await page.click('#url-form button[type="submit"]');
}

/** The bytes `server` sent while `f` ran (a cancelled download is given time to wind down). */
async function sent(server, f) {
  const before = server.bytesSent();
  await f();
  await page.waitForTimeout(300);
  return server.bytesSent() - before;
}

test('the URL field: a 41.8 GB file on another origin from one Range request of 256 KiB', async (t) => {
  const url = `${servers.range.origin}/big-40g-sparse.gguf`;
  const bytes = await sent(servers.range, async () => {
    await enter(url);
    await waitFor(page, 'big-40g-sparse.gguf');
  });
  t.diagnostic(`server sent ${bytes} bytes`);
  const f = await fields(page);
  const r = ref('big-40g-sparse.gguf');
  assert.equal(f.file_size, String(r.file_size));
  assert.equal(f.parameters, String(r.param_count));
  assert.equal(f.tensor_count, String(r.tensor_count));
  assert.equal(f.bytes_read, String(FIRST_READ));
  assert.ok(bytes > FIRST_READ && bytes < FIRST_READ + 2048, `sent ${bytes} bytes`);
  assert.equal(new URL(page.url()).searchParams.get('url'), url, 'the address names the URL, to share it');
  assert.ok(await page.isHidden('#read-notes'));
  assert.ok(await page.isHidden('#shards'));
});

test('?url= in the address: a real 256k-vocabulary file, its array paged as with a file', async () => {
  const url = `${servers.range.origin}/ggml-vocab-command-r.gguf`;
  await page.goto(`${viewer.origin}/?url=${encodeURIComponent(url)}`);
  await waitFor(page, 'ggml-vocab-command-r.gguf');
  const f = await fields(page);
  assert.equal(f.vocab_size, '256000');
  assert.equal(await page.inputValue('#url-input'), url);
  const tokens = page.locator('tr[data-key="tokenizer.ggml.tokens"]');
  await tokens.getByRole('button', { name: 'Browse 256,000 elements' }).click();
  await tokens.locator('.pager tbody tr').nth(99).waitFor();
});

test('a server that ignores Range: the header from the start of the download, then it is cancelled', async (t) => {
  const bytes = await sent(servers.noRange, async () => {
    await enter(`${servers.noRange.origin}/big-40g-sparse.gguf`);
    await waitFor(page, 'big-40g-sparse.gguf');
  });
  t.diagnostic(`server sent ${bytes} bytes of 41.8 GB`);
  assert.equal((await fields(page)).parameters, String(ref('big-40g-sparse.gguf').param_count));
  assert.match(
    await page.textContent('#read-notes'),
    /the server ignores Range requests, so the header was read from the start of a download of the whole file, which was then cancelled/,
  );
  assert.ok(bytes < 64 << 20, `sent ${bytes} bytes`);
  const last = servers.noRange.requests.at(-1);
  assert.equal(last.status, 200);
  await page.screenshot({ path: `${shots}url-no-range.png` });
});

test('a server without CORS headers: the page says so, and what the server must send', async () => {
  await enter(`${servers.noCors.origin}/minimal.gguf`);
  await waitFor(page, 'minimal.gguf', 'error');
  const message = await page.textContent('[data-field="error_message"]');
  assert.match(
    message,
    new RegExp(
      `^${servers.noCors.origin} answered, but does not allow this page \\(${viewer.origin}\\) to read minimal\\.gguf \\(CORS\\)`,
    ),
  );
  assert.match(
    message,
    /must send Access-Control-Allow-Origin: \* \(or http:\/\/127\.0\.0\.1:\d+\), and Access-Control-Expose-Headers: Content-Range, Content-Length/,
  );
  assert.ok(await page.isHidden('[data-field="error_offset"]'));
  await page.screenshot({ path: `${shots}url-cors.png` });
});

test('a server that allows the page but hides Content-Range: the size cannot be had, said so', async () => {
  await enter(`${servers.noExpose.origin}/minimal.gguf`);
  await waitFor(page, 'minimal.gguf', 'error');
  assert.match(
    await page.textContent('[data-field="error_message"]'),
    /does not let this page read its Content-Range header, which gives the file's size: it must send Access-Control-Expose-Headers: Content-Range, Content-Length/,
  );
});

test('404 and a server that cannot be reached', async () => {
  const missing = `${servers.range.origin}/no-such-model.gguf`;
  await enter(missing);
  await waitFor(page, 'no-such-model.gguf', 'error');
  assert.equal(
    await page.textContent('[data-field="error_message"]'),
    `HTTP 404 Not Found: there is no file at ${missing}`,
  );

  const gone = await startModelServer(scratch);
  await gone.close();
  closedOrigins.push(`${gone.origin}/`);
  await enter(`${gone.origin}/minimal.gguf`);
  await waitFor(page, 'minimal.gguf', 'error');
  assert.match(await page.textContent('[data-field="error_message"]'), new RegExp(`^cannot reach ${gone.origin}`));
});

test('a redirect is followed, and the page says where to', async () => {
  await enter(`${servers.range.origin}/redirect/minimal.gguf`);
  await waitFor(page, 'minimal.gguf');
  assert.equal((await fields(page)).file_size, String(ref('minimal.gguf').file_size));
  assert.equal(
    await page.textContent('#read-notes'),
    `minimal.gguf: redirected to ${servers.range.origin}/minimal.gguf`,
  );
});

test('a redirect loop, a redirect to file: and a web page are each said as such, not as CORS', async () => {
  const origin = servers.range.origin;
  const cannotFollow = (url) =>
    `${url} redirects, and its redirects cannot be followed: they go in a loop or on too long, or lead to an address that is not http(s) or that this page's Content-Security-Policy (connect-src) does not allow`;
  for (const [path, name, message] of [
    ['loop/a', 'a', cannotFollow(`${origin}/loop/a`)],
    ['to-file/minimal.gguf', 'minimal.gguf', cannotFollow(`${origin}/to-file/minimal.gguf`)],
    [
      'html/minimal.gguf',
      'minimal.gguf',
      `${origin}/html/minimal.gguf is a web page (text/html), not a file: use the file's download link (on Hugging Face, …/resolve/…, not …/blob/…)`,
    ],
  ]) {
    await enter(`${origin}/${path}`);
    await waitFor(page, name, 'error');
    assert.equal(await page.textContent('[data-field="error_message"]'), message, path);
  }
});

test('a name promising 1,024 shards opens that file alone, in one request, and says so', async () => {
  const name = 'capped-00001-of-01024.gguf';
  symlinkSync(`${fixtures}synth/minimal.gguf`, `${scratch}/${name}`);
  const before = servers.range.requests.length;
  await enter(`${servers.range.origin}/${name}`);
  await waitFor(page, name);
  assert.deepEqual(
    servers.range.requests.slice(before).map((q) => q.url),
    [`/${name}`],
  );
  assert.match(
    await page.textContent('#read-notes'),
    /capped-00001-of-01024\.gguf: its name says the model has 1024 shards, more than the 256 read by themselves: only this file was read/,
  );
});

/** The page shows the three-shard fixture as one model: the shards' figures summed. */
async function assertWholeSplitModel() {
  const refs = [1, 2, 3].map((n) => ref(shard(n)));
  const sum = (k) => String(refs.reduce((a, r) => a + r[k], 0));
  const f = await fields(page);
  assert.equal(f.architecture, 'llama');
  assert.equal(f.name, 'sharded model');
  assert.equal(f.parameters, sum('param_count'));
  assert.equal(f.tensor_bytes, sum('tensor_bytes'));
  assert.equal(f.file_size, sum('file_size'));
  assert.equal(f.tensor_count, '6');
  assert.equal(f['split.count'], '3');
  assert.equal(await page.textContent('[data-field="split.count"]'), '3 of 3');
  assert.equal(await page.textContent('#shards-count'), '3 of 3');
  assert.deepEqual(
    await page.locator('#shards tbody tr').evaluateAll((rs) => rs.map((r) => [r.dataset.shard, r.dataset.state])),
    [
      ['1', 'read'],
      ['2', 'read'],
      ['3', 'read'],
    ],
  );
  assert.deepEqual(await page.locator('#tensors tbody td.shard').allTextContents(), ['1', '1', '2', '2', '3', '3']);
  assert.equal(await page.textContent('#findings'), 'No problems found in the header.');
}

test("one shard's URL: its siblings are found beside it and the model is shown as one", async () => {
  await enter(`${servers.range.origin}/${shard(2)}`);
  await waitFor(page, shard(2));
  await assertWholeSplitModel();
  await page.screenshot({ path: `${shots}split-url.png`, fullPage: true });
});

test('the three shards dropped at once are one model; picked without the second, it is named missing', async () => {
  await drop(
    page,
    [3, 1, 2].map((n) => `${fixtures}synth/${shard(n)}`),
  );
  await waitFor(page, `${shard(1)} (+2 more)`);
  await assertWholeSplitModel();
  assert.equal(new URL(page.url()).search, '', 'the address no longer names a URL');

  await pick(
    page,
    [1, 3].map((n) => `${fixtures}synth/${shard(n)}`),
  );
  await waitFor(page, `${shard(1)} (+1 more)`);
  const f = await fields(page);
  assert.equal(f.parameters, '48');
  assert.equal(await page.textContent('[data-field="split.count"]'), '2 of 3 (1 missing)');
  const missing = page.locator('#shards tr[data-state="missing"]');
  assert.equal(await missing.getAttribute('data-shard'), '2');
  assert.match(await missing.textContent(), new RegExp(`${shard(2)}.*missing: its tensors are not counted`));
  const finding = page.locator('#findings tr[data-code="shard-missing"]');
  assert.match(await finding.textContent(), new RegExp(`error.*shard 2 of 3 \\(${shard(2)}\\) is missing`));
  assert.equal(await finding.locator('.shard-file').textContent(), shard(2));
  await page.screenshot({ path: `${shots}split-missing.png`, fullPage: true });
});

test('a shard missing on the server: the model of the others, and which one is missing', async () => {
  await enter(`${servers.partial.origin}/${shard(1)}`);
  await waitFor(page, shard(1));
  assert.equal((await fields(page)).parameters, '48');
  assert.equal(await page.locator('#shards tr[data-state="missing"]').getAttribute('data-shard'), '2');
});

test('a peek at a tensor of a model opened by URL: its bytes alone, by Range, from its own shard', async () => {
  const peekAt = async (name) => {
    await page.fill('#tensor-filter', name);
    const exactly = new RegExp(`^${name.replaceAll('.', '\\.')}$`);
    await page
      .locator('#tensors tbody tr', { has: page.locator('td.name', { hasText: exactly }) })
      .locator('.peek-button')
      .click();
    await page.waitForSelector('.peek[data-state="ready"], .peek[data-state="error"]');
    return page.locator('.peek');
  };
  // A tensor of the third shard: its bytes come from that file (the first read of each shard
  // holds all of these small files, so no request is needed).
  await enter(`${servers.range.origin}/${shard(1)}`);
  await waitFor(page, shard(1));
  assert.equal(await (await peekAt('blk.2.ffn_norm.weight')).getAttribute('data-state'), 'ready');

  const output = ref('big-40g-sparse.gguf').tensors.find((t) => t.name === 'output.weight');
  await enter(`${servers.range.origin}/big-40g-sparse.gguf`);
  await waitFor(page, 'big-40g-sparse.gguf');
  const asked = servers.range.requests.length;
  const bytes = await sent(servers.range, async () =>
    assert.match(await (await peekAt('output.weight')).locator('.warning').textContent(), /Every value is zero/),
  );
  const ranges = servers.range.requests.slice(asked).map((q) =>
    q.range
      .match(/^bytes=(\d+)-(\d+)$/)
      .slice(1)
      .map(Number),
  );
  assert.ok(
    ranges.length > 0 &&
      ranges.every(([first, last]) => first >= output.abs_offset && last < output.abs_offset + output.n_bytes),
    JSON.stringify(ranges),
  );
  assert.ok(bytes <= 2 * 16 * 1024 * 1024 + 4096 * ranges.length, `sent ${bytes} bytes`);
});

test("no request went anywhere but the page's origin and the servers asked, and no script error happened", () => {
  const asked = [...Object.values(servers).map((s) => `${s.origin}/`), ...closedOrigins];
  const elsewhere = requests.filter(
    (url) => !url.startsWith(`${viewer.origin}/`) && !asked.some((o) => url.startsWith(o)),
  );
  assert.deepEqual(elsewhere, []);
  assert.deepEqual(pageErrors, []);
});
