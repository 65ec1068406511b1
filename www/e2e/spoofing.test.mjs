// Text that disguises itself (issue 17, finding 2) in headless Chromium: the spoofing fixture
// (gguf_core::testkit::spoofing, written by write-fixtures) holds
// U+202E (right-to-left override), U+200B (zero-width space) and ESC in the model's name, a URL
// value, keys, a token, the chat template and a tensor name, and is opened under a file name
// holding them too. Every place the page shows them, they are escapes (`\u{202E}`, `\u{200B}`,
// `\x1B`, as the CLI writes them), and nowhere in the page's text or tooltips are they raw; the
// `data-*` hooks keep the raw values.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { pick, startViewer, waitFor } from './browser.mjs';
import { linkBuiltFixture } from '../../web/test/paths.mjs';

const HIDE = '\u202EFUGG\u200B\x1b[2J';
const SHOWN = '\\u{202E}FUGG\\u{200B}\\x1B[2J';
const NAME = `Llama-3-8B-Instruct-\u202EFUGG.exe\u200B\x1b[2J`;
const KEY = 'general.arch\u200Bitecture\u202E\x1b[0m';
const TENSOR = 'token_embd\u202E.weight\u200B\x1b[1m';
/** How the page shows a text: its hidden characters as the CLI's escapes. */
const escaped = (text) =>
  text.replace(/[\u200B\u202E\x1b]/g, (c) =>
    c === '\x1b' ? '\\x1B' : `\\u{${c.codePointAt(0).toString(16).toUpperCase()}}`,
  );

let scratch;
let viewer;
let page;
const pageErrors = [];
const file = () => `${scratch}/model${HIDE}.gguf`;

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-e2e-spoofing-`);
  linkBuiltFixture('spoofing.gguf', scratch);
  copyFileSync(`${scratch}/spoofing.gguf`, file());
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
  await pick(page, file());
  await waitFor(page, `model${HIDE}.gguf`);
  await page.waitForSelector('#chat-templates .code-line');
  await page.waitForSelector('#tokenizer .vlist-row[data-id="1"]');
});

after(async () => {
  await viewer?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('the file name, the summary card and the metadata table show the escapes', async () => {
  assert.equal(await page.textContent('#file-name'), `model${SHOWN}.gguf`);
  const name = page.locator('#summary [data-field="name"]');
  assert.equal(await name.textContent(), escaped(NAME));
  assert.equal(await name.getAttribute('data-value'), NAME, 'the hook keeps the raw value');
  // The escapes are marked apart, with the code point as their tooltip.
  assert.deepEqual(await name.locator('.esc').evaluateAll((spans) => spans.map((s) => [s.textContent, s.title])), [
    ['\\u{202E}', 'U+202E'],
    ['\\u{200B}', 'U+200B'],
    ['\\x1B', 'U+001B'],
  ]);
  const row = (key) =>
    page
      .locator('#metadata tbody > tr')
      .filter({ has: page.locator('td.key') })
      .and(page.locator(`tr[data-index="${key}"]`));
  const keys = await page.locator('#metadata tbody > tr').evaluateAll((rows) => rows.map((r) => r.dataset.key));
  const at = (key) => keys.indexOf(key);
  assert.equal(await row(at('general.name')).locator('td.value').textContent(), escaped(NAME));
  assert.equal(
    await row(at('general.source.url')).locator('td.value').textContent(),
    escaped('https://example.com\u202E/moc.live\u200B\x1b]8;;/'),
  );
  assert.equal(await row(at(KEY)).locator('td.key').textContent(), escaped(KEY));
  // The Cyrillic а is a letter: shown as it is, and reported by the checks below.
  assert.equal(await row(at('general.n\u0430me')).locator('td.key').textContent(), 'general.n\u0430me');
});

test('the tensor table, the file map, the token browser and the template show the escapes', async () => {
  assert.equal(await page.textContent('#tensors tbody > tr td.name'), escaped(TENSOR));
  const titles = await page.locator('#maps title').allTextContents();
  assert.ok(
    titles.some((t) => t.startsWith(`${escaped(TENSOR)} · F32`)),
    titles.join('\n'),
  );
  assert.equal(
    await page.textContent('#tokenizer .vlist-row[data-id="1"] .token-text'),
    'ok\\u{202E}kayak\\u{200B}\\x1B[5m',
  );
  assert.equal(
    await page.textContent('#chat-templates .code-line .src'),
    "{{ bos_token }}\\u{202E}{{ messages[0]['content'] }}\\u{200B}\\x1B[2J",
  );
});

test('the checks report each disguise, and their subjects show the escapes', async () => {
  const rows = await page
    .locator('#findings tbody > tr')
    .evaluateAll((trs) => trs.map((tr) => [tr.dataset.code, tr.querySelector('.subject-cell')?.textContent]));
  const about = (code) => rows.filter(([c]) => c === code).map(([, s]) => s);
  assert.deepEqual(about('disguised-key'), [escaped(KEY), 'general.n\u0430me']);
  assert.deepEqual(about('disguised-text'), [
    'general.name',
    'general.source.url',
    'tokenizer.chat_template',
    escaped(TENSOR),
  ]);
  assert.match(await page.textContent('#findings-count'), /^\d+ warnings?$/);
});

test('nowhere in the page are the hidden characters raw: not in its text, not in a tooltip or label', async () => {
  const raw = await page.evaluate(() => {
    const hidden = /[\u200B\u202E\x1b]/;
    const found = [];
    const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode())
      if (hidden.test(n.data)) found.push(n.parentElement.outerHTML.slice(0, 120));
    for (const e of document.querySelectorAll('[title], [aria-label]')) {
      for (const a of ['title', 'aria-label'])
        if (hidden.test(e.getAttribute(a) ?? '')) found.push(`${a} of ${e.outerHTML.slice(0, 120)}`);
    }
    return found;
  });
  assert.deepEqual(raw, []);
  assert.deepEqual(pageErrors, []);
});
