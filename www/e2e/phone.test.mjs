// Phones, end to end in Chromium at 390×844: the page never scrolls sideways and axe finds
// nothing, in light and dark, in any view, with its parts open (an array's pager, a tensor's
// values, a rendered preview), on every file people open — the built-in sample, every real file
// of the shared fixtures (the vocabularies llama.cpp ships, DeepSeek's special tokens among them),
// Gemma (when GGUF_GEMMA names it) and the kinds of GGUF file that are not models (an importance
// matrix, a LoRA adapter, a projector, a vocabulary-only file, as the builder writes them) — and
// in edit mode; tables are laid out for the width (metadata and tensors as stacked rows: a key on
// one line, a tensor's size and offset in view; the special tokens stacked, their keys whole).
// The embedding page (embed.html) at 390 px, as a phone and as a narrow desktop window, is no
// wider than the screen. Screenshots of each view go to test-results/ (not committed): the sample's
// and Gemma's, or every file's with GGUF_E2E_SCREENSHOTS=all (ten times the shots, to look over
// a layout change file by file).
// Run after scripts/build-web.sh: node --test www/e2e/phone.test.mjs

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync } from 'node:fs';

import { axeViolations, fixtures, openParts, pick, repo, startViewer, waitFor } from './browser.mjs';
import { GEMMA, builtFixture, noGemma } from '../../web/test/paths.mjs';

const shots = `${repo}test-results/`;
const VIEWS = [
  '#summary',
  '#panel-will-it-fit',
  '#panel-checks',
  '#panel-tokenizer',
  '#panel-chat-template',
  '#panel-tensor-types',
  '#panel-layers-and-layout',
  '#panel-metadata',
  '#panel-tensors',
];

/** Whose views are screenshot: every file's, or those of the two that show every view. */
const shoot = (name) => process.env.GGUF_E2E_SCREENSHOTS === 'all' || name === 'sample' || name === 'gemma';

/** Every file checked: the sample (shown at start), the real fixtures, Gemma, the other kinds. */
const FILES = [
  { name: 'sample', file: null },
  ...readdirSync(`${fixtures}real`)
    .filter((f) => f.endsWith('.gguf'))
    .sort()
    .map((f) => ({ name: f.replace(/^ggml-vocab-|\.gguf$/g, ''), file: `${fixtures}real/${f}` })),
  { name: 'gemma', file: GEMMA, skip: noGemma },
  ...['imatrix', 'lora', 'mmproj-vision-audio', 'control-vector', 'vocab-only'].map((kind) => ({
    name: kind,
    file: () => builtFixture(`kinds/${kind}.gguf`),
  })),
];

let viewer;
let page;

before(async () => {
  mkdirSync(shots, { recursive: true });
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
});

after(async () => viewer?.close());

/** How far the page reaches past the screen's right edge, and the widest elements doing it. */
function overflow(p = page) {
  return p.evaluate(() => ({
    by: document.documentElement.scrollWidth - innerWidth,
    culprits: [...document.querySelectorAll('body *')]
      .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > innerWidth + 0.5)
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
  }));
}

/**
 * In light and dark: the page is no wider than the screen and axe finds nothing; then each view is
 * screenshot (light only), if the file's are (`shoot`).
 */
async function everyViewFits(name) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const o = await overflow();
    assert.ok(o.by <= 0, `${name}, ${scheme}: the page scrolls sideways by ${o.by} px (${o.culprits.join(', ')})`);
    assert.deepEqual(await axeViolations(page, '#viewer'), [], `${name}, ${scheme}: axe`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (!shoot(name)) return;
  for (const view of VIEWS) {
    if (!(await page.isVisible(view))) continue;
    await page.locator(view).evaluate((e) => e.scrollIntoView());
    await page.screenshot({ path: `${shots}phone-${name}-${view.replace(/\W+/g, '')}.png` });
  }
}

for (const f of FILES) {
  test(
    `${f.name} at 390 px: no view scrolls sideways or fails axe, light or dark, with its parts open`,
    { skip: f.skip?.() },
    async () => {
      const file = typeof f.file === 'function' ? f.file() : f.file;
      if (file) {
        await pick(page, file);
        await waitFor(page, file.split('/').pop());
      }
      await openParts(page);
      await everyViewFits(f.name);
    },
  );
}

test("DeepSeek's special tokens stack: each key on one line, the table no wider than the screen", async () => {
  await pick(page, `${fixtures}real/ggml-vocab-deepseek-llm.gguf`);
  await waitFor(page, 'ggml-vocab-deepseek-llm.gguf');
  await page.waitForSelector('#tokenizer table.specials');
  const table = await page.locator('#tokenizer table.specials').boundingBox();
  assert.ok(table.x + table.width <= 390, `the table ends at ${table.x + table.width} px`);
  for (const key of await page.locator('#tokenizer table.specials td.key').all()) {
    assert.ok((await key.boundingBox()).height < 24, `${await key.textContent()} on one line`);
  }
});

test('the sample in edit mode, at 390 px: metadata keys on one line, tensor figures on screen', async () => {
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
  await openParts(page);
  const key = page.locator('#metadata tr[data-key="general.architecture"] td.key');
  assert.ok((await key.boundingBox()).height < 30, 'the key is not wrapped a few characters a line');
  const row = page.locator('#tensors tbody tr[data-index="0"]');
  for (const cell of ['td.name', 'td.size', 'td.offset', 'td.peek-cell']) {
    const box = await row.locator(cell).boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 390, `${cell} on screen`);
  }
  assert.ok((await row.locator('td.name').boundingBox()).height < 45, 'a tensor name takes at most two lines');
  await page.click('#panel-metadata button[data-action="edit"]');
  await page.waitForSelector('table.metadata.editing');
  const o = await overflow();
  assert.ok(o.by <= 0, `edit mode: ${o.by} px (${o.culprits.join(', ')})`);
});

test('Gemma at 390 px: the layer rows keep their figures on screen', { skip: noGemma() }, async () => {
  await pick(page, GEMMA);
  await waitFor(page, GEMMA.split('/').pop());
  const figure = page.locator('#maps .layer-row').first().locator('.num').last();
  const box = await figure.boundingBox();
  assert.ok(box.x + box.width <= 390, 'bits per weight of a layer on screen');
});

test('the embedding page at 390 px, as a phone and as a narrow window: no wider than the screen, axe clean', async () => {
  for (const isMobile of [true, false]) {
    const embed = await viewer.browser.newPage({ viewport: { width: 390, height: 844 }, isMobile });
    await embed.goto(`${viewer.origin}/embed.html`);
    await embed.waitForFunction(() => document.querySelector('gguf-viewer')?.dataset.state === 'ready');
    for (const scheme of ['light', 'dark']) {
      await embed.emulateMedia({ colorScheme: scheme });
      const width = await embed.evaluate(() => document.documentElement.scrollWidth);
      assert.equal(width, 390, `${isMobile ? 'phone' : 'window'}, ${scheme}: the page is ${width} px wide`);
      // Nothing inside the viewer reaches past the element.
      const inside = await embed.evaluate(() => {
        const host = document.querySelector('gguf-viewer');
        const right = host.getBoundingClientRect().right;
        return [...host.shadowRoot.querySelectorAll('*')]
          .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > right + 0.5)
          .filter((e) => !e.closest('.table-wrap, .tensors-wrap, .vlist, pre, .code'))
          .map((e) => `${e.tagName.toLowerCase()}.${e.className}`)
          .slice(0, 5);
      });
      assert.deepEqual(inside, [], `${isMobile ? 'phone' : 'window'}, ${scheme}: inside the viewer`);
      assert.deepEqual(await axeViolations(embed, 'gguf-viewer'), [], `${isMobile ? 'phone' : 'window'}, ${scheme}`);
    }
    await embed.screenshot({ path: `${shots}phone-embed-${isMobile ? 'phone' : 'window'}.png` });
    await embed.close();
  }
});
