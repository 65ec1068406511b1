// Accessibility, end to end in Chromium: axe-core finds no violation in the summary (also alone,
// at 390 px, as it is painted before the report), Will it fit, tokens,
// template, metadata, tensors and maps views, in light and in dark, on the built-in sample, on
// Gemma (when GGUF_GEMMA names it) and on a cut-short file (its banner and error badge), with
// their interactive parts open (an array's pager, a tensor's values, a rendered preview); and
// the page is usable by keyboard: skip links, scroll boxes that take focus, a file map whose
// tensors the arrow keys go through.
// Run after scripts/build-web.sh: node --test www/e2e/a11y.test.mjs

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { AXE_COLOUR_RULES, axeViolations, fixtures, openParts, pick, repo, startViewer, waitFor } from './browser.mjs';
import { GEMMA, noGemma } from '../../web/test/paths.mjs';

/** The views axe checks: the panels (and the summary section) holding them. */
const VIEWS = [
  '#summary',
  '#panel-will-it-fit',
  '#panel-tokenizer',
  '#panel-chat-template',
  '#panel-metadata',
  '#panel-tensors',
  '#panel-layers-and-layout',
];

let viewer;
let page;
let scratch;

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-a11y-`);
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
});

after(async () => {
  await viewer?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The text of the block whose `{` is just before `from` in `text`, without its braces. */
function blockAt(text, from) {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(from, i);
  }
  throw new Error(`a block at ${from} is not closed`);
}

test(`the dark scheme changes colours only, so that axe's other rules hold there as in light (in dark, browser.mjs runs ${AXE_COLOUR_RULES.join(' and ')} alone)`, () => {
  const www = `${repo}www/`;
  let darkColours = 0;
  for (const sheet of readdirSync(www).filter((f) => f.endsWith('.css'))) {
    const css = readFileSync(www + sheet, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const media of css.matchAll(/@media([^{]*prefers-color-scheme[^{]*)\{/g)) {
      assert.match(media[1], /^\s*\(prefers-color-scheme:\s*dark\)\s*$/, `${sheet}: @media${media[1]}`);
      const body = blockAt(css, media.index + media[0].length);
      assert.doesNotMatch(body, /@/, `${sheet}: an at-rule inside @media${media[1]}`);
      for (const [, declarations] of body.matchAll(/\{([^{}]*)\}/g)) {
        for (const declaration of declarations
          .split(';')
          .map((d) => d.trim())
          .filter(Boolean)) {
          // A colour, to a custom property: whatever uses it gets another colour, nothing else.
          assert.match(declaration, /^--[\w-]+:\s*#[\da-f]{3,8}$/i, `${sheet}, in dark: ${declaration}`);
          darkColours++;
        }
      }
    }
  }
  assert.ok(darkColours > 0, 'no dark colours found: the check reads the stylesheets wrong');
  // No script asks for the scheme; a page names it only for its theme colour (the browser's bar).
  for (const dir of ['web/', 'www/']) {
    for (const script of readdirSync(repo + dir).filter((f) => /\.m?js$/.test(f))) {
      assert.doesNotMatch(readFileSync(repo + dir + script, 'utf8'), /prefers-color-scheme|matchMedia/, dir + script);
    }
  }
  for (const html of readdirSync(www).filter((f) => f.endsWith('.html'))) {
    for (const line of readFileSync(www + html, 'utf8')
      .split('\n')
      .filter((l) => l.includes('prefers-color-scheme'))) {
      assert.match(
        line,
        /^\s*<meta name="theme-color" content="#[\da-f]+" media="\(prefers-color-scheme: (light|dark)\)" \/>$/,
        `${html}: ${line.trim()}`,
      );
    }
  }
});

/**
 * The violations in every view the page shows, in both colour schemes: `{"dark": [...]}`, empty
 * when none (the views checked in one run of axe a scheme; a violation's target names its view).
 */
async function violationsInBothSchemes() {
  const found = {};
  const shown = [];
  for (const selector of VIEWS) {
    if ((await page.locator(selector).count()) > 0 && (await page.isVisible(selector))) shown.push(selector);
  }
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const violations = await axeViolations(page, shown);
    if (violations.length) found[scheme] = violations;
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/**
 * The models every view is checked on, with their parts open: the built-in sample (shown at
 * start) and Gemma, picked; `alsoChecked`, parts of the page checked once, on the first.
 */
const MODELS = [
  { name: 'the sample', file: null, alsoChecked: ['header', '.skip-links'] },
  { name: 'Gemma', file: GEMMA, skip: noGemma, alsoChecked: [] },
];

for (const model of MODELS) {
  test(
    `${model.name}: no axe violation in any view, light or dark, with its parts open`,
    { skip: model.skip?.() },
    async () => {
      if (model.file) {
        await pick(page, model.file);
        await waitFor(page, model.file.split('/').pop());
      }
      await openParts(page);
      assert.deepEqual(await violationsInBothSchemes(), {});
      // The top bar and the skip links too.
      for (const selector of model.alsoChecked) assert.deepEqual(await axeViolations(page, selector), [], selector);
    },
  );
}

test('a cut-short file: its banner and error finding pass axe in light and dark', async () => {
  const whole = readFileSync(`${fixtures}synth/all-types.gguf`);
  writeFileSync(`${scratch}/cut.gguf`, whole.subarray(0, whole.length - 300));
  await pick(page, `${scratch}/cut.gguf`);
  await waitFor(page, 'cut.gguf');
  assert.ok(await page.isVisible('#truncation-banner'));
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    assert.deepEqual(await axeViolations(page, ['#summary', '#panel-checks', '#panel-layers-and-layout']), [], scheme);
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('the summary painted alone, before the report (held back here), passes axe at 390 px in light and dark', async () => {
  const whole = readFileSync(`${fixtures}synth/all-types.gguf`);
  writeFileSync(`${scratch}/cut-early.gguf`, whole.subarray(0, whole.length - 300));
  const phone = await viewer.browser.newPage({ viewport: { width: 390, height: 844 } });
  // Once the sample is shown, the worker's report is held back: the page stays at its summary.
  await phone.addInitScript(() => {
    window.Worker = class extends window.Worker {
      constructor(...args) {
        super(...args);
        this.addEventListener(
          'message',
          (e) => window.holdReport && e.data.type === 'header' && e.stopImmediatePropagation(),
        );
      }
    };
  });
  await phone.goto(`${viewer.origin}/`);
  await waitFor(phone, 'sample.gguf');
  await phone.evaluate(() => (window.holdReport = true));
  await pick(phone, `${scratch}/cut-early.gguf`);
  await phone.waitForFunction(
    () => document.body.dataset.file === 'cut-early.gguf' && performance.getEntriesByName('summary').length === 1,
  );
  assert.equal(await phone.evaluate(() => document.body.dataset.state), 'loading');
  assert.ok(await phone.isVisible('#truncation-banner'));
  assert.ok(await phone.isHidden('#panel-metadata'));
  for (const scheme of ['light', 'dark']) {
    await phone.emulateMedia({ colorScheme: scheme });
    assert.deepEqual(await axeViolations(phone, '#viewer'), [], scheme);
    assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth), 390, scheme);
  }
  await phone.close();
});

test('the token list is a table of rows of cells', async () => {
  await pick(page, `${fixtures}real/ggml-vocab-llama-spm.gguf`);
  await waitFor(page, 'ggml-vocab-llama-spm.gguf');
  await page.waitForSelector('#tokenizer .vlist-row:not(.pending)');
  const rows = await page
    .locator('#tokenizer [role="table"] [role="row"]')
    .evaluateAll((rs) => rs.slice(0, 5).map((r) => [...r.children].map((c) => c.getAttribute('role'))));
  // One cell per column the visual header names: id, text, what it stands for, type, score.
  const columns = await page.locator('#tokenizer .vlist-head > span').count();
  assert.equal(columns, 5);
  assert.ok(rows.length > 0);
  for (const cells of rows) assert.deepEqual(cells, Array(columns).fill('cell'));
  assert.deepEqual(await axeViolations(page, '#panel-tokenizer'), []);
});

test('keyboard: skip links lead past the top bar; scroll boxes take focus; the file map is one Tab stop the arrow keys go through', async () => {
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
  // The first Tab stop is the first skip link, shown when focused; it leads to the tensors.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to the model');
  assert.ok(await page.evaluate(() => document.activeElement.getBoundingClientRect().top >= 0));
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('href')), '#panel-tensors');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  assert.ok(
    await page.evaluate(() => document.activeElement.closest('#panel-tensors') !== null),
    'the next Tab stop is in the tensors panel',
  );

  // The template's source, the metadata template and an array's elements scroll by keyboard.
  for (const selector of ['#chat-templates .code', 'tr[data-key="tokenizer.chat_template"] pre']) {
    const box = page.locator(selector).first();
    assert.equal(await box.getAttribute('tabindex'), '0', selector);
    assert.ok(await box.getAttribute('aria-label'), selector);
  }
  await page
    .locator('#metadata button', { hasText: /^Browse/ })
    .first()
    .click();
  const rowsBox = page.locator('#metadata .pager:not([hidden]) .pager-rows');
  assert.equal(await rowsBox.getAttribute('tabindex'), '0');
  await page.waitForSelector('#metadata .pager:not([hidden]) table.elements tr');
  await rowsBox.focus();
  await page.keyboard.press('PageDown');
  await page.waitForFunction(() => document.querySelector('#metadata .pager:not([hidden]) .pager-rows').scrollTop > 0);

  // The file map: focus it, go to the second tensor in file order, Enter shows it in the table.
  const map = page.locator('#maps .file-map').first();
  assert.equal(await map.getAttribute('tabindex'), '0');
  await map.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  const second = await page.evaluate(() => {
    const rects = [...document.querySelectorAll('#maps .file-map rect[data-index]')];
    return rects.sort((a, b) => Number(a.getAttribute('x')) - Number(b.getAttribute('x')))[1].dataset.index;
  });
  assert.equal(await page.getAttribute('#maps .file-map rect.focused', 'data-index'), second);
  assert.match(await page.textContent('#maps .map-focus'), /^2 of \d+: /);
  await page.keyboard.press('Enter');
  assert.equal(await page.getAttribute('#tensors tr.target', 'data-index'), second);
});
