#!/usr/bin/env node
// The tokenizer module (web/pkg-tokenizer) in headless Chromium, for scripts/bench-tokenize.py:
// the page's wait before its first tokenization, after the header is read — fetching and
// compiling the module (first use), decoding the header bytes the viewer read, building the
// tokenizer, and the first tokenization of a short text — for each FILE, RUNS times (a fresh
// module instance each run). Wall-clock milliseconds (performance.now: a page has no CPU clock).
// The file's header bytes reach the page from this process (a routed URL on the page's own
// origin), read as the decoder asks for them, as the viewer's worker reads them.
// Prints JSON: `{FILE: {load_ms, decode_ms, build_ms, first_ms}}`, lists of RUNS.
// Usage: node scripts/bench-tokenize-page.mjs RUNS FILE...   (after scripts/build-web.sh)

import { closeSync, openSync, readSync, statSync } from 'node:fs';

import { startViewer } from '../www/e2e/browser.mjs';

const [runsArg, ...files] = process.argv.slice(2);
const runs = Number(runsArg);
if (!(runs > 0) || files.length === 0) {
  console.error('usage: node scripts/bench-tokenize-page.mjs RUNS FILE...');
  process.exit(2);
}

/** The first `n` bytes of `path`. */
function prefix(path, n) {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const got = readSync(fd, buf, 0, n, 0);
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

const viewer = await startViewer();
const results = {};
try {
  // No service worker: the page's own would answer the routed URL before the route could.
  const page = await (await viewer.browser.newContext({ serviceWorkers: 'block' })).newPage();
  await page.goto(`${viewer.origin}/`);
  for (const file of files) {
    const size = statSync(file).size;
    // Headers end well before 64 MiB (the heaviest real one, a 262k vocabulary, is 24 MB).
    const head = prefix(file, Math.min(size, 64 << 20));
    await page.route(`${viewer.origin}/bench-head`, (route) =>
      route.fulfill({ body: head, contentType: 'application/octet-stream' }),
    );
    results[file] = await page.evaluate(
      async ({ size, runs }) => {
        const bytes = new Uint8Array(await (await fetch('/bench-head')).arrayBuffer());
        const out = { load_ms: [], decode_ms: [], build_ms: [], first_ms: [] };
        for (let i = 0; i < runs; i++) {
          // A new URL each run: a fresh module and instance, as a fresh worker has.
          let t = performance.now();
          const glue = await import(`/web/pkg-tokenizer/gguf_tokenizer_wasm.js?run=${i}`);
          await glue.default({ module_or_path: `/web/pkg-tokenizer/gguf_tokenizer_wasm_bg.wasm?run=${i}` });
          out.load_ms.push(performance.now() - t);
          t = performance.now();
          const session = new glue.GgufSession(size);
          for (let read = session.nextRead(); read; read = session.nextRead())
            session.feed(bytes.subarray(read.offset, Math.min(bytes.length, read.offset + read.length)));
          out.decode_ms.push(performance.now() - t);
          t = performance.now();
          const tokenizer = new glue.GgufTokenizer(session, 'bench');
          out.build_ms.push(performance.now() - t);
          t = performance.now();
          tokenizer.tokenize('Hello world', true, true);
          out.first_ms.push(performance.now() - t);
          tokenizer.free();
        }
        return out;
      },
      { size, runs },
    );
    await page.unroute(`${viewer.origin}/bench-head`);
  }
} finally {
  await viewer.close();
}
process.stdout.write(JSON.stringify(results));
