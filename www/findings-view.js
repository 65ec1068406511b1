// The validator's findings: what in the header looks wrong or risky, with where it is. Errors come
// first, then warnings, then notes, each in file order. A finding about a key or a tensor names
// it, and clicking the name shows that row of its table. In a split model, each finding also
// names its file (a shard, a missing shard, a file left out). The validator lists at most 100 of
// each check (the rest are counted); rows are drawn a page at a time on top of that.

import { h, replaceChildren } from './dom.js';
import { grouped, hex } from './format.js';

/** Rows drawn before "Show more": a hostile header can have a hundred of each of forty checks. */
const PAGE = 500;

const SEVERITIES = ['error', 'warning', 'info'];
const RANK = Object.fromEntries(SEVERITIES.map((s, i) => [s, i]));
const NOUNS = { error: ['error', 'errors'], warning: ['warning', 'warnings'], info: ['note', 'notes'] };

/**
 * How many findings of each severity, those past the cap included, in words: "2 errors, 1
 * warning"; "none" when there are none.
 */
export function severityCounts(findings, omitted) {
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity] += 1;
  for (const o of omitted) counts[o.severity] += Number(o.count);
  const parts = SEVERITIES.filter((s) => counts[s] > 0).map(
    (s) => `${grouped(counts[s])} ${NOUNS[s][counts[s] === 1 ? 0 : 1]}`,
  );
  return { counts, text: parts.length ? parts.join(', ') : 'none' };
}

/**
 * Fills `container` with the report's `findings`, errors first, or says that there are none, then
 * one row per entry of `omitted` (the report's `findings_omitted`: per code past the validator's
 * cap, how many more there are). `onSubject` is called with a finding's `subject` (`{kind: 'kv' |
 * 'tensor', index, name}`) when it is clicked. Returns the counts by severity (`severityCounts`),
 * for the panel's heading.
 */
export function renderFindings(container, findings, omitted, onSubject) {
  const summary = severityCounts(findings, omitted);
  if (findings.length === 0) {
    replaceChildren(container, h('p', { class: 'note ok' }, 'No problems found in the header.'));
    return summary;
  }
  const bySeverity = (a, b) => RANK[a.severity] - RANK[b.severity]; // a stable sort keeps file order
  const sorted = [...findings].sort(bySeverity);
  const subject = (s) =>
    s.kind === 'file'
      ? h('span', { class: 'muted' }, 'the file')
      : s.index === null // a key of a shard other than the first: not in the metadata table
        ? h('code', {}, s.name)
        : h(
            'button',
            {
              type: 'button',
              class: 'link subject',
              title: `Show this ${s.kind === 'kv' ? 'key' : 'tensor'}`,
              onclick: () => onSubject(s),
            },
            h('code', {}, s.name ?? `#${s.index}`),
          );
  const row = (f) =>
    h(
      'tr',
      { dataset: { code: f.code, severity: f.severity } },
      h('td', {}, h('span', { class: `badge severity-${f.severity}` }, f.severity)),
      h('td', {}, h('code', {}, f.code)),
      h('td', { class: 'message wide' }, f.message),
      h('td', { class: 'subject-cell' }, f.file && h('div', { class: 'muted shard-file' }, f.file), subject(f.subject)),
      h(
        'td',
        { class: 'num offset', dataset: { value: f.offset, label: 'At' } },
        hex(f.offset),
        h('span', { class: 'muted' }, ` (${grouped(f.offset)})`),
      ),
    );
  const more = [...omitted]
    .sort(bySeverity)
    .map((o) =>
      h(
        'tr',
        { class: 'omitted', dataset: { code: o.code, omitted: o.count, severity: o.severity } },
        h('td', {}, h('span', { class: `badge severity-${o.severity}` }, o.severity)),
        h('td', {}, h('code', {}, o.code)),
        h(
          'td',
          { class: 'message muted wide', colspan: 3 },
          `… and ${grouped(o.count)} more ${o.code} findings`,
          o.file ? ` in ${o.file}` : '',
          ' (only the first 100 of a check are listed)',
        ),
      ),
    );
  const body = h('tbody');
  const pager = h('p', { class: 'note findings-pager' });
  let shown = 0;
  function showMore() {
    const next = sorted.slice(shown, shown + PAGE).map(row);
    shown += next.length;
    // Omitted counts stay last, after the rows drawn so far.
    body.replaceChildren(...body.querySelectorAll(':scope > tr:not(.omitted)'), ...next, ...more);
    const left = sorted.length - shown;
    replaceChildren(
      pager,
      left > 0 && [
        `Showing ${grouped(shown)} of ${grouped(sorted.length)} findings. `,
        h(
          'button',
          { type: 'button', class: 'button small', onclick: showMore },
          `Show ${grouped(Math.min(left, PAGE))} more`,
        ),
      ],
    );
    pager.hidden = left === 0;
  }
  replaceChildren(
    container,
    h(
      'table',
      { class: 'data findings stacked' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Severity'),
          h('th', {}, 'Check'),
          h('th', {}, 'Finding'),
          h('th', {}, 'About'),
          h('th', { class: 'num' }, 'Offset'),
        ),
      ),
      body,
    ),
    pager,
  );
  showMore();
  return summary;
}
