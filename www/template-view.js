// The chat templates: each shown with line numbers and Jinja highlighting (the spans of the core's
// lexer, from the parser worker: the page lexes nothing itself), the places the validator flags
// marked on their lines, a copy button, and a preview rendered for a sample
// conversation by the sandboxed engine in a worker of its own (a GgufClient's), its special
// tokens marked. Templates and their output are text: they only reach the page as text nodes.

import { GgufClient } from './web/gguf-client.js';
import { h, replaceChildren } from './dom.js';
import { grouped } from './format.js';
import { markRanges, splitAt } from './template-marks.js';

/**
 * The preview's engine, shared by every viewer of the page: a worker of its own, started on the
 * first preview, so that a render stopped at its time limit ends no other work.
 */
let engine = null;

/**
 * Fills `container` with the file's chat templates.
 * @param {HTMLElement} container
 * @param {import('./web/report.js').TokenizerReport} tokenizer  The worker's tokenizer report: `chat_templates` and the `special` tokens.
 * @param {import('./web/report.js').Finding[]} findings  The report's findings, to name the validator's on its template.
 * @param {({spans: Uint32Array, kinds: string[]}|null)[]} highlights  Each template's Jinja tokens
 *   (the worker's `jinjaSpans`), or null to show it unhighlighted.
 * @param {(text: string) => Promise<{text: string, special: number|null}[]>} splitSpecial
 */
export function renderChatTemplates(container, tokenizer, findings, highlights, splitSpecial) {
  const templates = tokenizer.chat_templates;
  if (templates.length === 0) {
    replaceChildren(
      container,
      h(
        'p',
        { class: 'note' },
        'This file has no chat template (tokenizer.chat_template): base models usually have none.',
      ),
    );
    return;
  }
  const tokens = sampleTokens(tokenizer);
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
    replaceChildren(body, templateView(templates[i], highlights[i] ?? null, finding, tokens, splitSpecial));
  }
  replaceChildren(container, templates.length > 1 && h('div', { class: 'tabs', role: 'tablist' }, tabs), body);
  select(0);
}

/** The bos and eos texts the preview's sample conversation uses, from the tokenizer report. */
export function sampleTokens(tokenizer) {
  const special = (role) => tokenizer.special.find((s) => s.role === role)?.text ?? '';
  return { bos: special('bos'), eos: special('eos') };
}

/** One template: its code and its preview. */
function templateView(template, highlight, finding, tokens, splitSpecial) {
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
  return [
    h(
      'div',
      { class: 'template-head' },
      h('code', {}, template.key),
      h('span', { class: 'muted' }, `${grouped(template.lines)} line${template.lines === 1 ? '' : 's'}`),
      copy,
      copied,
    ),
    warning,
    code.element,
    previewPanel({
      text: () => template.text,
      invalid: template.invalid_utf8,
      tokens,
      splitSpecial,
      markError: code.markError,
    }).element,
  ];
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
 * The preview: the sample conversation rendered by the sandboxed engine, special tokens marked.
 * `text()` gives the template (read at each render: the editor renders what is being typed),
 * `invalid` says it is not UTF-8, `markError(line)` marks where rendering failed (null clears).
 * Returns `{element, render()}`; the Render button and the generation-prompt box call `render`.
 */
export function previewPanel({ text, invalid, tokens, splitSpecial, markError }) {
  const generation = h('input', { type: 'checkbox', class: 'generation-prompt', checked: true });
  const button = h('button', { type: 'button', class: 'button small render' }, 'Render preview');
  const status = h('span', { class: 'muted preview-status', 'aria-live': 'polite' });
  const output = h('pre', {
    class: 'preview-output',
    hidden: true,
    dataset: { field: 'preview' },
    tabindex: 0,
    role: 'region',
    'aria-label': 'Rendered preview',
  });
  let shown = false;
  let asked = 0;

  async function render() {
    const ticket = ++asked;
    button.disabled = true;
    status.textContent = 'Rendering…';
    engine ??= new GgufClient({ tools: true, name: 'the template engine' });
    const started = performance.now();
    try {
      const rendered = await engine.renderTemplate(text(), { ...tokens, addGenerationPrompt: generation.checked });
      const pieces = await splitSpecial(rendered);
      if (ticket !== asked) return;
      const specials = pieces.filter((p) => p.special !== null).length;
      replaceChildren(
        output,
        pieces.map((p) =>
          p.special === null
            ? p.text
            : h('mark', { class: 'special', title: `token ${p.special}`, dataset: { id: p.special } }, p.text),
        ),
      );
      output.hidden = false;
      output.classList.remove('failed');
      markError(null);
      status.textContent = `${grouped(rendered.length)} characters, ${specials} special token${specials === 1 ? '' : 's'} marked, in ${Math.round(performance.now() - started)} ms`;
    } catch (e) {
      if (ticket !== asked || e?.name === 'Cancelled') return;
      const where = e.line ? `line ${e.line}: ` : '';
      replaceChildren(output, `${where}${e.message ?? String(e)}`);
      output.hidden = false;
      output.classList.add('failed');
      markError(e.line ?? null);
      status.textContent = 'The template did not render.';
    } finally {
      if (ticket === asked) button.disabled = false;
      shown = true;
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
      'A sample conversation — system, user, assistant, user — with this file’s bos and eos tokens, rendered by a sandboxed Jinja engine (minijinja, in a worker of its own): no files, no network, a fuel budget, a nesting limit and a time limit. Special tokens are marked.',
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
    output,
  );
  return { element, render };
}
