// A tab left open while a new build is deployed, in headless Chromium: what it loads after its
// page — the template engine's worker and wasm module, here — is its own build's, by name
// (scripts/version-lazy-files.mjs), never the new build's under the old name. With the service
// worker it comes from the old build's cache, kept while such a tab is open, though another tab
// took the update and the server has only the new build; with no service worker it comes from a
// server that kept the old files, and where the server removed them the page says to reload.
// Each test serves a copy of dist/ that it deploys a new build over (browser.mjs's deployNewBuild).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { deployNewBuild, fixtures, pick, repo, servedAs, startViewer, waitFor } from './browser.mjs';
import { siteFiles } from '../../scripts/stamp-service-worker.mjs';
import { VERSIONED } from '../../scripts/version-lazy-files.mjs';

const dist = `${repo}dist`;
const PHI3 = `${fixtures}real/ggml-vocab-phi-3.gguf`;
/** The template engine's worker and module, as the build in dist/ names them. */
const ENGINE = [servedAs('web/gguf-worker.js'), servedAs('web/pkg-template/gguf_template_wasm_bg.wasm')];

let scratch;
const pageErrors = [];

before(() => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-e2e-update-`);
});

after(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A copy of dist/ to deploy over, served, with a Chromium: `{site, origin, browser, close}`. */
async function servedCopy(name) {
  const site = `${scratch}/${name}`;
  cpSync(dist, site, { recursive: true });
  return { site, ...(await startViewer({ root: site })) };
}

/** `page`, its script errors collected, and the paths it asks for (its workers' too), as they come. */
function watched(page) {
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const asked = [];
  page.on('request', (r) => asked.push(new URL(r.url()).pathname));
  return asked;
}

/** Opens phi-3's vocabulary and asks for its chat template's preview: the prompt or the failure shown. */
async function preview(page) {
  if ((await page.evaluate(() => document.body.dataset.file)) !== 'ggml-vocab-phi-3.gguf') {
    await pick(page, PHI3);
    await waitFor(page, 'ggml-vocab-phi-3.gguf');
  }
  // The button is disabled as the click starts a preview, and enabled again once it is shown.
  await page.click('#chat-templates button.render');
  await page.waitForFunction(() => !document.querySelector('#chat-templates button.render').disabled, null, {
    timeout: 30_000,
  });
  return page.textContent('#chat-templates .preview-output');
}

test('with the service worker: a tab left open across an update loads its own build from the old cache, after another tab took the update', async () => {
  const deployed = await servedCopy('sw');
  try {
    const context = await deployed.browser.newContext({ viewport: { width: 1300, height: 1000 } });
    const old = await context.newPage();
    const asked = watched(old);
    const served = [];
    old.on('response', (r) => r.fromServiceWorker() && served.push(new URL(r.url()).pathname));
    await old.goto(`${deployed.origin}/`);
    await waitFor(old, 'sample.gguf');
    await old.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });

    const { version } = deployNewBuild(deployed.site);
    for (const file of ENGINE) assert.notEqual(servedAs(file.slice(1).replace(VERSIONED, '$1'), deployed.site), file);

    // Another tab finds the new build, and takes it: the new service worker takes every tab over.
    const other = await context.newPage();
    watched(other);
    await other.goto(`${deployed.origin}/`);
    await other.locator('[data-action="reload-update"]').waitFor({ timeout: 60_000 });
    await Promise.all([other.waitForEvent('load'), other.click('[data-action="reload-update"]')]);
    await old.locator('[data-action="reload-update"]').waitFor({ timeout: 30_000 });
    assert.equal(await old.textContent('#update-banner'), 'A new version of ggufscope is ready.Reload');

    // The old tab, not reloaded, previews a template: a worker and a wasm module it had not
    // loaded yet, its own build's, from the cache the new service worker kept for it.
    const first = asked.length;
    assert.match(await preview(old), /<\|user\|>/);
    const loaded = asked.slice(first).filter((p) => VERSIONED.test(p));
    for (const file of ENGINE) assert.ok(loaded.includes(file), `${file}: the old build's, asked for`);
    assert.deepEqual(
      loaded.filter((p) => !ofOldBuild(p)),
      [],
      'nothing of the new build asked for',
    );
    for (const file of ENGINE) assert.ok(served.includes(file), `${file} came from the service worker's cache`);
    const caches = await old.evaluate(() => caches.keys());
    assert.ok(caches.length > 1 && caches.includes(`ggufscope-${version}`), `both builds cached: ${caches}`);

    // Reloaded, it runs the new build, and no tab is left on the old one: its cache goes.
    await Promise.all([old.waitForEvent('load'), old.click('[data-action="reload-update"]')]);
    await waitFor(old, 'sample.gguf');
    await old.waitForFunction(async () => (await caches.keys()).length === 1, null, { timeout: 10_000 });
    assert.deepEqual(await old.evaluate(() => caches.keys()), [`ggufscope-${version}`]);
    assert.match(await preview(old), /<\|user\|>/);
    await context.close();
  } finally {
    await deployed.close();
  }
});

test('with no service worker: the old build where the server kept it, else a clear "reload the page"', async () => {
  const deployed = await servedCopy('plain');
  try {
    const context = await deployed.browser.newContext({
      viewport: { width: 1300, height: 1000 },
      serviceWorkers: 'block',
    });
    const page = await context.newPage();
    const asked = watched(page);
    await page.goto(`${deployed.origin}/`);
    await waitFor(page, 'sample.gguf');
    await pick(page, PHI3);
    await waitFor(page, 'ggml-vocab-phi-3.gguf');

    // Deployed over, the old files gone: the engine's worker cannot start, and the page says why.
    deployNewBuild(deployed.site);
    let first = asked.length;
    const failed = await preview(page);
    assert.match(
      failed,
      /^the template engine could not be started: its script could not be loaded \(.*reload the page\)$/,
    );
    assert.equal(await page.locator('#chat-templates .preview-output.failed').count(), 1);
    assert.ok(asked.slice(first).includes(ENGINE[0]), "the old build's worker was asked for");
    assert.deepEqual(
      asked.filter((p) => VERSIONED.test(p) && !ofOldBuild(p)),
      [],
      'nothing of the new build asked for',
    );

    // A server that keeps the old build's files beside the new: the next try loads them, and renders.
    for (const file of siteFiles(dist).filter((f) => VERSIONED.test(f)))
      copyFileSync(`${dist}/${file}`, `${deployed.site}/${file}`);
    first = asked.length;
    assert.match(await preview(page), /<\|user\|>/);
    const loaded = asked.slice(first).filter((p) => VERSIONED.test(p));
    for (const file of ENGINE) assert.ok(loaded.includes(file), `${file}: the old build's, asked for`);
    assert.deepEqual(
      loaded.filter((p) => !ofOldBuild(p)),
      [],
      'nothing of the new build asked for',
    );
    await context.close();
  } finally {
    await deployed.close();
  }
});

/** Whether `path` (a path on the site) is a file of the build in dist/: the old one. */
function ofOldBuild(path) {
  return siteFiles(dist).includes(decodeURIComponent(path.slice(1)));
}

test('no script error happened', () => {
  assert.deepEqual(pageErrors, []);
});
