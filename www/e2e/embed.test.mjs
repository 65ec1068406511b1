// The embeddable viewer in headless Chromium: www/embed.html, a mock model-hub page, served with a
// strict Content-Security-Policy as an HTTP header (so that it binds the worker too) that allows
// scripts, styles and workers from the page's origin, WebAssembly, and connections to the page
// and to one model server only. The <gguf-viewer> element shows the sample, a URL on the allowed
// server, and says why one on another server cannot be read; its styles and the page's stay
// apart; it adds no globals; the module API `open()` works under the same policy; a header that
// stops the parser (write-fixtures' heavy-headers) is said by the element's
// error event and by open()'s rejection, as on the viewer's page; `edit()` works under the policy.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { fixtures, repo, startViewer } from './browser.mjs';
import { policy } from '../../scripts/csp.mjs';
import { linkBuiltFixture } from '../../web/test/paths.mjs';
import { startModelServer } from '../../scripts/model-server.mjs';

const shots = `${repo}test-results/`;
const ref = (name) => JSON.parse(readFileSync(`${fixtures}ref/${name}.summary.json`, 'utf8'));

let scratch;
let models; // allowed by connect-src
let elsewhere; // not allowed
let viewer;
let page;
const violations = [];
const pageErrors = [];

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-e2e-embed-`);
  execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`, scratch]);
  for (const n of [1, 2, 3])
    symlinkSync(`${fixtures}synth/sharded-0000${n}-of-00003.gguf`, `${scratch}/sharded-0000${n}-of-00003.gguf`);
  linkBuiltFixture('heavy-headers', scratch);
  models = await startModelServer(scratch);
  elsewhere = await startModelServer(scratch);
  // The embedding policy (www/csp.json) with the model server's origin in connect-src, as a hub adds its own.
  const csp = `${policy('embedding').replace("connect-src 'self'", `connect-src 'self' ${models.origin}`)}; base-uri 'none'; form-action 'none'`;
  viewer = await startViewer({ headers: { 'Content-Security-Policy': csp } });
  page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    (/Content Security Policy/.test(m.text()) ? violations : pageErrors).push(m.text());
  });
});

after(async () => {
  await viewer?.close();
  await models?.close();
  await elsewhere?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Waits until the element shows `name` in `state`. */
async function waitForElement(name, state = 'ready') {
  await page.waitForFunction(
    ([n, s]) => {
      const e = document.querySelector('gguf-viewer');
      return e?.dataset.file === n && e.dataset.state === s;
    },
    [name, state],
    { timeout: 60_000 },
  );
}

/** `{field: data-value}` of the values in the element's shadow root. */
function fields() {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelector('gguf-viewer').shadowRoot.querySelectorAll('[data-field]')].map((e) => [
        e.dataset.field,
        e.dataset.value ?? e.textContent,
      ]),
    ),
  );
}

test('the mock hub page shows the sample in <gguf-viewer> under the strict policy, and fills its sidebar from the load event', async () => {
  const response = await page.goto(`${viewer.origin}/embed.html`);
  assert.match(response.headers()['content-security-policy'], /connect-src 'self' http:\/\/127\.0\.0\.1:\d+;/);
  await waitForElement('sample.gguf');
  const f = await fields();
  assert.equal(f.architecture, 'llama');
  assert.equal(f['attention.kind'], 'GQA');
  assert.equal(await page.textContent('#hub-parameters'), '3.28 M');
  assert.equal(await page.textContent('#hub-quantization'), 'Q4_K_M');
  // Playwright's locators reach into the open shadow root, as a person's eyes do.
  assert.equal(await page.locator('gguf-viewer #tensors tbody > tr').count(), Number(f.tensor_count));
  assert.deepEqual(violations, []);
  await page.screenshot({ path: `${shots}embed-sample.png`, fullPage: true });
});

test('styles stay on their side of the shadow root', async () => {
  const styles = await page.evaluate(() => {
    const shadow = document.querySelector('gguf-viewer').shadowRoot;
    const font = (e) => getComputedStyle(e).fontFamily;
    return {
      hubBody: font(document.body),
      hubHeading: getComputedStyle(document.querySelector('.hub-main h2')).marginTop,
      card: font(shadow.querySelector('.card')),
      viewerHeading: getComputedStyle(shadow.querySelector('.panel h2')).marginTop,
      hubHasViewerRules: [...document.styleSheets].some((s) =>
        [...s.cssRules].some((r) => r.selectorText?.includes('.card')),
      ),
    };
  });
  assert.match(styles.hubBody, /Georgia/);
  assert.match(styles.card, /system-ui/);
  assert.notEqual(styles.hubHeading, '0px', "the viewer's `h2 { margin: 0 }` does not reach the page");
  assert.equal(styles.viewerHeading, '0px');
  assert.equal(styles.hubHasViewerRules, false);
});

test("no globals: the page's window has what a blank page has", async () => {
  const names = () => Object.getOwnPropertyNames(window).sort();
  const embedded = await page.evaluate(names);
  const blank = await viewer.browser.newPage();
  await blank.goto(`${viewer.origin}/favicon.svg`);
  const plain = await blank.evaluate(names);
  await blank.close();
  assert.deepEqual(
    embedded.filter((n) => !plain.includes(n)),
    [],
  );
  assert.equal(await page.evaluate(() => customElements.get('gguf-viewer')?.name), 'GgufViewerElement');
});

test("src on the allowed server: a 41.8 GB file, then one shard's URL brings the whole split model", async () => {
  await page.goto(`${viewer.origin}/embed.html?src=${encodeURIComponent(`${models.origin}/big-40g-sparse.gguf`)}`);
  await waitForElement('big-40g-sparse.gguf');
  const r = ref('big-40g-sparse.gguf');
  assert.equal((await fields()).file_size, String(r.file_size));
  assert.equal(await page.textContent('#hub-size'), '41.8 GB');

  await page.evaluate(
    (url) => document.querySelector('gguf-viewer').setAttribute('src', url),
    `${models.origin}/sharded-00002-of-00003.gguf`,
  );
  await waitForElement('sharded-00002-of-00003.gguf');
  const f = await fields();
  assert.equal(f.parameters, '72');
  assert.equal(f['split.count'], '3');
  assert.equal(await page.locator('gguf-viewer #shards tbody tr[data-state="read"]').count(), 3);
  assert.deepEqual(violations, []);
  await page.screenshot({ path: `${shots}embed-split.png`, fullPage: true });
});

test('a server the policy does not allow: the element says it cannot be reached and why it may be', async () => {
  const url = `${elsewhere.origin}/big-40g-sparse.gguf`;
  const requestsBefore = elsewhere.requests.length;
  await page.evaluate((u) => document.querySelector('gguf-viewer').setAttribute('src', u), url);
  await waitForElement('big-40g-sparse.gguf', 'error');
  const message = await page.evaluate(
    () => document.querySelector('gguf-viewer').shadowRoot.querySelector('[data-field="error_message"]').textContent,
  );
  assert.equal(
    message,
    `cannot reach ${elsewhere.origin}: the address is wrong, the server is down or redirects in circles, or this page's Content-Security-Policy (connect-src) does not allow it`,
  );
  assert.match(await page.textContent('#hub-parameters'), /^cannot read the file: cannot reach/);
  const code = await page.evaluate(
    () => document.querySelector('gguf-viewer').shadowRoot.getElementById('error').dataset.code,
  );
  assert.equal(code, 'unreachable');
  assert.equal(elsewhere.requests.length, requestsBefore, 'the browser sent nothing to it');
  // It is the policy that stopped it: the server is up and serves the file.
  assert.equal((await fetch(url, { headers: { Range: 'bytes=0-3' } })).status, 206);
});

test('the element opens Files too, and the module API open() resolves the report under the same policy', async () => {
  await page.evaluate(() =>
    document.body.append(
      Object.assign(document.createElement('input'), { type: 'file', id: 'hub-pick', multiple: true }),
    ),
  );
  await page.setInputFiles(
    '#hub-pick',
    [1, 2, 3].map((n) => `${fixtures}synth/sharded-0000${n}-of-00003.gguf`),
  );
  const parameters = await page.evaluate(
    async () =>
      (await document.querySelector('gguf-viewer').open([...document.getElementById('hub-pick').files])).parameters,
  );
  assert.equal(parameters, 72);
  assert.equal(await page.getAttribute('gguf-viewer', 'data-file'), 'sharded-00001-of-00003.gguf (+2 more)');

  const report = await page.evaluate(async (url) => {
    const { open } = await import('./web/gguf.js');
    const r = await open(url);
    return { parameters: r.parameters, missing: r.split?.missing ?? null, tensors: r.tensor_count };
  }, `${models.origin}/big-40g-sparse.gguf`);
  assert.deepEqual(report, {
    parameters: ref('big-40g-sparse.gguf').param_count,
    missing: null,
    tensors: ref('big-40g-sparse.gguf').tensor_count,
  });
  const refused = await page.evaluate(async (url) => {
    const { open } = await import('./web/gguf.js');
    return open(url).then(
      () => null,
      (e) => e.message,
    );
  }, `${models.origin}/nothing.gguf`);
  assert.equal(refused, `HTTP 404 Not Found: there is no file at ${models.origin}/nothing.gguf`);
  assert.deepEqual(pageErrors, []);
});

test('a header that stops the parser: the element says why in its error event, then opens the next model; open() rejects with the same failure', async () => {
  await page.evaluate(() =>
    document.body.append(Object.assign(document.createElement('input'), { type: 'file', id: 'hub-hostile' })),
  );
  await page.setInputFiles('#hub-hostile', `${scratch}/empty-arrays.gguf`);
  const stopped = await page.evaluate(async () => {
    const element = document.querySelector('gguf-viewer');
    const event = new Promise((resolve) =>
      element.addEventListener('error', ({ detail }) => resolve(detail), { once: true }),
    );
    const report = await element.open([...document.getElementById('hub-hostile').files]);
    return { report, detail: await event, state: element.dataset.state };
  });
  const outOfMemory =
    'the parser crashed (out of memory: this file needs more than the 512 MiB the parser may use); it was restarted';
  assert.deepEqual(stopped, {
    report: null,
    detail: { code: 'out-of-memory', message: outOfMemory, kind: 'out-of-memory' },
    state: 'error',
  });

  const next = await page.evaluate(
    async () => (await document.querySelector('gguf-viewer').open('sample.gguf')).parameters,
  );
  assert.equal(next, 3_279_104);
  assert.equal(await page.getAttribute('gguf-viewer', 'data-state'), 'ready');

  const rejected = await page.evaluate(async () => {
    const { open } = await import('./web/gguf.js');
    return open(document.getElementById('hub-hostile').files[0]).then(
      () => null,
      (e) => ({ name: e.name, code: e.code, message: e.message, offset: e.offset, context: e.context }),
    );
  });
  assert.deepEqual(rejected, {
    name: 'ParserFailure',
    code: 'out-of-memory',
    message: outOfMemory,
    offset: null,
    context: null,
  });
  assert.deepEqual(violations, []);
  assert.deepEqual(pageErrors, []);
});

test('the module API edit() under the same policy: a picked 41.8 GB file edited reading its header only, the result a Blob that open() reads', async () => {
  await page.evaluate(() =>
    document.body.append(Object.assign(document.createElement('input'), { type: 'file', id: 'hub-edit' })),
  );
  await page.setInputFiles('#hub-edit', `${scratch}/big-40g-sparse.gguf`);
  const edited = await page.evaluate(async () => {
    const { edit, editWithChanges, open } = await import('./web/gguf.js');
    const file = document.getElementById('hub-edit').files[0];
    const started = performance.now();
    const made = await editWithChanges(file, [
      { set: 'general.name', value: 'renamed in the page' },
      { set: 'tokenizer.ggml.eos_token_id', value: 2, type: 'UINT32' },
    ]);
    const ms = performance.now() - started;
    const report = await open(made.file);
    const refused = await edit(file, [{ set: 'general.alignment', value: 64 }]).catch((e) => e);
    return {
      blob: made.file instanceof Blob,
      size: made.file.size,
      sizes: made.file_size,
      read: made.read,
      ms,
      name: report.metadata.find((e) => e.key === 'general.name').value,
      eos: report.metadata.find((e) => e.key === 'tokenizer.ggml.eos_token_id')?.type,
      tensors: report.tensor_count,
      dataOffset: report.data_offset === made.data_offset.after,
      refused: { code: refused.code, key: refused.key },
    };
  });
  const r = ref('big-40g-sparse.gguf');
  assert.ok(edited.blob);
  assert.equal(edited.size, edited.sizes.after);
  assert.equal(edited.sizes.before, r.file_size);
  assert.deepEqual(edited.read, { bytesRead: 256 * 1024, reads: 1 }, "one slice: the decoder's first read");
  assert.ok(edited.ms < 5000, `${edited.ms} ms`);
  assert.equal(edited.name, 'renamed in the page');
  assert.equal(edited.eos, 'UINT32');
  assert.equal(edited.tensors, r.tensor_count);
  assert.ok(edited.dataOffset);
  assert.deepEqual(edited.refused, { code: 'alignment', key: 'general.alignment' });
  assert.deepEqual(violations, []);
  assert.deepEqual(pageErrors, []);
});
