#!/usr/bin/env node
// A model server for the URL tests and for trying URL mode by hand: serves the files of one
// directory on 127.0.0.1 with `send` (the static-file sender of the Express project: Range,
// conditional GET, HEAD), the way a model hub or a CDN would, and counts the bytes it sent.
// It can be made to misbehave as real servers do: ignore Range (200 with the whole file), send no
// CORS headers, or allow the request but not expose Content-Range. `/redirect/NAME` redirects
// (302) to `/NAME`, as a hub's download link redirects to its storage.
//
//   node scripts/model-server.mjs DIR [--port N] [--no-range] [--no-cors] [--no-expose]
//
// Prints its origin, then serves until stopped.

import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import send from 'send';

/**
 * Starts a server for the files in `root` on 127.0.0.1:`port` (0 picks a free port).
 * @param {object} options
 * @param {boolean} [options.range]  Honour Range requests (else answer 200 with the whole file).
 * @param {boolean} [options.cors]  Send `Access-Control-Allow-Origin: *`.
 * @param {boolean} [options.expose]  With `cors`, also `Access-Control-Expose-Headers: Content-Range, Content-Length`.
 * @returns {Promise<{origin: string, bytesSent(): number, requests: {method: string, url: string, range: string|null, status: number}[], close(): Promise<void>}>}
 */
export async function startModelServer(root, { port = 0, range = true, cors = true, expose = true } = {}) {
  const sockets = new Set();
  let closedBytes = 0;
  const requests = [];
  const server = createServer((req, res) => {
    const entry = { method: req.method, url: req.url, range: req.headers.range ?? null, status: 0 };
    requests.push(entry);
    res.on('finish', () => (entry.status = res.statusCode));
    res.on('close', () => (entry.status ||= res.statusCode));
    if (cors) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      if (expose) res.setHeader('Access-Control-Expose-Headers', 'Content-Range, Content-Length');
    }
    const pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    if (pathname.startsWith('/redirect/')) {
      res.writeHead(302, { Location: pathname.slice('/redirect'.length) });
      return res.end();
    }
    send(req, pathname, { root, acceptRanges: range, cacheControl: false, etag: false, lastModified: false, index: false })
      .on('error', (e) => {
        res.statusCode = e.status ?? 500;
        res.end(`${res.statusCode}\n`);
      })
      .pipe(res);
  });
  // Bytes on the wire, headers included: what the socket took, open connections and closed ones.
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      closedBytes += socket.bytesWritten;
      sockets.delete(socket);
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    requests,
    bytesSent: () => closedBytes + [...sockets].reduce((sum, s) => sum + s.bytesWritten, 0),
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = (name) => {
    const i = args.indexOf(name);
    return i >= 0 && args.splice(i, 1).length > 0;
  };
  const portAt = args.indexOf('--port');
  const port = portAt >= 0 ? Number(args.splice(portAt, 2)[1]) : 0;
  const options = { port, range: !flag('--no-range'), cors: !flag('--no-cors'), expose: !flag('--no-expose') };
  if (args.length !== 1) {
    console.error('usage: node scripts/model-server.mjs DIR [--port N] [--no-range] [--no-cors] [--no-expose]');
    process.exit(2);
  }
  const server = await startModelServer(path.resolve(args[0]), options);
  console.log(server.origin);
}
