#!/usr/bin/env node
// Browser benchmark (a measurement, not a test): drop-to-summary time, slices and bytes read for
// big headers and a 40 GB file, in headless Chromium; medians over several runs. Also the wasm
// size. Run after scripts/build-web.sh (and npm ci):
//   node scripts/bench-browser.mjs [RUNS]        (GGUF_GEMMA=path adds the real Gemma model)
// "Drop to summary" runs from the page's drop handler to the animation frame that paints the
// summary cards (the page's "summary" performance measure).

import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

import { drop, fields, fixtures, repo, startViewer, waitFor } from '../www/e2e/browser.mjs';
import { FIRST_READ } from '../web/read-loop.js';

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
await viewer.close();
rmSync(sparse, { recursive: true, force: true });

const wasm = readFileSync(`${repo}web/pkg/gguf_wasm_bg.wasm`);
const glue = readFileSync(`${repo}web/pkg/gguf_wasm.js`);
const columns = Object.keys(rows[0]);
console.log(`Browser benchmark: headless Chromium, ${runs} runs per file (after one warm-up), medians.\n`);
console.log(`| ${columns.join(' | ')} |\n|${columns.map(() => ' --- ').join('|')}|`);
for (const row of rows) console.log(`| ${columns.map((c) => row[c]).join(' | ')} |`);
console.log(`\nwasm: ${wasm.length.toLocaleString('en')} bytes raw, ${gzipSync(wasm, { level: 9 }).length.toLocaleString('en')} gzipped; JS glue ${glue.length.toLocaleString('en')} bytes raw, ${gzipSync(glue, { level: 9 }).length.toLocaleString('en')} gzipped.`);
