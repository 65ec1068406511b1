#!/usr/bin/env node
// URL mode, measured (not a test): for each file, opened by URL in the page (headless Chromium)
// and with `ggufscope info URL`, the requests made and the bytes the server sent (headers
// included, counted by scripts/model-server.mjs), from a server that honours Range and from one
// that ignores it. Run after scripts/build-web.sh, `cargo build --release -p gguf-cli` and npm ci:
//   node scripts/measure-url.mjs [--write-docs]   (GGUF_GEMMA=path adds the real Gemma model;
//   --write-docs writes the table into docs/performance.md, its block bench:url)

import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';

import { fixtures, repo, startViewer } from '../www/e2e/browser.mjs';
import { markdownTable, writeBlock } from './docs-blocks.mjs';
import { startModelServer } from './model-server.mjs';

const dir = mkdtempSync(`${tmpdir()}/ggufscope-measure-`);
execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`, dir]);
const files = [
  `${fixtures}real/ggml-vocab-command-r.gguf`,
  `${fixtures}synth/vocab-262k.gguf`,
  ...[1, 2, 3].map((n) => `${fixtures}synth/sharded-0000${n}-of-00003.gguf`),
  process.env.GGUF_GEMMA,
].filter(Boolean);
for (const file of files) symlinkSync(file, `${dir}/${basename(file)}`);
const cases = [
  'big-40g-sparse.gguf',
  'vocab-262k.gguf',
  'ggml-vocab-command-r.gguf',
  'sharded-00001-of-00003.gguf',
  process.env.GGUF_GEMMA && basename(process.env.GGUF_GEMMA),
].filter(Boolean);

const servers = {
  'honours Range': await startModelServer(dir),
  'ignores Range': await startModelServer(dir, { range: false }),
};
const viewer = await startViewer();
const page = await viewer.browser.newPage();
await page.goto(`${viewer.origin}/`);
await page.waitForFunction(() => document.body.dataset.state === 'ready');

const mb = (n) =>
  n >= 1e9 ? `${(n / 1e9).toFixed(1)} GB` : n >= 1e6 ? `${(n / 1e6).toFixed(2)} MB` : `${(n / 1e3).toFixed(1)} kB`;
const settle = () => new Promise((resolve) => setTimeout(resolve, 500)); // a cancelled download winds down

/** What `server` was asked and sent while `f` ran. */
async function measure(server, f) {
  const [bytes, asked] = [server.bytesSent(), server.requests.length];
  const result = await f();
  await settle();
  return { result, sent: server.bytesSent() - bytes, requests: server.requests.length - asked };
}

const rows = [];
for (const name of cases) {
  for (const [kind, server] of Object.entries(servers)) {
    const url = `${server.origin}/${name}`;
    const inPage = await measure(server, async () => {
      await page.fill('#url-input', url);
      await page.click('#url-form button[type="submit"]');
      await page.waitForFunction(
        (n) => document.body.dataset.file === n && document.body.dataset.state !== 'loading',
        name,
        { timeout: 120_000 },
      );
      return page.evaluate(() => ({
        state: document.body.dataset.state,
        header: Number(document.querySelector('[data-field="header_size"]')?.dataset.value),
        file: Number(document.querySelector('[data-field="file_size"]')?.dataset.value),
      }));
    });
    // Asynchronously: the server runs in this process.
    const cli = await measure(server, () => promisify(execFile)(`${repo}target/release/ggufscope`, ['info', url]));
    rows.push({
      file: name,
      server: kind,
      'file size': mb(inPage.result.file),
      'header size': mb(inPage.result.header),
      'page: requests': inPage.requests,
      'page: bytes sent': `${mb(inPage.sent)} (${inPage.sent.toLocaleString('en')})`,
      'CLI: requests': cli.requests,
      'CLI: bytes sent': `${mb(cli.sent)} (${cli.sent.toLocaleString('en')})`,
    });
    process.stderr.write(`  ${name}, ${kind}: done\n`);
  }
}
await viewer.close();
await Promise.all(Object.values(servers).map((s) => s.close()));
rmSync(dir, { recursive: true, force: true });

const text = `Measured ${new Date().toISOString().slice(0, 10)}: bytes the server sent (headers included) to show each file; the split model is all three shards.\n\n${markdownTable(rows)}\n`;
console.log(text);
if (process.argv.includes('--write-docs')) writeBlock('docs/performance.md', 'bench:url', text);
