// The dequantizers' two builds (scripts/build-web.sh): web/pkg-values-simd, with wasm SIMD, and
// web/pkg-values, the fallback, decode the same random blocks of every type the core decodes, in
// both byte orders, to the same values bit for bit; and real rows to gguf-py's values.
// Run: node --test web/test/dequant-simd.test.mjs (after scripts/build-web.sh).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, readFileSync, readSync, closeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import * as simd from '../pkg-values-simd/gguf_values_wasm.js';
import * as scalar from '../pkg-values/gguf_values_wasm.js';
import { GEMMA, noGemma } from './paths.mjs';

const wasm = (dir) => readFileSync(new URL(`../${dir}/gguf_values_wasm_bg.wasm`, import.meta.url));
simd.initSync({ module: wasm('pkg-values-simd') });
scalar.initSync({ module: wasm('pkg-values') });

/** A module's instructions use wasm SIMD when its code holds the 0xfd prefix of the v128 opcodes often. */
const simdOpcodes = (bytes) => bytes.filter((b) => b === 0xfd).length;

test('the SIMD build uses wasm SIMD and the fallback does not', () => {
  // The prefix byte also occurs in data and immediates: a few hundred at most in the fallback.
  assert.ok(simdOpcodes(wasm('pkg-values-simd')) > 20 * simdOpcodes(wasm('pkg-values')));
});

/** `n` pseudo-random bytes (xorshift), the same for a seed every run. */
function randomBytes(n, seed) {
  let x = BigInt(seed) | 1n;
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i += 1) {
    x ^= (x << 13n) & 0xffff_ffff_ffff_ffffn;
    x ^= x >> 7n;
    x ^= (x << 17n) & 0xffff_ffff_ffff_ffffn;
    bytes[i] = Number(x & 0xffn);
  }
  return bytes;
}

/** The ids of the types the core decodes: those a Dequantizer accepts, with their block sizes. */
function decodableTypes() {
  const types = [];
  for (let id = 0; id < 64; id += 1) {
    try {
      const d = new scalar.Dequantizer(id, false);
      types.push({ id, blockBytes: d.blockBytes });
      d.free();
    } catch (e) {
      assert.match(String(e.message ?? e), /cannot be decoded/);
    }
  }
  return types;
}

/** The values of `bytes` of type `id` from `module`: their bits, as a Uint32Array. */
function decode(module, id, bigEndian, bytes) {
  const d = new module.Dequantizer(id, bigEndian);
  try {
    const count = d.decode(bytes);
    const values = d.values();
    assert.equal(values.length, count);
    return new Uint32Array(values.buffer, values.byteOffset, values.length);
  } finally {
    d.free();
  }
}

const isNaN32 = (bits) => (bits & 0x7f80_0000) === 0x7f80_0000 && (bits & 0x007f_ffff) !== 0;

test('SIMD and fallback decode random blocks of every type to the same values, in both byte orders', () => {
  const types = decodableTypes();
  // Every type ggml reads: floats, integers, legacy, k-, i-, ternary and fp4 quants.
  assert.ok(types.length >= 35, `only ${types.length} types decode`);
  for (const { id, blockBytes } of types) {
    // 301 blocks: more than one of the core's cached pieces for the small types, and an odd count.
    const bytes = randomBytes(301 * blockBytes, id + 1);
    for (const bigEndian of [false, true]) {
      const a = decode(simd, id, bigEndian, bytes);
      const b = decode(scalar, id, bigEndian, bytes);
      assert.ok(a.length > 0 && a.length === b.length, `type ${id}: ${a.length} values against ${b.length}`);
      let nonZero = 0;
      for (let i = 0; i < a.length; i += 1) {
        // wasm leaves the payload of a NaN made by arithmetic unspecified (a SIMD and a scalar
        // multiply may differ in it): a NaN must meet a NaN; every other value, the same bits.
        const same = a[i] === b[i] || (isNaN32(a[i]) && isNaN32(b[i]));
        if (!same) {
          assert.fail(
            `type ${id} ${bigEndian ? 'big' : 'little'}-endian value ${i}: 0x${a[i].toString(16)} (SIMD) against 0x${b[i].toString(16)}`,
          );
        }
        if ((a[i] & 0x7fff_ffff) !== 0) nonZero += 1;
      }
      assert.ok(nonZero > a.length / 4, `type ${id}: random blocks decode to mostly zeros`);
    }
  }
});

test('the byte order matters, so both orders are compared', () => {
  // Q8_0 (id 8): the fp16 scale is the only multi-byte word; reversed, the values change.
  const bytes = randomBytes(34 * 8, 99);
  assert.notDeepEqual(decode(simd, 8, false, bytes), decode(simd, 8, true, bytes));
});

test('a partial block and an unknown type are errors in both builds', () => {
  for (const module of [simd, scalar]) {
    assert.throws(() => new module.Dequantizer(4, false), /cannot be decoded/);
    const d = new module.Dequantizer(12, false);
    assert.equal(d.blockBytes, 144);
    assert.throws(() => d.decode(new Uint8Array(145)), /145 bytes of Q4_K end inside a block/);
    d.free();
  }
});

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));

/** ggml's ids of the types whose rows gguf-py dequantized for the fixtures' references. */
const TYPE_IDS = {
  F32: 0,
  F16: 1,
  Q4_0: 2,
  Q4_1: 3,
  Q5_0: 6,
  Q5_1: 7,
  Q8_0: 8,
  Q4_K: 12,
  Q6_K: 14,
  BF16: 30,
  TQ1_0: 34,
  TQ2_0: 35,
  MXFP4: 39,
};

/** `length` bytes of the file at `path` from `offset`. */
function readAt(path, offset, length) {
  const fd = openSync(path, 'r');
  try {
    const bytes = new Uint8Array(length);
    assert.equal(readSync(fd, bytes, 0, length, offset), length);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

for (const [file, path, bigEndian] of [
  ['quants.gguf', `${fixtures}synth/quants.gguf`, false],
  ['quants-be.gguf', `${fixtures}synth/quants-be.gguf`, true],
  ['gemma-3-270m-q4_k_m.gguf', GEMMA, false],
]) {
  test(
    `${file}: both builds decode a row of each type to gguf-py's values`,
    { skip: path === GEMMA && noGemma() },
    () => {
      const refs = Object.entries(JSON.parse(readFileSync(`${fixtures}ref/${file}.dequant.json`, 'utf8'))).filter(
        ([, ref]) => ref.values,
      );
      assert.ok(refs.length >= 3, `${refs.length} rows with values`);
      for (const [type, ref] of refs) {
        const bytes = readAt(path, ref.row_abs_offset, ref.row_bytes);
        for (const [name, module] of [
          ['SIMD', simd],
          ['fallback', scalar],
        ]) {
          const values = new Float32Array(decode(module, TYPE_IDS[type], bigEndian, bytes).buffer);
          assert.deepEqual([...values.subarray(0, ref.n_values)], ref.values, `${type} ${ref.tensor} (${name})`);
        }
      }
    },
  );
}
