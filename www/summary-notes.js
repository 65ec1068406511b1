// The summary cards explained, for someone who has never read the GGUF spec: under each card's
// figure, one plain line saying what it means for this model — and why, where the figures
// surprise (the tensors that pull bits per weight away from the file type's, which the report
// names) — and each term, a card's title or a row's label, a button that opens the glossary's line
// for it (glossary.js) with a link to the glossary page. Applied to the cards summary-view.js drew,
// found by their `data-field` hooks, so a card gains its explanations wherever it is drawn.

import { h } from './dom.js';
import { bytes, count, decimal, grouped } from './format.js';
import { GLOSSARY_PAGE, anchorOf, termOf } from './glossary.js';

/** Term notes made so far: each gets an id of its own for its button's aria-controls. */
let notesMade = 0;

/**
 * Adds the explanations to the cards in `container`, drawn from report (or summary document) `r`.
 * @param {HTMLElement} container
 * @param {import('./web/protocol.js').Report} r
 */
export function explainCards(container, r) {
  for (const card of /** @type {NodeListOf<HTMLElement>} */ (container.querySelectorAll('section.card'))) {
    const big = /** @type {HTMLElement|null} */ (card.querySelector('div.big'));
    const field = big?.dataset.field ?? card.dataset.field;
    const heading = card.querySelector('h2');
    const headingNote = termButton(heading, field);
    if (headingNote) heading.after(headingNote);
    const line = field && CARD_NOTES[field]?.(r);
    if (line) (big ?? headingNote ?? heading).after(h('p', { class: 'card-note', dataset: { note: field } }, line));
    for (const row of card.querySelectorAll('div.row')) {
      const note = termButton(row.querySelector('dt'), row.querySelector('dd')?.dataset.field);
      if (note) row.append(note);
    }
  }
}

/**
 * Makes the text of `label` a button that shows the glossary's line for report field `field`
 * (with a link to its entry on the glossary page), and returns that line's element for the caller
 * to place; null, leaving `label` as it is, when the glossary has no such term.
 */
function termButton(label, field) {
  const term = field && termOf(field);
  if (!label || !term) return null;
  const id = `term-note-${++notesMade}`;
  const note = h(
    label.tagName === 'DT' ? 'dd' : 'p',
    { id, class: 'term-note', hidden: true, dataset: { term: field } },
    term.line,
    ' ',
    h(
      'a',
      { href: `${GLOSSARY_PAGE.href}#${anchorOf(field)}`, target: '_blank', rel: 'noopener' },
      'More in the glossary',
    ),
  );
  const button = h(
    'button',
    {
      type: 'button',
      class: 'term',
      'aria-expanded': 'false',
      'aria-controls': id,
      dataset: { term: field },
      onclick: () => {
        note.hidden = !note.hidden;
        button.setAttribute('aria-expanded', String(!note.hidden));
      },
    },
    ...label.childNodes,
  );
  label.replaceChildren(button);
  return note;
}

/** `72%`: a share as people say it. */
function share(part, total) {
  return `${decimal((100 * Number(part)) / Number(total), 0)}%`;
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items) {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** `count` layers, said as a count of them: "1 layer", "25 layers". */
function layersText(n) {
  return `${grouped(n)} layer${Number(n) === 1 ? '' : 's'}`;
}

/** The line under each card's figure, by the figure's field. */
const CARD_NOTES = {
  architecture: (r) =>
    r.architecture === null
      ? 'The file names no architecture: llama.cpp cannot build a model from it.'
      : 'The network design llama.cpp builds from this file.',
  parameters: (r) =>
    r.tensor_count === 0 || r.parameters === null || Number(r.parameters) === 0
      ? 'This file holds no weights.'
      : `Numbers learned in training${r.bits_per_weight === null ? '' : `: at ${decimal(r.bits_per_weight)} bits each, ${bytes(r.tensor_bytes)}`}.`,
  bits_per_weight: bitsNote,
  'attention.kind': attentionNote,
  experts: (r) => {
    const e = r.experts;
    if (!e) return null; // a dense model's card says so itself
    const used = e.used === null ? 'some' : grouped(e.used);
    const noFigure = r.active_parameters === null || Number(r.active_parameters) === 0 || r.parameters === null;
    return `A router sends each token to ${used} of the ${grouped(e.count)} experts in each layer${noFigure ? '' : `: ${count(r.active_parameters)} of the ${count(r.parameters)} parameters work for each token`}.`;
  },
  context_length: (r) =>
    r.context_length === null
      ? 'The file gives no context length.'
      : `Reads up to ${grouped(r.context_length)} tokens (prompt and reply) at once.`,
  vocab_size: (r) =>
    r.vocab_size === null ? 'The file lists no vocabulary.' : 'The pieces text is cut into before the model reads it.',
  file_size: (r) =>
    r.split
      ? `${grouped(r.split.shards.length)} files together; each starts with a header of its own, then its part of the tensor data.`
      : 'On disk: the header, then the tensor data.',
  'capabilities.names': (d) =>
    d.capabilities.length
      ? 'What llama.cpp can use it for, each with what in the file says so.'
      : 'No chat template, pooling type, fill-in-the-middle tokens or encoder in this file: plain text generation.',
  header_size: (r) =>
    r.split
      ? `The headers of ${grouped(r.split.shards.length)} shards, summed: each shard’s tensor data starts after its own header.`
      : 'Metadata and tensor list: all this page reads.',
};

/**
 * Bits per weight against the file type's own, and why they differ: the report's
 * `dominant_tensors`, the tensors of other types that hold a large share of the bytes.
 */
function bitsNote(r) {
  if (r.bits_per_weight === null)
    return r.tensor_count === 0
      ? 'No tensors: nothing is stored, so nothing is quantized.'
      : 'The tensors’ types are unknown, so their size per weight is too.';
  const bpw = decimal(r.bits_per_weight);
  const ft = r.file_type;
  const recipe =
    ft?.main_type && ft.main_type_bits_per_weight !== null
      ? `Mostly ${ft.main_type} (${decimal(ft.main_type_bits_per_weight)} bits)`
      : null;
  const heavy = r.dominant_tensors ?? [];
  if (heavy.length > 0) {
    const total = heavy.reduce((sum, t) => sum + Number(t.bytes), 0);
    const names =
      heavy.length === 1
        ? `${heavy[0].name} (${heavy[0].type}) is ${share(total, r.tensor_bytes)} of the bytes`
        : `${listed(heavy.map((t) => `${t.name} (${t.type}, ${share(t.bytes, r.tensor_bytes)})`))} are ${share(total, r.tensor_bytes)} of the bytes`;
    return recipe ? `${recipe}; ${bpw} on average because ${names}.` : `The average over every tensor; ${names}.`;
  }
  return recipe ? `${recipe}; with the tensors of other types, ${bpw} on average.` : 'The average over every tensor.';
}

/** What the attention layout means for the KV cache, layer groups included. */
function attentionNote(r) {
  const a = r.attention;
  switch (a.kind) {
    case 'MHA':
      return `Each of the ${grouped(a.heads)} query heads has its own KV head: the largest cache.`;
    case 'GQA':
      return `Every ${grouped(a.group_size)} query heads share one KV head: a ${grouped(a.group_size)}× smaller cache.`;
    case 'MQA':
      return `${grouped(a.heads)} query heads share one KV head: the smallest cache.`;
    case 'MLA':
      return `Keys and values are kept compressed to ${a.kv_lora_rank === null ? 'a small size' : `${grouped(a.kv_lora_rank)} numbers`} per token and layer (latent attention): a small KV cache.`;
    case 'none':
      return 'No attention layers: the model carries a state of fixed size instead of a KV cache.';
    case 'per-layer': {
      const groups = a.layer_groups ?? [];
      if (groups.length === 0) return 'The layers have different head counts.';
      return `The layers differ: ${listed(
        groups.map((g) =>
          Number(g.kv_heads) === 0
            ? `${layersText(g.layers)} without attention`
            : `${layersText(g.layers)} of ${grouped(g.heads)} query and ${grouped(g.kv_heads)} key/value heads`,
        ),
      )}.`;
    }
    default:
      return 'The file does not say how many heads attention has, or says something inconsistent.';
  }
}
