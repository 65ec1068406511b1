#!/usr/bin/env node
// Save benchmark (a measurement, not a test): the page's Edit mode saving an edited copy of the
// 3.9 GB sparse model (or the 41.8 GB one: it needs that much free disk) with "Save to…", in
// headless Chromium. Run after scripts/build-web.sh (and npm ci):
//   node scripts/bench-save.mjs [RUNS] [--file moe|big] [--write-docs]   (default: 3 runs of moe;
//   --write-docs writes the table into docs/performance.md, its block bench:save-moe or -big)
//
// Each run opens the file with the page's file input, changes general.name and clicks Save to…,
// with a stand-in for showSaveFilePicker (its dialog cannot be driven headless) that returns a
// real file: one in the page's origin private file system, in a fresh browser profile on disk.
// What is timed (click to "Saved") is the page's save as a user gets it: the new header from
// memory, the tensor data copied by the browser from the opened file into the chosen one (the
// page writes Blob slices), written to disk. Every 250 ms the RSS (/proc) of the page's renderer
// (the one whose CPU time grew most during the save) and of the browser process, and the page's
// JS heap (CDP Performance.getMetrics) are sampled, idle (after opening, before saving) and
// during the save. The native peer, in the same run, copies the same file with
// `dd bs=8M` to a file on the same disk. The input is sparse (its data are holes, read as zeros
// without touching the disk); the outputs are written in full on both sides.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';
import { fixtures, pick, waitFor } from '../www/e2e/browser.mjs';
import { writeBlock } from './docs-blocks.mjs';
import { serve } from './serve.mjs';

const FILES = { big: 'big-40g-sparse.gguf', moe: 'moe-llama-8x.gguf' };
const SAMPLE_MS = 250;
const IDLE_MS = 2000;

const args = process.argv.slice(2);
const writeDocs = args.includes('--write-docs');
if (writeDocs) args.splice(args.indexOf('--write-docs'), 1);
const fileFlag = args.indexOf('--file');
const which = fileFlag >= 0 ? args.splice(fileFlag, 2)[1] : 'moe';
if (!FILES[which]) throw new Error(`--file must be one of ${Object.keys(FILES).join(', ')}`);
const runs = Number(args[0] ?? 3);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resident set size of process `pid`, in bytes; 0 once it has ended (a spare renderer may). */
const rss = (pid) => {
  const status = `/proc/${pid}/status`;
  return existsSync(status) ? Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'))?.[1] ?? 0) * 1024 : 0;
};

/** Chromium's processes (CDP SystemInfo.getProcessInfo): `[{type, id, cpuTime}]`. */
async function processes(browser) {
  const session = await browser.newBrowserCDPSession();
  const { processInfo } = await session.send('SystemInfo.getProcessInfo');
  await session.detach();
  return processInfo;
}

/**
 * Samples, every SAMPLE_MS until `stop()`, the RSS of each of `pids` and the page's JS heap
 * (`cdp`); `stop()` resolves the samples: `{rss: {pid: [bytes]}, heap: [bytes]}`.
 */
function sampler(pids, cdp) {
  let running = true;
  const samples = { rss: Object.fromEntries(pids.map((pid) => [pid, []])), heap: [] };
  const done = (async () => {
    while (running) {
      const { metrics } = await cdp.send('Performance.getMetrics');
      for (const pid of pids) samples.rss[pid].push(rss(pid));
      samples.heap.push(metrics.find((m) => m.name === 'JSHeapUsedSize').value);
      await sleep(SAMPLE_MS);
    }
    return samples;
  })();
  return () => ((running = false), done);
}

/** Seconds `dd` takes to copy `path` to a new file on the same disk in 8 MiB blocks. */
function nativeCopy(path) {
  const out = `${path}.copy`;
  const start = performance.now();
  const dd = spawnSync('dd', [`if=${path}`, `of=${out}`, 'bs=8M'], { encoding: 'utf8' });
  const seconds = (performance.now() - start) / 1000;
  rmSync(out, { force: true });
  if (dd.status !== 0) throw new Error(dd.stderr);
  return seconds;
}

const dir = execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`], { encoding: 'utf8' }).trim();
const path = `${dir}/${FILES[which]}`;
const size = statSync(path).size;
const server = await serve(fileURLToPath(new URL('../dist', import.meta.url)));
const origin = `http://127.0.0.1:${server.address().port}`;
const results = [];
try {
  for (let run = 0; run < runs; run++) {
    // A profile on disk: the origin private file system of an in-memory one has a small quota.
    const profile = mkdtempSync(`${tmpdir()}/ggufscope-bench-save-`);
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
      viewport: { width: 1300, height: 1000 },
    });
    const browser = context.browser();
    await context.addInitScript(() => {
      window.showSaveFilePicker = async () =>
        (await navigator.storage.getDirectory()).getFileHandle('saved.gguf', { create: true });
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}/`);
    await waitFor(page, 'sample.gguf');
    await pick(page, path);
    await waitFor(page, FILES[which]);
    await page.click('[data-action="edit"]');
    await page.click('#metadata tr[data-key="general.name"] [data-action="change"]');
    await page.fill('#metadata tr.edit-row [data-field="edit-value"]', 'saved by bench-save');
    await page.click('#metadata tr.edit-row [data-action="apply"]');

    // Every renderer and the browser process (which reads the file for the Blob) are sampled; the
    // page's renderer is the one whose CPU time grew most during the save.
    const before = await processes(browser);
    const browserPid = before.find((p) => p.type === 'browser').id;
    const pids = [browserPid, ...before.filter((p) => p.type === 'renderer').map((p) => p.id)];
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const stopIdle = sampler(pids, cdp);
    await sleep(IDLE_MS);
    const idleAll = await stopIdle();

    const stopSave = sampler(pids, cdp);
    const seconds = await page.evaluate(async () => {
      const status = document.querySelector('[data-field="save_status"]');
      const start = performance.now();
      document.querySelector('[data-action="save-as"]').click();
      while (!/^(Saved|Not saved)/.test(status.textContent)) await new Promise((resolve) => setTimeout(resolve, 20));
      if (!status.textContent.startsWith('Saved')) throw new Error(status.textContent);
      return (performance.now() - start) / 1000;
    });
    const savingAll = await stopSave();
    const cpu = Object.fromEntries((await processes(browser)).map((p) => [p.id, p.cpuTime]));
    const renderer = before
      .filter((p) => p.type === 'renderer')
      .sort((a, b) => cpu[b.id] - b.cpuTime - (cpu[a.id] - a.cpuTime))[0].id;
    const after = rss(renderer);
    const series = savingAll.rss[renderer];
    const half = Math.floor(series.length / 2);
    const idle = {
      rss: Math.max(...idleAll.rss[renderer]),
      browser: Math.max(...idleAll.rss[browserPid]),
      heap: Math.max(...idleAll.heap),
    };
    const saving = {
      rss: Math.max(...series),
      rssMedian: median(series),
      // Whether memory climbs with the bytes written: the medians of the save's two halves.
      rssHalves: [median(series.slice(0, half)), median(series.slice(half))],
      browser: Math.max(...savingAll.rss[browserPid]),
      heap: Math.max(...savingAll.heap),
    };
    const written = {
      bytes: await page.evaluate(async () =>
        (await (await navigator.storage.getDirectory()).getFileHandle('saved.gguf')).getFile().then((f) => f.size),
      ),
    };
    const blobSize = Number(await page.getAttribute('[data-field="saved"]', 'data-size'));
    if (written.bytes !== blobSize) throw new Error(`the saved file has ${written.bytes} bytes of ${blobSize}`);
    if (Math.abs(blobSize - size) > 4096) throw new Error(`the new file is ${blobSize} bytes, the old one ${size}`);
    if (errors.length) throw new Error(errors.join('\n'));
    await context.close();
    rmSync(profile, { recursive: true, force: true });

    const native = nativeCopy(path);
    results.push({ seconds, bytes: written.bytes, native, idle, saving, after });
    process.stderr.write(
      `  run ${run + 1}: ${seconds.toFixed(1)} s, ${mb(written.bytes)} written; dd ${native.toFixed(1)} s; ` +
        `renderer RSS ${mb(idle.rss)} idle, ${mb(saving.rssMedian)} median (halves ${saving.rssHalves.map(mb).join(', ')}) and ${mb(saving.rss)} peak while saving, ${mb(after)} after; browser RSS ${mb(idle.browser)} idle, ${mb(saving.browser)} peak; JS heap ${mb(idle.heap)} idle, ${mb(saving.heap)} peak\n`,
    );
  }
} finally {
  server.close();
  rmSync(dir, { recursive: true, force: true });
}

const m = (f) => median(results.map(f));
const pageRate = m((r) => r.bytes / r.seconds);
const nativeRate = m((r) => size / r.native);
const lines = [
  `Measured ${new Date().toISOString().slice(0, 10)}: Save to… of \`${FILES[which]}\` (${mb(size)}), headless Chromium, into a file on disk (origin private file system); medians of ${runs}.`,
  '',
  '| | median | min–max |',
  '| --- | --- | --- |',
];
const row = (label, f, show) => {
  const xs = results.map(f);
  lines.push(`| ${label} | ${show(median(xs))} | ${show(Math.min(...xs))}–${show(Math.max(...xs))} |`);
};
row(
  'click to "Saved"',
  (r) => r.seconds,
  (x) => `${x.toFixed(1)} s`,
);
row(
  'page (Blob slices → file)',
  (r) => r.bytes / r.seconds / 1e6,
  (x) => `${x.toFixed(0)} MB/s`,
);
row(
  'native peer (dd bs=8M, file to file)',
  (r) => size / r.native / 1e6,
  (x) => `${x.toFixed(0)} MB/s`,
);
row('renderer RSS, idle', (r) => r.idle.rss, mb);
row('renderer RSS, median while saving', (r) => r.saving.rssMedian, mb);
row("renderer RSS, median of the save's first half", (r) => r.saving.rssHalves[0], mb);
row('renderer RSS, median of its second half', (r) => r.saving.rssHalves[1], mb);
row('renderer RSS, peak while saving', (r) => r.saving.rss, mb);
row('renderer RSS, just after "Saved"', (r) => r.after, mb);
row('browser process RSS, idle', (r) => r.idle.browser, mb);
row('browser process RSS, peak while saving', (r) => r.saving.browser, mb);
row('JS heap, idle', (r) => r.idle.heap, mb);
row('JS heap, peak while saving', (r) => r.saving.heap, mb);
lines.push(
  '',
  `page ÷ native: ${(pageRate / nativeRate).toFixed(3)} (medians of the rates; ${mb(m((r) => r.bytes))} written per run).`,
);
console.log(lines.join('\n'));
if (writeDocs) writeBlock('docs/performance.md', `bench:save-${which}`, `${lines.join('\n')}\n`);
