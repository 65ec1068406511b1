// Jinja syntax for highlighting: a template cut into pieces that each have a kind. The pieces
// join back into the template exactly; the view builds text nodes and spans from them, so the
// template is never parsed as HTML.

/** Words that start or shape a statement, and the word operators. */
const KEYWORDS = new Set([
  'if', 'elif', 'else', 'endif', 'for', 'endfor', 'in', 'recursive', 'set', 'endset', 'macro', 'endmacro',
  'call', 'endcall', 'filter', 'endfilter', 'with', 'endwith', 'block', 'endblock', 'extends', 'include',
  'import', 'from', 'as', 'break', 'continue', 'do', 'raw', 'endraw', 'autoescape', 'endautoescape',
  'and', 'or', 'not', 'is', 'true', 'false', 'none', 'True', 'False', 'None', 'loop',
]);

/**
 * The pieces of `source`: `{text, kind}` with kind `text` (printed as is), `delimiter`
 * (`{{`, `-%}` and the like), `comment`, `keyword`, `string`, `number`, `name`, `filter` (a name
 * after `|`) or `operator`; whitespace inside code is `space`.
 * @param {string} source
 * @returns {{text: string, kind: string}[]}
 */
export function jinjaPieces(source) {
  const pieces = [];
  const push = (text, kind) => text && pieces.push({ text, kind });
  let i = 0;
  while (i < source.length) {
    const open = nextOpening(source, i);
    if (open === -1) {
      push(source.slice(i), 'text');
      break;
    }
    push(source.slice(i, open), 'text');
    if (source[open + 1] === '#') {
      const close = source.indexOf('#}', open + 2);
      const end = close === -1 ? source.length : close + 2;
      push(source.slice(open, end), 'comment');
      i = end;
    } else {
      i = code(source, open, push);
    }
  }
  return pieces;
}

function nextOpening(source, from) {
  const found = /\{[{%#]/.exec(source.slice(from));
  return found ? from + found.index : -1;
}

/** Lexes the block opening at `open` (`{{` or `{%`) into `push`; returns where it ends. */
function code(source, open, push) {
  const closing = source[open + 1] === '{' ? '}}' : '%}';
  let i = open + 2 + (/[-+]/.test(source[open + 2] ?? '') ? 1 : 0);
  push(source.slice(open, i), 'delimiter');
  let depth = 0;
  let first = closing === '%}';
  let afterPipe = false;
  while (i < source.length) {
    const rest = source.slice(i);
    const close = /^[-+]?([}%])\}/.exec(rest);
    if (close && depth === 0 && `${close[1]}}` === closing) {
      push(close[0], 'delimiter');
      return i + close[0].length;
    }
    const c = source[i];
    let match;
    if ((match = /^\s+/.exec(rest))) {
      push(match[0], 'space');
    } else if (c === '"' || c === "'") {
      match = [stringAt(source, i)];
      push(match[0], 'string');
    } else if ((match = /^\d[\d_]*(\.\d+)?([eE][-+]?\d+)?/.exec(rest))) {
      push(match[0], 'number');
    } else if ((match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest))) {
      const word = match[0];
      push(word, first || KEYWORDS.has(word) ? 'keyword' : afterPipe ? 'filter' : 'name');
    } else {
      match = [c];
      if ('([{'.includes(c)) depth += 1;
      else if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
      push(c, 'operator');
    }
    if (!/^\s/.test(match[0])) {
      afterPipe = match[0] === '|';
      first = false;
    }
    i += match[0].length;
  }
  return i;
}

/** The string literal starting at `open`, quotes included (to the end of the source if unclosed). */
function stringAt(source, open) {
  const quote = source[open];
  let i = open + 1;
  while (i < source.length && source[i] !== quote) i += source[i] === '\\' ? 2 : 1;
  return source.slice(open, Math.min(i + 1, source.length));
}
