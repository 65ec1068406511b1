// The validator's findings: what in the header looks wrong or risky, with where it is.

import { h, replaceChildren } from './dom.js';
import { grouped, hex } from './format.js';

/** Fills `container` with the report's `findings`, or says that there are none. */
export function renderFindings(container, findings) {
  if (findings.length === 0) {
    replaceChildren(container, h('p', { class: 'note ok' }, 'No problems found in the header.'));
    return;
  }
  const rows = findings.map((f) =>
    h(
      'tr',
      { dataset: { code: f.code } },
      h('td', {}, h('span', { class: `badge severity-${f.severity}` }, f.severity)),
      h('td', {}, h('code', {}, f.code)),
      h('td', { class: 'message' }, f.message),
      h('td', { class: 'num offset', title: grouped(f.offset) }, hex(f.offset)),
    ),
  );
  replaceChildren(
    container,
    h('table', { class: 'data findings' }, h('thead', {}, h('tr', {}, h('th', {}, 'Severity'), h('th', {}, 'Check'), h('th', {}, 'Finding'), h('th', { class: 'num' }, 'Offset'))), h('tbody', {}, rows)),
  );
}
