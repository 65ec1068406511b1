// End-to-end tests of the page's Compare panel (compare-view.js) in headless Chromium: the open
// model against a second file shows exactly the differences `ggufscope diff --json` reports — a
// name and a chat template changed with `ggufscope edit` (the template as a +/- line diff), two
// real vocabularies (arrays as lengths and first differing element), two models' tensor infos
// (long lists drawn a step at a time) —; a file against itself is identical; the panel passes
// axe-core in light and dark, fits 390 px; a model opened by URL compared with a URL typed in
// the panel (both headers read by Range requests, only of those URLs); and no other request
// leaves the page's origin. Values: builder-made F32 / Q4_0 models, one tensor's button then
// "Compare all values" give the figures of `ggufscope diff --json --values`, sortable (aria-sort),
// by layer with a chart, axe-clean in light and dark, fitting 390 px; split models picked,
// dropped and opened as several files, or by a shard's URL, compare as one; a URL's values are
// read by Range requests.
// Run after scripts/build-web.sh: node --test www/e2e/compare.test.mjs. Screenshots go to
// test-results/ (not committed).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { axeViolations, drop, fixtures, pick, repo, servedAs, startViewer, waitFor } from './browser.mjs';
import { builtFixture, ggufscopeBin, linkBuiltFixture } from '../../web/test/paths.mjs';
import { startModelServer } from '../../scripts/model-server.mjs';

const shots = `${repo}test-results/`;
const PHI = `${fixtures}real/ggml-vocab-phi-3.gguf`;
const LLAMA = `${fixtures}real/ggml-vocab-llama-spm.gguf`;
const QWEN = `${fixtures}real/ggml-vocab-qwen2.gguf`;
const GQA = `${fixtures}synth/sparse/gqa-llama-1.1b.gguf`;
const MOE = `${fixtures}synth/sparse/moe-llama-8x.gguf`;

let viewer;
let page;
let scratch;
let edited;
let values; // builder-made models to compare values of (write-fixtures' value-pairs)
let models; // a model server (send, with Range) over scratch: another origin, as a model hub is
const requests = [];
const pageErrors = [];

/** Runs the CLI (`ggufscope ARGS…`); its stdout, whatever its exit status. */
function ggufscope(...args) {
  const run = spawnSync(ggufscopeBin(), args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status === 2 || run.status === null) throw new Error(`ggufscope ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-compare-e2e-`);
  edited = `${scratch}/phi-3-edited.gguf`;
  writeFileSync(
    `${scratch}/template.jinja`,
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n{% endfor %}",
  );
  ggufscope(
    'edit',
    PHI,
    '-o',
    edited,
    '--set',
    'general.name=x',
    '--set-file',
    `tokenizer.chat_template=${scratch}/template.jinja`,
  );
  symlinkSync(PHI, `${scratch}/ggml-vocab-phi-3.gguf`);
  values = `${scratch}/values`;
  linkBuiltFixture('value-pairs', values);
  models = await startModelServer(scratch);
  mkdirSync(shots, { recursive: true });
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
});

after(async () => {
  await viewer?.close();
  await models?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Opens `a` (a path, or several: shards) in the page, then compares it with `b` (the same) through the Compare panel; resolves when drawn. */
async function compareIn(a, b) {
  await pick(page, a);
  const names = [a]
    .flat()
    .map((path) => path.split('/').at(-1))
    .sort();
  await waitFor(page, names.length === 1 ? names[0] : `${names[0]} (+${names.length - 1} more)`);
  await page.click('[data-action="compare"]');
  await page.setInputFiles('#compare input[type="file"]', b);
  await page.waitForSelector('#compare[data-state="ready"]', { timeout: 60_000 });
}

/** Clicks every "Show more" in the panel until everything is drawn. */
async function showAll() {
  for (let more = page.locator('#compare [data-action="show-more"]:visible'); (await more.count()) > 0;)
    await more.first().click();
}

/** What the panel shows, in the document's terms. */
function shown() {
  return page.evaluate(() => {
    const panel = document.getElementById('compare');
    const keys = (field) =>
      [...panel.querySelectorAll(`[data-field="${field}"] li`)].map((li) => li.dataset.key ?? li.dataset.name);
    return {
      same: panel.dataset.same === 'true',
      differs: [...panel.querySelectorAll('[data-field="compare-summary"] tr[data-differs]')].map(
        (tr) => tr.dataset.field,
      ),
      rows: panel.querySelectorAll('[data-field="compare-summary"] tbody tr').length,
      added: keys('compare-metadata-added'),
      removed: keys('compare-metadata-removed'),
      changed: [...panel.querySelectorAll('[data-field="compare-metadata-changed"] > ul > li')].map((li) => [
        li.dataset.key,
        li.dataset.kind,
      ]),
      tensorsAdded: keys('compare-tensors-added'),
      tensorsRemoved: keys('compare-tensors-removed'),
      tensorsChanged: keys('compare-tensors-changed'),
    };
  });
}

/** The same, from `ggufscope diff --json A B`. */
function expected(a, b) {
  const doc = JSON.parse(ggufscope('diff', '--json', a, b));
  return {
    doc,
    view: {
      same: doc.same,
      differs: doc.summary.filter((r) => r.differs).map((r) => r.field),
      rows: doc.summary.length,
      added: doc.metadata.added.map((e) => e.key),
      removed: doc.metadata.removed.map((e) => e.key),
      changed: doc.metadata.changed.map((c) => [c.key, c.change.kind]),
      tensorsAdded: doc.tensors.added.map((t) => t.name),
      tensorsRemoved: doc.tensors.removed.map((t) => t.name),
      tensorsChanged: doc.tensors.changed.map((t) => t.name),
    },
  };
}

test('an edited copy: the name and the chat template changed, the template as a line diff', async () => {
  await compareIn(PHI, edited);
  const { doc, view } = expected(PHI, edited);
  assert.deepEqual(await shown(), view);
  assert.deepEqual(view.changed, [
    ['general.name', 'value'],
    ['tokenizer.chat_template', 'lines'],
  ]);
  assert.equal(await page.textContent('[data-field="compare-a"]'), 'ggml-vocab-phi-3.gguf');
  assert.equal(await page.textContent('[data-field="compare-b"]'), 'phi-3-edited.gguf');
  assert.match(
    await page.textContent('[data-field="compare-differences"]'),
    new RegExp(`^${doc.differences} differences`),
  );
  assert.match(await page.textContent('#compare li[data-key="general.name"]'), /"Phi3" → "x"/);
  // The +/- lines are the CLI's runs, in order.
  const runs = doc.metadata.changed[1].change.runs;
  const lines = runs.flatMap((r) =>
    r.op === 'same' ? [] : r.lines.map((l) => `${r.op === 'added' ? '+' : '-'} ${l}`),
  );
  const drawn = await page.$$eval('#compare [data-field="compare-lines"] > div:not(.diff-same)', (divs) =>
    divs.map((d) => d.textContent),
  );
  assert.deepEqual(drawn, lines);
  assert.ok(drawn.includes("+ {{ m['content'] }}<|end|>"));
  assert.equal(
    await page.locator('#compare [data-field="compare-lines"] .diff-added').count(),
    lines.filter((l) => l.startsWith('+')).length,
  );

  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await axeViolations(page, '#compare'), [], `the Compare panel, ${colorScheme}`);
    await page.locator('#compare').screenshot({ path: `${shots}compare-${colorScheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('two real vocabularies: keys added, removed and changed, arrays as lengths and first difference', async () => {
  await compareIn(LLAMA, QWEN);
  const { doc, view } = expected(LLAMA, QWEN);
  assert.deepEqual(await shown(), view);
  assert.ok(view.added.length > 0 && view.removed.length > 0);
  const tokens = doc.metadata.changed.find((c) => c.key === 'tokenizer.ggml.tokens').change;
  assert.equal(tokens.kind, 'array');
  const text = await page.textContent('#compare li[data-key="tokenizer.ggml.tokens"]');
  assert.ok(text.includes('length 32,000 → 151,936'), text);
  assert.ok(
    text.includes(
      `${tokens.differing.toLocaleString('en-US')} differing elements; first at index ${tokens.first.index}: "<unk>" → "!"`,
    ),
    text,
  );
  assert.ok(
    (await page.getAttribute('#compare [data-field="compare-summary"] tr[data-field="vocab_size"]', 'data-differs')) !==
      null,
  );
});

test("two models' tensor infos: added, removed, changed and the count of same ones", async () => {
  await compareIn(GQA, MOE);
  const { doc, view } = expected(GQA, MOE);
  assert.deepEqual(await shown(), view);
  assert.ok(
    view.tensorsAdded.length && view.tensorsRemoved.length && view.tensorsChanged.length,
    JSON.stringify(doc.tensors).slice(0, 200),
  );
  assert.match(
    await page.locator('#compare .compare-section h3', { hasText: /^Tensors/ }).textContent(),
    new RegExp(`${doc.tensors.same} the same$`),
  );
  const c = doc.tensors.changed[0];
  const text = await page.textContent(`#compare [data-field="compare-tensors-changed"] li[data-name="${c.name}"]`);
  assert.ok(text.startsWith(`${c.name} ${c.what.join(', ')}: ${c.a.type} [`), text);
});

test('a long list is drawn 200 rows at a time, with "Show more"', async () => {
  await compareIn(GQA, PHI);
  const { view } = expected(GQA, PHI);
  assert.equal(view.tensorsRemoved.length, 201);
  assert.equal((await shown()).tensorsRemoved.length, 200);
  assert.equal(
    await page.textContent('#compare [data-field="compare-tensors-removed"] [data-action="show-more"]'),
    'Show more (1 left)',
  );
  await showAll();
  assert.deepEqual(await shown(), view);
});

test('a file against itself is identical; Close hides the panel; opening another file closes it', async () => {
  await compareIn(PHI, PHI);
  assert.deepEqual(await shown(), { ...expected(PHI, PHI).view, same: true });
  assert.match(await page.textContent('[data-field="compare-same"]'), /^Identical headers/);
  assert.equal(await page.locator('#compare tr[data-differs]').count(), 0);
  await page.click('[data-action="compare-close"]');
  assert.ok(await page.locator('#compare').isHidden());
  await page.click('[data-action="compare"]');
  await page.setInputFiles('#compare input[type="file"]', edited);
  await page.waitForSelector('#compare[data-state="ready"]');
  await pick(page, QWEN);
  await waitFor(page, 'ggml-vocab-qwen2.gguf');
  assert.ok(await page.locator('#compare').isHidden(), 'the panel compared the file shown before');
});

test('a malformed second file is said so, naming it', async () => {
  const bad = `${scratch}/not-gguf.gguf`;
  writeFileSync(bad, 'GGUF, but not really');
  await pick(page, PHI);
  await waitFor(page, 'ggml-vocab-phi-3.gguf');
  await page.click('[data-action="compare"]');
  await page.setInputFiles('#compare input[type="file"]', bad);
  await page.waitForSelector('#compare[data-state="error"]');
  assert.match(await page.textContent('[data-field="compare-status"]'), /^Cannot compare: not-gguf\.gguf: /);
});

test('390 px: the panel fits without a page-wide horizontal scroll', async () => {
  await compareIn(PHI, edited);
  await page.setViewportSize({ width: 390, height: 900 });
  await page.locator('#compare').scrollIntoViewIfNeeded();
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  await page.screenshot({ path: `${shots}compare-390.png`, fullPage: false });
  assert.equal(overflow, 0);
  await page.setViewportSize({ width: 1300, height: 1000 });
});

test('390 px: the summary side by side keeps every figure whole, and fractions read as 4.53, not 4.530626…', async () => {
  const [a, b] = [`${values}/f32.gguf`, `${values}/q4_0.gguf`];
  await compareIn(a, b);
  const doc = expected(a, b).doc;
  const bits = doc.summary.find((r) => r.field === 'bits_per_weight');
  assert.ok(!Number.isInteger(bits.b), 'a fraction to show');
  assert.deepEqual(
    await page.$$eval('#compare tr[data-field="bits_per_weight"] td', (tds) => tds.map((td) => td.textContent)),
    ['32', bits.b.toFixed(2).replace(/0+$/, '')],
  );
  await page.setViewportSize({ width: 390, height: 900 });
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await figuresOffScreenOrBroken(), [], colorScheme);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, colorScheme);
    assert.deepEqual(await axeViolations(page, '#compare'), [], colorScheme);
    await page
      .locator('#compare [data-field="compare-summary"]')
      .screenshot({ path: `${shots}compare-summary-390-${colorScheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1300, height: 1000 });
});

test('two vocabulary files: no "Compare all values" for no tensors, said plainly', async () => {
  await compareIn(PHI, LLAMA);
  assert.equal(await page.locator('#compare [data-action="compare-values-all"]').count(), 0);
  assert.equal(await page.locator('#compare [data-field="compare-values"]').count(), 0);
  assert.equal(
    await page.textContent('#compare [data-field="compare-values-none"]'),
    'No tensor is in both files with one shape, so there are no values to compare.',
  );
  for (const width of [1300, 390]) {
    await page.setViewportSize({ width, height: 900 });
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page, '#compare'), [], `${width} px, ${colorScheme}`);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), width);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1300, height: 1000 });
});

test('1,200 tensors against themselves: the values table shows 25 at a time, paged, sorting from the first page', async () => {
  const many = builtFixture('many-tensors.gguf');
  await compareIn(many, many);
  const rows = () =>
    page.$$eval('#compare [data-field="compare-values"] tbody tr', (trs) => trs.map((tr) => tr.dataset.name));
  const section = page.locator('#compare [data-field="compare-values-section"]');
  const total = Number(
    /^([\d,]+) tensors/.exec(await section.locator('h3 .count').textContent())[1].replaceAll(',', ''),
  );
  assert.ok(total > 1000, `${total} pairs`);
  const said = (from, to) =>
    `Tensors ${from.toLocaleString('en-US')}–${to.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`;
  const first = await rows();
  assert.deepEqual(first.slice(0, 3), ['blk.0.weight', 'blk.1.weight', 'blk.2.weight']);
  assert.equal(first.length, 25);
  assert.equal(await page.textContent('[data-field="compare-values-shown"]'), said(1, 25));
  assert.ok(await page.locator('[data-action="compare-values-previous"]').isDisabled());
  // Page by page to the last: every pair once, 25 a page. The second page by a click of
  // Playwright's; the rest clicked in the page, a page's rows and count read as it is drawn (a
  // turn draws at once), which spares some fifty round trips to the browser.
  await page.click('[data-action="compare-values-next"]');
  const pages = [{ names: await rows(), shown: await page.textContent('[data-field="compare-values-shown"]') }];
  pages.push(
    ...(await page.evaluate(
      (most) => {
        const drawn = [];
        const next = () => document.querySelector('[data-action="compare-values-next"]');
        // At most a page more than the pairs fill: a Next that never ends fails the count below.
        while (!next().disabled && drawn.length < most) {
          next().click();
          drawn.push({
            names: [...document.querySelectorAll('#compare [data-field="compare-values"] tbody tr')].map(
              (tr) => tr.dataset.name,
            ),
            shown: document.querySelector('[data-field="compare-values-shown"]').textContent,
          });
        }
        return drawn;
      },
      Math.ceil(total / 25),
    )),
  );
  const seen = [...first];
  pages.forEach(({ names, shown }, i) => {
    const from = 25 * (i + 1);
    assert.equal(shown, said(from + 1, from + names.length));
    seen.push(...names);
  });
  assert.equal(seen.length, total);
  assert.ok(await page.locator('[data-action="compare-values-next"]').isDisabled());
  // Sorting goes back to the first page of the new order.
  await page.click('#compare button[data-sort="name"]');
  assert.equal(await page.textContent('[data-field="compare-values-shown"]'), said(1, 25));
  assert.equal((await rows()).length, 25);
  // The panel stays a few screens tall, not a tensor's row each.
  const height = await page.$eval(
    '#compare [data-field="compare-values-section"]',
    (e) => e.getBoundingClientRect().height,
  );
  assert.ok(height < 2500, `the values section is ${height} px tall`);
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await axeViolations(page, '#compare [data-field="compare-values-section"]'), [], colorScheme);
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('a file that cannot be read offers no Compare or Upstream: they come back with the next model', async () => {
  const bad = `${scratch}/broken.gguf`;
  writeFileSync(bad, 'GGUF, but not really');
  await pick(page, bad);
  await waitFor(page, 'broken.gguf', 'error');
  assert.ok(await page.locator('[data-action="compare"]').isHidden());
  assert.ok(await page.locator('[data-action="upstream"]').isHidden());
  await pick(page, PHI);
  await waitFor(page, 'ggml-vocab-phi-3.gguf');
  assert.ok(await page.locator('[data-action="compare"]').isVisible());
  assert.ok(await page.locator('[data-action="upstream"]').isVisible());
});

test('by URL: a model opened by URL against a URL typed in the panel, both read by Range requests', async () => {
  const [a, b] = [`${models.origin}/ggml-vocab-phi-3.gguf`, `${models.origin}/phi-3-edited.gguf`];
  await page.fill('#url-input', a);
  await page.click('#url-form button[type="submit"]');
  await waitFor(page, 'ggml-vocab-phi-3.gguf');
  const ofA = () => models.requests.filter((r) => r.url === '/ggml-vocab-phi-3.gguf').length;
  const opened = ofA();
  await page.click('[data-action="compare"]');
  await page.fill('#compare input[type="url"]', b);
  await page.click('#compare form button[type="submit"]');
  await page.waitForSelector('#compare:is([data-state="ready"], [data-state="error"])', { timeout: 60_000 });
  assert.equal(await page.textContent('[data-field="compare-status"]'), '');
  assert.deepEqual(await shown(), expected(PHI, edited).view);
  assert.equal(await page.textContent('[data-field="compare-b"]'), 'phi-3-edited.gguf');
  const ranges = models.requests.filter((r) => r.url === '/phi-3-edited.gguf').map((r) => r.range);
  assert.ok(ranges.length > 0 && ranges.every((range) => range?.startsWith('bytes=')), JSON.stringify(ranges));
  // A, the model shown, is compared as the viewer read it: no new request for its header.
  assert.equal(ofA(), opened, 'no request for A');
  // Nor for a check against upstream's files (given in the panel).
  await page.click('[data-action="upstream"]');
  await page.setInputFiles('#upstream input[type="file"]', `${repo}crates/gguf-upstream/tests/data/phi-3/config.json`);
  await page.waitForSelector('#upstream:is([data-state="ready"], [data-state="error"])', { timeout: 60_000 });
  assert.equal(await page.getAttribute('#upstream', 'data-state'), 'ready');
  assert.equal(ofA(), opened, 'no request for A');
  await page.click('[data-action="upstream-close"]');
});

/** The figures of the panel's tables that reach past the screen or break over lines (mid-digit). */
function figuresOffScreenOrBroken() {
  return page.$$eval('#compare td.num', (cells) =>
    cells
      .filter((td) => td.getClientRects().length && td.textContent)
      .filter((td) => {
        // The figure's text itself: more than one line box is a figure broken over lines.
        const text = document.createRange();
        text.selectNodeContents(td);
        const box = text.getBoundingClientRect();
        const lines = new Set([...text.getClientRects()].map((r) => Math.round(r.top)));
        return box.right > innerWidth || box.left < 0 || lines.size > 1;
      })
      .map((td) => td.textContent),
  );
}

/** The values table as drawn: `[name, {rmse, max_abs, cosine, snr_db}]` of the measured rows, in order. */
function valueRows() {
  return page.$$eval('#compare [data-field="compare-values"] tbody tr', (rows) =>
    rows.map((tr) => [
      tr.dataset.name,
      tr.dataset.measured === undefined
        ? null
        : Object.fromEntries(
            [...tr.querySelectorAll('td[data-value]')].map((td) => [td.dataset.field, td.dataset.value]),
          ),
    ]),
  );
}

/** The CLI's figures of a `--values` entry, as the table's `data-value`s. */
const cliFigures = (v) => Object.fromEntries(['rmse', 'max_abs', 'cosine', 'snr_db'].map((k) => [k, String(v[k])]));

test("values: a tensor's button, then all, give the CLI's figures; sortable, by layer, with a chart", async () => {
  const [a, b] = [`${values}/f32.gguf`, `${values}/q4_0.gguf`];
  const cli = JSON.parse(ggufscope('diff', '--json', '--values', a, b));
  await compareIn(a, b);
  assert.equal(await page.locator('#compare [data-field="compare-values"] tbody tr').count(), cli.values.length);
  await page.click('#compare tr[data-name="blk.0.ffn_up.weight"] [data-action="compare-value"]');
  await page.waitForSelector('#compare tr[data-name="blk.0.ffn_up.weight"][data-measured]');
  const one = (await valueRows()).filter(([, f]) => f);
  assert.deepEqual(one, [
    ['blk.0.ffn_up.weight', cliFigures(cli.values.find((v) => v.name === 'blk.0.ffn_up.weight'))],
  ]);
  assert.equal(
    await page.locator('#compare [data-field="compare-layers"] tbody tr').count(),
    1,
    'one layer measured so far',
  );

  await page.click('[data-action="compare-values-all"]');
  await page.waitForFunction(
    () => document.querySelector('[data-field="compare-values-status"]')?.textContent === '8 tensors compared.',
    null,
    { timeout: 60_000 },
  );
  // In A's order, every figure the CLI's.
  assert.deepEqual(
    await valueRows(),
    cli.values.map((v) => [v.name, cliFigures(v)]),
  );
  // Sorted by RMSE: worst first, as `--sort rmse`; again: best first.
  const byRmse = [...cli.values].sort((x, y) => y.rmse - x.rmse).map((v) => v.name);
  await page.click('#compare [data-field="compare-values"] button[data-sort="rmse"]');
  assert.deepEqual(
    (await valueRows()).map(([name]) => name),
    byRmse,
  );
  assert.equal(
    await page.getAttribute('#compare [data-field="compare-values"] th:has(button[data-sort="rmse"])', 'aria-sort'),
    'descending',
  );
  assert.equal(
    await page.getAttribute('#compare [data-field="compare-values"] th:has(button[data-sort="name"])', 'aria-sort'),
    'none',
  );
  await page.focus('#compare button[data-sort="rmse"]');
  await page.keyboard.press('Enter');
  assert.equal(
    await page.getAttribute('#compare [data-field="compare-values"] th:has(button[data-sort="rmse"])', 'aria-sort'),
    'ascending',
  );
  // Cosine: smallest first.
  await page.click('#compare button[data-sort="cosine"]');
  assert.deepEqual(
    (await valueRows()).map(([name]) => name),
    [...cli.values].sort((x, y) => x.cosine - y.cosine).map((v) => v.name),
  );
  // By layer: the CLI's layers, and a bar per blk.N.
  const layers = await page.$$eval('#compare [data-field="compare-layers"] tbody tr', (rows) =>
    rows.map((tr) => [tr.dataset.layer, tr.querySelector('[data-field="rmse"]').textContent]),
  );
  assert.deepEqual(
    layers.map(([l]) => l),
    cli.layers.map((l) => (l.layer === null ? 'other' : `blk.${l.layer}`)),
  );
  assert.equal(await page.locator('#compare svg[data-field="compare-chart"] rect').count(), 3);
  assert.match(
    await page.textContent('#compare svg[data-field="compare-chart"] desc'),
    /^RMSE of B against A by layer, from blk\.0 to blk\.2/,
  );
  const heights = await page.$$eval('#compare svg[data-field="compare-chart"] rect', (rects) =>
    rects.map((r) => Number(r.getAttribute('height'))),
  );
  const rmse = cli.layers.filter((l) => l.layer !== null).map((l) => l.rmse);
  assert.deepEqual(
    heights.map((x) => Math.round(x)),
    rmse.map((x) => Math.round((x / Math.max(...rmse)) * 120)),
  );

  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await axeViolations(page, '#compare'), [], `the values, ${colorScheme}`);
    await page
      .locator('#compare [data-field="compare-values-section"]')
      .screenshot({ path: `${shots}compare-values-${colorScheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 390, height: 900 });
  await page.locator('#compare [data-field="compare-layers"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}compare-values-390.png`, fullPage: false });
  // The page fits (a visually hidden sort label, positioned at the table's far end, once widened
  // it to 618 px on Gemma's layers), and the tables are stacked rows: every figure on screen, on
  // one line, after its column's name.
  assert.deepEqual(await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]), [390, 390]);
  assert.deepEqual(await figuresOffScreenOrBroken(), []);
  assert.equal(
    await page.$eval(
      '#compare .compare-values td[data-field="rmse"]',
      (td) => getComputedStyle(td, '::before').content,
    ),
    '"RMSE "',
  );
  await page.setViewportSize({ width: 1300, height: 1000 });
});

test('split models as several files: B picked or dropped as shards, A opened as shards, compared as one', async () => {
  const shards = (stem) => [1, 2].map((n) => `${values}/${stem}-0000${n}-of-00002.gguf`);
  const cli = JSON.parse(ggufscope('diff', '--json', '--values', `${values}/f32.gguf`, shards('q8_0')[0]));
  await compareIn(`${values}/f32.gguf`, shards('q8_0'));
  assert.equal(await page.textContent('[data-field="compare-b"]'), 'q8_0-00001-of-00002.gguf (+1 more)');
  assert.deepEqual(
    (await shown()).added,
    cli.metadata.added.map((e) => e.key),
  );
  await page.click('[data-action="compare-values-all"]');
  await page.waitForFunction(
    () => document.querySelector('[data-field="compare-values-status"]')?.textContent === '8 tensors compared.',
    null,
    { timeout: 60_000 },
  );
  assert.deepEqual(
    await valueRows(),
    cli.values.map((v) => [v.name, cliFigures(v)]),
  );

  // Dropped on the panel: compared, and the model shown stays A.
  await drop(page, shards('q8_0').reverse(), '#compare [data-field="compare-drop"]');
  await page.waitForSelector('#compare[data-state="ready"] [data-field="compare-values"]');
  assert.equal(await page.textContent('[data-field="compare-b"]'), 'q8_0-00001-of-00002.gguf (+1 more)');
  assert.equal(await page.textContent('[data-field="compare-a"]'), 'f32.gguf');

  // A opened as shards against one file: the same figures as the single files'.
  const single = JSON.parse(ggufscope('diff', '--json', '--values', `${values}/f32.gguf`, `${values}/q8_0.gguf`));
  await compareIn(shards('f32'), `${values}/q8_0.gguf`);
  await page.click('[data-action="compare-values-all"]');
  await page.waitForFunction(
    () => document.querySelector('[data-field="compare-values-status"]')?.textContent === '8 tensors compared.',
    null,
    { timeout: 60_000 },
  );
  assert.deepEqual(
    await valueRows(),
    single.values.map((v) => [v.name, cliFigures(v)]),
  );
});

test('values by URL: both models opened by URL, the tensors read by Range requests; cancel stops', async () => {
  const [a, b] = [`${models.origin}/values/f32.gguf`, `${models.origin}/values/q8_0.gguf`];
  await page.fill('#url-input', a);
  await page.click('#url-form button[type="submit"]');
  await waitFor(page, 'f32.gguf');
  await page.click('[data-action="compare"]');
  await page.fill('#compare input[type="url"]', b);
  await page.click('#compare form button[type="submit"]');
  await page.waitForSelector('#compare[data-state="ready"] [data-field="compare-values"]', { timeout: 60_000 });
  await page.click('#compare tr[data-name="blk.2.ffn_down.weight"] [data-action="compare-value"]');
  await page.waitForSelector('#compare tr[data-name="blk.2.ffn_down.weight"][data-measured]', { timeout: 60_000 });
  const cli = JSON.parse(
    ggufscope(
      'diff',
      '--json',
      '--values',
      '--tensor',
      'blk.2.ffn_down.weight',
      `${values}/f32.gguf`,
      `${values}/q8_0.gguf`,
    ),
  );
  assert.deepEqual(
    (await valueRows()).filter(([, f]) => f),
    cli.values.map((v) => [v.name, cliFigures(v)]),
  );
  const reads = models.requests.filter((r) => r.url.startsWith('/values/'));
  assert.ok(reads.length > 2 && reads.every((r) => r.range?.startsWith('bytes=')), JSON.stringify(reads));
  // "All", cancelled before its first read came back: the status says so and the buttons come back.
  await page.evaluate(() => {
    document.querySelector('[data-action="compare-values-all"]').click();
    document.querySelector('[data-action="compare-values-cancel"]').click();
  });
  await page.waitForFunction(
    () => document.querySelector('[data-field="compare-values-status"]')?.textContent === 'Cancelled after 0 tensors.',
  );
  assert.ok(await page.locator('[data-action="compare-values-cancel"]').isHidden());
  assert.equal(await page.locator('[data-action="compare-values-all"]').isEnabled(), true);
});

test("a split model opened by a shard's URL is compared as one: its sibling fetched too", async () => {
  await page.fill('#url-input', `${models.origin}/values/q8_0-00002-of-00002.gguf`);
  await page.click('#url-form button[type="submit"]');
  await waitFor(page, 'q8_0-00002-of-00002.gguf');
  await page.click('[data-action="compare"]');
  await page.setInputFiles('#compare input[type="file"]', `${values}/q8_0.gguf`);
  await page.waitForSelector('#compare[data-state="ready"] [data-field="compare-values"]', { timeout: 60_000 });
  const cli = JSON.parse(ggufscope('diff', '--json', `${values}/q8_0-00002-of-00002.gguf`, `${values}/q8_0.gguf`));
  assert.deepEqual(await shown(), expected(`${values}/q8_0-00002-of-00002.gguf`, `${values}/q8_0.gguf`).view);
  assert.deepEqual(
    cli.metadata.removed.map((e) => e.key),
    ['split.no', 'split.count', 'split.tensors.count'],
  );
  assert.equal(
    await page.locator('#compare [data-field="compare-values"] tbody tr').count(),
    8,
    "both shards' tensors",
  );
  assert.ok(
    models.requests.some((r) => r.url === '/values/q8_0-00001-of-00002.gguf'),
    'the sibling was read',
  );
});

test("no request left the page's origin but for the URLs asked for, and no script error happened", () => {
  assert.ok(
    requests.some((url) => url.endsWith(servedAs('web/pkg-diff/gguf_diff_wasm_bg.wasm'))),
    "the comparison module came from the page's origin",
  );
  const asked = [
    `${models.origin}/ggml-vocab-phi-3.gguf`,
    `${models.origin}/phi-3-edited.gguf`,
    `${models.origin}/values/f32.gguf`,
    `${models.origin}/values/q8_0.gguf`,
    ...[1, 2].map((n) => `${models.origin}/values/q8_0-0000${n}-of-00002.gguf`),
  ];
  assert.deepEqual(
    requests.filter((url) => !url.startsWith(`${viewer.origin}/`) && !asked.includes(url)),
    [],
  );
  assert.deepEqual(pageErrors, []);
});
