// Where the bytes are: the file drawn to scale (header, padding, each tensor, gaps, bytes missing
// from a cut-short file), bytes per layer (`blk.N`) by type, and bits per weight per tensor and
// per layer. SVG built element by element; every figure comes from the report: the regions that
// are not tensor data and the layers' sums from `report.layout` (the core's layout module, whose
// rules the validator's findings use too), the tensors' places and bits per weight from
// `report.tensors`. Nothing about the layout is worked out here. A figure with an element per
// tensor or layer is drawn up to MAX_DRAWN of them.

import { h, replaceChildren, shortened, svg } from './dom.js';
import { bytes, decimal, grouped, hex, orDash } from './format.js';
import { typeTones } from './type-mix-view.js';

/** Width of every chart's coordinate space; the charts stretch to the panel. */
const WIDTH = 1000;
/** Below this share of the file, the header and padding get a scale of their own. */
const BREAK_BELOW = 0.01;
/** Width given to the header's own scale, and to the break after it. */
const HEAD_WIDTH = 100;
const BREAK_WIDTH = 20;
/**
 * Most tensors, or layers, drawn one by one: real models have a few thousand tensors and a few
 * hundred layers, while a hostile header can claim millions, whose elements would hold the page
 * for many seconds.
 */
const MAX_DRAWN = 5000;

/** File maps drawn so far: each one's keyboard line gets an id of its own. */
let mapsDrawn = 0;

/** How each kind of region the report names is labelled. */
const REGION_LABELS = {
  header: 'Header',
  padding: 'Padding to the alignment',
  gap: 'Unused bytes between tensors',
  tail: 'Bytes after the last tensor',
  missing: 'Missing: the tensors go past the end of the file',
};

/**
 * Fills `container` with the maps of `report`. `onTensor(index)` is called when a tensor is
 * clicked, `onLayer(prefix)` when a layer is (with `"blk.N."`).
 */
export function renderMaps(container, report, { onTensor, onLayer }) {
  if (report.tensors.length === 0) {
    const header = Number(report.header_size);
    replaceChildren(
      container,
      h(
        'p',
        { class: 'note', dataset: { drawn: 'none' } },
        `This file has no tensors: its ${bytes(header)} (${grouped(header)} bytes) are all header, so there are no layers or weights to draw.`,
      ),
    );
    return;
  }
  const tensors = report.tensors
    .map((t, index) => ({ ...t, index }))
    .filter((t) => t.absolute_offset !== null && t.n_bytes !== null);
  const tones = typeTones(report.type_mix);
  // A split model is drawn file by file: each shard holds its own header and tensors.
  const files = report.layout.files.map((file) => {
    if (file.shard === null) return ['The file, to scale', file, tensors];
    const name = report.split?.shards.find((s) => s.number === file.shard)?.file;
    return [`Shard ${file.shard}, ${name}, to scale`, file, tensors.filter((t) => t.shard === file.shard)];
  });
  const drawn = tensors.length <= MAX_DRAWN;
  replaceChildren(
    container,
    drawn
      ? files.flatMap(([title, layout, inFile]) => [
          h('h3', {}, title),
          fileMap(layout, inFile, report.type_mix, tones, onTensor),
        ])
      : tooMany(tensors.length, 'tensors'),
    h('h3', {}, 'Bytes per layer'),
    layerChart(report.layout.layers, tensors, tones, onLayer),
    drawn && [h('h3', {}, 'Bits per weight, tensor by tensor'), bitsChart(tensors, tones, onTensor)],
  );
}

/** What is said instead of a figure of `count` elements, more than are drawn. */
function tooMany(count, what) {
  return h(
    'p',
    { class: 'note', dataset: { drawn: 'none' } },
    `${grouped(count)} ${what}: too many to draw one by one (at most ${grouped(MAX_DRAWN)} are).`,
  );
}

/** A tensor's title: name, type, size and where it is. */
function tensorTitle(t) {
  return `${shortened(t.name)} · ${t.type} · ${bytes(t.n_bytes)} at ${hex(t.absolute_offset)} (${grouped(t.absolute_offset)})`;
}

/**
 * A file as one bar, each region at its offset and size: `layout` is the report's layout of the
 * file (`file_size`, `header_size`, `data_offset`, `data_end` and the `regions` that are not
 * tensor data), and `tensors` are those in it. When the header and its padding are under 1% of
 * the file (10 KB of 40 GB), they get a scale of their own left of a break, both scales
 * labelled: at the file's scale they would be invisible.
 */
function fileMap(layout, tensors, typeMix, tones, onTensor) {
  const fileSize = Number(layout.file_size ?? 0);
  const dataOffset = Number(layout.data_offset);
  const headerSize = Number(layout.header_size);
  const named = layout.regions.map((r) => ({
    kind: r.kind,
    start: Number(r.start),
    end: Number(r.end),
    label: REGION_LABELS[r.kind] ?? r.kind,
  }));
  const regions = [
    ...named.filter((r) => r.kind !== 'missing'),
    ...tensors.map((t) => ({
      kind: 'tensor',
      start: Number(t.absolute_offset),
      end: Number(t.absolute_offset) + Number(t.n_bytes),
      tensor: t,
    })),
  ];
  const missing = named.find((r) => r.kind === 'missing') ?? null;
  const cut = missing && Math.min(fileSize, missing.start);
  const gaps = named.filter((r) => r.kind === 'gap').reduce((sum, r) => sum + r.end - r.start, 0);
  const extent = Math.max(fileSize, Number(layout.data_end), missing?.end ?? 0, 1);

  const broken = dataOffset > 0 && dataOffset / extent < BREAK_BELOW;
  const dataStart = broken ? HEAD_WIDTH + BREAK_WIDTH : 0;
  const x = (offset) =>
    broken && offset <= dataOffset
      ? (offset / dataOffset) * HEAD_WIDTH
      : dataStart + ((offset - (broken ? dataOffset : 0)) / (extent - (broken ? dataOffset : 0))) * (WIDTH - dataStart);

  const rect = (region) => {
    const title = region.tensor
      ? tensorTitle(region.tensor)
      : `${region.label}: ${bytes(region.end - region.start)} at ${hex(region.start)} (${grouped(region.start)})`;
    const cls = region.tensor ? `${tones.get(region.tensor.type)} clickable` : `map-${region.kind}`;
    return svg(
      'rect',
      {
        class: cls,
        x: x(region.start),
        y: 0,
        width: Math.max(x(region.end) - x(region.start), 0),
        height: 10,
        dataset: region.tensor
          ? { index: region.tensor.index, type: region.tensor.type }
          : { region: region.kind, start: region.start, end: region.end },
        onclick: region.tensor ? () => onTensor(region.tensor.index) : null,
      },
      svg('title', {}, title),
    );
  };
  const map = svg(
    'svg',
    {
      class: 'chart file-map',
      viewBox: `0 0 ${WIDTH} 10`,
      preserveAspectRatio: 'none',
      role: 'img',
      'aria-label': 'The file drawn to scale',
    },
    regions.map(rect),
    missing && rect(missing),
  );
  if (broken) {
    const slash = (dx) =>
      svg('line', { class: 'break-line', x1: HEAD_WIDTH + dx, y1: 10, x2: HEAD_WIDTH + dx + 4, y2: 0 });
    map.append(
      svg('rect', { class: 'map-break', x: HEAD_WIDTH, y: 0, width: BREAK_WIDTH, height: 10 }),
      slash(4),
      slash(12),
    );
  }

  const share = (n) => `${decimal((100 * n) / extent, n / extent < 0.001 ? 6 : 2)}%`;
  const axis = broken
    ? h(
        'div',
        { class: 'map-axis broken' },
        h('span', {}, `0 – ${bytes(dataOffset)}`),
        h('span', {}),
        h('span', { class: 'data-scale' }, h('span', {}, bytes(dataOffset)), h('span', {}, bytes(extent))),
      )
    : h('div', { class: 'map-axis' }, h('span', {}, '0'), h('span', {}, bytes(extent)));
  const kinds = new Set(named.map((r) => r.kind));
  const legend = h(
    'div',
    { class: 'legend' },
    [
      ['header', 'Header'],
      ['padding', 'Padding'],
      ['gap', 'Unused gap'],
      ['tail', 'After the last tensor'],
      ['missing', 'Missing'],
    ]
      .filter(([kind]) => kinds.has(kind))
      .map(([kind, label]) => h('span', {}, h('span', { class: `swatch map-${kind}` }), label)),
    typeMix
      .filter((t) => tensors.some((x) => x.type === t.type))
      .map((t) => h('span', {}, h('span', { class: `swatch ${tones.get(t.type)}` }), t.type)),
    broken && h('span', {}, '// where the scale changes'),
  );
  const notes = [
    `Header ${bytes(headerSize)} (${share(headerSize)} of the file), tensor data from offset ${grouped(dataOffset)}; ${grouped(tensors.length)} tensors, each drawn at its offset with its size.`,
    broken &&
      `The header and its padding (${bytes(dataOffset)}) are drawn on a scale of their own, left of the break: at the file's scale they would be ${share(dataOffset)} of the width. Right of the break, the tensor data is to scale.`,
    gaps > 0 && `${bytes(gaps)} between tensors are unused (beyond the padding to the alignment).`,
    missing &&
      `The file was cut short: it ends at ${grouped(fileSize)} bytes, and its tensors need ${grouped(missing.end - missing.start)} bytes more, to ${grouped(missing.end)} (hatched, after the end of the file).`,
  ];
  const said = keyboardTensors(map, tensors, onTensor);
  return h(
    'figure',
    { class: 'map-figure', dataset: { scale: broken ? 'broken' : 'linear' } },
    h(
      'div',
      { class: 'map-wrap' },
      map,
      missing && missingMark(x(cut) / WIDTH, x(missing.end) / WIDTH, missing.end - missing.start),
    ),
    axis,
    legend,
    said,
    notes.filter(Boolean).map((n) => h('p', { class: 'note' }, n)),
  );
}

/**
 * Over the map, where a cut-short file ends and what is missing after it: a line at the end of
 * the file and a hatched, labelled block to the end of the tensor data (`from` and `to` are
 * shares of the map's width).
 */
function missingMark(from, to, missing) {
  const mark = h(
    'div',
    { class: 'map-missing-mark', 'aria-hidden': 'true' },
    h('span', { class: 'map-end-label' }, 'end of file'),
    h('span', { class: 'map-missing-label' }, `missing: ${bytes(missing)}`),
  );
  mark.style.left = `${from * 100}%`;
  mark.style.width = `${Math.max(to - from, 0.002) * 100}%`;
  return mark;
}

/**
 * One bar per layer, stacked by type, its length the layer's bytes: `layers` is the report's
 * `layout.layers` (the tensors outside any layer, `layer` null, in a note naming a few of them).
 */
function layerChart(layers, tensors, tones, onLayer) {
  const outside = layers.find((l) => l.layer === null);
  const rows = layers.filter((l) => l.layer !== null);
  const names = outside
    ? tensors
        .filter((t) => t.layer === null)
        .slice(0, 6)
        .map((t) => shortened(t.name))
    : [];
  const count = Number(outside?.tensors ?? 0);
  const outsideNote =
    outside &&
    h(
      'p',
      { class: 'note' },
      `Not in a layer: ${bytes(outside.bytes)} in ${grouped(count)} tensor${count === 1 ? '' : 's'} (${names.join(', ')}${count > names.length ? ', …' : ''}), ${orDash(outside.bits_per_weight, decimal)} bits/weight.`,
    );
  if (rows.length === 0)
    return [h('p', { class: 'note' }, 'No tensor belongs to a layer (none is named blk.N.…).'), outsideNote];
  if (rows.length > MAX_DRAWN) return [tooMany(rows.length, 'layers'), outsideNote];
  const widest = Math.max(...rows.map((l) => Number(l.bytes)), 1);
  const chart = h(
    'div',
    { class: 'layers' },
    rows.map((l) => {
      let x = 0;
      const bar = svg(
        'svg',
        { class: 'chart layer-bar', viewBox: `0 0 ${WIDTH} 1`, preserveAspectRatio: 'none' },
        l.types.map(({ type, bytes: n }) => {
          const width = (Number(n) / widest) * WIDTH;
          const r = svg(
            'rect',
            { class: tones.get(type), x, y: 0, width, height: 1 },
            svg('title', {}, `${type}: ${bytes(n)}`),
          );
          x += width;
          return r;
        }),
      );
      return h(
        'div',
        { class: 'layer-row', dataset: { layer: l.layer, bytes: l.bytes } },
        h(
          'button',
          {
            type: 'button',
            class: 'link layer-name',
            title: `Show the tensors of blk.${l.layer}`,
            onclick: () => onLayer(`blk.${l.layer}.`),
          },
          `blk.${l.layer}`,
        ),
        bar,
        h('span', { class: 'num' }, bytes(l.bytes)),
        h('span', { class: 'num muted' }, `${orDash(l.bits_per_weight, decimal)} bits/weight`),
      );
    }),
  );
  return [
    chart,
    h(
      'p',
      { class: 'note' },
      `Bar lengths: bytes, to one scale for all ${grouped(rows.length)} layers (the largest is ${bytes(widest)}).`,
    ),
    outsideNote,
  ];
}

/**
 * A bar per tensor in file order, its height the tensor's bits per weight on a log2 scale (so
 * that 4.5 and 6.6 bits differ as visibly as 16 and 32), coloured by type, with labelled lines.
 */
function bitsChart(tensors, tones, onTensor) {
  const bits = tensors.map((t) => t.bits_per_weight);
  if (bits.every((b) => b === null))
    return h(
      'p',
      { class: 'note', dataset: { drawn: 'none' } },
      'No tensor has a known bits per weight (their types are unknown): nothing to draw.',
    );
  const top = 2 ** Math.max(1, Math.ceil(Math.log2(Math.max(...bits.filter((b) => b !== null), 2))));
  const height = 100;
  const y = (b) => height - (Math.log2(Math.max(b, 1)) / Math.log2(top)) * height;
  const step = WIDTH / Math.max(tensors.length, 1);
  const lines = [];
  for (let b = 1; b <= top; b *= 2) lines.push(b);
  const chart = svg(
    'svg',
    {
      class: 'chart bits',
      viewBox: `0 0 ${WIDTH} ${height}`,
      preserveAspectRatio: 'none',
      role: 'img',
      'aria-label': 'Bits per weight of each tensor, in file order',
    },
    lines.map((b) => svg('line', { class: 'grid-line', x1: 0, x2: WIDTH, y1: y(b), y2: y(b) })),
    tensors.map((t, i) =>
      svg(
        'rect',
        {
          class: `${tones.get(t.type)} clickable`,
          x: i * step,
          y: y(bits[i] ?? 1),
          width: Math.max(step * 0.8, 0.2),
          height: height - y(bits[i] ?? 1),
          dataset: { index: t.index, type: t.type },
          onclick: () => onTensor(t.index),
        },
        svg('title', {}, `${shortened(t.name)}: ${orDash(bits[i], decimal)} bits/weight (${t.type})`),
      ),
    ),
  );
  const labels = h(
    'div',
    { class: 'bits-labels' },
    lines.map((b) => {
      const label = h('span', {}, String(b));
      label.style.top = `${(y(b) / height) * 100}%`;
      return label;
    }),
  );
  return h(
    'figure',
    { class: 'bits-figure' },
    h('div', { class: 'bits-plot' }, labels, chart),
    h(
      'div',
      { class: 'map-axis' },
      h('span', {}, 'first tensor'),
      h('span', {}, 'bits per weight, log scale'),
      h('span', {}, 'last tensor'),
    ),
  );
}

/**
 * Makes the file map operable by keyboard: it is one Tab stop; the arrow keys (Home, End) move
 * through its tensors in file order, each named in a line under the map, and Enter shows the one
 * named in the tensor table, as a click does.
 */
function keyboardTensors(map, tensors, onTensor) {
  const order = [...tensors].sort((a, b) => Number(a.absolute_offset) - Number(b.absolute_offset) || a.index - b.index);
  const said = h(
    'p',
    { class: 'note map-focus', 'aria-live': 'polite' },
    order.length ? 'Use the arrow keys to go through the tensors, Enter to show one in the table.' : '',
  );
  let at = -1;
  map.setAttribute('tabindex', '0');
  map.setAttribute('aria-describedby', (said.id = `map-focus-${++mapsDrawn}`));
  map.addEventListener('keydown', (e) => {
    if (order.length === 0) return;
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
    if (e.key === 'Enter' && at >= 0) onTensor(order[at].index);
    else if (step || e.key === 'Home' || e.key === 'End') {
      at =
        e.key === 'Home' ? 0 : e.key === 'End' ? order.length - 1 : Math.min(Math.max(at + step, 0), order.length - 1);
      map.querySelector('.focused')?.classList.remove('focused');
      map.querySelector(`rect[data-index="${order[at].index}"]`)?.classList.add('focused');
      said.textContent = `${at + 1} of ${order.length}: ${tensorTitle(order[at])}`;
    } else return;
    e.preventDefault();
  });
  return said;
}
