// `tokenize(file, text)` and `detokenize(file, ids)` (web/tokenize.js, the tokenizer module in a
// worker) and the viewer's `GgufClient.tokenize` (the open model's tokenizer, built once) under
// Node: every case of llama-tokenize's reference (crates/gguf-tokenizer/tests/reference, written
// by scripts/reference/tokenize-refs.py: llama.cpp's vocabulary files, the fixtures', Gemma and
// write-fixtures' PLaMo-2 vocabulary)
// gives llama.cpp's ids, in each mode; the package's documents are the CLI's `tokenize --json`
// ones byte for byte; a file llama.cpp would refuse, an id outside the vocabulary and a text that
// is not a string are refused, naming what.
// Run: node --test web/test/tokenize.test.mjs (after scripts/build-web.sh; GGUFSCOPE_BIN,
// GGUF_LLAMA_CPP as scripts/test.sh sets them).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { openAsBlob, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { GgufClient } from '../gguf-client.js';
import * as gguf from '../gguf.js';
import { GEMMA, builtFixture, ggufscopeBin, missing, noGemma } from './paths.mjs';

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const reference = JSON.parse(
  readFileSync(new URL('../../crates/gguf-tokenizer/tests/reference/llama-tokenize.json', import.meta.url), 'utf8'),
);
const llamaCpp = process.env.GGUF_LLAMA_CPP;
const noLlamaCpp = () =>
  missing("llama.cpp 0c1e570's source tree", llamaCpp && join(llamaCpp, 'models'), 'GGUF_LLAMA_CPP');

/** The file a reference label names (as the Rust test reads them). */
function pathOf(label) {
  if (label.startsWith('llama.cpp/models/')) return join(llamaCpp, 'models', label.slice('llama.cpp/models/'.length));
  if (label.startsWith('fixtures/')) return join(fixtures, label.slice('fixtures/'.length));
  if (label.startsWith('builder/')) return builtFixture(label.slice('builder/'.length));
  assert.equal(label, 'gemma');
  return GEMMA;
}

const SPM = `${fixtures}real/ggml-vocab-llama-spm.gguf`;
const BPE = `${fixtures}real/ggml-vocab-qwen2.gguf`;
const WPM = `${fixtures}real/ggml-vocab-bert-bge.gguf`;

/** `ggufscope tokenize --json FILE ARGS…`'s document. */
function cli(file, ...args) {
  return JSON.parse(execFileSync(ggufscopeBin(), ['tokenize', '--json', file, ...args], { encoding: 'utf8' }));
}

test(
  "the viewer's tokenizer gives llama-tokenize's ids for every reference case, in each mode",
  { skip: noLlamaCpp() || noGemma() },
  async () => {
    const viewer = new GgufClient();
    let checked = 0;
    try {
      // Files whose cases are another's are written once (`same_as`).
      const files = Object.entries(reference.files).concat(
        Object.entries(reference.same_as).map(([label, like]) => [label, reference.files[like]]),
      );
      for (const [label, cases] of files) {
        await viewer.open(await openAsBlob(pathOf(label)));
        for (const { case: name, mode, ids } of cases) {
          // llama.cpp's GGUF reader refuses the fixtures' dbrx and stablelm files before any
          // tokenizer is built: nothing to compare (the Rust test says the same).
          if (ids === undefined) continue;
          const text = reference.texts[name];
          const got = await viewer.tokenize(text, {
            parseSpecial: mode !== 'no_parse_special',
            addSpecial: mode !== 'no_bos',
          });
          assert.deepEqual(got.ids, ids, `${label} ${name} ${mode}`);
          assert.equal(got.count, ids.length);
          assert.equal(got.pieces.length, ids.length);
          assert.equal(got.shown.length, ids.length);
          checked++;
        }
      }
    } finally {
      viewer.close();
    }
    assert.ok(checked > 2700, `${checked} cases`);
  },
);

test("tokenize() and detokenize() give the CLI's documents", async () => {
  const text = 'Hello <s> world\n\tcafé 🏳️‍🌈 <|im_start|>user 12345';
  for (const file of [SPM, BPE, WPM]) {
    const blob = await openAsBlob(file);
    assert.deepEqual(await gguf.tokenize(blob, text), cli(file, text), file);
    assert.deepEqual(
      await gguf.tokenize(blob, text, { parseSpecial: false, addSpecial: false }),
      cli(file, text, '--no-parse-special', '--no-add-special'),
      file,
    );
    const { ids } = await gguf.tokenize(blob, text);
    assert.deepEqual(await gguf.detokenize(blob, ids), cli(file, '--ids', ids.join(',')), file);
  }
});

test('tokenize() takes the model a viewer has open, reading no header again', async () => {
  const viewer = new GgufClient();
  try {
    await viewer.open(await openAsBlob(SPM));
    const opened = await viewer.opened();
    assert.deepEqual(await gguf.tokenize(opened, ' hi'), cli(SPM, ' hi'));
    const { shown, ...doc } = await viewer.tokenize('a\nb');
    assert.deepEqual(doc, cli(SPM, 'a\nb'));
    assert.ok(shown.includes('\\n'), `a newline is shown \\n: ${JSON.stringify(shown)}`);
  } finally {
    viewer.close();
  }
});

test('a file without a tokenizer, an id outside the vocabulary and a text that is no string are refused', async () => {
  const plain = await openAsBlob(`${fixtures}synth/all-types.gguf`);
  await assert.rejects(gguf.tokenize(plain, 'hi'), (e) => e instanceof Error && /no tokenizer/.test(e.message));
  const spm = await openAsBlob(SPM);
  await assert.rejects(gguf.detokenize(spm, [1, 32000]), (e) => e instanceof Error && /no token 32000/.test(e.message));
  assert.throws(() => gguf.detokenize(spm, [1.5]), TypeError);
  assert.throws(() => gguf.tokenize(spm, /** @type {any} */ (42)), TypeError);
  await assert.rejects(
    gguf.tokenize(await openAsBlob(`${fixtures}synth/truncated-in-kv.gguf`), 'hi'),
    (e) => e.code === 'truncated',
  );
  GgufClient.shared().close();
});
