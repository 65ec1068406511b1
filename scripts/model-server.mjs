#!/usr/bin/env node
// A model server for the URL tests and for trying URL mode by hand: serves the files of one
// directory on 127.0.0.1 with `send` (the static-file sender of the Express project: Range,
// conditional GET, HEAD), the way a model hub or a CDN would, and counts the bytes it sent.
// It can be made to misbehave as real servers do: ignore Range (200 with the whole file), send no
// CORS headers, or allow the request but not expose Content-Range. `/redirect/NAME` redirects
// (302) to `/NAME`, as a hub's download link redirects to its storage. `/_stats` answers
// `{"bytesSent": N, "requests": [...]}`, so that a test in another process (the CLI's) can count.
// Hostile servers, for the deadline and budget tests (issue 18): `/slow/NAME` sends NAME one byte
// a second; `/endless.gguf` ignores Range and streams a header that never ends (one key after
// another, each with a 16 MiB string, under a Content-Length of 1 TiB); `/html/NAME` answers a
// web page; `/loop/a` and `/loop/b` redirect to each other; `/to-file/NAME` redirects to
// `file:///etc/passwd`.
//
//   node scripts/model-server.mjs DIR [--port N] [--no-range] [--no-cors] [--no-expose]
//
// Prints its origin, then serves until stopped.

import { readFileSync } from 'node:fs';
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
  const requests = [];
  // Bytes on the wire per answer, headers included: what its socket took from its start to its
  // end (answers on one connection come one after another), and so far for those still going.
  const sending = new Map(); // answer → [socket, bytesWritten at its start]
  let sent = 0;
  const bytesSent = () =>
    sent + [...sending.values()].reduce((sum, [socket, start]) => sum + socket.bytesWritten - start, 0);
  const server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    if (pathname === '/_stats') {
      res.setHeader('Content-Type', 'application/json');
      return res.end(JSON.stringify({ bytesSent: bytesSent(), requests }));
    }
    const entry = { method: req.method, url: req.url, range: req.headers.range ?? null, status: 0 };
    requests.push(entry);
    sending.set(res, [req.socket, req.socket.bytesWritten]);
    res.on('close', () => {
      const [socket, start] = sending.get(res);
      entry.status = res.statusCode;
      sent += socket.bytesWritten - start;
      sending.delete(res);
    });
    if (cors) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      if (expose) res.setHeader('Access-Control-Expose-Headers', 'Content-Range, Content-Length');
    }
    if (pathname.startsWith('/redirect/')) {
      res.writeHead(302, { Location: pathname.slice('/redirect'.length) });
      return res.end();
    }
    if (hostile(pathname, req, res, root)) return;
    send(req, pathname, {
      root,
      acceptRanges: range,
      cacheControl: false,
      etag: false,
      lastModified: false,
      index: false,
    })
      .on('error', (e) => {
        res.statusCode = e.status ?? 500;
        res.end(`${res.statusCode}\n`);
      })
      .pipe(res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    requests,
    bytesSent,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Bytes of each string of `/endless.gguf`. */
const ENDLESS_STRING = 16 << 20;

/**
 * Answers the hostile paths (see the top of this file); false for any other path.
 * @returns {boolean}
 */
function hostile(pathname, req, res, root) {
  if (pathname.startsWith('/loop/')) {
    res.writeHead(302, { Location: pathname === '/loop/a' ? '/loop/b' : '/loop/a' });
    res.end();
  } else if (pathname.startsWith('/to-file/')) {
    res.writeHead(302, { Location: 'file:///etc/passwd' });
    res.end();
  } else if (pathname.startsWith('/html/')) {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>model page</title><p>Download the file below.</p>');
  } else if (pathname.startsWith('/slow/')) {
    const bytes = readFileSync(path.join(root, path.basename(pathname)));
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': bytes.length });
    let at = 0;
    const timer = setInterval(() => {
      if (at >= bytes.length || res.destroyed) return (clearInterval(timer), res.end());
      res.write(bytes.subarray(at, ++at));
    }, 1000);
    res.on('close', () => clearInterval(timer));
  } else if (pathname === '/endless.gguf') {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(2 ** 40) });
    const u64 = (n) => {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(BigInt(n));
      return b;
    };
    const u32 = (n) => {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(n);
      return b;
    };
    // GGUF v3, no tensors, 2^24 key-value pairs: `k` = a string of 16 MiB of `x`, again and again.
    res.write(Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(2 ** 24)]));
    const value = Buffer.alloc(ENDLESS_STRING, 'x');
    const pair = Buffer.concat([u64(1), Buffer.from('k'), u32(8), u64(ENDLESS_STRING)]);
    const more = () => {
      while (!res.destroyed && res.write(pair) && res.write(value));
    };
    res.on('drain', more);
    more();
  } else {
    return false;
  }
  return true;
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
