// The site as an installed app, in headless Chromium: its service worker (www/sw.js) keeps every
// file of a build, so that after one visit the page — a file opened, a tensor peeked at, a chat
// template previewed — works with the network off; a new build is offered ("a new version is
// ready") and, once taken, is all that is cached; the manifest makes it installable and names
// .gguf for "Open with", whose launch queue opens files as a drop does; the embed registers
// nothing. The update test serves a copy of dist/ that it changes, as a deploy would.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { chromium } from 'playwright-core';

import {
  axeViolations,
  CHROMIUM,
  CHROMIUM_ARGS,
  deployNewBuild,
  fields,
  fixtures,
  pick,
  repo,
  servedAs,
  startViewer,
  waitFor,
} from './browser.mjs';
import { siteFiles } from '../../scripts/stamp-service-worker.mjs';

const shots = `${repo}test-results/`;
const dist = `${repo}dist/`;
const ref = (name) => JSON.parse(readFileSync(`${fixtures}ref/${name}.summary.json`, 'utf8'));

let viewer;
let scratch;
const pageErrors = [];

before(async () => {
  mkdirSync(shots, { recursive: true });
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-e2e-offline-`);
  viewer = await startViewer();
});

after(async () => {
  await viewer?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** `page`, its script errors collected. */
function watched(page) {
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  return page;
}

/** A page of its own (a fresh context: no service worker yet). */
async function freshPage(browser = viewer.browser) {
  const context = await browser.newContext({ viewport: { width: 1300, height: 1000 } });
  return watched(await context.newPage());
}

/** Opens the site and waits until its service worker has stored the build and controls the page. */
async function visit(page, origin) {
  await page.goto(`${origin}/`);
  await waitFor(page, 'sample.gguf');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** The site's files in `dir` as `{file: sha256}`: what a cache of that build must hold. */
function onDisk(dir) {
  return Object.fromEntries(siteFiles(dir).map((file) => [file, sha256(readFileSync(`${dir}/${file}`))]));
}

/** Every cache of the page's origin, as `{cacheName: {file: sha256}}`. */
function cached(page) {
  return page.evaluate(async () => {
    const hex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
    const caches_ = {};
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      caches_[name] = {};
      for (const request of await cache.keys()) {
        const bytes = await (await cache.match(request)).arrayBuffer();
        caches_[name][new URL(request.url).pathname.slice(1)] = hex(await crypto.subtle.digest('SHA-256', bytes));
      }
    }
    return caches_;
  });
}

/** Paths of the answers the service worker gave `page` (its dedicated workers' too), as they come. */
function servedByWorker(page) {
  const paths = [];
  page.on('response', (r) => r.fromServiceWorker() && paths.push(new URL(r.url()).pathname));
  return paths;
}

test('after one visit the site works with no network: the page, a file, a peek and a template preview, all from the cache', async () => {
  const page = await freshPage();
  await visit(page, viewer.origin);
  assert.ok(
    await page.isHidden('#install-button'),
    'no Install button: Chromium offers no installation in an incognito context',
  );
  const stored = await cached(page);
  assert.deepEqual(Object.values(stored), [onDisk(dist)], 'one cache, holding every file of the build as built');

  await page.context().setOffline(true);
  const served = servedByWorker(page);
  await page.reload();
  await waitFor(page, 'sample.gguf'); // the sample too: read by Range requests, answered from the cache
  assert.ok(served.includes('/'), 'the page came from the cache');

  await pick(page, `${fixtures}synth/quants.gguf`);
  await waitFor(page, 'quants.gguf');
  assert.equal((await fields(page)).tensor_count, String(ref('quants.gguf').tensor_count));
  await page.locator('#tensors tbody tr').first().locator('.peek-button').click();
  await page.waitForSelector('.peek[data-state="ready"]');
  assert.ok(
    served.includes(servedAs('web/pkg-values-simd/gguf_values_wasm_bg.wasm')),
    'the dequantizers (the SIMD build, as Chromium runs wasm SIMD) came from the cache',
  );

  await pick(page, `${fixtures}real/ggml-vocab-phi-3.gguf`);
  await waitFor(page, 'ggml-vocab-phi-3.gguf');
  await page.click('#chat-templates button.render');
  await page.waitForFunction(
    () => document.querySelector('#chat-templates .preview-output')?.textContent.includes('<|user|>'),
    null,
    { timeout: 20_000 },
  );
  assert.ok(
    served.includes(servedAs('web/pkg-template/gguf_template_wasm_bg.wasm')),
    'the template engine came from the cache',
  );

  // A model by URL is never the cache's: offline, it cannot be reached (even from this origin).
  await page.fill('#url-input', `${viewer.origin}/models/any.gguf`);
  await page.click('#url-form button[type="submit"]');
  await waitFor(page, 'any.gguf', 'error');
  assert.match(await page.textContent('[data-field="error_message"]'), /^cannot reach /);
  assert.equal(await page.getAttribute('#error', 'data-code'), 'unreachable');
  assert.deepEqual(await cached(page), stored, 'nothing opened was added to the cache');
  await page.context().close();
});

test('a new build: the page keeps its own version, offers the reload, and after it every cached file is the new one', async () => {
  const site = `${scratch}/site`;
  cpSync(dist, site, { recursive: true });
  const deployed = await startViewer({ root: site });
  try {
    const page = await freshPage(deployed.browser);
    await visit(page, deployed.origin);
    const first = await cached(page);
    assert.equal(Object.keys(first).length, 1);
    assert.equal(await page.textContent('#update-banner'), '');

    const { version } = deployNewBuild(site);
    // The dequantizers are fetched once the first header is shown (for a peek), by the page as it was.
    const dequantizers = page.waitForResponse((r) => /\/gguf_values_wasm_bg\.[0-9a-f]{12}\.wasm$/.test(r.url()));
    await page.reload(); // the browser checks sw.js on a navigation, finds it changed and installs it
    await waitFor(page, 'sample.gguf');
    await page.locator('[data-action="reload-update"]').waitFor({ timeout: 60_000 });
    assert.equal(await page.textContent('#update-banner'), 'A new version of ggufscope is ready.Reload');

    // Until then the page runs on its own build: the page as it was, and a module it loads
    // later (the dequantizers) from the old cache, not the new.
    assert.equal(
      await page.evaluate(() => [...document.childNodes].some((n) => n.nodeType === Node.COMMENT_NODE)),
      false,
    );
    await page.locator('#tensors tbody tr').first().locator('.peek-button').click();
    await page.waitForSelector('.peek[data-state="ready"]');
    assert.ok((await dequantizers).fromServiceWorker());
    assert.equal(
      sha256(await (await dequantizers).body()),
      Object.values(first)[0][servedAs('web/pkg-values-simd/gguf_values_wasm_bg.wasm').slice(1)],
    );

    // The banner, in light and dark, at 390 px with the top bar's buttons: no violation, no page-wide scroll.
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page, '#update-banner'), [], colorScheme);
    }
    await page.setViewportSize({ width: 390, height: 800 });
    assert.equal(
      await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      0,
    );
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${shots}update-banner-390-dark.png` });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1300, height: 1000 });

    // Another tab of the site, open on the old build: the update it did not ask for is not
    // forced on it (no reload behind its back), it is offered.
    const other = watched(await page.context().newPage());
    await other.goto(`${deployed.origin}/`);
    await waitFor(other, 'sample.gguf');
    await other.evaluate(() => {
      window.stillTheSamePage = true;
      navigator.serviceWorker.addEventListener('controllerchange', () => (window.switched = true));
    });

    await Promise.all([page.waitForEvent('load'), page.click('[data-action="reload-update"]')]);
    await waitFor(page, 'sample.gguf');
    await other.waitForFunction(() => window.switched);
    assert.equal(await other.evaluate(() => window.stillTheSamePage), true);
    assert.equal(await other.textContent('#update-banner'), 'A new version of ggufscope is ready.Reload');
    await Promise.all([other.waitForEvent('load'), other.click('[data-action="reload-update"]')]);
    assert.equal(
      await other.evaluate(() =>
        [...document.childNodes].some((n) => n.nodeType === Node.COMMENT_NODE && n.data.includes('build 2')),
      ),
      true,
      'the other tab, reloaded: the new page',
    );
    assert.equal(
      await page.evaluate(() =>
        [...document.childNodes].some((n) => n.nodeType === Node.COMMENT_NODE && n.data.includes('build 2')),
      ),
      true,
      'the new page',
    );
    assert.equal(await page.textContent('#update-banner'), '');
    // The old build's cache, kept while a tab open on it was left, goes with the last such tab.
    await page.waitForFunction(async () => (await caches.keys()).length === 1, null, { timeout: 10_000 });
    assert.deepEqual(
      await cached(page),
      { [`ggufscope-${version}`]: onDisk(site) },
      'the old cache is gone once no tab is open on it, the new one holds every file of the new build',
    );
    await page.context().close();
  } finally {
    await deployed.close();
  }
});

test('the manifest: valid, installable, .gguf in its file handlers; the Install button where the browser offers it', async () => {
  // A profile on disk: Chromium offers no installation to an incognito context, which a plain
  // newContext() is.
  const context = await chromium.launchPersistentContext(`${scratch}/profile`, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    viewport: { width: 1300, height: 1000 },
  });
  try {
    const page = watched(await context.newPage());
    await visit(page, viewer.origin);

    // The policy lets the manifest in (manifest-src 'self') and still allows no inline script or eval.
    const policy = (await fetch(`${viewer.origin}/`)).headers.get('content-security-policy');
    assert.match(policy, /manifest-src 'self'/);
    assert.doesNotMatch(policy, /'unsafe-inline'|'unsafe-eval'/);

    const cdp = await context.newCDPSession(page);
    // Chromium's own reading of the manifest: an ignored member — a file handler whose `accept`
    // it refuses, say — would be listed in `errors`.
    const { url, errors, data } = await cdp.send('Page.getAppManifest');
    assert.equal(url, `${viewer.origin}/manifest.webmanifest`);
    assert.deepEqual(errors, []);
    assert.deepEqual((await cdp.send('Page.getInstallabilityErrors')).installabilityErrors, []);
    const manifest = JSON.parse(data);
    assert.equal(manifest.display, 'standalone');
    assert.deepEqual(
      manifest.file_handlers.map((f) => f.accept['application/octet-stream']),
      [['.gguf']],
    );
    const sizes = await page.evaluate(
      (icons) =>
        Promise.all(
          icons.map(async ({ src }) => {
            const image = await createImageBitmap(await (await fetch(src)).blob());
            return `${image.width}x${image.height}`;
          }),
        ),
      manifest.icons.filter((icon) => icon.type === 'image/png'),
    );
    assert.deepEqual(
      sizes,
      manifest.icons.filter((icon) => icon.type === 'image/png').map((icon) => icon.sizes),
    );
    assert.ok(sizes.includes('192x192') && sizes.includes('512x512'));

    // Installable, the browser fires beforeinstallprompt, and the page shows its button.
    await page.locator('#install-button').waitFor({ timeout: 30_000 });
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      assert.deepEqual(await axeViolations(page, '.topbar'), [], colorScheme);
    }
    await page.setViewportSize({ width: 390, height: 800 });
    assert.equal(
      await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      0,
    );
    await page.screenshot({ path: `${shots}install-button-390-dark.png` });
  } finally {
    await context.close();
  }
});

test('"Open with": the files the app is launched with open as one model, as a drop does', async () => {
  const page = await freshPage();
  // The page's consumer, caught as it is given to the launch queue, which no test can fill.
  await page.addInitScript(() => {
    Object.defineProperty(window, 'launchQueue', {
      value: { setConsumer: (consumer) => (window.launchConsumer = consumer) },
    });
  });
  await visit(page, viewer.origin);
  const shards = [3, 1, 2].map((n) => `${fixtures}synth/sharded-0000${n}-of-00003.gguf`);
  // Real FileSystemFileHandles, as the operating system's files are given: the fixtures written
  // into the origin's private file system.
  await page.evaluate(() =>
    document.body.append(
      Object.assign(document.createElement('input'), {
        type: 'file',
        id: 'launch-source',
        multiple: true,
        hidden: true,
      }),
    ),
  );
  await page.setInputFiles('#launch-source', shards);
  await page.evaluate(async () => {
    const directory = await navigator.storage.getDirectory();
    const files = [...document.getElementById('launch-source').files];
    const handles = [];
    for (const file of files) {
      const handle = await directory.getFileHandle(file.name, { create: true });
      const writable = await handle.createWritable();
      await writable.write(file);
      await writable.close();
      handles.push(handle);
    }
    document.getElementById('launch-source').remove();
    await window.launchConsumer({ targetURL: location.href, files: handles });
  });
  await waitFor(page, 'sharded-00001-of-00003.gguf (+2 more)');
  assert.deepEqual(
    await page
      .locator('#shards tbody tr')
      .evaluateAll((rows) => rows.map((r) => `${r.dataset.shard} ${r.dataset.state}`)),
    ['1 read', '2 read', '3 read'],
  );
  assert.equal(
    (await fields(page)).tensor_count,
    String(
      ref('sharded-00001-of-00003.gguf').tensor_count +
        ref('sharded-00002-of-00003.gguf').tensor_count +
        ref('sharded-00003-of-00003.gguf').tensor_count,
    ),
  );
  await page.context().close();
});

test('the embed registers no service worker', async () => {
  const page = await freshPage();
  await page.goto(`${viewer.origin}/embed.html`);
  await page.waitForSelector('gguf-viewer[data-state="ready"]');
  assert.deepEqual(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length), 0);
  assert.equal(await page.evaluate(() => navigator.serviceWorker.controller), null);
  await page.context().close();
});

test('no script error happened', () => {
  assert.deepEqual(pageErrors, []);
});
