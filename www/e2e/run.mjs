#!/usr/bin/env node
// Runs the end-to-end suites (www/e2e/*.test.mjs, or the ones named) with one server of dist/ for
// all of them and a Chromium per lane: suites run a few at a time, since most of a suite's time is
// spent waiting on the page (GGUF_E2E_JOBS lanes, 2 by default), each in a Node process of its own
// (`node --test`) connected to its lane's Chromium (www/e2e/browser.mjs's launchBrowser), its
// pages in contexts of its own. Lanes do not share a Chromium because Playwright answers the
// dialogs of every page it sees, another suite's too. The longest suites start first (LONGEST),
// so that no lane is left running one alone at the end. Each suite's report is printed whole when
// it ends; at the end, each suite's time and every failed test with its suite's file.
// What scripts/test.sh runs:
//   node www/e2e/run.mjs                 every suite
//   node www/e2e/run.mjs a11y phone      the suites named (a11y.test.mjs, phone.test.mjs)
//   GGUF_E2E_JOBS=1 node www/e2e/run.mjs one suite at a time
// A suite also runs alone, with a Chromium of its own: node --test www/e2e/a11y.test.mjs

import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename } from 'node:path';
import { chromium } from 'playwright-core';

import { CHROMIUM, CHROMIUM_ARGS, repo } from './browser.mjs';
import { serve } from '../../scripts/serve.mjs';

const dir = `${repo}www/e2e/`;
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.test.mjs'))
  .sort();
const asked = process.argv.slice(2).map((name) => (name.endsWith('.test.mjs') ? basename(name) : `${name}.test.mjs`));
const unknown = asked.filter((f) => !all.includes(f));
if (unknown.length) {
  console.error(`run.mjs: no suite ${unknown.join(', ')} in www/e2e/ (there are: ${all.join(', ')})`);
  process.exit(2);
}
const files = (asked.length ? asked : all).map((f) => dir + f);

/** A free port on 127.0.0.1 for Chromium's debugging protocol. */
const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/**
 * The suites that take longest, longest first: they start before the others. hardening's
 * assertions on the page's longest task hold beside another suite (its bound is a frozen page's).
 */
const LONGEST = ['hardening.test.mjs', 'phone.test.mjs', 'bundlers.test.mjs', 'edit.test.mjs', 'compare.test.mjs'];
const jobs = Number(process.env.GGUF_E2E_JOBS ?? 2);
if (!(Number.isInteger(jobs) && jobs >= 1)) {
  console.error(`run.mjs: GGUF_E2E_JOBS must be a whole number of at least 1, not ${process.env.GGUF_E2E_JOBS}`);
  process.exit(2);
}

const server = await serve(`${repo}dist`);
const origin = `http://127.0.0.1:${server.address().port}`;

/** A Chromium for a lane, launched as a suite alone launches its own, with the debugging protocol on 127.0.0.1 besides. */
async function launchLane() {
  const port = await freePort();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, `--remote-debugging-address=127.0.0.1`, `--remote-debugging-port=${port}`],
  });
  return { browser, endpoint: `http://127.0.0.1:${port}` };
}
const lanes = await Promise.all(Array.from({ length: Math.min(jobs, files.length) || 1 }, launchLane));

const started = performance.now();
/** Each suite's time in seconds, by file. */
const times = new Map();
const failures = [];

/**
 * Runs the suite in `file` on `lane` and prints its report when it ends; its failed tests go into
 * `failures` (the names spec's "failing tests" list gives at its left margin), or the file's name
 * when it failed as a whole.
 */
async function runSuite(file, lane) {
  const begun = performance.now();
  const child = spawn(process.execPath, ['--test', '--test-reporter=spec', file], {
    cwd: repo,
    env: { ...process.env, GGUF_E2E_CHROMIUM: lane.endpoint, GGUF_E2E_ORIGIN: origin },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let report = '';
  child.stdout.on('data', (text) => (report += text));
  child.stderr.on('data', (text) => (report += text));
  const code = await new Promise((resolve) => child.once('close', resolve));
  times.set(file, (performance.now() - begun) / 1000);
  process.stdout.write(`\n── ${basename(file)}\n${report}`);
  if (code === 0) return;
  process.exitCode = 1;
  const listed = report.split('✖ failing tests:')[1] ?? '';
  const names = [...listed.matchAll(/^✖ (.*) \([\d.]+ms\)$/gm)].map((m) => m[1]).filter((name) => name !== file);
  failures.push(...(names.length ? names.map((name) => `${basename(file)} › ${name}`) : [basename(file)]));
}

/** Runs `suites` on `lanes`, one suite at a time on each. */
async function runAll(suites, lanes) {
  const queue = [...suites];
  await Promise.all(
    lanes.map(async (lane) => {
      while (queue.length) await runSuite(queue.shift(), lane);
    }),
  );
}

const rank = (file) => {
  const i = LONGEST.indexOf(basename(file));
  return i < 0 ? LONGEST.length : i;
};
await runAll(
  [...files].sort((a, b) => rank(a) - rank(b)),
  lanes,
);

for (const { browser } of lanes) await browser.close();
await new Promise((resolve) => server.close(resolve));

console.log(`\nSuite times (${lanes.length} at a time):`);
for (const file of files) console.log(`  ${(times.get(file) ?? 0).toFixed(1).padStart(6)} s  ${basename(file)}`);
console.log(`  ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  total`);
if (failures.length) {
  console.log(`\nFailed (${failures.length}):`);
  for (const f of failures) console.log(`  ${f}`);
}
