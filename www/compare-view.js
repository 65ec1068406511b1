// The Compare panel: the open model's header against a second file's or URL's — the summary side
// by side with differing rows marked, metadata keys added, removed and changed (a changed text as
// a line diff, a changed array as its lengths and first differing element), tensor infos added,
// removed and changed. The comparing is gguf-diff's (web/compare.js, `ggufscope diff --json`'s
// document): this only draws it. Tensor values are compared by the CLI only, for now.

import { compare } from './web/compare.js';
import { fileNameOf } from './web/http-blob.js';
import { h, replaceChildren } from './dom.js';
import { bytes, grouped, orDash } from './format.js';
import { elementText, typeText } from './metadata-view.js';

/** Rows drawn at a time in a list, and lines in a line diff: long lists must not stall the page. */
const STEP = 200;
/** Characters of a value shown in a row; the metadata table shows it whole. */
const VALUE_CUT = 200;

export class CompareView {
  /**
   * @param {object} options
   * @param {() => {source: Blob|Blob[]|{url: URL}, name: string}|null} options.current  The model
   *   shown (A, the reference), or null while none is.
   */
  constructor({ current }) {
    this.current = current;
    this.compared = 0; // comparisons started: a late answer to an earlier one must not paint
    this.fileInput = h('input', { type: 'file', accept: '.gguf,application/octet-stream', hidden: true, 'aria-label': 'File to compare with' });
    this.fileInput.addEventListener('change', () => {
      const [file] = this.fileInput.files;
      this.fileInput.value = ''; // so that choosing the same file again compares again
      if (file) this.#run(file, file.name);
    });
    this.urlInput = h('input', { type: 'url', placeholder: 'https://…/other.gguf', 'aria-label': 'URL of a .gguf file to compare with', required: true });
    const urlForm = h('form', { class: 'compare-url' }, this.urlInput, h('button', { type: 'submit', class: 'button small' }, 'Compare URL'));
    urlForm.addEventListener('submit', (e) => {
      e.preventDefault();
      const url = URL.parse(this.urlInput.value.trim(), location.href);
      if (url?.protocol !== 'https:' && url?.protocol !== 'http:') return this.#fail('only http and https URLs can be compared with');
      this.#run(url, fileNameOf(url.href));
    });
    this.button = h('button', { type: 'button', class: 'button small', dataset: { action: 'compare' }, onclick: () => this.show() }, 'Compare with…');
    this.status = h('p', { class: 'note', role: 'status', dataset: { field: 'compare-status' } });
    this.body = h('div', { class: 'compare-body' });
    this.panel = h(
      'section',
      { class: 'panel compare', id: 'compare', 'aria-label': 'Compare', hidden: true },
      h(
        'div',
        { class: 'panel-head' },
        h('h2', {}, 'Compare'),
        h('button', { type: 'button', class: 'button small', dataset: { action: 'compare-close' }, onclick: () => this.close() }, 'Close'),
      ),
      h('p', { class: 'note' }, 'Compares the two headers: summary, metadata and tensor infos, with this file as A. Tensor values are compared by the command line only, for now (ggufscope diff --values).'),
      h(
        'div',
        { class: 'compare-pick' },
        h('button', { type: 'button', class: 'button small', dataset: { action: 'compare-file' }, onclick: () => this.fileInput.click() }, 'Pick a file…'),
        this.fileInput,
        urlForm,
      ),
      this.status,
      this.body,
    );
  }

  /** Opens the panel to pick B. */
  show() {
    this.panel.hidden = false;
    this.panel.scrollIntoView({ block: 'nearest' });
  }

  /** Closes the panel and forgets the comparison (the open model changed, or the user closed it). */
  close() {
    this.compared++;
    this.panel.hidden = true;
    this.panel.removeAttribute('data-state');
    this.status.textContent = '';
    replaceChildren(this.body);
  }

  /** Compares the open model with `b` (a File or a URL) named `nameB`. */
  async #run(b, nameB) {
    const ticket = ++this.compared;
    const shown = this.current();
    replaceChildren(this.body);
    if (!shown) return this.#fail('open a model first');
    if (Array.isArray(shown.source) && shown.source.length > 1) return this.#fail('a split model cannot be compared in the page yet: compare one shard, or use ggufscope diff');
    this.panel.dataset.state = 'loading';
    replaceChildren(this.status, `Reading the headers of ${shown.name} and ${nameB}…`);
    try {
      const doc = await compare(shown.source.url ?? [shown.source].flat()[0], b, { names: [shown.name, nameB] });
      if (ticket !== this.compared) return;
      this.status.textContent = '';
      this.panel.dataset.state = 'ready';
      this.panel.dataset.same = doc.same;
      renderDocument(this.body, doc);
    } catch (e) {
      if (ticket === this.compared) this.#fail(e.file ? `${e.file === 'a' ? shown.name : nameB}: ${e.message}` : e.message ?? String(e));
    }
  }

  #fail(message) {
    this.panel.dataset.state = 'error';
    replaceChildren(this.status, `Cannot compare: ${message}`);
  }
}

/** Draws `doc` (`ggufscope diff --json`'s document) into `root`. */
function renderDocument(root, doc) {
  const { metadata: m, tensors: t } = doc;
  const names = h('p', { class: 'compare-names' }, h('span', {}, 'A: ', h('strong', { dataset: { field: 'compare-a' } }, doc.a)), h('span', {}, 'B: ', h('strong', { dataset: { field: 'compare-b' } }, doc.b)));
  const verdict = doc.same
    ? h('p', { class: 'compare-verdict same', dataset: { field: 'compare-same' } }, `Identical headers: the same metadata and the same ${grouped(t.same)} tensor info${t.same === 1 ? '' : 's'}.`)
    : h('p', { class: 'compare-verdict', dataset: { field: 'compare-differences' } }, `${grouped(doc.differences)} difference${doc.differences === 1 ? '' : 's'}.`);
  replaceChildren(
    root,
    names,
    verdict,
    section('Summary', null, summaryTable(doc.summary)),
    section('Metadata', `${grouped(m.added.length)} added, ${grouped(m.removed.length)} removed, ${grouped(m.changed.length)} changed`, [
      entryList('Added in B', 'added', m.added),
      entryList('Removed in B', 'removed', m.removed),
      changedKeys(m.changed),
    ]),
    section('Tensors', `${grouped(t.added.length)} added, ${grouped(t.removed.length)} removed, ${grouped(t.changed.length)} changed, ${grouped(t.same)} the same`, [
      tensorList('Added in B', 'added', t.added),
      tensorList('Removed in B', 'removed', t.removed),
      changedTensors(t.changed),
    ]),
  );
}

function section(title, count, body) {
  return h('section', { class: 'compare-section' }, h('h3', {}, title, count && h('span', { class: 'count' }, count)), body);
}

/** The summary side by side; a row whose values differ carries `data-differs` and a "differs" badge. */
function summaryTable(rows) {
  // Counts grouped; other numbers as they are (shortest round trip), so a small difference shows.
  const figure = (v) => (typeof v === 'bigint' || Number.isInteger(v) ? grouped(v) : orDash(v));
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'data compare-summary', dataset: { field: 'compare-summary' } },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'A'), h('th', { scope: 'col' }, 'B'))),
      h(
        'tbody',
        {},
        rows.map((r) =>
          h(
            'tr',
            { dataset: r.differs ? { field: r.field, differs: '' } : { field: r.field } },
            h('th', { scope: 'row' }, r.field.replaceAll('_', ' '), r.differs && h('span', { class: 'badge differs' }, 'differs')),
            h('td', {}, figure(r.a)),
            h('td', {}, figure(r.b)),
          ),
        ),
      ),
    ),
  );
}

/** A metadata entry's value as one line of text, cut to {@link VALUE_CUT} characters. */
function valueText(entry) {
  const text = elementText(entry.value, entry.type);
  return text.length > VALUE_CUT ? `${text.slice(0, VALUE_CUT)}…` : text;
}

function entryList(title, kind, entries) {
  if (entries.length === 0) return null;
  return h('div', { dataset: { field: `compare-metadata-${kind}` } }, h('h4', {}, title), capped(h('ul', { class: 'compare-list' }), entries, (e) => h('li', { dataset: { key: e.key } }, h('code', { class: 'compare-key' }, e.key), ' ', h('span', { class: 'muted' }, typeText(e)), ' ', h('span', { class: 'text' }, valueText(e)))));
}

function changedKeys(changed) {
  if (changed.length === 0) return null;
  return h('div', { dataset: { field: 'compare-metadata-changed' } }, h('h4', {}, 'Changed'), capped(h('ul', { class: 'compare-list' }), changed, changedKey));
}

/** One changed key: its type, its array's lengths and first differing element, or its text as a line diff. */
function changedKey({ key, a, b, change }) {
  const item = h('li', { dataset: { key, kind: change.kind } }, h('code', { class: 'compare-key' }, key), ' ');
  if (change.kind === 'type') {
    item.append(h('span', {}, `type ${typeText(a)} → ${typeText(b)}: `), h('span', { class: 'text' }, `${valueText(a)} → ${valueText(b)}`));
  } else if (change.kind === 'array') {
    const first = change.first;
    const at = first && `; first at index ${grouped(first.index)}: ${first.a === null ? '(none)' : elementText(first.a, a.value.element_type)} → ${first.b === null ? '(none)' : elementText(first.b, b.value.element_type)}`;
    item.append(h('span', { class: 'text' }, `length ${grouped(change.len_a)} → ${grouped(change.len_b)}, ${grouped(change.differing)} differing element${change.differing === 1 ? '' : 's'}${at ?? ''}`));
  } else if (change.kind === 'lines') {
    item.append(h('span', {}, `${grouped(change.removed)} line${change.removed === 1 ? '' : 's'} removed, ${grouped(change.added)} added`), lineDiff(change));
  } else {
    item.append(h('span', { class: 'text' }, `${valueText(a)} → ${valueText(b)}`));
  }
  return item;
}

/** A line diff: removed lines with `-`, added ones with `+`, unchanged runs as a count. */
function lineDiff(change) {
  const lines = change.runs.flatMap((run) =>
    run.op === 'same'
      ? [{ op: 'same', text: `  … ${grouped(run.len)} unchanged line${run.len === 1 ? '' : 's'}` }]
      : run.lines.map((text) => ({ op: run.op, text: `${run.op === 'added' ? '+' : '-'} ${text}` })),
  );
  return h(
    'div',
    {},
    capped(h('div', { class: 'line-diff', dataset: { field: 'compare-lines' } }), lines, ({ op, text }) => h('div', { class: `diff-${op}` }, text)),
    change.cut && h('p', { class: 'note' }, 'The texts are too long to compare line by line in full: the diff was cut.'),
  );
}

/** A tensor info as `TYPE [shape] size`. */
function tensorText(t) {
  return `${t.type} [${t.shape.map(grouped).join(' × ')}] ${bytes(t.n_bytes)}`;
}

function tensorList(title, kind, tensors) {
  if (tensors.length === 0) return null;
  return h('div', { dataset: { field: `compare-tensors-${kind}` } }, h('h4', {}, title), capped(h('ul', { class: 'compare-list' }), tensors, (t) => h('li', { dataset: { name: t.name } }, h('code', { class: 'compare-key' }, t.name), ' ', h('span', { class: 'text' }, tensorText(t)))));
}

function changedTensors(changed) {
  if (changed.length === 0) return null;
  return h(
    'div',
    { dataset: { field: 'compare-tensors-changed' } },
    h('h4', {}, 'Changed'),
    capped(h('ul', { class: 'compare-list' }), changed, (c) => h('li', { dataset: { name: c.name } }, h('code', { class: 'compare-key' }, c.name), ` ${c.what.join(', ')}: `, h('span', { class: 'text' }, `${tensorText(c.a)} → ${tensorText(c.b)}`))),
  );
}

/**
 * `list` with the first {@link STEP} items drawn by `draw`, and a "Show more" button after it that
 * draws the next ones: a 150,000-entry difference is drawn a step at a time, not at once.
 */
function capped(list, items, draw) {
  let shown = 0;
  const more = h('button', { type: 'button', class: 'button small', dataset: { action: 'show-more' } });
  const step = () => {
    list.append(...items.slice(shown, shown + STEP).map(draw));
    shown = Math.min(shown + STEP, items.length);
    more.textContent = `Show more (${grouped(items.length - shown)} left)`;
    more.hidden = shown === items.length;
  };
  more.addEventListener('click', step);
  step();
  return [list, more];
}
