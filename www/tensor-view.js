// The tensor table: name, type, shape, size, bits per weight (the report's) and absolute offset of
// every tensor, filtered by a search box and sorted by any column. Rows are built for at most
// SHOWN tensors at a time so that a file with tens of thousands of tensors keeps the page
// responsive. A tensor's "Peek" button opens a look at its values under its row. A split model's
// tensors show their shard.

import { h, nameCode, replaceChildren } from './dom.js';
import { bytes, decimal, grouped, hex, orDash } from './format.js';

const SHOWN = 1000;

const COLUMNS = [
  { key: 'index', label: '#', num: true, value: (t) => t.index },
  { key: 'name', label: 'Name', value: (t) => t.name },
  { key: 'type', label: 'Type', value: (t) => t.type },
  { key: 'shape', label: 'Shape', num: true, value: (t) => t.n_elements },
  { key: 'n_bytes', label: 'Size', num: true, value: (t) => t.n_bytes },
  { key: 'bpw', label: 'Bits/weight', num: true, value: (t) => t.bits_per_weight },
  { key: 'absolute_offset', label: 'Offset', num: true, value: (t) => t.absolute_offset },
];

/** For a split model, after the name: the shard holding the tensor (offsets are in that file). */
const SHARD = { key: 'shard', label: 'Shard', num: true, value: (t) => t.shard };

/** Ascending order for numbers, BigInts and strings alike; absent values last. */
function compare(a, b) {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'string') return a.localeCompare(b, undefined, { numeric: true });
  return a < b ? -1 : 1;
}

function rowOf(t, onPeek) {
  return h(
    'tr',
    { dataset: { index: t.index } },
    h('td', { class: 'num muted index' }, String(t.index)),
    h('td', { class: 'name' }, nameCode(t.name)),
    t.shard !== undefined && h('td', { class: 'num shard' }, String(t.shard)),
    h('td', { class: 'type' }, h('span', { class: 'type-chip' }, t.type)),
    h(
      'td',
      { class: 'num shape', title: `${grouped(t.n_elements ?? 0)} elements` },
      `[${t.shape.map(grouped).join(', ')}]`,
    ),
    h('td', { class: 'num size', title: orDash(t.n_bytes, (n) => `${grouped(n)} bytes`) }, orDash(t.n_bytes, bytes)),
    h('td', { class: 'num bits' }, orDash(t.bits_per_weight, decimal)),
    h('td', { class: 'num offset', title: orDash(t.absolute_offset, grouped) }, orDash(t.absolute_offset, hex)),
    onPeek &&
      h(
        'td',
        { class: 'peek-cell' },
        h(
          'button',
          { type: 'button', class: 'button small peek-button', 'aria-expanded': 'false', onclick: () => onPeek(t) },
          'Peek',
        ),
      ),
  );
}

/**
 * Fills `container` with the tensor table for `tensors` (the report's `tensors`), driven by the
 * `filter` search box; `countLabel` shows how many match. With `peekView(tensor)`, each row has a
 * button that shows the element it returns under the row. Returns `reveal(index)`, which brings a
 * tensor's row into view (filtering to it if needed) and highlights it, and `filterTo(text)`.
 */
export function renderTensors(container, filter, countLabel, tensors, { peekView = null } = {}) {
  const all = tensors.map((t, index) => ({ ...t, index }));
  const columns = tensors.some((t) => t.shard !== undefined)
    ? [...COLUMNS.slice(0, 2), SHARD, ...COLUMNS.slice(2)]
    : COLUMNS;
  let sort = { key: 'index', dir: 1 };
  let limit = SHOWN;
  let peeked = null; // {index, row}: the tensor whose values are shown, and the row showing them
  const body = h('tbody');
  const more = h('p', { class: 'note' });
  const headers = columns.map((c) => {
    const button = h('button', { type: 'button', class: 'sort', onclick: () => sortBy(c.key) }, c.label);
    return h('th', { class: c.num ? 'num' : null, dataset: { column: c.key } }, button);
  });

  function sortBy(key) {
    sort = { key, dir: sort.key === key ? -sort.dir : 1 };
    update();
  }

  function update() {
    const needle = filter.value.trim().toLowerCase();
    const column = columns.find((c) => c.key === sort.key);
    const rows = all
      .filter((t) => !needle || t.name.toLowerCase().includes(needle) || t.type.toLowerCase().includes(needle))
      .sort((a, b) => sort.dir * compare(column.value(a), column.value(b)) || a.index - b.index);
    for (const th of headers) {
      th.setAttribute(
        'aria-sort',
        th.dataset.column === sort.key ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none',
      );
    }
    replaceChildren(
      body,
      rows.slice(0, limit).map((t) => rowOf(t, peekView && togglePeek)),
    );
    if (peeked) rowElement(peeked.index)?.after(peeked.row);
    markPeeked();
    countLabel.textContent = needle ? `${grouped(rows.length)} of ${grouped(all.length)}` : grouped(all.length);
    replaceChildren(
      more,
      rows.length > limit && [
        `Showing the first ${grouped(limit)} of ${grouped(rows.length)}. `,
        h(
          'button',
          { type: 'button', class: 'button small', onclick: () => ((limit = Infinity), update()) },
          'Show all',
        ),
      ],
    );
  }

  function rowElement(index) {
    return body.querySelector(`tr[data-index="${index}"]`);
  }

  /** Shows the values of tensor `t` under its row, or hides them when they are shown. */
  function togglePeek(t) {
    const same = peeked?.index === t.index;
    peeked?.row.remove();
    peeked = same
      ? null
      : { index: t.index, row: h('tr', { class: 'peek-row' }, h('td', { colspan: columns.length + 1 }, peekView(t))) };
    if (peeked) rowElement(t.index)?.after(peeked.row);
    markPeeked();
  }

  function markPeeked() {
    for (const button of body.querySelectorAll('.peek-button')) {
      button.setAttribute('aria-expanded', String(button.closest('tr').dataset.index === String(peeked?.index)));
    }
  }

  function filterTo(text) {
    filter.value = text;
    limit = SHOWN;
    update();
  }

  function reveal(index) {
    if (!rowElement(index)) filterTo(all[index].name);
    if (!rowElement(index)) {
      limit = Infinity; // more than SHOWN names contain this one
      update();
    }
    const row = rowElement(index);
    for (const old of body.querySelectorAll('tr.target')) old.classList.remove('target');
    row.classList.add('target');
    row.scrollIntoView({ block: 'center' });
    return row;
  }

  filter.value = '';
  filter.oninput = () => {
    limit = SHOWN;
    update();
  };
  replaceChildren(
    container,
    all.length === 0
      ? h('p', { class: 'note' }, 'No tensors.')
      : [
          h(
            'div',
            { class: 'table-wrap tensors-wrap' },
            h(
              'table',
              { class: 'data tensors' },
              h('thead', {}, h('tr', {}, headers, peekView && h('th', {}, 'Values'))),
              body,
            ),
          ),
          more,
        ],
  );
  update();
  return { reveal, filterTo };
}
