// The npm package as a user gets it: dist-npm/ (scripts/build-web.sh) packed with `npm pack`, the
// tarball installed into a scratch app with `npm install --offline` (it has no dependencies, so
// nothing is fetched), the app (www/e2e/package/) built with Vite — the repository's own, a
// devDependency — and without configuration; then the same package files copied as they are into
// a static folder, no bundler. Both are served with the embedding Content-Security-Policy
// (www/csp.json) as a header (no 'unsafe-inline', no 'unsafe-eval') and opened in Chromium, where each reads the
// sample through `open()` and shows it in <gguf-viewer>; so does the app on Vite's dev server.
// `tsc --noEmit` checks TypeScript files using the API against the installed declarations, and
// must fail on a misspelled report field.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { build, createServer } from 'vite';

import { launchBrowser, repo } from './browser.mjs';
import { policy as cspPolicy, stampPolicies } from '../../scripts/csp.mjs';
import { serve } from '../../scripts/serve.mjs';

const app = `${repo}www/e2e/package/`;
const shots = `${repo}test-results/`;

/** The policy a page embedding the package needs (www/csp.json, shown in docs/embedding.md): the one tested here. */
const policy = cspPolicy('embedding');

let scratch;
let tarball;
let browser;
const servers = [];

before(async () => {
  assert.ok(existsSync(`${repo}dist-npm/package.json`), 'dist-npm/ is missing: run scripts/build-web.sh first');
  assert.doesNotMatch(
    policy,
    /'unsafe-inline'|'unsafe-eval'|\*/,
    'the policy allows no inline script or style, no eval, no wildcard',
  );
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-package-`);
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', `${repo}dist-npm`, '--pack-destination', scratch, '--json', '--silent'], {
      encoding: 'utf8',
    }),
  );
  tarball = { ...packed, path: `${scratch}/${packed.filename}` };

  mkdirSync(`${scratch}/app/public`, { recursive: true });
  for (const file of readdirSync(app).filter((f) => statSync(`${app}${f}`).isFile()))
    copyFileSync(`${app}${file}`, `${scratch}/app/${file}`);
  copyFileSync(`${repo}dist/sample.gguf`, `${scratch}/app/public/sample.gguf`);
  stampPolicies(`${scratch}/app`);
  execFileSync('npm', ['init', '--yes'], { cwd: `${scratch}/app`, stdio: 'ignore' });
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball.path], {
    cwd: `${scratch}/app`,
    stdio: 'ignore',
  });
  await build({ root: `${scratch}/app`, logLevel: 'error', build: { outDir: `${scratch}/app/dist` } });

  cpSync(`${app}static`, `${scratch}/static`, { recursive: true });
  stampPolicies(`${scratch}/static`);
  cpSync(`${scratch}/app/node_modules/ggufscope`, `${scratch}/static/ggufscope`, { recursive: true });
  copyFileSync(`${repo}dist/sample.gguf`, `${scratch}/static/sample.gguf`);

  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Serves `root` under the embedding policy and opens it: {@link openPage}'s answer. */
async function openApp(root, shot) {
  const server = await serve(root, { headers: { 'Content-Security-Policy': policy } });
  servers.push(server);
  return openPage(`http://127.0.0.1:${server.address().port}/`, shot, { policy });
}

/**
 * Opens the app at `url` (its answer carrying `policy` when given), waits until open() and the
 * element have both read the sample, and resolves what each shows and what went wrong.
 */
async function openPage(url, shot, { policy: expected } = {}) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  // A failed load is told by its response (the console only says "Failed to load resource").
  page.on(
    'console',
    (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()),
  );
  // The browser's own /favicon.ico request is not the page's.
  page.on(
    'response',
    (r) => r.status() >= 400 && !r.url().endsWith('/favicon.ico') && problems.push(`${r.status()} ${r.url()}`),
  );
  const response = await page.goto(url);
  if (expected) assert.equal(response.headers()['content-security-policy'].split('\n')[0], expected);
  await page.waitForFunction(
    () => document.body.dataset.opened === 'yes' && document.querySelector('gguf-viewer')?.dataset.state === 'ready',
    null,
    { timeout: 60_000 },
  );
  const figures = await page.evaluate(() => {
    const viewer = document.querySelector('gguf-viewer');
    const field = (name) => viewer.shadowRoot.querySelector(`[data-field="${name}"]`);
    return {
      architecture: document.getElementById('architecture').textContent,
      tensorCount: document.getElementById('tensor-count').textContent,
      viewer: {
        file: viewer.dataset.file,
        architecture: field('architecture').dataset.value ?? field('architecture').textContent,
        tensors: viewer.shadowRoot.querySelectorAll('#tensors tbody > tr').length,
      },
      styled: getComputedStyle(viewer.shadowRoot.querySelector('.card')).fontFamily,
      undefinedText: viewer.shadowRoot.textContent.includes('undefined'),
    };
  });
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}${shot}` });
  await page.close();
  return { figures, problems };
}

const SAMPLE = {
  architecture: 'llama',
  tensorCount: '39',
  viewer: { file: 'sample.gguf', architecture: 'llama', tensors: 39 },
  undefinedText: false,
};

test('the tarball holds the library, the viewer, their declarations, the worker and wasm files, and nothing of the site', () => {
  const files = tarball.files.map((f) => f.path);
  for (const file of [
    'package.json',
    'README.md',
    'LICENSE-MIT',
    'web/gguf.js',
    'web/gguf.d.ts',
    'web/report.d.ts',
    'web/gguf-worker.js',
    'web/pkg/gguf_wasm_bg.wasm',
    'web/gguf-worker-chunk.js',
    'web/pkg/gguf_wasm_bg.wasm.js',
    'gguf-viewer.js',
    'gguf-viewer.d.ts',
    'viewer.js',
    'viewer-core.js',
    'viewer-style.js',
    // The glossary the cards' terms link to, with the icon and style that page names.
    'glossary.html',
    'style.css',
    'favicon.svg',
  ]) {
    assert.ok(files.includes(file), `${file} is in the tarball`);
  }
  for (const file of ['index.html', 'app.js', 'sw.js', 'pwa.js', 'sample.gguf', 'web/pkg/package.json', 'embed.html'])
    assert.ok(!files.includes(file), `${file} is not`);
  // The worker's own modules are in its one file, not shipped beside it.
  for (const file of ['web/failures.js', 'web/tools.js', 'web/model-reader.js', 'web/pkg/gguf_wasm.js'])
    assert.ok(!files.includes(file), `${file} is not: the worker has it`);
  const pkg = JSON.parse(readFileSync(`${scratch}/app/node_modules/ggufscope/package.json`, 'utf8'));
  assert.equal(pkg.name, 'ggufscope');
  assert.equal(pkg.type, 'module');
  assert.deepEqual(pkg.exports['.'], { types: './web/gguf.d.ts', default: './web/gguf.js' });
  assert.deepEqual(pkg.exports['./viewer'], { types: './gguf-viewer.d.ts', default: './gguf-viewer.js' });
  assert.equal(pkg.main, './web/gguf.js', 'for resolvers that read no exports');
});

test('the worker is one file with no imports; the worker chunk imports only its wasm modules, each a file of its own', () => {
  const at = `${scratch}/app/node_modules/ggufscope/`;
  const worker = readFileSync(`${at}web/gguf-worker.js`, 'utf8').replace(/import\.meta/g, '');
  assert.doesNotMatch(worker, /\bimport\s*\(|\bimport\s*["'{*\w]|\bexport\b/);
  const chunk = readFileSync(`${at}web/gguf-worker-chunk.js`, 'utf8');
  const imported = [...chunk.matchAll(/\bimport\(\s*["']([^"']+)["']/g)].map(([, path]) => path).sort();
  assert.deepEqual(imported, [
    './pkg-diff/gguf_diff_wasm_bg.wasm.js',
    './pkg-edit/gguf_edit_wasm_bg.wasm.js',
    './pkg-memory/gguf_memory_wasm_bg.wasm.js',
    './pkg-template/gguf_template_wasm_bg.wasm.js',
    './pkg-tokenizer/gguf_tokenizer_wasm_bg.wasm.js',
    './pkg-upstream/gguf_upstream_wasm_bg.wasm.js',
    './pkg-values-simd/gguf_values_wasm_bg.wasm.js',
    './pkg-values/gguf_values_wasm_bg.wasm.js',
    './pkg/gguf_wasm_bg.wasm.js',
  ]);
  for (const path of imported) {
    const embedded = readFileSync(`${at}web/${path}`, 'utf8');
    assert.doesNotMatch(embedded, /\bimport\b/, path);
  }
});

test("the package's README (web/npm-readme.md) starts with the install command and shows the embedding policy", () => {
  const readme = readFileSync(`${scratch}/app/node_modules/ggufscope/README.md`, 'utf8');
  assert.ok(readme.startsWith('# ggufscope\n\n```sh\nnpm install ggufscope\n```\n'), readme.slice(0, 80));
  assert.ok(readme.includes(`\n${policy}\n`), 'the policy of www/csp.json, as the build wrote it');
});

test('Vite bundles the worker and the wasm modules without configuration', () => {
  const assets = readdirSync(`${scratch}/app/dist/assets`);
  for (const name of [
    'gguf-worker',
    'gguf_wasm_bg',
    'gguf_values_wasm_bg',
    'gguf_edit_wasm_bg',
    'gguf_diff_wasm_bg',
    'gguf_upstream_wasm_bg',
    'gguf_template_wasm_bg',
  ]) {
    assert.ok(
      assets.some((a) => a.startsWith(`${name}-`)),
      `${name} is emitted by Vite (${assets.join(', ')})`,
    );
  }
});

test('the Vite app opens the sample through open() and <gguf-viewer> under the strict policy', async () => {
  const { figures, problems } = await openApp(`${scratch}/app/dist`, 'package-vite.png');
  assert.deepEqual({ ...figures, styled: undefined }, { ...SAMPLE, styled: undefined });
  assert.match(figures.styled, /system-ui/, "the viewer's stylesheet reached its shadow root");
  assert.deepEqual(problems, []);
});

test('the Vite dev server serves the same app from the installed package', async () => {
  const server = await createServer({
    root: `${scratch}/app`,
    logLevel: 'error',
    clearScreen: false,
    server: { host: '127.0.0.1', port: 0 },
  });
  await server.listen();
  try {
    const { figures, problems } = await openPage(server.resolvedUrls.local[0], 'package-vite-dev.png');
    assert.deepEqual({ ...figures, styled: undefined }, { ...SAMPLE, styled: undefined });
    assert.deepEqual(problems, []);
  } finally {
    await server.close();
  }
});

test('the package files copied into a static folder, no bundler: the same under the same policy', async () => {
  const { figures, problems } = await openApp(`${scratch}/static`, 'package-static.png');
  assert.deepEqual({ ...figures, styled: undefined }, { ...SAMPLE, styled: undefined });
  assert.match(figures.styled, /system-ui/);
  assert.deepEqual(problems, []);
});

test('tsc --noEmit passes on the app and a file using the API, and fails on a misspelled report field', () => {
  const tsc = (project) =>
    spawnSync(process.execPath, [`${repo}node_modules/typescript/bin/tsc`, '-p', project], {
      cwd: `${scratch}/app`,
      encoding: 'utf8',
    });
  const good = tsc('tsconfig.json');
  assert.equal(good.status, 0, good.stdout + good.stderr);
  const bad = tsc('tsconfig.misspelled.json');
  assert.notEqual(bad.status, 0);
  assert.match(
    bad.stdout,
    /misspelled\.ts\(5,\d+\): error TS2551: Property 'tensor_cuont' does not exist on type 'Report'\. Did you mean 'tensor_count'\?/,
  );
  assert.equal(bad.stdout.trim().split('\n').length, 1, bad.stdout);
});

test("the policy's 'wasm-unsafe-eval' is needed: without it the parser's WebAssembly does not compile, and the element says so", async () => {
  const strict = policy.replace(" 'wasm-unsafe-eval'", '');
  const server = await serve(`${scratch}/static`, { headers: { 'Content-Security-Policy': strict } });
  servers.push(server);
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => document.querySelector('gguf-viewer')?.dataset.state === 'error', null, {
    timeout: 60_000,
  });
  const error = await page.evaluate(() => {
    const shadow = document.querySelector('gguf-viewer').shadowRoot;
    return {
      kind: shadow.getElementById('error').dataset.kind,
      message: shadow.querySelector('[data-field="error_message"]').textContent,
    };
  });
  assert.equal(error.kind, 'crashed');
  assert.match(
    error.message,
    /CompileError: WebAssembly\.compileStreaming\(\): .*Content Security Policy/,
    "the browser's reason is shown",
  );
  assert.notEqual(await page.evaluate(() => document.body.dataset.opened), 'yes');
  await page.close();
});
