// The one engine host (gguf-client.js, gguf-worker.js, tools.js) under Node, where its worker is
// a worker_threads worker: edit, compare and upstream on a model a client has open take its
// headers as they were read — for a URL, no new request for a header, only the tensor data a
// comparison of values reads, and the same answers as from the file afresh —; a trap in each
// kind of module (viewer, values, edit, diff, upstream, template) is one ParserFailure, and the
// next request runs in a fresh worker.
// Run: node --test web/test/engine.test.mjs (after scripts/build-web.sh).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { openAsBlob, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { GgufClient, ParserFailure } from '../gguf-client.js';
import { compare } from '../compare.js';
import { editSession, editWithChanges } from '../edit.js';
import { repositoriesOf, upstream, upstreamRepositories } from '../upstream.js';
import { startModelServer } from '../../scripts/model-server.mjs';
import { builtFixture } from './paths.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const fixtures = `${repo}../shared/fixtures/`;
const ALL_TYPES = `${fixtures}synth/all-types.gguf`;

let server;

before(async () => {
  server = await startModelServer(`${fixtures}synth`);
});

after(async () => {
  await server?.close();
});

/** What `promise` rejects with (it must reject). */
const rejection = (promise) =>
  promise.then(
    () => assert.fail('no rejection'),
    (e) => e,
  );

test('compare, upstream and edits of a URL model a client has open ask the server for no header again', async () => {
  const url = `${server.origin}/all-types.gguf`;
  const viewer = new GgufClient();
  try {
    const { report } = await viewer.openUrl(url);
    const model = await viewer.opened();
    assert.deepEqual(
      model.files.map((f) => [f.name, f.size, f.url]),
      [['all-types.gguf', report.file_size, url]],
    );
    const seen = server.requests.length;
    const other = await openAsBlob(`${fixtures}synth/quants.gguf`);
    const diff = await compare(model, other, { names: ['a', 'b'] });
    const checked = await upstream(
      model.files[0],
      { config: '{"hidden_size": 1}' },
      { fileName: 'all-types.gguf', sourceName: 'files' },
    );
    const repos = await repositoriesOf(model.files[0]);
    const session = await editSession(model.files[0]);
    const refused = await session.check([{ set: 'general.alignment', value: 64 }]);
    session.free();
    assert.deepEqual(server.requests.slice(seen), [], 'no request at all');
    // The same answers as from the file read afresh.
    const file = await openAsBlob(ALL_TYPES);
    assert.deepEqual(diff, await compare(file, other, { names: ['a', 'b'] }));
    assert.deepEqual(
      checked,
      await upstream(file, { config: '{"hidden_size": 1}' }, { fileName: 'all-types.gguf', sourceName: 'files' }),
    );
    assert.deepEqual(repos, upstreamRepositories(report.metadata));
    // The repositories a file names are the core's (gguf_upstream::repositories); the package's
    // synchronous upstreamRepositories gives the same.
    const named = await editWithChanges(file, [
      { set: 'general.source.url', value: 'https://huggingface.co/google/gemma-3-270m-it/tree/main', type: 'STRING' },
      { set: 'general.base_model.0.repo_url', value: 'https://huggingface.co/google/gemma-3-270m', type: 'STRING' },
      { set: 'general.base_model.1.repo_url', value: 'https://huggingface.co/../etc', type: 'STRING' },
      { set: 'general.source.huggingface.repository', value: 'google/gemma-3-270m-it', type: 'STRING' },
    ]);
    const core = await repositoriesOf(named.file);
    assert.deepEqual(
      core.map((r) => r.repo),
      ['google/gemma-3-270m-it', 'google/gemma-3-270m'],
    );
    const reader = new GgufClient();
    try {
      assert.deepEqual(core, upstreamRepositories((await reader.open(named.file)).report.metadata));
    } finally {
      reader.close();
    }
    assert.deepEqual(
      refused.refusals.map((r) => r.code),
      ['alignment'],
    );
  } finally {
    viewer.close();
  }
});

test('values of a URL model a client has open: only its tensor data is asked for, none of its header', async () => {
  // The 40 GB sparse file: a 10 KB header, read in the viewer's first request; its tensors far past it.
  const dir = execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`], { encoding: 'utf8' }).trim();
  const models = await startModelServer(dir);
  const viewer = new GgufClient();
  try {
    const { report, stats } = await viewer.openUrl(`${models.origin}/big-40g-sparse.gguf`);
    const small = report.tensors
      .filter((t) => t.n_bytes <= 1 << 20)
      .slice(0, 3)
      .map((t) => t.name);
    assert.equal(small.length, 3);
    const seen = models.requests.length;
    const model = await viewer.opened();
    const values = await compare(model, model, { names: ['a', 'a'], values: small });
    assert.deepEqual(
      values.values.map((v) => [v.name, v.exact]),
      small.map((name) => [name, true]),
    );
    const asked = models.requests.slice(seen).map((r) => Number(/^bytes=(\d+)-/.exec(r.range)?.[1]));
    assert.ok(asked.length >= small.length, JSON.stringify(asked));
    assert.ok(
      asked.every((start) => start >= stats.bytesRead && start >= report.data_offset),
      `${JSON.stringify(asked)}: all past the ${stats.bytesRead} bytes read`,
    );
  } finally {
    viewer.close();
    await models.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an edit of a file a client has open takes its header as read: the same file as from the file itself', async () => {
  const viewer = new GgufClient();
  try {
    const file = await openAsBlob(ALL_TYPES);
    await viewer.open(file);
    const model = await viewer.opened();
    assert.equal(model.files[0].file, file, 'the page keeps its own File');
    const edits = [{ set: 'general.name', value: 'from the head' }];
    const [made, fresh] = [await editWithChanges(model.files[0], edits), await editWithChanges(file, edits)];
    assert.deepEqual(new Uint8Array(await made.file.arrayBuffer()), new Uint8Array(await fresh.file.arrayBuffer()));
    assert.deepEqual(made.read, fresh.read);
  } finally {
    viewer.close();
  }
});

/** Asserts that `e` is the one failure, of a module that trapped (or ran past its time limit). */
function assertFailure(e, what) {
  assert.ok(e instanceof ParserFailure, `${what}: ${e?.stack ?? JSON.stringify(e)}`);
  assert.equal(e.name, 'ParserFailure', what);
  assert.ok(['out-of-memory', 'crashed', 'stalled'].includes(e.code), `${what}: ${e.code}`);
  assert.deepEqual([e.offset, e.context], [null, null], what);
}

test(
  'a trap in each kind of module is a ParserFailure, and the next request runs in a fresh worker',
  { timeout: 600_000 },
  async () => {
    const hostile = await openAsBlob(builtFixture('heavy-headers/empty-arrays.gguf'));
    const good = await openAsBlob(ALL_TYPES);

    // The viewer's module: a header past its memory cap.
    const viewer = new GgufClient();
    try {
      const e = await rejection(viewer.open(hostile));
      assertFailure(e, 'viewer');
      assert.equal(e.code, 'out-of-memory');
      assert.match(
        e.message,
        /^the parser crashed \(out of memory: this file needs more than the 512 MiB the parser may use\); it was restarted$/,
      );
      const generation = viewer.generation;
      assert.equal((await viewer.open(good)).report.file_size, good.size);
      assert.equal(viewer.generation, generation + 1, 'a fresh worker');

      // The values module, in the viewer's worker: a histogram of 2^28 bins for a peek.
      const peek = await rejection(viewer.tensorPeek(0, { bins: 2 ** 28, first: 1 }));
      assertFailure(peek, 'values');
      const again = viewer.generation;
      await viewer.open(good);
      assert.ok((await viewer.tensorPeek(0, { bins: 8, first: 1 })).stats.count > 0);
      assert.equal(viewer.generation, again + 1);
    } finally {
      viewer.close();
    }

    // The edit, diff and upstream modules, in the tools' worker: the same header.
    const tools = GgufClient.shared();
    for (const [what, work] of [
      ['edit', () => editWithChanges(hostile, [])],
      ['diff', () => compare(hostile, good)],
      ['upstream', () => upstream(hostile, { config: '{}' })],
    ]) {
      const generation = tools.generation;
      const e = await rejection(work());
      assertFailure(e, what);
      assert.equal(e.code, 'out-of-memory', what);
      assert.match(e.message, /512 MiB|256 MiB/, what);
      assert.equal((await compare(good, good)).same, true, `${what}: a comparison after it`);
      assert.equal(tools.generation, generation + 1, `${what}: in a fresh worker`);
    }

    // The template engine, in a worker of its own: a template past its 256 MiB.
    const engine = new GgufClient({ tools: true, name: 'the template engine' });
    try {
      const e = await rejection(
        engine.renderTemplate('x'.repeat(100e6), {
          chat: { bos: '', eos: '', addBos: false, addEos: false },
          addGenerationPrompt: true,
        }),
      );
      assertFailure(e, 'template');
      const generation = engine.generation;
      const chat = { bos: '<s>', eos: '', addBos: false, addEos: false };
      assert.equal(
        (await engine.renderTemplate('{{ bos_token }}ok', { chat, addGenerationPrompt: true })).prompt,
        '<s>ok',
      );
      assert.equal(engine.generation, generation + 1);
    } finally {
      engine.close();
    }
  },
);
