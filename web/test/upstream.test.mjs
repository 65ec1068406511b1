// `upstream(file, source)` (web/upstream.js, with the upstream module in a worker) under Node: the
// fixtures against their configurations (crates/gguf-upstream/tests/data) give exactly the
// document `ggufscope upstream --json` prints for them — from the texts, from Files, and from a
// base URL served on loopback (a file the server lacks left out, as the CLI leaves it) —; a
// changed field is that field `differs`; bad upstream files reject naming the file; the
// repositories a file names become Hugging Face base URLs.
// Run: node --test web/test/upstream.test.mjs (after scripts/build-web.sh).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openAsBlob, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

import { UPSTREAM_FILES, fetchUpstream, upstream, upstreamRepositories, visibleText } from '../upstream.js';
import * as gguf from '../gguf.js';
import { startModelServer } from '../../scripts/model-server.mjs';
import { GEMMA, ggufscopeBin, noGemma } from './paths.mjs';

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const repo = fileURLToPath(new URL('../../', import.meta.url));
const data = `${repo}crates/gguf-upstream/tests/data/`;

/** The fixtures and their configurations' directories. */
const MODELS = [
  [`${fixtures}real/ggml-vocab-llama-spm.gguf`, 'llama-spm'],
  [`${fixtures}real/ggml-vocab-qwen2.gguf`, 'qwen2'],
  [`${fixtures}real/ggml-vocab-phi-3.gguf`, 'phi-3'],
  [`${fixtures}real/ggml-vocab-command-r.gguf`, 'command-r'],
  [`${fixtures}real/ggml-vocab-bert-bge.gguf`, 'bert-bge'],
  [`${fixtures}real/ggml-vocab-deepseek-llm.gguf`, 'deepseek-llm'],
  ...(noGemma() ? [] : [[GEMMA, 'gemma-3-270m']]),
];

/**
 * Runs the CLI (`ggufscope ARGS…`): `{status, stdout, stderr}`. Not blocking:
 * a test's server in this process must answer it.
 */
function ggufscope(...args) {
  const child = spawn(ggufscopeBin(), args);
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d) => (out.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (out.stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) =>
      status === null ? reject(new Error(`ggufscope ${args.join(' ')}: ${out.stderr}`)) : resolve({ status, ...out }),
    );
  });
}

/** `ggufscope upstream --json FILE SOURCE`'s document; the exit status must be 0 or 1. */
async function cliDocument(file, source) {
  const run = await ggufscope('upstream', '--json', file, source);
  assert.ok(run.status === 0 || run.status === 1, `exit ${run.status}: ${run.stderr}`);
  const doc = JSON.parse(run.stdout);
  assert.equal(run.status, doc.differences > 0 ? 1 : 0);
  return doc;
}

/** The texts in `dir`, by upstream()'s names (as Files with `asFiles`). */
async function textsIn(dir, { asFiles = false } = {}) {
  const texts = {};
  for (const [name, field] of UPSTREAM_FILES) {
    if (existsSync(`${dir}/${name}`))
      texts[field] = asFiles ? await openAsBlob(`${dir}/${name}`) : readFileSync(`${dir}/${name}`, 'utf8');
  }
  return texts;
}

test('gguf.js exports upstream, fetchUpstream and upstreamRepositories', () => {
  assert.equal(gguf.upstream, upstream);
  assert.equal(gguf.fetchUpstream, fetchUpstream);
  assert.equal(gguf.upstreamRepositories, upstreamRepositories);
});

test("each fixture against its configuration: exactly the CLI's document, no differences", async () => {
  for (const [file, dir] of MODELS) {
    const cli = await cliDocument(file, `${data}${dir}`);
    for (const asFiles of [false, true]) {
      const doc = await upstream(await openAsBlob(file), await textsIn(`${data}${dir}`, { asFiles }), {
        fileName: file,
        sourceName: `${data}${dir}`,
      });
      assert.deepEqual(doc, cli, `${dir} (${asFiles ? 'Files' : 'texts'})`);
    }
    assert.equal(cli.differences, 0, dir);
    assert.ok(cli.checks.filter((c) => c.status === 'same').length >= 6, dir);
  }
});

test('a changed field, a changed template: that field differs, the same as the CLI says', async () => {
  const scratch = mkdtempSync(`${tmpdir()}/upstream-`);
  try {
    const phi = `${fixtures}real/ggml-vocab-phi-3.gguf`;
    const config = JSON.parse(readFileSync(`${data}phi-3/config.json`, 'utf8'));
    config.rope_theta = 500000;
    writeFileSync(`${scratch}/config.json`, JSON.stringify(config));
    writeFileSync(`${scratch}/tokenizer_config.json`, readFileSync(`${data}phi-3/tokenizer_config.json`));
    writeFileSync(`${scratch}/chat_template.jinja`, '{% for m in messages %}\r\n{{ m.content }}\r\n{% endfor %}');
    const cli = await cliDocument(phi, scratch);
    const doc = await upstream(await openAsBlob(phi), await textsIn(scratch), { fileName: phi, sourceName: scratch });
    // The CLI renders the two templates too (`prompts`); the upstream module has no template
    // engine: the rest is the same document.
    assert.equal(cli.checks.find((c) => c.field === 'chat_template').prompts.conversations, 4);
    for (const c of cli.checks) delete c.prompts;
    assert.deepEqual(doc, cli);
    const differing = doc.checks.filter((c) => c.status === 'differs' || c.status === 'missing-in-gguf');
    assert.deepEqual(
      differing.map((c) => [c.field, c.status]),
      [
        ['rope_theta', 'differs'],
        ['chat_template', 'differs'],
      ],
    );
    assert.equal(doc.differences, 2);
    const theta = differing[0];
    assert.deepEqual(
      [theta.gguf_key, theta.upstream_key, theta.gguf, theta.upstream],
      ['phi3.rope.freq_base', 'config.json:rope_theta', 10000, 500000],
    );
    assert.match(theta.impact, /rotated at another frequency/);
    const template = differing[1];
    assert.equal(template.upstream_key, 'chat_template.jinja');
    assert.ok(template.diff.hunks[0].lines.includes('+{{ m.content }}'), JSON.stringify(template.diff));
    assert.deepEqual(doc.read, ['config.json', 'tokenizer_config.json', 'chat_template.jinja']);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test("a base URL: the files fetched (one the server lacks left out), the CLI's document", async () => {
  const server = await startModelServer(`${data}`);
  try {
    const phi = `${fixtures}real/ggml-vocab-phi-3.gguf`;
    const base = `${server.origin}/phi-3/`;
    const cli = await cliDocument(phi, base);
    const asked = server.requests.length;
    const doc = await upstream(await openAsBlob(phi), base, { fileName: phi });
    assert.deepEqual(doc, cli);
    assert.equal(doc.source, base);
    assert.deepEqual(doc.read, ['config.json', 'tokenizer_config.json']);
    // The four files asked for, each once; the two phi-3 lacks answered 404.
    const mine = server.requests.slice(asked);
    assert.deepEqual(
      mine.map((r) => [r.url, r.status]),
      [
        ['/phi-3/config.json', 200],
        ['/phi-3/tokenizer_config.json', 200],
        ['/phi-3/generation_config.json', 404],
        ['/phi-3/chat_template.jinja', 404],
      ],
    );
    // A missing final slash is added, as the CLI adds it.
    assert.deepEqual(
      await upstream(await openAsBlob(phi), `${server.origin}/phi-3`, { fileName: phi, sourceName: base }),
      cli,
    );
    await assert.rejects(fetchUpstream(`${server.origin}/nothing-here/`), {
      name: 'HttpError',
      code: 'not-found',
      status: 404,
      message: /nothing-here\/config\.json: no config\.json/,
    });
  } finally {
    await server.close();
  }
});

test('upstream files that are wrong: the error names the file', async () => {
  const phi = await openAsBlob(`${fixtures}real/ggml-vocab-phi-3.gguf`);
  await assert.rejects(
    upstream(phi, { config: '{"hidden_size": ' }),
    /^Error: config\.json: not valid JSON: EOF while parsing/,
  );
  await assert.rejects(upstream(phi, { config: '[1, 2]' }), /config\.json: not a JSON object/);
  await assert.rejects(
    upstream(phi, { config: '{}', tokenizerConfig: 'null' }),
    /tokenizer_config\.json: not a JSON object/,
  );
  await assert.rejects(upstream(phi, { tokenizerConfig: '{}' }), /no config\.json/);
  await assert.rejects(
    upstream(phi, { config: new Blob([new Uint8Array([0x7b, 0xff, 0x7d])], { type: 'application/json' }) }),
    /config\.json: not UTF-8 text/,
  );
  // And a model that is not a GGUF file: a ParseError at its offset.
  await assert.rejects(
    upstream(new Blob(['not a model at all']), { config: '{}' }),
    (e) => e.code === 'not-gguf' && e.offset === 0,
  );
  // After all that, the module still answers.
  assert.equal((await upstream(phi, { config: '{"hidden_size": 3072}' })).differences, 0);
});

test('the repositories a file names, as Hugging Face base URLs', () => {
  const entry = (key, value) => ({ key, type: 'STRING', value });
  const repos = upstreamRepositories([
    entry('general.name', 'x'),
    entry('general.base_model.count', 2),
    entry('general.base_model.0.repo_url', 'https://huggingface.co/google/gemma-3-270m'),
    entry('general.base_model.1.repo_url', 'https://example.com/not/a/hub'),
    entry('general.source.url', 'https://huggingface.co/google/gemma-3-270m-it/tree/main'),
    entry('general.source.huggingface.repository', 'google/gemma-3-270m-it'),
    entry('general.base_model.2.repo_url', 'https://huggingface.co/../etc'),
    entry('general.base_model.3.repo_url', 'https://huggingface.co/org/re\u202Epo'),
  ]);
  assert.deepEqual(repos, [
    {
      key: 'general.source.url',
      repo: 'google/gemma-3-270m-it',
      base: 'https://huggingface.co/google/gemma-3-270m-it/resolve/main/',
    },
    {
      key: 'general.base_model.0.repo_url',
      repo: 'google/gemma-3-270m',
      base: 'https://huggingface.co/google/gemma-3-270m/resolve/main/',
    },
  ]);
  assert.deepEqual(
    upstreamRepositories([entry('general.source.huggingface.repository', 'Qwen/Qwen2.5-0.5B')]).map((r) => r.base),
    ['https://huggingface.co/Qwen/Qwen2.5-0.5B/resolve/main/'],
  );
});

test('visibleText shows what would hide or reorder text', async () => {
  const visible = await visibleText(['Llama-\u202EFUGG.exe', 'a\u200Bb\n\tc\\', '<|im_end|>']);
  assert.deepEqual(visible, ['Llama-\\u{202E}FUGG.exe', 'a\\u{200B}b\\n\\tc\\\\', '<|im_end|>']);
});
