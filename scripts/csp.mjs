#!/usr/bin/env node
// The Content-Security-Policies, read from their one file, www/csp.json: `page` (the site's own)
// and `embedding` (what a page embedding the npm package needs). The server sends `page` as a
// header (scripts/serve.mjs), the build writes each policy into the pages that ask for it by
// name (`<meta http-equiv="Content-Security-Policy" data-policy="NAME">`, filled in dist/ by
// scripts/build-web.sh), the tests serve under them, and the docs show them in generated blocks
// (scripts/docs-blocks.mjs).
//
//   node scripts/csp.mjs NAME        prints the policy NAME
//   node scripts/csp.mjs stamp DIR   fills the policies into every DIR/*.html that names one

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CSP_FILE = fileURLToPath(new URL('../www/csp.json', import.meta.url));

/** The policies by name (`page`, `embedding`). */
export const POLICIES = Object.fromEntries(
  Object.entries(JSON.parse(readFileSync(CSP_FILE, 'utf8'))).filter(([name]) => !name.startsWith('$')),
);

/** The policy `name`; an unknown name throws. */
export function policy(name) {
  if (!Object.hasOwn(POLICIES, name))
    throw new Error(`${CSP_FILE} has no policy "${name}" (it has ${Object.keys(POLICIES).join(', ')})`);
  return POLICIES[name];
}

// The tag as written by hand or by the formatter (`<meta …>` or `<meta … />`): the close is kept.
const META = /<meta http-equiv="Content-Security-Policy" data-policy="([^"]+)"(?: content="[^"]*")?(\s*\/?>)/g;

/** `html` with each `<meta … data-policy="NAME">` given NAME's policy as its content. */
export function withPolicies(html) {
  return html.replace(
    META,
    (_, name, close) =>
      `<meta http-equiv="Content-Security-Policy" data-policy="${name}" content="${policy(name).replaceAll('&', '&amp;').replaceAll('"', '&quot;')}"${close}`,
  );
}

/** Fills the policies into every `.html` file directly in `dir`. */
export function stampPolicies(dir) {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.html'))) {
    const page = path.join(dir, file);
    const html = readFileSync(page, 'utf8');
    const stamped = withPolicies(html);
    if (stamped !== html) writeFileSync(page, stamped);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [what, dir] = process.argv.slice(2);
  if (what === 'stamp' && dir) stampPolicies(dir);
  else if (what && what !== 'stamp') console.log(policy(what));
  else {
    console.error('usage: node scripts/csp.mjs NAME | stamp DIR');
    process.exit(2);
  }
}
