// Phones, end to end in Chromium at 390×844: the page never scrolls sideways, in any view, with
// its parts open (an array's pager, a tensor's values, a rendered preview, the edit mode), on the
// built-in sample and on Gemma (when GGUF_GEMMA names it); tables are laid out for the width
// (metadata and tensors as stacked rows: a key on one line, a tensor's size and offset in view).
// Screenshots of each view go to test-results/ (not committed).
// Run after scripts/build-web.sh: node --test www/e2e/phone.test.mjs

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';

import { openParts, pick, repo, startViewer, waitFor } from './browser.mjs';
import { GEMMA, noGemma } from '../../web/test/paths.mjs';

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
function overflow() {
  return page.evaluate(() => ({
    by: document.documentElement.scrollWidth - innerWidth,
    culprits: [...document.querySelectorAll('body *')]
      .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > innerWidth + 0.5)
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
  }));
}

/** Scrolls to every view, screenshots it, and asserts the page is no wider than the screen. */
async function everyViewFits(name) {
  for (const view of VIEWS) {
    if (!(await page.isVisible(view))) continue;
    await page.locator(view).evaluate((e) => e.scrollIntoView());
    const o = await overflow();
    assert.ok(o.by <= 0, `${name} ${view}: the page scrolls sideways by ${o.by} px (${o.culprits.join(', ')})`);
    await page.screenshot({ path: `${shots}phone-${name}-${view.replace(/\W+/g, '')}.png` });
  }
}

test('the sample at 390 px: no view scrolls the page sideways, with its parts open and in edit mode', async () => {
  await everyViewFits('sample');
  await openParts(page);
  await everyViewFits('sample-open');
  // A metadata key is on one line, above its value; a tensor's size and offset are on screen.
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

test('Gemma at 390 px: no view scrolls the page sideways, with its parts open', { skip: noGemma() }, async () => {
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
  await pick(page, GEMMA);
  await waitFor(page, GEMMA.split('/').pop());
  await page.waitForSelector('#chat-templates .code, #chat-templates .note');
  await everyViewFits('gemma');
  await openParts(page);
  await everyViewFits('gemma-open');
  // The layer rows keep their figures on screen.
  const figure = page.locator('#maps .layer-row').first().locator('.num').last();
  const box = await figure.boundingBox();
  assert.ok(box.x + box.width <= 390, 'bits per weight of a layer on screen');
});
