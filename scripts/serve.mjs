#!/usr/bin/env node
// Serves the built viewer (dist/) on 127.0.0.1 with no dependencies, and optionally one GGUF file
// for the viewer to open at start: `node scripts/serve.mjs DIR [--port N] [--file PATH]`.
// Honours Range requests, which is how the viewer reads a header from a URL. Every answer carries
// the site's Content-Security-Policy (www/csp.json's `page`) as a header: a <meta> policy binds
// the page but not its workers, which parse the files and fetch the URLs. Every answer also says
// `X-Content-Type-Options: nosniff` (a file is only what its type says), and who may frame it
// (`frame-ancestors`, which a <meta> policy cannot say): the viewer only its own origin, so that
// no other site can lay it under a decoy and steer its clicks; the mock hub page `embed.html`
// anyone, as a page that shows the embedded viewer is meant to be shown.

import { createServer } from 'node:http';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { policy } from './csp.mjs';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
};

/**
 * The `frame-ancestors` policy for `pathname`: sent as a second Content-Security-Policy header,
 * enforced beside the first (or beside the one a test gives).
 */
export function framePolicy(pathname) {
  return pathname === '/embed.html' ? 'frame-ancestors *' : "frame-ancestors 'self'";
}

/** The path under which `--file` is served. */
export const OPENED_FILE_PATH = '/opened/';

/**
 * Starts a static server for `root` on 127.0.0.1:`port` (0 picks a free port). `file`, when
 * given, is also served at `/opened/<its name>`. Every answer carries the site's
 * Content-Security-Policy (www/csp.json's `page`) and `headers`, which replace it when they name
 * one (the embedding test's stricter policy). Resolves the listening `http.Server`.
 */
export async function serve(root, { port = 0, file = null, headers = {} } = {}) {
  const base = path.resolve(root);
  const openedUrl = file && OPENED_FILE_PATH + path.basename(file);
  const always = { 'Content-Security-Policy': policy('page'), ...headers };
  const server = createServer(async (req, res) => {
    for (const [name, value] of Object.entries(always)) res.setHeader(name, value);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    try {
      const pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
      res.setHeader('Content-Security-Policy', [always['Content-Security-Policy'], framePolicy(pathname)]);
      const target =
        pathname === openedUrl
          ? path.resolve(file)
          : path.join(base, pathname.endsWith('/') ? pathname + 'index.html' : pathname);
      if (pathname !== openedUrl && !target.startsWith(base + path.sep)) return reply(res, 403);
      const stat = await fs.stat(target).catch(() => null);
      if (!stat?.isFile()) return reply(res, 404);
      sendFile(req, res, target, stat.size);
    } catch {
      reply(res, 400);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function sendFile(req, res, target, size) {
  const headers = {
    'Content-Type': TYPES[path.extname(target)] ?? 'application/octet-stream',
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'no-cache',
  };
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  let [first, last] = [0, size - 1];
  if (range) {
    first = Number(range[1]);
    last = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    if (first > last) return reply(res, 416, { 'Content-Range': `bytes */${size}` });
    headers['Content-Range'] = `bytes ${first}-${last}/${size}`;
  }
  headers['Content-Length'] = Math.max(0, last - first + 1);
  res.writeHead(range ? 206 : 200, headers);
  if (req.method === 'HEAD' || size === 0) return res.end();
  createReadStream(target, { start: first, end: last }).pipe(res);
}

function reply(res, status, headers = {}) {
  res.writeHead(status, { 'Content-Type': 'text/plain', ...headers });
  res.end(`${status}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args.splice(i, 2)[1] : undefined;
  };
  const port = Number(option('--port') ?? 8137);
  const file = option('--file') ?? null;
  const root = args[0] ?? 'dist';
  const server = await serve(root, { port, file }).catch((e) => {
    console.error(`cannot serve ${root} on 127.0.0.1:${port}: ${e.message}`);
    process.exit(1);
  });
  const { port: actual } = server.address();
  const query = file ? `?file=${encodeURIComponent(OPENED_FILE_PATH + path.basename(file))}` : '';
  console.log(`ggufscope viewer: http://127.0.0.1:${actual}/${query}`);
  console.log('Nothing is uploaded: files you open are read in your browser. Press Ctrl-C to stop.');
}
