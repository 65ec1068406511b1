// Builds the app in APP (www/e2e/bundlers/: src/index.js and page.html, with ggufscope installed
// in its node_modules) with one bundler, as a new project of that bundler builds it, into APP/dist:
// `node www/e2e/bundlers/build.mjs BUNDLER APP`. Each bundler is the repository's (package.json,
// pinned in package-lock.json; Vite 5–7 by npm alias), used with what a new project has and
// nothing else:
// - vite5 … vite8: `vite build` (index.html at the root names src/index.js);
// - webpack: `webpack --mode production` (its defaults: src/index.js → dist/main.js), and
//   dist/index.html written by hand, as webpack's getting-started guide has it;
// - rollup: rollup.config.mjs with the input, `output: {dir: 'dist', format: 'es'}` and
//   @rollup/plugin-node-resolve, and dist/index.html by hand;
// - esbuild: `esbuild src/index.js --bundle --format=esm --splitting --outdir=dist` (ES modules,
//   split into chunks), and dist/index.html by hand;
// - parcel: `parcel build index.html`.
// Run by www/e2e/bundlers.test.mjs, one process per app, so that two build at once.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** The bundlers of the matrix, each building the app in `app`. */
export const BUNDLERS = {
  vite5: (app) => vite('vite5', app),
  vite6: (app) => vite('vite6', app),
  vite7: (app) => vite('vite7', app),
  vite8: (app) => vite('vite', app),
  webpack: async (app) => {
    page(app, '<script defer src="main.js"></script>');
    process.chdir(app); // webpack writes to dist/ of where it runs
    const { default: webpack } = await import('webpack');
    const stats = await new Promise((resolve, reject) =>
      webpack({ context: app, mode: 'production' }, (e, s) => (e ? reject(e) : resolve(s))),
    );
    if (stats.hasErrors()) throw new Error(stats.toString('errors-only'));
  },
  rollup: async (app) => {
    page(app, '<script type="module" src="index.js"></script>');
    const { rollup } = await import('rollup');
    const { nodeResolve } = await import('@rollup/plugin-node-resolve');
    const bundle = await rollup({ input: path.join(app, 'src/index.js'), plugins: [nodeResolve()], logLevel: 'warn' });
    await bundle.write({ dir: path.join(app, 'dist'), format: 'es' });
    await bundle.close();
  },
  esbuild: async (app) => {
    page(app, '<script type="module" src="index.js"></script>');
    const { build } = await import('esbuild');
    await build({
      entryPoints: [path.join(app, 'src/index.js')],
      bundle: true,
      format: 'esm',
      splitting: true,
      outdir: path.join(app, 'dist'),
      logLevel: 'warning',
    });
  },
  parcel: (app) => {
    execFileSync(process.execPath, [require.resolve('parcel/lib/bin.js'), 'build', 'index.html', '--no-cache'], {
      cwd: app,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  },
};

/** `vite build` of the app, with Vite package `name` (vite5, …: an npm alias). */
async function vite(name, app) {
  const { build } = await import(name);
  await build({ root: app, logLevel: 'warn' });
}

/** The app's dist/index.html, written by hand: page.html loading the bundle with `script`. */
function page(app, script) {
  mkdirSync(path.join(app, 'dist'), { recursive: true });
  const html = readFileSync(path.join(app, 'index.html'), 'utf8');
  writeFileSync(path.join(app, 'dist/index.html'), html.replace(/<script [^>]*><\/script>/, script));
}

if (process.argv[1] === import.meta.filename) {
  const [bundler, app] = process.argv.slice(2);
  if (!BUNDLERS[bundler]) {
    console.error(`usage: node www/e2e/bundlers/build.mjs ${Object.keys(BUNDLERS).join('|')} APP`);
    process.exit(2);
  }
  await BUNDLERS[bundler](path.resolve(app));
}
