// The worker's warm-up (web/warm-up.js): the made-up header decodes, with its summary and report,
// and leaves the module as it found it — a real header decodes after it to the same report as
// before it. Run: node --test web/test/warm-up.test.mjs (after scripts/build-web.sh).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openAsBlob } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { loadModule } from '../failures.js';
import { warmUp } from '../warm-up.js';
import { readModel } from '../model-reader.js';

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));

/** The report of command-r's vocabulary file, read as the worker reads a local file. */
async function report() {
  const blob = await openAsBlob(`${fixtures}real/ggml-vocab-command-r.gguf`);
  const { model } = await readModel([{ name: 'ggml-vocab-command-r.gguf', blob }]);
  try {
    return model.report();
  } finally {
    model.free();
  }
}

test('the warm-up decodes its made-up header, and a real header decodes to the same report after it as before', async () => {
  await loadModule('viewer');
  const before = await report();
  await warmUp();
  await warmUp(); // again: it frees what it made
  assert.deepEqual(await report(), before);
  assert.equal(before.architecture, 'command-r');
});
