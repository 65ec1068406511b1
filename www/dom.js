// Building DOM nodes from data. Everything a file says is hostile text: it only ever reaches the
// page through `textContent` and attribute values, never through HTML parsing.

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

function build(node, props, children) {
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces all of `node`'s children. */
export function replaceChildren(node, ...children) {
  node.replaceChildren();
  append(node, children);
}
