// End-to-end tests of the page's Edit mode (edit-view.js) in headless Chromium: changes made in
// the metadata table, undone and redone, saved as a download that Node reads back with the
// viewer's own decoder; a refused change shown by its key with nothing downloaded; the 40 GB
// sparse file edited from its header alone (its download is denied, never written); the page
// at 390 px; and models opened by URL (from send, through scripts/model-server.mjs): saved with
// Save to… into a stand-in File System Access handle, byte for byte, the first shard of a split
// one, Cancel during the stream, and a browser without the API told why it cannot save. Run after scripts/build-web.sh: node --test www/e2e/edit.test.mjs.
// Screenshots go to test-results/ (not committed).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  openAsBlob,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';

import { axeViolations, fixtures, pick, repo, startViewer, waitFor } from './browser.mjs';
import { GgufModel, initSync } from '../../web/pkg/gguf_wasm.js';
import { readHeader } from '../../web/read-loop.js';
import { safeNumbers } from '../../web/numbers.js';
import { editWithChanges } from '../../web/edit.js';
import { startModelServer } from '../../scripts/model-server.mjs';

initSync({ module: readFileSync(new URL('../../web/pkg/gguf_wasm_bg.wasm', import.meta.url)) });

const shots = `${repo}test-results/`;
const ALL_TYPES = `${fixtures}synth/all-types.gguf`;
const TEMPLATE = "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n{% endfor %}";

let viewer;
let page;
let scratch;
let models; // a model server (send, with Range) over scratch
const pageErrors = [];
const downloads = [];
/** The page's confirm dialogs; each is accepted unless `dialogAnswer` says otherwise. */
const dialogs = [];
let dialogAnswer = true;

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-edit-e2e-`);
  execFileSync('sh', [`${fixtures}synth/sparse/restore.sh`, scratch]);
  for (const name of ['all-types.gguf', ...[1, 2, 3].map((n) => `sharded-0000${n}-of-00003.gguf`)])
    symlinkSync(`${fixtures}synth/${name}`, `${scratch}/${name}`);
  models = await startModelServer(scratch);
  mkdirSync(shots, { recursive: true });
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 }, acceptDownloads: true });
  page.on('download', (d) => downloads.push(d));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    return dialogAnswer ? d.accept() : d.dismiss();
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
});

after(async () => {
  await viewer?.close();
  await models?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The report of a file on disk, read by the viewer's decoder (the wasm package, in Node). */
async function reportOf(path) {
  const model = new GgufModel([await readHeader(await openAsBlob(path))], ['file.gguf']);
  try {
    return safeNumbers(model.report());
  } finally {
    model.free();
  }
}

const value = (report, key) => report.metadata.find((m) => m.key === key)?.value;
const pending = () =>
  page.$$eval('.edit-pending li', (items) =>
    items.map((li) => ({
      key: li.dataset.key,
      state: li.dataset.state,
      text: li.querySelector('.edit-change').textContent,
    })),
  );

/** Adds a key with the Add form. */
async function addKey(key, type, text) {
  await page.fill('[data-field="new-key"]', key);
  await page.selectOption('[data-field="new-type"]', type);
  await page.fill('.edit-add [data-field="edit-value"]', text);
  await page.click('[data-action="add-key"]');
}

/** Changes `key`'s value in its row, by keyboard. */
async function change(key, text) {
  await page.click(`#metadata tr[data-key="${key}"] [data-action="change"]`);
  const input = page.locator(`#metadata tr.edit-row[data-for="${key}"] [data-field="edit-value"]`);
  await input.fill(text);
  await input.press('Enter');
}

/**
 * A page of its own, in a context of its own, whose `showSaveFilePicker` is a stand-in (the
 * picker's dialog cannot be driven headless): its handle's writable keeps what is written in
 * `window.__written` (`keep: false`: only counts it), can hold every write after the first
 * (`window.__hold = true`) until released, and its `getFile()` gives the bytes back as a File.
 * With `picker: false`, the page has no File System Access API at all (Firefox, Safari).
 */
async function urlPage({ picker = true, keep = true } = {}) {
  const context = await viewer.browser.newContext({ acceptDownloads: false, viewport: { width: 1300, height: 1000 } });
  const p = await context.newPage();
  const errors = [];
  p.on('pageerror', (e) => errors.push(e.message));
  p.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await p.addInitScript(
    ([picker, keep]) => {
      if (!picker) {
        delete window.showSaveFilePicker;
        delete Window.prototype.showSaveFilePicker;
        return;
      }
      window.__written = { chunks: [], bytes: 0, writes: 0, closed: false, aborted: null, suggested: null };
      window.__hold = false;
      const held = () =>
        new Promise((resolve) => {
          const wait = () => (window.__hold ? setTimeout(wait, 20) : resolve());
          wait();
        });
      window.showSaveFilePicker = async ({ suggestedName }) => {
        window.__written.suggested = suggestedName;
        return {
          name: 'chosen.gguf',
          async createWritable() {
            return {
              async write(chunk) {
                if (window.__written.writes > 0) await held();
                window.__written.writes += 1;
                window.__written.bytes += chunk.byteLength;
                if (keep) window.__written.chunks.push(new Uint8Array(chunk));
              },
              async close() {
                window.__written.closed = true;
              },
              async abort(reason) {
                window.__written.aborted = reason?.name ?? String(reason);
              },
            };
          },
          async getFile() {
            return new File(window.__written.chunks, 'chosen.gguf');
          },
        };
      };
    },
    [picker, keep],
  );
  await p.goto(`${viewer.origin}/`);
  await waitFor(p, 'sample.gguf');
  return { page: p, errors, close: () => context.close() };
}

/** Opens `url` in `p` by its address, as a shared link does, and turns Edit mode on. */
async function openUrl(p, url, name) {
  await p.goto(`${viewer.origin}/?url=${encodeURIComponent(url)}`);
  await waitFor(p, name);
  await p.click('[data-action="edit"]');
}

/**
 * Changes `key`'s value in `p`'s metadata table, and waits until the change is checked (the edit
 * session reads the model's header once, from the server for a URL).
 */
async function changeIn(p, key, text) {
  await p.click(`#metadata tr[data-key="${key}"] [data-action="change"]`);
  const input = p.locator(`#metadata tr.edit-row[data-for="${key}"] [data-field="edit-value"]`);
  await input.fill(text);
  await input.press('Enter');
  await p.waitForFunction(() =>
    ['clean', 'found', 'refused'].includes(document.querySelector('[data-field="edit-findings"]').dataset.state),
  );
}

const statusOf = (p) => p.textContent('[data-field="save_status"]');

test('a model opened by URL: Save to… takes the header the viewer read, streams its tensor data into the chosen file, byte for byte', async () => {
  const { page: p, errors, close } = await urlPage();
  try {
    const url = `${models.origin}/all-types.gguf`;
    await openUrl(p, url, 'all-types.gguf');
    const opened = models.requests.length;
    assert.equal(await p.getAttribute('[data-field="edit_where"]', 'data-value'), 'url');
    assert.match(
      await p.textContent('[data-field="edit_where"]'),
      /opened by URL: Save to… writes a copy of all-types\.gguf/,
    );
    assert.ok(await p.isHidden('[data-action="save"]'), 'no download button: it would hold the file in memory');
    await changeIn(p, 'general.name', 'saved from a URL');
    // The first change was checked against the header the viewer read: no request for it.
    assert.deepEqual(
      models.requests.slice(opened).map((q) => [q.range, q.status]),
      [],
    );
    const asked = models.requests.length;
    await p.click('[data-action="save-as"]');
    await p.waitForFunction(() =>
      /^(Saved|Not saved)/.test(document.querySelector('[data-field="save_status"]').textContent),
    );
    const status = await statusOf(p);
    assert.match(
      status,
      /^Saved chosen\.gguf: .* read for the header, then the tensor data, .* streamed from the server/,
    );
    const written = await p.evaluate(() => ({
      ...window.__written,
      chunks: window.__written.chunks.map((c) => [...c]),
    }));
    assert.equal(written.suggested, 'all-types.edited.gguf');
    assert.ok(written.closed && written.aborted === null);
    const bytes = Buffer.concat(written.chunks.map((c) => Buffer.from(c)));
    const local = await editWithChanges(await openAsBlob(ALL_TYPES), [
      { set: 'general.name', value: 'saved from a URL' },
    ]);
    assert.ok(
      bytes.equals(Buffer.from(await local.file.arrayBuffer())),
      'the written file is what a local edit of the same file makes',
    );
    // What the page asked the server for: the data section, once (the header is the one the viewer read).
    const requests = models.requests.slice(asked).map((q) => [q.range, q.status]);
    const old = local.data_offset.before;
    assert.deepEqual(requests, [[`bytes=${old}-`, 206]]);
    const saved = await p.$eval('[data-field="saved"]', (e) => ({
      size: Number(e.dataset.size),
      read: Number(e.dataset.bytesRead),
      streamed: Number(e.dataset.streamed),
    }));
    assert.deepEqual(saved, {
      size: bytes.length,
      read: statSync(ALL_TYPES).size,
      streamed: statSync(ALL_TYPES).size - old,
    });
    console.log(
      `URL save of all-types.gguf: ${saved.read} bytes read for the header, ${saved.streamed} streamed; ${status}`,
    );
    await p.locator('.edit-panel').screenshot({ path: `${shots}edit-url-saved.png` });
    // The saved file opens in the viewer (the handle's getFile()).
    await p.click('[data-action="open-saved"]');
    await waitFor(p, 'chosen.gguf');
    assert.equal(await p.textContent('#metadata tr[data-key="general.name"] td.value'), 'saved from a URL');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('a split model opened by URL: its first shard is saved, and the page says so', async () => {
  const { page: p, errors, close } = await urlPage();
  try {
    await openUrl(p, `${models.origin}/sharded-00002-of-00003.gguf`, 'sharded-00002-of-00003.gguf');
    assert.equal(await p.getAttribute('[data-field="edit_where"]', 'data-value'), 'url');
    assert.match(
      await p.textContent('[data-field="edit_where"]'),
      /first shard: the copy is of sharded-00001-of-00003\.gguf \(shard 1 of 3\)/,
    );
    await changeIn(p, 'general.name', 'split, from a URL');
    await p.click('[data-action="save-as"]');
    await p.waitForFunction(() =>
      /^(Saved|Not saved)/.test(document.querySelector('[data-field="save_status"]').textContent),
    );
    assert.match(await statusOf(p), /^Saved chosen\.gguf/);
    const written = await p.evaluate(() => ({
      suggested: window.__written.suggested,
      chunks: window.__written.chunks.map((c) => [...c]),
    }));
    assert.equal(written.suggested, 'sharded-00001-of-00003.edited.gguf');
    const first = `${fixtures}synth/sharded-00001-of-00003.gguf`;
    const local = await editWithChanges(await openAsBlob(first), [{ set: 'general.name', value: 'split, from a URL' }]);
    assert.ok(
      Buffer.concat(written.chunks.map((c) => Buffer.from(c))).equals(Buffer.from(await local.file.arrayBuffer())),
    );
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('Cancel while the tensor data streams: the write is aborted, the download stops, the page says the file is not half-written', async () => {
  const { page: p, errors, close } = await urlPage({ keep: false });
  try {
    const name = 'gqa-llama-1.1b.gguf';
    const size = statSync(`${scratch}/${name}`).size;
    await openUrl(p, `${models.origin}/${name}`, name);
    await changeIn(p, 'general.name', 'cancelled');
    // Let the header and a first part of the data through, then hold the writes.
    const sentBefore = models.bytesSent();
    await p.click('[data-action="save-as"]');
    // The rate is shown from half a second on: wait for it before holding the writes.
    await p.waitForFunction(
      () =>
        window.__written.bytes > 64 << 20 &&
        /MB\/s/.test(document.querySelector('[data-field="save_status"]').textContent),
    );
    await p.evaluate(() => (window.__hold = true));
    assert.ok(await p.isVisible('[data-action="cancel-save"]'));
    assert.ok(await p.isVisible('.edit-save progress'));
    const progress = await statusOf(p);
    assert.match(progress, /^Writing chosen\.gguf: .* of .*, [\d.]+ MB\/s/);
    await p.locator('.edit-panel').screenshot({ path: `${shots}edit-url-progress.png` });
    await p.click('[data-action="cancel-save"]');
    await p.evaluate(() => (window.__hold = false));
    await p.waitForFunction(() => /^Not saved/.test(document.querySelector('[data-field="save_status"]').textContent));
    assert.match(await statusOf(p), /^Not saved: cancelled\. chosen\.gguf is not half-written/);
    const written = await p.evaluate(() => window.__written);
    assert.equal(written.aborted, 'AbortError');
    assert.ok(!written.closed);
    assert.ok(await p.isHidden('[data-action="cancel-save"]'));
    assert.ok(await p.isHidden('[data-action="open-saved"]'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = models.bytesSent() - sentBefore;
    assert.ok(sent < size / 2, `the server sent ${sent} of ${size} bytes before the download stopped`);
    console.log(
      `cancelled URL save of ${name}: ${written.bytes} bytes written, ${sent} sent by the server of ${size}; while running: ${progress}`,
    );
    await p.locator('.edit-panel').screenshot({ path: `${shots}edit-url-cancelled.png` });
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('a model opened by URL in a browser without showSaveFilePicker: the page says plainly why it cannot save, and what to do', async () => {
  const { page: p, errors, close } = await urlPage({ picker: false });
  try {
    assert.equal(await p.evaluate(() => typeof window.showSaveFilePicker), 'undefined');
    await openUrl(p, `${models.origin}/all-types.gguf`, 'all-types.gguf');
    assert.equal(await p.getAttribute('[data-field="edit_where"]', 'data-value'), 'url-cannot-save');
    const where = await p.textContent('[data-field="edit_where"]');
    assert.match(
      where,
      /this browser cannot save it: a download of the changed copy would have to hold the whole file \(.*\) in memory/,
    );
    assert.match(where, /download the model and open it from disk/);
    assert.match(where, /Chromium-based browser/);
    assert.ok(await p.isHidden('[data-action="save-as"]'));
    await changeIn(p, 'general.name', 'changed');
    assert.ok(await p.isVisible('[data-action="save"]'));
    assert.ok(await p.isDisabled('[data-action="save"]'), 'the Save button does not pretend');
    const described = await p.getAttribute('[data-action="save"]', 'aria-describedby');
    assert.equal(await p.getAttribute(`#${described}`, 'data-field'), 'edit_where');
    await p.locator('.edit-panel').screenshot({ path: `${shots}edit-url-cannot-save.png` });
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('edit all-types.gguf: add a chat template and an eos id, change the name, undo and redo, save, read back, open the saved file', async () => {
  await pick(page, ALL_TYPES);
  await waitFor(page, 'all-types.gguf');
  assert.equal(await page.getAttribute('[data-action="edit"]', 'aria-pressed'), 'false');
  assert.ok(await page.isHidden('.edit-panel'));
  await page.click('[data-action="edit"]');
  assert.equal(await page.getAttribute('[data-field="edit_where"]', 'data-value'), 'file');

  await addKey('tokenizer.chat_template', 'STRING', TEMPLATE);
  await addKey('tokenizer.ggml.eos_token_id', 'UINT32', '7');
  await change('general.name', 'all types, edited');
  await page.click('#metadata tr[data-key="t.string.empty"] [data-action="delete-key"]');
  let list = await pending();
  assert.deepEqual(
    list.map((i) => [i.key, i.state]),
    [
      ['tokenizer.chat_template', 'pending'],
      ['tokenizer.ggml.eos_token_id', 'pending'],
      ['general.name', 'pending'],
      ['t.string.empty', 'pending'],
    ],
  );
  assert.match(list[1].text, /add 7/);
  assert.match(list[2].text, /→ "all types, edited"/);
  assert.match(list[3].text, /delete ""/);

  // Undo the eos id, then redo it; undo the delete and leave it undone.
  await page.click('.edit-pending li[data-key="tokenizer.ggml.eos_token_id"] [data-action="undo"]');
  assert.equal((await pending())[1].state, 'undone');
  assert.match(await page.textContent('[data-action="edit"]'), /Done editing/);
  await page.click('.edit-pending li[data-key="tokenizer.ggml.eos_token_id"] [data-action="redo"]');
  await page.click('.edit-pending li[data-key="t.string.empty"] [data-action="undo"]');
  list = await pending();
  assert.deepEqual(
    list.map((i) => i.state),
    ['pending', 'pending', 'pending', 'undone'],
  );
  await page.screenshot({ path: `${shots}edit-desktop.png`, fullPage: false });
  await page.locator('.edit-panel').screenshot({ path: `${shots}edit-panel.png` });

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-action="save"]')]);
  assert.equal(download.suggestedFilename(), 'all-types.edited.gguf');
  const saved = await download.path();
  await page.waitForSelector('[data-action="open-saved"]:not([hidden])');
  assert.match(await page.textContent('[data-field="save_status"]'), /all-types\.edited\.gguf is being downloaded/);

  const before = await reportOf(ALL_TYPES);
  const afterEdit = await reportOf(saved);
  assert.equal(value(afterEdit, 'tokenizer.chat_template'), TEMPLATE);
  assert.equal(value(afterEdit, 'tokenizer.ggml.eos_token_id'), 7);
  assert.equal(afterEdit.metadata.find((m) => m.key === 'tokenizer.ggml.eos_token_id').type, 'UINT32');
  assert.equal(value(afterEdit, 'general.name'), 'all types, edited');
  assert.equal(value(afterEdit, 't.string.empty'), ''); // the undone delete was not made
  assert.equal(afterEdit.kv_count, before.kv_count + 2);
  const tensorInfo = (r) =>
    r.tensors.map(({ name, type, shape, offset, size }) => ({ name, type, shape, offset, size }));
  assert.deepEqual(tensorInfo(afterEdit), tensorInfo(before));
  assert.equal(before.tensors.length, 9);
  const oldBytes = readFileSync(ALL_TYPES);
  const newBytes = readFileSync(saved);
  assert.equal(newBytes.length, statSync(saved).size);
  assert.ok(
    oldBytes.subarray(before.data_offset).equals(newBytes.subarray(afterEdit.data_offset)),
    'the data section is the same, byte for byte',
  );
  assert.ok(before.data_offset > 0 && oldBytes.length - before.data_offset > 0);

  // Open the saved file (from memory): the table shows the new values.
  await page.click('[data-action="open-saved"]');
  await waitFor(page, 'all-types.edited.gguf');
  assert.equal(await page.textContent('#metadata tr[data-key="tokenizer.ggml.eos_token_id"] td.value'), '7');
  assert.equal(await page.textContent('#metadata tr[data-key="general.name"] td.value'), 'all types, edited');
  assert.match(await page.textContent('#metadata tr[data-key="tokenizer.chat_template"] td.value'), /<\|end\|>/);
  assert.equal(await page.getAttribute('[data-action="edit"]', 'aria-pressed'), 'false');
  assert.deepEqual(pageErrors, []);
});

test('a refused change is shown on it as soon as it is made; Save waits until it is undone', async () => {
  const count = downloads.length;
  await page.click('[data-action="edit"]');
  await change('t.u8.max', '300');
  const refusal = page.locator('.edit-pending li[data-key="t.u8.max"] [data-field="refusal"]');
  await refusal.waitFor();
  assert.equal(await refusal.getAttribute('data-code'), 'bad-value');
  assert.match(await refusal.textContent(), /^Refused: t\.u8\.max: 300 is not a UINT8/);
  assert.ok(await page.isDisabled('[data-action="save"]'));
  assert.equal(await page.getAttribute('[data-field="edit-findings"]', 'data-state'), 'refused');

  // Every refusal at once: general.alignment too (it would move every tensor), each on its change.
  await addKey('general.alignment', 'UINT32', '64');
  const alignment = page.locator('.edit-pending li[data-key="general.alignment"] [data-field="refusal"]');
  await alignment.waitFor();
  assert.equal(await alignment.getAttribute('data-code'), 'alignment');
  assert.equal(await page.locator('[data-field="refusal"]').count(), 2);
  assert.match(await page.textContent('[data-field="edit-findings"]'), /2 changes are refused/);
  await page.locator('.edit-panel').screenshot({ path: `${shots}edit-refused.png` });

  // Undone, the first is gone; the second stays refused, and Save with it.
  await page.click('.edit-pending li[data-key="t.u8.max"] [data-action="undo"]');
  await page.waitForFunction(() => document.querySelectorAll('[data-field="refusal"]').length === 1);
  assert.ok(await page.isDisabled('[data-action="save"]'));
  await page.waitForTimeout(300);
  assert.equal(downloads.length, count, 'nothing was downloaded');
  assert.deepEqual(pageErrors, []);
});

test('a value changed, then changed back, is no longer a change: it leaves the pending list', async () => {
  const p = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  await p.goto(`${viewer.origin}/`);
  await waitFor(p, 'sample.gguf');
  await pick(p, ALL_TYPES);
  await waitFor(p, 'all-types.gguf');
  const name = await p.textContent('#metadata tr[data-key="general.name"] td.value');
  await p.click('[data-action="edit"]');
  await changeIn(p, 'general.name', 'renamed');
  assert.deepEqual(await p.$$eval('.edit-pending li', (items) => items.map((li) => li.dataset.key)), ['general.name']);
  // Back to the file's own value (and a number to its own, typed another way): nothing pending.
  const setBack = async (key, text) => {
    await p.click(`#metadata tr[data-key="${key}"] [data-action="change"]`);
    const input = p.locator(`#metadata tr.edit-row[data-for="${key}"] [data-field="edit-value"]`);
    await input.fill(text);
    await input.press('Enter');
  };
  await setBack('general.name', name);
  await p.waitForFunction(() => document.querySelectorAll('.edit-pending li').length === 0);
  assert.match(await statusOf(p), /^general\.name: set back to the value the file holds/);
  assert.equal(await p.textContent('[data-action="edit"]'), 'Done editing');
  assert.ok(await p.isDisabled('[data-action="save"]'));
  const max = await p.textContent('#metadata tr[data-key="t.u8.max"] td.value');
  await setBack('t.u8.max', `0${max}`);
  await p.waitForFunction(() => document.querySelectorAll('.edit-pending li').length === 0);
  await p.close();
});

test('Save to…: the new file is written through a File System Access handle, a Blob slice at a time', async () => {
  // The picker's dialog cannot be driven headless: a stand-in handle collects what is written.
  await page.evaluate(() => {
    window.__written = { chunks: [], closed: false, suggested: null };
    window.showSaveFilePicker = async ({ suggestedName }) => {
      window.__written.suggested = suggestedName;
      return {
        name: 'chosen.gguf',
        async createWritable() {
          return {
            async write(chunk) {
              // The page writes Blob slices (the browser copies them itself); a URL save, bytes.
              window.__written.chunks.push(
                chunk instanceof Blob ? new Uint8Array(await chunk.arrayBuffer()) : new Uint8Array(chunk),
              );
              window.__written.blobs = (window.__written.blobs ?? 0) + (chunk instanceof Blob ? 1 : 0);
            },
            async close() {
              window.__written.closed = true;
            },
            async abort() {},
          };
        },
      };
    };
  });
  await page.click('.edit-pending li[data-key="general.alignment"] [data-action="undo"]');
  await change('general.name', 'saved to a place');
  const count = downloads.length;
  assert.ok(await page.isVisible('[data-action="save-as"]'));
  await page.click('[data-action="save-as"]');
  await page.waitForFunction(() =>
    /^Saved chosen\.gguf/.test(document.querySelector('[data-field="save_status"]').textContent),
  );
  const written = await page.evaluate(() => ({
    ...window.__written,
    chunks: window.__written.chunks.map((c) => [...c]),
  }));
  assert.equal(written.suggested, 'all-types.edited.gguf'); // the file shown is all-types.edited.gguf: not .edited twice
  assert.equal(written.blobs, written.chunks.length, 'written as Blob slices: the data never passes through the page');
  assert.ok(written.closed);
  const bytes = Buffer.concat(written.chunks.map((c) => Buffer.from(c)));
  assert.equal(bytes.length, Number(await page.getAttribute('[data-field="saved"]', 'data-size')));
  const path = `${scratch}/chosen.gguf`;
  writeFileSync(path, bytes);
  const report = await reportOf(path);
  assert.equal(value(report, 'general.name'), 'saved to a place');
  assert.equal(value(report, 'tokenizer.ggml.eos_token_id'), 7);
  assert.equal(downloads.length, count, 'no download: the file went to the chosen place');
  assert.deepEqual(pageErrors, []);
});

test('a split model: the changes are saved into a copy of its first shard, and the page says so', async () => {
  const shards = [3, 1, 2].map((n) => `${fixtures}synth/sharded-0000${n}-of-00003.gguf`);
  await pick(page, shards);
  await waitFor(page, 'sharded-00001-of-00003.gguf (+2 more)');
  await page.click('[data-action="edit"]');
  assert.match(
    await page.textContent('[data-field="edit_where"]'),
    /first shard: the changes are saved into a copy of sharded-00001-of-00003\.gguf \(shard 1 of 3\)/,
  );
  await change('general.name', 'split, edited');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-action="save"]')]);
  assert.equal(download.suggestedFilename(), 'sharded-00001-of-00003.edited.gguf');
  const saved = await reportOf(await download.path());
  const first = await reportOf(shards[1]);
  assert.equal(value(saved, 'general.name'), 'split, edited');
  assert.equal(value(saved, 'split.no'), 0);
  assert.deepEqual(
    saved.tensors.map((t) => t.name),
    first.tensors.map((t) => t.name),
  );
  assert.deepEqual(pageErrors, []);
});

test('the chat template editor: numbered, highlighted lines, checks and preview as you type; with a new eos id, saved and read back', async () => {
  const PHI3 = `${fixtures}real/ggml-vocab-phi-3.gguf`;
  await pick(page, PHI3);
  await waitFor(page, 'ggml-vocab-phi-3.gguf');
  await page.click('[data-action="edit"]');
  await page.click('#metadata tr[data-key="tokenizer.chat_template"] [data-action="change"]');
  const editor = page.locator('#metadata tr.edit-row[data-for="tokenizer.chat_template"]');
  const input = editor.locator('textarea.code-input');
  const findings = editor.locator('[data-field="template-findings"]');
  const settled = () =>
    page.waitForFunction(() => document.querySelector('[data-field="template-findings"]').dataset.state !== 'checking');
  await editor.locator('.code-layer[data-highlighted="true"]').waitFor();
  const before = await reportOf(PHI3);
  assert.equal(
    await input.inputValue(),
    value(before, 'tokenizer.chat_template'),
    'the editor starts from the whole template',
  );
  assert.equal(
    await editor.locator('.code-layer .code-line').count(),
    value(before, 'tokenizer.chat_template').split('\n').length,
  );
  assert.ok((await editor.locator('.code-layer .j-keyword').count()) > 0, 'the lexer highlights keywords');
  await settled();
  assert.equal(await findings.getAttribute('data-state'), 'clean');
  await editor.locator('[data-field="preview"]:not([hidden])').waitFor();

  // Typing a reach for object internals: the checks say so at once (Save would refuse it); the
  // preview's syntax error marks its line.
  await input.focus();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n{{ x.__class__ }}{% if %}');
  await page.waitForFunction(
    () => document.querySelector('[data-field="template-findings"]').dataset.state === 'found',
  );
  assert.equal(await findings.locator('li').getAttribute('data-code'), 'chat-template-code-execution');
  assert.match(
    await findings.textContent(),
    /^error: chat template "tokenizer\.chat_template" reaches for `__class__`/,
  );
  await page.waitForFunction(() =>
    document.querySelector('tr.edit-row [data-field="preview"]').classList.contains('failed'),
  );
  assert.match(await editor.locator('[data-field="preview"]').textContent(), /syntax error/);
  assert.equal(
    await editor.locator('.code-layer .code-line.error-line').getAttribute('data-line'),
    String(value(before, 'tokenizer.chat_template').split('\n').length + 1),
  );
  assert.equal(
    await page.evaluate(() => document.activeElement.classList.contains('code-input')),
    true,
    'typing keeps the focus',
  );
  // Escape does not throw away what was typed.
  await page.keyboard.press('Escape');
  assert.equal(await editor.count(), 1);
  await editor.locator('.code-editor').screenshot({ path: `${shots}edit-template-refused.png` });

  // A new template: clean, rendered with the file's special tokens marked.
  await input.fill(TEMPLATE);
  await page.waitForFunction(
    (text) =>
      document.querySelector('tr.edit-row [data-field="preview"]').textContent.includes('<|end|>') &&
      document.querySelector('[data-field="template-findings"]').dataset.state === 'clean' &&
      document.querySelector('textarea.code-input').value === text,
    TEMPLATE,
  );
  assert.ok((await editor.locator('[data-field="preview"] mark.special').count()) > 0);
  assert.equal(await editor.locator('.code-layer .code-line').count(), TEMPLATE.split('\n').length);
  await editor.screenshot({ path: `${shots}edit-template.png` });
  // The editor and the edit panel pass axe-core in both colour schemes.
  for (const colorScheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(
      await axeViolations(page, ['#metadata tr.edit-row', '.edit-panel']),
      [],
      `the template editor and the edit panel, ${colorScheme}`,
    );
    if (colorScheme === 'dark') await editor.screenshot({ path: `${shots}edit-template-dark.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await editor.locator('[data-action="apply"]').click();

  // An eos id past the vocabulary: accepted, and the checks say what the new file would have.
  await change('tokenizer.ggml.eos_token_id', '99999');
  await page.waitForFunction(() => document.querySelector('[data-field="edit-findings"]').dataset.state === 'found');
  const said = page.locator('[data-field="edit-findings"] li[data-code="special-token-out-of-vocab"]');
  assert.equal(await said.getAttribute('data-severity'), 'warning');
  assert.match(await said.textContent(), /99,999/);
  await change('tokenizer.ggml.eos_token_id', '32007');
  await page.waitForFunction(() => document.querySelector('[data-field="edit-findings"]').dataset.state === 'clean');
  assert.deepEqual(
    (await pending()).map((i) => [i.key, i.state]),
    [
      ['tokenizer.chat_template', 'pending'],
      ['tokenizer.ggml.eos_token_id', 'pending'],
    ],
  );

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-action="save"]')]);
  const saved = await reportOf(await download.path());
  assert.equal(value(saved, 'tokenizer.chat_template'), TEMPLATE);
  assert.equal(value(saved, 'tokenizer.ggml.eos_token_id'), 32007);
  assert.equal(saved.kv_count, before.kv_count);
  assert.deepEqual(pageErrors, []);
});

test('a small array element by element (a u64 past 2^53 exactly), a long one as JSON loaded from a file', async () => {
  await pick(page, ALL_TYPES);
  await waitFor(page, 'all-types.gguf');
  await page.click('[data-action="edit"]');
  await page.click('#metadata tr[data-key="a.u64"] [data-action="change"]');
  const row = page.locator('#metadata tr.edit-row[data-for="a.u64"]');
  const elements = row.locator('[data-field="elements"] li');
  assert.equal(await elements.count(), 2);
  await row.locator('[data-action="add-element"]').click();
  await row.getByLabel('Element 2', { exact: true }).fill('18446744073709551615');
  await row.locator('[data-action="remove-element"]').first().click();
  assert.equal(await elements.count(), 2);
  assert.equal(await row.getByLabel('Element 1', { exact: true }).inputValue(), '18446744073709551615');
  await row.getByLabel('Element 0', { exact: true }).fill('x1');
  await row.locator('[data-action="apply"]').click();
  assert.match(await row.locator('.error-text[role="alert"]').textContent(), /element 0: "x1" is not an integer/);
  await row.getByLabel('Element 0', { exact: true }).fill('5');
  // Switched to JSON and back, nothing is lost.
  await row.locator('[data-action="as-json"]').click();
  assert.equal(await row.locator('[data-field="edit-value"]').inputValue(), '[5, 18446744073709551615]');
  await row.locator('[data-action="as-elements"]').click();
  await row.locator('[data-action="apply"]').click();

  // 1,000 elements: JSON, from a file.
  await page.click('#metadata tr[data-key="a.u8_1000"] [data-action="change"]');
  const long = page.locator('#metadata tr.edit-row[data-for="a.u8_1000"]');
  assert.equal(await long.locator('[data-field="elements"]').count(), 0);
  const json = `${scratch}/values.json`;
  writeFileSync(json, JSON.stringify(Array.from({ length: 1200 }, (_, i) => i % 256)));
  await long.locator('[data-field="json-file"]').setInputFiles(json);
  await page.waitForFunction(
    () => document.querySelector('tr.edit-row[data-for="a.u8_1000"] [data-field="edit-value"]').value.length > 1000,
  );
  await long.locator('[data-action="apply"]').click();

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-action="save"]')]);
  const path = await download.path();
  const saved = await reportOf(path);
  const u64 = saved.metadata.find((m) => m.key === 'a.u64').value;
  assert.deepEqual([u64.len, u64.head], [2, [5, 18446744073709551615n]]);
  const u8 = saved.metadata.find((m) => m.key === 'a.u8_1000').value;
  assert.deepEqual([u8.element_type, u8.len, u8.head.slice(0, 3)], ['UINT8', 1200, [0, 1, 2]]);
  assert.deepEqual(pageErrors, []);
});

test('unsaved changes are not lost without asking: opening another file asks first', async () => {
  if ((await page.getAttribute('[data-action="edit"]', 'aria-pressed')) !== 'true')
    await page.click('[data-action="edit"]');
  await change('general.name', 'not saved yet');
  const asked = dialogs.length;
  dialogAnswer = false;
  const dialog = page.waitForEvent('dialog'); // answered by the page's handler, in `before`
  await pick(page, `${fixtures}synth/minimal.gguf`);
  await dialog;
  dialogAnswer = true;
  assert.equal(dialogs.length, asked + 1);
  // The two changes saved before and this one: this set of changes is in no saved file.
  assert.match(dialogs.at(-1), /^3 unsaved changes to all-types\.gguf will be lost\. Open minimal\.gguf anyway\?/);
  assert.equal(await page.evaluate(() => document.body.dataset.file), 'all-types.gguf');
  assert.equal((await pending()).length, 3);
  await pick(page, `${fixtures}synth/minimal.gguf`);
  await waitFor(page, 'minimal.gguf');
  assert.equal(dialogs.length, asked + 2);
});

test('at 390 px wide: the edit mode fits, no page-wide horizontal scroll', async () => {
  await page.setViewportSize({ width: 390, height: 900 });
  await pick(page, ALL_TYPES);
  await waitFor(page, 'all-types.gguf');
  await page.click('[data-action="edit"]');
  await addKey('tokenizer.ggml.eos_token_id', 'UINT32', '7');
  await page.click('#metadata tr[data-key="t.string.multiline"] [data-action="change"]');
  await page.locator('#metadata tr.edit-row textarea').waitFor();
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  await page.locator('.edit-panel').screenshot({ path: `${shots}edit-390-panel.png` });
  await page.locator('#metadata tr[data-key="t.string.multiline"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}edit-390.png` });
  assert.equal(overflow, 0);
  await page.setViewportSize({ width: 1300, height: 1000 });
});

test('the 40 GB sparse file: general.name edited from the header alone, the Blob built without reading the data', async () => {
  // A page of its own whose downloads are denied (a 40 GB one must never be written), and
  // whose every Blob read is counted.
  const context = await viewer.browser.newContext({ acceptDownloads: false, viewport: { width: 1300, height: 1000 } });
  const big = await context.newPage();
  const errors = [];
  big.on('pageerror', (e) => errors.push(e.message));
  await big.addInitScript(() => {
    window.__blobReads = { bytes: 0, calls: 0 };
    const count = (size) => {
      window.__blobReads.bytes += size;
      window.__blobReads.calls += 1;
    };
    for (const name of ['arrayBuffer', 'text', 'stream', 'bytes']) {
      const original = Blob.prototype[name];
      if (!original) continue;
      Blob.prototype[name] = function (...args) {
        count(this.size);
        return original.apply(this, args);
      };
    }
    for (const name of ['readAsArrayBuffer', 'readAsText', 'readAsDataURL', 'readAsBinaryString']) {
      const original = FileReader.prototype[name];
      FileReader.prototype[name] = function (blob, ...args) {
        count(blob.size);
        return original.call(this, blob, ...args);
      };
    }
  });
  await big.goto(`${viewer.origin}/`);
  await waitFor(big, 'sample.gguf');
  const path = `${scratch}/big-40g-sparse.gguf`;
  const size = statSync(path).size;
  assert.ok(size > 40e9);
  await pick(big, path);
  await waitFor(big, 'big-40g-sparse.gguf');
  await big.evaluate(() => Object.assign(window.__blobReads, { bytes: 0, calls: 0 }));
  await big.click('[data-action="edit"]');
  await big.click('#metadata tr[data-key="general.name"] [data-action="change"]');
  await big.fill('#metadata tr.edit-row [data-field="edit-value"]', 'a renamed 40 GB model');
  await big.click('#metadata tr.edit-row [data-action="apply"]');
  const [download] = await Promise.all([big.waitForEvent('download'), big.click('[data-action="save"]')]);
  assert.equal(download.suggestedFilename(), 'big-40g-sparse.edited.gguf');
  await big.waitForSelector('[data-action="open-saved"]:not([hidden])');
  const saved = await big.$eval('[data-field="saved"]', (e) => ({
    size: Number(e.dataset.size),
    read: Number(e.dataset.bytesRead),
  }));
  const reads = await big.evaluate(() => window.__blobReads);
  const ref = JSON.parse(readFileSync(`${fixtures}ref/big-40g-sparse.gguf.summary.json`, 'utf8'));
  // The new file: the old data section after a header that may have grown by an alignment step.
  assert.ok(Math.abs(saved.size - size) <= 4096, `${saved.size} vs ${size}`);
  assert.equal((saved.size - size) % ref.alignment, 0);
  assert.ok(saved.read > 0 && saved.read <= 1 << 20, `the edit read ${saved.read} bytes`);
  // The page itself reads no Blob: the edit, in a worker, takes the header the viewer read.
  assert.ok(reads.bytes <= 2 << 20, `the page read ${reads.bytes} bytes in ${reads.calls} reads`);
  assert.equal(reads.calls, 0);
  console.log(
    `40 GB edit: the library read ${saved.read} bytes; the page's Blob reads: ${reads.bytes} bytes in ${reads.calls} calls; new size ${saved.size}`,
  );
  assert.notEqual(await download.failure(), null, 'the download was denied, not written');

  // The saved Blob opens in the viewer, from memory, with the new name.
  await big.click('[data-action="open-saved"]');
  await waitFor(big, 'big-40g-sparse.edited.gguf');
  assert.equal(await big.textContent('#metadata tr[data-key="general.name"] td.value'), 'a renamed 40 GB model');
  assert.deepEqual(errors, []);
  await context.close();
});
