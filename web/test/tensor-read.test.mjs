// Peeking at tensor values the way the worker does — the header's tensorPrefix, the bytes read
// by measureTensor, decoded by the values module — against gguf-py's dequantized
// values, with every slice recorded: only the tensor's bytes are ever read.
// Run: node --test web/test/ (after scripts/build-web.sh).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { openAsBlob, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { GgufModel, initSync } from '../pkg/gguf_wasm.js';
import { readHeader } from '../read-loop.js';
import { TensorValues, initSync as initDequant } from '../pkg-values/gguf_values_wasm.js';
import { measureTensor } from '../tensor-read.js';
import { safeNumbers } from '../numbers.js';
import { isParseError } from '../protocol.js';
import { hugeFileBlob } from './huge-file.mjs';
import { GEMMA, noGemma } from './paths.mjs';

initSync({ module: readFileSync(new URL('../pkg/gguf_wasm_bg.wasm', import.meta.url)) });
initDequant({ module: readFileSync(new URL('../pkg-values/gguf_values_wasm_bg.wasm', import.meta.url)) });

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const json = (path) => JSON.parse(readFileSync(`${fixtures}${path}`, 'utf8'));

/** A Blob whose slices are recorded as `[start, end]`. */
function recording(blob) {
  const slices = [];
  return {
    slices,
    size: blob.size,
    slice(start, end) {
      slices.push([start, end]);
      return blob.slice(start, end);
    },
  };
}

/** The core's bytes per read of a tensor (gguf_core::read::TENSOR_CHUNK). */
const TENSOR_CHUNK = 8 * 1024 * 1024;

/** The open header of `blob`: `{session, report}` (`session`: its GgufModel); free the session when done. */
async function openHeader(blob) {
  const session = new GgufModel([await readHeader(blob)], ['file.gguf']);
  return { session, report: safeNumbers(session.report()) };
}

/** Peeks at tensor `name` as the worker does; `{prefix, stats, bytesRead, reads, slices}`. */
async function peek(blob, header, name, { rows = null, bins = 16, first = 16 } = {}) {
  const index = header.report.tensors.findIndex((t) => t.name === name);
  assert.ok(index >= 0, `no tensor ${name}`);
  const prefix = header.session.tensorPrefix(index, rows);
  const recorded = recording(blob);
  const values = new TensorValues(prefix, bins, first);
  const measured = await measureTensor(recorded, values);
  return { prefix, ...measured, stats: safeNumbers(measured.stats), slices: recorded.slices };
}

/** Every slice lies within the prefix, and together they read it `times` times. */
function assertReadOnly(slices, prefix, times) {
  for (const [start, end] of slices) {
    assert.ok(
      start >= prefix.offset && end <= prefix.offset + prefix.length,
      `slice ${start}–${end} is outside ${prefix.offset}+${prefix.length}`,
    );
  }
  assert.equal(
    slices.reduce((sum, [start, end]) => sum + end - start, 0),
    times * prefix.length,
  );
}

const asFloat = (v) => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v);

for (const file of ['quants.gguf', 'quants-be.gguf']) {
  test(`synth/${file}: every tensor decodes to gguf-py's values, bit for bit, reading only its bytes`, async () => {
    const expected = json('synth/quants.expected.json').tensors;
    const blob = await openAsBlob(`${fixtures}synth/${file}`);
    const header = await openHeader(blob);
    try {
      assert.equal(header.report.endianness, file === 'quants.gguf' ? 'little' : 'big');
      const names = header.report.tensors.map((t) => t.name); // quants-be.gguf has six of them
      assert.equal(names.length, file === 'quants.gguf' ? 11 : 6);
      for (const name of names) {
        const { type, values } = expected[name];
        const { prefix, stats, slices, reads } = await peek(blob, header, name, { first: values.length });
        const tensor = header.report.tensors.find((t) => t.name === name);
        assert.equal(tensor.type, type);
        assert.equal(prefix.length, tensor.n_bytes, name);
        assert.equal(prefix.offset, tensor.absolute_offset, name);
        assert.deepEqual(stats.first.map(asFloat), values, `${file} ${name}`);
        assert.equal(stats.count, values.length);
        assert.equal(reads, 1, 'a small tensor is read once for both passes');
        assertReadOnly(slices, prefix, 1);
      }
    } finally {
      header.session.free();
    }
  });
}

test('statistics and histogram of an F32 tensor agree with the same figures worked out here from its bytes', async () => {
  const blob = await openAsBlob(`${fixtures}synth/quants.gguf`);
  const header = await openHeader(blob);
  try {
    const bins = 10;
    const { prefix, stats } = await peek(blob, header, 'src.f32', { bins, first: 0 });
    const values = new Float32Array(await blob.slice(prefix.offset, prefix.offset + prefix.length).arrayBuffer());
    const min = Math.min(...values);
    const max = Math.max(...values);
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length;
    const counts = new Array(bins).fill(0);
    for (const v of values) counts[Math.min(bins - 1, Math.floor(((v - min) / (max - min)) * bins))] += 1;
    assert.equal(stats.min, min);
    assert.equal(stats.max, max);
    assert.ok(Math.abs(stats.mean - mean) < 1e-12, `${stats.mean} vs ${mean}`);
    assert.ok(Math.abs(stats.std_dev - Math.sqrt(variance)) < 1e-12);
    assert.deepEqual(stats.histogram.counts, counts);
    assert.deepEqual([stats.histogram.min, stats.histogram.max], [min, max]);
    assert.deepEqual(stats.first, []);
    assert.equal(stats.all_zero, false);
  } finally {
    header.session.free();
  }
});

test(
  "the Gemma model: the first row of a tensor of each type is gguf-py's, from that row's bytes alone",
  { skip: noGemma() },
  async () => {
    const blob = await openAsBlob(GEMMA);
    const header = await openHeader(blob);
    try {
      for (const [type, ref] of Object.entries(json('ref/gemma-3-270m-q4_k_m.gguf.dequant.json'))) {
        const { prefix, stats, slices } = await peek(blob, header, ref.tensor, { rows: 1, first: ref.n_values });
        assert.equal(prefix.rows, 1);
        assert.equal(prefix.offset, ref.row_abs_offset, type);
        assert.equal(prefix.length, ref.row_bytes, type);
        assert.deepEqual(stats.first, ref.values, `${type} ${ref.tensor}`);
        assertReadOnly(slices, prefix, 1);
      }
      // blk.0.attn_q.weight, whole: what `ggufscope tensor` prints for it.
      const { prefix, stats } = await peek(blob, header, 'blk.0.attn_q.weight');
      assert.equal(prefix.length, 450560);
      assert.equal(stats.count, 655360);
      assert.equal(stats.zeros, 43560);
      assert.deepEqual([stats.min, stats.max], [-0.62109375, 0.859375]);
    } finally {
      header.session.free();
    }
  },
);

test('the 40 GB sparse file: the first rows of a 4 GiB tensor, read alone, are all zeros', async () => {
  const dir = execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`], { encoding: 'utf8' }).trim();
  const blob = await hugeFileBlob(`${dir}/big-40g-sparse.gguf`);
  try {
    const header = await openHeader(blob);
    try {
      const big = header.report.tensors.find((t) => t.name === 'output.weight'); // 4 GiB of F16 from offset 35,099,158,592
      const rows = 64;
      const { prefix, stats, slices } = await peek(blob, header, big.name, { rows });
      assert.ok(prefix.offset > 2 ** 32, 'an offset past 2^32, exact');
      assert.equal(prefix.offset, big.absolute_offset);
      assert.equal(prefix.length, (big.n_bytes / big.n_elements) * big.shape[0] * rows);
      assert.equal(stats.all_zero, true);
      assert.equal(stats.count, big.shape[0] * rows);
      assertReadOnly(slices, prefix, 1);

      // Past one read (the core's 8 MiB), in whole-block chunks, twice: statistics, then
      // histogram, each pass from the prefix's start to its end, a chunk after the other.
      const large = await peek(blob, header, big.name, { rows: 2000 });
      assert.ok(large.prefix.length > 2 * TENSOR_CHUNK);
      assert.equal(large.reads, 2 * Math.ceil(large.prefix.length / TENSOR_CHUNK));
      assertReadOnly(large.slices, large.prefix, 2);
      const pass = large.slices.slice(0, large.reads / 2);
      assert.deepEqual(large.slices.slice(large.reads / 2), pass);
      pass.forEach(([start], i) => assert.equal(start, i === 0 ? large.prefix.offset : pass[i - 1][1]));
      assert.equal(large.stats.count, big.shape[0] * 2000);
    } finally {
      header.session.free();
    }
  } finally {
    await blob.close();
    execFileSync('rm', ['-rf', dir]);
  }
});

test('refused: a removed type before any read, bytes past the end of a truncated file, a partial block', async () => {
  const of = (typeId, length = 0) => ({ offset: 0, length, rows: 1, elements: 32, typeId, bigEndian: false });
  assert.throws(() => new TensorValues(of(4), 8, 8), /Q4_2 cannot be decoded: ggml removed this type/);
  assert.throws(() => new TensorValues(of(1000), 8, 8), /never assigned this type id/);

  const blob = await openAsBlob(`${fixtures}synth/truncated-in-data.gguf`);
  const header = await openHeader(blob);
  try {
    const last = header.report.tensors.length - 1;
    assert.throws(() => header.session.tensorPrefix(last, null), /past the end of the file/);
    assert.throws(() => header.session.tensorPrefix(header.report.tensors.length, null), /there is no tensor/);
  } finally {
    header.session.free();
  }

  const values = new TensorValues(of(8, 35), 8, 8); // Q8_0: 34-byte blocks
  const error = await measureTensor(new Blob([new Uint8Array(40)]), values).catch((e) => e);
  assert.match(error.message, /35 bytes of Q8_0 end inside a block/);
});

test('a failing read is a ParseError with its offset; cancelling stops at once', async () => {
  const file = await openAsBlob(`${fixtures}synth/quants.gguf`);
  const header = await openHeader(file);
  try {
    const index = header.report.tensors.findIndex((t) => t.name === 'src.f32');
    const prefix = header.session.tensorPrefix(index, null);
    const failing = { size: file.size, slice: () => ({ arrayBuffer: () => Promise.reject(new Error('disk gone')) }) };
    const failed = await measureTensor(failing, new TensorValues(prefix, 8, 8)).catch((e) => e);
    assert.ok(isParseError(failed));
    assert.deepEqual([failed.code, failed.offset], ['read-failed', prefix.offset]);
    assert.match(failed.message, /disk gone/);

    const controller = new AbortController();
    const recorded = recording(file);
    const counting = { ...recorded, slice: (s, e) => (controller.abort(), recorded.slice(s, e)) };
    const aborted = await measureTensor(counting, new TensorValues(prefix, 8, 8), { signal: controller.signal }).catch(
      (e) => e,
    );
    assert.equal(aborted.name, 'AbortError');
    assert.equal(recorded.slices.length, 1);
  } finally {
    header.session.free();
  }
});
