// The page's smaller promises, end to end in Chromium: panels that say only true things (a file
// without tensors says so in a line; a cut-short file gets a banner and a plain missing block on
// its map), a split selection named by its first shard, an empty file called empty, plain http to
// another host refused by name, an embedded viewer's errors without the page's "open another
// file", a sticky tensor header, array items whose line breaks show escaped, the file's name in
// the window title, panels one can link to, and a long "Decode all" that shows it goes on.
// Run after scripts/build-web.sh: node --test www/e2e/page-parts.test.mjs

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { axeViolations, fixtures, pick, repo, startViewer, waitFor } from './browser.mjs';
import { GEMMA, builtFixture, noGemma } from '../../web/test/paths.mjs';

let viewer;
let page;
let scratch;
const requests = [];

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-parts-`);
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1300, height: 900 } });
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
});

after(async () => {
  await viewer?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A little-endian GGUF v3 file without tensors whose one pair is `key`: an array of `strings`. */
function stringArrayFile(key, strings) {
  const parts = [];
  const u32 = (n) => parts.push(Buffer.from(new Uint32Array([n]).buffer));
  const u64 = (n) => parts.push(Buffer.from(new BigUint64Array([BigInt(n)]).buffer));
  const str = (s) => (u64(Buffer.byteLength(s)), parts.push(Buffer.from(s)));
  parts.push(Buffer.from('GGUF'));
  u32(3);
  u64(0); // tensors
  u64(1); // key-value pairs
  str(key);
  u32(9); // ARRAY
  u32(8); // of STRING
  u64(strings.length);
  strings.forEach(str);
  return Buffer.concat(parts);
}

test('a file without tensors: the layout, type and memory panels each say so in a line, with no empty chart', async () => {
  await pick(page, `${fixtures}real/ggml-vocab-llama-spm.gguf`);
  await waitFor(page, 'ggml-vocab-llama-spm.gguf');
  assert.match(
    await page.textContent('#maps'),
    /^This file has no tensors: its 723\.9 kB \(723,869 bytes\) are all header/,
  );
  assert.equal(await page.locator('#maps svg, #maps h3').count(), 0, 'no chart, no empty axis');
  assert.doesNotMatch(await page.textContent('#maps'), /past the end of the file|cut short/);
  assert.equal(await page.locator('#type-mix p').count(), 1);
  assert.equal(await page.locator('#truncation-banner').count(), 0);
  assert.match(await page.textContent('#memory'), /^This file holds no tensors: .*nothing to estimate\.$/);
  assert.equal(
    await page.locator('#memory input, #memory svg').count(),
    0,
    'no inputs for an estimate that cannot be made',
  );
  assert.equal(await page.locator('#summary dl:empty').count(), 0);
});

test('a mixture of experts without tensors does not claim 0 active parameters', async () => {
  await pick(page, `${fixtures}real/ggml-vocab-dbrx.gguf`);
  await waitFor(page, 'ggml-vocab-dbrx.gguf');
  assert.equal(await page.textContent('[data-field="active_parameters"]'), 'none to count: the file holds no weights');
  assert.equal(
    await page.getAttribute('[data-field="active_parameters"]', 'data-value'),
    '0',
    "the report's figure stays the hook",
  );
});

test('a cut-short file: a banner over the summary says how much is missing and that it will not load; the map marks the end of the file and the missing bytes', async () => {
  const whole = readFileSync(`${fixtures}synth/all-types.gguf`);
  const cut = whole.length - 300;
  writeFileSync(`${scratch}/cut-short.gguf`, whole.subarray(0, cut));
  await pick(page, `${scratch}/cut-short.gguf`);
  await waitFor(page, 'cut-short.gguf');
  const banner = page.locator('#summary > #truncation-banner');
  assert.equal(
    await page.evaluate(() => document.querySelector('#summary').firstElementChild.id),
    'truncation-banner',
    'first in the summary',
  );
  const text = await banner.textContent();
  assert.match(text, /the model will not load/);
  assert.match(
    text,
    new RegExp(
      `The file is .* \\(${cut.toLocaleString('en-US')} bytes\\); its tensor data runs .* \\(\\d[\\d,]* bytes\\) past that`,
    ),
  );
  const missing = await page
    .locator('#maps .file-map rect[data-region="missing"]')
    .evaluate((r) => Number(r.dataset.end) - Number(r.dataset.start));
  assert.match(
    text,
    new RegExp(`\\(${missing.toLocaleString('en-US')} bytes\\) past that`),
    "the banner's figure is the map's",
  );
  const mark = page.locator('#maps .map-missing-mark');
  assert.ok(await mark.isVisible());
  assert.equal(await mark.locator('.map-end-label').textContent(), 'end of file');
  assert.match(await mark.locator('.map-missing-label').textContent(), /^missing: /);
  assert.match(await mark.evaluate((m) => getComputedStyle(m).backgroundImage), /repeating-linear-gradient/, 'hatched');
});

test('a split selection with a file left out is named by its first shard', async () => {
  const shard = (n) => `${fixtures}synth/sharded-0000${n}-of-00003.gguf`;
  await pick(page, [`${fixtures}synth/big-endian.gguf`, shard(1), shard(2), shard(3)]);
  await waitFor(page, 'sharded-00001-of-00003.gguf (+2 more)');
  assert.equal(await page.textContent('#file-name'), 'sharded-00001-of-00003.gguf (+2 more)');
  assert.equal(await page.title(), 'sharded-00001-of-00003.gguf (+2 more) — ggufscope');
});

test('an empty file is said to be empty', async () => {
  writeFileSync(`${scratch}/empty.gguf`, '');
  await pick(page, `${scratch}/empty.gguf`);
  await waitFor(page, 'empty.gguf', 'error');
  assert.equal(await page.textContent('[data-field="error_message"]'), 'the file is empty (0 bytes)');
  assert.equal(await page.title(), 'empty.gguf — ggufscope');
  assert.match(await page.textContent('#error'), /Open another file/);
});

test("plain http to another host is refused with the page's rule, before any request", async () => {
  const url = 'http://models.example/tiny.gguf';
  const before = requests.length;
  await page.fill('#url-input', url);
  await page.click('#url-form button[type="submit"]');
  await waitFor(page, url, 'error');
  assert.equal(
    await page.textContent('[data-field="error_message"]'),
    'plain http is only allowed from this computer (localhost, 127.0.0.1): open models.example over https instead',
  );
  assert.deepEqual(
    requests.slice(before).filter((u) => u.includes('models.example')),
    [],
  );
});

test("the embedded viewer's error does not offer to open another file: it has no control for it", async () => {
  const embedded = await viewer.browser.newPage();
  await embedded.goto(`${viewer.origin}/embed.html?src=no-such-model.gguf`);
  await embedded.waitForFunction(() => document.querySelector('gguf-viewer')?.dataset.state === 'error', null, {
    timeout: 60_000,
  });
  const panel = embedded.locator('gguf-viewer #error');
  assert.ok(await panel.isVisible());
  assert.doesNotMatch(await panel.textContent(), /another file/);
  assert.equal(await embedded.title(), 'acme/tiny-llama-GGUF · ModelHub', 'the host page keeps its title');
  await embedded.close();
});

test('array items with line breaks show them escaped, one item a line', async () => {
  writeFileSync(`${scratch}/lines.gguf`, stringArrayFile('test.lines', ['a\nb', 'c\r\nd', 'e']));
  await pick(page, `${scratch}/lines.gguf`);
  await waitFor(page, 'lines.gguf');
  const value = await page.textContent('#metadata tr[data-key="test.lines"] td.value');
  assert.ok(!/[\r\n]/.test(value), JSON.stringify(value));
  assert.match(value, /a\\nb/);
  assert.match(value, /c\\r\\nd/);
});

test("the tensor table's header stays in view as its rows scroll; the title names the file; panels are linkable", async () => {
  await page.goto(`${viewer.origin}/?file=sample.gguf#panel-tensors`);
  await waitFor(page, 'sample.gguf');
  assert.equal(await page.title(), 'sample.gguf — ggufscope');
  // The link is followed once the panels are there.
  await page.waitForFunction(
    () => Math.abs(document.getElementById('panel-tensors').getBoundingClientRect().top) < 100,
  );
  assert.equal(await page.getAttribute('#panel-tensors h2 a', 'href'), '#panel-tensors');
  for (const id of [
    'panel-checks',
    'panel-tokenizer',
    'panel-chat-template',
    'panel-metadata',
    'panel-layers-and-layout',
  ]) {
    assert.equal(await page.getAttribute(`#${id} h2 a.anchor`, 'href'), `#${id}`);
  }
  const wrap = page.locator('#tensors .tensors-wrap');
  await wrap.evaluate((w) => (w.scrollTop = 400));
  const [wrapTop, headTop] = await page.evaluate(() => [
    document.querySelector('#tensors .tensors-wrap').getBoundingClientRect().top,
    document.querySelector('#tensors thead th').getBoundingClientRect().top,
  ]);
  assert.ok((await wrap.evaluate((w) => w.scrollTop)) > 0, 'the rows scrolled');
  assert.ok(Math.abs(headTop - wrapTop) < 2, `the header stays at the top of its box (${headTop} vs ${wrapTop})`);
});

test('"Decode all" of a large tensor shows that it is reading, and for how long', { skip: noGemma() }, async () => {
  await pick(page, GEMMA);
  await waitFor(page, GEMMA.split('/').pop());
  await page.fill('#tensor-filter', 'token_embd.weight');
  await page.locator('#tensors tbody tr').first().locator('.peek-button').click();
  await page.waitForSelector('.peek[data-state="ready"]');
  await page.locator('.peek button', { hasText: /^Decode all 262,144 rows/ }).click();
  // The read of 178 MB takes seconds: meanwhile a progress bar and the seconds it has taken.
  await page.waitForSelector('.peek[data-state="loading"] progress.peek-progress');
  assert.match(await page.textContent('.peek[data-state="loading"] .note'), /^Reading 178\.3 MB of this tensor/);
  await page.waitForSelector('.peek[data-state="ready"]', { timeout: 120_000 });
  assert.equal(await page.locator('.peek progress').count(), 0, 'gone once read');
  assert.match(await page.textContent('.peek .note'), /^All 262,144 rows/);
});

test("a split model's header card: the shards' headers summed, the data offset the first shard's, said so", async () => {
  const shards = [1, 2, 3].map((n) => `${fixtures}synth/sharded-0000${n}-of-00003.gguf`);
  await pick(page, shards);
  await waitFor(page, 'sharded-00001-of-00003.gguf (+2 more)');
  const report = await page.evaluate(() => document.querySelector('[data-field="header_size"]').dataset.value);
  assert.match(await page.textContent('[data-field="header_size"]'), / in 3 headers$/);
  const offset = await page.getAttribute('dd[data-field="data_offset"]', 'data-value');
  assert.equal(
    await page.textContent('dd[data-field="data_offset"]'),
    `${Number(offset).toLocaleString('en-US')} in shard 1`,
  );
  assert.ok(Number(offset) < Number(report), 'shard 1 data starts before the headers summed end: why it is said');
  // Each shard's own data offset is in the shards table.
  const dataAt = await page.$$eval('#shards td[data-label="Data at"]', (tds) => tds.map((td) => td.textContent));
  assert.equal(dataAt.length, 3);
  assert.equal(dataAt[0], Number(offset).toLocaleString('en-US'));
  assert.match(
    await page.textContent('[data-note="header_size"]'),
    /^The headers of 3 shards, summed: each shard’s tensor data starts after its own header\.$/,
  );
  for (const width of [1300, 390]) {
    await page.setViewportSize({ width, height: 900 });
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page, '#summary'), [], `${width} px, ${colorScheme}`);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), width);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1300, height: 900 });
});

/** `{type: tone class}` of the type mix's bars and of the file map's tensors. */
function tonesShown() {
  return page.evaluate(() => {
    const tone = (e) => [...e.classList].find((c) => /^tone-\d+$/.test(c));
    const bars = Object.fromEntries(
      [...document.querySelectorAll('#type-mix .mix-row')].map((row) => [
        row.dataset.type,
        tone(row.querySelector('.bar')),
      ]),
    );
    return { bars, order: Object.keys(bars) };
  });
}

test('each ggml type has one colour, whatever the file and whatever its share', async () => {
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
  const sample = await tonesShown();
  assert.deepEqual(sample.bars, { Q4_K: 'tone-2', Q6_K: 'tone-3', F32: 'tone-7' });
  // The charts colour a type as the type mix does.
  const chartsAgree = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('#maps rect[data-type]')]
        .map((r) => [r.dataset.type, [...r.classList].find((c) => /^tone-\d+$/.test(c))])
        .filter(
          ([type, tone]) =>
            !document.querySelector(`#type-mix .mix-row[data-type="${type}"] .bar`)?.classList.contains(tone),
        ),
    );
  assert.deepEqual(await chartsAgree(), []);
  // Other mixes, in other orders (Gemma: Q8_0 first, Q4_K third; quants.gguf: eleven types): a
  // type seen in the sample keeps its colour, and the types of each file are told apart but for
  // the pairs of one family (Q4_0 and Q4_1, Q5_0 and Q5_1, TQ1_0 and TQ2_0).
  const others = [`${fixtures}synth/quants.gguf`, ...(noGemma() ? [] : [GEMMA])];
  for (const file of others) {
    await pick(page, file);
    await waitFor(page, file.split('/').pop());
    const shown = await tonesShown();
    for (const [type, tone] of Object.entries(shown.bars)) {
      if (type in sample.bars) assert.equal(tone, sample.bars[type], `${type} in ${file}`);
    }
    const families = new Set(shown.order.map((t) => t.replace(/^(Q[45])_[01]$/, '$1').replace(/^TQ[12]_0$/, 'TQ')));
    assert.equal(new Set(Object.values(shown.bars)).size, families.size, `${file}: ${JSON.stringify(shown.bars)}`);
    assert.deepEqual(await chartsAgree(), [], file);
  }
});

test('bytes per layer: a few layers all in view, no scroll box; 1,200 layers in a box whose scroll bar is drawn', async () => {
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
  const box = () =>
    page.$eval('#maps .layers', (e) => ({
      scrolls: e.scrollHeight > e.clientHeight,
      bar: e.offsetWidth - e.clientWidth,
    }));
  assert.equal((await box()).scrolls, false, "the sample's 4 layers are all in view");
  const many = builtFixture('many-tensors.gguf');
  await pick(page, many);
  await waitFor(page, 'many-tensors.gguf');
  const { scrolls, bar } = await box();
  assert.ok(scrolls, '1,200 layers scroll');
  assert.ok(bar >= 8, `a scroll bar ${bar} px wide is drawn beside the rows`);
  await page.locator('#maps .layers').screenshot({ path: `${repo}test-results/layers-box.png` });
});
