// The chat templates: each shown with line numbers and Jinja highlighting (the spans of the core's
// lexer, from the parser worker: the page lexes nothing itself), the places the validator flags
// marked on their lines, the template lint's findings on theirs, a copy button, and a preview:
// the prompt llama.cpp builds for a sample conversation (the template module, in a worker of its
// own: a GgufClient's) beside its tokens (the open model's tokenizer module), special tokens
// marked. Templates and their output are text: they only reach the page as text nodes.

import { GgufClient } from './web/gguf-client.js';
import { h, replaceChildren } from './dom.js';
import { counted, grouped } from './format.js';
import { markRanges, splitAt } from './template-marks.js';
import { tokenPieces } from './tokenize-view.js';

/**
 * The preview's engine, shared by every viewer of the page: a worker of its own, started on the
 * first preview, so that a render stopped at its time limit ends no other work.
 */
let engine = null;

/** The preview's engine, started on first use. */
function templateEngine() {
  engine ??= new GgufClient({ tools: true, name: 'the template engine' });
  return engine;
}

/**
 * The template lint's engine: a worker of its own too, so that a lint stopped at its time limit
 * (a template that runs long, rendered for four conversations) ends no preview.
 */
let linter = null;

function lintEngine() {
  linter ??= new GgufClient({ tools: true, name: 'the template lint' });
  return linter;
}

/**
 * A chat-template finding with its template line (the template module's `TemplateLint`).
 * @typedef {{code: string, severity: string, message: string, kvIndex: number, line: number, start: number, end: number}} TemplateLint
 */

/**
 * What the template views need of a file, asked of the engine once per file (the engine is
 * fetched on the first preview): `chat()`, the bos and eos texts its templates get (none when
 * that fails); `lint(ask)`, every chat-template finding with its line (none when that fails: a
 * template that runs out of time) — asked with `ask`, else what was asked or null before.
 * @param {() => Promise<object>} file  The open model's file.
 */
export function templateFacts(file) {
  let chat = null;
  let lint = null;
  return {
    /** @returns {Promise<{bos: string|null, eos: string|null, addBos: boolean, addEos: boolean}>} */
    chat: () =>
      (chat ??= file()
        .then((f) => templateEngine().templateChat(f))
        .catch(() => ({ bos: null, eos: null, addBos: false, addEos: false }))),
    /** @returns {Promise<TemplateLint[]>|null} */
    lint: (ask = true) =>
      ask
        ? (lint ??= file()
            .then((f) => lintEngine().lintTemplates(f))
            .catch(() => []))
        : lint,
  };
}

/**
 * What the preview asks of the open model: the bos and eos texts (`chatTokens`, from
 * {@link templateFacts}), a prompt's tokens as llama-server tokenizes it (with `shown`), and text
 * split at its special tokens.
 * @typedef {{chatTokens: () => Promise<{bos: string|null, eos: string|null, addBos: boolean, addEos: boolean}>,
 *   tokenizePrompt: (text: string) => Promise<{ids: number[], count: number, shown: string[]}>,
 *   splitSpecial: (text: string) => Promise<{text: string, special: number|null}[]>}} PreviewModel
 */

/**
 * Fills `container` with the file's chat templates.
 * @param {HTMLElement} container
 * @param {import('./web/report.js').TokenizerReport} tokenizer  The worker's tokenizer report: `chat_templates`.
 * @param {import('./web/report.js').Finding[]} findings  The report's findings, to name the validator's on its template.
 * @param {({spans: Uint32Array, kinds: string[]}|null)[]} highlights  Each template's Jinja tokens
 *   (the worker's `jinjaSpans`), or null to show it unhighlighted.
 * @param {PreviewModel} model
 * @param {(ask?: boolean) => Promise<TemplateLint[]>|null} lint  The file's {@link templateFacts}' `lint`: the
 *   findings, shown once the first preview asked for them.
 */
export function renderChatTemplates(container, tokenizer, findings, highlights, model, lint) {
  const templates = tokenizer.chat_templates;
  if (templates.length === 0) {
    replaceChildren(
      container,
      h(
        'p',
        { class: 'note' },
        'This file has no chat template (tokenizer.chat_template): base models usually have none. llama.cpp falls back to ChatML for it, as the preview shows.',
      ),
      previewPanel({ text: () => '', invalid: false, model, markError: () => {} }).element,
    );
    return;
  }
  const body = h('div', { class: 'template-body' });
  const tabs = templates.map((template, i) =>
    h(
      'button',
      { type: 'button', role: 'tab', class: 'tab', dataset: { key: template.key }, onclick: () => select(i) },
      template.title,
    ),
  );
  function select(i) {
    tabs.forEach((tab, j) => tab.setAttribute('aria-selected', String(i === j)));
    const finding = findings.find(
      (f) =>
        f.code === 'chat-template-code-execution' &&
        f.subject?.kind === 'kv' &&
        f.subject.index === templates[i].kv_index,
    );
    const showLint = () =>
      lint(false)?.then((found) => {
        if (!view.nodes[0].isConnected) return; // another template was selected
        view.showLint(
          found.filter((f) => f.kvIndex === templates[i].kv_index && f.code !== 'chat-template-code-execution'),
        );
      });
    const view = templateView(templates[i], highlights[i] ?? null, finding, model, () => {
      lint();
      showLint();
    });
    replaceChildren(body, view.nodes);
    showLint();
  }
  replaceChildren(container, templates.length > 1 && h('div', { class: 'tabs', role: 'tablist' }, tabs), body);
  select(0);
}

/**
 * One template: its code, its lint and its preview (`rendered()` called after each render).
 * Returns `{nodes, showLint(findings)}`.
 */
function templateView(template, highlight, finding, model, rendered) {
  const code = codeView(template, highlight);
  code.element.tabIndex = 0; // the source scrolls by keyboard (the editor draws its own, hidden one)
  const copied = h('span', { class: 'muted copy-status', 'aria-live': 'polite' });
  const copy = h('button', { type: 'button', class: 'button small copy' }, 'Copy');
  copy.addEventListener('click', () =>
    navigator.clipboard.writeText(template.text).then(
      () => (copied.textContent = 'Copied'),
      () => (copied.textContent = 'Could not copy: select the text instead'),
    ),
  );
  const lines = [...new Set(template.marks.map((m) => m.line))];
  const shownLines =
    lines.length > 20 ? `${lines.slice(0, 20).join(', ')} and ${grouped(lines.length - 20)} more` : lines.join(', ');
  const warning =
    (finding || lines.length > 0) &&
    h(
      'div',
      { class: 'warning template-warning' },
      h('strong', {}, 'Reaches for object internals or code: '),
      finding ? finding.message : `${template.marks.length} places`,
      lines.length > 0 && ` — marked on line${lines.length > 1 ? 's' : ''} ${shownLines}.`,
    );
  const lintList = h('ul', { class: 'template-lint', hidden: true, dataset: { field: 'template.lint' } });
  const nodes = [
    h(
      'div',
      { class: 'template-head' },
      h('code', {}, template.key),
      h('span', { class: 'muted' }, `${grouped(template.lines)} line${template.lines === 1 ? '' : 's'}`),
      copy,
      copied,
    ),
    warning,
    lintList,
    code.element,
    previewPanel({
      text: () => template.text,
      invalid: template.invalid_utf8,
      model,
      markError: code.markError,
      rendered,
    }).element,
  ].filter(Boolean);
  return {
    nodes,
    /** Lists the lint's `findings` above the code and marks each on its line. */
    showLint(findings) {
      if (lintList.dataset.shown) return; // once: each render asks again
      lintList.dataset.shown = 'true';
      replaceChildren(
        lintList,
        findings.map((f) =>
          h(
            'li',
            { class: `lint-${f.severity}`, dataset: { code: f.code, line: f.line } },
            h('strong', {}, `${f.severity} ${f.code}`),
            ` (line ${f.line}): `,
            f.message,
          ),
        ),
      );
      lintList.hidden = findings.length === 0;
      for (const f of findings) code.markLint(f.line, `${f.code}: ${f.message}`);
    },
  };
}

/** Lines built per task: a long template is drawn over several tasks, so none holds the page. */
const LINES_PER_TASK = 500;

/**
 * The template's lines (`template.text`), numbered and highlighted (`highlight`: the lexer's spans,
 * or null), with the flagged places (`template.marks`) marked. Returns `{element, markError(n)}`.
 * The first lines are there at once, the rest follow a task at a time.
 */
export function codeView(template, highlight) {
  const marksOf = new Map(); // line → its marks, grouped once
  for (const m of template.marks) marksOf.has(m.line) ? marksOf.get(m.line).push(m) : marksOf.set(m.line, [m]);
  const lines = lineContents(splitAt(pieces(template.text, highlight), markRanges(template)));
  const lineElements = [];
  const element = h('div', { class: 'code', role: 'region', 'aria-label': 'Chat template source' });
  let shown = false;
  const build = () => {
    // A view replaced before it is complete (the editor redraws as text is typed) stops.
    if (element.isConnected) shown = true;
    else if (shown) return;
    const chunk = [];
    while (chunk.length < LINES_PER_TASK) {
      const next = lines.next();
      if (next.done) break;
      const n = lineElements.length + 1;
      const hits = marksOf.get(n) ?? [];
      const gutter = h('span', { class: 'ln', 'aria-hidden': 'true' }, String(n));
      const props = { class: hits.length > 0 ? 'code-line flagged' : 'code-line', dataset: { line: n } };
      if (hits.length > 0) props.title = `Reaches for ${hits.map((m) => m.text).join(', ')}`;
      const line = h('div', props, gutter, h('span', { class: 'src' }, next.value));
      lineElements.push(line);
      chunk.push(line);
    }
    // Each task's lines in a block of their own, laid out apart (`.code-block`: contain), so a
    // block added does not lay out those before it again.
    element.append(h('div', { class: 'code-block' }, chunk));
    if (chunk.length === LINES_PER_TASK) setTimeout(build);
  };
  build();
  return {
    element,
    /** Marks line `n` (from 1) with a lint finding (`what`, its tooltip), once the line is drawn. */
    markLint(n, what) {
      const mark = () => {
        const target = lineElements[n - 1];
        if (!target) return element.isConnected && setTimeout(mark, 50);
        target.classList.add('lint-line');
        target.title = target.title ? `${target.title}\n${what}` : what;
      };
      mark();
    },
    /** Marks line `n` (from 1) as where rendering failed, or clears the mark for null. */
    markError(n) {
      element.querySelector('.error-line')?.classList.remove('error-line');
      const target = n === null ? null : lineElements[n - 1];
      if (!target) return;
      target.classList.add('error-line');
      element.scrollTop +=
        target.getBoundingClientRect().top - element.getBoundingClientRect().top - element.clientHeight / 3;
    },
  };
}

/** Each line's children, in order: the pieces (`splitAt`'s) cut at line ends, as nodes. */
function* lineContents(pieces) {
  let line = [];
  for (const { text, kind, marked } of pieces) {
    const parts = text.split('\n');
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) {
        yield line;
        line = [];
      }
      const part = parts[i];
      if (part)
        line.push(kind === 'text' && !marked ? part : h('span', { class: `j-${kind}${marked ? ' mark' : ''}` }, part));
    }
  }
  yield line;
}

/** `text` cut into `{text, kind}` pieces at the lexer's spans; one text piece without them. */
function pieces(text, highlight) {
  if (!highlight) return [{ text, kind: 'text' }];
  const { spans, kinds } = highlight;
  const out = [];
  for (let i = 0; i + 2 < spans.length; i += 3)
    out.push({ text: text.slice(spans[i], spans[i + 1]), kind: kinds[spans[i + 2]] });
  return out;
}

/**
 * The preview: the prompt llama.cpp builds for the sample conversation — the template module in
 * the engine's worker — beside its tokens as the server tokenizes it (the open model's tokenizer),
 * special tokens marked in both. `text()` gives the template (read at each render: the editor
 * renders what is being typed; '' for none: llama.cpp's ChatML), `invalid` says it is not UTF-8,
 * `markError(line)` marks where rendering failed (null clears). Returns `{element, render()}`; the
 * Render button and the generation-prompt box call `render`.
 * @param {{text: () => string, invalid: boolean, model: PreviewModel, markError: (line: number|null) => void, rendered?: () => void}} o
 */
export function previewPanel({ text, invalid, model, markError, rendered = () => {} }) {
  const generation = h('input', { type: 'checkbox', class: 'generation-prompt', checked: true });
  const button = h('button', { type: 'button', class: 'button small render' }, 'Render preview');
  const status = h('span', { class: 'muted preview-status', 'aria-live': 'polite' });
  const notes = h('ul', { class: 'preview-notes note', hidden: true, dataset: { field: 'preview.notes' } });
  const output = h('pre', {
    class: 'preview-output',
    dataset: { field: 'preview' },
    tabindex: 0,
    role: 'region',
    'aria-label': 'Prompt',
  });
  const count = h('output', { class: 'preview-count', dataset: { field: 'preview.count' } });
  const pieces = h('div', {
    class: 'tokenize-pieces preview-tokens',
    tabindex: 0, // it scrolls: by keyboard too
    role: 'group',
    'aria-label': 'Prompt tokens',
    dataset: { field: 'preview.tokens' },
  });
  const sides = h(
    'div',
    { class: 'preview-sides', hidden: true },
    h('section', { class: 'preview-side' }, h('h4', {}, 'Prompt'), output),
    h('section', { class: 'preview-side' }, h('h4', {}, 'Tokens ', count), pieces),
  );
  let shown = false;
  let asked = 0;

  async function render() {
    const ticket = ++asked;
    button.disabled = true;
    status.textContent = 'Rendering…';
    const started = performance.now();
    try {
      const chat = await model.chatTokens();
      const rendered = await templateEngine().renderTemplate(text(), { chat, addGenerationPrompt: generation.checked });
      const [split, tokens] = await Promise.all([
        model.splitSpecial(rendered.prompt),
        // No tokens where llama.cpp would load no tokenizer; a module that could not be loaded fails.
        model.tokenizePrompt(rendered.prompt).catch((e) => (e?.code === 'not-loaded' ? Promise.reject(e) : null)),
      ]);
      if (ticket !== asked) return;
      const specials = new Set(split.filter((p) => p.special !== null).map((p) => p.special));
      const specialCount = split.filter((p) => p.special !== null).length;
      replaceChildren(
        output,
        split.map((p) =>
          p.special === null
            ? p.text
            : h('mark', { class: 'special', title: `token ${p.special}`, dataset: { id: p.special } }, p.text),
        ),
      );
      output.classList.remove('failed');
      replaceChildren(
        notes,
        rendered.notes.map((n) => h('li', {}, `llama.cpp: ${n}`)),
      );
      notes.hidden = rendered.notes.length === 0;
      if (tokens) {
        count.textContent = `(${counted(tokens.count, 'token')})`;
        count.dataset.value = String(tokens.count);
        // The BOS the tokenizer adds is a special token too, though the prompt's text has none.
        const marked = new Set(specials);
        if (chat.addBos && tokens.ids.length > 0) marked.add(tokens.ids[0]);
        replaceChildren(pieces, tokenPieces(tokens, marked));
      } else {
        count.textContent = '';
        replaceChildren(
          pieces,
          h('p', { class: 'note' }, 'llama.cpp would not load this file’s tokenizer: no tokens.'),
        );
      }
      sides.hidden = false;
      markError(null);
      status.textContent = `${grouped(rendered.prompt.length)} characters, ${tokens ? counted(tokens.count, 'token') + ', ' : ''}${specialCount} special token${specialCount === 1 ? '' : 's'} marked, in ${Math.round(performance.now() - started)} ms`;
    } catch (e) {
      if (ticket !== asked || e?.name === 'Cancelled') return;
      const where = e.line ? `line ${e.line}: ` : '';
      replaceChildren(output, `${where}${e.message ?? String(e)}`);
      output.classList.add('failed');
      replaceChildren(pieces);
      count.textContent = '';
      sides.hidden = false;
      markError(e.line ?? null);
      status.textContent = 'The template did not render.';
    } finally {
      if (ticket === asked) button.disabled = false;
      shown = true;
      rendered();
    }
  }

  button.addEventListener('click', render);
  generation.addEventListener('change', () => shown && render());
  const element = h(
    'div',
    { class: 'preview' },
    h('h3', {}, 'Preview'),
    h(
      'p',
      { class: 'note' },
      'The prompt llama.cpp’s server builds for a sample conversation — system, user, assistant, user — with this file’s bos and eos tokens (stripped where its tokenizer adds them), rendered by a sandboxed Jinja engine in a worker of its own (no files, no network, a fuel budget, a nesting limit and a time limit), beside the tokens the server feeds the model. Special tokens are marked.',
    ),
    invalid
      ? h('p', { class: 'error-text' }, 'This template is not valid UTF-8: it cannot be rendered.')
      : h(
          'div',
          { class: 'preview-controls' },
          h('label', {}, generation, ' add the generation prompt'),
          button,
          status,
        ),
    notes,
    sides,
  );
  return { element, render };
}
