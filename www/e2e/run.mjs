#!/usr/bin/env node
// Runs the end-to-end suites (www/e2e/*.test.mjs, or the ones named) with one Chromium and one
// server of dist/ for all of them: each suite still runs in a Node process of its own, one after
// another, and connects to the runner's Chromium (www/e2e/browser.mjs's launchBrowser), its pages
// in contexts of its own. At the end it prints each suite's time and every failed test with its
// suite's file. What scripts/test.sh runs:
//   node www/e2e/run.mjs                 every suite
//   node www/e2e/run.mjs a11y phone      the suites named (a11y.test.mjs, phone.test.mjs)
// A suite also runs alone, with a Chromium of its own: node --test www/e2e/a11y.test.mjs

import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
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

const server = await serve(`${repo}dist`);
const port = await freePort();
// Launched as every suite launched its own, with the debugging protocol on 127.0.0.1 besides.
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [...CHROMIUM_ARGS, `--remote-debugging-address=127.0.0.1`, `--remote-debugging-port=${port}`],
});
// The suites' processes inherit these (node:test's run passes the environment on).
process.env.GGUF_E2E_CHROMIUM = `http://127.0.0.1:${port}`;
process.env.GGUF_E2E_ORIGIN = `http://127.0.0.1:${server.address().port}`;

const started = performance.now();
/** When each suite's last event came: suites run one after another, so the gaps are their times. */
const lastEvent = new Map();
const failures = [];
const stream = run({ files, concurrency: 1 });
for (const type of ['test:start', 'test:pass', 'test:fail', 'test:diagnostic', 'test:stdout', 'test:stderr'])
  stream.on(type, (data) => data.file && lastEvent.set(data.file, performance.now()));
stream.on('test:fail', (data) => {
  process.exitCode = 1;
  // A suite that failed as a whole (it would not load, a hook threw) is named by its file.
  failures.push(data.file && data.name !== data.file ? `${basename(data.file)} › ${data.name}` : data.name);
});
stream.compose(spec).pipe(process.stdout);
await new Promise((resolve) => stream.once('end', resolve).once('close', resolve));

await browser.close();
await new Promise((resolve) => server.close(resolve));

let previous = started;
console.log('\nSuite times:');
for (const file of files) {
  const end = lastEvent.get(file) ?? previous;
  const seconds = (end - previous) / 1000;
  console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${basename(file)}`);
  previous = Math.max(previous, end);
}
console.log(`  ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  total`);
if (failures.length) {
  console.log(`\nFailed (${failures.length}):`);
  for (const f of failures) console.log(`  ${f}`);
}
