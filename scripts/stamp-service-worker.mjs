#!/usr/bin/env node
// Writes a built site's list of files and its version into its service worker (DIR/sw.js, whose
// `const BUILD = …;` line it replaces): `node scripts/stamp-service-worker.mjs DIR`. The version
// is a hash of every file's path and bytes, so any change to the site gives the worker new bytes
// — which is how a browser learns of an update — and its cache a new name. Run by
// scripts/build-web.sh on dist/; the update test runs it on a changed copy.

import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SERVICE_WORKER = 'sw.js';

/** Files served but never loaded by a page: a wasm package's metadata for npm. */
const NOT_LOADED = /(^|\/)(package\.json|LICENSE-[A-Z]+)$|\.d\.ts$/;

const BUILD_LINE = /^const BUILD = .*;$/m;

/** The files of the site in `dir` a page may load (paths relative to `dir`, `/`-separated), sorted. */
export function siteFiles(dir) {
  return readdirSync(dir, { recursive: true })
    .filter((file) => statSync(path.join(dir, file)).isFile())
    .map((file) => file.split(path.sep).join('/'))
    .filter((file) => file !== SERVICE_WORKER && !NOT_LOADED.test(file))
    .sort();
}

/** Stamps `dir`/sw.js with the build of `dir`; returns `{version, files, bytes}`. */
export function stampServiceWorker(dir) {
  const files = siteFiles(dir);
  const hash = createHash('sha256');
  let bytes = 0;
  for (const file of files) {
    const content = readFileSync(path.join(dir, file));
    bytes += content.length;
    hash.update(`${file}\0${content.length}\0`).update(content);
  }
  const version = hash.digest('hex').slice(0, 16);
  const worker = path.join(dir, SERVICE_WORKER);
  const source = readFileSync(worker, 'utf8');
  if (!BUILD_LINE.test(source)) throw new Error(`${worker} has no "const BUILD = …;" line to stamp`);
  writeFileSync(worker, source.replace(BUILD_LINE, `const BUILD = ${JSON.stringify({ version, files })};`));
  return { version, files, bytes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/stamp-service-worker.mjs DIR');
    process.exit(2);
  }
  const { version, files, bytes } = stampServiceWorker(dir);
  console.log(
    `${dir}/${SERVICE_WORKER}: build ${version}, ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB to cache`,
  );
}
