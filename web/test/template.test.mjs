// The chat template preview's wasm module (web/pkg-template) under Node, as its worker uses it:
// fixture templates render as the Rust tests say, the bounds hold inside wasm (the nesting limit
// leaves room on wasm's 1 MiB stack; the memory is capped); and the Jinja spans the page
// highlights with (the parser module's jinjaSpans: the core's lexer) cover every template
// exactly, in JS string indices. Run: node --test web/test/ (after scripts/build-web.sh).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import {
  fuel,
  initSync,
  recursionLimit,
  render,
  RenderFailure,
  timeLimitMs,
} from '../pkg-template/gguf_template_wasm.js';
import { initSync as initParser, jinjaKinds, jinjaSpans } from '../pkg/gguf_wasm.js';

const wasm = readFileSync(new URL('../pkg-template/gguf_template_wasm_bg.wasm', import.meta.url));
initSync({ module: wasm });
initParser({ module: readFileSync(new URL('../pkg/gguf_wasm_bg.wasm', import.meta.url)) });

/** `source` cut at its Jinja spans: `{text, kind}` pieces, as the template view builds them. */
function jinjaPieces(source) {
  const spans = jinjaSpans(source);
  const kinds = jinjaKinds();
  const pieces = [];
  let at = 0;
  for (let i = 0; i < spans.length; i += 3) {
    assert.equal(spans[i], at, 'the spans follow each other');
    pieces.push({ text: source.slice(spans[i], spans[i + 1]), kind: kinds[spans[i + 2]] });
    at = spans[i + 1];
  }
  assert.equal(at, source.length, 'the spans reach the end');
  return pieces;
}

const fixtures = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const templates = (name) =>
  Object.entries(JSON.parse(readFileSync(`${fixtures}ref/${name}.dump.json`, 'utf8')).metadata)
    .filter(([key]) => key === 'tokenizer.chat_template' || key.startsWith('tokenizer.chat_template.'))
    .map(([key, entry]) => [key, entry.value]);

/** The render's text, or `{message, line}` of its failure (anything else is a trap). */
function attempt(template, addGenerationPrompt = true) {
  try {
    return render(template, '<s>', '</s>', addGenerationPrompt);
  } catch (e) {
    if (!(e instanceof RenderFailure)) throw e; // a trap or a stack overflow
    return { message: e.message, line: e.line ?? null };
  }
}

test('the bounds the page shows', () => {
  assert.equal(fuel(), 1_000_000);
  assert.equal(recursionLimit(), 100);
  assert.equal(timeLimitMs(), 5000);
});

test('fixture templates render as in the Rust tests', () => {
  const [[, stablelm]] = templates('ggml-vocab-stablelm.gguf');
  const turns =
    "<|system|>\nYou are a helpful assistant.</s>\n<|user|>\nWhat is a GGUF file?</s>\n<|assistant|>\nA single file holding a model's weights and metadata.</s>\n<|user|>\nHow do I look inside one?</s>\n";
  assert.equal(attempt(stablelm, false), turns);
  assert.equal(attempt(stablelm, true), `${turns}<|assistant|>\n`);
  for (const [key, text] of templates('ggml-vocab-command-r.gguf')) {
    assert.equal(typeof attempt(text), 'string', key);
  }
});

test('the bounds hold inside wasm: errors, not traps', () => {
  assert.deepEqual(attempt('{% for i in range(100000) %}{% for j in range(100000) %}.{% endfor %}{% endfor %}'), {
    message:
      'stopped: the template used up its fuel (1000000 units of instructions and data), as an endless loop would',
    line: 1,
  });
  const nested = 'stopped: the template nests too deeply (recursion limit exceeded); a render may nest 100 levels';
  assert.deepEqual(attempt('{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}'), { message: nested, line: 1 });
  assert.deepEqual(attempt('{% for m in messages recursive %}{{ loop([m, m]) }}{% endfor %}'), {
    message: nested,
    line: 1,
  });
  assert.match(
    attempt(`{{ ${'['.repeat(400)}${']'.repeat(400)} }}`).message,
    /^stopped: the template nests too deeply/,
  );
  assert.match(attempt("{{ ''.__class__.__mro__ }}").message, /Python object internals do not exist in this sandbox$/);
  // Chains the engine nests one level per link: refused beyond 2,000 tokens a tag (they would
  // overflow the stack at about 5,600), rendered below it inside 40 nested blocks.
  for (const chain of [
    (n) => `${'not '.repeat(n)}true`,
    (n) => `${'-'.repeat(n)}1`,
    (n) => `1${' ~ 1'.repeat(n / 2)}`,
    (n) => `1${'|string'.repeat(n / 2)}`,
  ]) {
    assert.deepEqual(attempt(`{{ ${chain(10_000)} }}`).line, 1);
    assert.match(
      attempt(`{{ ${chain(10_000)} }}`).message,
      /^stopped: a tag holds \d+ tokens, more than the 2000 the engine can nest safely$/,
    );
    assert.equal(
      typeof attempt(`${'{% if true %}'.repeat(40)}{{ ${chain(1998)} }}${'{% endif %}'.repeat(40)}`),
      'string',
    );
  }
  // The module still works after all that.
  assert.equal(attempt('{{ messages|length }}'), '4');
});

test('the module cannot grow past 256 MiB', () => {
  // The memory section's limits: flag 1 (a maximum), then the initial and maximum page counts.
  const module = new WebAssembly.Module(wasm);
  assert.deepEqual(
    WebAssembly.Module.exports(module).find((e) => e.name === 'memory'),
    { name: 'memory', kind: 'memory' },
  );
  const bytes = new Uint8Array(wasm);
  let i = 8;
  const leb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[i++];
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
  };
  let maxPages = null;
  while (i < bytes.length && maxPages === null) {
    const id = bytes[i++];
    const size = leb();
    const end = i + size;
    if (id === 5) {
      leb(); // one memory
      const flags = leb();
      leb(); // initial pages
      maxPages = flags & 1 ? leb() : undefined;
    }
    i = end;
  }
  assert.equal(maxPages * 64 * 1024, 256 * 1024 * 1024);
});

test('the Jinja spans cut templates into pieces that join back exactly', () => {
  const all = ['ggml-vocab-command-r.gguf', 'ggml-vocab-phi-3.gguf', 'ggml-vocab-stablelm.gguf'].flatMap(templates);
  assert.equal(all.length, 5);
  for (const [key, text] of all)
    assert.equal(
      jinjaPieces(text)
        .map((p) => p.text)
        .join(''),
      text,
      key,
    );
  const source = "Hi {# note #}{%- if x|trim == 'a}}' -%}{{ [1, {'k': 2}] }}{% endif %}{{ unclosed";
  assert.deepEqual(jinjaPieces(source), [
    { text: 'Hi ', kind: 'text' },
    { text: '{# note #}', kind: 'comment' },
    { text: '{%-', kind: 'delimiter' },
    { text: ' ', kind: 'space' },
    { text: 'if', kind: 'keyword' },
    { text: ' ', kind: 'space' },
    { text: 'x', kind: 'name' },
    { text: '|', kind: 'operator' },
    { text: 'trim', kind: 'filter' },
    { text: ' ', kind: 'space' },
    { text: '=', kind: 'operator' },
    { text: '=', kind: 'operator' },
    { text: ' ', kind: 'space' },
    { text: "'a}}'", kind: 'string' },
    { text: ' ', kind: 'space' },
    { text: '-%}', kind: 'delimiter' },
    { text: '{{', kind: 'delimiter' },
    { text: ' ', kind: 'space' },
    { text: '[', kind: 'operator' },
    { text: '1', kind: 'number' },
    { text: ',', kind: 'operator' },
    { text: ' ', kind: 'space' },
    { text: '{', kind: 'operator' },
    { text: "'k'", kind: 'string' },
    { text: ':', kind: 'operator' },
    { text: ' ', kind: 'space' },
    { text: '2', kind: 'number' },
    { text: '}', kind: 'operator' },
    { text: ']', kind: 'operator' },
    { text: ' ', kind: 'space' },
    { text: '}}', kind: 'delimiter' },
    { text: '{%', kind: 'delimiter' },
    { text: ' ', kind: 'space' },
    { text: 'endif', kind: 'keyword' },
    { text: ' ', kind: 'space' },
    { text: '%}', kind: 'delimiter' },
    { text: '{{', kind: 'delimiter' },
    { text: ' ', kind: 'space' },
    { text: 'unclosed', kind: 'name' },
  ]);
  // Indices are UTF-16 code units: characters of two and four bytes in UTF-8, one and two units.
  assert.deepEqual(jinjaPieces("é{{ '😀'|x }}ü"), [
    { text: 'é', kind: 'text' },
    { text: '{{', kind: 'delimiter' },
    { text: ' ', kind: 'space' },
    { text: "'😀'", kind: 'string' },
    { text: '|', kind: 'operator' },
    { text: 'x', kind: 'filter' },
    { text: ' ', kind: 'space' },
    { text: '}}', kind: 'delimiter' },
    { text: 'ü', kind: 'text' },
  ]);
  assert.deepEqual(jinjaKinds(), [
    'text',
    'delimiter',
    'comment',
    'keyword',
    'string',
    'number',
    'name',
    'filter',
    'operator',
    'space',
  ]);
});
