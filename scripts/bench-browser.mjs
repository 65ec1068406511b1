#!/usr/bin/env node
// Browser benchmark (a measurement, not a test): drop-to-summary time split into its stages, for
// big headers and a 40 GB file, in headless Chromium, for a file dropped on a fresh page at once
// after its `load` event (the first file), 3 s after it, and on a page that has opened the same
// file before (the tenth); medians over several runs, beside @huggingface/gguf reading the same
// files in this Node process (in the same run) and the ratio. With the Gemma model, the time and
// bytes of tensor peeks and of comparing all values too. Also the wasm sizes. Run after
// scripts/build-web.sh (and npm ci):
//   node scripts/bench-browser.mjs [RUNS] [--root DIR] [--write-docs]   (GGUF_GEMMA=path adds the
//   real Gemma model, and compares its values against `ggufscope diff --values`, built by `cargo
//   build --release -p gguf-cli` (GGUFSCOPE_BIN_RELEASE names another); --root serves another build of the site instead of dist/, to compare two
//   builds; --write-docs writes the tables into docs/performance.md: bench:browser, bench:wasm-sizes;
//   --sizes: the modules' sizes alone, without a browser)
// "Drop to summary" runs from the page's drop handler to the animation frame that paints the
// summary cards (the page's "summary" performance measure). Its stages, from the User Timing
// entries the worker records (gguf-worker.js, read-loop.js), on the page's clock: the worker
// start (from the drop to the worker taking the file: started if it had to be), the wasm compile
// (the worker waiting for the parser), the first read (to the file's first bytes), the decode (in
// the session's feed, chunk by chunk), the rest of the read (waiting for bytes, the JS loop,
// putting the model together), the summary document (built in wasm and crossing to JS), and its
// post and paint (structured clone, the cards rendered, the frame that paints them).

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { gguf } from '@huggingface/gguf';

import { drop, fields, fixtures, repo, servedAs, startViewer, waitFor } from '../www/e2e/browser.mjs';
import { markdownTable, writeBlock } from './docs-blocks.mjs';
import { wasmModules } from './wasm-modules.mjs';

const args = process.argv.slice(2);
const writeDocs = args.includes('--write-docs');
if (writeDocs) args.splice(args.indexOf('--write-docs'), 1);
// --summary-only: the drops alone, without the peeks and the comparison (which --write-docs needs).
const summaryOnly = args.includes('--summary-only');
if (summaryOnly) args.splice(args.indexOf('--summary-only'), 1);
if (summaryOnly && writeDocs) throw new Error('--write-docs writes every table: run without --summary-only');
const rootAt = args.indexOf('--root');
const root = rootAt >= 0 ? args.splice(rootAt, 2)[1] : undefined;
const runs = Number(args[0] ?? 9);
/** The CLI that compares values natively beside the page (cargo build --release -p gguf-cli). */
const cli = process.env.GGUFSCOPE_BIN_RELEASE ?? `${repo}target/release/ggufscope`;

/** The size of every module of wasm-pack.toml that the build measured has, with its JS glue, as a table. */
function sizesText() {
  const site = root ?? `${repo}dist`;
  // The site names its wasm modules and their glue by content (scripts/version-lazy-files.mjs).
  const at = (path) => readFileSync(existsSync(`${site}/${path}`) ? `${site}/${path}` : site + servedAs(path, site));
  const gzipped = (path) => gzipSync(at(path), { level: 9 }).length.toLocaleString('en');
  const sizes = [];
  for (const m of wasmModules()) {
    const path = `${m.outDir}/${m.outName}_bg.wasm`;
    if (!existsSync(`${site}/${m.outDir}`)) continue;
    sizes.push({
      module: `\`${m.outDir}\` (${m.feature}${m.rustflags ? `, ${m.rustflags}` : ''})`,
      raw: at(path).length.toLocaleString('en'),
      gzipped: gzipped(path),
      'JS glue, gzipped': gzipped(`${m.outDir}/${m.outName}.js`),
    });
  }
  return `Measured ${new Date().toISOString().slice(0, 10)}: bytes, gzipped at level 9.\n\n${markdownTable(sizes)}\n`;
}

// The sizes alone: no browser.
if (args.includes('--sizes')) {
  console.log(sizesText());
  if (writeDocs) writeBlock('docs/performance.md', 'bench:wasm-sizes', sizesText());
  process.exit(0);
}

const sparse = execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`], { encoding: 'utf8' }).trim();
const files = [
  `${fixtures}real/ggml-vocab-command-r.gguf`,
  `${fixtures}synth/vocab-262k.gguf`,
  process.env.GGUF_GEMMA,
  `${sparse}/big-40g-sparse.gguf`,
].filter(Boolean);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const ms = (n) => `${n.toFixed(1)} ms`;

const viewer = await startViewer({ root });

/** The stages of the last open on `page`, in milliseconds on the page's clock (see the top of the file). */
async function stages(page) {
  let w = null;
  for (const worker of page.workers()) {
    const entries = await worker
      .evaluate(() => {
        const last = (name) => performance.getEntriesByName(name).at(-1) ?? null;
        const read = last('gguf:read');
        if (!read) return null;
        return {
          origin: performance.timeOrigin,
          open: last('gguf:open').startTime,
          parser: last('gguf:parser').startTime,
          firstBytes: last('gguf:first-bytes').startTime,
          feeds: performance.getEntriesByName('gguf:feed').reduce((sum, e) => sum + e.duration, 0),
          // The waits after the first bytes came (the first's is the first read).
          waits: performance
            .getEntriesByName('gguf:wait')
            .slice(1)
            .reduce((sum, e) => sum + e.duration, 0),
          readEnd: read.startTime + read.duration,
          summary: last('gguf:summary').duration,
          post: last('gguf:summary-post').startTime,
        };
      })
      .catch(() => null);
    if (entries) w = entries;
  }
  if (!w) throw new Error('no worker recorded a read');
  const p = await page.evaluate(() => ({
    origin: performance.timeOrigin,
    open: performance.getEntriesByName('summary:open').at(-1).startTime,
    total: performance.getEntriesByName('summary').at(-1).duration,
  }));
  const onPage = (t) => t + w.origin - p.origin;
  return {
    'worker start': onPage(w.open) - p.open,
    'wasm compile': w.parser - w.open,
    'first read': w.firstBytes - w.parser,
    decode: w.feeds,
    'waiting for bytes': w.waits,
    'rest of the read': w.readEnd - w.firstBytes - w.feeds - w.waits,
    'summary document': w.summary,
    'post + paint': p.open + p.total - onPage(w.post),
    'drop → summary': p.total,
  };
}

/**
 * Waits until file `name` is shown, looking every 50 ms: waiting by animation frames (the tests'
 * `waitFor`) would have the page draw a frame every 16 ms during the very time being measured.
 */
function opened(page, name) {
  const shown = (n) => document.body.dataset.file === n && document.body.dataset.state === 'ready';
  return page.waitForFunction(shown, name, { polling: 50, timeout: 60_000 });
}

/** Milliseconds @huggingface/gguf takes to read `path`'s header in this Node process. */
async function timeHf(path) {
  const start = performance.now();
  const { tensorInfos } = await gguf(path, { allowLocalFile: true, computeParametersCount: true });
  if (!tensorInfos) throw new Error(`@huggingface/gguf read nothing from ${path}`);
  return performance.now() - start;
}

/** Opens the page in a fresh profile (no cache, no service worker): resolves it once its `load` event has fired. */
async function freshPage() {
  const context = await viewer.browser.newContext({ serviceWorkers: process.env.BENCH_SW ?? 'allow' });
  const page = await context.newPage();
  await page.goto(`${viewer.origin}/`, { waitUntil: 'load' });
  return page;
}

/** `path` dropped `delay` ms after a fresh page's load event: its stages. */
async function firstFile(path, delay) {
  const page = await freshPage();
  try {
    if (delay) await page.waitForTimeout(delay);
    await drop(page, path);
    await opened(page, path.split('/').pop());
    return await stages(page);
  } finally {
    await page.context().close();
  }
}

// The tenth file: one page that has read each file before. Its worker's stream reads are counted
// (wrapped once the page has loaded): the chunks and bytes each read takes.
const page = await viewer.browser.newPage();
await page.goto(`${viewer.origin}/`);
await waitFor(page, 'sample.gguf');
// The service worker stores the site on the first visit: let it finish before anything is timed.
await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
const worker = page.workers()[0];
await worker.evaluate(() => {
  const read = ReadableStreamDefaultReader.prototype.read;
  ReadableStreamDefaultReader.prototype.read = async function () {
    const chunk = await read.call(this);
    if (!chunk.done) self.chunks.push(chunk.value.byteLength);
    return chunk;
  };
  const slice = Blob.prototype.slice;
  Blob.prototype.slice = function (start = 0, end = this.size) {
    self.sliced.push(Math.max(0, Math.min(end, this.size) - start));
    return slice.call(this, start, end);
  };
});

/** The moments a file is dropped at, as the table names them, and how each is measured. */
const MOMENTS = [
  ['first file, at once after load', (path) => firstFile(path, 0)],
  ['first file, 3 s after load', (path) => firstFile(path, 3000)],
  [
    'tenth file',
    async (path) => {
      await worker.evaluate(() => Object.assign(self, { chunks: [], sliced: [] }));
      await drop(page, path);
      await opened(page, path.split('/').pop());
      return stages(page);
    },
  ],
];

const rows = [];
const stageRows = [];
for (const path of files) {
  const name = path.split('/').pop();
  const hf = [];
  const times = Object.fromEntries(MOMENTS.map(([moment]) => [moment, []]));
  // Every moment and the peer in every round, in turn, so that load on the machine falls on all alike.
  await MOMENTS[2][1](path); // the page's first read of this file warms nothing measured: it is not counted
  for (let i = 0; i < runs; i++) {
    for (const [moment, measure] of MOMENTS) times[moment].push(await measure(path));
    hf.push(await timeHf(path));
  }
  const f = await fields(page);
  const chunks = await worker.evaluate(() => self.chunks);
  const header = Number(f.header_size);
  const bytesRead = Number(f.bytes_read);
  if (chunks.length && bytesRead !== chunks.reduce((a, b) => a + b, 0))
    throw new Error(
      `${name}: the page says ${f.bytes_read} bytes read, the stream gave ${chunks.reduce((a, b) => a + b, 0)}`,
    );
  rows.push({
    file: name,
    'file size': mb(Number(f.file_size)),
    'header size': mb(header),
    'chunks (last run)': chunks.length,
    'bytes read': mb(bytesRead),
    'past the header (the rest of its last chunk)': mb(bytesRead - header),
  });
  for (const [moment] of MOMENTS) {
    const measured = times[moment];
    const total = median(measured.map((t) => t['drop → summary']));
    const row = { file: name, dropped: moment };
    for (const stage of Object.keys(measured[0])) row[stage] = ms(median(measured.map((t) => t[stage])));
    row['min–max'] =
      `${Math.min(...measured.map((t) => t['drop → summary'])).toFixed(0)}–${Math.max(...measured.map((t) => t['drop → summary'])).toFixed(0)} ms`;
    row['@huggingface/gguf (Node)'] = ms(median(hf));
    row.ratio = `${(median(hf) / total).toFixed(1)}×`;
    stageRows.push(row);
  }
  process.stderr.write(`  ${name}: done\n`);
}
/**
 * Peeks at tensor `name` of the open file from its row — all of it when `all` is set, with the
 * button under its first rows: milliseconds from the click to the figures, and the bytes sliced.
 */
async function timePeek(name, all) {
  // Clicks the row's Peek button (or the peek's "Decode all") and times it until the figures show.
  const clickAndWait = (decodeAll) =>
    page.evaluate(
      async ([tensor, whole]) => {
        const row = [...document.querySelectorAll('#tensors tbody tr')].find(
          (r) => r.querySelector('td.name')?.textContent === tensor,
        );
        const button = whole ? document.querySelector('.peek .note button') : row.querySelector('.peek-button');
        const start = performance.now();
        button.click();
        await new Promise((resolve) => {
          const check = () =>
            document.querySelector('.peek')?.dataset.state === 'ready' ? resolve() : requestAnimationFrame(check);
          check();
        });
        return performance.now() - start;
      },
      [name, decodeAll],
    );
  await page.fill('#tensor-filter', name);
  if (await page.locator('.peek').count()) await page.click('.peek-button[aria-expanded="true"]');
  await worker.evaluate(() => (self.sliced = []));
  let ms = await clickAndWait(false);
  if (all) {
    await worker.evaluate(() => (self.sliced = []));
    ms = await clickAndWait(true);
  }
  const slices = await worker.evaluate(() => self.sliced);
  return { ms, bytes: slices.reduce((a, b) => a + b, 0) };
}

const peeks = [];
if (process.env.GGUF_GEMMA && !summaryOnly) {
  await drop(page, process.env.GGUF_GEMMA);
  await waitFor(page, process.env.GGUF_GEMMA.split('/').pop());
  for (const [tensor, all, what] of [
    ['blk.0.attn_q.weight', false, 'all (Q5_0, 450.6 kB)'],
    ['token_embd.weight', false, 'first 24,672 rows (16 MiB of Q8_0)'],
    ['token_embd.weight', true, 'all 262,144 rows (178.3 MB of Q8_0)'],
  ]) {
    const results = [];
    for (let i = 0; i < runs + 1; i++) results.push(await timePeek(tensor, all));
    const times = results.slice(1).map((r) => r.ms);
    peeks.push({
      tensor,
      decoded: what,
      'bytes read': mb(results.at(-1).bytes),
      'click to figures (median)': `${median(times).toFixed(1)} ms`,
      'min–max': `${Math.min(...times).toFixed(1)}–${Math.max(...times).toFixed(1)} ms`,
    });
    process.stderr.write(`  peek ${tensor}${all ? ' (all)' : ''}: done\n`);
  }
}
/**
 * "Compare all values" of the open model against `path` in the Compare panel: milliseconds from
 * the click to the status that says every tensor was compared (read, dequantized, measured, drawn).
 */
async function timeCompareAll(path) {
  await page.click('[data-action="compare"]');
  await page.setInputFiles('#compare input[type="file"]', path);
  await page.waitForSelector('#compare[data-state="ready"]', { timeout: 120_000 });
  const ms = await page.evaluate(async () => {
    const start = performance.now();
    document.querySelector('[data-action="compare-values-all"]').click();
    await new Promise((resolve) => {
      const check = () =>
        / tensors compared\.$/.test(document.querySelector('[data-field="compare-values-status"]')?.textContent ?? '')
          ? resolve()
          : setTimeout(check, 20);
      check();
    });
    return performance.now() - start;
  });
  await page.click('[data-action="compare-close"]');
  return ms;
}

/** Milliseconds `ggufscope diff --values` takes on `path` against itself: the whole process. */
function timeNativeDiff(path) {
  const start = performance.now();
  const run = spawnSync(cli, ['diff', '--values', path, path], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (run.status !== 0) throw new Error(`${cli} diff --values: exit ${run.status}: ${run.stderr}`);
  return performance.now() - start;
}

const comparisons = [];
if (process.env.GGUF_GEMMA && !summaryOnly) {
  const inPage = [];
  const native = [];
  await timeCompareAll(process.env.GGUF_GEMMA); // the values module fetched and compiled: not counted
  // The page and the CLI in turn, so that load on the machine falls on both alike.
  for (let i = 0; i < Math.min(runs, 5); i++) {
    inPage.push(await timeCompareAll(process.env.GGUF_GEMMA));
    native.push(timeNativeDiff(process.env.GGUF_GEMMA));
  }
  comparisons.push({
    compared: `${process.env.GGUF_GEMMA.split('/').pop()} against itself, every tensor`,
    'page: click to figures': ms(median(inPage)),
    'page min–max': `${Math.min(...inPage).toFixed(0)}–${Math.max(...inPage).toFixed(0)} ms`,
    '`ggufscope diff --values` (process)': ms(median(native)),
    'page ÷ native': `${(median(inPage) / median(native)).toFixed(2)}×`,
  });
  process.stderr.write('  compare all values: done\n');
}
await viewer.close();
rmSync(sparse, { recursive: true, force: true });

const sections = [
  `Measured ${new Date().toISOString().slice(0, 10)}, headless Chromium; medians of ${runs} runs per file and moment, every moment and the peer in every round.`,
  markdownTable(rows),
  'Drop to summary by stage (medians of each stage, so they need not add up to the total): the first file dropped on a fresh page at once after its `load` event and 3 s after it, and the tenth, on a page that has read it before; @huggingface/gguf reading the same file in Node in this run:',
  markdownTable(stageRows),
];
if (peeks.length) {
  sections.push(
    `Tensor peeks in ${process.env.GGUF_GEMMA.split('/').pop()}: from the click to the figures (read, dequantized, measured, drawn):`,
    markdownTable(peeks),
  );
}
if (comparisons.length) {
  sections.push(
    'Compare all values in the Compare panel: from the click to "N tensors compared." (both files read, dequantized, compared, drawn), beside `ggufscope diff --values` of the same file against itself as a whole process (reading both, AVX2 dequantizers), in turn in this run:',
    markdownTable(comparisons),
  );
}
const browserText = sections.join('\n\n').replace(/\n+$/, '\n');
console.log(browserText);

console.log(`\n${sizesText()}`);
if (writeDocs) {
  writeBlock('docs/performance.md', 'bench:browser', browserText);
  writeBlock('docs/performance.md', 'bench:wasm-sizes', sizesText());
}
