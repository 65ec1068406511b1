// The Tokenize panel: text typed or pasted is tokenized as llama.cpp does it, live, by the open
// model's tokenizer in the worker (the tokenizer module, fetched and the tokenizer built when the
// text box is first focused, so that the first keystroke rarely waits for it), and
// drawn as coloured pieces with their ids and a count; "Parse special tokens" and "Add special
// tokens" are llama-tokenize's defaults, off as `--no-parse-special` and `--no-bos`; the ids copy
// as JSON. Pieces are shown in their visible form (the worker's, as the token browser shows
// token text), through textContent only.

import { h, replaceChildren } from './dom.js';
import { counted, grouped } from './format.js';
import { tokenText } from './tokenizer-view.js';

/** Pieces drawn at most: the count and the copied ids are of all of them. */
export const MAX_PIECES = 5000;
/** Tones the pieces cycle through (the CSS's `.tok-piece.tone-N`). */
const TONES = 6;

/**
 * The first {@link MAX_PIECES} tokens of `result` (`Tokens` with `shown`) as pieces, coloured in
 * turn, each with its id; those whose id is in `special` marked as special tokens.
 * @param {{ids: number[], shown: string[]}} result
 * @param {Set<number>} [special]
 */
export function tokenPieces(result, special = new Set()) {
  return result.shown.slice(0, MAX_PIECES).map((visible, i) => {
    const id = result.ids[i];
    const isSpecial = special.has(id);
    return h(
      'span',
      {
        class: `tok-piece tone-${i % TONES}${isSpecial ? ' tok-special' : ''}`,
        dataset: { id },
        title: isSpecial ? `special token ${id}` : `token ${id}`,
      },
      tokenText(visible),
      h('span', { class: 'tok-piece-id' }, String(id)),
    );
  });
}

/**
 * Fills `container` with the Tokenize panel of a model whose tokenizer report is `tokenizer`.
 * @param {HTMLElement} container
 * @param {import('./web/report.js').TokenizerReport} tokenizer
 * @param {(text: string, options: {parseSpecial: boolean, addSpecial: boolean}) => Promise<{ids: number[], count: number, shown: string[]}>} tokenize
 */
export function renderTokenize(container, tokenizer, tokenize) {
  if (tokenizer.vocab_size === 0 || tokenizer.model === null) {
    replaceChildren(container, h('p', { class: 'note' }, 'This file has no tokenizer to tokenize with.'));
    return;
  }
  const input = h('textarea', {
    class: 'tokenize-input',
    rows: 4,
    spellcheck: 'false',
    placeholder: 'Type or paste text to see its tokens',
    'aria-label': 'Text to tokenize',
  });
  const parseSpecial = h('input', { type: 'checkbox', class: 'tokenize-parse-special', checked: true });
  const addSpecial = h('input', { type: 'checkbox', class: 'tokenize-add-special', checked: true });
  const count = h('output', { class: 'tokenize-count', dataset: { field: 'tokenize.count', value: 0 } }, '0 tokens');
  const status = h('span', { class: 'muted tokenize-status', 'aria-live': 'polite' });
  const copy = h('button', { type: 'button', class: 'button small tokenize-copy', disabled: true }, 'Copy ids as JSON');
  const pieces = h('div', { class: 'tokenize-pieces', role: 'group', 'aria-label': 'Tokens' });
  let ids = [];

  // One tokenization at a time: keystrokes while it runs are tokenized together after it.
  let running = false;
  let again = false;
  async function update() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const text = input.value;
        const options = { parseSpecial: parseSpecial.checked, addSpecial: addSpecial.checked };
        let result;
        try {
          result = await tokenize(text, options);
        } catch (e) {
          if (!again) status.textContent = `Cannot tokenize: ${e?.message ?? String(e)}`;
          continue;
        }
        if (!again) show(result); // else a later text's tokens follow
      } while (again);
    } finally {
      running = false;
    }
  }

  function show(result) {
    ids = result.ids;
    count.textContent = counted(result.count, 'token');
    count.dataset.value = String(result.count);
    copy.disabled = result.count === 0;
    status.textContent = result.count > MAX_PIECES ? `The first ${grouped(MAX_PIECES)} are shown.` : '';
    replaceChildren(pieces, tokenPieces(result));
  }

  // Getting ready while the first characters are typed: the module fetched, the tokenizer built
  // (a 262,144-token vocabulary's takes tens of milliseconds). A failure is said on the first
  // keystroke.
  input.addEventListener('focus', () => tokenize('', { parseSpecial: true, addSpecial: false }).catch(() => {}), {
    once: true,
  });
  input.addEventListener('input', update);
  parseSpecial.addEventListener('change', update);
  addSpecial.addEventListener('change', update);
  copy.addEventListener('click', () =>
    navigator.clipboard.writeText(JSON.stringify(ids)).then(
      () => (status.textContent = `Copied ${counted(ids.length, 'id')}.`),
      () => (status.textContent = 'Could not copy: the browser refused the clipboard.'),
    ),
  );
  // Nothing is fetched before the text box is focused.
  replaceChildren(
    container,
    input,
    h(
      'div',
      { class: 'token-controls tokenize-controls' },
      h('label', {}, parseSpecial, ' Parse special tokens'),
      h('label', {}, addSpecial, ' Add special tokens'),
      count,
      copy,
      status,
    ),
    pieces,
  );
}
