// `compare(a, b)` (web/compare.js, with the gguf-diff-wasm module) under Node: a file against
// itself is the same; two files give exactly the document `ggufscope diff --json` prints for them
// (but the names); only the two headers are read, even of the 40 GB sparse file; a URL is read
// with Range requests; a malformed file rejects with a ParseError saying which.
// Run: node --test web/test/compare.test.mjs (after scripts/build-web.sh).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

import { compare } from '../compare.js';
import * as gguf from '../gguf.js';
import { isParseError } from '../protocol.js';
import { hugeFileBlob } from './huge-file.mjs';
import { startModelServer } from '../../scripts/model-server.mjs';

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const repo = fileURLToPath(new URL('../../', import.meta.url));
/** The core's first header read (gguf_core::read::FIRST_READ). */
const FIRST_READ = 256 * 1024;

/** Runs the CLI (`ggufscope ARGS…`), the release build; its stdout, whatever its exit status. */
function ggufscope(...args) {
  const run = spawnSync('cargo', ['run', '--quiet', '--release', '-p', 'gguf-cli', '--', ...args], { cwd: repo, encoding: 'utf8', maxBuffer: 1 << 28 });
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
    ggufscope('edit', phi, '-o', edited, '--set', 'general.name=x', '--set-file', `tokenizer.chat_template=${dir}/template.jinja`);
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
    assert.deepEqual(doc.metadata.changed.map((c) => c.key), ['general.name', 'tokenizer.chat_template']);
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
    assert.deepEqual(a.reads, [[0, FIRST_READ]], 'one read: the decoder\'s first, which holds the 10 KB header');
    // B's header (855 KB) in reads one after another, none past its data offset.
    const dataOffset = doc.summary.find((r) => r.field === 'data_offset').b;
    assert.ok(b.reads.every(([start], i) => start === (i ? b.reads[i - 1][1] : 0)), JSON.stringify(b.reads));
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
    assert.deepEqual({ ...doc, a: 'a', b: 'b' }, await compare(file, await openAsBlob(`${fixtures}real/ggml-vocab-qwen2.gguf`)));
    assert.ok(server.requests.length > 0 && server.requests.every((r) => r.range?.startsWith('bytes=')), JSON.stringify(server.requests));
    assert.equal((await compare(new URL(url), file)).same, true);
  } finally {
    await server.close();
  }
});

test('a malformed file rejects with a ParseError saying which file', async () => {
  const good = await openAsBlob(`${fixtures}synth/all-types.gguf`);
  const bad = new Blob([new TextEncoder().encode('GGUF but not really')]);
  for (const [a, b, side] of [[bad, good, 'a'], [good, bad, 'b']]) {
    const e = await compare(a, b).then(() => assert.fail('no rejection'), (e) => e);
    assert.ok(isParseError(e), JSON.stringify(e));
    assert.equal(e.file, side);
  }
  // The module is still usable.
  assert.equal((await compare(good, good)).same, true);
});
