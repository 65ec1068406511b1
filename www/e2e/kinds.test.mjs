// End-to-end tests of what the summary says a file is (kind-view.js) in headless Chromium: each
// kind that is not a model — an importance matrix, a LoRA adapter, multimodal projectors, a
// control vector (the builder's files, `write-fixtures kinds`), a vocabulary (a real fixture) —
// gets its own cards with the report's figures and none of a model's (no "Attention: Unknown",
// no "Dense"); what the model can do is listed with where the file says so, as `ggufscope info
// --json` does; and a difference from upstream is fixed from its panel: "Fix in Edit" opens Edit
// with the change pending, and the edited file agrees with upstream. 1280 and 390 px, light and
// dark, axe clean.
// Run after scripts/build-web.sh: node --test www/e2e/kinds.test.mjs. Screenshots go to
// test-results/ (not committed).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { axeViolations, drop, fixtures, pick, repo, startViewer, waitFor } from './browser.mjs';
import { builtFixture, ggufscopeBin } from '../../web/test/paths.mjs';

const shots = `${repo}test-results/`;
/** Where a file's cards are: the summary, and its description under Will it fit. */
const CARDS = ':is(#summary, #description)';

let viewer;
let page;
let scratch;
const pageErrors = [];

/** `ggufscope upstream --json FILE DIR`'s document (it exits 1 when something differs). */
function upstreamDocument(path, dir) {
  const run = spawnSync(ggufscopeBin(), ['upstream', '--json', path, dir], { encoding: 'utf8' });
  assert.ok(run.status === 0 || run.status === 1, run.stderr);
  return JSON.parse(run.stdout);
}

/** `ggufscope info --json FILE`'s report. */
function report(path) {
  return JSON.parse(execFileSync(ggufscopeBin(), ['info', '--json', path], { maxBuffer: 1 << 28 }).toString());
}

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-kinds-e2e-`);
  mkdirSync(shots, { recursive: true });
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
});

after(async () => {
  await viewer?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Opens `path` (named `name`) and waits for its summary. */
async function open(path, name = path.split('/').pop()) {
  await pick(page, path);
  await waitFor(page, name);
}

/** The summary cards' titles, in order. */
function cardTitles() {
  return page.$$eval(`${CARDS} .card > h2`, (hs) => hs.map((x) => x.textContent));
}

/** `data-value` of the summary value `field`. */
function value(field) {
  return page.getAttribute(`${CARDS} [data-field="${field}"]`, 'data-value');
}

/** Light and dark at 1280 px, then 390 px: axe clean, and nothing wider than the screen. */
async function looks(name) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 1000 });
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(
        await axeViolations(page, ['#summary', '#description']),
        [],
        `${name}, ${width} px, ${colorScheme}`,
      );
    }
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= width, `${name}: the page is ${wide} px wide at ${width} px`);
    await page.screenshot({ path: `${shots}kind-${name}-${width}.png`, fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 1000 });
}

/** A model's cards the kinds that are not models do without. */
const MODEL_ONLY = ['Attention', 'Experts', 'Shape', 'Tokenizer'];

test('an importance matrix: its chunks, datasets and entries; no model cards, no weights', async () => {
  const path = `${builtFixture('kinds')}/imatrix.gguf`;
  const r = report(path);
  await open(path);
  assert.equal(await value('kind'), 'imatrix');
  assert.equal(await page.textContent(`${CARDS} [data-field="kind"]`), 'Importance matrix');
  assert.equal(await value('imatrix.entries'), String(r.imatrix.entries));
  assert.equal(
    await page.textContent(`${CARDS} [data-field="imatrix.chunk_count"]`),
    '100 of 512 tokens (51,200 tokens)',
  );
  assert.equal(await page.textContent(`${CARDS} [data-field="imatrix.datasets"]`), 'wiki.train.raw');
  const titles = await cardTitles();
  for (const title of [...MODEL_ONLY, 'Parameters', 'Quantization', 'What it can do'])
    assert.ok(!titles.includes(title), `${title} in ${titles}`);
  // The validator has nothing to say: no "missing-architecture".
  assert.deepEqual(r.findings, []);
  assert.equal(await page.locator('#findings [data-code="missing-architecture"]').count(), 0);
  await looks('imatrix');
});

test('a LoRA adapter: rank, alpha, scale and base model instead of "Attention: Unknown" and "Dense"', async () => {
  const path = `${builtFixture('kinds')}/lora.gguf`;
  const r = report(path);
  await open(path);
  assert.equal(await value('kind'), 'adapter');
  assert.equal(await page.textContent(`${CARDS} [data-field="adapter.rank"]`), 'rank 8 · alpha 16');
  assert.equal(await value('adapter.rank'), String(r.adapter.rank));
  assert.equal(await value('adapter.alpha'), '16');
  assert.match(await page.textContent(`${CARDS} [data-field="adapter.scale"]`), /^2 \(alpha ÷ rank/);
  assert.equal(
    await page.textContent(`${CARDS} [data-field="adapter.targets"]`),
    'attn_q, attn_k, attn_v in 2 layers (6 pairs)',
  );
  assert.equal(
    await page.textContent(`${CARDS} [data-field="adapter.base_models"]`),
    'Toy Llama (Ggufscope) https://huggingface.co/ggufscope/toy-llama',
  );
  const titles = await cardTitles();
  for (const title of MODEL_ONLY) assert.ok(!titles.includes(title), `${title} in ${titles}`);
  assert.ok(titles.includes('Parameters') && titles.includes('Quantization'), titles.join());
  assert.equal(await page.locator(`${CARDS} [data-field="attention.kind"]`).count(), 0);
  // Will it fit: not a question for an adapter ("the model has no block_count" before).
  assert.match(await page.textContent('[data-field="memory.none"]'), /not a model run on its own/);
  assert.deepEqual(
    await page.$$eval(`${CARDS} [data-field="capabilities"] li`, (lis) => lis.map((li) => li.dataset.capability)),
    r.capabilities.map((c) => c.name),
  );
  await looks('lora');
});

test('multimodal projectors: each encoder with its shape, and what it lets a model do', async () => {
  for (const [name, encoders] of [
    ['mmproj-vision', ['vision']],
    ['mmproj-vision-audio', ['vision', 'audio']],
  ]) {
    const path = `${builtFixture('kinds')}/${name}.gguf`;
    const r = report(path);
    await open(path);
    assert.equal(await value('kind'), 'mmproj');
    const titles = await cardTitles();
    for (const title of MODEL_ONLY) assert.ok(!titles.includes(title), `${name}: ${title} in ${titles}`);
    for (const encoder of encoders) {
      const e = r.mmproj[encoder];
      for (const field of ['block_count', 'embedding_length', 'head_count'])
        assert.equal(await value(`mmproj.${encoder}.${field}`), String(e[field]), `${name} ${encoder} ${field}`);
      assert.equal(await value(`mmproj.${encoder}.projection_dim`), String(e.projection_dim));
    }
    assert.equal(await page.textContent(`${CARDS} [data-field="mmproj.vision.input"]`), '16 px images, 4 px patches');
    assert.equal(await value('capabilities'), encoders.join(' '));
  }
  assert.equal(await page.textContent(`${CARDS} [data-field="mmproj.audio.input"]`), '16 mel bins');
  assert.match(await page.textContent('[data-field="memory.none"]'), /loaded beside its model/);
  await looks('mmproj');
});

test('a control vector, and a vocabulary alone', async () => {
  await open(`${builtFixture('kinds')}/control-vector.gguf`);
  assert.equal(await value('kind'), 'control-vector');
  assert.equal(await value('control_vector.model_hint'), 'llama');
  assert.equal(await value('control_vector.directions'), '2');
  // A vocabulary keeps a model's cards (its settings are the model's), says it has no weights, and
  // what the model can do: BERT's encoder makes embeddings.
  const bert = `${fixtures}real/ggml-vocab-bert-bge.gguf`;
  await open(bert);
  assert.equal(await value('kind'), 'vocab-only');
  assert.equal(await page.textContent(`${CARDS} [data-field="kind"]`), 'Vocabulary only');
  assert.ok((await cardTitles()).includes('Attention'));
  assert.equal(await value('capabilities'), 'embedding');
  assert.match(
    await page.textContent(`${CARDS} [data-field="capabilities"] li[data-capability="embedding"]`),
    /^Embeddings: attention that looks both ways \(an encoder\) bert\.attention\.causal$/,
  );
  await looks('vocab');
});

test('what a chat model can do: chat and tools, each with the template that says so', async () => {
  const path = `${fixtures}real/ggml-vocab-command-r.gguf`;
  const r = report(path);
  await open(path);
  assert.deepEqual(
    r.capabilities.map((c) => c.name),
    ['chat', 'tools'],
  );
  assert.equal(await value('capabilities'), 'chat tools');
  assert.equal(await page.textContent(`${CARDS} [data-field="capabilities.names"]`), 'Chat · Tool calls');
  const items = await page.$$eval(`${CARDS} [data-field="capabilities"] li`, (lis) => lis.map((li) => li.textContent));
  assert.deepEqual(
    items,
    r.capabilities.map((c) => `${{ chat: 'Chat', tools: 'Tool calls' }[c.name]}: ${c.evidence} ${c.source}`),
  );
});

test('upstream with config.json alone: the files checked, no rows for the others, and a fix that opens Edit', async () => {
  const phi = `${fixtures}real/ggml-vocab-phi-3.gguf`;
  const dir = `${scratch}/upstream`;
  mkdirSync(dir, { recursive: true });
  const config = JSON.parse(readFileSync(`${repo}crates/gguf-upstream/tests/data/phi-3/config.json`, 'utf8'));
  config.rope_theta = 500000;
  writeFileSync(`${dir}/config.json`, JSON.stringify(config));
  const cli = upstreamDocument(phi, dir);
  assert.deepEqual(cli.not_read, ['tokenizer_config.json', 'generation_config.json', 'chat_template.jinja']);
  assert.ok(!cli.checks.some((c) => c.status === 'missing-upstream' && /token|template/.test(c.field)));
  const theta = cli.checks.find((c) => c.field === 'rope_theta');
  assert.deepEqual(theta.fix, {
    key: 'phi3.rope.freq_base',
    type: null,
    value: '500000',
    argument: '--set phi3.rope.freq_base=500000',
  });

  await open(phi);
  await page.click('[data-action="upstream"]');
  await drop(page, [`${dir}/config.json`]);
  await page.waitForSelector('#upstream[data-state="ready"]', { timeout: 60_000 });
  assert.equal(await page.textContent('#upstream [data-field="upstream-read"]'), 'config.json');
  assert.equal(
    await page.textContent('#upstream [data-field="upstream-not-read"]'),
    'tokenizer_config.json, generation_config.json, chat_template.jinja',
  );
  assert.deepEqual(
    await page.$$eval('#upstream [data-field="upstream-checks"] tbody tr', (trs) =>
      trs.map((tr) => [tr.dataset.check, tr.dataset.status]),
    ),
    cli.checks.map((c) => [c.field, c.status]),
  );
  const difference = '#upstream .upstream-difference[data-check="rope_theta"]';
  assert.equal(
    await page.textContent(`${difference} [data-field="upstream-fix"]`),
    'ggufscope edit … --set phi3.rope.freq_base=500000',
  );
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await axeViolations(page, '#upstream'), [], `the fix, ${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 390, height: 900 });
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, 'the fix fits 390 px');
  await page.locator(difference).screenshot({ path: `${shots}upstream-fix-390.png` });
  await page.setViewportSize({ width: 1280, height: 1000 });

  // The button: Edit opens with the change pending and checked.
  await page.click(`${difference} [data-action="upstream-fix"]`);
  const pending = '[data-field="pending"] li[data-key="phi3.rope.freq_base"]';
  await page.waitForSelector(pending);
  assert.equal(await page.getAttribute(pending, 'data-state'), 'pending');
  assert.equal(await page.textContent(`${pending} [data-field="old"]`), '10000');
  assert.equal(await page.textContent(`${pending} [data-field="new"]`), '500000');
  assert.equal(await page.getAttribute('[data-action="edit"]', 'aria-pressed'), 'true');
  await page.waitForSelector('[data-field="edit-findings"]:is([data-state="clean"], [data-state="found"])');
  await page.locator('.edit-panel').screenshot({ path: `${shots}upstream-fix-edit.png` });

  // Saved, the copy agrees with upstream on that field.
  const download = page.waitForEvent('download');
  await page.click('[data-action="save"]');
  const saved = `${scratch}/fixed.gguf`;
  await (await download).saveAs(saved);
  const after = upstreamDocument(saved, dir);
  assert.equal(after.checks.find((c) => c.field === 'rope_theta').status, 'same');
  assert.equal(after.differences, 0);
  assert.deepEqual(pageErrors, []);
});
