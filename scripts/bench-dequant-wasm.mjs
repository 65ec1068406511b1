#!/usr/bin/env node
// Dequantizer benchmark in WebAssembly (a measurement, not a test): the two builds of
// the values module — web/pkg-values-simd (wasm SIMD) and web/pkg-values (the fallback) — decode
// 64 MiB of random Q4_K, Q6_K, Q5_0 and Q8_0 blocks, 64 KiB at a time as a peek feeds them, in
// Node; medians over RUNS passes, in GiB/s of blocks per second of the process's CPU time (so that
// other work on a shared machine does not count), as `cargo bench -p gguf-values --bench dequant`
// times the native decoders. Run after scripts/build-web.sh:
//   node scripts/bench-dequant-wasm.mjs [RUNS] [--write-docs]
// (--write-docs: the table also into docs/performance.md, its generated block bench:dequant-wasm).

import { readFileSync } from 'node:fs';
import { cpuUsage } from 'node:process';

import * as simd from '../web/pkg-values-simd/gguf_values_wasm.js';
import * as scalar from '../web/pkg-values/gguf_values_wasm.js';
import { writeBlock } from './docs-blocks.mjs';

const writeDocs = process.argv.includes('--write-docs');
const runs = Number(process.argv.slice(2).filter((a) => a !== '--write-docs')[0] ?? 7);
const LEN = 64 << 20;
const PIECE = 64 << 10;

const wasm = (dir) => readFileSync(new URL(`../web/${dir}/gguf_values_wasm_bg.wasm`, import.meta.url));
simd.initSync({ module: wasm('pkg-values-simd') });
scalar.initSync({ module: wasm('pkg-values') });

/** Types: id, bytes per block, where the fp16 scales are (set as the native benchmark sets them). */
const TYPES = [
  { name: 'Q4_K', id: 12, size: 144, scales: [0, 2] },
  { name: 'Q6_K', id: 14, size: 210, scales: [208] },
  { name: 'Q5_0', id: 6, size: 22, scales: [0] },
  { name: 'Q8_0', id: 8, size: 34, scales: [0] },
];

/** LEN bytes (whole blocks) of pseudo-random quants, every fp16 scale 2^-8 (0x1c00): no NaN. */
function blocks({ size, scales }) {
  const bytes = new Uint8Array(Math.floor(LEN / size) * size);
  const words = new Uint32Array(bytes.buffer, 0, bytes.length >> 2);
  let x = 0x2545f491;
  for (let i = 0; i < words.length; i += 1) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x;
  }
  for (let at = 0; at < bytes.length; at += size) {
    for (const s of scales) {
      bytes[at + s] = 0x00;
      bytes[at + s + 1] = 0x1c;
    }
  }
  return bytes;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** GiB of blocks per CPU second for one pass of `module` over `bytes`, in 64 KiB pieces. */
function pass(module, type, bytes) {
  const d = new module.Dequantizer(type.id, false);
  const piece = Math.floor(PIECE / type.size) * type.size;
  const start = cpuUsage();
  for (let at = 0; at < bytes.length; at += piece) d.decode(bytes.subarray(at, at + piece));
  const { user, system } = cpuUsage(start);
  d.free();
  return bytes.length / 2 ** 30 / ((user + system) / 1e6);
}

const lines = [
  `Measured ${new Date().toISOString().slice(0, 10)} with Node ${process.versions.node}: 64 MiB of random blocks decoded 64 KiB at a time, median of ${runs} passes (GiB/s of blocks, CPU time).`,
  '',
  '| type | wasm SIMD | wasm fallback | SIMD / fallback |',
  '|---|---:|---:|---:|',
];
for (const type of TYPES) {
  const bytes = blocks(type);
  const figure = (module) => {
    pass(module, type, bytes); // warm-up: compilation tiers, the module's memory grown
    return median(Array.from({ length: runs }, () => pass(module, type, bytes)));
  };
  const [fast, slow] = [figure(simd), figure(scalar)];
  lines.push(`| ${type.name} | ${fast.toFixed(2)} | ${slow.toFixed(2)} | ${(fast / slow).toFixed(2)}× |`);
}
console.log(lines.join('\n'));
if (writeDocs) writeBlock('docs/performance.md', 'bench:dequant-wasm', `${lines.join('\n')}\n`);
