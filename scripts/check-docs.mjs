#!/usr/bin/env node
// Checks the Markdown documentation: every relative link in the repository's top-level *.md
// files, docs/*.md and web/npm-readme.md resolves to a file (and, with `#anchor`, to a heading or
// an `id` in it, as GitHub names them); the top-level README stays a newcomer's page (at most
// 10,240 bytes) and no file in docs/ — the screenshot included — exceeds 30,000 bytes; no absolute path
// of a machine (`/work/`, `/home/`, `/root/`, `/tmp/`) appears. Run by scripts/test.sh's docs step:
//
//   node scripts/check-docs.mjs

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../', import.meta.url));

const README_MAX = 10_240;
const DOC_MAX = 30_000;

/** The Markdown files checked, relative to the repository. */
export function markdownFiles() {
  const top = readdirSync(repo).filter((f) => f.endsWith('.md'));
  const docs = readdirSync(path.join(repo, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return [...top, ...docs, 'web/npm-readme.md'];
}

/** Markdown without its fenced code blocks and inline code, where links are not links. */
function prose(text) {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading's text. */
export function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown file offers: its headings' (numbered as GitHub numbers repeats) and explicit ids. */
export function anchors(text) {
  const seen = new Map();
  const out = new Set();
  const code = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm;
  for (const [, title] of text.replace(code, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(title);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  for (const [, id] of text.matchAll(/\bid="([^"]+)"/g)) out.add(id);
  return out;
}

/** The problems of the documentation: one line each. */
export function problems() {
  const found = [];
  for (const file of readdirSync(path.join(repo, 'docs'))) {
    const size = statSync(path.join(repo, 'docs', file)).size;
    if (size > DOC_MAX) found.push(`docs/${file}: ${size} bytes, over ${DOC_MAX}`);
  }
  for (const file of markdownFiles()) {
    const full = path.join(repo, file);
    const text = readFileSync(full, 'utf8');
    const size = statSync(full).size;
    if (file === 'README.md' && size > README_MAX) found.push(`${file}: ${size} bytes, over ${README_MAX}`);
    for (const [machine] of text.matchAll(/(?<![\w.~-])\/(?:work|home|root|tmp)\/[^\s)`'"]*/g))
      found.push(`${file}: a machine's path, ${machine}`);
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not a file of ours
      const [where, anchor] = target.split('#');
      const linked = where ? path.resolve(path.dirname(full), decodeURIComponent(where)) : full;
      if (!linked.startsWith(repo)) {
        found.push(`${file}: ${target} leads out of the repository`);
        continue;
      }
      if (!existsSync(linked)) {
        found.push(`${file}: ${target}: no such file`);
        continue;
      }
      if (anchor && linked.endsWith('.md') && !anchors(readFileSync(linked, 'utf8')).has(anchor)) {
        found.push(`${file}: ${target}: no heading #${anchor} in ${path.relative(repo, linked)}`);
      }
    }
  }
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const found = problems();
  for (const line of found) console.error(line);
  if (found.length) process.exit(1);
  console.log(`docs: ${markdownFiles().length} files, every link resolves`);
}
