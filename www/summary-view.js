// The summary cards. Each value carries `data-field` (the name of its field in the report, which
// is `ggufscope info --json`'s document) and `data-value` (the raw figure, empty when absent):
// stable hooks for tests and scripts, independent of how the figure is shown.

import { h, replaceChildren } from './dom.js';
import { bytes, count, decimal, grouped, groupedNumber, orDash } from './format.js';
import { explainCards } from './summary-notes.js';
import { cardsNotFor, descriptionCards, kindCard } from './kind-view.js';

/** An element showing `text` for report field `name` whose raw value is `value`. */
function field(name, value, text, tag = 'span', props = {}) {
  const raw = value === null || value === undefined || typeof value === 'object' ? '' : String(value);
  return h(tag, { ...props, dataset: { field: name, value: raw } }, text);
}

/** A label/value row of a card. */
function row(label, name, value, text = orDash(value, grouped)) {
  return h('div', { class: 'row' }, h('dt', {}, label), field(name, value, text, 'dd'));
}

/** "7.62 B" and, when it says more, the exact "7,615,616,512" beside it. */
function humanAndExact(value, human, exact) {
  if (value === null) return '—';
  const [short, long] = [human(value), exact(value)];
  return [h('span', {}, short), short !== String(value) && h('span', { class: 'exact' }, long)];
}

/** The titles of the cards the open file's kind has no use for (kind-view.js says which). */
let skipped = new Set();

function card(title, props, big, ...rows) {
  if (skipped.has(title)) return null;
  return h('section', { class: 'card', ...props }, h('h2', {}, title), big, rows.some(Boolean) && h('dl', {}, rows));
}

/**
 * The banner over the cards when a file is cut short (the layout's `missing` bytes, which the
 * validator's tensor-past-end-of-file finding reports too): how much is missing, and that the
 * model will not load. Null when nothing is missing.
 */
function truncationBanner(r) {
  const cut = r.layout.files.flatMap((file) =>
    file.regions.filter((g) => g.kind === 'missing').map((g) => ({ file, missing: Number(g.end) - Number(g.start) })),
  );
  if (cut.length === 0) return null;
  const lines = cut.map(({ file, missing }) => {
    const which =
      file.shard === null
        ? 'The file'
        : `Shard ${file.shard} (${r.split?.shards.find((s) => s.number === file.shard)?.file ?? 'name unknown'})`;
    const size = Number(file.file_size);
    return h(
      'p',
      {},
      `${which} is ${bytes(size)} (${grouped(size)} bytes); its tensor data runs ${bytes(missing)} (${grouped(missing)} bytes) past that: ${decimal((100 * missing) / (size + missing), 1)}% of the file is missing.`,
    );
  });
  return h(
    'div',
    { id: 'truncation-banner', class: 'banner-error', role: 'alert' },
    h('h2', {}, 'This download is incomplete: the model will not load'),
    lines,
    h(
      'p',
      {},
      'Download it again (or resume the download), then open it here to check. The header below is whole: its figures are what the complete file holds.',
    ),
  );
}

function fileTypeText(ft) {
  return ft ? `${ft.label ?? ft.name ?? 'unknown'} (${ft.id})` : '—';
}

function typeMixText(types) {
  const entries = Object.entries(types);
  return entries.length ? entries.map(([type, n]) => `${type} ×${n}`).join(' · ') : 'no tensors';
}

/** "3 of 3", or "2 of 3 (1 missing)": the shards of a split model that were read. */
function shardsText(split) {
  const missing = split.missing.length ? ` (${grouped(split.missing.length)} missing)` : '';
  return `${grouped(split.shards.length)} of ${grouped(split.count)}${missing}`;
}

/**
 * Head counts that differ between layers, as the report's `layer_groups` give them: "8 in 25
 * layers, 2 in 5" (one figure when every layer has it); `key` is `heads`, `kv_heads` or
 * `group_size`.
 */
function byLayers(groups, key) {
  const layers = new Map();
  for (const g of groups) layers.set(g[key], (layers.get(g[key]) ?? 0) + Number(g.layers));
  const values = [...layers];
  if (values.length === 1) return orDash(values[0][0], grouped);
  return values
    .map(([value, n], i) => `${orDash(value, grouped)} in ${grouped(n)}${i === 0 ? ` layer${n === 1 ? '' : 's'}` : ''}`)
    .join(', ');
}

/** The attention kind as the card's figure: a per-layer layout by the kinds of its layers. */
function attentionKindText(a) {
  if (a.kind === 'unknown') return 'Unknown';
  if (a.kind !== 'per-layer' || !a.layer_groups?.length) return a.kind;
  const kinds = [...new Set(a.layer_groups.map((g) => g.kind))];
  if (kinds.length === 1) return `${kinds[0]}, varying by layer`;
  return kinds.includes('none') ? 'Hybrid: attention in some layers' : 'Varies by layer';
}

function attentionCard(a) {
  const big = field('attention.kind', a.kind, attentionKindText(a), 'div', { class: 'big' });
  const groups = a.layer_groups ?? [];
  const perLayer = (values, key) => (groups.length ? byLayers(groups, key) : `per layer: ${values.join(', ')}`);
  return card(
    'Attention',
    { dataset: { field: 'attention', value: a.kind } },
    big,
    row(
      'Heads',
      'attention.heads',
      a.heads,
      a.heads_per_layer ? perLayer(a.heads_per_layer, 'heads') : orDash(a.heads, grouped),
    ),
    row(
      'KV heads',
      'attention.kv_heads',
      a.kv_heads,
      a.kv_heads_per_layer ? perLayer(a.kv_heads_per_layer, 'kv_heads') : orDash(a.kv_heads, grouped),
    ),
    row(
      'Group size',
      'attention.group_size',
      a.group_size,
      a.group_size === null && groups.length ? byLayers(groups, 'group_size') : orDash(a.group_size, grouped),
    ),
    a.sliding_window !== null && row('Sliding window', 'attention.sliding_window', a.sliding_window),
    a.kv_lora_rank !== null && row('KV LoRA rank', 'attention.kv_lora_rank', a.kv_lora_rank),
    a.key_length !== null &&
      row(
        'Key / value length',
        'attention.key_length',
        a.key_length,
        `${orDash(a.key_length)} / ${orDash(a.value_length)}`,
      ),
  );
}

/** Active parameters: "—, no tensors" in a file without tensors (vocabulary only), where 0 says nothing. */
function expertsCard(e, active) {
  if (!e) {
    return card('Experts', { dataset: { field: 'experts', value: '' } }, [
      h('div', { class: 'big' }, 'Dense'),
      h('p', { class: 'note' }, 'Not a mixture of experts: every parameter is used for every token.'),
    ]);
  }
  return card(
    'Experts',
    { dataset: { field: 'experts', value: String(e.count) } },
    h('div', { class: 'big' }, `${grouped(e.count)} experts, ${orDash(e.used)} used`),
    row('Experts', 'experts.count', e.count),
    row('Used per token', 'experts.used', e.used),
    row('Shared', 'experts.shared', e.shared),
    activeRow('Active parameters', active, (n) => `${count(n)} (${grouped(n)})`),
  );
}

/** Active parameters per token, or why there is no figure (none known, or no weights to count). */
function activeRow(label, active, format) {
  if (active === null)
    return row(label, 'active_parameters', active, 'unknown: the file does not say how many experts a token uses');
  if (Number(active) === 0) return row(label, 'active_parameters', active, 'none to count: the file holds no weights');
  return row(label, 'active_parameters', active, format(active));
}

/**
 * Fills `container` with the cards for `report`; `stats` is how the header was read.
 * @param {HTMLElement} container
 * @param {import('./web/protocol.js').Report} r
 * @param {import('./web/protocol.js').ReadStats} stats
 */
export function renderSummary(container, r, stats) {
  skipped = cardsNotFor(r);
  replaceChildren(
    container,
    truncationBanner(r),
    card(
      'Model',
      {},
      field('architecture', r.architecture, orDash(r.architecture), 'div', { class: 'big' }),
      row('Name', 'name', r.name, orDash(r.name)),
      row('Size label', 'size_label', r.size_label, orDash(r.size_label)),
    ),
    kindCard(r, { card, row, field }),
    card(
      'Parameters',
      {},
      field('parameters', r.parameters, humanAndExact(r.parameters, count, grouped), 'div', { class: 'big' }),
      row('Tensors', 'tensor_count', r.tensor_count),
      !r.experts &&
        r.tensor_count > 0 &&
        row('Active per token', 'active_parameters', r.active_parameters, orDash(r.active_parameters, count)),
    ),
    card(
      'Quantization',
      {},
      field(
        'bits_per_weight',
        r.bits_per_weight,
        orDash(r.bits_per_weight, (b) => `${decimal(b)} bits/weight`),
        'div',
        { class: 'big' },
      ),
      row('File type', 'file_type', r.file_type?.id, fileTypeText(r.file_type)),
      row('Actual types', 'tensor_types', null, typeMixText(r.tensor_types)),
      row('Tensor data', 'tensor_bytes', r.tensor_bytes, bytes(r.tensor_bytes)),
    ),
    attentionCard(r.attention),
    expertsCard(r.experts, r.active_parameters),
    card(
      'Shape',
      {},
      field(
        'context_length',
        r.context_length,
        orDash(r.context_length, (n) => `${grouped(n)} context`),
        'div',
        { class: 'big' },
      ),
      row('Layers', 'block_count', r.block_count),
      row('Embedding length', 'embedding_length', r.embedding_length),
      row('Feed-forward length', 'feed_forward_length', r.feed_forward_length),
      r.rope.freq_base !== null &&
        row('RoPE base', 'rope.freq_base', r.rope.freq_base, groupedNumber(r.rope.freq_base)),
    ),
    card(
      'Tokenizer',
      {},
      field(
        'vocab_size',
        r.vocab_size,
        orDash(r.vocab_size, (n) => `${grouped(n)} tokens`),
        'div',
        { class: 'big' },
      ),
      row('Model', 'tokenizer_model', r.tokenizer_model, orDash(r.tokenizer_model)),
      row('Pre-tokenizer', 'tokenizer_pre', r.tokenizer_pre, orDash(r.tokenizer_pre)),
    ),
    card(
      'File',
      {},
      field(
        'file_size',
        r.file_size,
        humanAndExact(r.file_size, bytes, (n) => `${grouped(n)} bytes`),
        'div',
        { class: 'big' },
      ),
      r.split && row('Shards', 'split.count', r.split.count, shardsText(r.split)),
      row('GGUF version', 'version', r.version, `v${r.version}`),
      row('Byte order', 'endianness', r.endianness, r.endianness === 'big' ? 'big-endian (inferred)' : 'little-endian'),
      row('Alignment', 'alignment', r.alignment),
    ),
    card(
      'Header',
      {},
      field(
        'header_size',
        r.header_size,
        r.split ? `${bytes(r.header_size)} in ${grouped(r.split.shards.length)} headers` : bytes(r.header_size),
        'div',
        { class: 'big' },
      ),
      // A split model's data offset is its first shard's: each shard's data follows its own header.
      row(
        'Data starts at',
        'data_offset',
        r.data_offset,
        r.split ? `${grouped(r.data_offset)} in shard ${r.split.shards[0]?.number ?? 1}` : grouped(r.data_offset),
      ),
      row(
        'Read to show it',
        'bytes_read',
        stats.bytesRead,
        `${bytes(stats.bytesRead)} in ${stats.reads} read${stats.reads === 1 ? '' : 's'}`,
      ),
      row('Key-value pairs', 'kv_count', r.kv_count),
    ),
  );
  explainCards(container, r);
}

/**
 * Draws the description of the file shown (the memory module's `describe()`: each kind's figures,
 * what the model can do) as cards in `section`, under Will it fit so that the first screen keeps
 * the summary and the memory it needs; `undefined` while it is asked for, `null` when it could not
 * be had. `section` (the viewer's, with the `description` hook) carries its state.
 * @param {HTMLElement} section
 * @param {Record<string, any>|null|undefined} description
 */
export function showDescription(section, description) {
  section.dataset.state = description ? 'ready' : description === null ? 'error' : 'loading';
  replaceChildren(section, description && descriptionCards(description, { card, row, field }));
  if (description) explainCards(section, description);
}
