// Will it fit? The buffers llama.cpp allocates to run the model — the model buffer, the KV cache
// per layer group, the recurrent state, the output and compute buffers — for a context (presets
// 4k, 8k, 32k and the model's own), the KV cache's types and flash attention, in MiB and GiB
// beside the bytes; the user's devices, kept in this browser only; and how each figure is had,
// naming the llama.cpp buffer. The figures are the core's (`ggufscope info --json`'s `memory`),
// computed in the worker: this file only draws them.

import { h, replaceChildren, svg } from './dom.js';
import { gib, grouped, mib } from './format.js';

/** llama-server's `-c` when the page opens: what llama.cpp, Ollama and LM Studio start with. */
export const DEFAULT_CONTEXT = 4096;
const PRESETS = [
  [4096, '4k'],
  [8192, '8k'],
  [32768, '32k'],
];
/** What `-ctk`/`-ctv` take, f16 first (llama.cpp's default). */
const CACHE_TYPES = ['f16', 'f32', 'bf16', 'q8_0', 'q4_0', 'q4_1', 'iq4_nl', 'q5_0', 'q5_1'];
/** Where the user's devices are remembered: this browser's storage, never sent anywhere. */
export const DEVICES_KEY = 'ggufscope.devices';

/**
 * The buffers of the bar and the table: the document's field, its name, and the llama.cpp buffer
 * it is.
 */
const PARTS = [
  ['model', 'Model', 'the weights: CPU_Mapped model buffer'],
  ['kv_cache', 'KV cache', 'llama_kv_cache'],
  ['recurrent', 'Recurrent state', 'llama_memory_recurrent'],
  ['output', 'Output', 'the logits: output buffer'],
  ['compute', 'Compute', 'CPU compute buffer'],
];

/**
 * Fills `container` with the card for `report`: the choices, the figures `fit(options)` computes
 * (GgufClient.fit: the core's `memory` document for llama-server's options) and the devices.
 * @param {HTMLElement} container
 * @param {import('./web/protocol.js').Report} report
 * @param {(options: import('./web/protocol.js').FitOptions) => Promise<any>} fit
 * @param {(options: import('./web/protocol.js').FitOptions, devices: {ram: number, gpus: number[]}) => Promise<any>} [plan]
 *   GgufClient.plan: where llama.cpp would put the model on the devices (`ggufscope fit --json`)
 */
export function renderMemory(container, report, fit, plan) {
  if (report.kind !== 'model' && report.kind !== 'vocab-only') {
    // An adapter, a projector, an importance matrix, a control vector: loaded with a model, or
    // read by a tool, never run alone.
    replaceChildren(
      container,
      h(
        'p',
        { class: 'muted', dataset: { field: 'memory.none' } },
        report.kind === 'mmproj'
          ? 'A projector is loaded beside its model: open the model to see whether both fit (ggufscope fit --mmproj counts it).'
          : 'This file is not a model run on its own: open the model it goes with to see whether that fits.',
      ),
    );
    container.dataset.state = 'ready';
    return;
  }
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
  const trained = report.context_length ? Number(report.context_length) : null;
  const context = h('input', {
    type: 'number',
    min: 1,
    step: 1,
    value: DEFAULT_CONTEXT,
    name: 'context',
    'aria-label': 'Context length in tokens',
  });
  const presets = [...PRESETS, ...(trained ? [[trained, `max ${grouped(trained)}`]] : [])].map(([tokens, label]) =>
    h(
      'button',
      {
        type: 'button',
        class: 'button preset',
        dataset: { preset: String(tokens) },
        'aria-pressed': 'false',
        onclick: () => ((context.value = String(tokens)), changed()),
      },
      label,
    ),
  );
  const select = (name, values, label) =>
    h(
      'select',
      { name, 'aria-label': label },
      values.map((v) => h('option', { value: v }, v)),
    );
  const ctk = select('ctk', CACHE_TYPES, 'K cache type');
  const ctv = select('ctv', CACHE_TYPES, 'V cache type');
  const flashAttn = select('flash_attn', ['auto', 'on', 'off'], 'Flash attention');
  const parallel = h('input', {
    type: 'number',
    min: 1,
    max: 256,
    step: 1,
    name: 'parallel',
    placeholder: 'auto',
    'aria-label': 'Parallel sequences',
  });
  const result = h('div', { class: 'memory-result', 'aria-live': 'polite' });
  const devices = devicesForm(() => draw());
  let asked = 0; // answers to earlier questions arrive late and are dropped
  let last = null;
  let lastOptions = null;
  let planned = { key: null, plan: null }; // the plan of the devices and options named by `key`

  function draw() {
    if (!last) return;
    const d = devices.read();
    const key = JSON.stringify([lastOptions, d]);
    replaceChildren(result, figures(last, trained, d, planned.key === key ? planned.plan : null));
    if (plan && d.ram && planned.key !== key) askPlan(key, d);
  }

  /** The plan for devices `d`, asked once per options and devices; drawn when it is still theirs. */
  async function askPlan(key, d) {
    planned = { key, plan: null };
    try {
      const answer = await plan(lastOptions, d);
      if (planned.key !== key) return;
      planned = { key, plan: answer };
    } catch (error) {
      if (planned.key !== key) return;
      planned = { key, plan: { error: error.message ?? String(error) } };
    }
    draw();
  }

  async function changed() {
    const ticket = ++asked;
    container.dataset.state = 'loading';
    for (const b of presets) b.setAttribute('aria-pressed', String(b.dataset.preset === context.value.trim()));
    const wrong =
      wholeNumberError(context, 'The context length') ?? wholeNumberError(parallel, 'The number of parallel sequences');
    if (wrong) {
      last = null;
      replaceChildren(result, h('p', { class: 'error-text', dataset: { field: 'memory.error' } }, wrong));
      container.dataset.state = 'ready';
      return;
    }
    const options = {
      ctx: context.value.trim() === '' ? DEFAULT_CONTEXT : Number(context.value),
      ctk: ctk.value,
      ctv: ctv.value,
      flashAttn: flashAttn.value,
      parallel: parallel.value.trim() === '' ? undefined : Number(parallel.value),
    };
    try {
      const memory = await fit(options);
      if (ticket !== asked) return;
      last = memory;
      lastOptions = options;
      draw();
    } catch (error) {
      if (ticket !== asked) return;
      last = null;
      replaceChildren(
        result,
        h('p', { class: 'error-text', dataset: { field: 'memory.error' } }, error.message ?? String(error)),
      );
    }
    container.dataset.state = 'ready';
  }

  for (const input of [context, ctk, ctv, flashAttn, parallel]) input.addEventListener('input', changed);
  replaceChildren(
    container,
    h(
      'div',
      { class: 'memory-inputs' },
      h(
        'div',
        { class: 'memory-context', role: 'group', 'aria-label': 'Context' },
        h('span', {}, 'Context '),
        presets,
        context,
        h('span', { class: 'muted' }, ' tokens'),
      ),
      h('label', {}, 'K cache ', ctk),
      h('label', {}, 'V cache ', ctv),
      h('label', {}, 'Flash attention ', flashAttn),
      h('label', {}, 'Sequences ', parallel),
    ),
    result,
    devices.form,
  );
  changed();
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

/** `n` bytes as the card shows them: MiB, GiB and the exact bytes. */
function sizes(n) {
  return [h('span', { class: 'mib' }, mib(n)), h('span', { class: 'exact' }, ` ${gib(n)} · ${grouped(n)} B`)];
}

/** A figure with its `data-field` hook (`memory.NAME`) and exact value. */
function value(name, n, ...text) {
  return h('span', { dataset: { field: `memory.${name}`, value: String(n) } }, ...text);
}

/**
 * The figures of `m` (the `memory` document): the total, the buffers as a bar and rows, the
 * devices' table, and how each buffer is sized; a line when the context is past the `trained` one.
 */
function figures(m, trained, devices, plan) {
  const c = m.context;
  const parts = PARTS.filter(([key]) => key !== 'recurrent' || Number(m.recurrent) > 0);
  const total = Number(m.total) || 1;
  let x = 0;
  const bar = svg(
    'svg',
    {
      class: 'chart stack',
      viewBox: '0 0 1000 1',
      preserveAspectRatio: 'none',
      role: 'img',
      'aria-label': parts.map(([, label]) => label).join(', '),
    },
    parts.map(([key, label], i) => {
      const width = (Number(m[key]) / total) * 1000;
      const rect = svg(
        'rect',
        { class: `tone-${i}`, x, y: 0, width, height: 1 },
        svg('title', {}, `${label}: ${mib(m[key])}`),
      );
      x += width;
      return rect;
    }),
  );
  const sequences = `${grouped(c.n_seq)} sequence${Number(c.n_seq) === 1 ? '' : 's'}${c.kv_unified && Number(c.n_seq) > 1 ? ' sharing it' : ''}`;
  return [
    h(
      'div',
      { class: 'memory-total' },
      value('total', m.total, mib(m.total)),
      h('span', { class: 'exact' }, ` ${gib(m.total)} · ${grouped(m.total)} B`),
      h(
        'p',
        { class: 'muted' },
        `for ${grouped(c.n_ctx)} tokens of context, ${sequences}; K ${m.options.type_k}, V ${m.options.type_v}, flash attention ${c.flash_attn ? 'on' : 'off'}`,
      ),
    ),
    trained && Number(c.n_ctx_seq) > trained
      ? h(
          'p',
          { class: 'warning', dataset: { field: 'memory.past-context' } },
          `Past the ${grouped(trained)} tokens the model was trained for: llama.cpp runs it, but the output degrades unless RoPE scaling stretches the model.`,
        )
      : null,
    bar,
    h(
      'dl',
      { class: 'memory-parts' },
      parts.map(([key, label], i) =>
        h(
          'div',
          { class: 'row', dataset: key === 'model' ? { field: 'memory.weights', value: String(m.model) } : {} },
          h('dt', {}, h('span', { class: `swatch tone-${i}` }), label),
          h('dd', {}, value(key, m[key], ...sizes(m[key]))),
        ),
      ),
    ),
    ...(devicesTable(m, devices, plan) ?? []),
    h('h3', {}, 'How it is computed'),
    h(
      'ul',
      { class: 'formula', dataset: { field: 'memory.formula' } },
      lines(m).map(([buffer, text, n]) =>
        h('li', {}, h('strong', {}, buffer), `: ${text}`, n == null ? '' : ` = ${mib(n)}`),
      ),
    ),
  ];
}

/** How each buffer is sized, `[buffer, how, bytes]`, in the order llama.cpp allocates them. */
function lines(m) {
  const c = m.context;
  const out = [];
  const more = Number(m.model_range.high) - Number(m.model_range.bytes);
  out.push([
    'model buffer (CPU_Mapped)',
    `the file's tensor data, memory-mapped${more > 0 ? `; a CPU that repacks matrices (CPU_REPACK) adds up to ${mib(more)}` : ''}`,
    m.model,
  ]);
  for (const g of m.groups) {
    const streams = Number(g.streams) === 1 ? '1 stream' : `${grouped(g.streams)} streams`;
    const v = Number(g.v_bytes) > 0 ? ` + V ${g.type_v} ${mib(g.v_bytes)}` : ' (V is read from K: latent attention)';
    out.push([
      g.sliding ? 'KV cache, sliding-window layers (llama_kv_cache_iswa)' : 'KV cache (llama_kv_cache)',
      `${grouped(g.layers)} layers × ${grouped(g.cells)} cells × ${streams}: K ${g.type_k} ${mib(g.k_bytes)}${v}`,
      Number(g.k_bytes) + Number(g.v_bytes),
    ]);
  }
  const r = m.recurrent_state;
  if (r)
    out.push([
      'recurrent state (llama_memory_recurrent)',
      `${grouped(r.layers)} layers × ${grouped(r.cells)} cells, f32: R ${grouped(r.r_values)} values ${mib(r.r_bytes)} + S ${grouped(r.s_values)} values ${mib(r.s_bytes)}`,
      Number(r.r_bytes) + Number(r.s_bytes),
    ]);
  out.push([
    'output buffer',
    `the logits of ${grouped(c.n_seq)} output${Number(c.n_seq) === 1 ? '' : 's'}, f32`,
    m.output,
  ]);
  out.push([
    'compute buffer (ggml graph allocator)',
    `the graph of one physical batch of ${grouped(Math.min(Number(c.n_ctx), Number(c.n_ubatch)))} tokens (-ub), flash attention ${c.flash_attn ? 'on' : 'off'}; between ${mib(m.compute_range.low)} and ${mib(m.compute_range.high)} as the allocator places tensors`,
    m.compute,
  ]);
  out.push(['total', 'all buffers; backend overhead comes on top', m.total]);
  return out;
}

/**
 * The devices the user has: RAM and GPUs' free memory, in GiB, remembered in localStorage (never
 * sent). `onChange` is called as they change. `read()` gives them in bytes: `{ram, gpus}`.
 */
function devicesForm(onChange) {
  const stored = loadDevices();
  const gib = (bytes) => (bytes ? String(Number(bytes) / 2 ** 30) : '');
  const amount = (name, label, bytes) =>
    h('input', {
      type: 'number',
      min: 0,
      step: 'any',
      name,
      value: gib(bytes),
      placeholder: 'GiB',
      'aria-label': label,
    });
  const ram = amount('ram', 'RAM in GiB', stored.ram);
  const gpus = h('div', { class: 'gpus' });
  const addGpu = (bytes) => {
    const n = gpus.children.length + 1;
    const input = amount('gpu', `GPU ${n} free memory in GiB`, bytes);
    const row = h(
      'div',
      { class: 'gpu' },
      h('label', {}, `GPU ${n} `, input, ' GiB free'),
      h(
        'button',
        {
          type: 'button',
          class: 'button',
          'aria-label': `Remove GPU ${n}`,
          onclick: () => (row.remove(), renumber(), save()),
        },
        'Remove',
      ),
    );
    input.addEventListener('input', save);
    gpus.append(row);
  };
  const renumber = () =>
    [...gpus.children].forEach((row, i) => {
      row.querySelector('label').firstChild.textContent = `GPU ${i + 1} `;
      row.querySelector('input').setAttribute('aria-label', `GPU ${i + 1} free memory in GiB`);
      row.querySelector('button').setAttribute('aria-label', `Remove GPU ${i + 1}`);
    });
  for (const g of stored.gpus) addGpu(g);
  const bytesOf = (input) => {
    const n = Number(input.value);
    return input.value.trim() !== '' && Number.isFinite(n) && n > 0 ? Math.round(n * 2 ** 30) : null;
  };
  const read = () => ({
    ram: bytesOf(ram),
    gpus: [...gpus.querySelectorAll('input')].map(bytesOf).filter((b) => b !== null),
  });
  function save() {
    try {
      localStorage.setItem(DEVICES_KEY, JSON.stringify(read()));
    } catch {
      // Storage refused (a private window, a sandboxed frame): the devices hold for this visit.
    }
    onChange();
  }
  ram.addEventListener('input', save);
  const form = h(
    'div',
    { class: 'devices', role: 'group', 'aria-labelledby': 'devices-title' },
    h('h3', { id: 'devices-title' }, 'Your devices'),
    h('p', { class: 'muted' }, 'Remembered in this browser only; never sent anywhere.'),
    h('label', {}, 'RAM ', ram, ' GiB'),
    gpus,
    h('button', { type: 'button', class: 'button', onclick: () => (addGpu(null), save()) }, 'Add a GPU'),
  );
  return { form, read };
}

/** The devices stored by an earlier visit, `{ram, gpus}` in bytes; none when there are none or they are unreadable. */
function loadDevices() {
  try {
    const d = JSON.parse(localStorage.getItem(DEVICES_KEY) ?? 'null');
    const ok = (n) => typeof n === 'number' && Number.isFinite(n) && n > 0;
    return { ram: ok(d?.ram) ? d.ram : null, gpus: Array.isArray(d?.gpus) ? d.gpus.filter(ok).slice(0, 16) : [] };
  } catch {
    return { ram: null, gpus: [] };
  }
}

/**
 * Each device the user gave with its memory, beside what the model takes; with the `plan` for
 * them (the core's, RAM first), what llama.cpp would put on each and the verdict.
 */
function devicesTable(m, devices, plan) {
  const rows = [
    ...(devices.ram ? [['RAM', devices.ram]] : []),
    ...devices.gpus.map((bytes, i) => [`GPU ${i + 1}`, bytes]),
  ];
  if (!rows.length) return null;
  const uses = plan?.devices?.length === rows.length ? plan.devices : null;
  const col = (text) => h('th', { scope: 'col' }, text);
  const table = h(
    'table',
    { class: 'devices-table', dataset: { field: 'memory.devices' } },
    h('caption', {}, `Your devices, for the ${mib(m.total)} these buffers take`),
    h(
      'thead',
      {},
      h('tr', {}, col('Device'), col('Memory'), ...(uses ? [col('Layers'), col('Holds'), col('Fits')] : [])),
    ),
    h(
      'tbody',
      {},
      rows.map(([name, bytes], i) =>
        h(
          'tr',
          { dataset: { field: `memory.device.${i}`, value: String(bytes) } },
          h('th', { scope: 'row' }, name),
          h('td', {}, gib(bytes)),
          ...(uses
            ? [
                h('td', {}, grouped(uses[i].layers)),
                h('td', { dataset: { value: String(uses[i].total) } }, mib(uses[i].total)),
                h('td', {}, uses[i].fits ? 'yes' : 'no'),
              ]
            : []),
        ),
      ),
    ),
  );
  return [table, plan ? verdict(plan) : null];
}

/** What the plan answers, with the flags llama.cpp would be run with. */
function verdict(p) {
  if (p.error) return h('p', { class: 'error-text', dataset: { field: 'memory.plan' } }, p.error);
  const gpus = p.devices.length - 1;
  const on = gpus === 1 ? 'the GPU' : 'the GPUs';
  const says = {
    fits: gpus === 0 ? 'Fits in RAM.' : `Fits: all ${grouped(p.layers)} layers on ${on}.`,
    fits_with_experts_on_cpu: `Fits: all ${grouped(p.layers)} layers on ${on}, the experts of ${grouped(p.n_cpu_moe)} in RAM.`,
    fits_partly: `Fits with ${grouped(p.n_gpu_layers)} of ${grouped(p.layers)} layers on ${on}, the rest in RAM.`,
    does_not_fit: 'Does not fit.',
  }[p.verdict];
  const flags = [`-c ${p.context.n_ctx}`];
  if (gpus > 0) flags.push(`-ngl ${p.n_gpu_layers}`);
  if (p.tensor_split.length) flags.push(`-ts ${p.tensor_split.join(',')}`);
  if (Number(p.n_cpu_moe) > 0) flags.push(`--n-cpu-moe ${p.n_cpu_moe}`);
  return h(
    'p',
    { dataset: { field: 'memory.plan', value: p.verdict } },
    h('strong', {}, says),
    ' llama.cpp: ',
    h('code', {}, flags.join(' ')),
    gpus > 0 ? ` (each GPU keeps ${mib(1024 * 2 ** 20)} free, as llama.cpp's --fit does)` : '',
  );
}
