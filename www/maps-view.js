// Where the bytes are: the file drawn to scale (header, padding, each tensor, gaps, bytes missing
// from a cut-short file), bytes per layer (`blk.N`) by type, and bits per weight per tensor and
// per layer. SVG built element by element; every figure comes from the report. A figure with an
// element per tensor or layer is drawn up to MAX_DRAWN of them.

import { h, replaceChildren, svg } from './dom.js';
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

/**
 * Fills `container` with the maps of `report`. `onTensor(index)` is called when a tensor is
 * clicked, `onLayer(prefix)` when a layer is (with `"blk.N."`).
 */
export function renderMaps(container, report, { onTensor, onLayer }) {
  const tensors = report.tensors.map((t, index) => ({ ...t, index })).filter((t) => t.absolute_offset !== null && t.n_bytes !== null);
  const tones = typeTones(report.type_mix);
  // A split model is drawn file by file: each shard holds its own header and tensors.
  const files = report.split
    ? report.split.shards.map((shard) => [`Shard ${shard.number}, ${shard.file}, to scale`, shard, tensors.filter((t) => t.shard === shard.number)])
    : [['The file, to scale', report, tensors]];
  const drawn = tensors.length <= MAX_DRAWN;
  replaceChildren(
    container,
    drawn
      ? files.flatMap(([title, layout, inFile]) => [h('h3', {}, title), fileMap(layout, report.alignment, inFile, report.type_mix, tones, onTensor)])
      : tooMany(tensors.length, 'tensors'),
    h('h3', {}, 'Bytes per layer'),
    layerChart(tensors, tones, onLayer),
    drawn && [h('h3', {}, 'Bits per weight, tensor by tensor'), bitsChart(tensors, tones, onTensor)],
  );
}

/** What is said instead of a figure of `count` elements, more than are drawn. */
function tooMany(count, what) {
  return h('p', { class: 'note', dataset: { drawn: 'none' } }, `${grouped(count)} ${what}: too many to draw one by one (at most ${grouped(MAX_DRAWN)} are).`);
}

/** A tensor's title: name, type, size and where it is. */
function tensorTitle(t) {
  return `${t.name} · ${t.type} · ${bytes(t.n_bytes)} at ${hex(t.absolute_offset)} (${grouped(t.absolute_offset)})`;
}

/** Bits per weight of `byteCount` bytes holding `elements` values. */
function bitsPerWeight(byteCount, elements) {
  return elements > 0 ? (8 * byteCount) / elements : null;
}

/**
 * A file as one bar, each region at its offset and size: `layout` has the file's `file_size`,
 * `header_size` and `data_offset`, and `tensors` are those in it. When the header and its
 * padding are under 1% of the file (10 KB of 40 GB), they get a scale of their own left of a
 * break, both scales labelled: at the file's scale they would be invisible.
 */
function fileMap(layout, alignment, tensors, typeMix, tones, onTensor) {
  const fileSize = Number(layout.file_size ?? 0);
  const dataOffset = Number(layout.data_offset);
  const headerSize = Number(layout.header_size);
  const regions = [{ kind: 'header', start: 0, end: headerSize, label: 'Header' }];
  if (dataOffset > headerSize) regions.push({ kind: 'padding', start: headerSize, end: dataOffset, label: 'Padding to the alignment' });
  let at = dataOffset;
  let gaps = 0;
  for (const t of [...tensors].sort((a, b) => Number(a.absolute_offset) - Number(b.absolute_offset))) {
    const start = Number(t.absolute_offset);
    const end = start + Number(t.n_bytes);
    if (start > at) {
      const aligning = start - at < Number(alignment);
      if (!aligning) gaps += start - at;
      regions.push({ kind: aligning ? 'padding' : 'gap', start: at, end: start, label: aligning ? 'Padding to the alignment' : 'Unused bytes between tensors' });
    }
    regions.push({ kind: 'tensor', start, end, tensor: t });
    at = Math.max(at, end);
  }
  if (fileSize > at) regions.push({ kind: 'tail', start: at, end: fileSize, label: 'Bytes after the last tensor' });
  const missing = at > fileSize ? { kind: 'missing', start: fileSize, end: at, label: 'Missing: the tensors go past the end of the file' } : null;
  const extent = Math.max(fileSize, at, 1);

  const broken = dataOffset > 0 && dataOffset / extent < BREAK_BELOW;
  const dataStart = broken ? HEAD_WIDTH + BREAK_WIDTH : 0;
  const x = (offset) =>
    broken && offset <= dataOffset ? (offset / dataOffset) * HEAD_WIDTH : dataStart + ((offset - (broken ? dataOffset : 0)) / (extent - (broken ? dataOffset : 0))) * (WIDTH - dataStart);

  const rect = (region) => {
    const title = region.tensor ? tensorTitle(region.tensor) : `${region.label}: ${bytes(region.end - region.start)} at ${hex(region.start)} (${grouped(region.start)})`;
    const cls = region.tensor ? `${tones.get(region.tensor.type)} clickable` : `map-${region.kind}`;
    return svg(
      'rect',
      {
        class: cls,
        x: x(region.start),
        y: 0,
        width: Math.max(x(region.end) - x(region.start), 0),
        height: 10,
        dataset: region.tensor ? { index: region.tensor.index } : { region: region.kind },
        onclick: region.tensor ? () => onTensor(region.tensor.index) : null,
      },
      svg('title', {}, title),
    );
  };
  const map = svg('svg', { class: 'chart file-map', viewBox: `0 0 ${WIDTH} 10`, preserveAspectRatio: 'none', role: 'img', 'aria-label': 'The file drawn to scale' }, regions.map(rect), missing && rect(missing));
  if (broken) {
    const slash = (dx) => svg('line', { class: 'break-line', x1: HEAD_WIDTH + dx, y1: 10, x2: HEAD_WIDTH + dx + 4, y2: 0 });
    map.append(svg('rect', { class: 'map-break', x: HEAD_WIDTH, y: 0, width: BREAK_WIDTH, height: 10 }), slash(4), slash(12));
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
  const kinds = new Set(regions.map((r) => r.kind));
  const legend = h(
    'div',
    { class: 'legend' },
    [['header', 'Header'], ['padding', 'Padding'], ['gap', 'Unused gap'], ['tail', 'After the last tensor'], ['missing', 'Missing']]
      .filter(([kind]) => kinds.has(kind) || (kind === 'missing' && missing))
      .map(([kind, label]) => h('span', {}, h('span', { class: `swatch map-${kind}` }), label)),
    typeMix.filter((t) => tensors.some((x) => x.type === t.type)).map((t) => h('span', {}, h('span', { class: `swatch ${tones.get(t.type)}` }), t.type)),
    broken && h('span', {}, '// where the scale changes'),
  );
  const notes = [
    `Header ${bytes(headerSize)} (${share(headerSize)} of the file), tensor data from offset ${grouped(dataOffset)}; ${grouped(tensors.length)} tensors, each drawn at its offset with its size.`,
    broken &&
      `The header and its padding (${bytes(dataOffset)}) are drawn on a scale of their own, left of the break: at the file's scale they would be ${share(dataOffset)} of the width. Right of the break, the tensor data is to scale.`,
    gaps > 0 && `${bytes(gaps)} between tensors are unused (more than the alignment).`,
    missing && `The tensors end at ${grouped(at)}, ${grouped(at - fileSize)} bytes past the end of the file (${grouped(fileSize)} bytes): it was cut short.`,
  ];
  return h('figure', { class: 'map-figure', dataset: { scale: broken ? 'broken' : 'linear' } }, map, axis, legend, notes.filter(Boolean).map((n) => h('p', { class: 'note' }, n)));
}

/** One bar per layer, stacked by type, its length the layer's bytes; tensors outside layers in a note. */
function layerChart(tensors, tones, onLayer) {
  const groups = new Map();
  for (const t of tensors) {
    const layer = /^blk\.(\d+)\./.exec(t.name)?.[1];
    const key = layer === undefined ? null : Number(layer);
    if (!groups.has(key)) groups.set(key, { layer: key, bytes: 0, elements: 0, byType: new Map(), names: [] });
    const g = groups.get(key);
    g.bytes += Number(t.n_bytes);
    g.elements += Number(t.n_elements ?? 0);
    g.byType.set(t.type, (g.byType.get(t.type) ?? 0) + Number(t.n_bytes));
    g.names.push(t.name);
  }
  const outside = groups.get(null);
  groups.delete(null);
  const outsideNote =
    outside && h('p', { class: 'note' }, `Not in a layer: ${bytes(outside.bytes)} in ${grouped(outside.names.length)} tensor${outside.names.length === 1 ? '' : 's'} (${outside.names.slice(0, 6).join(', ')}${outside.names.length > 6 ? ', …' : ''}), ${orDash(bitsPerWeight(outside.bytes, outside.elements), decimal)} bits/weight.`);
  if (groups.size === 0) return [h('p', { class: 'note' }, 'No tensor belongs to a layer (none is named blk.N.…).'), outsideNote];
  if (groups.size > MAX_DRAWN) return [tooMany(groups.size, 'layers'), outsideNote];
  const rows = [...groups.values()].sort((a, b) => a.layer - b.layer);
  const widest = Math.max(...rows.map((g) => g.bytes), 1);
  const order = [...tones.keys()];
  const chart = h(
    'div',
    { class: 'layers' },
    rows.map((g) => {
      let x = 0;
      const bar = svg(
        'svg',
        { class: 'chart layer-bar', viewBox: `0 0 ${WIDTH} 1`, preserveAspectRatio: 'none' },
        order
          .filter((type) => g.byType.has(type))
          .map((type) => {
            const width = (g.byType.get(type) / widest) * WIDTH;
            const r = svg('rect', { class: tones.get(type), x, y: 0, width, height: 1 }, svg('title', {}, `${type}: ${bytes(g.byType.get(type))}`));
            x += width;
            return r;
          }),
      );
      return h(
        'div',
        { class: 'layer-row', dataset: { layer: g.layer, bytes: g.bytes } },
        h('button', { type: 'button', class: 'link layer-name', title: `Show the tensors of blk.${g.layer}`, onclick: () => onLayer(`blk.${g.layer}.`) }, `blk.${g.layer}`),
        bar,
        h('span', { class: 'num' }, bytes(g.bytes)),
        h('span', { class: 'num muted' }, `${orDash(bitsPerWeight(g.bytes, g.elements), decimal)} bits/weight`),
      );
    }),
  );
  return [chart, h('p', { class: 'note' }, `Bar lengths: bytes, to one scale for all ${grouped(rows.length)} layers (the largest is ${bytes(widest)}).`), outsideNote];
}

/**
 * A bar per tensor in file order, its height the tensor's bits per weight on a log2 scale (so
 * that 4.5 and 6.6 bits differ as visibly as 16 and 32), coloured by type, with labelled lines.
 */
function bitsChart(tensors, tones, onTensor) {
  const bits = tensors.map((t) => bitsPerWeight(Number(t.n_bytes), Number(t.n_elements ?? 0)));
  const top = 2 ** Math.max(1, Math.ceil(Math.log2(Math.max(...bits.filter((b) => b !== null), 2))));
  const height = 100;
  const y = (b) => height - (Math.log2(Math.max(b, 1)) / Math.log2(top)) * height;
  const step = WIDTH / Math.max(tensors.length, 1);
  const lines = [];
  for (let b = 1; b <= top; b *= 2) lines.push(b);
  const chart = svg(
    'svg',
    { class: 'chart bits', viewBox: `0 0 ${WIDTH} ${height}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': 'Bits per weight of each tensor, in file order' },
    lines.map((b) => svg('line', { class: 'grid-line', x1: 0, x2: WIDTH, y1: y(b), y2: y(b) })),
    tensors.map((t, i) =>
      svg(
        'rect',
        { class: `${tones.get(t.type)} clickable`, x: i * step, y: y(bits[i] ?? 1), width: Math.max(step * 0.8, 0.2), height: height - y(bits[i] ?? 1), dataset: { index: t.index }, onclick: () => onTensor(t.index) },
        svg('title', {}, `${t.name}: ${orDash(bits[i], decimal)} bits/weight (${t.type})`),
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
    h('div', { class: 'map-axis' }, h('span', {}, 'first tensor'), h('span', {}, 'bits per weight, log scale'), h('span', {}, 'last tensor')),
  );
}
