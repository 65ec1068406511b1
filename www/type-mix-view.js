// The tensor type histogram: one bar per ggml type, its length the type's share of the tensor
// data (of the elements when a size is unknown), so the actual quantization mix shows at a glance.

import { h, replaceChildren } from './dom.js';
import { bytes, count, decimal, orDash } from './format.js';

/**
 * Each ggml type's tone (`tone-N`, style.css), the same in every chart of every file, so that
 * Q4_K is one colour wherever it is seen: a tone per type that files hold side by side, shared
 * only by types of one family that rarely meet (Q4_0 and Q4_1, the IQ2 and IQ1 types, …); plain
 * numbers grey.
 */
const TYPE_TONES = {
  Q8_0: 0,
  Q8_1: 0,
  Q8_K: 0,
  Q5_K: 1,
  Q4_K: 2,
  Q6_K: 3,
  F16: 4,
  Q4_0: 5,
  Q4_1: 5,
  Q5_0: 6,
  Q5_1: 6,
  Q3_K: 8,
  IQ3_XXS: 8,
  IQ3_S: 8,
  IQ4_NL: 9,
  IQ4_XS: 9,
  MXFP4: 9,
  NVFP4: 9,
  BF16: 10,
  Q2_K: 11,
  IQ2_XXS: 11,
  IQ2_XS: 11,
  IQ2_S: 11,
  IQ1_S: 11,
  IQ1_M: 11,
  TQ1_0: 11,
  TQ2_0: 11,
  Q1_0: 11,
  Q2_0: 11,
};

/** The colour class of ggml type `type` (its name): F32, the integers and unknown types grey. */
export function typeTone(type) {
  return `tone-${TYPE_TONES[type] ?? 7}`;
}

/** The colour class of each type of `report.type_mix`, shared by every chart. */
export function typeTones(typeMix) {
  return new Map(typeMix.map((t) => [t.type, typeTone(t.type)]));
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
