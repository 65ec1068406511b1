// A look at one tensor's values, dequantized in the worker from only that tensor's bytes: the
// first values, min / max / mean / standard deviation, a histogram, NaN and infinity counts, and
// a warning when every value is zero (a sparse file's unwritten hole, or a damaged download).

import { Cancelled } from './web/gguf-client.js';
import { h, replaceChildren, svg } from './dom.js';
import { bytes, counted, float32, grouped, hex, orDash, percent, statistic } from './format.js';

/** Bytes read at first: a larger tensor shows its first rows, with a button to decode them all. */
const FIRST_BYTES = 16 * 1024 * 1024;
const BINS = 64;
const FIRST_VALUES = 16;

/**
 * An element showing the values of `tensor` (one of the report's `tensors`, with its `index`),
 * which `peek(index, {rows, bins, first})` reads and measures and `stop()` stops
 * (GgufClient.tensorPeek and stopPeek).
 */
export function tensorPeekView(tensor, { peek, stop }) {
  const element = h('div', { class: 'peek', dataset: { tensor: tensor.name } });
  const rowLength = Number(tensor.shape[0] ?? 0);
  const totalRows = rowLength > 0 ? Number(tensor.n_elements ?? 0) / rowLength : 0;
  const rowBytes = totalRows > 0 ? Number(tensor.n_bytes ?? 0) / totalRows : 0;
  const fits = rowBytes * totalRows <= FIRST_BYTES;
  load(fits ? null : Math.max(1, Math.floor(FIRST_BYTES / rowBytes)));
  return element;

  async function load(rows) {
    const shown = [...element.childNodes]; // the figures of the first rows, while all are read
    const reading = rows === null ? tensor.n_bytes : rows * rowBytes;
    let stopped = false;
    const stopButton = h(
      'button',
      { type: 'button', class: 'button small', onclick: () => ((stopped = true), stop()) },
      'Stop',
    );
    element.dataset.state = 'loading';
    // A long read (Decode all of a large tensor) shows that it goes on, and for how long.
    const elapsed = h('span', { class: 'peek-elapsed', role: 'timer' });
    const started = performance.now();
    const timer = setInterval(
      () => (elapsed.textContent = ` ${Math.round((performance.now() - started) / 1000)} s `),
      1000,
    );
    replaceChildren(
      element,
      h(
        'p',
        { class: 'note' },
        `Reading ${orDash(reading, bytes)} of this tensor at offset ${orDash(tensor.absolute_offset, hex)}, and nothing else of the file… `,
        elapsed,
        stopButton,
      ),
      h('progress', { class: 'peek-progress', 'aria-label': `Reading ${tensor.name}` }),
    );
    try {
      const result = await peek(tensor.index, { rows, bins: BINS, first: FIRST_VALUES });
      replaceChildren(element, describe(result, rows === null ? null : () => load(null)));
      element.dataset.state = 'ready';
    } catch (e) {
      if (e instanceof Cancelled && stopped) {
        replaceChildren(
          element,
          shown.length
            ? shown
            : h(
                'p',
                { class: 'note' },
                'Stopped. ',
                h('button', { type: 'button', class: 'button small', onclick: () => load(rows) }, 'Read again'),
              ),
        );
        element.dataset.state = shown.length ? 'ready' : 'stopped';
      }
      if (e instanceof Cancelled) return; // or another tensor is peeked at instead
      replaceChildren(element, h('p', { class: 'error-text', dataset: { stat: 'error' } }, e.message ?? String(e)));
      element.dataset.state = 'error';
    } finally {
      clearInterval(timer);
    }
  }

  /** The figures; `loadAll` decodes the whole tensor when only its first rows were. */
  function describe({ prefix, stats, bytesRead, reads }, loadAll) {
    const s = stats;
    const partial = loadAll && prefix.rows < totalRows;
    return [
      h(
        'p',
        { class: 'note', dataset: { stat: 'bytes_read', value: bytesRead } },
        `${partial ? `The first ${counted(prefix.rows, 'row')} of ${grouped(totalRows)}` : prefix.rows === 1 ? 'The only row' : `All ${counted(prefix.rows, 'row')}`}: ${grouped(s.count)} values from ${bytes(prefix.length)} at offset ${hex(prefix.offset)} (${grouped(prefix.offset)}). `,
        `Read ${bytes(bytesRead)} in ${reads} read${reads === 1 ? '' : 's'}${bytesRead > prefix.length ? ' (the bytes twice: statistics, then histogram)' : ''}.`,
        partial && [
          ' ',
          h(
            'button',
            { type: 'button', class: 'button small', onclick: loadAll },
            `Decode all ${counted(totalRows, 'row')} (${bytes(tensor.n_bytes)})`,
          ),
        ],
      ),
      s.all_zero &&
        h(
          'p',
          { class: 'warning', role: 'status' },
          'Every value is zero: the unwritten hole of a sparse file, or a damaged download? A trained weight is never all zeros.',
        ),
      s.nan + s.pos_inf + s.neg_inf > 0 &&
        h(
          'p',
          { class: 'warning', role: 'status' },
          `${grouped(s.nan + s.pos_inf + s.neg_inf)} values are not finite: a model with NaN or infinite weights produces garbage.`,
        ),
      h(
        'dl',
        { class: 'stats' },
        figure('Min', 'min', s.min, float32),
        figure('Max', 'max', s.max, float32),
        figure('Mean', 'mean', s.mean, statistic),
        figure('Std dev', 'std_dev', s.std_dev, statistic),
        figure('Zeros', 'zeros', s.zeros, (n) => `${grouped(n)} (${percent(n, s.count)})`),
        figure('NaN', 'nan', s.nan, grouped),
        figure('+Inf', 'pos_inf', s.pos_inf, grouped),
        figure('−Inf', 'neg_inf', s.neg_inf, grouped),
      ),
      histogram(s.histogram),
      h(
        'p',
        { class: 'first-values' },
        h('span', { class: 'muted' }, `First ${s.first.length} values: `),
        h(
          'span',
          { class: 'values', dataset: { stat: 'first', value: s.first.join(',') } },
          s.first.map(float32).join(', '),
        ),
      ),
    ];
  }
}

/** One statistic; `data-stat` and `data-value` (the exact figure) are the tests' hooks, as for every figure of the peek. */
function figure(label, name, value, format) {
  const raw = value === null || value === undefined ? '' : String(value);
  return h(
    'div',
    { class: 'row' },
    h('dt', {}, label),
    h('dd', { class: 'num', dataset: { stat: name, value: raw } }, value === null ? '—' : format(value)),
  );
}

/** The histogram as bars; a log count scale shows the tails that a linear one flattens. */
function histogram({ min, max, counts }) {
  const peak = Math.max(1, ...counts);
  const width = 1000;
  const height = 120;
  const chart = svg('svg', {
    class: 'chart histogram',
    viewBox: `0 0 ${width} ${height}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': 'Histogram of the finite values',
  });
  const binWidth = width / counts.length;
  const step = (max - min) / counts.length;
  const bars = counts.map((c, i) =>
    svg(
      'rect',
      { class: 'bar-fill', x: i * binWidth + 0.5, width: Math.max(binWidth - 1, 0.5), dataset: { count: c } },
      svg('title', {}, `${statistic(min + i * step)} to ${statistic(min + (i + 1) * step)}: ${grouped(c)}`),
    ),
  );
  const zero =
    min < 0 && max > 0
      ? svg('line', {
          class: 'zero-line',
          x1: (-min / (max - min)) * width,
          x2: (-min / (max - min)) * width,
          y1: 0,
          y2: height,
        })
      : null;
  chart.append(...bars, ...(zero ? [zero] : []));
  const toggle = h('button', { type: 'button', class: 'button small', 'aria-pressed': 'false' }, 'Log scale');
  const scale = h('span', { class: 'muted' });
  function draw(log) {
    const y = (c) => (log ? Math.log10(1 + c) / Math.log10(1 + peak) : c / peak) * height;
    for (const bar of bars) {
      const barHeight = y(Number(bar.dataset.count));
      bar.setAttribute('y', height - barHeight);
      bar.setAttribute('height', barHeight);
    }
    toggle.setAttribute('aria-pressed', String(log));
    scale.textContent = `${counts.length} bins; bar heights: ${log ? 'log of the count' : 'count'} (tallest ${grouped(peak)})`;
  }
  toggle.addEventListener('click', () => draw(toggle.getAttribute('aria-pressed') !== 'true'));
  draw(false);
  return h(
    'figure',
    { class: 'histogram-figure' },
    chart,
    h('div', { class: 'axis' }, h('span', {}, float32(min)), h('span', {}, float32(max))),
    h('figcaption', { class: 'note' }, scale, zero && '; the dashed line is zero', ' ', toggle),
  );
}
