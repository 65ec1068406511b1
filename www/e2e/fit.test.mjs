// End-to-end tests of the "Will it fit" card in headless Chromium, on the complete Gemma 3 270M:
// it is on the first screen, opens at llama-server's -c 4096, its presets and choices change the
// figures, which are the core's (the package's fit() in Node, the same code) and llama.cpp's own
// (llama-server 0c1e570 at -c 4096 -np 1: KV 12.00 MiB global + 15.00 MiB sliding window, output
// 1.00 MiB, compute 51.76 MiB with -fa off); the user's devices are remembered across a reload and
// never sent; it fits a 390 px screen and passes axe in light and dark.
// Run after scripts/build-web.sh: node --test www/e2e/fit.test.mjs. Screenshots go to test-results/.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, openAsBlob } from 'node:fs';

import { axeViolations, pick, repo, startViewer, waitFor } from './browser.mjs';
import { fit } from '../../web/gguf.js';
import { GEMMA, builtFixture, noGemma } from '../../web/test/paths.mjs';

const shots = `${repo}test-results/`;
const MiB = 2 ** 20;
const card = '#panel-will-it-fit';

let viewer;
let page;
const requests = [];

before(async () => {
  mkdirSync(shots, { recursive: true });
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
});

after(async () => viewer?.close());

/** `{name: data-value}` of the card's figures (`data-field="memory.NAME"`). */
function figures() {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('#memory [data-field^="memory."][data-value]')].map((e) => [
        e.dataset.field.slice('memory.'.length),
        e.dataset.value,
      ]),
    ),
  );
}

/** Waits until the card has answered its last question. */
async function settled() {
  await page.waitForFunction(() => document.getElementById('memory')?.dataset.state === 'ready');
}

/** Clicks `selector` and waits for the card's new figures (its total changes). */
async function changing(act) {
  const before = (await figures()).total;
  await act();
  await page.waitForFunction((t) => {
    const total = document.querySelector('#memory [data-field="memory.total"]');
    return document.getElementById('memory').dataset.state === 'ready' && total && total.dataset.value !== t;
  }, before);
}

/** The card's figures as the core gives them for `options`: fit() on the file, in Node. */
async function core(options) {
  const m = await fit(await openAsBlob(GEMMA), options);
  return Object.fromEntries(
    ['total', 'model', 'kv_cache', 'output', 'compute']
      .map((k) => [k, String(m[k])])
      .concat([['weights', String(m.model)]]),
  );
}

const pick4 = (f) => ({
  total: f.total,
  model: f.model,
  kv_cache: f.kv_cache,
  output: f.output,
  compute: f.compute,
  weights: f.weights,
});

test(
  "Gemma: the card is on the first screen at -c 4096, and its figures are the core's and llama.cpp's",
  { skip: noGemma() },
  async () => {
    await pick(page, GEMMA);
    await waitFor(page, 'gemma-3-270m-q4_k_m.gguf');
    await settled();
    // First after the summary, its total in view without scrolling.
    assert.equal(
      await page.evaluate(() => document.querySelector('#summary').nextElementSibling.nextElementSibling.id),
      'panel-will-it-fit',
    );
    const total = await page.locator('[data-field="memory.total"]').boundingBox();
    assert.ok(total && total.y + total.height < 1000, `the total is at y ${total?.y}`);
    assert.equal(await page.inputValue(`${card} input[name="context"]`), '4096');
    assert.equal(await page.getAttribute(`${card} [data-preset="4096"]`, 'aria-pressed'), 'true');
    assert.deepEqual(pick4(await figures()), await core({ ctx: 4096, ctk: 'f16', ctv: 'f16', flashAttn: 'auto' }));
    // MiB and GiB beside the bytes.
    assert.match(await page.textContent('.memory-total'), /^\d+\.\d\d MiB \d+\.\d\d GiB · [\d,]+ B/);

    // llama.cpp's own figures for -c 4096 -np 1, buffer by buffer.
    await changing(() => page.fill(`${card} input[name="parallel"]`, '1'));
    const f = await figures();
    assert.equal(Number(f.output), 1 * MiB);
    assert.equal(Number(f.kv_cache), (12 + 15) * MiB);
    const how = await page.locator(`${card} [data-field="memory.formula"] li`).allTextContents();
    assert.match(
      how[1],
      /^KV cache \(llama_kv_cache\): 3 layers × 4,096 cells × 1 stream: K f16 6\.00 MiB \+ V f16 6\.00 MiB = 12\.00 MiB$/,
    );
    assert.match(how[2], /^KV cache, sliding-window layers \(llama_kv_cache_iswa\): 15 layers × 1,024 cells/);
    assert.match(how[3], /^output buffer: the logits of 1 output, f32 = 1\.00 MiB$/);
    assert.match(how[0], /^model buffer \(CPU_Mapped\)/);
    assert.match(how[4], /^compute buffer/);
    await changing(() => page.selectOption(`${card} select[name="flash_attn"]`, 'off'));
    const compute = Number((await figures()).compute) / MiB;
    assert.ok(Math.abs(compute / 51.76 - 1) < 0.1, `compute ${compute} MiB with -fa off, llama.cpp 51.76`);
    assert.deepEqual(pick4(await figures()), await core({ ctx: 4096, parallel: 1, flashAttn: 'off' }));

    // A quantized V cache needs flash attention: llama.cpp refuses it, and so does the card.
    await page.selectOption(`${card} select[name="ctv"]`, 'q8_0');
    await page.waitForSelector(`${card} [data-field="memory.error"]`);
    assert.match(
      await page.textContent(`${card} [data-field="memory.error"]`),
      /quantized V cache needs flash attention/,
    );
    await page.selectOption(`${card} select[name="flash_attn"]`, 'auto');
    await page.waitForSelector(`${card} [data-field="memory.total"]`);
    await settled();
    assert.deepEqual(pick4(await figures()), await core({ ctx: 4096, parallel: 1, ctv: 'q8_0' }));

    // The presets: 8k, 32k and the model's own 32,768 (which is the same press as 32k).
    await changing(() => page.click(`${card} [data-preset="8192"]`));
    assert.equal(await page.inputValue(`${card} input[name="context"]`), '8192');
    assert.deepEqual(pick4(await figures()), await core({ ctx: 8192, parallel: 1, ctv: 'q8_0' }));
    assert.equal(await page.getAttribute(`${card} [data-preset="4096"]`, 'aria-pressed'), 'false');
    assert.equal(await page.textContent(`${card} [data-preset="32768"] >> nth=1`), 'max 32,768');
    await changing(() => page.click(`${card} [data-preset="32768"] >> nth=0`));
    assert.deepEqual(pick4(await figures()), await core({ ctx: 32768, parallel: 1, ctv: 'q8_0' }));
    assert.equal(await page.isVisible(`${card} [data-field="memory.past-context"]`), false);
    await changing(() => page.fill(`${card} input[name="context"]`, '65536'));
    assert.match(await page.textContent(`${card} [data-field="memory.past-context"]`), /Past the 32,768 tokens/);
    await page.fill(`${card} input[name="context"]`, '1.5');
    await page.waitForSelector(`${card} [data-field="memory.error"]`);
    assert.match(
      await page.textContent(`${card} [data-field="memory.error"]`),
      /must be a whole number: 1\.5 is not one/,
    );
    await page.fill(`${card} input[name="context"]`, '4096');
    await page.waitForSelector(`${card} [data-field="memory.total"]`);
    await settled();
    await page.locator(card).screenshot({ path: `${shots}fit-gemma.png` });
  },
);

test('Gemma: the devices are remembered across a reload, and never sent', { skip: noGemma() }, async () => {
  const sent = requests.length;
  await page.fill(`${card} input[name="ram"]`, '16');
  await page.click(`${card} button:has-text("Add a GPU")`);
  await page.fill(`${card} input[name="gpu"] >> nth=0`, '8');
  await page.click(`${card} button:has-text("Add a GPU")`);
  await page.fill(`${card} input[name="gpu"] >> nth=1`, '4.5');
  await page.click(`${card} button[aria-label="Remove GPU 1"]`);
  await page.waitForSelector(`${card} [data-field="memory.device.1"]`);
  // The plan for them (the core's, through the memory module): at 4,096 tokens Gemma's 19
  // layers all go on a 4.5 GiB GPU (less llama.cpp's 1 GiB margin); RAM keeps the embeddings.
  await page.waitForSelector(`${card} [data-field="memory.plan"][data-value="fits"]`);
  assert.deepEqual(
    await page
      .locator(`${card} .devices-table tbody tr`)
      .evaluateAll((rows) => rows.map((r) => [...r.cells].slice(0, 3).map((c) => c.textContent))),
    [
      ['RAM', '16.00 GiB', '0'],
      ['GPU 1', '4.50 GiB', '19'],
    ],
  );
  assert.deepEqual(await page.locator(`${card} .devices-table tbody td:last-child`).allTextContents(), ['yes', 'yes']);
  const said = await page.textContent(`${card} [data-field="memory.plan"]`);
  assert.match(said, /^Fits: all 19 layers on the GPU\. llama\.cpp: -c 4096 -ngl 19 /, said);
  assert.deepEqual(JSON.parse(await page.evaluate(() => localStorage.getItem('ggufscope.devices'))), {
    ram: 16 * 2 ** 30,
    gpus: [4.5 * 2 ** 30],
  });
  assert.deepEqual(requests.slice(sent), [], 'entering devices sends nothing');

  await page.reload();
  await waitFor(page, 'sample.gguf');
  await pick(page, GEMMA);
  await waitFor(page, 'gemma-3-270m-q4_k_m.gguf');
  await settled();
  assert.equal(await page.inputValue(`${card} input[name="ram"]`), '16');
  assert.deepEqual(await page.locator(`${card} input[name="gpu"]`).evaluateAll((e) => e.map((i) => i.value)), ['4.5']);
  assert.equal(await page.getAttribute(`${card} [data-field="memory.device.0"]`, 'data-value'), String(16 * 2 ** 30));
  assert.ok(
    requests.slice(sent).every((url) => url.startsWith(viewer.origin)),
    `only the page's own files: ${requests.slice(sent).filter((u) => !u.startsWith(viewer.origin))}`,
  );
});

test(
  'Gemma: the card at 390 px, light and dark: no sideways scroll, no axe violation',
  { skip: noGemma() },
  async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.locator(card).evaluate((e) => e.scrollIntoView());
      const by = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      assert.ok(by <= 0, `the page scrolls sideways by ${by} px`);
      await page.screenshot({ path: `${shots}fit-gemma-390.png`, fullPage: false });
      for (const scheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme: scheme });
        assert.deepEqual(await axeViolations(page, card), [], scheme);
      }
      await page.locator(card).screenshot({ path: `${shots}fit-gemma-390-dark.png` });
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1300, height: 1000 });
    }
  },
);

test('a model with no memory figure: the card says why, with no figures', async () => {
  for (const [name, says] of [
    ['t5.gguf', /^not sized: llama\.cpp runs t5, but it is an encoder-decoder/],
    ['unknown-architecture.gguf', /^llama\.cpp \(0c1e570\) does not know the architecture "llama5"/],
  ]) {
    await pick(page, builtFixture(`memory-refusals/${name}`));
    await waitFor(page, name);
    await page.locator(card).scrollIntoViewIfNeeded();
    await page.waitForSelector(`${card} [data-field="memory.error"]`);
    await settled();
    assert.match(await page.textContent(`${card} [data-field="memory.error"]`), says, name);
    assert.deepEqual(await figures(), {}, name);
  }
  await page.locator(card).screenshot({ path: `${shots}fit-not-sized.png` });
});
