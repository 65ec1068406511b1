// The reads `ggufscope info FILE` makes, as `[start, end]` pairs: what the page's reads are
// compared with (both follow the core's read rule). Runs the binary scripts/test.sh built
// (GGUFSCOPE_BIN, paths.mjs).

import { spawnSync } from 'node:child_process';

import { ggufscopeBin } from './paths.mjs';

/** Runs the CLI on `file` with GGUFSCOPE_LOG_READS=1 and returns its reads. */
export function cliReads(file) {
  const cli = spawnSync(ggufscopeBin(), ['info', file], {
    env: { ...process.env, GGUFSCOPE_LOG_READS: '1' },
    encoding: 'utf8',
  });
  const reads = cli.stderr
    .split('\n')
    .filter((line) => line.startsWith('read '))
    .map((line) => line.split(' ').slice(1).map(Number))
    .map(([offset, len]) => [offset, offset + len]);
  if (reads.length === 0) throw new Error(`ggufscope logged no reads of ${file}: ${cli.stderr}`);
  return reads;
}
