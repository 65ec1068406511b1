#!/usr/bin/env node
// Token browser and template preview benchmark (a measurement, not a test): medians over several
// runs. Run after scripts/build-web.sh (and npm ci):
//   node scripts/bench-tokens.mjs [RUNS] [--write-docs]   (GGUF_GEMMA=path adds the real Gemma
//   model; --write-docs writes the tables into docs/performance.md, its block bench:tokens)
//
// - Search keystrokes, typed one character at a time into the page's token search in headless
//   Chromium: from the input event to the answer in the DOM (the request to the worker, the search
//   in wasm, the first rows back, the list rebuilt), and to the start of the next frame.
// - The same searches in wasm alone (the worker's part), under Node.
// - Scrolling the token list through the whole vocabulary, a step per frame: the longest gap
//   between frames and the long tasks (over 50 ms) on the page's thread.
// - The template preview: the first render (its worker started, its wasm fetched and compiled)
//   and the next ones; and the size of both wasm modules.

import { openAsBlob, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

import { fixtures, pick, repo, startViewer, waitFor } from '../www/e2e/browser.mjs';
import { markdownTable, writeBlock } from './docs-blocks.mjs';
import { readModel } from '../web/model-reader.js';
import { initSync } from '../web/pkg/gguf_wasm.js';

const writeDocs = process.argv.includes('--write-docs');
const runs = Number(process.argv.slice(2).filter((a) => a !== '--write-docs')[0] ?? 7);
const files = [
  `${fixtures}synth/vocab-262k.gguf`,
  `${fixtures}real/ggml-vocab-command-r.gguf`,
  `${fixtures}real/ggml-vocab-qwen2.gguf`,
  process.env.GGUF_GEMMA,
].filter(Boolean);
/** Words typed a character at a time: common text, a leading space, SentencePiece's ▁, multi-byte text, a newline, a miss. */
const WORDS = ['hello', ' The', '▁für', '日本', '\\n', 'qzx'];
const keystrokes = WORDS.flatMap((word) => [...word].map((_, i) => word.slice(0, i + 1)));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${x.toFixed(1)} ms`;
const kb = (n) => `${(n / 1000).toFixed(1)} KB`;

/** In the page: types `query` into the token search; resolves [to the answer shown, to the next frame]. */
function typeInPage(page, query) {
  return page.evaluate(async (q) => {
    const input = document.querySelector('#tokenizer .token-search');
    const list = document.querySelector('#tokenizer .vlist');
    const shown = new Promise((resolve) => {
      const observer = new MutationObserver(() => {
        if (list.dataset.query !== q) return;
        observer.disconnect();
        resolve(performance.now());
      });
      observer.observe(list, { attributes: true, attributeFilter: ['data-query'] });
    });
    const start = performance.now();
    input.value = q;
    input.dispatchEvent(new Event('input'));
    const answered = await shown;
    const frame = await new Promise(requestAnimationFrame);
    return [answered - start, frame - start];
  }, query);
}

const viewer = await startViewer();
const page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
await page.goto(`${viewer.origin}/`);
await waitFor(page, 'sample.gguf');

const searchRows = [];
const scrollRows = [];
for (const path of files) {
  const name = path.split('/').pop();
  await pick(page, path);
  await waitFor(page, name);
  await page.locator('#tokenizer .vlist-row[data-id="0"]').waitFor();
  const answered = [];
  const framed = [];
  for (let run = 0; run < runs + 1; run++) {
    for (const q of keystrokes) {
      const [a, f] = await typeInPage(page, q);
      if (run > 0) (answered.push(a), framed.push(f)); // the first run warms up
    }
    await typeInPage(page, '');
  }
  searchRows.push({
    file: name,
    keystrokes: answered.length,
    'to the answer (median)': ms(median(answered)),
    'to the next frame (median)': ms(median(framed)),
    'slowest answer': ms(Math.max(...answered)),
    'answers within 16 ms': `${answered.filter((x) => x <= 16).length}/${answered.length}`,
  });

  // A step of 1,500 rows per frame through the whole list.
  const scroll = await page.evaluate(async () => {
    const box = document.querySelector('#tokenizer .vlist');
    const longTasks = [];
    const observer = new PerformanceObserver((list) => longTasks.push(...list.getEntries().map((e) => e.duration)));
    observer.observe({ type: 'longtask' });
    const gaps = [];
    let last = await new Promise(requestAnimationFrame);
    for (let top = 0; top < box.scrollHeight; top += 1500 * 26) {
      box.scrollTop = top;
      const now = await new Promise(requestAnimationFrame);
      gaps.push(now - last);
      last = now;
    }
    observer.disconnect();
    return { frames: gaps.length, maxGap: Math.max(...gaps), longTasks };
  });
  scrollRows.push({
    file: name,
    frames: scroll.frames,
    'longest frame gap': ms(scroll.maxGap),
    'long tasks (> 50 ms)': scroll.longTasks.length,
  });
  process.stderr.write(`  ${name}: done\n`);
}

// The template preview, on command-r's default template.
await pick(page, `${fixtures}real/ggml-vocab-command-r.gguf`);
await waitFor(page, 'ggml-vocab-command-r.gguf');
await page.locator('#chat-templates button.render').waitFor();
const renders = [];
for (let i = 0; i < runs + 1; i++) {
  renders.push(
    await page.evaluate(async () => {
      const status = document.querySelector('#chat-templates .preview-status');
      const before = status.textContent;
      const start = performance.now();
      document.querySelector('#chat-templates button.render').click();
      while (status.textContent === before || status.textContent === 'Rendering…')
        await new Promise(requestAnimationFrame);
      return performance.now() - start;
    }),
  );
}
await viewer.close();

// The worker's part alone: the search in wasm and the first rows as JS objects.
initSync({ module: readFileSync(`${repo}web/pkg/gguf_wasm_bg.wasm`) });
const wasmRows = [];
for (const path of files) {
  const { model } = await readModel([{ name: path, blob: await openAsBlob(path) }]);
  const times = [];
  for (let run = 0; run < runs + 1; run++) {
    for (const q of keystrokes) {
      const start = performance.now();
      model.tokens(q, false, 0, 60);
      if (run > 0) times.push(performance.now() - start);
    }
  }
  wasmRows.push({
    file: path.split('/').pop(),
    searches: times.length,
    median: ms(median(times)),
    slowest: ms(Math.max(...times)),
  });
  model.free();
}

const size = (file) => {
  const bytes = readFileSync(`${repo}${file}`);
  return `${kb(bytes.length)} raw, ${kb(gzipSync(bytes, { level: 9 }).length)} gzipped`;
};

const text =
  [
    `Measured ${new Date().toISOString().slice(0, 10)}, headless Chromium, ${runs} runs after a warm-up: each keystroke of ${WORDS.map((w) => `\`${JSON.stringify(w)}\``).join(', ')} typed a character at a time.`,
    markdownTable(searchRows),
    'The same searches in wasm alone (GgufModel.tokens(query, false, 0, 60) under Node: case-insensitive: search + first 60 rows):',
    markdownTable(wasmRows),
    'Scrolling the token list from top to bottom, 1,500 rows per frame:',
    markdownTable(scrollRows),
    `Template preview (command-r's default template): first render ${ms(renders[0])} (worker started, wasm fetched and compiled), then median ${ms(median(renders.slice(1)))}.`,
  ].join('\n\n') + '\n';
console.log(text);
console.log(
  `Main wasm (web/pkg): ${size('web/pkg/gguf_wasm_bg.wasm')}. Template wasm (web/pkg-template): ${size('web/pkg-template/gguf_template_wasm_bg.wasm')}.`,
);
if (writeDocs) writeBlock('docs/performance.md', 'bench:tokens', text);
