// `compare(a, b)` (web/compare.js, with the diff and values modules in a worker) under Node: a file against
// itself is the same; two files give exactly the document `ggufscope diff --json` prints for them
// (but the names); only the two headers are read, even of the 40 GB sparse file; a URL is read
// with Range requests; a malformed file rejects with a ParseError saying which. With `values`:
// builder-made F32 / Q8_0 / Q4_0 models give exactly `diff --json --values`'s document, split
// models given as several files too; only the compared tensors' bytes are read, in slices of at
// most 2^20 values; a measure can be cancelled; a URL's values are read with Range requests.
// Run: node --test web/test/compare.test.mjs (after scripts/build-web.sh).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

import { Comparison, compare } from '../compare.js';
import * as gguf from '../gguf.js';
import { isParseError } from '../protocol.js';
import { readsAhead } from '../tools.js';
import { hugeFileBlob } from './huge-file.mjs';
import { startModelServer } from '../../scripts/model-server.mjs';
import { ggufscopeBin, linkBuiltFixture } from './paths.mjs';

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
/** The core's first header read (gguf_core::read::FIRST_READ). */
const FIRST_READ = 256 * 1024;

/** Runs the CLI (`ggufscope ARGS…`); its stdout, whatever its exit status. */
function ggufscope(...args) {
  const run = spawnSync(ggufscopeBin(), args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status === 2 || run.status === null) throw new Error(`ggufscope ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** `file`, recording every read made of it as `[start, end]`. */
function recording(file) {
  const reads = [];
  return {
    reads,
    blob: {
      size: file.size,
      slice(start, end) {
        const part = file.slice(start, end);
        return { arrayBuffer: () => (reads.push([start, end]), part.arrayBuffer()) };
      },
    },
  };
}

test('gguf.js exports compare', () => {
  assert.equal(gguf.compare, compare);
});

test('a file against itself: same, no differences, every tensor the same', async () => {
  for (const name of ['real/ggml-vocab-phi-3.gguf', 'synth/all-types.gguf', 'synth/sparse/moe-llama-8x.gguf']) {
    const file = await openAsBlob(`${fixtures}${name}`);
    const doc = await compare(file, file, { names: ['A', 'B'] });
    assert.equal(doc.same, true, name);
    assert.equal(doc.differences, 0, name);
    assert.deepEqual([doc.a, doc.b], ['A', 'B']);
    assert.deepEqual(doc.metadata, { added: [], removed: [], changed: [] }, name);
    assert.deepEqual([doc.tensors.added, doc.tensors.removed, doc.tensors.changed], [[], [], []], name);
    assert.ok(doc.summary.length > 0 && doc.summary.every((row) => !row.differs), name);
  }
});

test('two files: exactly the document `ggufscope diff --json` prints, but the names', async () => {
  const dir = mkdtempSync(`${tmpdir()}/compare-`);
  try {
    const phi = `${fixtures}real/ggml-vocab-phi-3.gguf`;
    const edited = `${dir}/edited.gguf`;
    writeFileSync(`${dir}/template.jinja`, '{% for m in messages %}\n{{ m.content }}\n{% endfor %}\n');
    ggufscope(
      'edit',
      phi,
      '-o',
      edited,
      '--set',
      'general.name=x',
      '--set-file',
      `tokenizer.chat_template=${dir}/template.jinja`,
    );
    const pairs = [
      [phi, edited],
      [edited, phi],
      [`${fixtures}real/ggml-vocab-llama-spm.gguf`, `${fixtures}real/ggml-vocab-qwen2.gguf`],
      [`${fixtures}synth/sparse/gqa-llama-1.1b.gguf`, `${fixtures}synth/sparse/moe-llama-8x.gguf`],
    ];
    for (const [a, b] of pairs) {
      const cli = JSON.parse(ggufscope('diff', '--json', a, b));
      const doc = await compare(await openAsBlob(a), await openAsBlob(b), { names: [a, b] });
      assert.deepEqual(doc, cli, `${a} ${b}`);
      assert.equal(doc.same, false);
    }
    // The default names: a File's, else 'a' and 'b'.
    const doc = await compare(await openAsBlob(phi), await openAsBlob(edited));
    assert.deepEqual([doc.a, doc.b], ['a', 'b']);
    assert.deepEqual(
      doc.metadata.changed.map((c) => c.key),
      ['general.name', 'tokenizer.chat_template'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('only the headers are read: the 40 GB sparse file in one read, the other up to its data offset', async () => {
  const dir = execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`], { encoding: 'utf8' }).trim();
  const file = await hugeFileBlob(`${dir}/big-40g-sparse.gguf`);
  try {
    const [a, b] = [recording(file), recording(await openAsBlob(`${fixtures}synth/sparse/moe-llama-8x.gguf`))];
    const t0 = performance.now();
    const doc = await compare(a.blob, b.blob);
    const ms = performance.now() - t0;
    assert.equal(file.size, 41812404288);
    assert.deepEqual(a.reads, [[0, FIRST_READ]], "one read: the decoder's first, which holds the 10 KB header");
    // B's header (855 KB) in reads one after another, none past its data offset.
    const dataOffset = doc.summary.find((r) => r.field === 'data_offset').b;
    assert.ok(
      b.reads.every(([start], i) => start === (i ? b.reads[i - 1][1] : 0)),
      JSON.stringify(b.reads),
    );
    assert.ok(b.reads.at(-1)[1] <= dataOffset, `${JSON.stringify(b.reads)}, data at ${dataOffset}`);
    assert.equal(doc.same, false);
    assert.ok(ms < 5000, `${ms} ms`);
    const self = await compare(file, file);
    assert.equal(self.same, true);
    assert.ok(self.tensors.same > 0);
  } finally {
    await file.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a URL: its header read with Range requests, the document the same as for the file', async () => {
  const server = await startModelServer(`${fixtures}real`);
  try {
    const url = `${server.origin}/ggml-vocab-phi-3.gguf`;
    const file = await openAsBlob(`${fixtures}real/ggml-vocab-phi-3.gguf`);
    const doc = await compare(url, await openAsBlob(`${fixtures}real/ggml-vocab-qwen2.gguf`));
    assert.equal(doc.a, 'ggml-vocab-phi-3.gguf', 'a URL is named by its file name');
    assert.deepEqual(
      { ...doc, a: 'a', b: 'b' },
      await compare(file, await openAsBlob(`${fixtures}real/ggml-vocab-qwen2.gguf`)),
    );
    assert.ok(
      server.requests.length > 0 && server.requests.every((r) => r.range?.startsWith('bytes=')),
      JSON.stringify(server.requests),
    );
    assert.equal((await compare(new URL(url), file)).same, true);
  } finally {
    await server.close();
  }
});

test('a malformed file rejects with a ParseError saying which file', async () => {
  const good = await openAsBlob(`${fixtures}synth/all-types.gguf`);
  const bad = new Blob([new TextEncoder().encode('GGUF but not really')]);
  for (const [a, b, side] of [
    [bad, good, 'a'],
    [good, bad, 'b'],
  ]) {
    const e = await compare(a, b).then(
      () => assert.fail('no rejection'),
      (e) => e,
    );
    assert.ok(isParseError(e), JSON.stringify(e));
    assert.deepEqual([e.code, e.file], ['unsupported-version', side]); // "GGUF", then " but" as the version
  }
  // The module is still usable.
  assert.equal((await compare(good, good)).same, true);
});

// ----------------------------------------------------------------------------------- values

/** The builder-made models (write-fixtures' value-pairs), linked into a new directory. */
function valueModels() {
  const dir = mkdtempSync(`${tmpdir()}/compare-values-`);
  linkBuiltFixture('value-pairs', dir);
  return dir;
}

test('values: exactly the document `ggufscope diff --json --values` prints, for Q8_0 and Q4_0 against F32', async () => {
  const dir = valueModels();
  try {
    const a = `${dir}/f32.gguf`;
    for (const b of [`${dir}/q8_0.gguf`, `${dir}/q4_0.gguf`]) {
      const cli = JSON.parse(ggufscope('diff', '--json', '--values', a, b));
      const doc = await compare(await openAsBlob(a), await openAsBlob(b), { names: [a, b], values: true });
      assert.deepEqual(doc, cli, b);
      assert.equal(doc.values.length, 8);
      const q = doc.values.find((v) => v.name === 'blk.0.ffn_up.weight');
      assert.ok(
        q.rmse > 0 && q.max_abs > 0 && q.cosine < 1 && q.cosine > 0.99 && Number.isFinite(q.snr_db),
        JSON.stringify(q),
      );
      assert.deepEqual([q.n, q.type_a], [4096, 'F32']);
      // F16 holds blk.1.ffn_up's values exactly: no error.
      const exact = doc.values.find((v) => v.name === 'blk.1.ffn_up.weight');
      assert.deepEqual(
        [exact.type_b, exact.rmse, exact.max_abs, exact.cosine, exact.snr_db, exact.exact],
        ['F16', 0, 0, 1, 'inf', true],
      );
      assert.deepEqual(
        doc.layers.map((l) => l.layer),
        [0, 1, 2, null],
      );
      // Named tensors: as `--tensor`.
      const named = await compare(await openAsBlob(a), await openAsBlob(b), {
        names: [a, b],
        values: ['blk.2.attn_q.weight', 'output_norm.weight'],
      });
      assert.deepEqual(
        named,
        JSON.parse(
          ggufscope(
            'diff',
            '--json',
            '--values',
            '--tensor',
            'blk.2.attn_q.weight',
            '--tensor',
            'output_norm.weight',
            a,
            b,
          ),
        ),
      );
    }
    // Without `values`, no `values`: the header document as before.
    const plain = await compare(await openAsBlob(a), await openAsBlob(`${dir}/q8_0.gguf`));
    assert.equal('values' in plain || 'layers' in plain, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('values: a tensor whose bytes pass the end of its file rejects, naming it as the CLI does', async () => {
  const path = `${fixtures}synth/truncated-in-data.gguf`;
  const cli = spawnSync(ggufscopeBin(), ['diff', '--values', path, path], { encoding: 'utf8' });
  assert.equal(cli.status, 2);
  const file = await openAsBlob(path);
  const e = await compare(file, file, { names: [path, path], values: true }).then(
    () => assert.fail('no rejection'),
    (e) => e,
  );
  assert.equal(`ggufscope: ${e.message}\n`, cli.stderr);
  assert.match(
    e.message,
    /tensor "f32": the tensor's bytes end at offset 68920, past the end of the file \(68906 bytes\)$/,
  );
});

test('values of split models given as several files: the model as one, as the CLI compares it', async () => {
  const dir = valueModels();
  try {
    const shards = async (stem) =>
      [
        await openAsBlob(`${dir}/${stem}-00002-of-00002.gguf`),
        await openAsBlob(`${dir}/${stem}-00001-of-00002.gguf`),
      ].map((blob, i) => Object.assign(blob, { name: `${stem}-0000${2 - i}-of-00002.gguf` }));
    const [a, b] = [`${dir}/f32.gguf`, `${dir}/q8_0-00001-of-00002.gguf`];
    const cli = JSON.parse(ggufscope('diff', '--json', '--values', a, b));
    const doc = await compare(await openAsBlob(a), await shards('q8_0'), { names: [a, b], values: true });
    assert.deepEqual(doc, cli);
    assert.deepEqual(
      doc.metadata.added.map((e) => e.key),
      ['split.no', 'split.count', 'split.tensors.count'],
    );
    assert.equal(doc.values.length, 8);
    // Both split, by default named by their first file: the same values as the single files'.
    const both = await compare(await shards('f32'), await shards('q8_0'), { values: true });
    assert.equal(both.a, 'f32-00002-of-00002.gguf');
    const single = await compare(await openAsBlob(a), await openAsBlob(`${dir}/q8_0.gguf`), { values: true });
    assert.deepEqual(both.values, single.values);
    assert.deepEqual(both.layers, single.layers);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("values: only the compared tensors' bytes are read, each once, in order", async () => {
  const dir = valueModels();
  try {
    const [pathA, pathB] = [`${dir}/f32.gguf`, `${dir}/q4_0.gguf`];
    const [a, b] = [recording(await openAsBlob(pathA)), recording(await openAsBlob(pathB))];
    const comparison = await Comparison.open(a.blob, b.blob);
    try {
      const [headerA, headerB] = [a.reads.length, b.reads.length];
      const progress = [];
      const result = await comparison.measure(['blk.2.ffn_down.weight'], { onProgress: (p) => progress.push(p) });
      const info = (path) =>
        JSON.parse(ggufscope('info', '--json', path)).tensors.find((t) => t.name === 'blk.2.ffn_down.weight');
      const [ta, tb] = [info(pathA), info(pathB)];
      // 1.5 × 2^20 values, compared in two steps: each tensor (6 MiB of F32, its Q4_0) is one read
      // ahead of them (web/tools.js reads in slices of 8 MiB).
      const step = 2 ** 20;
      assert.deepEqual(a.reads.slice(headerA), [[ta.absolute_offset, ta.absolute_offset + ta.n_bytes]]);
      assert.deepEqual(b.reads.slice(headerB), [[tb.absolute_offset, tb.absolute_offset + tb.n_bytes]]);
      assert.deepEqual(
        result.values.map((v) => v.name),
        ['blk.2.ffn_down.weight'],
      );
      assert.equal(result.values[0].n, 1.5 * step);
      assert.deepEqual(
        result.layers.map((l) => [l.layer, l.tensors]),
        [[2, 1]],
      );
      const last = progress.at(-1);
      assert.deepEqual(
        [last.pairs, last.done, last.bytesRead, last.bytesTotal],
        [1, 0, ta.n_bytes + tb.n_bytes, ta.n_bytes + tb.n_bytes],
      );
      // A name that is not a pair says why.
      await assert.rejects(comparison.measure(['nope']), /no tensor named "nope" in either model/);
    } finally {
      comparison.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("values: a tensor's bytes are read ahead in slices, and each step's bytes are the file's, across slices", async () => {
  const file = new Uint8Array(1000).map((_, i) => (i * 7919) % 251);
  const { blob, reads } = recording(new Blob([file]));
  const reader = readsAhead(blob, 37, 900, 'a', { sliceBytes: 64 });
  // Steps of every length, some within a slice and some across two or three.
  for (let at = 37, n = 1; at < 937; at += n, n = (n * 5 + 3) % 150 || 1) {
    const count = Math.min(n, 937 - at);
    assert.deepEqual(await reader.take(at, count), file.subarray(at, at + count), `bytes ${at}…${at + count}`);
  }
  assert.deepEqual(
    reads,
    Array.from({ length: 15 }, (_, i) => [37 + 64 * i, Math.min(937, 37 + 64 * (i + 1))]),
    'each byte once, in order, in slices',
  );
  const fresh = readsAhead(blob, 37, 900, 'b', { sliceBytes: 64 });
  await assert.rejects(fresh.take(200, 10), /bytes 200… of side b are not the next to read/);
});

test('a URL of one shard brings its siblings, as the CLI reads it: the split model as one', async () => {
  const dir = valueModels();
  const server = await startModelServer(dir);
  try {
    // The CLI on the same shard's path (it finds the siblings beside it): a synchronous run here
    // would stall this process's server.
    const [a, b] = [`${dir}/f32.gguf`, `${dir}/q8_0-00002-of-00002.gguf`];
    const cli = JSON.parse(ggufscope('diff', '--json', '--values', a, b));
    const doc = await compare(await openAsBlob(a), `${server.origin}/q8_0-00002-of-00002.gguf`, {
      names: [a, b],
      values: true,
    });
    assert.deepEqual(doc, cli);
    assert.equal(doc.values.length, 8, "both shards' tensors");
    const asked = new Set(server.requests.map((r) => r.url));
    assert.deepEqual([...asked].sort(), ['/q8_0-00001-of-00002.gguf', '/q8_0-00002-of-00002.gguf']);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('values: a measure cancelled keeps the pairs measured before; a URL is read with Range requests', async () => {
  const dir = valueModels();
  const server = await startModelServer(dir);
  try {
    const local = await compare(await openAsBlob(`${dir}/f32.gguf`), await openAsBlob(`${dir}/q8_0.gguf`), {
      values: true,
    });
    const comparison = await Comparison.open(`${server.origin}/f32.gguf`, `${server.origin}/q8_0.gguf`);
    try {
      const controller = new AbortController();
      const cancelled = comparison.measure(true, {
        signal: controller.signal,
        onProgress: (p) => p.done === 3 && controller.abort(new DOMException('cancelled', 'AbortError')),
      });
      await assert.rejects(cancelled, { name: 'AbortError' });
      const kept = comparison.document({ values: true });
      assert.deepEqual(kept.values, local.values.slice(0, 3));
      assert.deepEqual(comparison.measuredValues(), { values: kept.values, layers: kept.layers });
      await comparison.measure(true);
      const doc = comparison.document({ values: true });
      assert.deepEqual({ ...doc, a: 'a', b: 'b' }, { ...local, a: 'a', b: 'b' });
    } finally {
      comparison.close();
    }
    assert.ok(
      server.requests.length > 0 && server.requests.every((r) => r.range?.startsWith('bytes=')),
      JSON.stringify(server.requests),
    );
    assert.equal(comparison.closed, true);
    assert.throws(() => comparison.document(), /closed/);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
