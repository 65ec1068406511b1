// The wasm package's header reads over Node's file-backed Blobs — `readHeader` (the core's read
// rule, as URLs are read) and `streamHeader` (one stream, as local files are read): real and
// synthetic fixtures against gguf-py's reference figures, the same reads as the CLI, other
// chunkings fed by hand, errors, cancellation, paging and the 40 GB sparse file.
// Run: node --test web/test/ (after scripts/build-web.sh).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { openAsBlob, readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

import { GgufModel, GgufSession, initSync } from '../pkg/gguf_wasm.js';
import { readHeader, streamHeader } from '../read-loop.js';
import { readModel } from '../model-reader.js';
import { safeNumbers } from '../numbers.js';
import { isParseError } from '../protocol.js';
import { hugeFileBlob } from './huge-file.mjs';
import { cliReads } from './cli-reads.mjs';
import { GEMMA, noGemma } from './paths.mjs';

initSync({ module: readFileSync(new URL('../pkg/gguf_wasm_bg.wasm', import.meta.url)) });

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const repo = fileURLToPath(new URL('../../', import.meta.url));
/** The core's first header read (gguf_core::read::FIRST_READ). */
const FIRST_READ = 256 * 1024;
const ref = (name) => JSON.parse(readFileSync(`${fixtures}ref/${name}.summary.json`, 'utf8'));

/** A Blob that records the slices taken from it. */
function recording(blob) {
  const slices = [];
  return {
    slices,
    blob: {
      size: blob.size,
      slice(start, end) {
        slices.push([start, end]);
        return blob.slice(start, end);
      },
    },
  };
}

/**
 * Reads `blob`'s header; resolves `{report, stats, slices}` or rejects as `readHeader` does. With
 * `chunk`, feeds a session by hand in chunks of that many bytes instead of the read rule's.
 */
async function read(blob, { chunk, ...options } = {}) {
  const { blob: recorded, slices } = recording(blob);
  const session = chunk ? await feedInChunks(recorded, chunk) : await readHeader(recorded, options);
  const stats = session.stats;
  const model = new GgufModel([session], ['file.gguf']);
  try {
    return { report: safeNumbers(model.report()), stats, slices, model };
  } finally {
    model.free();
  }
}

/** A session fed `chunk` bytes at a time from where the decoder needs them. */
async function feedInChunks(blob, chunk) {
  const session = new GgufSession(blob.size);
  try {
    for (let need = session.nextRead(); need; need = session.nextRead()) {
      const end = Math.min(need.offset + Math.min(chunk, need.length || chunk), blob.size);
      session.feed(new Uint8Array(await blob.slice(need.offset, end).arrayBuffer()));
    }
  } catch (e) {
    session.free();
    throw e;
  }
  return session;
}

async function readError(blob, options) {
  const result = await read(blob, options).then(
    () => null,
    (e) => e,
  );
  assert.ok(isParseError(result), `expected a ParseError, got ${result}`);
  return result;
}

/** The figures gguf-py's reader gives, next to ours. */
function assertMatchesReference(report, r) {
  assert.equal(report.version, r.version);
  assert.equal(report.endianness, r.endian.toLowerCase());
  assert.equal(report.tensor_count, r.tensor_count);
  assert.equal(report.kv_count, r.kv_count);
  assert.equal(report.alignment, r.alignment);
  assert.equal(report.data_offset, r.data_offset);
  assert.equal(report.file_size, r.file_size);
  assert.equal(report.architecture, r.architecture ?? null);
  assert.equal(report.parameters, r.param_count);
  assert.equal(report.tensor_bytes, r.tensor_bytes);
  if (r.vocab_size !== null) assert.equal(report.vocab_size, r.vocab_size);
  for (const [key, kv] of Object.entries(r.kv ?? {})) {
    const entry = report.metadata.find((e) => e.key === key);
    assert.ok(entry, `key ${key} missing`);
    assert.equal(entry.type, kv.type, key);
    assert.equal(entry.offset, kv.offset, key);
  }
  for (const [i, t] of (r.tensors ?? []).entries()) {
    const ours = report.tensors[i];
    assert.equal(ours.name, t.name);
    assert.equal(ours.type, t.type);
    assert.deepEqual(ours.shape, t.shape);
    assert.equal(ours.absolute_offset, t.abs_offset, t.name);
    assert.equal(ours.n_bytes, t.n_bytes, t.name);
  }
}

/** Reads are contiguous from 0, each at least the decoder's need, and stop within one read of the header's end. */
function assertReadsOnce(slices, report) {
  let at = 0;
  for (const [start, end] of slices) {
    assert.equal(start, at, 'each read starts where the previous one ended');
    assert.ok(end > start);
    at = end;
  }
  const last = slices.at(-1);
  assert.ok(at >= report.header_size, 'the reads cover the header');
  assert.ok(last[0] < report.header_size || report.header_size === 0, 'no read after the header was complete');
}

const realFiles = readdirSync(`${fixtures}real`).filter((f) => f.endsWith('.gguf'));
const synthFiles = [
  'all-types.gguf',
  'big-endian.gguf',
  'quants-be.gguf',
  'vocab-llama-spm-be.gguf',
  'unicode-keys.gguf',
  'invalid-utf8.gguf',
  'minimal.gguf',
  'align-4096.gguf',
  'vocab-262k.gguf',
];

for (const name of realFiles) {
  test(`real/${name}: the figures gguf-py reads, reading each byte once`, async () => {
    const { report, slices } = await read(await openAsBlob(`${fixtures}real/${name}`));
    assertReadsOnce(slices, report);
    const r = ref(name);
    if (r.reader_error) {
      // gguf-py refuses dbrx's duplicate key; we keep both entries, in file order.
      assert.match(r.reader_error, /Duplicate general.file_type/);
      const fileTypes = report.metadata.filter((e) => e.key === 'general.file_type');
      assert.equal(fileTypes.length, 2);
      assert.equal(fileTypes[1].offset, 561);
      assert.equal(report.kv_count, 25);
      assert.equal(report.vocab_size, 100352);
    } else {
      assertMatchesReference(report, r);
    }
  });
}

for (const name of synthFiles) {
  test(`synth/${name}: the figures gguf-py reads`, async () => {
    const { report, slices } = await read(await openAsBlob(`${fixtures}synth/${name}`));
    assertReadsOnce(slices, report);
    assertMatchesReference(report, ref(name));
  });
}

test('the complete Gemma model: summary and one read past the header at most', { skip: noGemma() }, async () => {
  const { report, stats } = await read(await openAsBlob(GEMMA));
  assertMatchesReference(report, ref('gemma-3-270m-q4_k_m.gguf'));
  assert.equal(report.parameters, 268098176);
  assert.ok(stats.bytesRead <= 1.25 * report.header_size + FIRST_READ, `read ${stats.bytesRead} bytes`);
});

test('any chunking gives the same report', async () => {
  const cases = [
    ['synth/big-endian.gguf', [{ chunk: 1 }, { chunk: 5 }]],
    ['synth/all-types.gguf', [{ chunk: 7 }, { chunk: 4096 }, { chunk: 100_000 }]],
    ['real/ggml-vocab-command-r.gguf', [{ chunk: 100_000 }, { chunk: 1 << 20 }]],
  ];
  for (const [name, chunkings] of cases) {
    const blob = await openAsBlob(`${fixtures}${name}`);
    const whole = await read(blob);
    for (const options of chunkings) {
      const { report, slices } = await read(blob, options);
      assert.deepEqual(report, whole.report, `${name} ${JSON.stringify(options)}`);
      assertReadsOnce(slices, report);
    }
  }
});

test('reads: at least what the decoder needs, a quarter of what was read before, past the header by little', async () => {
  for (const name of ['real/ggml-vocab-command-r.gguf', 'synth/vocab-262k.gguf', 'synth/all-types.gguf']) {
    const { slices, report, stats } = await read(await openAsBlob(`${fixtures}${name}`));
    const sizes = slices.map(([s, e]) => e - s);
    assert.equal(sizes[0], Math.min(FIRST_READ, report.file_size));
    for (const [i, [start, end]] of slices.entries()) {
      if (end < report.file_size)
        assert.ok(end - start >= Math.max(FIRST_READ, Math.floor(start / 4)), `${name} read ${i}: ${sizes}`);
    }
    assert.ok(
      stats.bytesRead <= 1.25 * report.header_size + FIRST_READ,
      `${name}: ${stats.bytesRead} bytes for ${report.header_size}`,
    );
    assert.ok(stats.reads <= 16, `${name}: ${sizes}`);
  }
});

test('a file cut short: the error names what, where and in which part, whatever the chunking', async () => {
  const cases = [
    ['truncated-in-header.gguf', 'header'],
    ['truncated-in-kv.gguf', 'kv'],
    ['truncated-in-tensor-info.gguf', 'tensor'],
  ];
  for (const [name, section] of cases) {
    const blob = await openAsBlob(`${fixtures}synth/${name}`);
    const error = await readError(blob);
    assert.equal(error.code, 'truncated', name);
    assert.equal(typeof error.offset, 'number');
    assert.ok(error.offset < blob.size, `${name}: offset ${error.offset}`);
    assert.equal(error.context.section, section, name);
    for (const options of [{ chunk: 1 }, { chunk: 1000 }]) {
      if (blob.size > 5000 && options.chunk === 1) continue;
      assert.deepEqual(await readError(blob, options), error, `${name} ${JSON.stringify(options)}`);
    }
  }
  const kv = await readError(await openAsBlob(`${fixtures}synth/truncated-in-kv.gguf`));
  assert.equal(typeof kv.context.index, 'number');
  assert.ok(kv.context.key === null || typeof kv.context.key === 'string');
});

test('not a GGUF file: refused at offset 0 after one read', async () => {
  const { blob, slices } = recording(new Blob(['{"this": "is JSON, not a model"}']));
  const error = await readHeader(blob).catch((e) => e);
  // The one error shape, as the core's ErrorDocument and `ggufscope validate --json` give it.
  assert.deepEqual(error, {
    code: 'not-gguf',
    message: 'not a GGUF file: it starts with 7B 22 74 68, not "GGUF", in the file header',
    offset: 0,
    context: { section: 'header' },
  });
  assert.equal(slices.length, 1);
});

test('a failing or short read is a ParseError with the offset', async () => {
  const file = await openAsBlob(`${fixtures}synth/all-types.gguf`);
  const failing = { size: file.size, slice: () => ({ arrayBuffer: () => Promise.reject(new Error('disk gone')) }) };
  const failed = await readError(failing);
  assert.deepEqual(failed, {
    code: 'read-failed',
    message: `cannot read bytes 0–${Math.min(FIRST_READ, file.size)} of the file: disk gone`,
    offset: 0,
    context: null,
  });

  const shrunk = { size: file.size, slice: (start, end) => file.slice(start, Math.min(end, 500)) };
  const short = await readError(shrunk);
  assert.equal(
    short.message,
    `read 500 bytes at offset 0 instead of ${Math.min(FIRST_READ, file.size)}: did the file change?`,
  );
  assert.equal(short.code, 'file-changed');
});

test('cancelling stops reading at once', async () => {
  const controller = new AbortController();
  const { blob, slices } = recording(await openAsBlob(`${fixtures}real/ggml-vocab-command-r.gguf`));
  const onProgress = () => controller.abort();
  const error = await readHeader(blob, { signal: controller.signal, onProgress }).catch((e) => e);
  assert.equal(error.name, 'AbortError');
  assert.equal(slices.length, 1);
});

test('large arrays are paged: any window of the 256k vocabulary, clipped at its end', async () => {
  const blob = await openAsBlob(`${fixtures}real/ggml-vocab-command-r.gguf`);
  const session = new GgufModel([await readHeader(blob)], ['ggml-vocab-command-r.gguf']);
  try {
    const report = safeNumbers(session.report());
    const kvIndex = report.metadata.findIndex((e) => e.key === 'tokenizer.ggml.tokens');
    const tokens = report.metadata[kvIndex].value;
    assert.equal(tokens.element_type, 'STRING');
    assert.equal(tokens.len, 256000);
    assert.deepEqual(session.arrayPage(kvIndex, 0, tokens.head.length), tokens.head);
    const page = session.arrayPage(kvIndex, 255_990, 100);
    assert.equal(page.length, 10);
    assert.ok(page.every((t) => typeof t === 'string'));
    assert.deepEqual(session.arrayPage(kvIndex, 300_000, 10), []);
    const notArray = report.metadata.findIndex((e) => e.type === 'STRING');
    assert.throws(() => session.arrayPage(notArray, 0, 10), /is not an array/);
  } finally {
    session.free();
  }
});

test('the 40 GB sparse file: one read of its 10 KB header; offsets past 2^32 exact', async () => {
  const dir = execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`], { encoding: 'utf8' }).trim();
  const file = await hugeFileBlob(`${dir}/big-40g-sparse.gguf`);
  const { report, stats } = await read(file);
  await file.close();
  execFileSync('rm', ['-rf', dir]);
  const r = ref('big-40g-sparse.gguf');
  assertMatchesReference(report, r);
  assert.equal(report.file_size, 41812404288);
  assert.equal(stats.reads, 1);
  assert.equal(stats.bytesRead, FIRST_READ);
  assert.ok(report.tensors.some((t) => t.absolute_offset > 2 ** 32 && t.n_elements > 2 ** 32));
});

/** Asserts that every field of `part`, to any depth, is in `whole` with the same value (arrays of the same length). */
function assertPartOf(part, whole, where) {
  if (part === null || typeof part !== 'object') return assert.equal(part, whole, where);
  if (Array.isArray(part)) assert.equal(part.length, whole?.length, `${where}: length`);
  else assert.equal(typeof whole, 'object', where);
  for (const [key, value] of Object.entries(part)) assertPartOf(value, whole?.[key], `${where}: ${key}`);
}

test("the summary the page shows first is the report's figures, from the header alone; none for a shard", async () => {
  const names = [
    'real/ggml-vocab-command-r.gguf',
    'synth/vocab-262k.gguf',
    'synth/all-types.gguf',
    'synth/big-endian.gguf',
    'synth/quants.gguf',
    'synth/truncated-in-data.gguf',
    'synth/sharded-00001-of-00003.gguf',
  ];
  for (const name of names) {
    const session = await readHeader(await openAsBlob(`${fixtures}${name}`));
    const model = new GgufModel([session], [name]);
    try {
      const summary = safeNumbers(model.summary());
      const report = safeNumbers(model.report());
      if (name.includes('sharded')) {
        assert.equal(summary, null, name); // a split model's figures are the whole's
        continue;
      }
      assertPartOf(summary, report, name);
      for (const big of ['metadata', 'tensors', 'findings', 'type_mix'])
        assert.ok(!(big in summary), `${name}: ${big}`);
      assert.equal(Object.keys(summary).length, 30, name);
      // Asked after the report, the model is put together: the summary is the report's.
      assert.equal(model.summary(), null);
    } finally {
      model.free();
    }
  }
  const cut = await readHeader(await openAsBlob(`${fixtures}synth/truncated-in-data.gguf`));
  const model = new GgufModel([cut], ['cut.gguf']);
  assert.ok(model.summary().layout.files[0].regions.some((r) => r.kind === 'missing'));
  model.free();
});

test('safeNumbers keeps BigInts above 2^53 and turns the rest into numbers', () => {
  const big = 2n ** 60n;
  assert.deepEqual(safeNumbers({ a: 5n, b: [big, -3n, { c: 2n ** 53n - 1n }], d: 'x', e: null }), {
    a: 5,
    b: [big, -3, { c: 2 ** 53 - 1 }],
    d: 'x',
    e: null,
  });
});

test("the page reads a file as the CLI does: the same offsets and lengths, from the core's read rule", async () => {
  const files = [
    `${fixtures}real/ggml-vocab-command-r.gguf`,
    `${fixtures}synth/vocab-262k.gguf`,
    `${fixtures}synth/all-types.gguf`,
    `${fixtures}synth/truncated-in-kv.gguf`,
    `${fixtures}synth/minimal.gguf`,
  ];
  for (const file of files) {
    const { blob, slices } = recording(await openAsBlob(file));
    await readHeader(blob).then(
      (session) => session.free(),
      () => {}, // a malformed file is read as far as the CLI reads it too
    );
    assert.deepEqual(slices, cliReads(file), file);
  }
});

/**
 * A Blob whose streams record what they hand over: `chunks` (bytes each), `streams` opened and
 * `cancels`. With `stream`, the stream its slice gives instead of the Blob's own.
 */
function streaming(blob, stream = (part) => part.stream()) {
  const seen = { chunks: [], streams: 0, cancels: 0 };
  return {
    seen,
    blob: {
      size: blob.size,
      slice(start, end) {
        const part = blob.slice(start, end);
        return {
          stream() {
            seen.streams += 1;
            const source = stream(part).getReader();
            return new ReadableStream({
              async pull(controller) {
                const { done, value } = await source.read();
                if (done) return controller.close();
                seen.chunks.push(value.byteLength);
                controller.enqueue(value);
              },
              cancel(reason) {
                seen.cancels += 1;
                return source.cancel(reason);
              },
            });
          },
        };
      },
    },
  };
}

test("a local file is streamed: the report of the read rule's reads, in one read of the header and the rest of the chunk it ends in", async () => {
  const names = [
    'real/ggml-vocab-command-r.gguf',
    'synth/vocab-262k.gguf',
    'synth/all-types.gguf',
    'synth/big-endian.gguf',
    'synth/align-4096.gguf',
    'synth/minimal.gguf',
  ];
  for (const name of names) {
    const file = await openAsBlob(`${fixtures}${name}`);
    const { blob, seen } = streaming(file);
    const session = await streamHeader(blob);
    const stats = session.stats;
    const streamed = new GgufModel([session], [name]);
    const { report } = await read(file);
    try {
      assert.deepEqual(safeNumbers(streamed.report()), report, name);
    } finally {
      streamed.free();
    }
    assert.equal(seen.streams, 1, name);
    assert.equal(seen.cancels, 1, name);
    assert.equal(stats.reads, 1, name);
    assert.equal(
      stats.bytesRead,
      seen.chunks.reduce((a, b) => a + b, 0),
      name,
    );
    assert.ok(
      stats.bytesRead >= report.header_size && stats.bytesRead - seen.chunks.at(-1) < report.header_size,
      `${name}: ${stats.bytesRead} bytes for ${report.header_size}`,
    );
  }
  // The model reader streams a Blob (a File in the worker), and reads anything else by the rule.
  const { model, stats } = await readModel([
    { name: 'command-r', blob: await openAsBlob(`${fixtures}real/ggml-vocab-command-r.gguf`) },
  ]);
  model.free();
  assert.equal(stats.reads, 1);
});

test('a stream that fails, or ends before the header does, is a ParseError with the offset; cancelling cancels the stream', async () => {
  const file = await openAsBlob(`${fixtures}real/ggml-vocab-command-r.gguf`);
  // Fails after its first chunk, as Chromium's does for a file changed after it was picked.
  const failing = streaming(file, (part) => {
    const source = part.stream().getReader();
    let chunks = 0;
    return new ReadableStream({
      async pull(controller) {
        if (chunks++ === 1) throw new DOMException('The requested file could not be read', 'NotReadableError');
        const { value } = await source.read();
        controller.enqueue(value);
      },
    });
  });
  const failed = await streamHeader(failing.blob).catch((e) => e);
  const at = failing.seen.chunks[0];
  assert.deepEqual(failed, {
    code: 'read-failed',
    message: `cannot read the file at byte ${at}: The requested file could not be read`,
    offset: at,
    context: null,
  });

  const shrunk = streaming(file, (part) => part.slice(0, 100_000).stream());
  const short = await streamHeader(shrunk.blob).catch((e) => e);
  assert.deepEqual(short, {
    code: 'file-changed',
    message: `the file ended at byte 100000, before its header did, though it has ${file.size} bytes: did the file change?`,
    offset: 100000,
    context: null,
  });

  const controller = new AbortController();
  const cancelled = streaming(file);
  const error = await streamHeader(cancelled.blob, {
    signal: controller.signal,
    onProgress: () => controller.abort(),
  }).catch((e) => e);
  assert.equal(error.name, 'AbortError');
  assert.equal(cancelled.seen.cancels, 1);
  assert.ok(cancelled.seen.chunks.length < 4, `${cancelled.seen.chunks.length} chunks`);

  // An empty file: the decoder's error, as when read by the rule.
  const empty = await streamHeader(new Blob([])).catch((e) => e);
  assert.deepEqual(empty, await readHeader(new Blob([])).catch((e) => e));
  assert.equal(empty.message, 'the file is empty (0 bytes)');

  // A malformed file: the decoder's error, and the stream cancelled.
  const json = streaming(new Blob(['{"this": "is JSON, not a model"}', new Uint8Array(4 << 20)]));
  const notGguf = await streamHeader(json.blob).catch((e) => e);
  assert.equal(notGguf.code, 'not-gguf');
  assert.equal(json.seen.cancels, 1);
});

test("the viewer's module, fetched with the page, stays under 100 KB gzipped", () => {
  const wasm = readFileSync(new URL('../pkg/gguf_wasm_bg.wasm', import.meta.url));
  const gzipped = gzipSync(wasm, { level: 9 }).length;
  assert.ok(gzipped < 100_000, `${gzipped} bytes gzipped`);
});
