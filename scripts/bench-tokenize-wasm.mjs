#!/usr/bin/env node
// The tokenizer module (web/pkg-tokenizer) under Node, for scripts/bench-tokenize.py: CPU times
// (ms, this process's user + system) of decoding FILE's header, building its tokenizer (the
// first tokenization's wait in the page, after the header is read) and tokenizing TEXT, RUNS
// times each. Prints JSON: `{decode_ms, build_ms, tokenize_ms, count}`, lists of RUNS.
// Usage: node scripts/bench-tokenize-wasm.mjs FILE TEXT RUNS   (after scripts/build-web.sh)

import { readFileSync } from 'node:fs';

import { GgufSession, GgufTokenizer, initSync } from '../web/pkg-tokenizer/gguf_tokenizer_wasm.js';

const [file, textFile, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
initSync({ module: readFileSync(new URL('../web/pkg-tokenizer/gguf_tokenizer_wasm_bg.wasm', import.meta.url)) });
const bytes = readFileSync(file);
const text = readFileSync(textFile, 'utf8');

/** CPU milliseconds `f` takes, and what it returns. */
function cpu(f) {
  const before = process.cpuUsage();
  const value = f();
  const used = process.cpuUsage(before);
  return [(used.user + used.system) / 1000, value];
}

const out = { decode_ms: [], build_ms: [], tokenize_ms: [], count: 0 };
let tokenizer;
for (let i = 0; i < runs; i++) {
  tokenizer?.free();
  const [decodeMs, session] = cpu(() => {
    const s = new GgufSession(bytes.length);
    for (let read = s.nextRead(); read; read = s.nextRead())
      s.feed(bytes.subarray(read.offset, Math.min(bytes.length, read.offset + read.length)));
    return s;
  });
  const [buildMs, built] = cpu(() => new GgufTokenizer(session, file));
  tokenizer = built;
  out.decode_ms.push(decodeMs);
  out.build_ms.push(buildMs);
}
if (text.length > 0)
  for (let i = 0; i < runs; i++) {
    const [ms, tokens] = cpu(() => tokenizer.tokenize(text, true, false));
    out.tokenize_ms.push(ms);
    out.count = Number(tokens.count);
  }
process.stdout.write(JSON.stringify(out));
