// Shared by the end-to-end tests and the browser benchmark: serves dist/ on 127.0.0.1, starts
// Debian's Chromium headless through playwright-core, and opens files the two ways a person does.
// Under the runner (www/e2e/run.mjs, what scripts/test.sh runs) a suite shares its lane's
// Chromium and the runner's server of dist/ (named by GGUF_E2E_CHROMIUM and GGUF_E2E_ORIGIN); a
// suite run alone (`node --test www/e2e/FILE.test.mjs`) starts its own.

import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { appendFileSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { serve } from '../../scripts/serve.mjs';
import { siteFiles, stampServiceWorker } from '../../scripts/stamp-service-worker.mjs';
import { versionLazyFiles } from '../../scripts/version-lazy-files.mjs';

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

/** Where the tests find Chromium. */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/**
 * A Chromium for a suite: its lane's under the runner, connected to through the debugging protocol as a local one (file
 * paths stay paths: nothing is copied, so the 40 GB sparse file is picked as it is), or, run
 * alone, one of its own. Every context and page the suite makes is its own (a fresh profile: no
 * service worker, cache or storage of another suite's); `close()` closes those and leaves the
 * lane's Chromium running.
 */
export async function launchBrowser() {
  const shared = process.env.GGUF_E2E_CHROMIUM;
  if (!shared) return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const browser = await chromium.connectOverCDP(shared, { isLocal: true });
  const made = [];
  const newContext = browser.newContext.bind(browser);
  // Browser.newPage makes its context through newContext, so both are counted here.
  browser.newContext = async (options) => {
    const context = await newContext(options);
    made.push(context);
    return context;
  };
  const disconnect = browser.close.bind(browser);
  browser.close = async () => {
    for (const context of made) await context.close().catch(() => {});
    await disconnect();
  };
  return browser;
}

/**
 * Serves `root` (dist/, or a changed copy of it) adding `headers` to every answer, and starts
 * Chromium (see {@link launchBrowser}); `close()` stops both. Under the runner, dist/ as it is
 * comes from the runner's server; a changed copy or other headers get a server of their own.
 * Every suite's pages are in contexts of their own, so the service worker one suite installs
 * never answers another's pages.
 */
export async function startViewer({ headers, root } = {}) {
  const sharedOrigin = !headers && !root && process.env.GGUF_E2E_ORIGIN;
  const server = sharedOrigin ? null : await serve(root ?? `${repo}dist`, { headers });
  const origin = sharedOrigin || `http://127.0.0.1:${server.address().port}`;
  const browser = await launchBrowser();
  return {
    origin,
    browser,
    async close() {
      await browser.close();
      if (server) await new Promise((resolve) => server.close(resolve));
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

/**
 * Opens the interactive parts of the model shown, as a user would: an array's pager, the first
 * tensor's values (where it has tensors), the chat template's rendered preview (where it has one),
 * and waits for the token list's rows (where it has tokens). The a11y and phone suites check
 * every view with these open.
 */
export async function openParts(page) {
  const browse = page.locator('#metadata button[aria-expanded="false"]', { hasText: /^Browse/ }).first();
  if (await browse.count()) {
    await browse.click();
    await page.waitForSelector('#metadata .pager:not([hidden]) table.elements tr');
  }
  const peek = page.locator('#tensors tbody tr').first().locator('.peek-button');
  if (await peek.count()) {
    await peek.click();
    await page.waitForSelector('.peek[data-state="ready"], .peek[data-state="error"]');
  }
  await page.waitForSelector('#chat-templates .code, #chat-templates .note');
  const render = page.locator('#chat-templates button.render');
  if (await render.count()) {
    await render.click();
    // The prompt and its tokens, side by side (or the failure).
    await page.waitForSelector(
      '#chat-templates .preview-sides:not([hidden]) .tok-piece, #chat-templates .preview-sides:not([hidden]) .preview-tokens .note, #chat-templates .preview-output.failed',
    );
  }
  await page.waitForFunction(
    () =>
      document.querySelector('#tokenizer .vlist-row:not(.pending)') ||
      /lists no tokens/.test(document.querySelector('#tokenizer')?.textContent ?? ''),
  );
}

/** `{field: data-value}` of every summary value on the page. */
export function fields(page) {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('[data-field]')].map((e) => [e.dataset.field, e.dataset.value ?? e.textContent]),
    ),
  );
}

let axe;
/** axe-core's script, read once. */
const axeSource = () => (axe ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));

/**
 * The axe rules whose outcome depends on colours: what the dark scheme can change. The dark
 * scheme changes colours only (a11y.test.mjs checks it of the stylesheets, scripts and pages), so
 * in dark axe runs these alone: the others' outcome there is the light run's.
 */
export const AXE_COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * axe-core's violations in `selector` (the whole page by default; an array of selectors, checked
 * in one run: each run sets up anew, so views are checked together), each as
 * `rule-id: target, …`, for an assertion of none: every rule in the light scheme, the colour
 * rules ({@link AXE_COLOUR_RULES}) in the dark. axe is evaluated through the debugger
 * protocol: the page's CSP does not let a test inject a script tag, and needs no change for it.
 */
export async function axeViolations(page, selector = 'body') {
  const context = Array.isArray(selector) ? { include: selector.map((s) => [s]) } : selector;
  // Evaluated once per document: a page keeps it until it navigates.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource());
  const violations = await page.evaluate(
    async ([context, colourRules]) => {
      const dark = matchMedia('(prefers-color-scheme: dark)').matches;
      const options = { resultTypes: ['violations'], ...(dark && { runOnly: colourRules }) };
      return (await globalThis.axe.run(context, options)).violations.map(
        (v) =>
          `${v.id}: ${v.nodes
            .map((n) => n.target.join(' '))
            .slice(0, 4)
            .join(', ')}`,
      );
    },
    [context, AXE_COLOUR_RULES],
  );
  return violations;
}

/**
 * The process at the root of the browser's process tree: under the runner, the lane's Chromium
 * (found by the debugging port it was launched with: it is the runner's child, not this
 * process's); run alone, this process, whose child the suite's Chromium is.
 */
function browserRoot() {
  const lane = process.env.GGUF_E2E_CHROMIUM;
  if (!lane) return { pid: String(process.pid), counted: false };
  const flag = `--remote-debugging-port=${new URL(lane).port}`;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
      if (args.includes(flag) && !args.some((a) => a.startsWith('--type='))) return { pid, counted: true };
    } catch {} // gone meanwhile
  }
  throw new Error(`no process of the lane's Chromium (${flag}) to measure`);
}

/**
 * Kilobytes the browser holds (the proportional set size of Chromium's processes: those of the
 * tree under {@link browserRoot}, under Linux), sampled every 100 ms while `f` runs:
 * `{result, before, peak}`.
 */
export async function browserMemory(f) {
  const root = browserRoot();
  const kb = () => {
    const children = new Map(); // pid → parent
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        children.set(pid, readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      } catch {} // gone meanwhile
    }
    const inTree = (pid) => {
      for (let p = pid; p && p !== '0' && p !== '1'; p = children.get(p)) if (p === root.pid) return true;
      return false;
    };
    let sum = 0;
    for (const pid of children.keys()) {
      if ((pid === root.pid && !root.counted) || !inTree(pid)) continue;
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

/**
 * The path under which the site in `root` serves `file` (relative to the site), one of the files
 * it loads after its page, which the build names by their content
 * (scripts/version-lazy-files.mjs): `web/gguf-worker.js` is `/web/gguf-worker.0123456789ab.js`.
 */
export function servedAs(file, root = `${repo}dist`) {
  const slash = file.lastIndexOf('/');
  const [dir, name] = [file.slice(0, slash + 1), file.slice(slash + 1)];
  const dot = name.lastIndexOf('.');
  const pattern = new RegExp(`^${name.slice(0, dot).replace(/[.-]/g, '\\$&')}\\.[0-9a-f]{12}\\${name.slice(dot)}$`);
  const found = readdirSync(`${root}/${dir}`).filter((f) => pattern.test(f));
  if (found.length !== 1) throw new Error(`${root}/${dir}: ${found.length} versioned files for ${name}: ${found}`);
  return `/${dir}${found[0]}`;
}

/**
 * Changes the copy of the site in `dir` as a new build deployed over it would: every script,
 * style, page and wasm module gets new bytes (a comment; a wasm custom section), the files loaded
 * after the page new names for them (scripts/version-lazy-files.mjs: the old ones are gone), then
 * its service worker a new stamp. Returns the stamp's `{version, files}`.
 */
export function deployNewBuild(dir) {
  for (const file of siteFiles(dir)) {
    const path = `${dir}/${file}`;
    if (/\.(js|css)$/.test(file)) appendFileSync(path, '\n/* build 2 */\n');
    else if (/\.(html|svg)$/.test(file)) appendFileSync(path, '\n<!-- build 2 -->\n');
    else if (file.endsWith('.wasm')) appendFileSync(path, Buffer.from([0, 7, 6, ...Buffer.from('build2')])); // id 0, size 7, name "build2"
  }
  versionLazyFiles(dir);
  return stampServiceWorker(dir);
}
