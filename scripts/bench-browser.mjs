#!/usr/bin/env node
// Browser benchmark (a measurement, not a test): drop-to-summary time, slices and bytes read for
// big headers and a 40 GB file, in headless Chromium; medians over several runs. With the Gemma
// model, the time and bytes of tensor peeks too. Also the wasm sizes. Run after
// scripts/build-web.sh (and npm ci):
//   node scripts/bench-browser.mjs [RUNS]        (GGUF_GEMMA=path adds the real Gemma model)
// "Drop to summary" runs from the page's drop handler to the animation frame that paints the
// summary cards (the page's "summary" performance measure).

import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

import { drop, fields, fixtures, repo, startViewer, waitFor } from '../www/e2e/browser.mjs';

/** The core's first header read (gguf_core::read::FIRST_READ). */
const FIRST_READ = 256 * 1024;

const runs = Number(process.argv[2] ?? 9);
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

const viewer = await startViewer();
const page = await viewer.browser.newPage();
await page.goto(`${viewer.origin}/`);
await waitFor(page, 'sample.gguf');
// The service worker stores the site on the first visit: let it finish before anything is timed.
await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
const worker = page.workers()[0];
await worker.evaluate(() => {
  const slice = Blob.prototype.slice;
  self.sliced = [];
  Blob.prototype.slice = function (start = 0, end = this.size) {
    self.sliced.push(Math.max(0, Math.min(end, this.size) - start));
    return slice.call(this, start, end);
  };
});

const rows = [];
for (const path of files) {
  const name = path.split('/').pop();
  const times = [];
  let f;
  let slices;
  for (let i = 0; i < runs + 1; i++) {
    await worker.evaluate(() => (self.sliced = []));
    await drop(page, path);
    await waitFor(page, name);
    const ms = await page.evaluate(() => performance.getEntriesByName('summary')[0].duration);
    if (i > 0) times.push(ms); // the first run warms up the caches
    f = await fields(page);
    slices = await worker.evaluate(() => self.sliced);
  }
  const header = Number(f.header_size);
  const bytesRead = slices.reduce((a, b) => a + b, 0);
  rows.push({
    file: name,
    'file size': mb(Number(f.file_size)),
    'header size': mb(header),
    slices: slices.length,
    'bytes read': mb(bytesRead),
    'read / header': (bytesRead / header).toFixed(2),
    'within 1.25× header + 256 KiB': bytesRead <= 1.25 * header + FIRST_READ ? 'yes' : 'NO',
    'drop to summary (median)': `${median(times).toFixed(1)} ms`,
    'min–max': `${Math.min(...times).toFixed(1)}–${Math.max(...times).toFixed(1)} ms`,
  });
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
        const row = [...document.querySelectorAll('#tensors tbody tr')].find((r) => r.querySelector('td.name')?.textContent === tensor);
        const button = whole ? document.querySelector('.peek .note button') : row.querySelector('.peek-button');
        const start = performance.now();
        button.click();
        await new Promise((resolve) => {
          const check = () => (document.querySelector('.peek')?.dataset.state === 'ready' ? resolve() : requestAnimationFrame(check));
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
if (process.env.GGUF_GEMMA) {
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
await viewer.close();
rmSync(sparse, { recursive: true, force: true });

/** Prints `list` as a Markdown table. */
function table(list) {
  const columns = Object.keys(list[0]);
  console.log(`| ${columns.join(' | ')} |\n|${columns.map(() => ' --- ').join('|')}|`);
  for (const row of list) console.log(`| ${columns.map((c) => row[c]).join(' | ')} |`);
}

console.log(`Browser benchmark: headless Chromium, ${runs} runs per file (after one warm-up), medians.\n`);
table(rows);
if (peeks.length) {
  console.log(`\nTensor peeks in ${process.env.GGUF_GEMMA.split('/').pop()}: from the click to the figures (read, dequantized, measured, drawn).\n`);
  table(peeks);
}
const size = (path) => {
  const bytes = readFileSync(`${repo}${path}`);
  return `${bytes.length.toLocaleString('en')} bytes raw, ${gzipSync(bytes, { level: 9 }).length.toLocaleString('en')} gzipped`;
};
console.log(`\nwasm: ${size('web/pkg/gguf_wasm_bg.wasm')}; JS glue ${size('web/pkg/gguf_wasm.js')}.`);
console.log(`dequantizers (fetched after the first header): with wasm SIMD ${size('web/pkg-dequant-simd/gguf_dequant_wasm_bg.wasm')}; the fallback ${size('web/pkg-dequant/gguf_dequant_wasm_bg.wasm')}; JS glue ${size('web/pkg-dequant/gguf_dequant_wasm.js')}.`);
