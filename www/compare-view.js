// The Compare panel: the open model against a second file's, shards' or URL's — the summary side
// by side with differing rows marked, metadata keys added, removed and changed (a changed text as
// a line diff, a changed array as its lengths and first differing element), tensor infos added,
// removed and changed — and, on demand, the error of B's tensor values against A's, per tensor
// and per layer, with a chart by layer. The comparing and the statistics are gguf-diff's
// (web/compare.js, `ggufscope diff --json`'s document): this only draws them.

import { Comparison } from './web/compare.js';
import { fileNameOf } from './web/http-blob.js';
import { h, replaceChildren, svg } from './dom.js';
import { bytes, decimal, grouped, orDash, statistic } from './format.js';
import { elementText, typeText } from './metadata-view.js';

/** Rows drawn at a time in a list, and lines in a line diff: long lists must not stall the page. */
const STEP = 200;
/** Tensor pairs a page of the values table shows: with a button each, a model's hundreds of rows are paged. */
const VALUES_PAGE = 25;
/** Characters of a value shown in a row; the metadata table shows it whole. */
const VALUE_CUT = 200;

export class CompareView {
  /**
   * @param {object} options
   * @param {() => {source: Blob|Blob[]|{url: URL}, name: string, model: () => Promise<import('./web/gguf-client.js').OpenedModel>}|null} options.current
   *   The model shown (A, the reference), or null while none is.
   */
  constructor({ current }) {
    this.current = current;
    this.compared = 0; // comparisons started: a late answer to an earlier one must not paint
    this.comparison = null; // the Comparison shown, whose values can be measured
    this.fileInput = h('input', {
      type: 'file',
      accept: '.gguf,application/octet-stream',
      multiple: true,
      hidden: true,
      'aria-label': 'File to compare with (several: the shards of a split model)',
    });
    this.fileInput.addEventListener('change', () => {
      const files = [...this.fileInput.files];
      this.fileInput.value = ''; // so that choosing the same file again compares again
      this.#runFiles(files);
    });
    this.urlInput = h('input', {
      type: 'url',
      placeholder: 'https://…/other.gguf',
      'aria-label': 'URL of a .gguf file to compare with',
      required: true,
    });
    const urlForm = h(
      'form',
      { class: 'compare-url' },
      this.urlInput,
      h('button', { type: 'submit', class: 'button small' }, 'Compare URL'),
    );
    urlForm.addEventListener('submit', (e) => {
      e.preventDefault();
      const url = URL.parse(this.urlInput.value.trim(), location.href);
      if (url?.protocol !== 'https:' && url?.protocol !== 'http:')
        return this.#fail('only http and https URLs can be compared with');
      this.#run(url, fileNameOf(url.href));
    });
    this.button = h(
      'button',
      { type: 'button', class: 'button small', dataset: { action: 'compare' }, onclick: () => this.show() },
      'Compare with…',
    );
    this.status = h('p', { class: 'note', role: 'status', dataset: { field: 'compare-status' } });
    this.body = h('div', { class: 'compare-body' });
    const pick = h(
      'div',
      { class: 'compare-pick', dataset: { field: 'compare-drop' } },
      h(
        'button',
        {
          type: 'button',
          class: 'button small',
          dataset: { action: 'compare-file' },
          onclick: () => this.fileInput.click(),
        },
        'Pick a file…',
      ),
      this.fileInput,
      h('span', { class: 'muted' }, 'or drop it here (several shards: one split model)'),
      urlForm,
    );
    // A drop here compares; the window's drop target (which opens a model) leaves it alone.
    pick.addEventListener('dragover', (e) => {
      if (![...(e.dataTransfer?.types ?? [])].includes('Files')) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    });
    pick.addEventListener('drop', (e) => {
      e.preventDefault();
      this.#runFiles([...(e.dataTransfer?.files ?? [])]);
    });
    this.panel = h(
      'section',
      { class: 'panel compare', id: 'compare', 'aria-label': 'Compare', hidden: true },
      h(
        'div',
        { class: 'panel-head' },
        h('h2', {}, 'Compare'),
        h(
          'button',
          { type: 'button', class: 'button small', dataset: { action: 'compare-close' }, onclick: () => this.close() },
          'Close',
        ),
      ),
      h(
        'p',
        { class: 'note' },
        'Compares the two headers — summary, metadata and tensor infos — with this file as A; then, tensor by tensor or all at once, the error of B’s values against A’s.',
      ),
      pick,
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
    this.#forget();
    this.panel.hidden = true;
    this.panel.removeAttribute('data-state');
    this.status.textContent = '';
    replaceChildren(this.body);
  }

  #forget() {
    this.values?.cancel();
    this.values = null;
    this.comparison?.close();
    this.comparison = null;
  }

  /** Compares with the files picked or dropped: one file, or the shards of a split model. */
  #runFiles(files) {
    if (files.length === 0) return;
    const names = files.map((f) => f.name).sort(); // named as the viewer names a split model
    this.#run(
      files.length === 1 ? files[0] : files,
      files.length === 1 ? names[0] : `${names[0]} (+${files.length - 1} more)`,
    );
  }

  /** Compares the open model with `b` (a File, Files or a URL) named `nameB`. */
  async #run(b, nameB) {
    const ticket = ++this.compared;
    const shown = this.current();
    this.#forget();
    replaceChildren(this.body);
    if (!shown) return this.#fail('open a model first');
    this.panel.dataset.state = 'loading';
    replaceChildren(this.status, `Reading the headers of ${shown.name} and ${nameB}…`);
    try {
      // A is the model shown, its headers as the viewer read them: none is read again.
      const comparison = await Comparison.open(await shown.model(), b, { names: [shown.name, nameB] });
      if (ticket !== this.compared) return comparison.close();
      this.comparison = comparison;
      const doc = comparison.document();
      this.status.textContent = '';
      this.panel.dataset.state = 'ready';
      this.panel.dataset.same = doc.same;
      renderDocument(this.body, doc);
      this.values = new ValuesSection(comparison);
      this.body.append(this.values.element);
    } catch (e) {
      if (ticket === this.compared)
        this.#fail(e.file ? `${e.file === 'a' ? shown.name : nameB}: ${e.message}` : (e.message ?? String(e)));
    }
  }

  #fail(message) {
    this.panel.dataset.state = 'error';
    replaceChildren(this.status, `Cannot compare: ${message}`);
  }
}

/** A figure of the values tables: `statistic`'s form, "inf"/"nan" as named, — when there is none. */
const figure = (x) => orDash(x, statistic);
/** An SNR: two decimals, "inf" as named, — when there is none. */
const decibels = (x) => orDash(x, (v) => (typeof v === 'number' ? v.toFixed(2) : String(v)));

/** The columns of the values table that sort: key, label, and `worst`, the order that puts the worst first (−1: largest first). */
const SORTS = [
  { key: 'name', label: 'Tensor' },
  { key: 'rmse', label: 'RMSE', worst: -1 },
  { key: 'max_abs', label: 'Max abs', worst: -1 },
  { key: 'cosine', label: 'Cosine', worst: 1 },
  { key: 'snr_db', label: 'SNR dB', worst: 1 },
];

/** A figure as a number to sort by: "inf" and "-inf" as infinities, none (or NaN) as null. */
function sortable(x) {
  if (typeof x === 'number') return x;
  return x === 'inf' ? Infinity : x === '-inf' ? -Infinity : null;
}

/**
 * The values section: a row per tensor pair with its button, "Compare all values" with progress
 * and Cancel, the figures sortable, the layers' table and a chart of RMSE by layer.
 */
class ValuesSection {
  constructor(comparison) {
    this.comparison = comparison;
    this.pairs = comparison.pairs;
    this.figures = new Map(); // name → the pair's figures (the document's `values` entry)
    this.layers = [];
    this.sort = { key: 'name', dir: 1 };
    this.page = 0; // the page of the values table shown
    this.running = null; // the AbortController of the measuring under way
    this.allButton = h(
      'button',
      {
        type: 'button',
        class: 'button small',
        dataset: { action: 'compare-values-all' },
        onclick: () => this.#measure(true),
      },
      'Compare all values',
    );
    this.cancelButton = h(
      'button',
      {
        type: 'button',
        class: 'button small',
        dataset: { action: 'compare-values-cancel' },
        hidden: true,
        onclick: () => this.cancel(),
      },
      'Cancel',
    );
    this.progress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Values compared' });
    this.status = h('p', { class: 'note', role: 'status', dataset: { field: 'compare-values-status' } });
    this.head = h('tr');
    this.rows = h('tbody');
    this.pager = h('nav', {
      class: 'compare-pager',
      'aria-label': 'Pages of tensors',
      dataset: { field: 'compare-values-pager' },
    });
    this.layerPart = h('div', { dataset: { field: 'compare-layers' } });
    const none = this.pairs.length === 0;
    this.element = section(
      'Values',
      `${grouped(this.pairs.length)} tensor${this.pairs.length === 1 ? '' : 's'} in both with one shape`,
      none
        ? // Vocabulary files, or models with no tensor in common: there is nothing to measure.
          h(
            'p',
            { class: 'note', dataset: { field: 'compare-values-none' } },
            'No tensor is in both files with one shape, so there are no values to compare.',
          )
        : [
            h(
              'p',
              { class: 'note' },
              'B’s values against A’s (the reference), dequantized a slice at a time: only these tensors’ bytes are read. When A is the F16/BF16/Q8_0 file and B a quantization of it, this is the error the quantization added.',
            ),
            h('div', { class: 'compare-values-bar' }, this.allButton, this.cancelButton, this.progress),
            this.status,
            this.layerPart, // the layers first: a model's hundreds of tensors follow
            h(
              'div',
              { class: 'table-wrap' },
              h(
                'table',
                { class: 'data compare-values stacked', dataset: { field: 'compare-values' } },
                h('thead', {}, this.head),
                this.rows,
              ),
            ),
            this.pager,
          ],
    );
    this.element.dataset.field = 'compare-values-section';
    this.#draw();
  }

  /** Stops the measuring under way; the pairs measured until then stay. */
  cancel() {
    this.running?.abort(new DOMException('cancelled', 'AbortError'));
  }

  async #measure(which) {
    if (this.running) return;
    const running = (this.running = new AbortController());
    const all = which === true;
    for (const b of this.element.querySelectorAll('button[data-action^="compare-value"]'))
      b.disabled = b !== this.cancelButton;
    this.cancelButton.hidden = false;
    this.progress.hidden = !all;
    this.status.textContent = 'Reading the values…';
    let measured = 0;
    let drawn = performance.now();
    try {
      const result = await this.comparison.measure(which, {
        signal: running.signal,
        onProgress: (p) => {
          // The pairs done so far shown as they come, at most twice a second.
          if (p.done > measured && performance.now() - drawn > 500) {
            this.#take(this.comparison.measuredValues());
            this.#draw();
            drawn = performance.now();
          }
          measured = p.done;
          this.progress.max = p.bytesTotal || 1;
          this.progress.value = p.bytesRead;
          this.status.textContent = `${all ? `${grouped(p.done)} of ${grouped(p.pairs)} tensors; ` : ''}${p.name}: ${bytes(p.bytesRead)} of ${bytes(p.bytesTotal)} read`;
        },
      });
      this.#take(result);
      this.status.textContent = all ? `${grouped(this.pairs.length)} tensors compared.` : '';
    } catch (e) {
      if (e?.name === 'AbortError') {
        // What was measured before the cancel is kept by the comparison: show it.
        if (!this.comparison.closed) this.#take(this.comparison.measuredValues()); // the panel may have closed
        this.status.textContent = `Cancelled after ${grouped(measured)} tensor${measured === 1 ? '' : 's'}.`;
      } else {
        this.status.textContent = `Cannot compare the values: ${e.file ? `${e.file.toUpperCase()}: ` : ''}${e.message ?? String(e)}`;
      }
    } finally {
      this.running = null;
      this.allButton.disabled = false;
      this.cancelButton.hidden = true;
      this.progress.hidden = true;
      this.#draw();
    }
  }

  #take(result) {
    this.figures = new Map(result.values.map((v) => [v.name, v]));
    this.layers = result.layers;
  }

  #sortBy(key) {
    this.sort = { key, dir: this.sort.key === key ? -this.sort.dir : 1 };
    this.page = 0; // the first page of the new order: its worst, or its first, rows
    this.#draw();
  }

  #turn(page) {
    this.page = page;
    this.#draw();
    this.rows.closest('table')?.scrollIntoView({ block: 'nearest' });
  }

  #draw() {
    const { key, dir } = this.sort;
    const spec = SORTS.find((s) => s.key === key);
    // A figure's first order is worst first (largest error, smallest cosine and SNR); unmeasured last.
    const order = (p, q) => {
      if (key === 'name') return dir * (p.index - q.index);
      const [x, y] = [sortable(this.figures.get(p.name)?.[key]), sortable(this.figures.get(q.name)?.[key])];
      if (x === null || y === null) return Number(x === null) - Number(y === null) || p.index - q.index;
      return dir * spec.worst * (x - y) || p.index - q.index;
    };
    const rows = this.pairs.map((p, index) => ({ ...p, index })).sort(order);
    replaceChildren(
      this.head,
      SORTS.map((s) =>
        h(
          'th',
          {
            scope: 'col',
            class: s.key === 'name' ? null : 'num',
            'aria-sort': s.key === key ? (dir * (s.worst ?? 1) > 0 ? 'ascending' : 'descending') : 'none',
          },
          h(
            'button',
            { type: 'button', class: 'sort', dataset: { sort: s.key }, onclick: () => this.#sortBy(s.key) },
            s.label,
          ),
        ),
      ).toSpliced(1, 0, h('th', { scope: 'col' }, 'Types'), h('th', { scope: 'col', class: 'num' }, 'n')),
      h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Action')),
    );
    const pages = Math.max(1, Math.ceil(rows.length / VALUES_PAGE));
    this.page = Math.min(this.page, pages - 1);
    const first = this.page * VALUES_PAGE;
    const shown = rows.slice(first, first + VALUES_PAGE);
    replaceChildren(
      this.rows,
      shown.map((p) => this.#row(p)),
    );
    replaceChildren(
      this.pager,
      pages > 1 && [
        h(
          'button',
          {
            type: 'button',
            class: 'button small',
            dataset: { action: 'compare-values-previous' },
            disabled: this.page === 0,
            onclick: () => this.#turn(this.page - 1),
          },
          'Previous',
        ),
        h(
          'span',
          { class: 'muted', dataset: { field: 'compare-values-shown' } },
          `Tensors ${grouped(first + 1)}–${grouped(first + shown.length)} of ${grouped(rows.length)}`,
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'button small',
            dataset: { action: 'compare-values-next' },
            disabled: this.page === pages - 1,
            onclick: () => this.#turn(this.page + 1),
          },
          'Next',
        ),
      ],
    );
    this.#drawLayers();
  }

  #row(p) {
    const f = this.figures.get(p.name);
    const busy = this.running !== null;
    return h(
      'tr',
      { dataset: f ? { name: p.name, measured: '', exact: f.exact } : { name: p.name } },
      h('th', { scope: 'row' }, h('code', { class: 'compare-key' }, p.name)),
      h('td', { dataset: { label: 'Types' } }, p.type_a === p.type_b ? p.type_a : `${p.type_a} → ${p.type_b}`),
      h('td', { class: 'num', dataset: { label: 'n' } }, grouped(p.n)),
      ['rmse', 'max_abs', 'cosine', 'snr_db'].map((key) =>
        h(
          'td',
          {
            class: 'num',
            dataset: {
              label: SORTS.find((s) => s.key === key).label,
              ...(f ? { field: key, value: String(f[key]) } : { field: key }),
            },
          },
          f ? (key === 'snr_db' ? decibels(f[key]) : figure(f[key])) : '',
        ),
      ),
      h(
        'td',
        {},
        h(
          'button',
          {
            type: 'button',
            class: 'button small',
            disabled: busy,
            dataset: { action: 'compare-value' },
            'aria-label': `${f ? 'Compare again' : 'Compare'} the values of ${p.name}`,
            onclick: () => this.#measure([p.name]),
          },
          f ? 'Compare again' : 'Compare',
        ),
      ),
    );
  }

  #drawLayers() {
    if (this.layers.length === 0) return replaceChildren(this.layerPart);
    const label = (l) => (l.layer === null ? 'other' : `blk.${l.layer}`);
    const table = h(
      'table',
      { class: 'data compare-layers stacked' },
      h('caption', { class: 'visually-hidden' }, 'Error by layer'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Layer', 'Tensors', 'n', 'RMSE', 'Max abs', 'Cosine', 'SNR dB'].map((t, i) =>
            h('th', { scope: 'col', class: i ? 'num' : null }, t),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        this.layers.map((l) =>
          h(
            'tr',
            { dataset: { layer: label(l) } },
            h('th', { scope: 'row' }, label(l)),
            h('td', { class: 'num', dataset: { label: 'Tensors' } }, grouped(l.tensors)),
            h('td', { class: 'num', dataset: { label: 'n' } }, grouped(l.n)),
            h('td', { class: 'num', dataset: { field: 'rmse', label: 'RMSE' } }, figure(l.rmse)),
            h('td', { class: 'num', dataset: { label: 'Max abs' } }, figure(l.max_abs)),
            h('td', { class: 'num', dataset: { label: 'Cosine' } }, figure(l.cosine)),
            h('td', { class: 'num', dataset: { label: 'SNR dB' } }, decibels(l.snr_db)),
          ),
        ),
      ),
    );
    replaceChildren(
      this.layerPart,
      h('h4', {}, 'By layer'),
      layerChart(this.layers.filter((l) => l.layer !== null)),
      h('div', { class: 'table-wrap' }, table),
      h('h4', {}, 'By tensor'),
    );
  }
}

/** Chart width in viewBox units; the chart scales to its box. */
const CHART_WIDTH = 600;
const CHART_HEIGHT = 120;

/**
 * A bar per layer (`blk.N`, in order), its height the layer's RMSE against the largest; each bar
 * titled with its figure. The same numbers are in the layers' table beside it.
 */
function layerChart(layers) {
  const values = layers.map((l) => (typeof l.rmse === 'number' ? l.rmse : 0));
  const top = Math.max(...values, 0);
  if (layers.length === 0) return null;
  const step = CHART_WIDTH / layers.length;
  const range = top > 0 ? `the largest is ${statistic(top)}` : 'no error in any layer: no bars';
  const desc = `RMSE of B against A by layer, from blk.${layers[0].layer} to blk.${layers.at(-1).layer}; ${range}. The figures are in the table below.`;
  const chart = svg(
    'svg',
    {
      class: 'chart compare-chart',
      viewBox: `0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`,
      preserveAspectRatio: 'none',
      role: 'img',
      'aria-labelledby': 'compare-chart-title compare-chart-desc',
      dataset: { field: 'compare-chart' },
    },
    svg('title', { id: 'compare-chart-title' }, 'Error by layer (RMSE)'),
    svg('desc', { id: 'compare-chart-desc' }, desc),
    svg('line', { class: 'grid-line', x1: 0, x2: CHART_WIDTH, y1: CHART_HEIGHT, y2: CHART_HEIGHT }),
    layers.map((l, i) => {
      const height = top > 0 ? (values[i] / top) * CHART_HEIGHT : 0;
      return svg(
        'rect',
        {
          class: 'tone-5',
          x: i * step + step * 0.1,
          y: CHART_HEIGHT - height,
          width: step * 0.8,
          height,
          dataset: { layer: l.layer },
        },
        svg('title', {}, `blk.${l.layer}: RMSE ${figure(l.rmse)}`),
      );
    }),
  );
  return h(
    'figure',
    { class: 'compare-chart-figure' },
    chart,
    h(
      'div',
      { class: 'map-axis' },
      h('span', {}, `blk.${layers[0].layer}`),
      h('span', {}, top > 0 ? `RMSE by layer, 0 to ${statistic(top)}` : 'RMSE by layer: 0 in every layer'),
      h('span', {}, `blk.${layers.at(-1).layer}`),
    ),
  );
}

/** Draws `doc` (`ggufscope diff --json`'s document) into `root`. */
function renderDocument(root, doc) {
  const { metadata: m, tensors: t } = doc;
  const names = h(
    'p',
    { class: 'compare-names' },
    h('span', {}, 'A: ', h('strong', { dataset: { field: 'compare-a' } }, doc.a)),
    h('span', {}, 'B: ', h('strong', { dataset: { field: 'compare-b' } }, doc.b)),
  );
  const verdict = doc.same
    ? h(
        'p',
        { class: 'compare-verdict same', dataset: { field: 'compare-same' } },
        `Identical headers: the same metadata and the same ${grouped(t.same)} tensor info${t.same === 1 ? '' : 's'}.`,
      )
    : h(
        'p',
        { class: 'compare-verdict', dataset: { field: 'compare-differences' } },
        `${grouped(doc.differences)} difference${doc.differences === 1 ? '' : 's'}.`,
      );
  replaceChildren(
    root,
    names,
    verdict,
    section('Summary', null, summaryTable(doc.summary)),
    section(
      'Metadata',
      `${grouped(m.added.length)} added, ${grouped(m.removed.length)} removed, ${grouped(m.changed.length)} changed`,
      [
        entryList('Added in B', 'added', m.added),
        entryList('Removed in B', 'removed', m.removed),
        changedKeys(m.changed),
      ],
    ),
    section(
      'Tensors',
      `${grouped(t.added.length)} added, ${grouped(t.removed.length)} removed, ${grouped(t.changed.length)} changed, ${grouped(t.same)} the same`,
      [
        tensorList('Added in B', 'added', t.added),
        tensorList('Removed in B', 'removed', t.removed),
        changedTensors(t.changed),
      ],
    ),
  );
}

function section(title, count, body) {
  return h(
    'section',
    { class: 'compare-section' },
    h('h3', {}, title, count && h('span', { class: 'count' }, count)),
    body,
  );
}

/**
 * Two fractional figures with as few decimals as tell them apart (two at least): equal ones as
 * `7.36`, and 4.5306 against 4.5310 as `4.5306` and `4.531`, never 17 digits of each.
 */
function fractions(a, b) {
  let digits = 2;
  while (digits < 17 && a !== b && decimal(a, digits) === decimal(b, digits)) digits++;
  return [decimal(a, digits), decimal(b, digits)];
}

/** A row's two figures: counts grouped, fractions by {@link fractions}, the rest as they are. */
function figures(a, b) {
  const one = (v) => (typeof v === 'bigint' || Number.isInteger(v) ? grouped(v) : orDash(v));
  if (typeof a === 'number' && typeof b === 'number' && !(Number.isInteger(a) && Number.isInteger(b)))
    return fractions(a, b);
  return [
    typeof a === 'number' && !Number.isInteger(a) ? decimal(a) : one(a),
    typeof b === 'number' && !Number.isInteger(b) ? decimal(b) : one(b),
  ];
}

/** The summary side by side; a row whose values differ carries `data-differs` and a "differs" badge. */
function summaryTable(rows) {
  const isFigure = (v) => typeof v === 'number' || typeof v === 'bigint';
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'data compare-summary', dataset: { field: 'compare-summary' } },
      h(
        'thead',
        {},
        h('tr', {}, h('th', { scope: 'col' }, 'Field'), h('th', { scope: 'col' }, 'A'), h('th', { scope: 'col' }, 'B')),
      ),
      h(
        'tbody',
        {},
        rows.map((r) =>
          h(
            'tr',
            { dataset: r.differs ? { field: r.field, differs: '' } : { field: r.field } },
            h(
              'th',
              { scope: 'row' },
              r.field.replaceAll('_', ' '),
              r.differs && h('span', { class: 'badge differs' }, 'differs'),
            ),
            figures(r.a, r.b).map((text, i) => h('td', { class: isFigure([r.a, r.b][i]) ? 'num' : null }, text)),
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
  return h(
    'div',
    { dataset: { field: `compare-metadata-${kind}` } },
    h('h4', {}, title),
    capped(h('ul', { class: 'compare-list' }), entries, (e) =>
      h(
        'li',
        { dataset: { key: e.key } },
        h('code', { class: 'compare-key' }, e.key),
        ' ',
        h('span', { class: 'muted' }, typeText(e)),
        ' ',
        h('span', { class: 'text' }, valueText(e)),
      ),
    ),
  );
}

function changedKeys(changed) {
  if (changed.length === 0) return null;
  return h(
    'div',
    { dataset: { field: 'compare-metadata-changed' } },
    h('h4', {}, 'Changed'),
    capped(h('ul', { class: 'compare-list' }), changed, changedKey),
  );
}

/** One changed key: its type, its array's lengths and first differing element, or its text as a line diff. */
function changedKey({ key, a, b, change }) {
  const item = h('li', { dataset: { key, kind: change.kind } }, h('code', { class: 'compare-key' }, key), ' ');
  if (change.kind === 'type') {
    item.append(
      h('span', {}, `type ${typeText(a)} → ${typeText(b)}: `),
      h('span', { class: 'text' }, `${valueText(a)} → ${valueText(b)}`),
    );
  } else if (change.kind === 'array') {
    const first = change.first;
    const at =
      first &&
      `; first at index ${grouped(first.index)}: ${first.a === null ? '(none)' : elementText(first.a, a.value.element_type)} → ${first.b === null ? '(none)' : elementText(first.b, b.value.element_type)}`;
    item.append(
      h(
        'span',
        { class: 'text' },
        `length ${grouped(change.len_a)} → ${grouped(change.len_b)}, ${grouped(change.differing)} differing element${change.differing === 1 ? '' : 's'}${at ?? ''}`,
      ),
    );
  } else if (change.kind === 'lines') {
    item.append(
      h(
        'span',
        {},
        `${grouped(change.removed)} line${change.removed === 1 ? '' : 's'} removed, ${grouped(change.added)} added`,
      ),
      lineDiff(change),
    );
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
    capped(h('div', { class: 'line-diff', dataset: { field: 'compare-lines' } }), lines, ({ op, text }) =>
      h('div', { class: `diff-${op}` }, text),
    ),
    change.cut &&
      h('p', { class: 'note' }, 'The texts are too long to compare line by line in full: the diff was cut.'),
  );
}

/** A tensor info as `TYPE [shape] size`. */
function tensorText(t) {
  return `${t.type} [${t.shape.map(grouped).join(' × ')}] ${bytes(t.n_bytes)}`;
}

function tensorList(title, kind, tensors) {
  if (tensors.length === 0) return null;
  return h(
    'div',
    { dataset: { field: `compare-tensors-${kind}` } },
    h('h4', {}, title),
    capped(h('ul', { class: 'compare-list' }), tensors, (t) =>
      h(
        'li',
        { dataset: { name: t.name } },
        h('code', { class: 'compare-key' }, t.name),
        ' ',
        h('span', { class: 'text' }, tensorText(t)),
      ),
    ),
  );
}

function changedTensors(changed) {
  if (changed.length === 0) return null;
  return h(
    'div',
    { dataset: { field: 'compare-tensors-changed' } },
    h('h4', {}, 'Changed'),
    capped(h('ul', { class: 'compare-list' }), changed, (c) =>
      h(
        'li',
        { dataset: { name: c.name } },
        h('code', { class: 'compare-key' }, c.name),
        ` ${c.what.join(', ')}: `,
        h('span', { class: 'text' }, `${tensorText(c.a)} → ${tensorText(c.b)}`),
      ),
    ),
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
