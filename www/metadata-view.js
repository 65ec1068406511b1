// The metadata table: every key-value pair in file order with its type. Long strings are
// collapsed, the chat template is shown as preformatted text, and arrays show their first
// elements with the rest browsable a page at a time (fetched from the worker on demand).

import { h, nameCode, replaceChildren } from './dom.js';
import { float32, grouped, hex } from './format.js';

const PAGE = 100;
const COLLAPSE_AT = 160;

/** A scalar of GGUF type `type` as text. */
function scalarText(v, type) {
  return type === 'FLOAT32' ? float32(v) : String(v);
}

/** One array element of type `type` as compact text; strings quoted so whitespace tokens show. */
export function elementText(v, type) {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v !== null && typeof v === 'object') return `[${v.element_type} × ${grouped(v.len)}: ${listText(v)}]`;
  return scalarText(v, type);
}

/** An array's first elements, and an ellipsis when there are more. */
function listText({ head, len, element_type }) {
  return head.map((v) => elementText(v, element_type)).join(', ') + (len > head.length ? ', …' : '');
}

export function typeText(entry) {
  return entry.type === 'ARRAY' ? `ARRAY of ${entry.value.element_type}` : entry.type;
}

/** A scroll box of text, scrollable by keyboard too: a Tab stop named after its key. */
function textBox(text, label, props = {}) {
  return h('pre', { ...props, tabindex: 0, role: 'region', 'aria-label': label }, text);
}

function stringValue(entry) {
  const text = entry.value;
  const note =
    entry.truncated &&
    h(
      'p',
      { class: 'note' },
      `Showing the first ${grouped(text.length)} characters of ${grouped(entry.value_len)} bytes.`,
    );
  if (entry.chat_template !== undefined)
    return [textBox(text, `${entry.key}: the template's text`, { class: 'template' }), note];
  if (text.length <= COLLAPSE_AT && !text.includes('\n')) return [h('span', { class: 'text' }, text), note];
  const preview = text.slice(0, COLLAPSE_AT).split('\n')[0];
  return h(
    'details',
    {},
    h(
      'summary',
      {},
      h('span', { class: 'text' }, `${preview}…`),
      h('span', { class: 'muted' }, ` ${grouped(text.length)} characters`),
    ),
    textBox(text, `${entry.key}: the whole text`),
    note,
  );
}

/** The array cell: a preview and a pager that loads pages with `loadPage(kvIndex, start, count)`. */
function arrayValue(entry, kvIndex, loadPage) {
  const { len, head, element_type: type } = entry.value;
  const preview = h('span', { class: 'text' }, `[${listText(entry.value)}]`);
  if (len <= head.length) return preview;
  const pager = h('div', { class: 'pager', hidden: true });
  let start = 0;
  const body = h('tbody');
  const position = h('span', { class: 'pager-position' });
  const prev = h('button', { type: 'button', class: 'button small', onclick: () => show(start - PAGE) }, '‹ Previous');
  const next = h('button', { type: 'button', class: 'button small', onclick: () => show(start + PAGE) }, 'Next ›');
  const jump = h('input', { type: 'number', min: 0, max: len - 1, placeholder: 'index', 'aria-label': 'Go to index' });
  const go = h(
    'button',
    { type: 'button', class: 'button small', onclick: () => show(Math.floor(Number(jump.value || 0) / PAGE) * PAGE) },
    'Go',
  );
  jump.addEventListener('keydown', (e) => e.key === 'Enter' && go.click());
  pager.append(
    h('div', { class: 'pager-controls' }, prev, position, next, h('span', { class: 'pager-jump' }, jump, go)),
    h(
      'div',
      { class: 'pager-rows', tabindex: 0, role: 'region', 'aria-label': `${entry.key}: elements` },
      h('table', { class: 'elements' }, body),
    ),
  );

  async function show(at) {
    start = Math.max(0, Math.min(at, Math.floor((len - 1) / PAGE) * PAGE));
    const end = Math.min(start + PAGE, len);
    position.textContent = `${grouped(start)}–${grouped(end - 1)} of ${grouped(len)}`;
    prev.disabled = start === 0;
    next.disabled = end >= len;
    try {
      const items = await loadPage(kvIndex, start, end - start);
      replaceChildren(
        body,
        items.map((v, i) =>
          h('tr', {}, h('td', { class: 'num' }, grouped(start + i)), h('td', { class: 'text' }, elementText(v, type))),
        ),
      );
    } catch (e) {
      replaceChildren(body, h('tr', {}, h('td', { colspan: 2, class: 'error-text' }, e.message)));
    }
  }

  const toggle = h(
    'button',
    { type: 'button', class: 'button small', 'aria-expanded': 'false' },
    `Browse ${grouped(len)} elements`,
  );
  toggle.addEventListener('click', () => {
    pager.hidden = !pager.hidden;
    toggle.setAttribute('aria-expanded', String(!pager.hidden));
    if (!pager.hidden && body.childElementCount === 0) show(0);
  });
  return [preview, h('div', {}, toggle), pager];
}

function valueCell(entry, kvIndex, loadPage) {
  if (entry.type === 'ARRAY') return arrayValue(entry, kvIndex, loadPage);
  if (entry.type === 'STRING') return stringValue(entry);
  return h('span', { class: 'num-value' }, scalarText(entry.value, entry.type));
}

/**
 * Fills `container` with the metadata table. Returns `reveal(kvIndex)`, which scrolls to a
 * key-value pair's row and highlights it.
 * @param {HTMLElement} container
 * @param {import('./web/report.js').MetadataEntry[]} metadata  The report's `metadata`.
 * @param {(kvIndex: number, start: number, count: number) => Promise<any[]>} loadPage
 */
export function renderMetadata(container, metadata, loadPage) {
  const rows = metadata.map((entry, i) =>
    h(
      'tr',
      { dataset: { key: entry.key, index: i } },
      h(
        'td',
        { class: 'key' },
        nameCode(entry.key),
        entry.invalid_utf8 && h('span', { class: 'badge warn' }, 'not UTF-8'),
      ),
      h(
        'td',
        { class: 'type' },
        typeText(entry),
        entry.type === 'ARRAY' &&
          h(
            'span',
            { class: 'muted' },
            ` × ${grouped(/** @type {import('./web/report.js').MetadataArray} */ (entry.value).len)}`,
          ),
      ),
      h('td', { class: 'value' }, valueCell(entry, i, loadPage)),
      h(
        'td',
        { class: 'num offset', title: `${grouped(entry.offset)}, ${grouped(entry.size)} bytes` },
        hex(entry.offset),
      ),
    ),
  );
  replaceChildren(
    container,
    h(
      'table',
      { class: 'data metadata' },
      h(
        'thead',
        {},
        h('tr', {}, h('th', {}, 'Key'), h('th', {}, 'Type'), h('th', {}, 'Value'), h('th', { class: 'num' }, 'Offset')),
      ),
      h('tbody', {}, rows),
    ),
  );
  return {
    reveal(kvIndex) {
      for (const row of rows) row.classList.toggle('target', row === rows[kvIndex]);
      rows[kvIndex].scrollIntoView({ block: 'center' });
      return rows[kvIndex];
    },
  };
}
