#!/usr/bin/env node
// The page's hostile cases of issue 33 in headless Chromium, once each, for the table that
// scripts/bench-hostile.py --paths writes into docs/hardening.md: a URL whose server breaks its
// word (scripts/lying-server.mjs on 127.0.0.1: 206 bodies that never end, one cut short, a server
// that never answers), Compare with a hostile second file, and Compare with upstream with a
// 16 MiB chat template. For each: what the page ended with, the time, the longest main-thread
// task and how much the browser grew. A benchmark, not a test (www/e2e/hardening.test.mjs holds
// the same cases to bounds). Needs dist/ (scripts/build-web.sh) and write-fixtures' heavy-headers.
//
//   node scripts/bench-hostile-page.mjs HEAVY_HEADERS_DIR    prints one JSON object a line

import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

import { browserMemory, drop, fixtures, pick, startViewer, waitFor, watchLongTasks } from '../www/e2e/browser.mjs';
import { startLyingServer } from './lying-server.mjs';

/** A GGUF v3 file of one key-value pair, `tokenizer.chat_template` = `text`, and no tensors. */
function templateFile(text) {
  const u32 = (n) => Buffer.from(new Uint32Array([n]).buffer);
  const u64 = (n) => Buffer.from(new BigUint64Array([BigInt(n)]).buffer);
  const string = (s) => [u64(Buffer.byteLength(s)), Buffer.from(s)];
  return Buffer.concat([
    Buffer.from('GGUF'),
    u32(3),
    u64(0),
    u64(1),
    ...string('tokenizer.chat_template'),
    u32(8),
    ...string(text),
  ]);
}

async function main(heavy) {
  const scratch = mkdtempSync(`${tmpdir()}/ggufscope-bench-hostile-page-`);
  for (const name of ['minimal.gguf', 'vocab-262k.gguf']) symlinkSync(`${fixtures}synth/${name}`, `${scratch}/${name}`);
  writeFileSync(`${scratch}/template-30k.gguf`, templateFile('{{ a }}\n'.repeat(30_000)));
  writeFileSync(`${scratch}/config.json`, '{"architectures": ["LlamaForCausalLM"]}');
  const line = '{{ b }}\n';
  writeFileSync(`${scratch}/chat_template.jinja`, line.repeat(Math.floor(((16 << 20) - 1) / line.length)));
  const lying = await startLyingServer(scratch);
  const viewer = await startViewer();
  const page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  const outcome = () =>
    page.evaluate(() =>
      document.body.dataset.state === 'error'
        ? `error: ${document.getElementById('error').dataset.code}`
        : document.body.dataset.state,
    );
  const url = async (path) => {
    await page.fill('#url-input', `${lying.origin}/${path}`);
    await page.click('#url-form button[type="submit"]');
    await page.waitForFunction(() => document.body.dataset.state !== 'loading', null, { timeout: 120_000 });
    return outcome();
  };
  const cases = [
    ['URL: 206 bodies that never end (a 24 MB header)', () => url('endless/vocab-262k.gguf')],
    ['URL: a 206 body cut short', () => url('short/minimal.gguf')],
    ['URL: a server that never answers', () => url('silent/minimal.gguf')],
    [
      'Compare: a second file of 300,000 tensors',
      async () => {
        await page.click('[data-action="compare"]');
        await page.setInputFiles('#compare input[type="file"]', `${heavy}/tensors-300k.gguf`);
        await page.waitForSelector('#compare:is([data-state="ready"], [data-state="error"])', { timeout: 120_000 });
        const state = await page.getAttribute('#compare', 'data-state');
        return state === 'error' ? `error: ${await page.textContent('[data-field="compare-status"]')}` : state;
      },
      'minimal.gguf',
    ],
    [
      'Upstream: a 16 MiB chat template against a 30,000-line one',
      async () => {
        await drop(page, [`${scratch}/config.json`, `${scratch}/chat_template.jinja`]);
        await page.waitForSelector('#upstream:is([data-state="ready"], [data-state="error"])', { timeout: 120_000 });
        return page.getAttribute('#upstream', 'data-state');
      },
      'template-30k.gguf',
    ],
  ];
  try {
    for (const [what, run, open] of cases) {
      await page.goto(`${viewer.origin}/`);
      await waitFor(page, 'sample.gguf');
      if (open) {
        await pick(page, `${open === 'minimal.gguf' ? `${fixtures}synth/` : `${scratch}/`}${open}`);
        await waitFor(page, open);
        // The viewer's own panels drawn first (a 30,000-line template): what is measured is the case's.
        await page.waitForFunction(
          () =>
            !document.querySelector('#chat-templates .code-line') ||
            document.querySelectorAll('#chat-templates .code-line').length === 30_001,
          null,
          { timeout: 60_000 },
        );
      }
      const tasks = await watchLongTasks(page);
      const sent = lying.bytesSent();
      const started = performance.now();
      const { result, before, peak } = await browserMemory(run);
      const seconds = (performance.now() - started) / 1000;
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 300))));
      console.log(
        JSON.stringify({
          case: what,
          outcome: result,
          seconds: Number(seconds.toFixed(2)),
          longestTaskMs: await tasks.longest(),
          browserGrowthMB: Math.round((peak - before) / 1024),
          serverSentMiB: Number(((lying.bytesSent() - sent) / 2 ** 20).toFixed(1)),
        }),
      );
    }
  } finally {
    await viewer.close();
    await lying.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.length !== 3) {
    console.error('usage: node scripts/bench-hostile-page.mjs HEAVY_HEADERS_DIR');
    process.exit(2);
  }
  await main(process.argv[2]);
}
