// wasm-pack.toml, read as TOML (scripts/wasm-modules.mjs, smol-toml): the project's modules, one
// crate built once per feature, each where the worker's loader (web/failures.js) looks for it and
// built (scripts/build-web.sh) with the memory cap the page names; and a manifest that is wrong is
// refused naming the entry and the field.
// Run: node --test web/test/wasm-modules.test.mjs (after scripts/build-web.sh).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { wasmModules } from '../../scripts/wasm-modules.mjs';
import { MODULES, loadModule } from '../failures.js';

test("the project's modules: a feature each, the values module twice (with wasm SIMD in a profile of its own)", () => {
  const modules = wasmModules();
  assert.deepEqual(
    modules.map((m) => m.feature),
    ['viewer', 'values', 'values', 'template', 'edit', 'diff', 'upstream', 'tokenizer', 'memory'],
  );
  const [viewer, values, simd] = modules;
  assert.deepEqual([viewer.outDir, viewer.outName, viewer.maxMemory], ['web/pkg', 'gguf_wasm', 512 << 20]);
  assert.ok(viewer.wasmOpt.startsWith('-O1 '), 'the viewer keeps its size-tuned wasm-opt pass');
  assert.deepEqual([simd.outDir, simd.rustflags], ['web/pkg-values-simd', '-C target-feature=+simd128']);
  assert.notEqual(simd.profile, values.profile);
  assert.equal(values.rustflags, '');
});

test('the loader knows every module where the build puts it, and each module reports the cap it was built with', async () => {
  const modules = wasmModules();
  const loaded = Object.entries(MODULES).map(([name, m]) => [`web/${m.dir}`, m.name, name]);
  assert.deepEqual(loaded.map(([dir, name]) => [dir, name]).sort(), modules.map((m) => [m.outDir, m.outName]).sort());
  // Each module's wasm file is named by a literal URL (what bundlers follow): its dir and name.
  for (const m of Object.values(MODULES)) assert.ok(m.wasm().href.endsWith(`/web/${m.dir}/${m.name}_bg.wasm`), m.dir);
  for (const [dir, , name] of loaded) {
    const { maxMemory } = await loadModule(name);
    assert.equal(maxMemory, modules.find((m) => m.outDir === dir).maxMemory, name);
  }
});

test('a manifest that is wrong is refused, naming the entry and the field', () => {
  const good = readFileSync(new URL('../../wasm-pack.toml', import.meta.url), 'utf8');
  assert.throws(() => wasmModules('[[module]]\nfeature = "x"\n'), /module #1 \(x\): profile is missing/);
  assert.throws(
    () =>
      wasmModules(
        `${good}\n[[module]]\nfeature = "y"\nprofile = "p"\nout-dir = "web/pkg"\nout-name = "n"\nmax-memory = 65536\nloaded-by = "z"\n`,
      ),
    /module #10 \(y\): another module is written to web\/pkg too/,
  );
  assert.throws(
    () =>
      wasmModules(
        '[[module]]\nfeature = "x"\nprofile = "p"\nout-dir = "o"\nout-name = "n"\nmax-memory = "big"\nloaded-by = "z"\n',
      ),
    /max-memory must be a number of bytes/,
  );
  assert.throws(
    () =>
      wasmModules(
        '[[module]]\nfeature = "x"\nprofile = "p"\nout-dir = "o"\nout-name = "n"\nmax-memory = 1000\nloaded-by = "z"\n',
      ),
    /multiple of 64 KiB/,
  );
  assert.throws(() => wasmModules('[[module]]\nfeature = "x"\nprofle = "p"\n'), /unknown field profle/);
  assert.throws(() => wasmModules('[[module]\n'), /./, 'not TOML');
  assert.throws(() => wasmModules('[package]\ncrate = "x"\n'), /unknown top-level package/);
});
