// scripts/docs-blocks.mjs, which writes the generated blocks of the docs (the policies of
// www/csp.json, the code tables): the committed docs and the npm package's README hold what the
// generator gives, and a block is replaced whole, between its markers only.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

import { CODES, REPO, blockFiles, blockNames, regenerate, replaceBlock } from '../../scripts/docs-blocks.mjs';
import { POLICIES } from '../../scripts/csp.mjs';

test('every generated block in docs/ and web/npm-readme.md is up to date (node scripts/docs-blocks.mjs rewrites them)', () => {
  for (const file of blockFiles()) {
    const text = readFileSync(`${REPO}${file}`, 'utf8');
    assert.equal(regenerate(text), text, file);
  }
});

test('each policy of www/csp.json is shown in the docs, and the embedding one in the npm README', () => {
  const shown = new Set(blockFiles().flatMap((file) => blockNames(readFileSync(`${REPO}${file}`, 'utf8'))));
  for (const name of Object.keys(POLICIES)) assert.ok(shown.has(`csp:${name}`), `csp:${name}`);
  assert.ok(blockNames(readFileSync(`${REPO}web/npm-readme.md`, 'utf8')).includes('csp:embedding'));
});

test('a block is replaced between its markers only; a benchmark block is left to its benchmark', () => {
  const text =
    'a\n<!-- BEGIN csp:page -->\nstale\n<!-- END csp:page -->\nb\n<!-- BEGIN bench:x -->\n| t |\n<!-- END bench:x -->\n';
  assert.equal(
    regenerate(text),
    `a\n<!-- BEGIN csp:page -->\n\`\`\`\n${POLICIES.page}\n\`\`\`\n<!-- END csp:page -->\nb\n<!-- BEGIN bench:x -->\n| t |\n<!-- END bench:x -->\n`,
  );
  assert.equal(replaceBlock(text, 'bench:x', '| new |'), text.replace('| t |', '| new |'));
  assert.throws(() => replaceBlock(text, 'bench:y', ''), /no block <!-- BEGIN bench:y -->/);
  assert.throws(() => regenerate('<!-- BEGIN odd:x -->\n<!-- END odd:x -->'), /unknown kind: odd:x/);
  assert.throws(() => regenerate('<!-- BEGIN csp:nope -->\n<!-- END csp:nope -->'), /has no policy "nope"/);
});

/** The codes that the files of `dir` (relative to the repository) ending in `ext` give, by `patterns`. */
function codesIn(dir, ext, patterns) {
  const found = new Set();
  for (const file of readdirSync(`${REPO}${dir}`).filter((f) => f.endsWith(ext))) {
    const text = readFileSync(`${REPO}${dir}/${file}`, 'utf8');
    for (const pattern of patterns)
      for (const m of text.matchAll(pattern)) for (const code of m.slice(1)) if (code) found.add(code);
  }
  return found;
}

test('every error code the page and the CLI give is listed in schema/codes.json (ErrorDocument::CODES), as theirs', () => {
  const listed = new Map(JSON.parse(readFileSync(CODES, 'utf8')).errors.map((e) => [e.code, e.from]));
  const page = codesIn('web', '.js', [
    /\b(?:new HttpError|parseError|new ParserFailure)\(\s*'([a-z-]+)'/g,
    /\bnew HttpError\([^'`)]*\?\s*'([a-z-]+)'\s*:\s*'([a-z-]+)'/g,
    /\bcode(?::| =| \?\?) '([a-z-]+)'/g,
  ]);
  const cli = codesIn('crates/gguf-cli/src/source', '.rs', [
    /\bHttpError::new\(\s*"([a-z-]+)"/g,
    /=> \("([a-z-]+)", /g,
  ]);
  // The scan must see the codes it is about, or it proves nothing.
  for (const code of ['cors', 'not-loaded', 'crashed', 'read-failed', 'redirect', 'access-denied'])
    assert.ok(page.has(code), `the page's scan finds ${code}`);
  for (const code of ['no-range', 'timeout', 'header-budget', 'not-read', 'not-found'])
    assert.ok(cli.has(code), `the CLI's scan finds ${code}`);
  for (const code of page) assert.match(listed.get(code) ?? 'not listed', /page/, `the page gives ${code}`);
  for (const code of cli) assert.match(listed.get(code) ?? 'not listed', /CLI/, `the CLI gives ${code}`);
});
