// `edit(file, edits)` (web/edit.js, with the edit module in a worker) under Node: no edits give the
// input byte for byte; edits read back with the viewer's own decoder (read-loop.js + GgufModel)
// with their values and types, every tensor info unchanged and the data section equal; the 40 GB
// sparse file is edited reading its header only; refusals reject with {code, key, message}; a
// module that traps is replaced (its worker is).
// Run: node --test web/test/edit.test.mjs (after scripts/build-web.sh).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openAsBlob, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

import { GgufModel, initSync } from '../pkg/gguf_wasm.js';
import { readHeader } from '../read-loop.js';
import { safeNumbers } from '../numbers.js';
import { isParseError } from '../protocol.js';
import { edit, editWithChanges } from '../edit.js';
import * as gguf from '../gguf.js';
import { hugeFileBlob } from './huge-file.mjs';
import { linkBuiltFixture } from './paths.mjs';

initSync({ module: readFileSync(new URL('../pkg/gguf_wasm_bg.wasm', import.meta.url)) });

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
/** The core's first header read (gguf_core::read::FIRST_READ). */
const FIRST_READ = 256 * 1024;

/** The viewer's report of `blob` (read-loop.js and the viewer's wasm module, not the edit module's). */
async function report(blob) {
  const model = new GgufModel([await readHeader(blob)], ['file.gguf']);
  try {
    return safeNumbers(model.report());
  } finally {
    model.free();
  }
}

const bytes = async (blob) => new Uint8Array(await blob.arrayBuffer());

/** What edit rejects with. */
async function refusal(file, edits) {
  return edit(file, edits).then(
    () => assert.fail(`${JSON.stringify(edits)} was not refused`),
    (e) => e,
  );
}

/** A tensor's info as the report gives it, without where the info lies in the header. */
const info = ({ name, type, type_id, shape, offset, n_elements, n_bytes }) => ({
  name,
  type,
  type_id,
  shape,
  offset,
  n_elements,
  n_bytes,
});

test('gguf.js exports edit and editWithChanges', () => {
  assert.equal(gguf.edit, edit);
  assert.equal(gguf.editWithChanges, editWithChanges);
});

test('no edits: the input byte for byte', async () => {
  const names = [
    'synth/all-types.gguf',
    'synth/quants.gguf',
    'synth/big-endian.gguf',
    'synth/quants-be.gguf',
    'synth/align-4096.gguf',
    'synth/unicode-keys.gguf',
    'synth/invalid-utf8.gguf',
    'synth/minimal.gguf',
    // Vocabulary only, ending before its data offset: the copy's padding is cut as short.
    'real/ggml-vocab-llama-spm.gguf',
    'real/ggml-vocab-phi-3.gguf',
  ];
  for (const name of names) {
    const input = await openAsBlob(`${fixtures}${name}`);
    const { file: out, changes, file_size, read } = await editWithChanges(input, []);
    assert.ok(out instanceof Blob, name);
    assert.deepEqual(changes, []);
    assert.equal(file_size.after, input.size, name);
    assert.deepEqual(await bytes(out), await bytes(input), name);
    assert.ok(read.bytesRead <= Math.max(FIRST_READ, 1.25 * (await report(input)).header_size + FIRST_READ), name);
  }
});

for (const name of ['all-types.gguf', 'quants.gguf', 'big-endian.gguf']) {
  test(`synth/${name}: a chat template and an eos id, read back by the viewer's decoder; tensors and data unchanged`, async () => {
    const input = await openAsBlob(`${fixtures}synth/${name}`);
    const template =
      `{% for m in messages %}<|${'é'.repeat(3)}|>{{ m['role'] }}\n{{ m['content'] }}<|end|>\n{% endfor %}`.repeat(800);
    const {
      file: out,
      changes,
      data_offset,
    } = await editWithChanges(input, [
      { set: 'tokenizer.chat_template', value: template, type: 'STRING' },
      { set: 'tokenizer.ggml.eos_token_id', value: 2, type: 'UINT32' },
      // An existing key keeps its type: the value '106' (text) is a UINT32.
      { set: 'tokenizer.ggml.eos_token_id', value: '106' },
      { set: 'general.name', value: 'renamed' },
      { set: 'my.ids', value: [1, 106n], type: { type: 'ARRAY', element_type: 'INT64' } },
    ]);
    assert.ok(out instanceof Blob);
    assert.deepEqual(
      changes.map((c) => [c.key, c.action, c.type]),
      [
        ['tokenizer.chat_template', 'add', 'STRING'],
        ['tokenizer.ggml.eos_token_id', 'add', 'UINT32'],
        ['tokenizer.ggml.eos_token_id', 'set', 'UINT32'],
        ['general.name', 'set', 'STRING'],
        ['my.ids', 'add', 'ARRAY'],
      ],
    );
    assert.equal(changes[2].old, 2);
    assert.equal(changes[2].new, 106);

    const [before, after] = [await report(input), await report(out)];
    const entry = (r, key) => r.metadata.find((e) => e.key === key);
    assert.equal(entry(after, 'tokenizer.chat_template').type, 'STRING');
    assert.equal(entry(after, 'tokenizer.chat_template').value, template);
    assert.equal(entry(after, 'tokenizer.ggml.eos_token_id').type, 'UINT32');
    assert.equal(entry(after, 'tokenizer.ggml.eos_token_id').value, 106);
    assert.equal(entry(after, 'general.name').value, 'renamed');
    assert.deepEqual(entry(after, 'my.ids').value, { element_type: 'INT64', len: 2, head: [1, 106] });
    // The other keys in their order, edited ones in place, added ones at the end.
    assert.deepEqual(
      after.metadata.map((e) => e.key),
      [...before.metadata.map((e) => e.key), 'tokenizer.chat_template', 'tokenizer.ggml.eos_token_id', 'my.ids'],
    );
    for (const [i, e] of before.metadata.entries()) {
      if (e.key !== 'general.name')
        assert.deepEqual([after.metadata[i].type, after.metadata[i].value], [e.type, e.value], e.key);
    }
    // Every tensor's info unchanged; the data where the new header says, byte for byte.
    assert.equal(after.version, before.version);
    assert.equal(after.endianness, before.endianness);
    assert.equal(after.data_offset, data_offset.after);
    assert.equal(before.data_offset, data_offset.before);
    assert.ok(after.data_offset > before.data_offset + template.length);
    assert.equal(after.data_offset % after.alignment, 0);
    assert.deepEqual(after.tensors.map(info), before.tensors.map(info));
    for (const [i, t] of after.tensors.entries())
      assert.equal(t.absolute_offset, after.data_offset + before.tensors[i].offset);
    assert.equal(out.size - after.data_offset, input.size - before.data_offset);
    assert.deepEqual(await bytes(out.slice(after.data_offset)), await bytes(input.slice(before.data_offset)));
    assert.deepEqual(
      after.findings.filter((f) => f.severity === 'error'),
      before.findings.filter((f) => f.severity === 'error'),
    );
  });
}

test("a vocabulary-only file that ends before its data offset: edited, its padding missing as the input's was", async () => {
  const input = await openAsBlob(`${fixtures}real/ggml-vocab-llama-spm.gguf`);
  const before = await report(input);
  assert.ok(input.size < before.data_offset);
  const out = await edit(input, [{ set: 'tokenizer.ggml.eos_token_id', value: 7 }]);
  const after = await report(out);
  assert.equal(after.metadata.find((e) => e.key === 'tokenizer.ggml.eos_token_id').value, 7);
  assert.equal(after.metadata.find((e) => e.key === 'tokenizer.ggml.eos_token_id').type, 'UINT32');
  assert.equal(out.size, input.size); // same lengths: the same padding missing
  assert.equal(after.tensor_count, 0);
});

test('the 40 GB sparse file: only its header is read; the data section is sliced, never read', async () => {
  const dir = execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`], { encoding: 'utf8' }).trim();
  const file = await hugeFileBlob(`${dir}/big-40g-sparse.gguf`);
  try {
    // Every slice taken, and the bytes of each slice actually read.
    const slices = [];
    const reads = [];
    const recorded = {
      size: file.size,
      slice(start, end) {
        slices.push([start, end]);
        const part = file.slice(start, end);
        return {
          size: part.size,
          slice: part.slice,
          arrayBuffer: () => (reads.push([start, end]), part.arrayBuffer()),
        };
      },
    };
    const t0 = performance.now();
    const {
      file: out,
      changes,
      data_offset,
      file_size,
      read,
    } = await editWithChanges(recorded, [
      { set: 'tokenizer.chat_template', value: '{{ messages[0].content }}'.repeat(100), type: 'STRING' },
      { set: 'general.name', value: 'forty' },
    ]);
    const ms = performance.now() - t0;
    assert.equal(changes.length, 2);
    assert.equal(file.size, 41812404288);
    assert.deepEqual(reads, [[0, FIRST_READ]], "one read: the decoder's first, which holds the 10 KB header");
    assert.deepEqual(read, { bytesRead: FIRST_READ, reads: 1 });
    // The data section: one slice, from the old data offset to the end, never read.
    assert.deepEqual(slices.at(-1), [data_offset.before, file.size]);
    assert.ok(!reads.some(([, end]) => end > FIRST_READ));
    assert.equal(out.size, file.size - data_offset.before + data_offset.after);
    assert.equal(file_size.after, out.size);
    assert.ok(ms < 5000, `${ms} ms`);

    // The viewer reads the result: tensors past 2^32 where they were, relative to the new data section.
    const [before, after] = [await report(file), await report(out)];
    assert.equal(after.data_offset, data_offset.after);
    assert.deepEqual(after.tensors.map(info), before.tensors.map(info));
    assert.ok(after.tensors.some((t) => t.absolute_offset > 2 ** 32));
    assert.equal(after.metadata.find((e) => e.key === 'general.name').value, 'forty');
  } finally {
    await file.close();
    execFileSync('rm', ['-rf', dir]);
  }
});

test('refusals reject with {code, key, message}; the input is not changed', async () => {
  const input = await openAsBlob(`${fixtures}synth/all-types.gguf`);
  const cases = [
    [[{ set: 'general.alignment', value: 64 }], 'alignment', 'general.alignment'],
    [[{ delete: 'general.alignment' }], 'alignment', 'general.alignment'],
    [[{ set: 'x.small', value: 300, type: 'UINT8' }], 'bad-value', 'x.small', /300 is not a UINT8 \(0 to 255\)/],
    [[{ set: 'x.int', value: 1.5, type: 'INT32' }], 'bad-value', 'x.int', /not an integer/],
    [[{ set: 'x.num', value: 'abc', type: 'UINT32' }], 'bad-value', 'x.num', /not a number/],
    [[{ set: 'x.t', value: 1, type: 'UINT128' }], 'bad-value', 'x.t', /unknown type/],
    [[{ set: 'x.arr', value: [1], type: 'ARRAY' }], 'bad-value', 'x.arr', /element type/],
    [
      [{ set: 'x.arr', value: [1, -1], type: { type: 'ARRAY', element_type: 'UINT16' } }],
      'bad-value',
      'x.arr',
      /array element 1/,
    ],
    [[{ set: 'x.nest', value: [[1]], type: 'ARRAY[UINT8]' }], 'bad-value', 'x.nest', /arrays of arrays/],
    [[{ delete: 'no.such.key' }], 'no-such-key', 'no.such.key', /no such key/],
    [[{ set: 'no.such.key', value: 1 }], 'no-such-key', 'no.such.key', /give its type/],
    [[{ set: '', value: 1, type: 'UINT8' }], 'empty-key', ''],
    [[{ set: 'x.s', value: 'a\ud800b', type: 'STRING' }], 'invalid-utf8', 'x.s'],
    [[{ delete: 'general.architecture' }], 'new-error-finding', 'general.architecture', /missing-architecture/],
    [[{ set: 'x.v', type: 'UINT8' }], 'syntax', 'x.v', /needs a value/],
    [[{ set: 'x.v', value: null, type: 'UINT8' }], 'syntax', 'x.v'],
    [[{ set: 'a', delete: 'b' }], 'syntax', ''],
    [[{ nothing: 1 }], 'syntax', ''],
    ['not an array', 'syntax', ''],
    // The first refused edit is the answer, whatever came before it.
    [
      [
        { set: 'general.name', value: 'ok' },
        { set: 'x.small', value: -1, type: 'u8' },
      ],
      'bad-value',
      'x.small',
    ],
  ];
  for (const [edits, code, key, message] of cases) {
    const e = await refusal(input, edits);
    assert.ok(!(e instanceof Error), JSON.stringify(edits));
    assert.deepEqual([e.code, e.key], [code, key], `${JSON.stringify(edits)}: ${e.message}`);
    assert.equal(typeof e.message, 'string');
    if (message) assert.match(e.message, message);
  }
  assert.equal((await report(input)).metadata.length, 52);
});

test('not a GGUF file: the ParseError open() gives', async () => {
  const e = await refusal(new Blob([new Uint8Array(64).fill(7)]), []);
  assert.ok(isParseError(e), `${e}`);
  assert.deepEqual([e.code, e.offset], ['not-gguf', 0]);
  const cut = await refusal(await openAsBlob(`${fixtures}synth/truncated-in-kv.gguf`), [
    { set: 'general.name', value: 'x' },
  ]);
  assert.ok(isParseError(cut));
  assert.deepEqual([cut.code, cut.context.section], ['truncated', 'kv']);
});

test('values: numbers, BigInts, booleans, strings and arrays in every type', async () => {
  const input = await openAsBlob(`${fixtures}synth/minimal.gguf`);
  const { file: out } = await editWithChanges(input, [
    { set: 'v.u8', value: 255, type: 'UINT8' },
    { set: 'v.i8', value: -128, type: 'INT8' },
    { set: 'v.u16', value: '65535', type: 'u16' },
    { set: 'v.i16', value: -2, type: 'INT16' },
    { set: 'v.u32', value: 4294967295, type: 'UINT32' },
    { set: 'v.i32', value: -5, type: 'i32' },
    { set: 'v.u64', value: 2n ** 64n - 1n, type: 'UINT64' },
    { set: 'v.i64', value: '-9223372036854775808', type: 'INT64' },
    { set: 'v.f32', value: 0.5, type: 'FLOAT32' },
    { set: 'v.f64', value: 1e-300, type: 'FLOAT64' },
    { set: 'v.inf', value: -Infinity, type: 'FLOAT32' },
    { set: 'v.bool', value: false, type: 'BOOL' },
    { set: 'v.str', value: 'a "quoted"\nline é 😀', type: 'STRING' },
    { set: 'v.strs', value: ['a"b', '\\', '\n', 'é'], type: 'ARRAY', element_type: 'STRING' },
    { set: 'v.bools', value: [true, false], type: 'ARRAY[BOOL]' },
    { set: 'v.floats', value: [0.25, -1], type: { type: 'ARRAY', element_type: 'FLOAT64' } },
    { set: 'v.empty', value: [], type: 'arr[u32]' },
  ]);
  const values = Object.fromEntries((await report(out)).metadata.map((e) => [e.key, [e.type, e.value]]));
  assert.deepEqual(values['v.u8'], ['UINT8', 255]);
  assert.deepEqual(values['v.i8'], ['INT8', -128]);
  assert.deepEqual(values['v.u16'], ['UINT16', 65535]);
  assert.deepEqual(values['v.i16'], ['INT16', -2]);
  assert.deepEqual(values['v.u32'], ['UINT32', 4294967295]);
  assert.deepEqual(values['v.i32'], ['INT32', -5]);
  assert.deepEqual(values['v.u64'], ['UINT64', 2n ** 64n - 1n]);
  assert.deepEqual(values['v.i64'], ['INT64', -(2n ** 63n)]);
  assert.deepEqual(values['v.f32'], ['FLOAT32', 0.5]);
  assert.deepEqual(values['v.f64'], ['FLOAT64', 1e-300]);
  assert.deepEqual(values['v.inf'][0], 'FLOAT32');
  assert.deepEqual(values['v.bool'], ['BOOL', false]);
  assert.deepEqual(values['v.str'], ['STRING', 'a "quoted"\nline é 😀']);
  assert.deepEqual(values['v.strs'], ['ARRAY', { element_type: 'STRING', len: 4, head: ['a"b', '\\', '\n', 'é'] }]);
  assert.deepEqual(values['v.bools'], ['ARRAY', { element_type: 'BOOL', len: 2, head: [true, false] }]);
  assert.deepEqual(values['v.floats'], ['ARRAY', { element_type: 'FLOAT64', len: 2, head: [0.25, -1] }]);
  assert.deepEqual(values['v.empty'], ['ARRAY', { element_type: 'UINT32', len: 0, head: [] }]);
});

test('a header that makes the module trap (past its 512 MiB): a ParserFailure, then the next edit works in a fresh worker', async () => {
  const scratch = mkdtempSync(`${tmpdir()}/ggufscope-edit-`);
  try {
    linkBuiltFixture('heavy-headers', scratch);
    const failure = await refusal(await openAsBlob(`${scratch}/empty-arrays.gguf`), []);
    assert.ok(failure instanceof Error);
    assert.equal(failure.name, 'ParserFailure');
    assert.deepEqual([failure.code, failure.offset, failure.context], ['out-of-memory', null, null]);
    assert.match(failure.message, /512 MiB/);
    const out = await edit(await openAsBlob(`${fixtures}synth/quants.gguf`), [
      { set: 'general.name', value: 'after the trap' },
    ]);
    assert.equal((await report(out)).metadata.find((e) => e.key === 'general.name').value, 'after the trap');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('editSession: every refusal and the new findings while editing, the whole text of a key', async () => {
  const { editSession } = await import('../edit.js');
  const input = await openAsBlob(`${fixtures}real/ggml-vocab-phi-3.gguf`);
  const session = await editSession(input);
  try {
    const template = await session.text('tokenizer.chat_template');
    const { metadata } = await report(input);
    assert.ok(template.length > 100);
    assert.equal(template, metadata.find((m) => m.key === 'tokenizer.chat_template').value);
    assert.equal(await session.text('no.such.key'), undefined);
    assert.equal(await session.text('tokenizer.ggml.bos_token_id'), undefined, 'not a string');

    const checked = await session.check([
      { set: 'general.name', value: 'renamed' },
      { set: 'general.alignment', value: 64 },
      { set: 'tokenizer.ggml.eos_token_id', value: 999999 },
      { set: 'x.v', value: null, type: 'UINT8' },
      { set: 'tokenizer.chat_template', value: '{{ x.__class__ }}' },
    ]);
    assert.deepEqual(
      checked.refusals.map((r) => [r.index, r.code, r.key]),
      [
        [1, 'alignment', 'general.alignment'],
        [3, 'syntax', 'x.v'],
        [4, 'new-error-finding', 'tokenizer.chat_template'],
      ],
    );
    assert.deepEqual(
      checked.findings.map((f) => [f.code, f.severity, f.key]),
      [['special-token-out-of-vocab', 'warning', 'tokenizer.ggml.eos_token_id']],
    );
    assert.match(checked.findings[0].message, /999,999/);
    assert.deepEqual(checked.unchanged, []);
    assert.deepEqual(await session.check([]), { refusals: [], findings: [], unchanged: [] });
    // A value set to what the file holds, by its index among the edits (refused ones counted).
    const bos = metadata.find((m) => m.key === 'tokenizer.ggml.bos_token_id').value;
    const back = await session.check([
      { set: 'general.alignment', value: 64 },
      { set: 'general.name', value: 'renamed' },
      { set: 'tokenizer.ggml.bos_token_id', value: bos },
    ]);
    assert.deepEqual(back.unchanged, [2]);
  } finally {
    session.free();
  }
  await assert.rejects(session.check([]), /freed/);
});

test("editSession.checkTemplate: the validator's finding on a template alone", async () => {
  const { editSession } = await import('../edit.js');
  const session = await editSession(await openAsBlob(`${fixtures}synth/minimal.gguf`));
  try {
    const [finding, ...rest] = await session.checkTemplate('tokenizer.chat_template', '{{ x.__globals__ }}');
    assert.deepEqual(rest, []);
    assert.deepEqual(
      [finding.code, finding.severity, finding.key],
      ['chat-template-code-execution', 'error', 'tokenizer.chat_template'],
    );
    assert.match(finding.message, /reaches for `__globals__`/);
    assert.deepEqual(await session.checkTemplate('tokenizer.chat_template', '{{ messages[0].content }}'), []);
  } finally {
    session.free();
  }
});
