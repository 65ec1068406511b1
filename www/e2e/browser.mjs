// Shared by the end-to-end tests and the browser benchmark: serves dist/ on 127.0.0.1, starts
// Debian's Chromium headless through playwright-core, and opens files the two ways a person does.

import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { serve } from '../../scripts/serve.mjs';

const require = createRequire(import.meta.url);

export const repo = fileURLToPath(new URL('../../', import.meta.url));
export const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));

/** Debian's Chromium, headless and quiet: no request of its own (updates, sync) leaves the machine. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Serves `root` (dist/, or a changed copy of it) adding `headers` to every answer, and starts
 * Chromium; `close()` stops both. Each call has a port and a browser profile of its own, so the
 * service worker one suite installs never answers another's pages.
 */
export async function startViewer({ headers, root = `${repo}dist` } = {}) {
  const server = await serve(root, { headers });
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
  return {
    origin,
    browser,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Waits until the page shows file `name` in state `state` ('ready' or 'error'). */
export async function waitFor(page, name, state = 'ready') {
  await page.waitForFunction(
    ([n, s]) => document.body.dataset.file === n && document.body.dataset.state === s,
    [name, state],
    { timeout: 60_000 },
  );
}

/** Opens `paths` (one path or several) with the page's own file picker. */
export async function pick(page, paths) {
  await page.setInputFiles('#file-input', paths);
}

/**
 * Drops `paths` (one path or several) on the page as a person would: a `drop` event carrying the
 * files in a DataTransfer. The File objects come from a scratch file input, the only way a page
 * can get them from disk.
 */
export async function drop(page, paths, target = 'main') {
  await page.evaluate(() => {
    const input = Object.assign(document.createElement('input'), {
      type: 'file',
      id: 'drop-source',
      multiple: true,
      hidden: true,
    });
    document.body.append(input);
  });
  await page.setInputFiles('#drop-source', paths);
  await page.evaluate((selector) => {
    const source = document.getElementById('drop-source');
    const dataTransfer = new DataTransfer();
    for (const file of source.files) dataTransfer.items.add(file);
    source.remove();
    const element = document.querySelector(selector);
    for (const type of ['dragenter', 'dragover', 'drop']) {
      element.dispatchEvent(new DragEvent(type, { dataTransfer, bubbles: true, cancelable: true }));
    }
  }, target);
}

/** `{field: data-value}` of every summary value on the page. */
export function fields(page) {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('[data-field]')].map((e) => [e.dataset.field, e.dataset.value ?? e.textContent]),
    ),
  );
}

/**
 * axe-core's violations in `selector` (the whole page by default), each as `rule-id: target, …`,
 * for an assertion of none. axe is evaluated through the debugger protocol: the page's CSP does
 * not let a test inject a script tag, and needs no change for it.
 */
export async function axeViolations(page, selector = 'body') {
  const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const violations = await page.evaluate(
    async (context) =>
      (await globalThis.axe.run(context, { resultTypes: ['violations'] })).violations.map(
        (v) =>
          `${v.id}: ${v.nodes
            .map((n) => n.target.join(' '))
            .slice(0, 4)
            .join(', ')}`,
      ),
    selector,
  );
  return violations;
}

/**
 * Kilobytes the browser holds (the proportional set size of Chromium's processes: this
 * process's descendants, under Linux), sampled every 100 ms while `f` runs: `{result, before, peak}`.
 */
export async function browserMemory(f) {
  const kb = () => {
    const children = new Map(); // pid → parent
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        children.set(pid, readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      } catch {} // gone meanwhile
    }
    const mine = (pid) => {
      for (let p = pid; p && p !== '0' && p !== '1'; p = children.get(p)) if (p === String(process.pid)) return true;
      return false;
    };
    let sum = 0;
    for (const pid of children.keys()) {
      if (pid === String(process.pid) || !mine(pid)) continue;
      try {
        sum += Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
      } catch {}
    }
    return sum;
  };
  const before = kb();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, kb())), 100);
  try {
    const result = await f();
    return { result, before, peak: Math.max(peak, kb()) };
  } finally {
    clearInterval(timer);
  }
}

/** Starts watching `page`'s long tasks (PerformanceObserver); `longest()` says the longest so far, in ms. */
export async function watchLongTasks(page) {
  await page.evaluate(() => {
    window.longTasks_ = [];
    new PerformanceObserver((list) => window.longTasks_.push(...list.getEntries().map((e) => e.duration))).observe({
      type: 'longtask',
    });
  });
  return { longest: async () => Math.round(Math.max(0, ...(await page.evaluate(() => window.longTasks_)))) };
}
