// What a file is when it is not a model's weights — a LoRA adapter, an importance matrix, a
// multimodal projector, a control vector, a vocabulary alone — and what the model can do: the
// report's `kind` (drawn with the summary), then its `adapter`, `imatrix`, `mmproj` and
// `control_vector` figures and its `capabilities`, which the memory module gives
// (`GgufClient#describe`: the viewer's module goes without them) and which are drawn when they
// come, as summary cards. The core decides each (gguf-core's kind.rs, describe.rs and
// capabilities.rs); this only draws them. Each value carries `data-field` (its field in the
// report) and `data-value`, as the other summary cards do.

import { h } from './dom.js';
import { float32, grouped, orDash } from './format.js';

/** What each kind is called, and what it is for: one plain sentence. */
const KINDS = {
  'vocab-only': [
    'Vocabulary only',
    "A model's tokenizer and settings without its weights: enough to tokenize text or check a template, not to run.",
  ],
  adapter: [
    'LoRA adapter',
    'Loaded over its base model (llama.cpp --lora): it adds a small low-rank change to the weights it names.',
  ],
  imatrix: [
    'Importance matrix',
    "Statistics of a model's activations over some text, which llama-quantize --imatrix reads to keep the weights that matter most precise. It holds no weights to run.",
  ],
  mmproj: [
    'Multimodal projector',
    'An image or audio encoder, loaded beside a model (llama.cpp --mmproj) so that it can read pictures or sound: its output width must be the model’s embedding length.',
  ],
  'control-vector': [
    'Control vector',
    "Directions added to a model's hidden states, layer by layer, to steer what it writes (llama.cpp --control-vector).",
  ],
};

/** What each capability is called. */
const CAPABILITIES = {
  chat: 'Chat',
  tools: 'Tool calls',
  thinking: 'Thinking',
  'fill-in-middle': 'Fill in the middle',
  embedding: 'Embeddings',
  reranking: 'Reranking',
  vision: 'Vision',
  audio: 'Audio',
  adapter: 'Adapter',
};

/**
 * The summary cards a file of `r`'s kind has no use for: a model's attention, experts, shape and
 * tokenizer for an adapter, a projector, an importance matrix or a control vector (their own
 * cards say what they are); parameters and quantization where the tensors are not weights.
 * @param {import('./web/protocol.js').Report} r
 */
export function cardsNotFor(r) {
  const skipped = [];
  if (r.kind !== 'model' && r.kind !== 'vocab-only') skipped.push('Attention', 'Experts', 'Shape', 'Tokenizer');
  if (r.kind === 'imatrix' || r.kind === 'control-vector') skipped.push('Parameters', 'Quantization');
  return new Set(skipped);
}

/**
 * The cards of a file's description (the memory module's `describe()`: the report's `kind`,
 * `capabilities`, `adapter`, `imatrix`, `mmproj`, `control_vector`): a card for each kind's
 * figures, then what the model can do.
 * @param {Record<string, any>} d
 * @param {{card: Function, row: Function, field: Function}} ui
 */
export function descriptionCards(d, ui) {
  const cards = [];
  if (d.adapter) cards.push(adapterCard(d.adapter, ui));
  if (d.imatrix) cards.push(imatrixCard(d.imatrix, ui));
  if (d.mmproj) {
    if (d.mmproj.vision) cards.push(encoderCard('Vision encoder', 'mmproj.vision', d.mmproj.vision, d.mmproj, ui));
    if (d.mmproj.audio) cards.push(encoderCard('Audio encoder', 'mmproj.audio', d.mmproj.audio, d.mmproj, ui));
  }
  if (d.control_vector) cards.push(controlVectorCard(d.control_vector, ui));
  if (d.kind !== 'imatrix' && d.kind !== 'control-vector') cards.push(capabilitiesCard(d.capabilities, ui));
  return cards;
}

/**
 * The card of what the file is, in words, drawn with the summary's helpers; none for a model.
 * @param {import('./web/protocol.js').Report} r
 * @param {{card: Function, row: Function, field: Function}} ui
 */
export function kindCard(r, { card, field }) {
  if (!(r.kind in KINDS)) return null;
  const [title, about] = KINDS[r.kind];
  return card('What this file is', { dataset: { field: 'kind-card' } }, [
    field('kind', r.kind, title, 'div', { class: 'big' }),
    h('p', { class: 'card-note' }, about),
  ]);
}

function adapterCard(a, { card, row, field }) {
  const rank = a.rank ?? (a.ranks.length ? a.ranks.join(', ') : null);
  const base = a.base_models.map((b) =>
    [b.name ?? '—', b.organization && ` (${b.organization})`, b.repo_url && ` ${b.repo_url}`].filter(Boolean).join(''),
  );
  return card(
    'Adapter',
    { dataset: { field: 'adapter' } },
    field('adapter.rank', a.rank, `rank ${orDash(rank)} · alpha ${orDash(a.alpha, float32)}`, 'div', {
      class: 'big',
    }),
    row('Type', 'adapter.type', a.type, a.type === 'lora' ? 'LoRA' : orDash(a.type)),
    row('Rank', 'adapter.ranks', a.rank, orDash(rank)),
    row('Alpha', 'adapter.alpha', a.alpha, orDash(a.alpha, float32)),
    row(
      'Scale',
      'adapter.scale',
      a.scale,
      a.scale === null
        ? 'per pair (the ranks differ)'
        : `${float32(a.scale)} (alpha ÷ rank: how strongly it changes the model)`,
    ),
    row(
      'Changes',
      'adapter.targets',
      a.targets.join(' '),
      `${a.targets.join(', ') || '—'} in ${grouped(a.layers)} layer${a.layers === 1 ? '' : 's'} (${grouped(a.pairs)} pairs)`,
    ),
    row('Base model', 'adapter.base_models', base[0] ?? null, base.length ? base.join('; ') : 'not named'),
    a.task_name !== null && row('Task', 'adapter.task_name', a.task_name, a.task_name),
    a.invocation_tokens !== null &&
      row(
        'Switched on by',
        'adapter.invocation_tokens',
        a.invocation_tokens,
        `${grouped(a.invocation_tokens)} tokens (aLoRA)`,
      ),
  );
}

function imatrixCard(m, { card, row, field }) {
  const tokens = m.chunk_count !== null && m.chunk_size !== null ? Number(m.chunk_count) * Number(m.chunk_size) : null;
  return card(
    'Importance matrix',
    { dataset: { field: 'imatrix' } },
    field('imatrix.entries', m.entries, `${grouped(m.entries)} weight matrices`, 'div', { class: 'big' }),
    row('Computed on', 'imatrix.datasets', m.datasets.join(' '), m.datasets.length ? m.datasets.join(', ') : '—'),
    row(
      'Chunks',
      'imatrix.chunk_count',
      m.chunk_count,
      `${orDash(m.chunk_count, grouped)} of ${orDash(m.chunk_size, grouped)} tokens${tokens === null ? '' : ` (${grouped(tokens)} tokens)`}`,
    ),
  );
}

/** A projector's image or audio encoder: what it takes in, its size, what it hands the model. */
function encoderCard(title, name, e, p, { card, row, field }) {
  const input =
    e.image_size !== null
      ? `${grouped(e.image_size)} px images, ${orDash(e.patch_size, grouped)} px patches`
      : e.num_mel_bins !== null
        ? `${grouped(e.num_mel_bins)} mel bins`
        : `${orDash(e.block_count, grouped)} layers`;
  return card(
    title,
    { dataset: { field: name } },
    field(`${name}.input`, e.image_size ?? e.num_mel_bins, input, 'div', { class: 'big' }),
    row(
      'Projector',
      `${name}.projector_type`,
      e.projector_type ?? p.projector_type,
      orDash(e.projector_type ?? p.projector_type),
    ),
    row('Layers', `${name}.block_count`, e.block_count),
    row('Width', `${name}.embedding_length`, e.embedding_length),
    row('Heads', `${name}.head_count`, e.head_count),
    row('Feed-forward length', `${name}.feed_forward_length`, e.feed_forward_length),
    row(
      'Hands the model',
      `${name}.projection_dim`,
      e.projection_dim,
      orDash(e.projection_dim, (n) => `width ${grouped(n)}`),
    ),
  );
}

function controlVectorCard(c, { card, row, field }) {
  return card(
    'Control vector',
    { dataset: { field: 'control_vector' } },
    field('control_vector.layer_count', c.layer_count, `${orDash(c.layer_count, grouped)} layers`, 'div', {
      class: 'big',
    }),
    row('Made for', 'control_vector.model_hint', c.model_hint, orDash(c.model_hint)),
    row('Directions', 'control_vector.directions', c.directions),
  );
}

/** What the model can do, each with what in the file says so. */
function capabilitiesCard(capabilities, { card, field }) {
  const names = capabilities.map((c) => c.name);
  return card('What it can do', { dataset: { field: 'capabilities', value: names.join(' ') } }, [
    field(
      'capabilities.names',
      names.join(' '),
      names.length ? names.map((n) => CAPABILITIES[n] ?? n).join(' · ') : 'Nothing the header tells of',
      'div',
      { class: 'big' },
    ),
    names.length > 0 &&
      h(
        'ul',
        { class: 'capabilities' },
        capabilities.map((c) =>
          h(
            'li',
            { dataset: { capability: c.name } },
            h('strong', {}, CAPABILITIES[c.name] ?? c.name),
            `: ${c.evidence} `,
            h('code', { class: 'muted' }, c.source),
          ),
        ),
      ),
  ]);
}
