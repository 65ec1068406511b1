// The validator's findings: what in the header looks wrong or risky, with where it is. A finding
// about a key or a tensor names it, and clicking the name shows that row of its table. In a split
// model, each finding also names its file (a shard, a missing shard, a file left out).

import { h, replaceChildren } from './dom.js';
import { grouped, hex } from './format.js';

/**
 * Fills `container` with the report's `findings`, or says that there are none, then one row per
 * entry of `omitted` (the report's `findings_omitted`: per code past the validator's cap, how many
 * more there are). `onSubject` is called with a finding's `subject` (`{kind: 'kv' | 'tensor',
 * index, name}`) when it is clicked.
 */
export function renderFindings(container, findings, omitted, onSubject) {
  if (findings.length === 0) {
    replaceChildren(container, h('p', { class: 'note ok' }, 'No problems found in the header.'));
    return;
  }
  const subject = (s) =>
    s.kind === 'file'
      ? h('span', { class: 'muted' }, 'the file')
      : s.index === null // a key of a shard other than the first: not in the metadata table
        ? h('code', {}, s.name)
        : h('button', { type: 'button', class: 'link subject', title: `Show this ${s.kind === 'kv' ? 'key' : 'tensor'}`, onclick: () => onSubject(s) }, h('code', {}, s.name ?? `#${s.index}`));
  const rows = findings.map((f) =>
    h(
      'tr',
      { dataset: { code: f.code } },
      h('td', {}, h('span', { class: `badge severity-${f.severity}` }, f.severity)),
      h('td', {}, h('code', {}, f.code)),
      h('td', { class: 'message' }, f.message),
      h('td', { class: 'subject-cell' }, f.file && h('div', { class: 'muted shard-file' }, f.file), subject(f.subject)),
      h('td', { class: 'num offset', dataset: { value: f.offset } }, hex(f.offset), h('span', { class: 'muted' }, ` (${grouped(f.offset)})`)),
    ),
  );
  const more = omitted.map((o) =>
    h(
      'tr',
      { class: 'omitted', dataset: { code: o.code, omitted: o.count } },
      h('td', {}, h('span', { class: `badge severity-${o.severity}` }, o.severity)),
      h('td', {}, h('code', {}, o.code)),
      h('td', { class: 'message muted', colspan: 3 }, `… and ${grouped(o.count)} more ${o.code} findings`, o.file ? ` in ${o.file}` : '', ' (only the first 100 of a check are listed)'),
    ),
  );
  replaceChildren(
    container,
    h(
      'table',
      { class: 'data findings' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Severity'), h('th', {}, 'Check'), h('th', {}, 'Finding'), h('th', {}, 'About'), h('th', { class: 'num' }, 'Offset'))),
      h('tbody', {}, rows, more),
    ),
  );
}
