#!/usr/bin/env node
// Writes the glossary's terms (www/glossary.js, the one home of their text, which the summary
// cards show too) into a built site's glossary page, DIR/glossary.html, where its
// `<!-- glossary -->` line stands: `node scripts/glossary-page.mjs DIR`. A static page, so that it
// reads without script, is cached by the service worker with the rest of the site, and ships in
// the npm package beside the viewer. Run by scripts/build-web.sh on dist/.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { GLOSSARY, anchorOf } from '../www/glossary.js';

const MARK = /^( *)<!-- glossary -->$/m;

/** `text` safe as HTML text. */
function html(text) {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** The glossary's sections as HTML, each line indented by `indent`. */
export function glossaryHtml(indent = '') {
  const lines = GLOSSARY.flatMap(({ section, terms }) => {
    const id = `section-${anchorOf(section.toLowerCase())}`;
    return [
      `<section aria-labelledby="${id}">`,
      `  <h2 id="${id}">${html(section)}</h2>`,
      '  <dl class="glossary">',
      ...terms.flatMap((t) => [
        `    <dt id="${anchorOf(t.field)}">${html(t.term)}</dt>`,
        `    <dd><p>${html(t.line)}</p>${t.more ? `<p>${html(t.more)}</p>` : ''}</dd>`,
      ]),
      '  </dl>',
      '</section>',
    ];
  });
  return lines.map((line) => indent + line).join('\n');
}

/** Fills DIR/glossary.html's terms in. */
export function writeGlossaryPage(dir) {
  const page = path.join(dir, 'glossary.html');
  const template = readFileSync(page, 'utf8');
  if (!MARK.test(template)) throw new Error(`${page} has no "<!-- glossary -->" line to fill in`);
  writeFileSync(
    page,
    template.replace(MARK, (_, indent) => glossaryHtml(indent)),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/glossary-page.mjs DIR');
    process.exit(2);
  }
  writeGlossaryPage(dir);
}
