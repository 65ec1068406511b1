// Building DOM nodes from data. Everything a file says is hostile text: it only ever reaches the
// page through `textContent` and attribute values, never through HTML parsing — and, since a
// right-to-left override can make `FUGG.exe` read as `exe.GGUF` and a zero-width space can hide
// in a key, every string put in the page by these helpers shows those characters as escapes.

/**
 * `h('td', {class: 'num', dataset: {field: 'x'}}, 'text', node, ...)`: an element with the given
 * properties (`class`, `dataset`, `title`, any other as an attribute; `on*` functions as listeners)
 * and children (strings become text nodes; null and false are skipped).
 */
export function h(tag, props = {}, ...children) {
  return build(document.createElement(tag), props, children);
}

/** The same for an SVG element, for the charts: `svg('rect', {x: 0, width: 10, class: 'tone-1'})`. */
export function svg(tag, props = {}, ...children) {
  return build(document.createElementNS('http://www.w3.org/2000/svg', tag), props, children);
}

/** Attributes people read (a tooltip, a screen reader's label): shown with `escaped` too. */
const READ_ATTRIBUTES = new Set(['title', 'aria-label']);

function build(node, props, children) {
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
    else
      node.setAttribute(name, value === true ? '' : READ_ATTRIBUTES.has(name) ? escaped(String(value)) : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    if (child instanceof Node) node.append(child);
    else appendText(node, String(child));
  }
}

/**
 * Characters that hide or reorder text, as the CLI's `Escaped` (crates/gguf-core/src/text.rs)
 * defines them: control characters but line feed and tab (templates and descriptions keep their
 * lines), the bidirectional controls and the zero-width and invisible format characters.
 */
const HIDDEN = /[\0-\x08\x0B-\x1F\x7F-\x9F\xAD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/** `\x1B` below U+0080, `\u{202E}` above: the CLI's spelling. */
function escapeOf(c) {
  const code = c.codePointAt(0);
  return code < 0x80
    ? `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`
    : `\\u{${code.toString(16).toUpperCase()}}`;
}

/** `text` with its hidden characters written as escapes, for an attribute or a plain string. */
export function escaped(text) {
  return text.replace(HIDDEN, escapeOf);
}

/** The same class, to test for one (a test with `HIDDEN` would move its `lastIndex`). */
const ANY_HIDDEN = new RegExp(HIDDEN.source);

/** Appends `text` as text nodes, each hidden character as a visible escape in `<span class="esc">`. */
function appendText(node, text) {
  if (!ANY_HIDDEN.test(text)) {
    node.append(document.createTextNode(text));
    return;
  }
  let at = 0;
  for (const m of text.matchAll(HIDDEN)) {
    if (m.index > at) node.append(document.createTextNode(text.slice(at, m.index)));
    node.append(
      build(
        document.createElement('span'),
        { class: 'esc', title: `U+${m[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}` },
        [escapeOf(m[0])],
      ),
    );
    at = m.index + m[0].length;
  }
  if (at < text.length) node.append(document.createTextNode(text.slice(at)));
}

/** Replaces all of `node`'s children. */
export function replaceChildren(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

/**
 * The most characters of a name, key or value shown in a line. File text can be one unbroken
 * string as long as the file (a 100,000-byte tensor name); the CLI and the report cut theirs at
 * 200 bytes (gguf-core's `EXCERPT_MAX`).
 */
export const SHOWN_MAX = 200;

/** Characters (code points) in `text`. */
function characters(text) {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** `text`, or past SHOWN_MAX characters its start and its length: `AAAA… (100,000 characters)`. */
export function shortened(text) {
  if (text.length <= SHOWN_MAX) return text;
  const head = text.slice(0, SHOWN_MAX - (/[\uD800-\uDBFF]/.test(text[SHOWN_MAX - 1]) ? 1 : 0));
  return `${head}… (${characters(text).toLocaleString('en-US')} characters)`;
}

/**
 * A name or key in `<code>`: whole when short; past SHOWN_MAX characters cut, with its length, and
 * the whole text a click away (a `<details>`), so one name neither widens nor lengthens the page.
 */
export function nameCode(text, props = {}) {
  if (text.length <= SHOWN_MAX) return h('code', props, text);
  return h(
    'details',
    { class: 'long-text' },
    h('summary', {}, h('code', props, shortened(text))),
    h('code', { class: 'whole' }, text),
  );
}
