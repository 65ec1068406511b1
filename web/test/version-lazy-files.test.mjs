// scripts/version-lazy-files.mjs on small sites written here: what a page loads after it is
// named by content (the names it loads included), what comes with the page keeps its name, every
// reference follows, a second run is the same, a change renames what depends on it, and a cycle
// is refused. (www/e2e/update.test.mjs runs the built site across a deploy.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { VERSIONED, versionLazyFiles } from '../../scripts/version-lazy-files.mjs';

/** A site in a fresh folder: `{file: text}`. */
function site(files) {
  const dir = mkdtempSync(`${tmpdir()}/ggufscope-version-`);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

const list = (dir) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.includes('.'))
    .sort();
const read = (dir, file) => readFileSync(path.join(dir, file), 'utf8');

const SITE = {
  'index.html': '<script type="module" src="app.js"></script>',
  'app.js': [
    "import { a } from './a.js';",
    "/** @type {import('./lazy.js').T} */",
    "const w = new Worker(new URL('./w.js', import.meta.url), { type: 'module' });",
    "export const later = () => import('./lazy.js').then((m) => m.b + a);",
    "navigator.serviceWorker.register(new URL('./sw.js', import.meta.url));",
  ].join('\n'),
  'a.js': 'export const a = 1;',
  'lazy.js': "import { a } from './a.js';\nexport { b } from './b.js';\nexport const c = a;",
  'b.js': 'export const b = 2;',
  'w.js': 'const m=new URL("./pkg/m_bg.wasm",import.meta.url);',
  'pkg/m_bg.wasm': '\0asm',
  'sw.js': 'const BUILD = {};',
};

test('what the page loads after it is named by its content; what comes with it keeps its name', () => {
  const dir = site(SITE);
  try {
    const names = versionLazyFiles(dir);
    assert.deepEqual(Object.keys(names), ['b.js', 'lazy.js', 'pkg/m_bg.wasm', 'w.js']);
    for (const [plain, versioned] of Object.entries(names)) {
      assert.match(versioned, VERSIONED);
      assert.equal(versioned.replace(VERSIONED, '$1'), plain);
      const hash = createHash('sha256')
        .update(readFileSync(path.join(dir, versioned)))
        .digest('hex');
      assert.equal(versioned.split('.').at(-2), hash.slice(0, 12), `${versioned}: its content's hash`);
    }
    assert.deepEqual(list(dir), ['a.js', 'app.js', 'index.html', 'sw.js', ...Object.values(names)].sort());
    const app = read(dir, 'app.js');
    assert.ok(app.includes(`new URL('./${names['w.js']}', import.meta.url)`));
    assert.ok(app.includes(`import('./${names['lazy.js']}')`));
    assert.ok(app.includes("import('./lazy.js').T"), 'a type in a doc comment loads nothing');
    assert.ok(read(dir, names['lazy.js']).includes(`from './${names['b.js']}'`));
    assert.ok(read(dir, names['lazy.js']).includes("from './a.js'"), 'the page’s module, as the page has it');
    assert.ok(read(dir, names['w.js']).includes(`new URL("./${names['pkg/m_bg.wasm']}",import.meta.url)`));
    assert.ok(app.includes("new URL('./sw.js', import.meta.url)"), 'the service worker keeps its name');

    // Again: the same names. A changed file deep down: it and all that names it renamed.
    assert.deepEqual(versionLazyFiles(dir), names);
    appendFileSync(path.join(dir, names['b.js']), '// build 2\n');
    const next = versionLazyFiles(dir);
    assert.notEqual(next['b.js'], names['b.js']);
    assert.notEqual(next['lazy.js'], names['lazy.js'], 'the hash covers the names a file loads');
    assert.equal(next['w.js'], names['w.js']);
    assert.ok(read(dir, 'app.js').includes(`import('./${next['lazy.js']}')`));
    assert.ok(!list(dir).includes(names['b.js']), 'the old name is gone');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('lazily loaded files that load each other are refused, naming them', () => {
  const dir = site({
    'index.html': '<script type="module" src="app.js"></script>',
    'app.js': "import('./x.js');",
    'x.js': "import './y.js';",
    'y.js': "import './x.js';",
  });
  try {
    assert.throws(() => versionLazyFiles(dir), /load each other: x\.js → y\.js → x\.js/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lazy module importing a module one page loads and another not is refused; a page with no script counts for neither', () => {
  const files = {
    'index.html': '<script type="module" src="app.js"></script>',
    'glossary.html': '<p>terms, no script</p>',
    'app.js': "import './a.js';\nimport('./lazy.js');",
    'a.js': 'export const a = 1;',
    'lazy.js': "import { a } from './a.js';",
  };
  const dir = site(files);
  const other = site({
    ...files,
    'embed.html': '<script type="module" src="embed.js"></script>',
    'embed.js': "import('./lazy.js');",
  });
  try {
    assert.deepEqual(Object.keys(versionLazyFiles(dir)), ['lazy.js']);
    assert.throws(() => versionLazyFiles(other), /lazy\.js, loaded lazily, imports a\.js, which some pages load/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  }
});
