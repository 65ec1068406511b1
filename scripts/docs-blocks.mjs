#!/usr/bin/env node
// Generated blocks in the docs: text between `<!-- BEGIN NAME -->` and `<!-- END NAME -->` that a
// program writes, so that a fact lives in one file and the docs show it without a copy to keep.
//
//   csp:NAME      a policy of www/csp.json (scripts/csp.mjs), as a code block
//   codes:findings, codes:errors
//                 the finding and error codes of schema/codes.json (written by gguf-core's codes
//                 test from the core's tables), as tables
//   bench:NAME    a benchmark's table, written by that benchmark (`--write-docs`); never here
//
// `node scripts/docs-blocks.mjs` rewrites every block it can make in docs/*.md and
// web/npm-readme.md; `--check` only says which are stale (exit 1). A benchmark writes its own
// block with writeBlock(), or from another language with
// `node scripts/docs-blocks.mjs write FILE NAME < CONTENT`.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { policy } from './csp.mjs';

export const REPO = fileURLToPath(new URL('../', import.meta.url));
export const CODES = path.join(REPO, 'schema/codes.json');

/** The files that hold generated blocks, relative to the repository. */
export function blockFiles() {
  const docs = readdirSync(path.join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return [...docs, 'web/npm-readme.md'];
}

const BLOCK = /<!-- BEGIN ([\w:.-]+) -->\n([\s\S]*?)<!-- END \1 -->/g;

/** `rows` (objects with the same keys) as a Markdown table, the keys as its header. */
export function markdownTable(rows) {
  const columns = Object.keys(rows[0]);
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(columns), line(columns.map(() => '---')), ...rows.map((row) => line(columns.map((c) => row[c])))].join(
    '\n',
  );
}

/** The names of the blocks in `text`, in order. */
export function blockNames(text) {
  return [...text.matchAll(BLOCK)].map((m) => m[1]);
}

/** `text` with block `name`'s content replaced by `content`; throws when `text` has no such block. */
export function replaceBlock(text, name, content) {
  let found = false;
  const body = content.endsWith('\n') ? content : `${content}\n`;
  const out = text.replace(BLOCK, (whole, found_name) => {
    if (found_name !== name) return whole;
    found = true;
    return `<!-- BEGIN ${name} -->\n${body}<!-- END ${name} -->`;
  });
  if (!found) throw new Error(`no block <!-- BEGIN ${name} --> … <!-- END ${name} -->`);
  return out;
}

/** The table of `what` codes of schema/codes.json (`findings` or `errors`). */
function codeTable(what) {
  const codes = JSON.parse(readFileSync(CODES, 'utf8'))[what];
  if (!codes) throw new Error(`${CODES} has no "${what}"`);
  const cell = (text) => text.replaceAll('|', '\\|');
  if (what === 'findings')
    return markdownTable(codes.map((c) => ({ code: `\`${c.code}\``, severity: c.severity, meaning: cell(c.meaning) })));
  return markdownTable(codes.map((c) => ({ code: `\`${c.code}\``, meaning: cell(c.meaning), from: c.from })));
}

/** What block `name` should hold, or null for a block this script does not make (a benchmark's). */
export function generated(name) {
  const [kind, what] = name.split(':');
  if (kind === 'csp') return `\`\`\`\n${policy(what)}\n\`\`\`\n`;
  if (kind === 'codes') return codeTable(what);
  if (kind === 'bench') return null;
  throw new Error(`a generated block of an unknown kind: ${name}`);
}

/** `text` with every block this script makes brought up to date. */
export function regenerate(text) {
  let out = text;
  for (const name of blockNames(text)) {
    const content = generated(name);
    if (content !== null) out = replaceBlock(out, name, content);
  }
  return out;
}

/** Writes `content` into block `name` of `file` (relative to the repository, or absolute). */
export function writeBlock(file, name, content) {
  const target = path.resolve(REPO, file);
  writeFileSync(target, replaceBlock(readFileSync(target, 'utf8'), name, content));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [what, file, name] = process.argv.slice(2);
  if (what === 'write') {
    if (!file || !name) {
      console.error('usage: node scripts/docs-blocks.mjs write FILE NAME < CONTENT');
      process.exit(2);
    }
    writeBlock(file, name, readFileSync(0, 'utf8'));
  } else {
    const check = what === '--check';
    const stale = [];
    for (const file of blockFiles()) {
      const text = readFileSync(path.join(REPO, file), 'utf8');
      const fresh = regenerate(text);
      if (fresh === text) continue;
      stale.push(file);
      if (!check) writeFileSync(path.join(REPO, file), fresh);
    }
    if (check && stale.length) {
      console.error(`stale generated blocks in ${stale.join(', ')}: run node scripts/docs-blocks.mjs`);
      process.exit(1);
    }
    if (!check) console.log(stale.length ? `rewrote ${stale.join(', ')}` : 'every generated block is up to date');
  }
}
