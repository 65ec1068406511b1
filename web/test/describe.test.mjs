// What a file is and can do under Node: `open()`'s report carries the description — `kind`,
// `capabilities`, `adapter`, `imatrix`, `mmproj`, `control_vector` — computed by the core in the
// memory module (the viewer's module goes without), field for field as `ggufscope info --json`
// gives it, on every kind the builder writes and on real files; the client's `describe()` is the
// same document.
// Run: node --test web/test/describe.test.mjs (after scripts/build-web.sh).

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { openAsBlob } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { open } from '../gguf.js';
import { GgufClient } from '../gguf-client.js';
import { builtFixture, ggufscopeBin } from './paths.mjs';

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const FIELDS = ['kind', 'capabilities', 'adapter', 'imatrix', 'mmproj', 'control_vector'];

/** The description's fields of `report`, numbers as JSON has them. */
function description(report) {
  return JSON.parse(
    JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, report[f]])), (_, v) =>
      typeof v === 'bigint' ? Number(v) : v,
    ),
  );
}

const files = () => [
  ...['imatrix', 'lora', 'mmproj-vision', 'mmproj-vision-audio', 'control-vector'].map((n) =>
    builtFixture(`kinds/${n}.gguf`),
  ),
  `${fixtures}real/ggml-vocab-command-r.gguf`,
  `${fixtures}real/ggml-vocab-bert-bge.gguf`,
  `${fixtures}real/ggml-vocab-stablelm.gguf`,
];

test("open()'s description is info --json's, on every kind and on real files", async () => {
  for (const path of files()) {
    const cli = JSON.parse(execFileSync(ggufscopeBin(), ['info', '--json', path], { maxBuffer: 1 << 28 }).toString());
    const report = await open(await openAsBlob(path));
    assert.deepEqual(description(report), description(cli), path);
  }
});

test("the client's describe() is the description; the viewer's report has only its kind", async () => {
  const client = new GgufClient();
  after(() => client.close());
  const { report } = await client.open(await openAsBlob(builtFixture('kinds/lora.gguf')));
  assert.equal(report.kind, 'adapter');
  for (const field of FIELDS.slice(1)) assert.ok(!(field in report), field);
  const d = await client.describe();
  assert.deepEqual(Object.keys(d), FIELDS);
  assert.equal(d.adapter.rank, 8);
  assert.deepEqual(
    d.capabilities.map((c) => c.name),
    ['adapter'],
  );
});
