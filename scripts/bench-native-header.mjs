// Native header parse against the peer and against reading the bytes: `ggufscope info --json`
// (whole process: start-up, read, decode, validate, JSON to /dev/null), @huggingface/gguf
// (in-process, its parse only, which favours it) and `head -c HEADER FILE` (reading the
// header's bytes, the floor), interleaved run by run so that a shared machine's load hits all
// three alike. Prints medians, ratios and ggufscope's peak memory (`/usr/bin/time -f %M`, max of
// 3 runs) against the budget of 1.3 × the header + 8 MiB. A benchmark, not a test.
//
//   node scripts/bench-native-header.mjs [RUNS] [--write-docs]   (after `cargo build --release -p gguf-cli`
//   and `npm ci`; --write-docs: the table also into docs/performance.md, its block bench:native-header)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gguf } from '@huggingface/gguf';

import { markdownTable, writeBlock } from './docs-blocks.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = process.env.GGUF_FIXTURES ?? join(root, '../shared/fixtures');
const cli = process.env.GGUFSCOPE ?? join(root, 'target/release/ggufscope');
const args = process.argv.slice(2);
const writeDocs = args.includes('--write-docs');
const runs = Number(args.filter((a) => !a.startsWith('--'))[0] ?? 9);
const files = [
  join(fixtures, 'synth/vocab-262k.gguf'),
  join(fixtures, 'real/ggml-vocab-command-r.gguf'),
  process.env.GGUF_GEMMA ?? join(homedir(), '.cache/gguf-fixtures/gemma-3-270m-q4_k_m.gguf'),
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quiet = { stdio: ['ignore', 'ignore', 'inherit'] };

function timed(command, args) {
  const t0 = performance.now();
  const r = spawnSync(command, args, quiet);
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed`);
  return performance.now() - t0;
}

async function timeHf(path) {
  const t0 = performance.now();
  const { tensorInfos } = await gguf(path, { allowLocalFile: true, computeParametersCount: true });
  if (!tensorInfos) throw new Error('no result');
  return performance.now() - t0;
}

function peakKiB(path) {
  let peak = 0;
  for (let i = 0; i < 3; i++) {
    const r = spawnSync('/usr/bin/time', ['-f', '%M', cli, 'info', '--json', path], {
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    peak = Math.max(peak, Number(r.stderr.trim().split('\n').pop()));
  }
  return peak;
}

if (!existsSync(cli)) throw new Error(`build first: cargo build --release -p gguf-cli (${cli} missing)`);
const when = `${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0].model.trim()}`;
console.log(`${when}; ${runs} runs per file, medians in ms`);
const rows = [];
console.log(
  [
    'file',
    'header MB',
    'ggufscope',
    '@huggingface/gguf',
    'head -c',
    'peer ÷ ggufscope',
    'ggufscope ÷ head',
    'peak MiB',
    'budget MiB',
  ].join('\t'),
);
for (const path of files) {
  if (!existsSync(path)) {
    console.log(`${path}\t(missing, skipped)`);
    continue;
  }
  const report = JSON.parse(spawnSync(cli, ['info', '--json', path], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout);
  const header = report.header_size;
  const [ours, theirs, head] = [[], [], []];
  for (let i = 0; i < runs; i++) {
    ours.push(timed(cli, ['info', '--json', path]));
    theirs.push(await timeHf(path));
    head.push(timed('head', ['-c', String(header), path]));
  }
  const [a, b, c] = [median(ours), median(theirs), median(head)];
  const peak = peakKiB(path) / 1024;
  const budget = (1.3 * header) / 2 ** 20 + 8;
  console.log(
    [
      path.split('/').pop(),
      (header / 1e6).toFixed(1),
      a.toFixed(1),
      b.toFixed(1),
      c.toFixed(1),
      `${(b / a).toFixed(0)}×`,
      `${(a / c).toFixed(1)}×`,
      peak.toFixed(1),
      budget.toFixed(1),
    ].join('\t'),
  );
  rows.push({
    file: `\`${path.split('/').pop()}\``,
    header: `${(header / 1e6).toFixed(1)} MB`,
    ggufscope: a.toFixed(1),
    '@huggingface/gguf': Math.round(b).toLocaleString('en'),
    '`head -c` header': c.toFixed(1),
    'peer ÷ ggufscope': `${(b / a).toFixed(0)}×`,
    'ggufscope ÷ `head`': `${(a / c).toFixed(1)}×`,
    'peak memory': `${peak.toFixed(1)} MiB`,
    budget: `${budget.toFixed(1)} MiB`,
  });
}
if (writeDocs && rows.length) {
  writeBlock(
    'docs/performance.md',
    'bench:native-header',
    `Measured ${when}; medians of ${runs}, in ms.\n\n${markdownTable(rows)}`,
  );
}
