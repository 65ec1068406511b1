// Header-parsing speed: `ggufscope info --json` against @huggingface/gguf on the same files.
// Prints medians and the ratio. A benchmark script, not a test: machines are noisy.
//
//   node scripts/bench-vs-hf.mjs [RUNS]      (after `cargo build --release -p gguf-cli` and `npm ci`)
//
// ggufscope is timed as a whole process (start-up, read, parse, JSON output to /dev/null);
// @huggingface/gguf in-process (its parse only), which favours the peer.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gguf } from '@huggingface/gguf';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = process.env.GGUF_FIXTURES ?? join(root, '../shared/fixtures');
const cli = join(root, 'target/release/ggufscope');
const runs = Number(process.argv[2] ?? 7);
const files = [
  join(fixtures, 'synth/vocab-262k.gguf'),
  join(fixtures, 'real/ggml-vocab-command-r.gguf'),
  process.env.GGUF_GEMMA ?? join(homedir(), '.cache/gguf-fixtures/gemma-3-270m-q4_k_m.gguf'),
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timeHf(path) {
  const t0 = performance.now();
  const { tensorInfos } = await gguf(path, { allowLocalFile: true, computeParametersCount: true });
  if (!tensorInfos) throw new Error('no result');
  return performance.now() - t0;
}

function timeCli(path) {
  const t0 = performance.now();
  const r = spawnSync(cli, ['info', '--json', path], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`ggufscope failed on ${path}`);
  return performance.now() - t0;
}

if (!existsSync(cli)) throw new Error(`build first: cargo build --release -p gguf-cli (${cli} missing)`);
console.log(`runs per file: ${runs}; medians in ms`);
console.log(['file', 'size MB', 'ggufscope', '@huggingface/gguf', 'ratio'].join('\t'));
for (const path of files) {
  if (!existsSync(path)) {
    console.log(`${path}\t(missing, skipped)`);
    continue;
  }
  const ours = [];
  const theirs = [];
  for (let i = 0; i < runs; i++) {
    ours.push(timeCli(path));
    theirs.push(await timeHf(path));
  }
  const [a, b] = [median(ours), median(theirs)];
  const size = (statSync(path).size / 1e6).toFixed(1);
  console.log([path.split('/').pop(), size, a.toFixed(1), b.toFixed(1), `${(b / a).toFixed(1)}x`].join('\t'));
}
