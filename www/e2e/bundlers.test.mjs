// The npm package in every mainstream bundler, with no configuration: dist-npm/ (scripts/build-web.sh)
// packed with `npm pack`, installed once with `npm install --offline` (it has no dependencies) and
// copied into one fresh app per bundler — the same src/index.js and page (www/e2e/bundlers/) —
// built as a new project of that bundler builds it (www/e2e/bundlers/build.mjs: Vite 5, 6, 7 and
// 8, webpack 5, Rollup 4 with @rollup/plugin-node-resolve, esbuild, Parcel 2; two at a time), then
// served with the embedding Content-Security-Policy (www/csp.json) as a header and opened in
// Chromium, where `open()` and <gguf-viewer> each show the sample, styled, with no error and no
// request that failed. The bundlers are the repository's own devDependencies, pinned in
// package-lock.json (Vite 5–7 by npm alias), so this runs offline.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';

import { launchBrowser, repo } from './browser.mjs';
import { BUNDLERS } from './bundlers/build.mjs';
import { policy as cspPolicy } from '../../scripts/csp.mjs';
import { serve } from '../../scripts/serve.mjs';

const template = `${repo}www/e2e/bundlers/`;
const policy = cspPolicy('embedding');

/** The bundlers tested: all, or those GGUF_BUNDLERS names (`GGUF_BUNDLERS=webpack,parcel`). */
const chosen = process.env.GGUF_BUNDLERS?.split(',') ?? Object.keys(BUNDLERS);

let scratch;
let browser;
/** Each bundler's build: a promise of its app's folder, or of the error that stopped the build. */
const builds = {};

/** Runs `tasks` (functions returning promises), `width` at a time; resolves when all have settled. */
async function inTurn(tasks, width) {
  const queue = [...tasks];
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (queue.length)
        await queue
          .shift()()
          .catch(() => {});
    }),
  );
}

before(async () => {
  assert.ok(existsSync(`${repo}dist-npm/package.json`), 'dist-npm/ is missing: run scripts/build-web.sh first');
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-bundlers-`);
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', `${repo}dist-npm`, '--pack-destination', scratch, '--json', '--silent'], {
      encoding: 'utf8',
    }),
  );
  // One install, copied into every app: each is a fresh project of ES modules (what `npm init`
  // writes less its `main`, which Parcel would take for the app's output) with the package in
  // node_modules.
  mkdirSync(`${scratch}/installed`);
  writeFileSync(`${scratch}/installed/package.json`, '{ "name": "app", "private": true, "type": "module" }\n');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', `${scratch}/${packed.filename}`], {
    cwd: `${scratch}/installed`,
    stdio: 'ignore',
  });
  const tasks = chosen.map((bundler) => {
    const app = `${scratch}/${bundler}`;
    cpSync(`${template}src`, `${app}/src`, { recursive: true });
    copyFileSync(`${template}page.html`, `${app}/index.html`);
    cpSync(`${scratch}/installed/package.json`, `${app}/package.json`);
    cpSync(`${scratch}/installed/node_modules`, `${app}/node_modules`, { recursive: true });
    let settle;
    builds[bundler] = new Promise((resolve, reject) => (settle = { resolve, reject }));
    return () =>
      promisify(execFile)(process.execPath, [`${template}build.mjs`, bundler, app], { maxBuffer: 1 << 24 }).then(
        () => {
          copyFileSync(`${repo}dist/sample.gguf`, `${app}/dist/sample.gguf`);
          settle.resolve(app);
        },
        (e) => settle.reject(new Error(`${bundler} failed to build the app:\n${e.stderr || e.message}`)),
      );
  });
  // Two at a time (the machine's two cores): the browser tests start as the builds end.
  inTurn(tasks, 2);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/**
 * The policy app `app` is served under: the embedding policy, and for Parcel the hash of its own
 * inline import map (Parcel 2.14 and later write the URLs of an app's bundles into one, for any
 * app with lazy bundles or `new URL` files): a strict policy allows it by its hash, or Parcel's
 * app cannot start.
 */
function policyFor(app) {
  const html = readFileSync(`${app}/dist/index.html`, 'utf8');
  const maps = [...html.matchAll(/<script type=["']?importmap["']?>([^<]*)<\/script>/g)];
  if (maps.length === 0) return policy;
  const hashes = maps.map(([, map]) => `'sha256-${createHash('sha256').update(map).digest('base64')}'`);
  return policy.replace("script-src 'self'", `script-src 'self' ${hashes.join(' ')}`);
}

/**
 * Serves `root` under the embedding policy, opens it, waits until open() and the element have both
 * read the sample, and resolves what each shows and what went wrong.
 */
async function openApp(root, policy) {
  const server = await serve(root, { headers: { 'Content-Security-Policy': policy } });
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const problems = [];
  const requested = [];
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  page.on('pageerror', (e) => problems.push(e.message));
  page.on(
    'console',
    (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()),
  );
  page.on(
    'response',
    (r) => r.status() >= 400 && !r.url().endsWith('/favicon.ico') && problems.push(`${r.status()} ${r.url()}`),
  );
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page
      .waitForFunction(
        () =>
          document.body.dataset.opened !== undefined &&
          ['ready', 'error'].includes(document.querySelector('gguf-viewer')?.dataset.state),
        null,
        { timeout: 60_000 },
      )
      .catch((e) => problems.push(e.message));
    const figures = await page.evaluate(() => {
      const viewer = document.querySelector('gguf-viewer');
      const field = (name) => viewer.shadowRoot?.querySelector(`[data-field="${name}"]`);
      return {
        opened: document.body.dataset.opened,
        architecture: document.getElementById('architecture').textContent,
        tensorCount: document.getElementById('tensor-count').textContent,
        viewer: {
          state: viewer.dataset.state,
          file: viewer.dataset.file,
          architecture: field('architecture')?.dataset.value ?? field('architecture')?.textContent,
          tensors: viewer.shadowRoot?.querySelectorAll('#tensors tbody > tr').length,
          error: field('error_message')?.textContent || undefined,
        },
        styled: /system-ui/.test(getComputedStyle(viewer.shadowRoot?.querySelector('.card') ?? viewer).fontFamily),
      };
    });
    // How the worker's wasm came: as files (a bundler that follows new URL), or from its chunk's modules.
    const wasm = requested.some((p) => p.endsWith('.wasm')) ? 'files' : 'modules';
    return { figures, problems, wasm };
  } finally {
    await page.close();
    await new Promise((resolve) => server.close(resolve));
  }
}

const SAMPLE = {
  opened: 'yes',
  architecture: 'llama',
  tensorCount: '39',
  viewer: { state: 'ready', file: 'sample.gguf', architecture: 'llama', tensors: 39, error: undefined },
  styled: true,
};

for (const bundler of chosen) {
  test(`${bundler}: the app built with no configuration opens the sample through open() and <gguf-viewer> under the strict policy`, async () => {
    const app = await builds[bundler];
    const { figures, problems, wasm } = await openApp(`${app}/dist`, policyFor(app));
    assert.deepEqual({ figures, problems }, { figures: SAMPLE, problems: [] });
    // Only a bundler that writes no file for `new URL` gets the worker as a chunk, its wasm as modules.
    assert.equal(wasm, ['esbuild', 'rollup'].includes(bundler) ? 'modules' : 'files');
  });
}
