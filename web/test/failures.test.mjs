// Answers and crashes in the parser worker (failures.js), with the real wasm package under Node:
// the module's memory stops at the cap it reports; a header that needs more traps, and the trap
// is told as out of memory, naming the cap; the file's and the server's errors and the module's
// refusals are answers; a trap with little memory in use, or a bug, is an internal error. Run:
// node --test web/test/ (after scripts/build-web.sh). This file has its own module instance: the
// trap leaves it unusable.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, openAsBlob, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

import { initSync, maxMemory } from '../pkg/gguf_wasm.js';
import { readHeader } from '../read-loop.js';
import { readModel } from '../model-reader.js';
import { HttpError } from '../http-blob.js';
import { describeCrash, isAnswer } from '../failures.js';
import { asParseError } from '../protocol.js';
import { linkBuiltFixture } from './paths.mjs';

const wasm = initSync({ module: readFileSync(new URL('../pkg/gguf_wasm_bg.wasm', import.meta.url)) });
const parser = { memory: wasm.memory, maxMemory: maxMemory() };
const repo = fileURLToPath(new URL('../../', import.meta.url));
const fixtures = `${repo}../shared/fixtures/`;
const PAGE = 64 * 1024;

let scratch;

before(() => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-failures-`);
  linkBuiltFixture('heavy-headers', scratch);
});

after(() => scratch && rmSync(scratch, { recursive: true, force: true }));

/** What reading `path`'s header (as the worker reads a model) throws. */
async function failureOf(path) {
  return readModel([{ name: 'x', blob: await openAsBlob(path) }]).then(
    ({ model }) => (model.free(), null),
    (e) => e,
  );
}

test("a file's error, the server's and the module's refusals are answers", async () => {
  const truncated = await failureOf(`${fixtures}synth/truncated-in-kv.gguf`);
  assert.deepEqual([truncated.code, truncated.offset, truncated.context.section], ['truncated', 296, 'kv']);
  assert.ok(isAnswer(truncated));
  const notFound = new HttpError('not-found', 'HTTP 404 Not Found: there is no file at …', 404);
  assert.ok(isAnswer(notFound));
  // An HttpError has the one error shape too, and crosses to the page as a ParseError with its code.
  assert.deepEqual([notFound.code, notFound.offset, notFound.context], ['not-found', null, null]);
  assert.deepEqual(asParseError(notFound), {
    code: 'not-found',
    message: notFound.message,
    offset: null,
    context: null,
  });
  const { model } = await readModel([{ name: 'x', blob: await openAsBlob(`${fixtures}synth/all-types.gguf`) }]);
  const refusal = (() => {
    try {
      return model.tensorPrefix(99, null);
    } catch (e) {
      return e;
    }
  })();
  model.free();
  assert.equal(refusal.message, 'there is no tensor #99');
  assert.ok(isAnswer(refusal));
  assert.equal(asParseError(refusal).code, 'invalid-request');
});

test('a trap with little memory in use, and a bug, are internal errors', () => {
  // A module whose one function is `unreachable`: the trap a Rust panic ends in.
  const panics = new WebAssembly.Instance(
    new WebAssembly.Module(
      new Uint8Array([
        0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 5, 1, 3, 0, 0, 11,
      ]),
    ),
  ).exports.f;
  const trap = (() => {
    try {
      panics();
    } catch (e) {
      return e;
    }
  })();
  assert.ok(trap instanceof WebAssembly.RuntimeError);
  assert.ok(!isAnswer(trap));
  assert.deepEqual(describeCrash(trap, parser), {
    code: 'crashed',
    message: `internal error: RuntimeError: ${trap.message}`,
  });
  const bug = new TypeError("Cannot read properties of undefined (reading 'blob')");
  assert.ok(!isAnswer(bug));
  assert.deepEqual(describeCrash(bug, parser), {
    code: 'crashed',
    message: "internal error: TypeError: Cannot read properties of undefined (reading 'blob')",
  });
  assert.deepEqual(describeCrash(new TypeError('Failed to fetch'), null), {
    code: 'crashed',
    message: 'it could not be loaded: TypeError: Failed to fetch',
  });
  assert.equal(describeCrash(new RangeError('Array buffer allocation failed'), parser).code, 'out-of-memory');
});

test('a header that needs more memory than the cap traps, told as out of memory with the cap; the memory stops at the cap', async () => {
  assert.equal(maxMemory(), 512 * 2 ** 20);
  const blob = await openAsBlob(`${scratch}/empty-arrays.gguf`);
  const trap = await readHeader(blob).then(
    () => null,
    (e) => e,
  );
  assert.ok(trap instanceof WebAssembly.RuntimeError, `a trap, not ${trap}`);
  assert.ok(!isAnswer(trap));
  assert.deepEqual(describeCrash(trap, parser), {
    code: 'out-of-memory',
    message: 'out of memory: this file needs more than the 512 MiB the parser may use',
  });
  // The cap is the module's own maximum, exactly.
  const room = (maxMemory() - wasm.memory.buffer.byteLength) / PAGE;
  assert.throws(() => wasm.memory.grow(room + 1), RangeError);
  wasm.memory.grow(room);
  assert.equal(wasm.memory.buffer.byteLength, maxMemory());
});
