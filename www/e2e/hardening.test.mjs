// The viewer's bounds in headless Chromium, with headers far heavier than a real model's
// (write-fixtures' heavy-headers): the page stays responsive while the worker
// is held for seconds; the watchdog stops a step that holds it longer than its budget (the
// header's report, or a request's); the parser's memory cap stops a header that needs more;
// either way the page says why, the worker is ended, and the next file opens in a fresh one,
// which is also what opening a file does to a worker still held by the one before. The page's
// Content-Security-Policy comes as a header too, so it binds the worker.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

import {
  browserMemory,
  drop,
  fields,
  fixtures,
  pick,
  repo,
  servedAs,
  startViewer,
  waitFor,
  watchLongTasks,
} from './browser.mjs';
import { policy } from '../../scripts/csp.mjs';
import { startLyingServer } from '../../scripts/lying-server.mjs';
import { linkBuiltFixture } from '../../web/test/paths.mjs';

const shots = `${repo}test-results/`;
/** A test that fails does so within this, rather than waiting for ever on a worker that never ends. */
const LIMIT = 180_000;
const ref = (name) => JSON.parse(readFileSync(`${fixtures}ref/${name}.summary.json`, 'utf8'));

let scratch;
let viewer;
let page;
let lying; // a Range server that breaks its word (scripts/lying-server.mjs)
const pageErrors = [];
const violations = []; // Content-Security-Policy refusals

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-e2e-hardening-`);
  linkBuiltFixture('heavy-headers', scratch);
  for (const name of ['minimal.gguf', 'vocab-262k.gguf']) symlinkSync(`${fixtures}synth/${name}`, `${scratch}/${name}`);
  writeFileSync(`${scratch}/marked-lines.gguf`, templateFile('{{ x.__class__ }}\n'.repeat(30_000)));
  lying = await startLyingServer(scratch);
  mkdirSync(shots, { recursive: true });
  viewer = await startViewer();
  page = await viewer.browser.newPage({ viewport: { width: 1300, height: 1000 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    // A lying server's broken answers are the browser's to log.
    if (m.type() !== 'error' || /Failed to load resource|net::ERR_/.test(m.text())) return;
    (/Content Security Policy/.test(m.text()) ? violations : pageErrors).push(m.text());
  });
});

after(async () => {
  await viewer?.close();
  await lying?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Opens the page with the watchdog's budget `watchdogMs` and waits for the sample. */
async function openPage(watchdogMs) {
  await page.goto(`${viewer.origin}/?watchdog=${watchdogMs}`);
  await waitFor(page, 'sample.gguf');
}

/** The parser worker of the page, and a promise of its end. */
function parserWorker() {
  const [worker] = page.workers();
  return { worker, ended: new Promise((resolve) => worker.once('close', resolve)) };
}

/** How the error panel tells a stopped parser from a file found wrong. */
const errorPanel = () =>
  page.evaluate(() => ({
    kind: document.getElementById('error').dataset.kind,
    code: document.getElementById('error').dataset.code,
    title: document.querySelector('#error h2').textContent,
    offsetShown: !document.querySelector('#error .error-where').hidden,
  }));

test('the page stays responsive while one step holds the worker for seconds', { timeout: LIMIT }, async () => {
  await openPage(60_000);
  const { worker } = parserWorker();
  // The worker's own clock: its longest silence is the step that held its thread.
  await worker.evaluate(() => {
    self.ticks = [];
    setInterval(() => self.ticks.push(performance.timeOrigin + performance.now()), 5);
  });
  await page.evaluate(() => {
    window.frames_ = [];
    window.keys_ = [];
    const frame = (t) => (window.frames_.push(performance.timeOrigin + t), requestAnimationFrame(frame));
    requestAnimationFrame(frame);
    document.addEventListener('keydown', (e) => window.keys_.push(performance.timeOrigin + e.timeStamp));
  });
  await pick(page, `${scratch}/tensors-300k.gguf`);
  // A person typing while the file is read.
  while ((await page.evaluate(() => document.body.dataset.state)) === 'loading') await page.keyboard.press('x');
  await waitFor(page, 'tensors-300k.gguf');
  assert.equal((await fields(page)).tensor_count, '300000');
  // The page draws a bounded number of elements, whatever the count.
  assert.equal(
    await page.textContent('#maps [data-drawn="none"]'),
    '300,000 tensors: too many to draw one by one (at most 5,000 are).',
  );
  assert.equal(await page.locator('#maps rect').count(), 0);
  assert.equal(await page.locator('#tensors tbody > tr').count(), 1000);

  const ticks = await worker.evaluate(() => self.ticks);
  let [start, end] = [0, 0];
  for (let i = 1; i < ticks.length; i++)
    if (ticks[i] - ticks[i - 1] > end - start) [start, end] = [ticks[i - 1], ticks[i]];
  const during = (times) => times.filter((t) => t > start && t < end).length;
  const { frames, keys } = await page.evaluate(() => ({ frames: window.frames_, keys: window.keys_ }));
  assert.ok(
    during(frames) >= 5,
    `${during(frames)} frames painted while the worker was held for ${Math.round(end - start)} ms`,
  );
  assert.ok(
    during(keys) >= 1,
    `${during(keys)} key presses handled while the worker was held for ${Math.round(end - start)} ms`,
  );
});

test(
  'the watchdog stops a step that holds the worker past its budget, says so, and the next file opens',
  { timeout: LIMIT },
  async () => {
    await openPage(500);
    const { ended } = parserWorker();
    await pick(page, `${scratch}/tensors-300k.gguf`);
    await waitFor(page, 'tensors-300k.gguf', 'error');
    assert.equal(
      (await fields(page)).error_message,
      "the parser made no progress for 0.5 s and was stopped: this file keeps it busy far longer than a real model's header does; it was restarted",
    );
    assert.deepEqual(await errorPanel(), {
      kind: 'stalled',
      code: 'stalled',
      title: 'The parser was stopped on this file',
      offsetShown: false,
    });
    await ended; // the stuck worker was ended, not left to spin
    await page.screenshot({ path: `${shots}stalled.png` });

    await pick(page, `${fixtures}synth/all-types.gguf`);
    await waitFor(page, 'all-types.gguf');
    const f = await fields(page);
    assert.equal(f.tensor_count, String(ref('all-types.gguf').tensor_count));
    assert.equal(f.kv_count, String(ref('all-types.gguf').kv_count));
    assert.ok(await page.isHidden('#error'));
  },
);

test(
  'a request that holds the worker — a peek whose read is made to spin — is stopped too: the page says so instead of a panel waiting for ever',
  { timeout: LIMIT },
  async () => {
    await openPage(500);
    await pick(page, `${fixtures}synth/quants.gguf`);
    await waitFor(page, 'quants.gguf');
    const { worker, ended } = parserWorker();
    // No file makes the decoder spin (the fuzzing and the hostile-file suite see to it), so the read
    // under the peek is made to: every slice of a file now holds the worker's thread for 5 s.
    await worker.evaluate(() => {
      const slice = Blob.prototype.slice;
      Blob.prototype.slice = function (...range) {
        for (const end = performance.now() + 5000; performance.now() < end;);
        return slice.apply(this, range);
      };
    });
    await page.locator('#tensors tbody tr').first().locator('.peek-button').click();
    await waitFor(page, 'quants.gguf', 'error');
    assert.equal(
      (await fields(page)).error_message,
      "the parser made no progress for 0.5 s and was stopped: this file keeps it busy far longer than a real model's header does; it was restarted",
    );
    assert.equal((await errorPanel()).kind, 'stalled');
    await ended;

    await pick(page, `${fixtures}synth/quants.gguf`);
    await waitFor(page, 'quants.gguf');
    await page.locator('#tensors tbody tr').first().locator('.peek-button').click();
    await page.waitForSelector('.peek[data-state="ready"]');
  },
);

test(
  'opening another file while the worker is held ends that worker: the next file does not wait behind it',
  { timeout: LIMIT },
  async () => {
    await openPage(60_000);
    const { worker, ended } = parserWorker();
    // Whether a real header's decode holds the thread just when the next file comes is a matter
    // of timing, so the worker is made to hold it: its first read of the next file spins for 30 s
    // (the watchdog's budget is 60 s), and the worker cannot say within the handover that it has
    // the file after that one.
    await worker.evaluate(() => {
      const read = ReadableStreamDefaultReader.prototype.read;
      ReadableStreamDefaultReader.prototype.read = function () {
        for (const end = performance.now() + 30_000; performance.now() < end;);
        return read.call(this);
      };
    });
    await pick(page, `${scratch}/tensors-300k.gguf`);
    await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('Reading the header…'));
    await pick(page, `${fixtures}synth/all-types.gguf`);
    await ended;
    await waitFor(page, 'all-types.gguf');
    assert.equal((await fields(page)).tensor_count, String(ref('all-types.gguf').tensor_count));
  },
);

test(
  'a header that needs more memory than the parser may use: out of memory, said, and the next file opens',
  { timeout: LIMIT },
  async () => {
    await openPage(10_000);
    const { ended } = parserWorker();
    await pick(page, `${scratch}/empty-arrays.gguf`);
    await waitFor(page, 'empty-arrays.gguf', 'error');
    assert.equal(
      (await fields(page)).error_message,
      'the parser crashed (out of memory: this file needs more than the 512 MiB the parser may use); it was restarted',
    );
    assert.deepEqual(await errorPanel(), {
      kind: 'out-of-memory',
      code: 'out-of-memory',
      title: 'The parser was stopped on this file',
      offsetShown: false,
    });
    await ended;
    await page.screenshot({ path: `${shots}out-of-memory.png` });

    await pick(page, `${fixtures}real/ggml-vocab-dbrx.gguf`);
    await waitFor(page, 'ggml-vocab-dbrx.gguf');
    assert.equal((await fields(page)).vocab_size, '100352');

    // A file found wrong is still told apart: its error has an offset.
    await pick(page, `${fixtures}synth/truncated-in-kv.gguf`);
    await waitFor(page, 'truncated-in-kv.gguf', 'error');
    assert.deepEqual(await errorPanel(), {
      kind: 'file',
      code: 'truncated',
      title: 'This file cannot be read',
      offsetShown: true,
    });
  },
);

test(
  "the page's Content-Security-Policy comes as a header on every answer, and binds its worker",
  { timeout: LIMIT },
  async () => {
    const response = await page.goto(`${viewer.origin}/`);
    await waitFor(page, 'sample.gguf');
    const meta = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    assert.equal(meta, policy('page'), "the build wrote www/csp.json's page policy into the page's <meta>");
    // The page's policy, then the second one saying who may frame it (scripts/serve.mjs). Two
    // headers of one name come joined by a line break or by ", ", depending on whether the answer
    // came from the server or through the service worker's copy.
    const policies = (header) => header.split(/\n|, (?=frame-ancestors)/);
    assert.deepEqual(policies(response.headers()['content-security-policy']), [meta, "frame-ancestors 'self'"]);
    const script = await (
      await fetch(viewer.origin + servedAs('web/gguf-worker.js'))
    ).headers.get('content-security-policy');
    assert.deepEqual(policies(script), [meta, "frame-ancestors 'self'"]);
    // The worker is bound by the policy only through the header (a <meta> policy does not reach
    // it): a connection to a host that connect-src leaves out is refused before it is made.
    const refused = await page.workers()[0].evaluate(
      () =>
        new Promise((resolve) => {
          self.addEventListener('securitypolicyviolation', (e) => resolve(`refused by ${e.violatedDirective}`));
          fetch('http://127.0.0.2:9/').then(
            () => resolve('fetched'),
            () => setTimeout(() => resolve('failed without a violation'), 2000),
          );
        }),
    );
    assert.equal(refused, 'refused by connect-src');
  },
);

/**
 * The longest main-thread task these tests accept. Issue 18's budget is 500 ms, and the tests
 * print each file's longest task (t.diagnostic; 0–410 ms on an idle 2-core machine, up to 540 ms
 * with the phone suite beside it), but a timed assertion at 500 ms fails on a loaded machine
 * (650–1,056 ms were seen with the load average at 13–17): the bound asserted is a frozen page's —
 * these files froze it for 39–78 s before.
 */
const FROZEN_MS = 2000;

/** A GGUF v3 file of one key-value pair, `tokenizer.chat_template` = `text`, and no tensors. */
function templateFile(text) {
  const u32 = (n) => Buffer.from(new Uint32Array([n]).buffer);
  const u64 = (n) => Buffer.from(new BigUint64Array([BigInt(n)]).buffer);
  const string = (s) => [u64(Buffer.byteLength(s)), Buffer.from(s)];
  return Buffer.concat([
    Buffer.from('GGUF'),
    u32(3),
    u64(0),
    u64(1),
    ...string('tokenizer.chat_template'),
    u32(8),
    ...string(text),
  ]);
}

/**
 * Opens `path` in the viewer's page, or with `embed` in www/embed.html's <gguf-viewer> (opened as a
 * File through its `open()`), watching the main thread's long tasks, and waits until the viewer's
 * root holds `drawn.count` elements matching `drawn.selector`. Resolves the longest task in ms and
 * the document's and viewport's widths.
 */
async function openWatched(path, { embed = false, drawn = { selector: '#summary', count: 1 } } = {}) {
  const name = path.split('/').pop();
  if (embed) {
    await page.goto(`${viewer.origin}/embed.html`);
    await page.waitForFunction(() => document.querySelector('gguf-viewer')?.dataset.state === 'ready');
  } else {
    await openPage(60_000);
  }
  await page.evaluate(() => {
    window.longTasks_ = [];
    new PerformanceObserver((list) => window.longTasks_.push(...list.getEntries().map((e) => e.duration))).observe({
      type: 'longtask',
    });
  });
  if (embed) {
    await page.evaluate(() =>
      document.body.append(
        Object.assign(document.createElement('input'), { type: 'file', id: 'embed-source', hidden: true }),
      ),
    );
    await page.setInputFiles('#embed-source', path);
    // Not awaited here: open() resolves the report, which Playwright would copy out of the page.
    await page.evaluate(
      () => void document.querySelector('gguf-viewer').open(document.getElementById('embed-source').files[0]),
    );
  } else {
    await pick(page, path);
  }
  await page.waitForFunction(
    ([n, embedded, { selector, count }]) => {
      const host = embedded ? document.querySelector('gguf-viewer') : document.body;
      const root = embedded ? host.shadowRoot : document;
      return (
        host.dataset.file === n && host.dataset.state === 'ready' && root.querySelectorAll(selector).length === count
      );
    },
    [name, embed, drawn],
    { timeout: 60_000 },
  );
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 300))));
  return page.evaluate(() => ({
    longest: Math.round(Math.max(0, ...window.longTasks_)),
    width: document.documentElement.scrollWidth,
    viewport: innerWidth,
  }));
}

/**
 * The files that froze or widened the page (issue 18): what the viewer shows of each once drawn,
 * and, in the page, what is checked of it then (`shows`, `check`).
 */
const HEAVY = [
  {
    file: 'long-name.gguf',
    drawn: { selector: '#tensors tbody > tr .long-text', count: 1 },
    shows: 'its 100,000-byte tensor name is shown cut, with its length, and whole on demand',
    async check() {
      const cell = page.locator('#tensors tbody > tr').first().locator('td.name');
      assert.equal(await cell.locator('summary').textContent(), `${'A'.repeat(200)}… (100,000 characters)`);
      assert.ok(await cell.locator('.whole').isHidden());
      await cell.locator('summary').click();
      assert.equal((await cell.locator('.whole').textContent()).length, 100_000);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth));
      // The findings quote it cut by the validator, the layer panel too.
      assert.match(
        await page.textContent('#findings tr[data-code="tensor-name-too-long"] .subject'),
        /^A{200}… \(100,000 bytes\)$/,
      );
    },
  },
  {
    file: 'duplicate-tensors.gguf',
    drawn: { selector: '#findings tr.omitted', count: 2 },
    shows:
      'of its 100,000 duplicate tensors, the findings are the 100 listed of each check and the count of the rest, errors first, counted in the heading',
    async check() {
      assert.equal(await page.locator('#findings tbody > tr:not(.omitted)').count(), 202);
      assert.deepEqual(
        await page
          .locator('#findings tr.omitted')
          .evaluateAll((rows) => rows.map((r) => [r.dataset.code, r.dataset.omitted])),
        [
          ['tensors-overlap', '99899'],
          ['duplicate-tensor-name', '99899'],
        ],
      );
      assert.equal(await page.textContent('#findings-count'), '200,000 errors');
    },
  },
  {
    // The lines of its marks found in one pass (per mark from the start, this froze the page 59 s).
    file: 'marked-lines.gguf',
    drawn: { selector: '#chat-templates .code-line', count: 30_001 },
    shows: 'its chat template is flagged on each of its 30,000 lines',
    async check() {
      assert.equal(await page.locator('#chat-templates .code-line.flagged').count(), 30_000);
      assert.equal(await page.locator('#chat-templates .code .mark').count(), 30_000);
      assert.match(
        await page.locator('#chat-templates .template-warning').textContent(),
        /marked on lines 1, 2, .*, 20 and 29,980 more\.$/,
      );
    },
  },
];

for (const embed of [false, true]) {
  for (const { file, drawn, shows, check } of HEAVY) {
    test(
      `${file} opens in ${embed ? 'the embedded viewer' : 'the page'} without freezing the page (its longest main-thread task printed), no wider than the window${embed ? '' : `; ${shows}`}`,
      { timeout: LIMIT },
      async (t) => {
        const { longest, width, viewport } = await openWatched(`${scratch}/${file}`, { embed, drawn });
        t.diagnostic(`the longest main-thread task took ${longest} ms`);
        assert.ok(longest < FROZEN_MS, `the longest main-thread task took ${longest} ms`);
        assert.ok(width <= viewport, `the document is ${width} px wide in a ${viewport} px window`);
        if (!embed) await check();
      },
    );
  }
}

// ---------------------------------------------------------------- the paths added last (issue 33)

/** Opens `url` with the page's URL field. */
async function enterUrl(url) {
  await page.fill('#url-input', url);
  await page.click('#url-form button[type="submit"]');
}

test(
  "a server whose 206 bodies never end: every read stops at the bytes asked for, the header is read, the tab's memory stays bounded (printed, with the longest main-thread task)",
  { timeout: LIMIT },
  async (t) => {
    await openPage(60_000);
    const tasks = await watchLongTasks(page);
    const sent = lying.bytesSent();
    const { before, peak } = await browserMemory(async () => {
      await enterUrl(`${lying.origin}/endless/vocab-262k.gguf`);
      await waitFor(page, 'vocab-262k.gguf');
      await page.waitForTimeout(1500); // what the server would send on after each answer's pause
    });
    assert.equal((await fields(page)).vocab_size, '262144');
    const longest = await tasks.longest();
    const grown = (peak - before) / 1024;
    const bytes = (lying.bytesSent() - sent) / 2 ** 20;
    t.diagnostic(
      `the longest main-thread task took ${longest} ms; the browser grew by ${grown.toFixed(0)} MB at most (from ${(before / 1024).toFixed(0)} MB); the server sent ${bytes.toFixed(1)} MiB`,
    );
    assert.ok(longest < FROZEN_MS, `the longest main-thread task took ${longest} ms`);
    // A browser with a page open holds tens of megabytes: less is a measure of the wrong processes.
    assert.ok(before > 20 * 1024, `the browser held ${before} KB before the read`);
    // Before, the first answer was read whole: the tab grew until it was killed.
    assert.ok(grown < 1024, `the browser grew by ${grown.toFixed(0)} MB`);
  },
);

test('a 206 body shorter than asked for is refused, naming the URL and the range', { timeout: LIMIT }, async () => {
  await openPage(60_000);
  const url = `${lying.origin}/short/minimal.gguf`;
  await enterUrl(url);
  await waitFor(page, 'minimal.gguf', 'error');
  assert.equal(await page.getAttribute('#error', 'data-code'), 'interrupted');
  assert.ok((await fields(page)).error_message.startsWith(`${url} (bytes 0–95): the answer ended after 48 of`));
});

test("a server that sends nothing is given up after the watchdog's budget, and said", { timeout: LIMIT }, async (t) => {
  await openPage(1000);
  for (const kind of ['silent', 'silent-body']) {
    const url = `${lying.origin}/${kind}/minimal.gguf`;
    const started = Date.now();
    await enterUrl(url);
    await waitFor(page, 'minimal.gguf', 'error');
    t.diagnostic(`${kind}: given up after ${Date.now() - started} ms`);
    assert.equal(await page.getAttribute('#error', 'data-code'), 'interrupted');
    assert.match((await fields(page)).error_message, /the server sent nothing for 1 s/);
  }
});

test(
  'a URL with a user name and password: neither is sent, nor kept in the address, its history or the field',
  { timeout: LIMIT },
  async () => {
    await openPage(60_000);
    const length = await page.evaluate(() => history.length);
    const { host } = new URL(lying.origin);
    await enterUrl(`http://someone:s3cret@${host}/plain/minimal.gguf`);
    await waitFor(page, 'minimal.gguf');
    const seen = await page.evaluate(() => ({
      address: location.href,
      field: /** @type {HTMLInputElement} */ (document.getElementById('url-input')).value,
      history: history.length,
    }));
    assert.equal(seen.address, `${viewer.origin}/?url=${encodeURIComponent(`${lying.origin}/plain/minimal.gguf`)}`);
    assert.equal(seen.field, `${lying.origin}/plain/minimal.gguf`);
    assert.equal(seen.history, length);
    assert.match(await page.textContent('#viewer'), /user name and password in the URL were left out/);
    assert.ok(!(await page.content()).includes('s3cret'));
    assert.deepEqual(lying.authorizations(), []);
  },
);

test('<gguf-viewer src="http://[::1">: an error event saying it is not a URL, no unhandled rejection', async () => {
  await page.goto(`${viewer.origin}/embed.html`);
  await page.waitForFunction(() => document.querySelector('gguf-viewer')?.dataset.state === 'ready');
  const detail = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const element = document.createElement('gguf-viewer');
        element.addEventListener('error', (e) => resolve(/** @type {CustomEvent} */ (e).detail));
        element.setAttribute('src', 'http://[::1');
        document.body.append(element);
      }),
  );
  assert.deepEqual(detail, { code: null, message: 'not a URL: http://[::1', kind: 'file' });
});

test(
  'Compare with a hostile second file decodes it in the worker: the page does not freeze (the longest main-thread task printed)',
  { timeout: LIMIT },
  async (t) => {
    for (const b of ['tensors-300k.gguf', 'duplicate-tensors.gguf', 'long-name.gguf']) {
      await openPage(60_000);
      await pick(page, `${fixtures}synth/minimal.gguf`);
      await waitFor(page, 'minimal.gguf');
      const tasks = await watchLongTasks(page);
      await page.click('[data-action="compare"]');
      await page.setInputFiles('#compare input[type="file"]', `${scratch}/${b}`);
      await page.waitForSelector('#compare[data-state="ready"]', { timeout: 120_000 });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 300))));
      const longest = await tasks.longest();
      t.diagnostic(`${b}: the longest main-thread task took ${longest} ms`);
      assert.ok(longest < FROZEN_MS, `${b}: the longest main-thread task took ${longest} ms`);
    }
  },
);

test(
  'Compare with upstream, a 16 MiB chat template against a 30,000-line one: checked in the worker, the page does not freeze (the longest main-thread task printed)',
  { timeout: LIMIT },
  async (t) => {
    const file = `${scratch}/template-30k.gguf`;
    writeFileSync(file, templateFile('{{ a }}\n'.repeat(30_000)));
    const dir = `${scratch}/upstream-16m`;
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}/config.json`, '{"architectures": ["LlamaForCausalLM"]}');
    const line = '{{ b }}\n';
    writeFileSync(`${dir}/chat_template.jinja`, line.repeat(Math.floor(((16 << 20) - 1) / line.length)));
    await openPage(60_000);
    await pick(page, file);
    await waitFor(page, 'template-30k.gguf');
    // The viewer's own panel drawn first: what is measured is the upstream check's.
    await page.waitForFunction(() => document.querySelectorAll('#chat-templates .code-line').length === 30_001, null, {
      timeout: 60_000,
    });
    const tasks = await watchLongTasks(page);
    await drop(page, [`${dir}/config.json`, `${dir}/chat_template.jinja`]);
    await page.waitForSelector('#upstream:is([data-state="ready"], [data-state="error"])', { timeout: 120_000 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 300))));
    assert.equal(await page.getAttribute('#upstream', 'data-state'), 'ready');
    assert.equal(
      await page.getAttribute('#upstream .upstream-difference[data-check="chat_template"]', 'data-status'),
      'differs',
    );
    const longest = await tasks.longest();
    t.diagnostic(`the longest main-thread task took ${longest} ms`);
    assert.ok(longest < FROZEN_MS, `the longest main-thread task took ${longest} ms`);
  },
);

test('no script error happened, and nothing but the probe above was refused by the policy', () => {
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(
    violations.filter((v) => !v.includes('http://127.0.0.2:9/')),
    [],
  );
});
