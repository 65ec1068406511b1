// The chat template's editor in Edit mode: a text area laid over the template view's numbered,
// highlighted lines (the core's Jinja lexer, from the parser worker: the page lexes nothing), with
// the validator's findings on the edited file and the sandboxed Preview following the text as it
// is typed. The text stays text: it reaches the page through a text area and text nodes only.

import { h, replaceChildren } from './dom.js';
import { codeView, previewPanel } from './template-view.js';

/** How long typing must pause before the findings and the preview follow, in ms. */
const PAUSE = 300;
/** How long the highlighted lines wait for the lexer before showing the new text unhighlighted. */
const HIGHLIGHT_WAIT = 120;

let ids = 0;

/**
 * An editor of template `key`, holding `text`.
 * @param {object} o
 * @param {string} o.key
 * @param {string} o.text
 * @param {string} o.label  The text area's label.
 * @param {(text: string) => Promise<{spans: Uint32Array, kinds: string[]}>} o.jinjaSpans
 * @param {(text: string) => Promise<{severity: string, code: string, message: string}[]>} o.check
 *   The validator's findings on the text (an error one the input does not have is refused at Save).
 * @param {import('./template-view.js').PreviewModel|null} o.preview
 *   What the preview asks of the open model, or null when the tokenizer is not read yet (no preview then).
 * @returns {{node: Node[], focus: HTMLTextAreaElement, read: () => string, dirty: () => boolean}}
 */
export function templateEditor({ key, text, label, jinjaSpans, check, preview }) {
  const id = `template-editor-${++ids}`;
  const input = h('textarea', {
    id,
    class: 'code-input',
    spellcheck: 'false',
    wrap: 'off',
    autocapitalize: 'off',
    autocomplete: 'off',
    dataset: { field: 'edit-value', template: key },
  });
  input.value = text;
  const frame = h('div', { class: 'code-editor' });
  const where = h('span', { class: 'muted', dataset: { field: 'template-lines' } });
  const findings = h('div', {
    class: 'template-findings',
    role: 'status',
    'aria-live': 'polite',
    dataset: { field: 'template-findings', state: 'checking' },
  });

  let code = null;
  let shownFor = null;
  const show = (highlight, forText) => {
    const next = codeView({ text: forText, marks: [], invalid_utf8: false }, highlight);
    next.element.classList.add('code-layer');
    next.element.setAttribute('aria-hidden', 'true');
    next.element.removeAttribute('role');
    next.element.removeAttribute('aria-label');
    next.element.dataset.highlighted = String(highlight !== null);
    // Only the lines are replaced: the text area keeps its place, its focus and its caret.
    if (code) code.element.replaceWith(next.element);
    else frame.append(next.element, input);
    code = next;
    shownFor = forText;
    follow();
  };
  const follow = () => {
    if (!code) return;
    code.element.scrollTop = input.scrollTop;
    code.element.scrollLeft = input.scrollLeft;
  };
  input.addEventListener('scroll', follow);

  let asked = 0;
  const highlight = () => {
    const ticket = ++asked;
    const now = input.value;
    const lines = now.split('\n').length;
    where.textContent = `${lines.toLocaleString('en-US')} line${lines === 1 ? '' : 's'}`;
    const plain = setTimeout(() => ticket === asked && shownFor !== now && show(null, now), HIGHLIGHT_WAIT);
    jinjaSpans(now).then(
      (spans) => {
        clearTimeout(plain);
        if (ticket === asked) show(spans, now);
      },
      () => ticket === asked && show(null, now),
    );
  };

  const live =
    preview &&
    previewPanel({
      text: () => input.value,
      invalid: false,
      model: preview,
      markError: (n) => code?.markError(n),
    });

  let checks = 0;
  const recheck = async () => {
    const ticket = ++checks;
    findings.dataset.state = 'checking';
    let result;
    try {
      result = await check(input.value);
    } catch (e) {
      if (ticket !== checks) return;
      replaceChildren(findings, h('p', { class: 'error-text' }, `Could not check: ${e?.message ?? String(e)}`));
      findings.dataset.state = 'failed';
      return;
    }
    if (ticket !== checks) return;
    const items = result.map((f) =>
      h(
        'li',
        { class: f.severity === 'error' ? 'error-text' : null, dataset: { severity: f.severity, code: f.code } },
        `${f.severity}: ${f.message}`,
      ),
    );
    replaceChildren(
      findings,
      items.length ? h('ul', {}, items) : h('p', { class: 'note' }, 'The checks find nothing in this template.'),
    );
    findings.dataset.state = items.length ? 'found' : 'clean';
  };

  let pause = null;
  input.addEventListener('input', () => {
    highlight();
    clearTimeout(pause);
    pause = setTimeout(() => {
      recheck();
      live?.render();
    }, PAUSE);
  });
  show(null, text);
  highlight();
  recheck();
  live?.render();

  return {
    node: [
      h('div', { class: 'template-head' }, h('label', { for: id }, label), where),
      frame,
      h('p', { class: 'note' }, 'The checks and the preview follow as you type.'),
      h('h4', { class: 'template-findings-title' }, 'Checks'),
      findings,
      live ? live.element : h('p', { class: 'note' }, 'The preview appears once the tokenizer is read.'),
    ],
    focus: input,
    read: () => input.value,
    dirty: () => input.value !== text,
  };
}
