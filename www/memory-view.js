// Will it fit? The memory to run the model with llama.cpp for a context length, KV cache type and
// number of parallel sequences: weights + KV cache + a compute allowance, with the arithmetic
// written out and what it leaves out. The figures are the core's (`ggufscope info --ctx N`).

import { h, replaceChildren, svg } from './dom.js';
import { bytes, grouped } from './format.js';

const KV_TYPES = ['f16', 'f32', 'q8_0', 'q4_0'];
const PARTS = [
  ['weights', 'Weights'],
  ['kv_cache', 'KV cache'],
  ['compute', 'Compute allowance'],
];

/**
 * Fills `container` with the inputs and the estimate for `report`, which
 * `estimate(context, kvType, parallel)` computes (GgufClient.memory; context null: the model's).
 */
export function renderMemory(container, report, estimate) {
  if (Number(report.tensor_count) === 0) {
    // A vocabulary-only file: no weights to load, no layers to size a cache by.
    replaceChildren(
      container,
      h(
        'p',
        { class: 'muted', dataset: { field: 'memory.none' } },
        'This file holds no tensors: there are no weights to load and no layers to size a KV cache for, so there is nothing to estimate.',
      ),
    );
    container.dataset.state = 'ready';
    return;
  }
  const context = h('input', {
    type: 'number',
    min: 1,
    step: 1,
    value: report.context_length ?? '',
    placeholder: 'tokens',
    name: 'context',
  });
  const kvType = h(
    'select',
    { name: 'kv_type' },
    KV_TYPES.map((t) => h('option', { value: t }, t)),
  );
  const parallel = h('input', { type: 'number', min: 1, step: 1, value: 1, name: 'parallel' });
  const result = h('div', { class: 'memory-result', 'aria-live': 'polite' });
  let asked = 0; // answers to earlier questions arrive late and are dropped

  async function update() {
    const ticket = ++asked;
    const wrong =
      wholeNumberError(context, 'The context length') ?? wholeNumberError(parallel, 'The number of parallel sequences');
    if (wrong) {
      replaceChildren(result, h('p', { class: 'error-text', dataset: { field: 'memory.error' } }, wrong));
      container.dataset.state = 'ready';
      return;
    }
    const tokens = context.value.trim() === '' ? null : Number(context.value);
    try {
      const e = await estimate(tokens, kvType.value, Number(parallel.value || 1));
      if (ticket === asked) replaceChildren(result, figures(e, report.context_length));
    } catch (error) {
      if (ticket === asked)
        replaceChildren(
          result,
          h('p', { class: 'error-text', dataset: { field: 'memory.error' } }, error.message ?? String(error)),
        );
    }
    if (ticket === asked) container.dataset.state = 'ready';
  }

  for (const input of [context, kvType, parallel])
    input.addEventListener('input', () => ((container.dataset.state = 'loading'), update()));
  replaceChildren(
    container,
    h(
      'div',
      { class: 'memory-inputs' },
      h(
        'label',
        {},
        'Context length ',
        context,
        h(
          'span',
          { class: 'muted' },
          report.context_length ? ` (the model's: ${grouped(report.context_length)})` : ' (the model gives none)',
        ),
      ),
      h('label', {}, 'KV cache type ', kvType),
      h('label', {}, 'Parallel sequences ', parallel),
    ),
    result,
  );
  container.dataset.state = 'loading';
  update();
}

/**
 * Why `input` (a number field; empty: its default) does not hold a whole number, or null. The core
 * counts whole tokens and sequences (and says why 0 will not do): 1.5 must not become 1 silently.
 */
function wholeNumberError(input, what) {
  if (input.validity.badInput) return `${what} must be a whole number.`;
  const text = input.value.trim();
  if (text === '') return null;
  const n = Number(text);
  return Number.isInteger(n) ? null : `${what} must be a whole number: ${text} is not one.`;
}

/**
 * The estimate: the total, its three parts as a bar and figures, the formula and the notes; a line
 * when the context is past the `trained` one (the model's context_length).
 */
function figures(e, trained) {
  const total = Number(e.total) || 1;
  let x = 0;
  const bar = svg(
    'svg',
    {
      class: 'chart stack',
      viewBox: '0 0 1000 1',
      preserveAspectRatio: 'none',
      role: 'img',
      'aria-label': 'Weights, KV cache and compute allowance',
    },
    PARTS.map(([key, label], i) => {
      const width = (Number(e[key]) / total) * 1000;
      const rect = svg(
        'rect',
        { class: `tone-${i}`, x, y: 0, width, height: 1 },
        svg('title', {}, `${label}: ${bytes(e[key])}`),
      );
      x += width;
      return rect;
    }),
  );
  const value = (name, n, text) => h('span', { dataset: { field: `memory.${name}`, value: n } }, text);
  return [
    h(
      'div',
      { class: 'memory-total' },
      value('total', e.total, `${bytes(e.total)} total`),
      h(
        'span',
        { class: 'muted' },
        ` for ${grouped(e.context)} tokens × ${grouped(e.parallel)} sequence${e.parallel === 1 ? '' : 's'}, KV cache ${e.kv_type}`,
      ),
    ),
    trained && Number(e.context) > Number(trained)
      ? h(
          'p',
          { class: 'warning', dataset: { field: 'memory.past-context' } },
          `Past the ${grouped(trained)} tokens the model was trained for: llama.cpp runs it, but the output degrades unless RoPE scaling stretches the model (see the notes).`,
        )
      : null,
    bar,
    h(
      'dl',
      { class: 'memory-parts' },
      PARTS.map(([key, label], i) =>
        h(
          'div',
          { class: 'row' },
          h('dt', {}, h('span', { class: `swatch tone-${i}` }), label),
          h('dd', {}, value(key, e[key], bytes(e[key])), h('span', { class: 'exact' }, ` ${grouped(e[key])} B`)),
        ),
      ),
    ),
    h('h3', {}, 'How it is computed'),
    h('pre', { class: 'formula', dataset: { field: 'memory.formula' } }, e.formula.join('\n')),
    h('h3', {}, 'Notes and what it leaves out'),
    h(
      'ul',
      { class: 'notes' },
      e.notes.map((n) => h('li', {}, n)),
    ),
  ];
}
