#!/usr/bin/env node
// Bundles what a site and the npm package load as single files, with esbuild (a devDependency,
// pinned in package-lock.json), so that any bundler takes them as they are:
// - the worker: web/gguf-worker.js with everything it imports (the engine's modules, every wasm
//   module's glue) as one minified file with no imports. Each wasm module stays a file of its own,
//   named by a literal `new URL('./pkg…/NAME_bg.wasm', import.meta.url)` (web/failures.js), which
//   a bundler that bundles the worker follows as it does the page's; the glue's own default URL is
//   taken out (the loader always passes the compiled module), so that it names no file that is not
//   there;
// - the viewer's stylesheet, www/style.css, as a module (viewer-style.js), which <gguf-viewer>
//   adopts into its shadow root;
// - for the package only (`workerChunk`, called by scripts/build-npm.mjs): gguf-worker-chunk.js,
//   the same worker for bundlers that write no file for `new URL` (esbuild, Rollup without
//   plugins), each wasm module's bytes imported from a module of its own (pkg…/NAME_bg.wasm.js,
//   a promise of the compiled module), which such a bundler splits off like any `import()`.
// Usage: node scripts/bundle-web.mjs SITE_DIR   (scripts/build-web.sh, on dist/)

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = fileURLToPath(new URL('../', import.meta.url));

/** What every bundle shares: browsers with module workers and wasm, minified, nothing but code. */
const COMMON = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
};

/** A wasm-bindgen glue module (web/pkg…/NAME.js). */
const GLUE = /[\\/]web[\\/]pkg[^\\/]*[\\/][^\\/]+\.js$/;

/** The glue without its default URL for its wasm file, which names a file beside it that is not. */
const glueWithoutDefault = {
  name: 'glue-without-default-url',
  setup(b) {
    b.onLoad({ filter: GLUE }, ({ path: file }) => {
      const text = readFileSync(file, 'utf8');
      const glue = text.replace(
        /new URL\('[^']+_bg\.wasm', import\.meta\.url\)/g,
        "(() => { throw new Error('the wasm module is passed in'); })()",
      );
      if (glue === text) throw new Error(`${file}: no default wasm URL found: has wasm-bindgen's glue changed?`);
      return { contents: glue, loader: 'js' };
    });
  },
};

/** Writes the worker, one file with no imports, over `site`/web/gguf-worker.js. */
export async function bundleWorker(site) {
  await build({
    ...COMMON,
    entryPoints: [path.join(repo, 'web/gguf-worker.js')],
    outfile: path.join(site, 'web/gguf-worker.js'),
    allowOverwrite: true,
    plugins: [glueWithoutDefault],
  });
  const text = readFileSync(path.join(site, 'web/gguf-worker.js'), 'utf8');
  if (/\bimport\s*\(|\bimport\s*["'{*\w]|\bexport\b/.test(text.replace(/import\.meta/g, '')))
    throw new Error('the bundled worker imports or exports something: it must be one file on its own');
}

/** Writes www/style.css as `site`/viewer-style.js, a module whose default export is its text. */
export function writeStyleModule(site) {
  const css = readFileSync(path.join(repo, 'www/style.css'), 'utf8');
  writeFileSync(
    path.join(site, 'viewer-style.js'),
    `// www/style.css as a module (scripts/bundle-web.mjs): <gguf-viewer>'s stylesheet.\nexport default ${JSON.stringify(css)};\n`,
  );
}

/** A module's wasm file named in web/failures.js: `./DIR/NAME_bg.wasm`. */
const WASM_URL = /new URL\('(\.\/pkg[^/']*\/[^/']+_bg\.wasm)', import\.meta\.url\)/g;

/**
 * Writes the package's gguf-worker-chunk.js into `out` (the package's folder, its wasm modules
 * already in out/web/pkg…/), with each wasm module's bytes as out/web/pkg…/NAME_bg.wasm.js.
 * Returns the files written, relative to `out`.
 */
export async function workerChunk(out) {
  const written = [];
  const embedded = {
    name: 'wasm-embedded',
    setup(b) {
      b.onLoad({ filter: /[\\/]web[\\/]failures\.js$/ }, ({ path: file }) => {
        const text = readFileSync(file, 'utf8');
        const wasms = [...text.matchAll(WASM_URL)].map((m) => m[1]);
        if (wasms.length === 0) throw new Error(`${file}: no wasm module's URL found`);
        for (const wasm of wasms) written.push(embedWasm(out, path.posix.join('web', wasm)));
        const contents = text.replace(WASM_URL, "import('$1.js').then((m) => m.default)");
        return { contents, loader: 'js' };
      });
      b.onResolve({ filter: /_bg\.wasm\.js$/ }, ({ path: file }) => ({ path: file, external: true }));
    },
  };
  await build({
    ...COMMON,
    entryPoints: [path.join(repo, 'web/gguf-worker-chunk.js')],
    outfile: path.join(out, 'web/gguf-worker-chunk.js'),
    allowOverwrite: true,
    plugins: [glueWithoutDefault, embedded],
  });
  return ['web/gguf-worker-chunk.js', ...written];
}

/**
 * Writes wasm file `file` (relative to `out`) as a module beside it, `FILE.js`: a promise of the
 * compiled module, from its bytes in base64. Returns that module's path.
 */
function embedWasm(out, file) {
  const bytes = readFileSync(path.join(out, file));
  const name = path.posix.basename(file);
  writeFileSync(
    path.join(out, `${file}.js`),
    `// ${name} as a module (scripts/bundle-web.mjs), for the worker of a bundler that writes no file for new URL: its compiled module.\n` +
      `const base64 = '${bytes.toString('base64')}';\n` +
      'const bytes = Uint8Array.fromBase64?.(base64) ?? Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));\n' +
      'export default WebAssembly.compile(bytes);\n',
  );
  return `${file}.js`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [site] = process.argv.slice(2);
  if (!site) {
    console.error('usage: node scripts/bundle-web.mjs SITE_DIR');
    process.exit(2);
  }
  await bundleWorker(site);
  writeStyleModule(site);
  console.log(`${site}: the worker bundled into web/gguf-worker.js; viewer-style.js written`);
}
