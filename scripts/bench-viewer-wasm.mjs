#!/usr/bin/env node
// Header decode benchmark of the viewer's wasm module (a measurement, not a test): builds of
// gguf-wasm decode the 262k-vocabulary fixtures and Gemma in Node, each header fed to a
// `GgufSession` from memory in the reads the core's read rule asks for (the file's reads are
// done once, before any timing), as the worker feeds it; every build in every run, in turn, so
// that a shared machine's load falls on all alike. Prints each build's size gzipped (zlib level
// 9, as web/test/read-loop.test.mjs measures the budget) and, per file, the median over RUNS of
// the decode's CPU time (user + system of the process: other work on the machine does not
// count) and its ratio to the first build's. Run after scripts/build-web.sh:
//   node scripts/bench-viewer-wasm.mjs [RUNS] [LABEL=PKG_DIR ...] [--write-docs]
// (--write-docs: the table also into docs/performance.md, its generated block bench:viewer-wasm).
// With no build given, the one in web/pkg. Gemma is read from $GGUF_GEMMA (else
// ~/.cache/gguf-fixtures/gemma-3-270m-q4_k_m.gguf) and skipped if missing.

import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { cpuUsage } from 'node:process';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

import { writeBlock } from './docs-blocks.mjs';

const writeDocs = process.argv.includes('--write-docs');
const [runsArg, ...buildArgs] = process.argv.slice(2).filter((a) => a !== '--write-docs');
const runs = Number(runsArg ?? 7);
const repo = new URL('..', import.meta.url).pathname;
const fixtures = resolve(repo, '../shared/fixtures');
const gemma = process.env.GGUF_GEMMA ?? `${homedir()}/.cache/gguf-fixtures/gemma-3-270m-q4_k_m.gguf`;
const FILES = [
  ['vocab-262k.gguf', `${fixtures}/synth/vocab-262k.gguf`],
  ['command-r', `${fixtures}/real/ggml-vocab-command-r.gguf`],
  ['Gemma 3 270M', gemma],
].filter(([, path]) => existsSync(path));

/** The builds: `{ label, wasm bytes, module }`, each its own instance of its own glue. */
const builds = [];
for (const arg of buildArgs.length ? buildArgs : [`web/pkg=${repo}web/pkg`]) {
  const [label, dir] = arg.includes('=') ? arg.split('=') : [arg, arg];
  const wasm = readFileSync(resolve(dir, 'gguf_wasm_bg.wasm'));
  const module = await import(pathToFileURL(resolve(dir, 'gguf_wasm.js')));
  module.initSync({ module: wasm });
  builds.push({ label, wasm, module });
}

/** The reads the read rule asks for, done once from the file: the bytes each decode is fed. */
function headerReads(path) {
  const size = statSync(path).size;
  const session = new builds[0].module.GgufSession(size);
  const fd = openSync(path, 'r');
  const reads = [];
  try {
    for (let need = session.nextRead(); need; need = session.nextRead()) {
      const bytes = new Uint8Array(need.length);
      readSync(fd, bytes, 0, need.length, need.offset);
      session.feed(bytes);
      reads.push(bytes);
    }
  } finally {
    closeSync(fd);
    session.free();
  }
  return { size, reads };
}

/** CPU milliseconds of one decode of `file` by `build`. */
function decode({ module }, { size, reads }) {
  const start = cpuUsage();
  const session = new module.GgufSession(size);
  for (const bytes of reads) session.feed(bytes);
  const { user, system } = cpuUsage(start);
  session.free();
  return (user + system) / 1000;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const files = FILES.map(([name, path]) => ({ name, ...headerReads(path) }));
const times = builds.map(() => files.map(() => []));
for (let run = -1; run < runs; run += 1) {
  for (const [f, file] of files.entries()) {
    for (const [b, build] of builds.entries()) {
      const ms = decode(build, file);
      // Run -1 warms up: the module's memory grows to the header's size once.
      if (run >= 0) times[b][f].push(ms);
    }
  }
}

const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
const table = [
  `| build | raw | gzipped | ${files.map((f) => `${f.name} (${mb(f.reads.reduce((n, r) => n + r.length, 0))} read)`).join(' | ')} |`,
  `|---|---|---|${files.map(() => '---|').join('')}`,
];
for (const [b, build] of builds.entries()) {
  const cells = files.map((_, f) => {
    const ms = median(times[b][f]);
    const ratio = median(times[0][f]) / ms;
    return `${ms.toFixed(1)} ms${b ? ` (${ratio.toFixed(2)}×)` : ''}`;
  });
  const gz = gzipSync(build.wasm, { level: 9 }).length;
  table.push(
    `| ${build.label} | ${build.wasm.length.toLocaleString('en')} | ${gz.toLocaleString('en')} | ${cells.join(' | ')} |`,
  );
}
const caption = `Measured ${new Date().toISOString().slice(0, 10)} with Node ${process.versions.node}; CPU ms, medians of ${runs} (÷: the first build's time over this one's).`;
console.log(`${caption}\n\n${table.join('\n')}`);
if (writeDocs) writeBlock('docs/performance.md', 'bench:viewer-wasm', `${caption}\n\n${table.join('\n')}\n`);
