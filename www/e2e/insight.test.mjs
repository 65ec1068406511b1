// End-to-end tests of the tensor peek, the maps and the findings' click-through
// in headless Chromium, on the complete Gemma model and files written by the project's builder.
// The figures on the page are checked against the CLI's (`ggufscope tensor`, `ggufscope info`),
// and the worker's reads are counted by patching Blob.prototype.slice inside it.
// Run after scripts/build-web.sh: node --test www/e2e/. Screenshots go to test-results/.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { decimal } from '../format.js';
import { fixtures, pick, repo, servedAs, startViewer, waitFor } from './browser.mjs';
import { ggufscopeBin, linkBuiltFixture } from '../../web/test/paths.mjs';

const shots = `${repo}test-results/`;
const gemma = process.env.GGUF_GEMMA || execFileSync('sh', [`${fixtures}fetch-gemma.sh`], { encoding: 'utf8' }).trim();
const gemmaRef = JSON.parse(readFileSync(`${fixtures}ref/gemma-3-270m-q4_k_m.gguf.summary.json`, 'utf8'));

/** `ggufscope ARGS… --json`, parsed. */
function cli(...args) {
  return JSON.parse(execFileSync(ggufscopeBin(), [...args, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 }));
}

let viewer;
let page;
let scratch;
const requests = [];
const ranges = []; // of every request, "URL bytes=A-B" when it asks for a Range
const pageErrors = [];

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-e2e-`);
  linkBuiltFixture('many-tensors.gguf', scratch);
  linkBuiltFixture('layout-gap.gguf', scratch);
  execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`, scratch]);
  mkdirSync(shots, { recursive: true });
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  page.on('request', (r) => {
    requests.push(r.url());
    ranges.push(r.headerValue('range').then((range) => range && `${r.url()} ${range}`));
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
  // Count what the worker slices from files from here on: `self.sliced` lists [start, end].
  await page.workers()[0].evaluate(() => {
    const slice = Blob.prototype.slice;
    self.sliced = [];
    Blob.prototype.slice = function (start = 0, end = this.size) {
      self.sliced.push([start, Math.min(end, this.size)]);
      return slice.call(this, start, end);
    };
  });
});

after(async () => {
  await viewer?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const worker = () => page.workers()[0];
const slicedSince = async (mark) => (await worker().evaluate(() => self.sliced)).slice(mark);
const sliceCount = () => worker().evaluate(() => self.sliced.length);

/** `{stat: data-value}` of the peek under the tensor table. */
function peekStats() {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('.peek [data-stat]')].map((e) => [
        e.dataset.stat,
        e.dataset.value ?? e.textContent,
      ]),
    ),
  );
}

/** Opens the peek of tensor `name` from its row and waits for it to be shown (or refused). */
async function peekAt(name) {
  await page.fill('#tensor-filter', name);
  const row = page.locator('#tensors tbody tr', {
    has: page.locator('td.name', { hasText: new RegExp(`^${name.replaceAll('.', '\\.')}$`) }),
  });
  await row.locator('.peek-button').click();
  await page.waitForSelector('.peek[data-state="ready"], .peek[data-state="error"]');
  return page.locator('.peek');
}

test("the built-in sample, read over HTTP: a peek fetches its tensor's bytes in one Range request", async () => {
  // The last tensor: far past the header's first read (256 KiB), which the page keeps.
  const sample = cli('info', `${repo}dist/sample.gguf`).tensors.at(-1);
  assert.ok(sample.absolute_offset > 1 << 20);
  const mark = ranges.length;
  const peek = await peekAt(sample.name);
  assert.equal(await peek.getAttribute('data-state'), 'ready');
  const asked = (await Promise.all(ranges.slice(mark))).filter(Boolean);
  assert.deepEqual(asked, [
    `${viewer.origin}/sample.gguf bytes=${sample.absolute_offset}-${sample.absolute_offset + sample.n_bytes - 1}`,
  ]);
  // The sample's values look like a trained model's (a newcomer's first peek must not say "a
  // damaged download?"): the figures `ggufscope tensor` gives, bell-shaped around 0, no warning.
  const expected = cli('tensor', `${repo}dist/sample.gguf`, sample.name);
  const s = await peekStats();
  for (const name of ['min', 'max', 'mean', 'std_dev', 'zeros'])
    assert.equal(Number(s[name]), expected.stats[name], name);
  assert.ok(expected.stats.std_dev > 0.01 && Math.abs(expected.stats.mean) < 0.01, 'spread around 0');
  assert.ok(expected.stats.zeros < expected.stats.count / 10, 'a few zeros, as rounding gives');
  assert.ok(await page.isHidden('.peek .warning'), 'no all-zero or non-finite warning on the sample');
});

test("Gemma, blk.0.attn_q.weight: the statistics `ggufscope tensor` gives, from that tensor's bytes alone, read once", async () => {
  await pick(page, gemma);
  await waitFor(page, 'gemma-3-270m-q4_k_m.gguf');
  const mark = await sliceCount();
  const peek = await peekAt('blk.0.attn_q.weight');
  assert.equal(await peek.getAttribute('data-state'), 'ready');

  const expected = cli('tensor', gemma, 'blk.0.attn_q.weight');
  const s = await peekStats();
  for (const name of ['min', 'max', 'mean', 'std_dev']) assert.equal(Number(s[name]), expected.stats[name], name);
  for (const name of ['zeros', 'nan', 'pos_inf', 'neg_inf']) assert.equal(Number(s[name]), expected.stats[name], name);
  assert.deepEqual(s.first.split(',').map(Number), expected.stats.first);
  assert.match(
    await peek.textContent(),
    /All 1,024 rows: 655,360 values from 450\.6 kB at offset 0xb0b00c0 \(185,270,464\)/,
  );
  assert.equal(await peek.locator('[data-stat="zeros"]').textContent(), '43,560 (6.65%)');
  assert.ok(await page.isHidden('.peek .warning'), 'no all-zero or non-finite warning');

  // The histogram: 64 bars holding every finite value.
  const counts = await page
    .locator('.peek .histogram rect')
    .evaluateAll((bars) => bars.map((b) => Number(b.dataset.count)));
  assert.equal(counts.length, 64);
  assert.equal(
    counts.reduce((a, b) => a + b, 0),
    expected.stats.count,
  );

  // Only the tensor's 450,560 bytes were read, in one slice: one chunk holds them, kept for both passes.
  const tensor = gemmaRef.tensors.find((t) => t.name === 'blk.0.attn_q.weight');
  assert.deepEqual(await slicedSince(mark), [[tensor.abs_offset, tensor.abs_offset + tensor.n_bytes]]);
  assert.equal(Number(s.bytes_read), tensor.n_bytes);
  // Chromium runs wasm SIMD: the worker loaded the dequantizers' SIMD build, from the page's origin.
  assert.ok(
    requests.some((url) => url === viewer.origin + servedAs('web/pkg-values-simd/gguf_values_wasm_bg.wasm')),
    "the SIMD dequantizers came from the page's origin",
  );
  assert.ok(!requests.some((url) => url.includes('/web/pkg-values/')), 'and the fallback was not fetched');
  await page.locator('.peek-row').screenshot({ path: `${shots}peek-gemma.png` });

  // The log scale redraws the same bars; clicking the row's button again closes the peek.
  await page.click('.peek button[aria-pressed]');
  assert.equal(await page.getAttribute('.peek button[aria-pressed]', 'aria-pressed'), 'true');
  await page.click('#tensors .peek-button[aria-expanded="true"]');
  assert.equal(await page.locator('.peek').count(), 0);

  // A tensor of one row says so in the singular.
  const norm = await peekAt('blk.0.attn_norm.weight');
  assert.match(await norm.textContent(), /^The only row: 640 values from /);
  await page.click('#tensors .peek-button[aria-expanded="true"]');
});

test("?simd=off: the fallback dequantizers give the same peek of Gemma's blk.0.attn_q.weight", async () => {
  const fallback = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  const fetched = [];
  fallback.on('request', (r) => fetched.push(r.url()));
  try {
    await fallback.goto(`${viewer.origin}/?simd=off`);
    await waitFor(fallback, 'sample.gguf');
    await pick(fallback, gemma);
    await waitFor(fallback, 'gemma-3-270m-q4_k_m.gguf');
    await fallback.fill('#tensor-filter', 'blk.0.attn_q.weight');
    await fallback
      .locator('#tensors tbody tr', { has: fallback.locator('td.name', { hasText: /^blk\.0\.attn_q\.weight$/ }) })
      .locator('.peek-button')
      .click();
    await fallback.waitForSelector('.peek[data-state="ready"]');
    const stats = await fallback.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll('.peek [data-stat]')].map((e) => [
          e.dataset.stat,
          e.dataset.value ?? e.textContent,
        ]),
      ),
    );
    const expected = cli('tensor', gemma, 'blk.0.attn_q.weight').stats;
    for (const name of ['min', 'max', 'mean', 'std_dev', 'zeros'])
      assert.equal(Number(stats[name]), expected[name], name);
    assert.deepEqual(stats.first.split(',').map(Number), expected.first);
    assert.ok(
      fetched.includes(viewer.origin + servedAs('web/pkg-values/gguf_values_wasm_bg.wasm')),
      'the fallback build was loaded',
    );
    assert.ok(!fetched.some((url) => url.includes('/web/pkg-values-simd/')), 'and not the SIMD one');
  } finally {
    await fallback.close();
  }
});

test('numbers: shares that never round real counts away, nouns that agree, floats grouped', async () => {
  const { counted, groupedNumber, percent } = await import('../format.js');
  assert.equal(percent(30, 10_000_000), '<0.01%', 'real zeros are not "0%"');
  assert.equal(percent(9_999_999, 10_000_000), '>99.99%');
  assert.equal(percent(43_560, 655_360), '6.65%');
  assert.equal(percent(0, 10), '0%');
  assert.equal(percent(10, 10), '100%');
  assert.equal(percent(1, 0), '—');
  assert.equal(counted(1, 'row'), '1 row');
  assert.equal(counted(2048, 'row'), '2,048 rows');
  assert.equal(groupedNumber(1_000_000), '1,000,000');
  assert.equal(groupedNumber(10_000.5), '10,000.5');
  assert.equal(groupedNumber(-1234.25), '-1,234.25');
  assert.equal(groupedNumber(1e21), '1e+21');
});

test('Gemma: the RoPE base is grouped like every other figure', async () => {
  assert.equal(await page.textContent('[data-field="rope.freq_base"]'), '1,000,000');
});

test('Gemma: bytes per layer, the file to scale, and a tensor of the map shown in the table', async () => {
  const layerBytes = (n) =>
    gemmaRef.tensors.filter((t) => t.name.startsWith(`blk.${n}.`)).reduce((sum, t) => sum + t.n_bytes, 0);
  const rows = await page
    .locator('#maps .layer-row')
    .evaluateAll((rs) => rs.map((r) => [r.dataset.layer, Number(r.dataset.bytes)]));
  assert.deepEqual(
    rows,
    Array.from({ length: 18 }, (_, n) => [String(n), layerBytes(n)]),
  );
  assert.equal(
    await page.getAttribute('#maps .map-figure', 'data-scale'),
    'linear',
    'a 6.5 MB header is 2.6% of the file: one scale',
  );
  assert.equal(await page.locator('#maps .file-map rect[data-index]').count(), 236);

  await page.fill('#tensor-filter', '');
  const last = gemmaRef.tensors.length - 1;
  await page.locator(`#maps .file-map rect[data-index="${last}"]`).dispatchEvent('click');
  const row = page.locator('#tensors tr.target');
  assert.equal(await row.getAttribute('data-index'), String(last));
  assert.ok(await row.isVisible());
  assert.ok(
    await row.evaluate((r) => r.getBoundingClientRect().top >= 0 && r.getBoundingClientRect().bottom <= innerHeight),
    'scrolled into view',
  );

  await page.click('#maps .layer-row[data-layer="7"] button');
  assert.equal(await page.inputValue('#tensor-filter'), 'blk.7.');
  assert.equal(
    await page.locator('#tensors tbody > tr').count(),
    gemmaRef.tensors.filter((t) => t.name.startsWith('blk.7.')).length,
  );
  await page.locator('#maps').screenshot({ path: `${shots}maps-gemma.png` });
});

test('a tensor after unused bytes: the map draws the gap of the tensor-data-gap finding, and every region and bits per weight as the report says', async () => {
  const file = `${scratch}/layout-gap.gguf`;
  const expected = cli('info', file);
  await pick(page, file);
  await waitFor(page, 'layout-gap.gguf');

  // The finding, as the findings view shows it, and the gap it is about: up to tensor #1's data.
  const reported = expected.findings.filter((f) => f.code === 'tensor-data-gap');
  assert.equal(reported.length, 1);
  const [gap] = reported;
  const shown = page.locator('#findings tr[data-code="tensor-data-gap"] td.offset');
  assert.equal(await shown.count(), 1);
  assert.equal(Number(await shown.getAttribute('data-value')), gap.offset);
  assert.equal(gap.end, expected.tensors[1].absolute_offset);
  assert.equal(
    gap.end - gap.offset,
    1000 - 256,
    "the unused bytes between the first tensor's end and the second's start",
  );

  // The map's gap rect is exactly those bytes, drawn between the two tensors' rects.
  const rect = (selector) =>
    page
      .locator(`#maps .file-map ${selector}`)
      .evaluateAll((rs) =>
        rs.map((r) => ({ ...r.dataset, x: Number(r.getAttribute('x')), width: Number(r.getAttribute('width')) })),
      );
  const gaps = await rect('rect[data-region="gap"]');
  assert.deepEqual(
    gaps.map((r) => [Number(r.start), Number(r.end)]),
    [[gap.offset, gap.end]],
  );
  const [[first], [second]] = await Promise.all([rect('rect[data-index="0"]'), rect('rect[data-index="1"]')]);
  assert.ok(Math.abs(gaps[0].x - (first.x + first.width)) < 1e-9, 'the gap starts where the first tensor ends');
  assert.ok(Math.abs(gaps[0].x + gaps[0].width - second.x) < 1e-9, 'the gap ends where the second tensor starts');

  // Every region drawn is the report's, in its order: padding after the unaligned tensor, the tail, nothing missing.
  const regions = await rect('rect[data-region]');
  const [layout] = expected.layout.files;
  assert.deepEqual(
    regions.map((r) => [r.region, Number(r.start), Number(r.end)]),
    layout.regions.map((r) => [r.kind, r.start, r.end]),
  );
  assert.deepEqual(
    layout.regions
      .filter((r) => r.kind !== 'header' && r.start >= layout.data_offset)
      .map((r) => [r.kind, r.start - layout.data_offset, r.end - layout.data_offset]),
    [
      ['gap', 256, 1000],
      ['padding', 1256, 1280],
      ['tail', 2112, 2212],
    ],
  );
  assert.match(await page.textContent('#maps .map-figure'), /744 B between tensors are unused/);

  // Bytes per layer are the report's layers; the tensors outside a layer are in a note.
  const layers = await page
    .locator('#maps .layer-row')
    .evaluateAll((rs) => rs.map((r) => [r.dataset.layer, Number(r.dataset.bytes)]));
  assert.deepEqual(
    layers,
    expected.layout.layers.filter((l) => l.layer !== null).map((l) => [String(l.layer), l.bytes]),
  );
  assert.deepEqual(layers, [
    ['0', 512],
    ['1', 576],
  ]);
  assert.match(
    await page.textContent('#maps'),
    /Not in a layer: 256 B in 1 tensor \(output_norm\.weight\), 32 bits\/weight\./,
  );

  // The table's bits per weight are the report's: 16 for F16, 4.5 for Q4_0, a dash without elements.
  await page.fill('#tensor-filter', '');
  const bits = expected.tensors.map((t) => t.bits_per_weight);
  assert.deepEqual(bits, [32, 16, 4.5, 32, null]);
  assert.deepEqual(
    await page.locator('#tensors tbody > tr td.bits').allTextContents(),
    bits.map((b) => (b === null ? '—' : decimal(b))),
  );
  await page.locator('#maps').screenshot({ path: `${shots}maps-layout-gap.png` });
});

test("the 40 GB sparse file: the header on a scale of its own; a 4 GiB tensor's first rows, all zeros, read alone", async () => {
  await pick(page, `${scratch}/big-40g-sparse.gguf`);
  await waitFor(page, 'big-40g-sparse.gguf');
  assert.equal(await page.getAttribute('#maps .map-figure', 'data-scale'), 'broken');
  assert.match(await page.textContent('#maps .map-figure'), /drawn on a scale of their own/);

  const mark = await sliceCount();
  const peek = await peekAt('output.weight');
  assert.match(await peek.locator('.warning').textContent(), /Every value is zero/);
  const tensor = JSON.parse(readFileSync(`${fixtures}ref/big-40g-sparse.gguf.summary.json`, 'utf8')).tensors.find(
    (t) => t.name === 'output.weight',
  );
  const sliced = await slicedSince(mark);
  const read = sliced.reduce((sum, [start, end]) => sum + end - start, 0);
  assert.ok(
    sliced.every(([start, end]) => start >= tensor.abs_offset && end <= tensor.abs_offset + tensor.n_bytes),
    JSON.stringify(sliced),
  );
  assert.ok(read <= 2 * 16 * 1024 * 1024, `read ${read} bytes`);
  assert.equal(Number((await peekStats()).bytes_read), read);

  // Decoding all 4 GiB can be stopped: the first rows' figures come back, and the reads stop.
  const decodeAll = await sliceCount();
  await peek.getByRole('button', { name: /^Decode all 262,144 rows/ }).click();
  await peek.getByRole('button', { name: 'Stop' }).click();
  await page.waitForSelector('.peek[data-state="ready"]');
  assert.match(await peek.locator('.warning').textContent(), /Every value is zero/);
  await page.waitForTimeout(200); // the read under way when the stop arrived ends
  const stoppedAt = await sliceCount();
  await page.waitForTimeout(500);
  assert.equal(await sliceCount(), stoppedAt, 'no read after the stop');
  const readBeforeStop = (await slicedSince(decodeAll)).reduce((sum, [start, end]) => sum + end - start, 0);
  assert.ok(readBeforeStop < 2 ** 30, `${readBeforeStop} bytes of 4 GiB read before the stop`);
  assert.ok(await peek.getByRole('button', { name: /^Decode all/ }).isVisible());
  await page.locator('#maps').screenshot({ path: `${shots}maps-40g.png` });
});

test("findings: clicking the key of dbrx's duplicate shows its metadata row", async () => {
  await pick(page, `${fixtures}real/ggml-vocab-dbrx.gguf`);
  await waitFor(page, 'ggml-vocab-dbrx.gguf');
  // Experts but no weights: no "Active parameters 0 (0)".
  assert.equal(await page.textContent('[data-field="active_parameters"]'), 'none to count: the file holds no weights');
  // A vocabulary-only file: its data section lies past its end, and no byte is missing.
  assert.equal(await page.locator('#maps .file-map rect[data-region="missing"]').count(), 0);
  assert.doesNotMatch(await page.textContent('#maps'), /past the end of the file/);
  const finding = page.locator('#findings tr[data-code="duplicate-key"]');
  assert.match(await finding.locator('td.offset').textContent(), /^0x231 \(561\)$/);
  await finding.locator('button.subject').click();
  const target = page.locator('#metadata tr.target');
  assert.equal(await target.count(), 1);
  assert.equal(await target.getAttribute('data-key'), 'general.file_type');
  assert.match(
    await target.locator('td.offset').textContent(),
    /^0x231$/,
    'the second general.file_type, the duplicate',
  );
  assert.ok(
    await target.evaluate((r) => r.getBoundingClientRect().top >= 0 && r.getBoundingClientRect().bottom <= innerHeight),
    'scrolled into view',
  );
});

test('findings: a tensor past the first 1,000 rows is filtered to and highlighted; an undecodable type says so', async () => {
  await pick(page, `${scratch}/many-tensors.gguf`);
  await waitFor(page, 'many-tensors.gguf');
  assert.equal(await page.locator('#tensors tbody > tr').count(), 1000);
  assert.equal(await page.locator('#tensors tr[data-index="1100"]').count(), 0, 'not shown at first');
  await page.locator('#findings tr[data-code="duplicate-tensor-name"] button.subject').click();
  const target = page.locator('#tensors tr.target');
  assert.equal(await target.getAttribute('data-index'), '1100');
  assert.equal(await page.inputValue('#tensor-filter'), 'blk.2.weight');
  assert.ok(
    await target.evaluate((r) => r.getBoundingClientRect().top >= 0 && r.getBoundingClientRect().bottom <= innerHeight),
    'scrolled into view',
  );
  assert.equal(
    await page.textContent('#findings tr[data-code="missing-quantization-version"] td.subject-cell'),
    'the file',
  );
  await page.screenshot({ path: `${shots}finding-tensor.png` });

  const mark = await sliceCount();
  const peek = await peekAt('blk.3.removed_type.weight');
  assert.equal(await peek.getAttribute('data-state'), 'error');
  assert.match(await peek.textContent(), /Q4_2 cannot be decoded: ggml removed this type/);
  assert.deepEqual(await slicedSince(mark), [], 'nothing read for a type that cannot be decoded');

  await peekAt('blk.1199.weight');
  assert.match(await page.textContent('.peek .warning'), /Every value is zero/);
});

test('a split model: one map per shard, and a tensor of the third shard read from that file', async () => {
  const shard = (n) => `${fixtures}synth/sharded-0000${n}-of-00003.gguf`;
  await pick(page, [shard(1), shard(2), shard(3)]);
  await page.waitForFunction(
    () => document.body.dataset.state === 'ready' && document.body.dataset.file.startsWith('sharded-00001'),
  );
  assert.deepEqual(await page.locator('#maps h3').allTextContents(), [
    'Shard 1, sharded-00001-of-00003.gguf, to scale',
    'Shard 2, sharded-00002-of-00003.gguf, to scale',
    'Shard 3, sharded-00003-of-00003.gguf, to scale',
    'Bytes per layer',
    'Bits per weight, tensor by tensor',
  ]);
  assert.deepEqual(
    await page
      .locator('#maps .file-map')
      .evaluateAll((maps) => maps.map((m) => m.querySelectorAll('rect[data-index]').length)),
    [2, 2, 2],
  );

  const mark = await sliceCount();
  await peekAt('blk.2.ffn_norm.weight');
  const ref = JSON.parse(readFileSync(`${fixtures}ref/sharded-00003-of-00003.gguf.summary.json`, 'utf8')).tensors.find(
    (t) => t.name === 'blk.2.ffn_norm.weight',
  );
  assert.deepEqual(await slicedSince(mark), [[ref.abs_offset, ref.abs_offset + ref.n_bytes]]);
  const bytes = readFileSync(shard(3)).subarray(ref.abs_offset, ref.abs_offset + ref.n_bytes);
  const values = [...new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))];
  assert.deepEqual((await peekStats()).first.split(',').map(Number), values, 'the values in the third file');
});

test("no request left the page's origin, no script error happened, and no SVG came from a file", async () => {
  assert.deepEqual(
    requests.filter((url) => !url.startsWith(`${viewer.origin}/`)),
    [],
  );
  assert.deepEqual(pageErrors, []);
  assert.equal(await page.locator('#view svg:not(.chart)').count(), 0);
});
