// The package's `fit(fileOrReport, options)` and `open()`'s `memory` under Node (the worker a
// worker_threads one): the buffers llama.cpp allocates, computed by the core in the memory wasm
// module, for llama.cpp's options by their names — held on every reference model (the real Gemma
// 3 270M, the sparse GQA and MoE llamas, the builder's model of each other architecture) to what
// llama-server 0c1e570 logs (tests/reference/memory/llama-cpp-0c1e570.json, made by
// scripts/reference/memory-refs.py): KV per group and output exact, compute within the core's
// ±10%; and llama.cpp's refusals.
// Run: node --test web/test/fit.test.mjs (after scripts/build-web.sh).

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { openAsBlob, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { fit, open } from '../gguf.js';
import { GgufClient } from '../gguf-client.js';
import { GEMMA, builtFixture, noGemma } from './paths.mjs';

const MiB = 2 ** 20;
const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const reference = JSON.parse(
  readFileSync(new URL('../../tests/reference/memory/llama-cpp-0c1e570.json', import.meta.url), 'utf8'),
);

/** llama-server's flags as fit() names them. */
function fitOptions(flags) {
  const names = { '-c': 'ctx', '-np': 'parallel', '-ctk': 'ctk', '-ctv': 'ctv', '-fa': 'flashAttn', '-ub': 'ubatch' };
  const options = {};
  for (let i = 0; i < flags.length; i++) {
    if (flags[i] === '--kv-unified') options.kvUnified = true;
    // fit() takes llama-server's -b only; an encoder's case sets it to its context.
    else if (flags[i] === '-b') {
      if (flags[++i] !== '2048') return null;
    } else {
      const name = names[flags[i]];
      assert.ok(name, `a flag fit() does not take: ${flags[i]}`);
      const value = flags[++i];
      options[name] = /^\d+$/.test(value) ? Number(value) : value;
    }
  }
  return options;
}

/** The reference's models: where each is (the sparse ones' headers are enough); the rest are
 * the builder's (`write-fixtures DIR memory-models`). */
function models() {
  const shared = {
    'gemma-3-270m-q4_k_m.gguf': GEMMA,
    'gqa-llama-1.1b.gguf': `${fixtures}synth/sparse/gqa-llama-1.1b.gguf`,
    'moe-llama-8x.gguf': `${fixtures}synth/sparse/moe-llama-8x.gguf`,
  };
  const names = [...new Set(reference.cases.map((c) => c.model))];
  return names.map((name) => [name, shared[name] ?? builtFixture(`memory-models/${name}`)]);
}

test(
  "the worker's fit(): every reference model's buffers are what llama-server logs, case by case",
  { skip: noGemma() },
  async () => {
    const client = new GgufClient();
    after(() => client.close());
    const checked = new Set();
    const otherBatch = new Set();
    for (const [model, path] of models()) {
      await client.open(await openAsBlob(path));
      for (const c of reference.cases.filter((c) => c.model === model)) {
        const what = `${model}: llama-server ${c.options.join(' ')}`;
        const options = fitOptions(c.options);
        if (options === null) {
          // Held by the core's own test (tests/it/memory_reference.rs), which takes -b.
          assert.equal(model, 'bert-encoder.gguf', `${what}: fit() cannot say it`);
          otherBatch.add(c);
          continue;
        }
        const answer = client.fit(options);
        checked.add(c);
        if (!c.compute) {
          await assert.rejects(answer, { code: 'invalid-request' }, `${what}: llama.cpp refuses it`);
          continue;
        }
        const m = await answer;
        // llama.cpp logs MiB to two decimals.
        const near = (bytes, logged, name) =>
          assert.ok(
            Math.abs(Number(bytes) / MiB - logged) <= 0.005 + 1e-9,
            `${what}: ${name} ${Number(bytes) / MiB} MiB, logged ${logged}`,
          );
        assert.deepEqual(
          m.groups.map((g) => [g.sliding, g.layers, g.cells, g.streams]),
          c.kv_caches.map((g) => [g.swa ?? false, g.layers, g.cells, g.streams]),
          what,
        );
        m.groups.forEach((g, i) => {
          near(g.k_bytes, c.kv_caches[i].k_mib, 'K');
          near(g.v_bytes, c.kv_caches[i].v_mib, 'V');
        });
        const [r] = c.recurrent;
        const state = m.recurrent_state;
        // llama.cpp's line counts every layer; R and S are of the recurrent ones.
        assert.deepEqual(state && state.cells, r ? r.cells : null, what);
        if (r) {
          near(state.r_bytes, r.r_mib, 'R');
          near(state.s_bytes, r.s_mib, 'S');
        }
        near(m.output, c.output.CPU, 'output');
        near(m.model, c.model_buffers.CPU_Mapped, 'model');
        const compute = Number(m.compute) / MiB;
        assert.ok(
          Math.abs(compute / c.compute.CPU - 1) < 0.1,
          `${what}: compute ${compute} MiB, logged ${c.compute.CPU}`,
        );
        assert.equal(m.total, m.model + m.kv_cache + m.recurrent + m.output + m.compute, what);
        assert.equal(m.kv_k + m.kv_v, m.kv_cache, what);
      }
    }
    assert.equal(checked.size + otherBatch.size, reference.cases.length, 'every reference case');
    assert.equal(otherBatch.size, 1, 'fit() says all but the encoder with its batch at its context');
  },
);

test(
  "open()'s report carries the memory of llama-server's defaults; fit() takes a file or that report",
  { skip: noGemma() },
  async () => {
    const file = await openAsBlob(GEMMA);
    const report = await open(file);
    // -np auto: 4 sequences sharing one cache; -c 0: the trained context.
    assert.deepEqual([report.memory.context.n_seq, report.memory.context.kv_unified], [4, true]);
    assert.equal(report.memory.context.n_ctx, report.context_length);
    assert.deepEqual(await fit(file), report.memory);
    assert.deepEqual(await fit(report), report.memory);

    // K and V apart: q8_0's 34 bytes per 32 values for K only.
    const f16 = await fit(report, { ctx: 4096, parallel: 1 });
    const q8 = await fit(file, { ctx: 4096, parallel: 1, ctk: 'q8_0', ctv: 'f16' });
    assert.equal(q8.kv_k, (f16.kv_k * 34) / 64);
    assert.equal(q8.kv_v, f16.kv_v);
    assert.deepEqual([q8.options.type_k, q8.options.type_v, q8.options.flash_attn], ['q8_0', 'f16', 'auto']);

    // What llama.cpp refuses, and names it does not know, each said.
    await assert.rejects(fit(report, { ctv: 'q8_0', flashAttn: 'off' }), {
      code: 'invalid-request',
      message: /quantized V cache needs flash attention/,
    });
    await assert.rejects(fit(report, { ctk: 'q5_2' }), {
      code: 'invalid-request',
      message: /unknown cache type "q5_2": llama.cpp takes f32, f16/,
    });
    await assert.rejects(fit(report, { flashAttn: 'maybe' }), {
      code: 'invalid-request',
      message: /unknown flash attention "maybe"/,
    });
    await assert.rejects(fit(report, { parallel: 0 }), {
      code: 'invalid-request',
      message: /0 sequences: llama.cpp takes 1 to 256/,
    });
    await assert.rejects(fit(report, { ctx: 1.5 }), {
      code: 'invalid-request',
      message: /ctx is not a whole number of tokens/,
    });
    await assert.rejects(fit({ not: 'a report' }), TypeError);
  },
);

test('a model with no memory figure: open() leaves memory out, fit() says why', async () => {
  for (const [name, says] of [
    [
      'unknown-architecture.gguf',
      /^llama\.cpp \(0c1e570\) does not know the architecture "llama5": it refuses the model$/,
    ],
    ['clip.gguf', /^llama\.cpp refuses it: CLIP cannot be used as main model, use it with --mmproj instead$/],
    ['t5.gguf', /^not sized: llama\.cpp runs t5, but it is an encoder-decoder/],
  ]) {
    const file = await openAsBlob(builtFixture(`memory-refusals/${name}`));
    const report = await open(file);
    assert.equal(report.memory, undefined, name);
    assert.ok(report.architecture, name);
    await assert.rejects(fit(file), { code: 'invalid-request', message: says }, name);
    await assert.rejects(fit(report, { ctx: 4096 }), { code: 'invalid-request', message: says }, name);
  }
});
