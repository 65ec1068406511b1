// The tokenizer panel: what the tokenizer is (model, vocabulary, token types, merges, flags), its
// special tokens with their text, and a browser of every token. Searching and paging happen in
// the worker: only the rows in view cross to the page.

import { h, replaceChildren } from './dom.js';
import { float32, grouped } from './format.js';
import { VirtualList } from './virtual-list.js';

/** Pixels per token row (the CSS's `.tokens .vlist-row` height). */
const ROW_HEIGHT = 26;
/** Rows fetched with a search's answer: a screenful and some. */
const FIRST_ROWS = 60;

/** `types` fields of the tokenizer report, as named on the page. */
const TYPE_NAMES = [
  ['normal', 'normal'],
  ['control', 'control'],
  ['user_defined', 'user-defined'],
  ['byte', 'byte'],
  ['unknown', 'unknown'],
  ['unused', 'unused'],
  ['undefined', 'undefined'],
  ['other', 'other'],
  ['untyped', 'without a type'],
];

/** The escapes of a token's visible form: `\\`, `\n`, `\t`, `\r`, `\xNN`, `\u{N…}`. */
const ESCAPE = /\\(?:[\\ntr]|x[0-9A-F]{2}|u\{[0-9A-F]+\})/g;

/** A token's text in its visible form (gguf_core::tokenizer::visible), escapes set apart. */
export function tokenText(visible) {
  const parts = [];
  let at = 0;
  for (const m of visible.matchAll(ESCAPE)) {
    parts.push(visible.slice(at, m.index), h('span', { class: 'esc' }, m[0]));
    at = m.index + m[0].length;
  }
  parts.push(visible.slice(at));
  return h('code', { class: 'token-text' }, parts);
}

function fact(label, field, value, shown = value) {
  return h(
    'div',
    { class: 'row' },
    h('dt', {}, label),
    h('dd', { dataset: { field, value: value ?? '' } }, shown ?? '—'),
  );
}

/**
 * Fills `container` with the tokenizer panel.
 * @param {HTMLElement} container
 * @param {import('./web/report.js').TokenizerReport} tokenizer  The worker's tokenizer report (`ggufscope tokens --json`).
 * @param {(query: string, start: number, count: number, exactCase: boolean) => Promise<{total: number, tokens: object[]}>} tokens
 */
export function renderTokenizer(container, tokenizer, tokens) {
  const vocab = tokenizer.vocab_size;
  if (vocab === 0) {
    replaceChildren(container, h('p', { class: 'note' }, 'This file lists no tokens.'));
    return;
  }
  const types = TYPE_NAMES.filter(([key]) => tokenizer.types[key] > 0).map(([key, name]) =>
    h(
      'span',
      { class: 'type-count', dataset: { field: `tokens.type.${key}`, value: tokenizer.types[key] } },
      h('span', { class: `tok-type type-${key.replace('_', '-')}` }, name),
      ` ${grouped(tokenizer.types[key])}`,
    ),
  );
  const flags = Object.entries(tokenizer.flags).map(([name, on]) =>
    h(
      'span',
      { class: `flag ${on ? 'on' : 'off'}`, dataset: { field: `tokens.flag.${name}`, value: on } },
      `${name} ${on ? '✓' : '✗'}`,
    ),
  );
  const facts = h(
    'dl',
    { class: 'facts' },
    fact('Model', 'tokens.model', tokenizer.model),
    fact('Pre-tokenizer', 'tokens.pre', tokenizer.pre),
    fact('Vocabulary', 'tokens.vocab_size', vocab, `${grouped(vocab)} tokens`),
    fact('Merges', 'tokens.merges', tokenizer.merges, tokenizer.merges === null ? null : grouped(tokenizer.merges)),
    fact('Scores', 'tokens.scores', tokenizer.scores, tokenizer.scores ? 'yes' : 'no'),
  );

  const browser = tokenBrowser(vocab, tokens);
  const specials = tokenizer.special.map((s) =>
    h(
      'tr',
      { dataset: { role: s.role } },
      h('td', {}, s.role),
      h(
        'td',
        { class: 'num', dataset: { label: 'Id' } },
        h(
          'button',
          { type: 'button', class: 'link', title: 'Show in the token list', onclick: () => browser.reveal(s.id) },
          String(s.id),
        ),
      ),
      h(
        'td',
        { class: 'wide' },
        s.visible === null ? h('span', { class: 'error-text' }, 'outside the vocabulary') : tokenText(s.visible),
      ),
      h('td', { class: 'muted key wide' }, h('code', {}, s.key)),
    ),
  );
  replaceChildren(
    container,
    h(
      'div',
      { class: 'tokenizer-head' },
      facts,
      h(
        'div',
        {},
        h('h3', {}, 'Token types'),
        h('div', { class: 'type-counts' }, types),
        flags.length > 0 && [h('h3', {}, 'Flags'), h('div', { class: 'flags' }, flags)],
      ),
    ),
    h('h3', {}, 'Special tokens'),
    specials.length === 0
      ? h('p', { class: 'note' }, 'The file names no special tokens.')
      : h(
          'table',
          { class: 'data specials stacked' },
          h(
            'thead',
            {},
            h('tr', {}, h('th', {}, 'Role'), h('th', { class: 'num' }, 'Id'), h('th', {}, 'Text'), h('th', {}, 'Key')),
          ),
          h('tbody', {}, specials),
        ),
    h('h3', {}, 'Tokens'),
    browser.element,
  );
}

/**
 * The searchable list of every token, with what each stands for beside its text. A search
 * matches a token's stored text and the text it stands for (`Ġthe` and `▁the` are " the", `Ċ`
 * and `<0x0A>` a newline), any case unless "Match case".
 */
function tokenBrowser(vocab, tokens) {
  let query = '';
  let exactCase = false;
  let asked = 0; // searches sent; only the latest one's answer is shown
  const list = new VirtualList({
    rowHeight: ROW_HEIGHT,
    renderRow: tokenRow,
    loadPage: (start, count) => tokens(query, start, count, exactCase).then((page) => page.tokens),
  });
  const status = h('span', { class: 'muted token-status', 'aria-live': 'polite' });
  const search = h('input', {
    type: 'search',
    class: 'token-search',
    placeholder: 'Search tokens (\\n: newline)',
    'aria-label': 'Search tokens',
  });
  const matchCase = h('input', { type: 'checkbox', class: 'token-case' });
  const id = h('input', {
    type: 'number',
    class: 'token-id',
    min: 0,
    max: vocab - 1,
    placeholder: 'id',
    'aria-label': 'Token id',
  });
  const go = h('button', { type: 'button', class: 'button small' }, 'Go to id');

  async function show(text, caseMatters) {
    const ticket = ++asked;
    const page = await tokens(text, 0, FIRST_ROWS, caseMatters).catch((e) => ({ error: e }));
    if (ticket !== asked) return; // a later keystroke's answer follows
    if (page.error) {
      status.textContent = page.error.message ?? String(page.error);
      return;
    }
    query = text;
    exactCase = caseMatters;
    list.reset(page.total, page.tokens);
    status.textContent = searchStatus(text, caseMatters, page.total, vocab);
    list.element.dataset.query = text;
    list.element.dataset.exactCase = caseMatters;
    list.element.dataset.total = page.total;
  }

  async function reveal(tokenId) {
    if (!(Number.isInteger(tokenId) && tokenId >= 0 && tokenId < vocab)) {
      status.textContent = `There is no token ${Number.isFinite(tokenId) ? grouped(tokenId) : 'with that id'}: ids run from 0 to ${grouped(vocab - 1)}.`;
      return;
    }
    if (query !== '') {
      search.value = '';
      await show('', exactCase);
    }
    list.reveal(tokenId);
  }

  search.addEventListener('input', () => show(search.value, matchCase.checked));
  matchCase.addEventListener('change', () => show(search.value, matchCase.checked));
  go.addEventListener('click', () => reveal(id.value === '' ? NaN : Number(id.value)));
  id.addEventListener('keydown', (e) => e.key === 'Enter' && go.click());
  list.reset(vocab);
  status.textContent = `${grouped(vocab)} tokens`;
  list.element.dataset.query = '';
  list.element.dataset.total = vocab;
  // The list (role=table) names its columns in its label; this visual header is outside it.
  list.element.setAttribute('aria-label', 'Tokens: id, text, what it stands for, type, score');
  const head = h(
    'div',
    { class: 'vlist-head', 'aria-hidden': 'true' },
    h('span', { class: 'tok-id' }, 'Id'),
    h('span', { class: 'token-text' }, 'Text'),
    h('span', { class: 'token-text token-decoded' }, 'Stands for'),
    h('span', { class: 'tok-type' }, 'Type'),
    h('span', { class: 'tok-score' }, 'Score'),
  );
  return {
    element: h(
      'div',
      { class: 'tokens' },
      h(
        'div',
        { class: 'token-controls' },
        search,
        h('label', { class: 'token-case-label' }, matchCase, ' Match case'),
        status,
        h('span', { class: 'token-jump' }, id, go),
      ),
      head,
      list.element,
    ),
    reveal,
  };
}

/** What a search found, in words: how many tokens, or that none did. */
export function searchStatus(text, exactCase, total, vocab) {
  if (text === '') return `${grouped(vocab)} tokens`;
  const how = exactCase ? 'in this case' : 'in any case';
  if (total === 0) return `No token contains this text ${how}, stored or decoded.`;
  const verb = total === 1 ? 'contains' : 'contain';
  return `${grouped(total)} of ${grouped(vocab)} tokens ${verb} this text ${how}, stored or decoded; best matches first`;
}

/**
 * What a token stands for (`Ġhello` and `▁hello` are ` hello`, `<0x0A>` a newline: the worker's
 * `decoded`, in the same visible form), or an empty cell when that is its text.
 */
function decodedText(token) {
  if (token.decoded === null || token.decoded === undefined) return h('span', { class: 'token-decoded' });
  const text = tokenText(token.decoded);
  text.classList.add('token-decoded');
  return text;
}

function tokenRow(token) {
  const row = h(
    'div',
    { class: 'vlist-row', role: 'row', dataset: { id: token.id } },
    h('span', { class: 'tok-id' }, String(token.id)),
    tokenText(token.text),
    decodedText(token),
    h('span', { class: `tok-type type-${token.type ?? 'none'}` }, token.type ?? ''),
    h('span', { class: 'tok-score' }, token.score === null ? '' : float32(token.score)),
  );
  for (const cell of row.children) cell.setAttribute('role', 'cell');
  return row;
}
