// The tensor type histogram: one bar per ggml type, its length the type's share of the tensor
// data (of the elements when a size is unknown), so the actual quantization mix shows at a glance.

import { h, replaceChildren } from './dom.js';
import { bytes, count, decimal, orDash } from './format.js';

/** The colour class of each type of `report.type_mix` (`tone-0` … `tone-7`), shared by every chart. */
export function typeTones(typeMix) {
  return new Map(typeMix.map((t, i) => [t.type, `tone-${i % 8}`]));
}

/** Fills `container` with the histogram of `report.type_mix`. */
export function renderTypeMix(container, typeMix) {
  if (typeMix.length === 0) {
    replaceChildren(
      container,
      h('p', { class: 'note' }, 'This file has no tensors (a vocabulary-only file, or a shard without weights).'),
    );
    return;
  }
  const known = typeMix.every((t) => t.bytes !== null);
  const measure = (t) => Number(known ? t.bytes : t.elements);
  const total = typeMix.reduce((sum, t) => sum + measure(t), 0) || 1;
  const tones = typeTones(typeMix);
  const rows = typeMix.map((t) => {
    const share = measure(t) / total;
    const bar = h('div', { class: `bar ${tones.get(t.type)}` });
    bar.style.width = `${Math.max(share * 100, 0.5)}%`;
    return h(
      'div',
      { class: 'mix-row', dataset: { type: t.type } },
      h('span', { class: 'mix-type' }, t.type),
      h('div', { class: 'mix-track' }, bar),
      h('span', { class: 'mix-share' }, `${decimal(share * 100, 1)}%`),
      h(
        'span',
        { class: 'mix-detail' },
        `${t.tensors} tensor${t.tensors === 1 ? '' : 's'} · ${count(t.elements)} weights · ${orDash(t.bytes, bytes)} · ${orDash(t.bits_per_weight, decimal)} bits/weight`,
      ),
    );
  });
  replaceChildren(
    container,
    h('div', { class: 'mix' }, rows),
    h('p', { class: 'note' }, `Share of ${known ? 'tensor data bytes' : 'weights'}.`),
  );
}
