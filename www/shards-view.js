// The shards of a split model: each file read, with its figures; the shards that are missing, by
// name; and the files given that are not shards of this model. (The report's `split`.)

import { h, replaceChildren } from './dom.js';
import { bytes, grouped, orDash } from './format.js';

/** A number cell of column `label` (named beside it on phones), with the exact figure as its tooltip. */
function num(label, text, title = null) {
  return h('td', { class: 'num', title, dataset: { label } }, text);
}

/** A size cell: "480 B", and "480 bytes" on hover. */
function size(label, n) {
  return num(
    label,
    orDash(n, bytes),
    orDash(n, (b) => `${grouped(b)} bytes`),
  );
}

/** A file-name cell. */
function file(name) {
  return h(
    'td',
    { class: 'name wide' },
    name === null ? h('span', { class: 'muted' }, 'name unknown') : h('code', {}, name),
  );
}

function row(dataset, cells, kind, status) {
  return h('tr', { dataset }, cells, h('td', { class: `shard-status wide ${kind}` }, status));
}

/**
 * Fills `container` with the table of `split` (the report's `split`): the shards by number, read
 * or missing, then the files left out. Returns the panel's count text ("3 of 3").
 */
export function renderShards(container, split) {
  const of = (n) => num('Shard', `${n} of ${split.count}`);
  const read = split.shards.map((s) =>
    row(
      { shard: s.number, state: 'read' },
      [
        of(s.number),
        file(s.file),
        size('Size', s.file_size),
        num('Tensors', grouped(s.tensor_count)),
        num('Header', bytes(s.header_size), `${grouped(s.header_size)} bytes`),
        // Each shard's tensor data starts after its own header.
        num('Data at', grouped(s.data_offset)),
      ],
      'ok',
      s.number === 1 ? 'read (metadata from here)' : 'read',
    ),
  );
  const missing = split.missing.map((m) =>
    row(
      { shard: m.number, state: 'missing' },
      [of(m.number), file(m.file), num('Size', '—'), num('Tensors', '—'), num('Header', '—'), num('Data at', '—')],
      'missing',
      'missing: its tensors are not counted',
    ),
  );
  const leftOut = split.left_out.map((f) =>
    row(
      { state: 'left-out' },
      [
        num('Shard', '—'),
        file(f.file),
        size('Size', f.file_size),
        num('Tensors', '—'),
        num('Header', '—'),
        num('Data at', '—'),
      ],
      'left-out',
      'left out: not a shard of this model',
    ),
  );
  const shards = [...read, ...missing].sort((a, b) => Number(a.dataset.shard) - Number(b.dataset.shard));
  const heads = [
    ['Shard', 'num'],
    ['File'],
    ['Size', 'num'],
    ['Tensors', 'num'],
    ['Header', 'num'],
    ['Data at', 'num'],
    ['Status'],
  ].map(([label, cls]) => h('th', { class: cls }, label));
  replaceChildren(
    container,
    h('table', { class: 'data shards stacked' }, h('thead', {}, h('tr', {}, heads)), h('tbody', {}, shards, leftOut)),
    missing.length > 0 &&
      h(
        'p',
        { class: 'note' },
        "Figures are those of the shards read. Open every shard together (pick or drop them all at once), or open one shard's URL: its siblings are found beside it.",
      ),
  );
  return `${grouped(split.shards.length)} of ${grouped(split.count)}`;
}
