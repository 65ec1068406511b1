#!/usr/bin/env node
// Gives every file a built site loads after its page — the worker, each wasm module, a module the
// page imports on demand (`import()`) and what that one imports — a name with a hash of its
// content (`gguf-worker.js` → `gguf-worker.0123456789ab.js`), and rewrites the names in the files
// that load them: `node scripts/version-lazy-files.mjs DIR`. A tab left open across a deploy
// then asks for its own build's files by name, which the service worker keeps while such a tab is
// open (www/sw.js) — and which a server that removed them answers 404, which the page reports as
// an update to reload into — never for the new build's under the old name. The hash covers the
// names a file loads, so a change anywhere below a file renames it too.
//
// What keeps its name: the pages (*.html), what they load as they load (their scripts, styles and
// those scripts' static imports: fetched together with the page), the service worker and every
// file that is not a script or a wasm module. Run by scripts/build-web.sh on dist/ after the npm
// package was laid out (the package keeps the plain names: a bundler versions an app's files
// itself), before the service worker is stamped; running it again on a changed copy (the update
// tests) names the changed files anew.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A versioned name: the hash, 12 hex digits, before the extension. */
export const VERSIONED = /\.[0-9a-f]{12}(\.(?:js|wasm))$/;

/** What may be versioned: scripts and wasm modules, never the service worker (its URL is its identity). */
const VERSIONABLE = /\.(js|wasm)$/;
const SERVICE_WORKER = 'sw.js';

/**
 * The names a script gives, each `{kind, at, length, spec}` (`at`/`length`: the specifier's place
 * in the text): static imports and re-exports (`static`), `import()` and `new URL(…,
 * import.meta.url)` (`lazy`). Source or minified, single or double quotes.
 */
const REFERENCES = [
  ['static', /(\bfrom\s*)(['"])([^'"\n]+)\2/g],
  ['static', /(\bimport\s*)(['"])([^'"\n]+)\2/g],
  // Not a type in a doc comment (`import('./x.js').Name`), which loads nothing.
  ['lazy', /(\bimport\(\s*)(['"])([^'"\n]+)\2(?!\s*,?\s*\)\s*\.(?!then\b|catch\b|finally\b)[\w$])/g],
  ['lazy', /(\bnew URL\(\s*)(['"])([^'"\n]+)\2(?=\s*,\s*import\.meta\.url)/g],
];

/** `{kind, at, length, target}` for each name in `text` (of `file`) that is a file of `files`. */
function references(file, text, files) {
  const found = [];
  for (const [kind, pattern] of REFERENCES) {
    for (const m of text.matchAll(pattern)) {
      const spec = m[3];
      if (/^[a-z][a-z0-9+.-]*:/i.test(spec) || spec.startsWith('/')) continue; // a URL, a path from the root: not a file named relatively
      // A module is named with ./ or ../ (else it is a package's); `new URL` may name one plainly.
      if (!m[1].startsWith('new URL') && !/^\.\.?\//.test(spec)) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec.split(/[?#]/)[0]));
      if (files.has(target)) found.push({ kind, at: m.index + m[1].length + 1, length: spec.length, spec, target });
    }
  }
  return found.sort((a, b) => a.at - b.at);
}

/** `text` with each reference's file name replaced by `names.get(target)`, where it has one. */
function rewrite(text, refs, names) {
  let out = '';
  let from = 0;
  for (const ref of refs) {
    const name = names.get(ref.target);
    if (name === undefined || ref.at < from) continue;
    const spec = ref.spec.replace(/[^/?#]+(?=([?#].*)?$)/, path.posix.basename(name));
    out += text.slice(from, ref.at) + spec;
    from = ref.at + ref.length;
  }
  return out + text.slice(from);
}

/** The files of `dir`, relative and `/`-separated. */
function filesOf(dir) {
  return readdirSync(dir, { recursive: true })
    .map((file) => file.split(path.sep).join('/'))
    .filter((file) => statSync(path.join(dir, file)).isFile());
}

/** The scripts each page of `dir` loads as it loads: `<script … src="…">`. */
function pageScripts(dir, files) {
  return files
    .filter((file) => file.endsWith('.html'))
    .map((page) => {
      const html = readFileSync(path.join(dir, page), 'utf8');
      return [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)]
        .map(([, src]) => path.posix.normalize(path.posix.join(path.posix.dirname(page), src)))
        .filter((file) => files.includes(file));
    });
}

/** Renames `from` → `to` (relative to `dir`) for every entry of `names`, and rewrites every script's references. */
function applyNames(dir, files, names) {
  const all = new Set(files);
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    const next = rewrite(text, references(file, text, all), names);
    if (next !== text) writeFileSync(path.join(dir, file), next);
  }
  for (const [from, to] of names) {
    if (existsSync(path.join(dir, to))) throw new Error(`${dir}: ${to} exists already: cannot rename ${from} to it`);
    renameSync(path.join(dir, from), path.join(dir, to));
  }
}

/**
 * Versions the files the site in `dir` loads after its pages (see the top of this file). Returns
 * the new names, `{file: versioned}`, relative to `dir`. Throws, naming the files, on a cycle of
 * lazily loaded files (no name could hash the other's) or a lazily loaded module that imports one
 * another page loads with it (which that page's tab would then hold in its old version).
 */
export function versionLazyFiles(dir) {
  // A site versioned before (a changed copy): its plain names back first.
  let files = filesOf(dir);
  const plain = new Map(files.filter((f) => VERSIONED.test(f)).map((f) => [f, f.replace(VERSIONED, '$1')]));
  if (plain.size) {
    applyNames(dir, files, plain);
    files = filesOf(dir);
  }
  const all = new Set(files);
  const texts = new Map(
    files.filter((f) => f.endsWith('.js')).map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]),
  );
  const refsOf = new Map([...texts].map(([file, text]) => [file, references(file, text, all)]));
  const staticClosure = (roots) => {
    const seen = new Set();
    const queue = [...roots];
    while (queue.length) {
      const file = queue.pop();
      if (seen.has(file)) continue;
      seen.add(file);
      for (const ref of refsOf.get(file) ?? []) if (ref.kind === 'static') queue.push(ref.target);
    }
    return seen;
  };
  // A page with no script (the glossary) loads nothing later, so holds no old version either.
  const pages = pageScripts(dir, files)
    .filter((scripts) => scripts.length > 0)
    .map(staticClosure);
  const withPage = new Set(pages.flatMap((set) => [...set]));
  const withEveryPage = new Set([...withPage].filter((file) => pages.every((set) => set.has(file))));

  // Lazily loaded: what a script names lazily, and all that it imports, but for what comes with a page.
  const lazyRoots = [...refsOf.values()].flat().filter((ref) => ref.kind === 'lazy' && VERSIONABLE.test(ref.target));
  const lazy = new Set();
  const queue = lazyRoots.map((ref) => ref.target);
  while (queue.length) {
    const file = queue.pop();
    if (lazy.has(file) || withPage.has(file) || file === SERVICE_WORKER || !VERSIONABLE.test(file)) continue;
    lazy.add(file);
    for (const ref of refsOf.get(file) ?? []) queue.push(ref.target);
  }
  for (const file of lazy)
    for (const ref of refsOf.get(file) ?? [])
      if (ref.kind === 'static' && withPage.has(ref.target) && !withEveryPage.has(ref.target))
        throw new Error(
          `${dir}: ${file}, loaded lazily, imports ${ref.target}, which some pages load with them and others do not: version it or load it with every page`,
        );

  // Each lazily loaded file named after its content once the names it loads are versioned: those first.
  const names = new Map();
  const visiting = new Set();
  const name = (file) => {
    if (names.has(file)) return;
    if (visiting.has(file))
      throw new Error(`${dir}: lazily loaded files load each other: ${[...visiting, file].join(' → ')}`);
    visiting.add(file);
    for (const ref of refsOf.get(file) ?? []) if (lazy.has(ref.target)) name(ref.target);
    visiting.delete(file);
    const bytes = texts.has(file)
      ? Buffer.from(rewrite(texts.get(file), refsOf.get(file), names))
      : readFileSync(path.join(dir, file));
    const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
    names.set(file, file.replace(VERSIONABLE, `.${hash}.$1`));
  };
  for (const file of [...lazy].sort()) name(file);
  applyNames(dir, files, names);
  return Object.fromEntries([...names].sort());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/version-lazy-files.mjs DIR');
    process.exit(2);
  }
  const names = versionLazyFiles(dir);
  console.log(`${dir}: ${Object.keys(names).length} files loaded after the page named by their content`);
}
