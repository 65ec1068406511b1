// End-to-end tests of the tokenizer panel, the token browser and the chat template view and
// preview, in headless Chromium: the command-r file (256,000 tokens, three templates) as a person
// would use it, then templates that reach for internals, never stop, or carry HTML; the Tokenize
// panel and the token browser's decoded column on the llama SPM vocabulary, at 390 px too.
// Run after scripts/build-web.sh: node --test www/e2e/. Screenshots go to test-results/.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

import { axeViolations, fields, fixtures, pick, repo, servedAs, startViewer, waitFor } from './browser.mjs';
import { linkBuiltFixture, missing } from '../../web/test/paths.mjs';

const shots = `${repo}test-results/`;

let viewer;
let page;
let scratch;
const requests = [];
const pageErrors = [];

before(async () => {
  scratch = mkdtempSync(`${tmpdir()}/ggufscope-tokens-`);
  linkBuiltFixture('hostile-templates.gguf', scratch);
  linkBuiltFixture('lint-templates.gguf', scratch);
  mkdirSync(shots, { recursive: true });
  viewer = await startViewer();
  const context = await viewer.browser.newContext({ viewport: { width: 1300, height: 1000 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: viewer.origin });
  page = await context.newPage();
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  await page.goto(`${viewer.origin}/`);
  await waitFor(page, 'sample.gguf');
});

after(async () => {
  await viewer?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const list = () => page.locator('#tokenizer .vlist');
const rowTexts = () =>
  page
    .locator('#tokenizer .vlist-row:not(.pending)')
    .evaluateAll((rows) =>
      rows.map((r) => [
        Number(r.dataset.id),
        r.querySelector('.token-text').textContent,
        r.querySelector('.tok-type').textContent,
      ]),
    );

/** Types `text` into the token search (any case, unless `exactCase`) and waits for its answer to be shown. */
async function search(text, exactCase = false) {
  await page.locator('#tokenizer .token-case').setChecked(exactCase);
  await page.fill('#tokenizer .token-search', text);
  await page.waitForFunction(
    ([q, exact]) => {
      const list = document.querySelector('#tokenizer .vlist');
      return list?.dataset.query === q && list.dataset.exactCase === String(exact);
    },
    [text, exactCase],
  );
}

const status = () => page.locator('#tokenizer .token-status').textContent();

/** Renders the selected template's preview and waits for the output (or the failure). */
async function renderPreview() {
  const before = await page.locator('#chat-templates .preview-status').textContent();
  await page.click('#chat-templates button.render');
  await page.waitForFunction(
    (b) => {
      const s = document.querySelector('#chat-templates .preview-status')?.textContent;
      return s && s !== b && s !== 'Rendering…';
    },
    before,
    { timeout: 20_000 },
  );
  return page.locator('#chat-templates .preview-output').textContent();
}

test('command-r: the tokenizer panel', async () => {
  await pick(page, `${fixtures}real/ggml-vocab-command-r.gguf`);
  await waitFor(page, 'ggml-vocab-command-r.gguf');
  await page.locator('#tokenizer .vlist-row[data-id="0"]').waitFor();
  const f = await fields(page);
  assert.equal(f['tokens.model'], 'gpt2');
  assert.equal(f['tokens.pre'], 'command-r');
  assert.equal(f['tokens.vocab_size'], '256000');
  assert.equal(f['tokens.merges'], '253333');
  assert.equal(f['tokens.scores'], 'false');
  assert.equal(f['tokens.type.normal'], '254992');
  assert.equal(f['tokens.type.control'], '9');
  assert.equal(f['tokens.type.user_defined'], '999');
  assert.equal(f['tokens.type.byte'], undefined, 'types with no tokens are not listed');
  assert.equal(f['tokens.flag.add_bos_token'], 'true');
  assert.equal(f['tokens.flag.add_eos_token'], 'false');
  const specials = await page
    .locator('#tokenizer table.specials tbody tr')
    .evaluateAll((rows) => rows.map((r) => [...r.cells].slice(0, 3).map((c) => c.textContent)));
  assert.deepEqual(specials, [
    ['bos', '5', '<BOS_TOKEN>'],
    ['eos', '255001', '<|END_OF_TURN_TOKEN|>'],
    ['padding', '0', '<PAD>'],
  ]);
});

test('the token list has only the rows in view, and scrolls through 256,000 tokens', async () => {
  assert.equal(await list().getAttribute('data-total'), '256000');
  const rows = await page.locator('#tokenizer .vlist-row').count();
  assert.ok(rows > 10 && rows < 60, `${rows} rows in the DOM`);
  assert.deepEqual((await rowTexts()).slice(0, 6), [
    [0, '<PAD>', 'control'],
    [1, '<UNK>', 'control'],
    [2, '<CLS>', 'control'],
    [3, '<SEP>', 'control'],
    [4, '<MASK_TOKEN>', 'control'],
    [5, '<BOS_TOKEN>', 'control'],
  ]);
  // To the end, as a scroll bar dragged down would: the last page comes from the worker.
  await list().evaluate((box) => (box.scrollTop = box.scrollHeight));
  await page.locator('#tokenizer .vlist-row[data-id="255999"]:not(.pending)').waitFor();
  assert.equal(await page.locator('#tokenizer .vlist-row[data-id="255999"] .token-text').textContent(), '[PAD255999]');
  assert.ok((await page.locator('#tokenizer .vlist-row').count()) < 60);
  // Half way, in small steps (to row 128,446): each frame paints the rows it has, and the pages
  // missing follow from the worker.
  await list().evaluate(async (box) => {
    for (let i = 0; i < 30; i++) {
      box.scrollTop = 128_000 * 26 + i * 400;
      await new Promise(requestAnimationFrame);
    }
  });
  await page.locator('#tokenizer .vlist-row[data-id="128450"]:not(.pending)').waitFor();
});

test('search: known tokens, best matches first, any case or exact case, multi-byte text, escapes', async () => {
  await search('Hello', true);
  assert.deepEqual(await rowTexts(), [
    [28339, 'Hello', 'normal'],
    [46609, 'ĠHello', 'normal'],
    [251240, 'HelloWorld', 'normal'],
  ]);
  assert.equal(
    await status(),
    '3 of 256,000 tokens contain this text in this case, stored or decoded; best matches first',
  );
  // Any case (the default): equal in the same case, equal in another, containing in the same case, in another.
  await search('Hello');
  assert.deepEqual((await rowTexts()).slice(0, 5), [
    [28339, 'Hello', 'normal'],
    [34313, 'hello', 'normal'],
    [46609, 'ĠHello', 'normal'],
    [251240, 'HelloWorld', 'normal'],
    [65903, 'Ġhello', 'normal'],
  ]);
  assert.match(
    await status(),
    /^\d+ of 256,000 tokens contain this text in any case, stored or decoded; best matches first$/,
  );
  await page.screenshot({ path: `${shots}tokens-search.png` });

  // Byte-level BPE writes é (bytes C3 A9) as the two characters "Ã©".
  await search('Ã©', true);
  assert.equal(await list().getAttribute('data-total'), '4112');
  assert.deepEqual((await rowTexts())[0], [1751, 'Ã©', 'normal']);

  await search('<|END_OF_TURN');
  assert.deepEqual(await rowTexts(), [[255001, '<|END_OF_TURN_TOKEN|>', 'control']]);
  await search('no such token at all');
  assert.equal(await list().getAttribute('data-total'), '0');
  assert.equal(await page.locator('#tokenizer .vlist-row').count(), 0);
  assert.equal(await status(), 'No token contains this text in any case, stored or decoded.');
  await search('');
  assert.equal(await list().getAttribute('data-total'), '256000');
});

test('jump to an id, and to a special token', async () => {
  await search('TURN');
  await page.fill('#tokenizer .token-id', '255001');
  await page.click('#tokenizer button:has-text("Go to id")');
  await page.locator('#tokenizer .vlist-row.current[data-id="255001"]:not(.pending)').waitFor();
  assert.equal(await page.inputValue('#tokenizer .token-search'), '', 'the jump shows all tokens');
  assert.equal(await page.locator('#tokenizer .vlist-row.current .token-text').textContent(), '<|END_OF_TURN_TOKEN|>');
  // Past the vocabulary, or not an id: said, and the list stays where it is.
  for (const [typed, said] of [
    ['300000', 'There is no token 300,000: ids run from 0 to 255,999.'],
    ['256000', 'There is no token 256,000: ids run from 0 to 255,999.'],
    ['1.5', 'There is no token 1.5: ids run from 0 to 255,999.'],
    ['', 'There is no token with that id: ids run from 0 to 255,999.'],
  ]) {
    await page.fill('#tokenizer .token-id', typed);
    await page.click('#tokenizer button:has-text("Go to id")');
    assert.equal(await status(), said, typed);
  }
  assert.equal(await page.locator('#tokenizer .vlist-row.current').getAttribute('data-id'), '255001');
  await page.click('#tokenizer table.specials tr[data-role="bos"] button');
  await page.locator('#tokenizer .vlist-row.current[data-id="5"]:not(.pending)').waitFor();
  await page.locator('#tokenizer').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}tokens-command-r.png` });
});

test('command-r: the chat templates, copied and previewed', async () => {
  assert.ok(
    !requests.some((url) => url.includes('pkg-template')),
    'the template engine is not fetched before a preview',
  );
  const tabs = await page.locator('#chat-templates .tab').allTextContents();
  assert.deepEqual(tabs, ['default', 'tool_use', 'rag']);
  assert.equal(await page.getAttribute('#chat-templates .tab >> nth=0', 'aria-selected'), 'true');
  assert.equal(await page.locator('#chat-templates .code-line').count(), 1);
  assert.ok((await page.locator('#chat-templates .j-keyword').count()) > 10);
  assert.equal(await page.locator('#chat-templates .j-string').first().textContent(), "'role'");
  assert.equal(await page.locator('#chat-templates .code-line.flagged').count(), 0);
  assert.equal(await page.locator('#chat-templates .template-warning').count(), 0);

  await page.click('#chat-templates button.copy');
  await page.waitForFunction(() => document.querySelector('#chat-templates .copy-status').textContent === 'Copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const reference = JSON.parse(readFileSync(`${fixtures}ref/ggml-vocab-command-r.gguf.dump.json`, 'utf8'));
  assert.equal(copied, reference.metadata['tokenizer.chat_template'].value);

  // llama.cpp's prompt: the tokenizer adds BOS itself, so the <BOS_TOKEN> the template writes is
  // stripped from the text (and is the first of the tokens).
  const turns =
    "<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>You are a helpful assistant.<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|USER_TOKEN|>What is a GGUF file?<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>A single file holding a model's weights and metadata.<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|USER_TOKEN|>How do I look inside one?<|END_OF_TURN_TOKEN|>";
  assert.equal(await renderPreview(), `${turns}<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>`);
  assert.ok(requests.some((url) => url.endsWith(servedAs('web/pkg-template/gguf_template_wasm_bg.wasm'))));
  const marks = await page
    .locator('#chat-templates .preview-output mark.special')
    .evaluateAll((ms) => ms.map((m) => [m.textContent, Number(m.dataset.id)]));
  assert.equal(marks.length, 14);
  assert.deepEqual(marks.slice(0, 2), [
    ['<|START_OF_TURN_TOKEN|>', 255000],
    ['<|SYSTEM_TOKEN|>', 255008],
  ]);
  // Beside it, its tokens as llama-server feeds them to the model: BOS first, special ones marked.
  const pieces = await page
    .locator('#chat-templates [data-field="preview.tokens"] .tok-piece')
    .evaluateAll((ps) => ps.map((p) => [Number(p.dataset.id), p.classList.contains('tok-special')]));
  assert.deepEqual(pieces.slice(0, 3), [
    [5, true],
    [255000, true],
    [255008, true],
  ]);
  assert.equal(pieces.filter(([, special]) => special).length, 15);
  assert.equal(
    Number(await page.getAttribute('#chat-templates [data-field="preview.count"]', 'data-value')),
    pieces.length,
  );
  assert.ok(requests.some((url) => url.endsWith(servedAs('web/pkg-tokenizer/gguf_tokenizer_wasm_bg.wasm'))));
  await page.locator('#chat-templates .preview').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}template-command-r.png` });

  // Without the generation prompt the output ends with the last user turn.
  const toggled = page.waitForFunction(
    () => !document.querySelector('#chat-templates .preview-output').textContent.endsWith('<|CHATBOT_TOKEN|>'),
  );
  await page.uncheck('#chat-templates .generation-prompt');
  await toggled;
  assert.equal(await page.locator('#chat-templates .preview-output').textContent(), turns);

  // The named templates render too.
  await page.click('#chat-templates .tab:has-text("rag")');
  const rag = await renderPreview();
  assert.ok(rag.startsWith('<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|># Safety Preamble'), rag.slice(0, 80));
  assert.ok(rag.endsWith('<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>'));
});

test('hostile templates: marked, stopped within the bounds, shown as text', async () => {
  await pick(page, `${scratch}/hostile-templates.gguf`);
  await waitFor(page, 'hostile-templates.gguf');
  await page.locator('#chat-templates .tab').first().waitFor();
  assert.deepEqual(await page.locator('#chat-templates .tab').allTextContents(), [
    'default',
    'loop',
    'recursion',
    'slow',
    'html',
  ]);
  // The validator's finding, its places marked on line 2.
  assert.match(
    await page.textContent('#chat-templates .template-warning'),
    /reaches for `__class__` \(and 2 more places\).*marked on line 2\./,
  );
  assert.deepEqual(
    await page.locator('#chat-templates .code-line.flagged').evaluateAll((ls) => ls.map((l) => l.dataset.line)),
    ['2'],
  );
  assert.deepEqual(await page.locator('#chat-templates .code-line .mark').allTextContents(), [
    '__class__',
    '__mro__',
    '__subclasses__',
  ]);
  // The validator's marks and the highlighting come from one lexer: each mark is one name token.
  assert.deepEqual(
    await page.locator('#chat-templates .code-line .mark').evaluateAll((ms) => ms.map((m) => m.className)),
    ['j-name mark', 'j-name mark', 'j-name mark'],
  );
  assert.match(
    await page.textContent('#chat-templates .code-line[data-line="1"]'),
    /<script>window.__pwned = 'template'<\/script>$/,
  );

  assert.equal(
    await renderPreview(),
    'line 2: undefined value: `.__class__.__mro__` cannot be used here: Python object internals do not exist in this sandbox',
  );
  assert.deepEqual(
    await page.locator('#chat-templates .code-line.error-line').evaluateAll((ls) => ls.map((l) => l.dataset.line)),
    ['2'],
  );
  await page.locator('#chat-templates').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}template-hostile.png` });

  await page.click('#chat-templates .tab:has-text("loop")');
  assert.equal(
    await renderPreview(),
    'line 2: stopped: the template used up its fuel (1000000 units of instructions and data), as an endless loop would',
  );
  await page.click('#chat-templates .tab:has-text("recursion")');
  assert.equal(
    await renderPreview(),
    'line 1: stopped: the template nests too deeply (recursion limit exceeded); a render may nest 100 levels',
  );

  // Walking 10^8 items charges no fuel as it goes: the time limit stops it, and the next render
  // starts a new engine.
  await page.click('#chat-templates .tab:has-text("slow")');
  assert.equal(await renderPreview(), 'stopped: the template ran for more than 5 s');
  await page.click('#chat-templates .tab:has-text("html")');
  const html = await renderPreview();
  assert.equal(
    html,
    `<s><img src=x onerror="window.__pwned = 'output'">You are a helpful assistant.What is a GGUF file?A single file holding a model's weights and metadata.How do I look inside one?</s>`,
  );
  assert.deepEqual(await page.locator('#chat-templates .preview-output mark.special').allTextContents(), [
    '<s>',
    '</s>',
  ]);

  // The token with script in it is a token, as text.
  await search('script');
  assert.deepEqual(await rowTexts(), [[2, "<script>window.__pwned = 'token'</script>", 'user-defined']]);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.locator('#view script, #view img, #view iframe').count(), 0);
});

test('the template lint: its findings listed and marked on their template lines', async () => {
  await pick(page, `${scratch}/lint-templates.gguf`);
  await waitFor(page, 'lint-templates.gguf');
  await page.locator('#chat-templates .code-line').first().waitFor();
  // Shown once a preview has asked the template engine.
  assert.equal(await page.locator('#chat-templates .template-lint li').count(), 0);
  await renderPreview();
  await page.locator('#chat-templates .template-lint li').first().waitFor();
  const listed = await page
    .locator('#chat-templates .template-lint li')
    .evaluateAll((ls) => ls.map((l) => [l.dataset.code, Number(l.dataset.line)]));
  assert.deepEqual(listed.sort(), [
    ['chat-template-generation-prompt-no-effect', 1],
    ['chat-template-unknown-special-token', 4],
  ]);
  assert.deepEqual(
    await page.locator('#chat-templates .code-line.lint-line').evaluateAll((ls) => ls.map((l) => l.dataset.line)),
    ['1', '4'],
  );
  assert.match(
    await page.getAttribute('#chat-templates .code-line[data-line="4"]', 'title'),
    /chat-template-unknown-special-token: .*writes <\|turn_start\|>/,
  );
  await page.locator('#chat-templates').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}template-lint.png` });
});

test('byte-level BPE (Qwen 2, DeepSeek): a newline, a leading space and CJK text find their tokens', async () => {
  for (const [name, newline, the, nihao] of [
    ['ggml-vocab-qwen2.gguf', 198, 279, 108386],
    ['ggml-vocab-deepseek-llm.gguf', 185, 254, 84313],
  ]) {
    await pick(page, `${fixtures}real/${name}`);
    await waitFor(page, name);
    await page.locator('#tokenizer .vlist-row[data-id="0"]').waitFor();
    await search('\\n'); // typed as shown: backslash, n
    assert.deepEqual((await rowTexts())[0], [newline, 'Ċ', 'normal'], name);
    await search(' the');
    assert.deepEqual((await rowTexts())[0], [the, 'Ġthe', 'normal'], name);
    await search('你好');
    assert.deepEqual((await rowTexts())[0], [nihao, 'ä½łå¥½', 'normal'], name);
    // The stored form is found too.
    await search('Ġthe', true);
    assert.deepEqual((await rowTexts())[0], [the, 'Ġthe', 'normal'], name);
  }
});

test('a file without a tokenizer or template says so', async () => {
  await pick(page, `${fixtures}synth/minimal.gguf`);
  await waitFor(page, 'minimal.gguf');
  await page.waitForFunction(() => document.querySelector('#chat-templates').textContent !== '');
  assert.equal(await page.textContent('#tokenizer'), 'This file lists no tokens.');
  assert.match(await page.textContent('#chat-templates'), /^This file has no chat template/);
});

/** The Tokenize panel's pieces as `[id, shown text]`, and its count. */
const tokenized = async () => ({
  count: await page.locator('#tokenize .tokenize-count').getAttribute('data-value'),
  pieces: await page
    .locator('#tokenize .tok-piece')
    .evaluateAll((pieces) => pieces.map((p) => [Number(p.dataset.id), p.querySelector('.token-text').textContent])),
});

/** Types `text` into the Tokenize panel and waits until `count` tokens are shown. */
async function tokenizeText(text, count) {
  await page.fill('#tokenize .tokenize-input', text);
  await page.waitForFunction(
    (n) => document.querySelector('#tokenize .tokenize-count')?.dataset.value === String(n),
    count,
  );
}

test('the Tokenize panel: live pieces with ids and a count as llama-tokenize gives them, the toggles, the ids copied', async () => {
  await pick(page, `${fixtures}real/ggml-vocab-llama-spm.gguf`);
  await waitFor(page, 'ggml-vocab-llama-spm.gguf');
  await page.locator('#tokenize .tokenize-input').waitFor();
  // The template previews above loaded the module in this page's worker already: a page of its
  // own shows when a fresh worker fetches it.
  const wasm = servedAs('web/pkg-tokenizer/gguf_tokenizer_wasm_bg.wasm');
  const fresh = await page.context().newPage();
  try {
    const freshRequests = [];
    fresh.on('request', (r) => freshRequests.push(r.url()));
    await fresh.goto(`${viewer.origin}/`);
    await waitFor(fresh, 'sample.gguf');
    await pick(fresh, `${fixtures}real/ggml-vocab-llama-spm.gguf`);
    await waitFor(fresh, 'ggml-vocab-llama-spm.gguf');
    await fresh.locator('#tokenize .tokenize-input').waitFor();
    const fetchedThere = () => freshRequests.filter((url) => url.endsWith(wasm)).length;
    assert.equal(fetchedThere(), 0, 'the tokenizer module is not fetched before the text box is focused');
    await fresh.focus('#tokenize .tokenize-input');
    // The worker fetches it (the page's request events see the worker's requests).
    for (let waited = 0; fetchedThere() === 0 && waited < 20_000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(fetchedThere(), 1, 'fetched once the text box is focused, before a keystroke');
  } finally {
    await fresh.close();
  }
  const before = requests.filter((url) => url.endsWith(wasm)).length;
  const fetched = () => requests.filter((url) => url.endsWith(wasm)).length - before;
  // `ggufscope tokenize` (and llama-tokenize) give these.
  await tokenizeText('Hello world', 3);
  assert.deepEqual(await tokenized(), {
    count: '3',
    pieces: [
      [1, '<s>'],
      [15043, ' Hello'],
      [3186, ' world'],
    ],
  });
  assert.equal(await page.textContent('#tokenize .tokenize-count'), '3 tokens');
  assert.ok(fetched() <= 1, 'fetched at most once: the worker keeps the module');
  // Live: each keystroke is tokenized.
  await page.locator('#tokenize .tokenize-input').press('End');
  await page.locator('#tokenize .tokenize-input').pressSequentially('!');
  await page.waitForFunction(() => document.querySelector('#tokenize .tokenize-count')?.dataset.value === '4');
  await tokenizeText('<s>hi', 3);
  assert.deepEqual((await tokenized()).pieces, [
    [1, '<s>'],
    [1, '<s>'],
    [7251, ' hi'],
  ]);
  await page.locator('#tokenize .tokenize-parse-special').setChecked(false);
  await page.waitForFunction(() => document.querySelector('#tokenize .tokenize-count')?.dataset.value === '5');
  assert.deepEqual(
    (await tokenized()).pieces.map(([id]) => id),
    [1, 529, 29879, 29958, 2918],
  );
  await page.locator('#tokenize .tokenize-add-special').setChecked(false);
  await page.waitForFunction(() => document.querySelector('#tokenize .tokenize-count')?.dataset.value === '4');
  await page.locator('#tokenize .tokenize-parse-special').setChecked(true);
  await page.locator('#tokenize .tokenize-add-special').setChecked(true);
  // Control, bidirectional and partial characters are shown as escapes, never as themselves.
  await tokenizeText('a\u202Eb\nc', 8);
  const shown = (await tokenized()).pieces.map(([, text]) => text);
  assert.deepEqual(shown, ['<s>', ' a', '\\xE2', '\\x80', '\\xAE', 'b', '\\n', 'c']);
  assert.ok(!(await page.textContent('#tokenize .tokenize-pieces')).includes('\u202E'));
  await page.click('#tokenize .tokenize-copy');
  await page.waitForFunction(() => /^Copied/.test(document.querySelector('#tokenize .tokenize-status').textContent));
  assert.deepEqual(
    JSON.parse(await page.evaluate(() => navigator.clipboard.readText())),
    [1, 263, 229, 131, 177, 29890, 13, 29883],
  );
  await page.locator('#panel-tokenize').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}tokenize-panel.png` });
});

test("the token browser shows what each token stands for, and a search finds it by that: ' hello' finds ▁hello", async () => {
  const rowsWithDecoded = () =>
    page
      .locator('#tokenizer .vlist-row:not(.pending)')
      .evaluateAll((rows) =>
        rows.map((r) => [Number(r.dataset.id), r.children[1].textContent, r.children[2].textContent]),
      );
  await search(' hello');
  assert.deepEqual((await rowsWithDecoded())[0], [22172, '▁hello', ' hello']);
  await search('<0x0A>', true);
  assert.deepEqual((await rowsWithDecoded())[0], [13, '<0x0A>', '\\n']);
  await search('\\n');
  assert.deepEqual(
    (await rowsWithDecoded())[0],
    [13, '<0x0A>', '\\n'],
    'a newline typed as shown finds the byte token',
  );
  await search('');
  assert.deepEqual(
    (await rowsWithDecoded())[0],
    [0, '<unk>', ''],
    'a text that stands for itself leaves the cell empty',
  );
  await page.locator('#panel-tokenizer').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}tokens-decoded.png` });
});

// llama.cpp's own Gemma 4 vocabulary (its source tree's models/, as scripts/test.sh names it).
const gemma4 = process.env.GGUF_LLAMA_CPP && `${process.env.GGUF_LLAMA_CPP}/models/ggml-vocab-gemma-4.gguf`;

test(
  "Gemma 4: ' hello' finds ▁hello, and the panel gives llama-tokenize's ids",
  { skip: missing("llama.cpp 0c1e570's Gemma 4 vocabulary", gemma4, 'GGUF_LLAMA_CPP') },
  async () => {
    await pick(page, gemma4);
    await waitFor(page, 'ggml-vocab-gemma-4.gguf');
    await page.locator('#tokenizer .vlist-row[data-id="0"]').waitFor();
    await search(' hello');
    assert.deepEqual((await rowTexts())[0], [29104, '▁hello', 'normal']);
    assert.equal(
      await page.locator('#tokenizer .vlist-row[data-id="29104"]').locator(':scope > *').nth(2).textContent(),
      ' hello',
    );
    // What llama-tokenize gives (tests/reference/llama-tokenize.json holds this file's cases).
    await tokenizeText(' hello world', 3);
    assert.deepEqual((await tokenized()).pieces, [
      [2, '<bos>'],
      [29104, ' hello'],
      [1902, ' world'],
    ]);
    await page.locator('#panel-tokenizer').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shots}tokens-gemma4-hello.png` });
  },
);

test('the Tokenize panel and the token browser at 390 px pass axe in light and dark, and do not scroll sideways', async () => {
  const phone = await page.context().newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  try {
    await phone.goto(`${viewer.origin}/`);
    await waitFor(phone, 'sample.gguf');
    await pick(phone, `${fixtures}real/ggml-vocab-llama-spm.gguf`);
    await waitFor(phone, 'ggml-vocab-llama-spm.gguf');
    await phone.locator('#tokenizer .vlist-row[data-id="13"]').waitFor();
    await phone.fill('#tokenize .tokenize-input', 'Hello world!\n\tcafé 🏳️‍🌈 <s> a much longer line of text to wrap');
    await phone.waitForFunction(() => Number(document.querySelector('#tokenize .tokenize-count')?.dataset.value) > 10);
    for (const scheme of ['light', 'dark']) {
      await phone.emulateMedia({ colorScheme: scheme });
      assert.deepEqual(await axeViolations(phone, ['#panel-tokenize', '#panel-tokenizer']), [], scheme);
      assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth), 390, scheme);
      await phone.locator('#panel-tokenize').scrollIntoViewIfNeeded();
      await phone.screenshot({ path: `${shots}tokenize-390-${scheme}.png` });
    }
    await phone.locator('#panel-tokenizer .vlist').scrollIntoViewIfNeeded();
    await phone.screenshot({ path: `${shots}tokens-decoded-390.png` });
  } finally {
    await phone.close();
  }
});

test('the chat template preview (prompt beside tokens) and its lint at 390 px pass axe in light and dark, and do not scroll sideways', async () => {
  const phone = await page.context().newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  try {
    await phone.goto(`${viewer.origin}/`);
    await waitFor(phone, 'sample.gguf');
    await pick(phone, `${scratch}/lint-templates.gguf`);
    await waitFor(phone, 'lint-templates.gguf');
    await phone.locator('#chat-templates .code-line').first().waitFor();
    await phone.click('#chat-templates button.render');
    await phone.locator('#chat-templates .preview-tokens .tok-piece').first().waitFor();
    await phone.locator('#chat-templates .template-lint li').first().waitFor();
    for (const scheme of ['light', 'dark']) {
      await phone.emulateMedia({ colorScheme: scheme });
      assert.deepEqual(await axeViolations(phone, '#panel-chat-template'), [], scheme);
      assert.equal(await phone.evaluate(() => document.documentElement.scrollWidth), 390, scheme);
      await phone.locator('#chat-templates .preview').scrollIntoViewIfNeeded();
      await phone.screenshot({ path: `${shots}template-preview-390-${scheme}.png` });
    }
  } finally {
    await phone.close();
  }
});

test("no request left the page's origin, and no script error happened", () => {
  assert.deepEqual(
    requests.filter((url) => !url.startsWith(`${viewer.origin}/`)),
    [],
  );
  assert.deepEqual(pageErrors, []);
});
