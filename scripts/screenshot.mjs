#!/usr/bin/env node
// The README's screenshot: the viewer showing a model, taken in headless Chromium (Debian's,
// through playwright-core) from the built site. Run after scripts/build-web.sh:
//
//   node scripts/screenshot.mjs [MODEL.gguf] [OUT.png]
//
// MODEL defaults to $GGUF_GEMMA (sh ../shared/fixtures/fetch-gemma.sh prints its path), OUT to
// docs/screenshot.png. The page is opened at 1200 × 560 in the light scheme, the model picked with
// the page's own file input, and the top of the page taken once the model is shown; then
// Debian's pngquant reduces it to 24 colours without dithering (a flat UI needs no more, and
// dithered text does not compress), which keeps it under the 30,000 bytes a file in docs/ may take:
// installed here when missing (apt-get, as scripts/setup.sh installs Chromium).

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';

import { pick, repo, startViewer, waitFor } from '../www/e2e/browser.mjs';

const model = process.argv[2] ?? process.env.GGUF_GEMMA ?? `${homedir()}/.cache/gguf-fixtures/gemma-3-270m-q4_k_m.gguf`;
const out = process.argv[3] ?? `${repo}docs/screenshot.png`;
if (!existsSync(model))
  throw new Error(`no model at ${model}: give one, or export GGUF_GEMMA=$(sh ../shared/fixtures/fetch-gemma.sh)`);
if (spawnSync('pngquant', ['--version']).status !== 0) {
  console.error("  screenshot: installing Debian's pngquant");
  const apt = (...args) => spawnSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'] }).status === 0;
  if (!(apt('update') && apt('install', '-y', 'pngquant')) || spawnSync('pngquant', ['--version']).status !== 0) {
    throw new Error('pngquant is missing and could not be installed: apt-get install pngquant');
  }
}

const viewer = await startViewer();
try {
  const page = await viewer.browser.newPage({ viewport: { width: 1200, height: 560 }, colorScheme: 'light' });
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
  await pick(page, model);
  await waitFor(page, model.split('/').pop());
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: out });
  const quantized = spawnSync(
    'pngquant',
    ['--force', '--speed', '1', '--strip', '--nofs', '--output', out, '24', out],
    {
      stdio: 'inherit',
    },
  );
  if (quantized.status !== 0) throw new Error(`pngquant failed on ${out}`);
  console.log(`wrote ${out}`);
} finally {
  await viewer.close();
}
