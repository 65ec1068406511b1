// End-to-end tests of the page's "Compare with upstream" panel (upstream-view.js) in headless
// Chromium: a fixture model (Phi-3's vocabulary, its source repository named with `ggufscope
// edit`) against its configuration dropped on the page shows no differences and every check
// `ggufscope upstream --json` makes; a changed field is that field `differs`, with both values,
// its keys and the CLI's explanation; a changed chat template is a line diff; a file picked in
// the panel that is not an upstream file is said so; files picked offline are checked; axe-core
// in light and dark, 390 px. A request log shows nothing leaves the page's origin until the user
// clicks Fetch — then only the four files of the repository asked (Hugging Face's, answered by
// the test, or a loopback server's).
// Run after scripts/build-web.sh: node --test www/e2e/upstream.test.mjs. Screenshots go to
// test-results/ (not committed).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { axeViolations, drop, fixtures, pick, repo, servedAs, startViewer, waitFor } from './browser.mjs';
import { ggufscopeBin } from '../../web/test/paths.mjs';
import { startModelServer } from '../../scripts/model-server.mjs';

const shots = `${repo}test-results/`;
const PHI = `${fixtures}real/ggml-vocab-phi-3.gguf`;
const DATA = `${repo}crates/gguf-upstream/tests/data/phi-3/`;
const SOURCE = 'https://huggingface.co/microsoft/Phi-3-mini-4k-instruct';

let viewer;
let page;
let scratch;
let model; // PHI with general.source.url naming SOURCE
let models; // a loopback server over scratch: another origin, as a model hub is
const requests = [];
const pageErrors = [];

/** Runs the CLI (`ggufscope ARGS…`): `{status, stdout, stderr}`, not blocking. */
function ggufscope(...args) {
  const child = spawn(ggufscopeBin(), args);
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d) => (out.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (out.stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) =>
      status === null || status > 1
        ? reject(new Error(`ggufscope ${args.join(' ')}: ${out.stderr}`))
        : resolve({ status, ...out }),
    );
  });
}

/** `ggufscope upstream --json MODEL DIR`'s document. */
async function cliDocument(dir) {
  return JSON.parse((await ggufscope('upstream', '--json', model, dir)).stdout);
}

/** A directory of upstream files: Phi-3's configuration, with `change` applied to config.json, and `extra` files. */
function configSet(name, change = () => {}, extra = {}) {
  const dir = `${scratch}/${name}`;
  mkdirSync(dir, { recursive: true });
  const config = JSON.parse(readFileSync(`${DATA}config.json`, 'utf8'));
  change(config);
  writeFileSync(`${dir}/config.json`, JSON.stringify(config, null, 2));
  copyFileSync(`${DATA}tokenizer_config.json`, `${dir}/tokenizer_config.json`);
  for (const [file, text] of Object.entries(extra)) writeFileSync(`${dir}/${file}`, text);
  return dir;
}

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-upstream-e2e-`);
  model = `${scratch}/phi-3-named.gguf`;
  await ggufscope('edit', PHI, '-o', model, '--set', `general.source.url:str=${SOURCE}`);
  models = await startModelServer(scratch);
  mkdirSync(shots, { recursive: true });
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(`${m.text()} ${m.location().url}`));
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
  await pick(page, model);
  await waitFor(page, 'phi-3-named.gguf');
});

after(async () => {
  await viewer?.close();
  await models?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Requests that left the page's origin so far. */
const outside = () => requests.filter((url) => !url.startsWith(`${viewer.origin}/`));

/** Drops the files of `dir` named `names` on the page; resolves when the panel has answered. */
async function dropFiles(dir, names) {
  await page.evaluate(() => document.getElementById('upstream').removeAttribute('data-state'));
  await drop(
    page,
    names.map((n) => `${dir}/${n}`),
  );
  await page.waitForSelector('#upstream:is([data-state="ready"], [data-state="error"], [data-state="waiting"])', {
    timeout: 60_000,
  });
}

/** The table's rows as `[field, status]`. */
function rows() {
  return page.$$eval('#upstream [data-field="upstream-checks"] tbody tr', (trs) =>
    trs.map((tr) => [tr.dataset.check, tr.dataset.status]),
  );
}

test('a matching configuration dropped on the page: no differences, every check the CLI makes', async () => {
  await page.click('[data-action="upstream"]');
  assert.ok(await page.locator('#upstream').isVisible());
  // The repository the file names is offered, not fetched.
  assert.equal(
    await page.getAttribute('#upstream [data-action="upstream-fetch"]', 'data-repo'),
    'microsoft/Phi-3-mini-4k-instruct',
  );
  const dir = configSet('matching');
  await dropFiles(dir, ['config.json']); // several drops add up; config.json alone checks already
  await dropFiles(dir, ['tokenizer_config.json']);
  assert.equal(await page.getAttribute('#upstream', 'data-state'), 'ready');
  const cli = await cliDocument(dir);
  assert.equal(cli.differences, 0);
  assert.equal(await page.getAttribute('[data-field="upstream-differences"]', 'data-value'), '0');
  assert.match(
    await page.textContent('[data-field="upstream-differences"]'),
    /^No differences: this file agrees with upstream on \d+ fields\.$/,
  );
  assert.deepEqual(
    await rows(),
    cli.checks.map((c) => [c.field, c.status]),
  );
  assert.equal(await page.locator('#upstream [data-field="upstream-difference-list"]').count(), 0);
  assert.match(await page.textContent('[data-field="upstream-given"]'), /config\.json, tokenizer_config\.json/);
  assert.deepEqual(outside(), [], 'nothing fetched: the files were dropped');
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await axeViolations(page, '#upstream'), [], `the upstream panel, ${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('a changed field: that field differs, with both values, its keys and what it means', async () => {
  const dir = configSet('changed', (c) => (c.rope_theta = 500000));
  await dropFiles(dir, ['config.json', 'tokenizer_config.json']);
  const cli = await cliDocument(dir);
  const theta = cli.checks.find((c) => c.field === 'rope_theta');
  assert.equal(theta.status, 'differs');
  assert.equal(await page.getAttribute('[data-field="upstream-differences"]', 'data-value'), '1');
  const items = await page.$$eval('#upstream .upstream-difference', (lis) =>
    lis.map((li) => [li.dataset.check, li.dataset.status]),
  );
  assert.deepEqual(items, [['rope_theta', 'differs']]);
  const text = await page.textContent('#upstream .upstream-difference[data-check="rope_theta"]');
  for (const part of [
    'This file10000 phi3.rope.freq_base',
    'Upstream500000 config.json:rope_theta',
    `What it means${theta.impact}`,
  ])
    assert.ok(text.includes(part), `${part} in ${text}`);
  assert.deepEqual(
    await rows(),
    cli.checks.map((c) => [c.field, c.status]),
  );
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await axeViolations(page, '#upstream'), [], `differences, ${colorScheme}`);
    await page.locator('#upstream').screenshot({ path: `${shots}upstream-${colorScheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('a chat template upstream that the file lacks, then one that differs: a line diff, hidden text made visible', async () => {
  const template = "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\u202E<|end|>\n{% endfor %}";
  const dir = configSet('template', () => {}, { 'chat_template.jinja': template });
  await dropFiles(dir, ['config.json', 'tokenizer_config.json', 'chat_template.jinja']);
  const cli = await cliDocument(dir);
  const check = cli.checks.find((c) => c.field === 'chat_template');
  const status = await page.getAttribute('#upstream .upstream-difference[data-check="chat_template"]', 'data-status');
  assert.equal(status, check.status);
  if (check.diff) {
    const drawn = await page.$$eval('#upstream [data-field="upstream-lines"] > div:not(.diff-same)', (divs) =>
      divs.map((d) => d.textContent),
    );
    assert.ok(
      drawn.some((l) => l.startsWith('+ ') && l.includes('\\u{202E}')),
      drawn.join('\n'),
    );
  } else {
    // The file has no template: missing in it, upstream's shown in its visible form.
    assert.equal(check.status, 'missing-in-gguf');
    const text = await page.textContent('#upstream .upstream-difference[data-check="chat_template"]');
    assert.ok(text.includes('\\u{202E}') && !text.includes('\u202E'), text);
  }
});

test('a file that is not an upstream file is said so; 390 px fits', async () => {
  writeFileSync(`${scratch}/notes.json`, '{}');
  await page.evaluate(() => document.getElementById('upstream').removeAttribute('data-state'));
  await page.setInputFiles('#upstream input[type="file"]', `${scratch}/notes.json`);
  await page.waitForSelector('#upstream[data-state="error"]');
  assert.match(
    await page.textContent('[data-field="upstream-status"]'),
    /^Cannot compare with upstream: not an upstream file: notes\.json \(expected config\.json, /,
  );
  await dropFiles(configSet('changed'), ['config.json']);
  await page.setViewportSize({ width: 390, height: 900 });
  await page.locator('#upstream').scrollIntoViewIfNeeded();
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  await page.screenshot({ path: `${shots}upstream-390.png` });
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > 400 && !e.parentElement.closest('.table-wrap'))
      .slice(0, 10)
      .map((e) => `${e.tagName}.${e.className}#${e.id} ${Math.round(e.getBoundingClientRect().right)}`),
  );
  assert.equal(overflow, 0, wide.join('; '));
  await page.setViewportSize({ width: 1300, height: 1000 });
});

test("offline, files picked with the panel's own picker are checked", async () => {
  await page.context().setOffline(true);
  try {
    const dir = configSet('picked', (c) => (c.rms_norm_eps = 1e-6));
    await page.evaluate(() => document.getElementById('upstream').removeAttribute('data-state'));
    await page.setInputFiles('#upstream input[type="file"]', [`${dir}/config.json`, `${dir}/tokenizer_config.json`]);
    await page.waitForSelector('#upstream:is([data-state="ready"], [data-state="error"])', { timeout: 60_000 });
    const items = await page.$$eval('#upstream .upstream-difference', (lis) =>
      lis.map((li) => [li.dataset.check, li.dataset.status]),
    );
    assert.deepEqual(
      items.filter(([field]) => field !== 'chat_template'),
      [['rms_norm_eps', 'differs']],
    );
  } finally {
    await page.context().setOffline(false);
  }
});

test('Fetch from the repository the file names: only its four files are asked for', async () => {
  assert.deepEqual(outside(), [], 'nothing left the origin before the click');
  const served = [];
  await page.route('https://huggingface.co/**', (route) => {
    const url = route.request().url();
    served.push(url);
    const name = url.slice(`${SOURCE}/resolve/main/`.length);
    const headers = { 'access-control-allow-origin': '*' };
    try {
      route.fulfill({ status: 200, headers, body: readFileSync(`${DATA}${name}`) });
    } catch {
      route.fulfill({ status: 404, headers, body: 'Entry not found' });
    }
  });
  await page.evaluate(() => document.getElementById('upstream').removeAttribute('data-state'));
  await page.click('#upstream [data-action="upstream-fetch"]');
  await page.waitForSelector('#upstream:is([data-state="ready"], [data-state="error"])', { timeout: 60_000 });
  assert.equal(await page.textContent('[data-field="upstream-status"]'), '');
  const files = ['config.json', 'tokenizer_config.json', 'generation_config.json', 'chat_template.jinja'].map(
    (f) => `${SOURCE}/resolve/main/${f}`,
  );
  assert.deepEqual(served, files);
  assert.deepEqual(outside(), files);
  const cli = await cliDocument(DATA);
  assert.equal(await page.getAttribute('[data-field="upstream-differences"]', 'data-value'), String(cli.differences));
  assert.deepEqual(
    await rows(),
    cli.checks.map((c) => [c.field, c.status]),
  );
  await page.unroute('https://huggingface.co/**');
});

test('a base URL typed in the panel: fetched from there alone', async () => {
  const before = outside().length;
  configSet('typed', (c) => (c.num_hidden_layers = 33));
  await page.evaluate(() => document.getElementById('upstream').removeAttribute('data-state'));
  await page.fill('#upstream input[type="url"]', `${models.origin}/typed/`);
  await page.click('#upstream [data-action="upstream-fetch-url"]');
  await page.waitForSelector('#upstream:is([data-state="ready"], [data-state="error"])', { timeout: 60_000 });
  assert.equal(await page.textContent('[data-field="upstream-status"]'), '');
  const files = ['config.json', 'tokenizer_config.json', 'generation_config.json', 'chat_template.jinja'].map(
    (f) => `${models.origin}/typed/${f}`,
  );
  assert.deepEqual(outside().slice(before), files);
  const items = await page.$$eval('#upstream .upstream-difference', (lis) =>
    lis.map((li) => [li.dataset.check, li.dataset.status]),
  );
  assert.deepEqual(items, [['num_hidden_layers', 'differs']]);
});

test('opening another file closes the panel; no script error happened', async () => {
  await pick(page, PHI);
  await waitFor(page, 'ggml-vocab-phi-3.gguf');
  assert.ok(await page.locator('#upstream').isHidden());
  assert.ok(
    requests.some((url) => url === viewer.origin + servedAs('web/pkg-upstream/gguf_upstream_wasm_bg.wasm')),
    "the upstream module came from the page's origin",
  );
  // Chromium logs the 404s of the files a repository lacks, which the panel leaves out.
  const lacking = (e) => /status of 404/.test(e) && /\/(generation_config\.json|chat_template\.jinja)$/.test(e);
  assert.deepEqual(
    pageErrors.filter((e) => !lacking(e)),
    [],
  );
  assert.equal(pageErrors.length, 4, pageErrors.join('\n'));
});
