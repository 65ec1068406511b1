// The template view's mark helpers (www/template-marks.js): byte ranges to string ranges and
// pieces cut at them, equal to the obvious per-mark versions (the oracle, kept here) on random
// multi-byte templates, and one pass each on 100,000 marks. Run: node --test web/test/.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { markRanges, splitAt } from '../../www/template-marks.js';

/** The oracle: each offset decoded from the start, each cut and mark looked up among all. */
function naiveRanges(template) {
  const bytes = new TextEncoder().encode(template.text);
  const at = (byte) => new TextDecoder().decode(bytes.subarray(0, byte)).length;
  return template.marks.map((m) => [at(m.start), at(m.end)]);
}
function naiveSplit(pieces, ranges) {
  if (ranges.length === 0) return pieces;
  const cuts = [...new Set(ranges.flat())].sort((a, b) => a - b);
  const out = [];
  let pos = 0;
  for (const piece of pieces) {
    const end = pos + piece.text.length;
    let from = pos;
    for (const cut of [...cuts.filter((c) => c > pos && c < end), end]) {
      if (cut > from)
        out.push({
          text: piece.text.slice(from - pos, cut - pos),
          kind: piece.kind,
          marked: ranges.some(([s, e]) => from >= s && from < e),
        });
      from = cut;
    }
    pos = end;
  }
  return out;
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed) {
  let x = seed;
  return (n) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % n;
  };
}

test('random multi-byte templates: the same ranges and pieces as the oracle', () => {
  const chars = ['a', '{', ' ', '\n', 'é', '中', '😀', '_'];
  for (let seed = 1; seed <= 300; seed++) {
    const r = random(seed);
    const text = Array.from({ length: 1 + r(60) }, () => chars[r(chars.length)]).join('');
    // Marks: ordered, apart, on character boundaries (as the core gives them).
    const boundaries = [0];
    for (const c of text) boundaries.push(boundaries.at(-1) + new TextEncoder().encode(c).length);
    const marks = [];
    for (let i = r(3); i + 1 < boundaries.length; i += 1 + r(4)) {
      const end = Math.min(i + 1 + r(3), boundaries.length - 1);
      marks.push({ start: boundaries[i], end: boundaries[end] });
      i = end;
    }
    const template = { text, marks, invalid_utf8: false };
    const ranges = markRanges(template);
    assert.deepEqual(ranges, naiveRanges(template), `seed ${seed}`);
    const pieces = [];
    for (let at = 0; at < text.length;) {
      const end = Math.min(text.length, at + 1 + r(8));
      pieces.push({ text: text.slice(at, end), kind: r(2) ? 'text' : 'name' });
      at = end;
    }
    assert.deepEqual(splitAt(pieces, ranges), naiveSplit(pieces, ranges), `seed ${seed}`);
  }
});

test('100,000 marks in a 1.8 MB template: one pass', () => {
  const line = '{{ x.__class__ }}\n';
  const text = line.repeat(100_000);
  const marks = Array.from({ length: 100_000 }, (_, i) => ({ start: i * 18 + 5, end: i * 18 + 14, line: i + 1 }));
  const pieces = Array.from({ length: 100_000 }, () => [
    { text: '{{ x.', kind: 'code' },
    { text: '__class__', kind: 'name' },
    { text: ' }}\n', kind: 'code' },
  ]).flat();
  const started = performance.now();
  const split = splitAt(pieces, markRanges({ text, marks, invalid_utf8: false }));
  const marked = split.filter((p) => p.marked);
  assert.equal(marked.length, 100_000);
  assert.ok(marked.every((p) => p.text === '__class__'));
  assert.equal(split.length, 300_000);
  assert.equal(split.map((p) => p.text).join(''), text);
  // A hang guard, not a benchmark: the per-mark versions take minutes here.
  assert.ok(performance.now() - started < 10_000);
});
