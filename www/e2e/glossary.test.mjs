// Every term on the summary cards explained, end to end in Chromium: each card has a plain line
// under its figure (and the "why" where figures surprise: Gemma's 7.36 bits per weight beside
// Q4_K_M, from the tensors the report names; Gemma 4's per-layer KV heads said plainly); each
// card's title and each row's label is a button a keyboard reaches and a screen reader finds by
// its role and name, which opens the glossary's line for it and links to its entry on the
// glossary page; the glossary page has every term, works offline once the site was visited, and
// both are axe clean at 1280 and 390 px, light and dark.
// Run after scripts/build-web.sh: node --test www/e2e/glossary.test.mjs

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';

import { axeViolations, pick, repo, startViewer, waitFor } from './browser.mjs';
import { GLOSSARY, anchorOf, termOf } from '../glossary.js';
import { GEMMA, builtFixture, noGemma } from '../../web/test/paths.mjs';

const shots = `${repo}test-results/`;

let viewer;
let page;

before(async () => {
  mkdirSync(shots, { recursive: true });
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
});

after(async () => viewer?.close());

/** Every card's explanation: `{title, note, terms: [{field, label, controls, expanded}]}`. */
async function cards() {
  // The description's cards (what the model can do) come under Will it fit when the file is described.
  await page.waitForSelector('#description[data-state="ready"]');
  return page.$$eval('#summary section.card, #description section.card', (sections) =>
    sections.map((card) => ({
      title: card.querySelector('h2').textContent,
      note: card.querySelector('.card-note, .note')?.textContent ?? null,
      terms: [...card.querySelectorAll('h2, dt')].map((label) => {
        const button = label.querySelector('button.term');
        return {
          label: label.textContent,
          field: button?.dataset.term ?? null,
          controls: button?.getAttribute('aria-controls') ?? null,
          expanded: button?.getAttribute('aria-expanded') ?? null,
        };
      }),
    })),
  );
}

/** Asserts every card has its line and every label is a term of the glossary, closed. */
async function everyTermExplained(name) {
  const shown = await cards();
  assert.ok(shown.length >= 9, `${name}: the summary's cards`);
  for (const card of shown) {
    assert.ok(card.note?.length > 20, `${name}: the ${card.title} card has a plain line under its figure`);
    for (const t of card.terms) {
      assert.ok(
        t.field && termOf(t.field),
        `${name}: "${t.label}" on the ${card.title} card is a term of the glossary (www/glossary.js has no term for its field)`,
      );
      assert.equal(t.expanded, 'false', `${name}: "${t.label}" starts closed`);
      assert.ok(
        await page.locator(`#${t.controls}`).isHidden(),
        `${name}: "${t.label}"'s line is hidden until asked for`,
      );
    }
  }
  return shown;
}

test('the sample: every card has its plain line, every title and label is a term of the glossary', async () => {
  await everyTermExplained('the sample');
});

test('by keyboard and by role: Tab reaches a term, Enter opens its line and its glossary link, Enter again closes it', async () => {
  // A screen reader finds it by role and name, and hears whether it is open.
  const kv = page.getByRole('button', { name: 'KV heads', expanded: false });
  assert.equal(await kv.count(), 1);
  // Tab from the label before it lands on it: each term is in the tab order.
  await page.getByRole('button', { name: 'Heads', exact: true }).focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.term), 'attention.kv_heads');
  await page.keyboard.press('Enter');
  const open = page.getByRole('button', { name: 'KV heads', expanded: true });
  assert.equal(await open.count(), 1);
  const note = page.locator(`#${await open.getAttribute('aria-controls')}`);
  assert.ok(await note.isVisible());
  assert.ok((await note.textContent()).startsWith(termOf('attention.kv_heads').line));
  const link = note.getByRole('link', { name: 'More in the glossary' });
  assert.equal(await link.getAttribute('href'), `${viewer.origin}/glossary.html#attention-kv-heads`);
  assert.equal(await link.getAttribute('target'), '_blank', 'the model shown stays open');
  await page.keyboard.press('Enter');
  assert.equal(await page.getByRole('button', { name: 'KV heads', expanded: false }).count(), 1);
  assert.ok(await note.isHidden());
});

/** Opens every term of the summary, for the axe checks and screenshots with the lines shown. */
async function openEveryTerm() {
  await page.$$eval('#summary button.term[aria-expanded="false"]', (buttons) => buttons.forEach((b) => b.click()));
  assert.equal(await page.locator('#summary button.term[aria-expanded="false"]').count(), 0);
}

test('the summary with every term open: axe clean at 1280 and 390 px, light and dark, no sideways scroll', async () => {
  await openEveryTerm();
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 1000 });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      assert.deepEqual(await axeViolations(page, '#summary'), [], `${width} px, ${scheme}`);
      assert.ok(
        await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth),
        `${width} px, ${scheme}: no sideways scroll`,
      );
      await page.locator('#summary').screenshot({ path: `${shots}glossary-terms-${width}-${scheme}.png` });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 1000 });
});

test(
  'Gemma: why 7.36 bits per weight beside Q4_K_M — its Q8_0 token embedding, 72% of the bytes',
  { skip: noGemma() },
  async () => {
    await pick(page, GEMMA);
    await waitFor(page, GEMMA.split('/').pop());
    await everyTermExplained('Gemma');
    const why = await page.textContent('[data-note="bits_per_weight"]');
    assert.equal(why, 'Mostly Q4_K (4.5 bits); 7.36 on average because token_embd.weight (Q8_0) is 72% of the bytes.');
    assert.match(
      await page.textContent('[data-note="attention.kind"]'),
      /^4 query heads share one KV head: the smallest cache\.$/,
    );
    await page.locator('#summary').screenshot({ path: `${shots}glossary-gemma.png` });
  },
);

test("Gemma 4's vocabulary: its per-layer attention read plainly, not as bare ranges", async () => {
  const file = builtFixture('kinds/vocab-only.gguf');
  await pick(page, file);
  await waitFor(page, 'vocab-only.gguf');
  await everyTermExplained('vocab-only');
  assert.equal(await page.textContent('[data-field="attention.kind"]'), 'GQA, varying by layer');
  assert.equal(await page.textContent('dd[data-field="attention.kv_heads"]'), '8 in 25 layers, 2 in 5');
  assert.equal(await page.textContent('dd[data-field="attention.group_size"]'), '2 in 25 layers, 8 in 5');
  assert.equal(
    await page.textContent('[data-note="attention.kind"]'),
    'The layers differ: 25 layers of 16 query and 8 key/value heads and 5 layers of 16 query and 2 key/value heads.',
  );
  await page.locator('#summary').screenshot({ path: `${shots}glossary-per-layer.png` });
});

test('the glossary page: every term at its anchor, each line the cards show; axe clean at 1280 and 390 px, light and dark', async () => {
  const glossary = await viewer.browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await glossary.goto(`${viewer.origin}/glossary.html#attention-kv-heads`);
  for (const { terms } of GLOSSARY) {
    for (const t of terms) {
      const entry = glossary.locator(`dt#${anchorOf(t.field)}`);
      assert.equal(await entry.textContent(), t.term);
      assert.equal(await entry.locator('+ dd > p').first().textContent(), t.line);
    }
  }
  for (const width of [1280, 390]) {
    await glossary.setViewportSize({ width, height: 1000 });
    for (const scheme of ['light', 'dark']) {
      await glossary.emulateMedia({ colorScheme: scheme });
      assert.deepEqual(await axeViolations(glossary), [], `${width} px, ${scheme}`);
      assert.ok(await glossary.evaluate(() => document.documentElement.scrollWidth <= innerWidth), `${width} px`);
      await glossary.screenshot({ path: `${shots}glossary-page-${width}-${scheme}.png` });
    }
  }
  await glossary.close();
});

test('the glossary page works offline once the site was visited: the service worker keeps it', async () => {
  const context = await viewer.browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const visit = await context.newPage();
  await visit.goto(`${viewer.origin}/`);
  await waitFor(visit, 'sample.gguf');
  await visit.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
  await context.setOffline(true);
  await visit.goto(`${viewer.origin}/glossary.html#rope-freq-base`);
  assert.equal(await visit.textContent('dt#rope-freq-base'), 'RoPE base');
  await context.close();
});
