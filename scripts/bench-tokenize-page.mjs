#!/usr/bin/env node
// The tokenizer module (web/pkg-tokenizer) in headless Chromium, for scripts/bench-tokenize.py:
// the page's wait before its first tokenization, after the header is read — fetching and
// compiling the module (first use), decoding the header bytes the viewer read, building the
// tokenizer, and the first tokenization of a short text — for each FILE, RUNS times (a fresh
// module instance each run), each file in a browser of its own: its first run is a page's first
// (the module's code as the browser first compiles it), the others run the code the browser has
// optimized since. Wall-clock milliseconds (performance.now), and the CPU milliseconds of the
// page's main thread (CDP's ThreadTime: the browser's compilers run on other threads).
// The file's header bytes reach the page from this process (a routed URL on the page's own
// origin), read as the decoder asks for them, as the viewer's worker reads them.
// Prints JSON: `{FILE: {load_ms, decode_ms, build_ms, first_ms, decode_cpu_ms, build_cpu_ms,
// first_cpu_ms}}`, lists of RUNS.
// Usage: node scripts/bench-tokenize-page.mjs RUNS FILE...   (after scripts/build-web.sh)

import { closeSync, openSync, readSync, statSync } from 'node:fs';

import { servedAs, startViewer } from '../www/e2e/browser.mjs';

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

const results = {};
for (const file of files) {
  const viewer = await startViewer();
  try {
    // No service worker: the page's own would answer the routed URL before the route could.
    const page = await (await viewer.browser.newContext({ serviceWorkers: 'block' })).newPage();
    await page.goto(`${viewer.origin}/`);
    const size = statSync(file).size;
    // Headers end well before 64 MiB (the heaviest real one, a 262k vocabulary, is 24 MB).
    const head = prefix(file, Math.min(size, 64 << 20));
    await page.route(`${viewer.origin}/bench-head`, (route) =>
      route.fulfill({ body: head, contentType: 'application/octet-stream' }),
    );
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    /** The renderer main thread's CPU seconds so far (CDP's ThreadTime). */
    const cpu = async () =>
      (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime').value;
    /** `f(arg)` run in the page: its wall-clock and main-thread CPU milliseconds. */
    const timed = async (f, arg) => {
      const before = await cpu();
      const wall = await page.evaluate(f, arg);
      return [wall, ((await cpu()) - before) * 1000];
    };
    await page.evaluate(async () => {
      window.benchBytes = new Uint8Array(await (await fetch('/bench-head')).arrayBuffer());
    });
    const out = {
      load_ms: [],
      decode_ms: [],
      build_ms: [],
      first_ms: [],
      decode_cpu_ms: [],
      build_cpu_ms: [],
      first_cpu_ms: [],
    };
    for (let i = 0; i < runs; i++) {
      // A new URL each run: a fresh module and instance, as a fresh worker has.
      // The site names its lazily loaded files by their content (scripts/version-lazy-files.mjs).
      const files = [
        servedAs('web/pkg-tokenizer/gguf_tokenizer_wasm.js'),
        servedAs('web/pkg-tokenizer/gguf_tokenizer_wasm_bg.wasm'),
      ];
      const [load] = await timed(
        async ([i, glue, wasm]) => {
          const t = performance.now();
          window.glue = await import(`${glue}?run=${i}`);
          await window.glue.default({ module_or_path: `${wasm}?run=${i}` });
          return performance.now() - t;
        },
        [i, ...files],
      );
      const [decode, decodeCpu] = await timed((size) => {
        const t = performance.now();
        const bytes = window.benchBytes;
        const session = new window.glue.GgufSession(size);
        for (let read = session.nextRead(); read; read = session.nextRead())
          session.feed(bytes.subarray(read.offset, Math.min(bytes.length, read.offset + read.length)));
        window.session = session;
        return performance.now() - t;
      }, size);
      const [build, buildCpu] = await timed(() => {
        const t = performance.now();
        window.tokenizer = new window.glue.GgufTokenizer(window.session, 'bench');
        return performance.now() - t;
      });
      const [first, firstCpu] = await timed(() => {
        const t = performance.now();
        window.tokenizer.tokenize('Hello world', true, true);
        const ms = performance.now() - t;
        window.tokenizer.free();
        return ms;
      });
      out.load_ms.push(load);
      out.decode_ms.push(decode);
      out.build_ms.push(build);
      out.first_ms.push(first);
      out.decode_cpu_ms.push(decodeCpu);
      out.build_cpu_ms.push(buildCpu);
      out.first_cpu_ms.push(firstCpu);
    }
    results[file] = out;
  } finally {
    await viewer.close();
  }
}
process.stdout.write(JSON.stringify(results));
