// End-to-end tests of the viewer in real headless Chromium (Debian's, driven by playwright-core),
// against dist/ served on 127.0.0.1. One page is used throughout, as a person would: every file
// after the first is opened in a page that has already shown others (and errors).
// Run after scripts/build-web.sh: node --test www/e2e/. Screenshots go to test-results/ (not committed).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { drop, fields, fixtures, pick, repo, servedAs, startViewer, waitFor } from './browser.mjs';
import { linkBuiltFixture } from '../../web/test/paths.mjs';

const shots = `${repo}test-results/`;
const ref = (name) => JSON.parse(readFileSync(`${fixtures}ref/${name}.summary.json`, 'utf8'));

let viewer;
let page;
let scratch;
const requests = [];
const pageErrors = [];

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-e2e-`);
  linkBuiltFixture('hostile.gguf', scratch);
  linkBuiltFixture('many-findings.gguf', scratch);
  execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`, scratch]);
  mkdirSync(shots, { recursive: true });
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
});

after(async () => {
  await viewer?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The summary figures the page shows agree with gguf-py's. */
function assertMatchesReference(f, r) {
  const text = (v) => (v === null || v === undefined ? '' : String(v));
  assert.equal(f.version, text(r.version));
  assert.equal(f.endianness, r.endian.toLowerCase());
  assert.equal(f.tensor_count, text(r.tensor_count));
  assert.equal(f.kv_count, text(r.kv_count));
  assert.equal(f.architecture, text(r.architecture));
  assert.equal(f.name, text(r.name));
  assert.equal(f.parameters, text(r.param_count));
  assert.equal(f.tensor_bytes, text(r.tensor_bytes));
  assert.equal(f.file_size, text(r.file_size));
  assert.equal(f.alignment, text(r.alignment));
  assert.equal(f.data_offset, text(r.data_offset));
  assert.equal(f.file_type, text(r.file_type));
  if (r.vocab_size !== null) assert.equal(f.vocab_size, text(r.vocab_size));
}

const rows = (selector) => page.locator(selector).count();

test('opens with the built-in sample, in full, and an "open a file" action', async () => {
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
  const f = await fields(page);
  assert.equal(f.architecture, 'llama');
  assert.equal(f['attention.kind'], 'GQA');
  assert.equal(f['attention.heads'], '8');
  assert.equal(f['attention.kv_heads'], '2');
  assert.equal(f['attention.group_size'], '4');
  assert.equal(f.vocab_size, '512');
  assert.equal(f.experts, '');
  assert.equal(await rows('#metadata tbody > tr'), Number(f.kv_count));
  assert.equal(await rows('#tensors tbody > tr'), Number(f.tensor_count));
  assert.match(await page.textContent('[data-field="parameters"]'), /^3\.28 M3,279,104$/);
  assert.match(await page.textContent('tr[data-key="tokenizer.chat_template"] pre'), /add_generation_prompt/);
  assert.ok(await page.isVisible('#open-button'));
  assert.ok(await page.isVisible('#sample-note'));
  await page.screenshot({ path: `${shots}sample.png`, fullPage: true });
});

test('file picker: the 256k-vocabulary command-r file, vocabulary paged from the worker', async () => {
  await pick(page, `${fixtures}real/ggml-vocab-command-r.gguf`);
  await waitFor(page, 'ggml-vocab-command-r.gguf');
  const f = await fields(page);
  assertMatchesReference(f, ref('ggml-vocab-command-r.gguf'));
  assert.equal(f.tokenizer_model, 'gpt2');
  assert.equal(f['attention.kind'], 'MHA');
  assert.ok(await page.isHidden('#sample-note'));

  const tokens = page.locator('tr[data-key="tokenizer.ggml.tokens"]');
  await tokens.getByRole('button', { name: 'Browse 256,000 elements' }).click();
  await tokens.locator('.pager tbody tr').nth(99).waitFor();
  assert.equal(await tokens.locator('.pager tbody tr').count(), 100);
  await tokens.getByRole('button', { name: 'Next ›' }).click();
  await page.waitForFunction(
    () => document.querySelector('tr[data-key="tokenizer.ggml.tokens"] .pager tbody td')?.textContent === '100',
  );
  await tokens.locator('input[type="number"]').fill('255999');
  await tokens.getByRole('button', { name: 'Go' }).click();
  await page.waitForFunction(
    () => document.querySelector('tr[data-key="tokenizer.ggml.tokens"] .pager tbody td')?.textContent === '255,900',
  );
  assert.equal(await tokens.locator('.pager tbody tr').count(), 100);
  assert.equal(await tokens.locator('.pager-position').textContent(), '255,900–255,999 of 256,000');
  await page.screenshot({ path: `${shots}command-r.png` });
});

test('drag and drop: the GGUF v2 aquila file', async () => {
  await drop(page, `${fixtures}real/ggml-vocab-aquila.gguf`);
  await waitFor(page, 'ggml-vocab-aquila.gguf');
  assertMatchesReference(await fields(page), ref('ggml-vocab-aquila.gguf'));
  assert.ok(await page.isHidden('#drop-overlay'));
});

test('the dbrx file with a duplicate key: both entries shown, in file order', async () => {
  await pick(page, `${fixtures}real/ggml-vocab-dbrx.gguf`);
  await waitFor(page, 'ggml-vocab-dbrx.gguf');
  const f = await fields(page);
  assert.equal(f.architecture, 'dbrx');
  assert.equal(f.kv_count, '25');
  assert.equal(f.vocab_size, '100352');
  assert.equal(f['experts.count'], '16');
  assert.equal(f['experts.used'], '4');
  assert.equal(f['attention.kind'], 'GQA');
  assert.equal(f['attention.group_size'], '6');
  assert.equal(await rows('#metadata tr[data-key="general.file_type"]'), 2);
  assert.equal(await rows('#metadata tbody > tr'), 25);
  assert.match(await page.textContent('#findings tr[data-code="duplicate-key"]'), /warning.*general\.file_type.*0x231/);
});

test('findings past the cap of 100 per check: "… and N more", and the count of them all', async () => {
  await pick(page, `${scratch}/many-findings.gguf`);
  await waitFor(page, 'many-findings.gguf');
  for (const code of ['duplicate-tensor-name', 'tensors-overlap']) {
    assert.equal(await rows(`#findings tr[data-code="${code}"]:not(.omitted)`), 100, code);
    const more = page.locator(`#findings tr.omitted[data-code="${code}"]`);
    assert.equal(await more.getAttribute('data-omitted'), '49');
    assert.match(await more.textContent(), new RegExp(`error.*… and 49 more ${code} findings`));
  }
  // 149 of each code, found and counted.
  assert.equal(await page.textContent('#findings-count'), '298 errors');
});

test('a big-endian file', async () => {
  await drop(page, `${fixtures}synth/big-endian.gguf`);
  await waitFor(page, 'big-endian.gguf');
  const f = await fields(page);
  assertMatchesReference(f, ref('big-endian.gguf'));
  assert.equal(f.endianness, 'big');
  assert.equal(await page.textContent('[data-field="endianness"]'), 'big-endian (inferred)');
  assert.equal(await rows('#tensors tbody > tr'), 3);
});

/**
 * Records, in the page's worker, independently of what it reports: the slices it takes of files
 * (`[start, end]`), the streams it opens, the chunks those hand over (bytes each) and the streams
 * it cancels. `recorded()` gives `{slices, streams, chunks, cancels}`.
 */
async function recordReads(worker) {
  await worker.evaluate(() => {
    const wrapped = self.reads !== undefined;
    self.reads = { slices: [], streams: 0, chunks: [], cancels: 0 };
    if (wrapped) return;
    const { slice, stream } = Blob.prototype;
    Blob.prototype.slice = function (start = 0, end = this.size) {
      self.reads.slices.push([start, Math.min(end, this.size)]);
      return slice.call(this, start, end);
    };
    Blob.prototype.stream = function () {
      self.reads.streams += 1;
      return stream.call(this);
    };
    const { read, cancel } = ReadableStreamDefaultReader.prototype;
    ReadableStreamDefaultReader.prototype.read = async function () {
      const chunk = await read.call(this);
      if (!chunk.done) self.reads.chunks.push(chunk.value.byteLength);
      return chunk;
    };
    ReadableStreamDefaultReader.prototype.cancel = function (reason) {
      self.reads.cancels += 1;
      return cancel.call(this, reason);
    };
  });
  return { recorded: () => worker.evaluate(() => self.reads) };
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/**
 * After the stream, only the memory module's one slice of the bytes the viewer read (Will it fit
 * decodes the header again from them: a local file's are its own first bytes), if it has asked yet.
 */
function assertHeaderReadAgain(reads, f) {
  const again = reads.slices.slice(1);
  assert.ok(
    again.length <= 1 && again.every(([start, end]) => start === 0 && end === Number(f.bytes_read)),
    `slices after the stream: ${JSON.stringify(again)}`,
  );
}

test('the 40 GB sparse file: summary from one chunk of a stream', async () => {
  const { recorded } = await recordReads(page.workers()[0]);
  await drop(page, `${scratch}/big-40g-sparse.gguf`);
  await waitFor(page, 'big-40g-sparse.gguf');
  const f = await fields(page);
  const reads = await recorded();
  assertMatchesReference(f, ref('big-40g-sparse.gguf'));
  assert.equal(await page.textContent('[data-field="file_size"]'), '41.8 GB41,812,404,288 bytes');
  // One stream from the start, cancelled after the chunk the 10 KB header ends in.
  assert.deepEqual(reads.slices[0], [0, 41812404288]);
  assertHeaderReadAgain(reads, f);
  assert.equal(reads.streams, 1);
  assert.equal(reads.chunks.length, 1);
  assert.ok(reads.chunks[0] <= 4 << 20, `read ${reads.chunks[0]} bytes`);
  assert.equal(reads.cancels, 1);
  assert.equal(f.bytes_read, String(reads.chunks[0]));
  assert.match(await page.textContent('[data-field="bytes_read"]'), / in 1 read$/);
  assert.equal(await rows('#tensors tbody > tr'), 166);
  await page.screenshot({ path: `${shots}big-40g.png`, fullPage: true });
});

test('the summary paints first, from a document without the vocabulary, metadata or tensors; the panels follow', async () => {
  const p = await viewer.browser.newPage();
  // Records each worker reply and, for the summary, the page one frame after it came.
  await p.addInitScript(() => {
    window.replies = [];
    window.Worker = class extends window.Worker {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', ({ data }) => {
          if (data.type !== 'summary' && data.type !== 'header') return;
          const reply = { type: data.type, keys: Object.keys(data.summary ?? data.report) };
          window.replies.push(reply);
          if (data.type === 'summary') {
            requestAnimationFrame(() => {
              reply.vocab = document.querySelector('[data-field="vocab_size"]')?.dataset.value;
              reply.metadataHidden = document.getElementById('panel-metadata').hidden;
              reply.state = document.body.dataset.state;
            });
          }
        });
      }
    };
  });
  await p.goto(`${viewer.origin}/`);
  await waitFor(p, 'sample.gguf');
  await p.evaluate(() => (window.replies.length = 0));
  await drop(p, `${fixtures}synth/vocab-262k.gguf`);
  await waitFor(p, 'vocab-262k.gguf');
  const [summary, header] = await p.evaluate(() => window.replies);
  assert.equal(summary.type, 'summary');
  assert.equal(header.type, 'header');
  for (const key of ['metadata', 'tensors', 'findings', 'type_mix']) {
    assert.ok(!summary.keys.includes(key), key);
    assert.ok(header.keys.includes(key), key);
  }
  assert.deepEqual(
    { vocab: summary.vocab, metadataHidden: summary.metadataHidden, state: summary.state },
    { vocab: '262144', metadataHidden: true, state: 'loading' },
  );
  assert.ok(await p.isVisible('#panel-metadata'));
  assert.equal(await p.locator('#metadata-count').textContent(), '14');
  await p.close();
});

test('the tensor table filters and sorts', async () => {
  await page.fill('#tensor-filter', 'attn_q');
  await page.waitForFunction(() => document.querySelectorAll('#tensors tbody > tr').length < 166);
  const names = await page.locator('#tensors tbody td.name').allTextContents();
  assert.ok(names.length > 0 && names.every((n) => n.includes('attn_q')), names.join());
  await page.fill('#tensor-filter', '');
  await page.click('th[data-column="n_bytes"] button');
  await page.click('th[data-column="n_bytes"] button');
  assert.equal(await page.getAttribute('th[data-column="n_bytes"]', 'aria-sort'), 'descending');
  const first = await page.locator('#tensors tbody tr').first().locator('td.name').textContent();
  const biggest = ref('big-40g-sparse.gguf').tensors.reduce((a, b) => (b.n_bytes > a.n_bytes ? b : a));
  assert.equal(first, biggest.name);
});

test('a truncated file: a clear error with its byte offset, and the next file opens', async () => {
  await pick(page, `${fixtures}synth/truncated-in-kv.gguf`);
  await waitFor(page, 'truncated-in-kv.gguf', 'error');
  const f = await fields(page);
  assert.equal(
    f.error_message,
    'unexpected end of file: this needs bytes up to offset 313, but the file ends at 306, in key-value pair #10',
  );
  assert.equal(f.error_offset, '296');
  assert.equal(await page.textContent('[data-field="error_offset"]'), '0x128 (296)');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'truncated');
  assert.ok(await page.isHidden('#view'));
  await page.screenshot({ path: `${shots}truncated.png` });

  await pick(page, `${fixtures}ref/big-endian.gguf.summary.json`);
  await waitFor(page, 'big-endian.gguf.summary.json', 'error');
  assert.match(await page.textContent('[data-field="error_message"]'), /^not a GGUF file: it starts with 7B 0A 20 22/);
  assert.equal((await fields(page)).error_offset, '0');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'not-gguf');

  await pick(page, `${fixtures}synth/big-endian.gguf`);
  await waitFor(page, 'big-endian.gguf');
  assert.ok(await page.isHidden('#error'));
});

test('a file with HTML and script in its metadata: shown as text, nothing runs', async () => {
  await pick(page, `${scratch}/hostile.gguf`);
  await waitFor(page, 'hostile.gguf');
  const f = await fields(page);
  assert.equal(f.name, "<b>bold</b><script>window.__pwned = 'name'</script>");
  const keys = await page.locator('#metadata td.key code').allTextContents();
  assert.ok(keys.includes('<img src=x onerror="window.__pwned = \'key\'">'), keys.join('\n'));
  assert.match(
    await page.textContent('tr[data-key="general.description"] td.value'),
    /^<img src="https:\/\/evil\.example\/beacon\.png"/,
  );
  assert.match(await page.textContent('tr[data-key="tokenizer.chat_template"] pre'), /^<\/pre><script>/);
  assert.match(await page.textContent('tr[data-key="general.not_utf8"]'), /bad \\xFF\\xFE <u>bytes<\/u>.*/);
  assert.match(await page.textContent('#tensors td.name'), /^<svg onload=/);
  const tokens = page.locator('tr[data-key="tokenizer.ggml.tokens"]');
  await tokens.getByRole('button', { name: /^Browse/ }).click();
  // Its first page, or an error in its place; if neither comes, what the pager and the page show
  // (this timed out once in a full run, and did not again in a loop of the suite).
  await tokens
    .locator('.pager tbody tr')
    .nth(9)
    .or(tokens.locator('.pager .error-text'))
    .waitFor()
    .catch(async (e) => {
      const state = await page.evaluate(() => ({
        state: document.body.dataset.state,
        file: document.body.dataset.file,
        status: document.getElementById('status')?.textContent,
        expanded: document.querySelectorAll('#metadata button[aria-expanded="true"]').length,
        pagerRows: document.querySelectorAll('tr[data-key="tokenizer.ggml.tokens"] .pager tbody tr').length,
      }));
      throw new Error(`${e.message}\nthe page: ${JSON.stringify(state)}`);
    });
  assert.equal(await tokens.locator('.pager .error-text').count(), 0, await tokens.locator('.pager').textContent());
  assert.match(await tokens.locator('.pager tbody').textContent(), /<iframe src=/);

  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(
    await page.locator('#view script, #view img, #view iframe, #view svg:not(.chart), #view b, #view u').count(),
    0,
  );
  await page.screenshot({ path: `${shots}hostile.png`, fullPage: true });
});

test('opening a file cancels the one still being read', async () => {
  await pick(page, `${fixtures}real/ggml-vocab-command-r.gguf`);
  await pick(page, `${fixtures}synth/all-types.gguf`);
  await waitFor(page, 'all-types.gguf');
  await page.waitForTimeout(500); // the cancelled read must not come back and replace it
  assert.equal(await page.evaluate(() => document.body.dataset.file), 'all-types.gguf');
  assertMatchesReference(await fields(page), ref('all-types.gguf'));
});

test('works offline once loaded', async () => {
  await page.context().setOffline(true);
  try {
    await drop(page, `${fixtures}real/ggml-vocab-phi-3.gguf`);
    await waitFor(page, 'ggml-vocab-phi-3.gguf');
    assertMatchesReference(await fields(page), ref('ggml-vocab-phi-3.gguf'));
  } finally {
    await page.context().setOffline(false);
  }
});

test("?file= opens only files of the page's own origin", async () => {
  await page.goto(`${viewer.origin}/?file=https://evil.example/model.gguf`);
  await page.waitForFunction(() => document.body.dataset.state === 'error');
  assert.match(await page.textContent('[data-field="error_message"]'), /only files from this site/);
  await page.goto(`${viewer.origin}/?file=/sample.gguf`);
  await waitFor(page, 'sample.gguf');
});

test('the worker reads a local file as one stream from its start, decoding its chunks as they arrive, and cancels it where the header ends', async () => {
  // command-r's file is all header (10.9 MB): every chunk is decoded. Gemma's 270M model with its
  // tensors is not in the fixtures; gqa-llama-1.1b.gguf (705 MB) has an 0.86 MB header.
  for (const [file, name] of [
    [`${fixtures}real/ggml-vocab-command-r.gguf`, 'ggml-vocab-command-r.gguf'],
    [`${scratch}/gqa-llama-1.1b.gguf`, 'gqa-llama-1.1b.gguf'],
  ]) {
    const { recorded } = await recordReads(page.workers()[0]);
    await pick(page, file);
    await waitFor(page, name);
    const f = await fields(page);
    const reads = await recorded();
    const size = Number(f.file_size);
    const header = Number(f.header_size);
    assert.deepEqual(reads.slices[0], [0, size], name);
    assertHeaderReadAgain(reads, f);
    assert.equal(reads.streams, 1, name);
    assert.equal(reads.cancels, 1, name);
    // Chunks are at most 2 MiB, and the stream is cancelled where the header ends: a header
    // longer than that takes several (command-r's); a shorter one may come in one (gqa-llama's).
    if (header > 2 << 20) assert.ok(reads.chunks.length > 1, `${name}: ${reads.chunks.length} chunks`);
    // What was read: the header and the rest of the chunk it ends in.
    const read = sum(reads.chunks);
    assert.equal(f.bytes_read, String(read), name);
    assert.ok(
      read >= header && read - reads.chunks.at(-1) < header,
      `${name}: ${read} bytes for a ${header}-byte header, in ${reads.chunks}`,
    );
    assert.match(await page.textContent('[data-field="bytes_read"]'), / in 1 read$/, name);
  }
});

test('while a file is read, the model shown before is hidden; progress shows after 200 ms and changes at most every 100 ms', async () => {
  await pick(page, `${fixtures}synth/all-types.gguf`);
  await waitFor(page, 'all-types.gguf');
  // Each chunk of the next read comes 150 ms late: command-r's 10.9 MB take a second or so.
  await page.workers()[0].evaluate(() => {
    const read = ReadableStreamDefaultReader.prototype.read;
    self.unslowed = read;
    ReadableStreamDefaultReader.prototype.read = async function () {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return read.call(this);
    };
  });
  await page.evaluate(() => {
    window.seen = [];
    const note = () =>
      window.seen.push({
        t: performance.now(),
        status: document.getElementById('status').textContent,
        progress: !document.getElementById('progress').hidden,
        view: !document.getElementById('view').hidden,
        state: document.body.dataset.state,
      });
    new MutationObserver(note).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
      attributeFilter: ['hidden', 'data-state'],
    });
  });
  await pick(page, `${fixtures}real/ggml-vocab-command-r.gguf`);
  await waitFor(page, 'ggml-vocab-command-r.gguf');
  await page.workers()[0].evaluate(() => (ReadableStreamDefaultReader.prototype.read = self.unslowed));
  const seen = await page.evaluate(() => window.seen);
  // While the header is read: from the open to the summary, which shows the view again.
  const reading = seen.slice(
    0,
    seen.findIndex((s) => s.view),
  );
  const start = reading[0].t;
  assert.ok(
    reading.every((s) => s.state === 'loading' && !s.view),
    'the model shown before is hidden while the file is read',
  );
  assert.ok(reading.at(-1).t - start > 500, `the read was slowed: ${reading.at(-1).t - start} ms`);
  // The first note is taken when the observer runs, after the open's own task: on a loaded
  // machine that is tens of milliseconds after the page's 200 ms timer began.
  const shown = reading.find((s) => s.progress);
  assert.ok(shown && shown.t - start >= 150, `progress shown ${shown?.t - start} ms in`);
  assert.ok(reading.filter((s) => s.t - start < 150).every((s) => !s.progress && s.status === 'Reading the header…'));
  const figures = reading
    .filter((s, i) => /read$/.test(s.status) && s.status !== reading[i - 1].status)
    .map((s) => s.t);
  assert.ok(figures.length >= 2, `${figures.length} progress figures`);
  for (let i = 1; i < figures.length; i++)
    assert.ok(figures[i] - figures[i - 1] >= 95, `figures ${figures[i] - figures[i - 1]} ms apart`);
  assert.ok(!(await page.locator('#progress').isVisible()));
  assert.ok(await page.locator('#view').isVisible());
});

test("no request ever left the page's origin, and no script error happened", () => {
  assert.ok(
    requests.some((url) => url.endsWith(servedAs('web/pkg/gguf_wasm_bg.wasm'))),
    "the worker's requests are seen",
  );
  assert.deepEqual(
    requests.filter((url) => !url.startsWith(`${viewer.origin}/`)),
    [],
  );
  assert.deepEqual(pageErrors, []);
});
