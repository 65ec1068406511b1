// A lying Range server for the hostile URL tests (issue 33): it answers every request for a file of
// one directory with 206 and the Content-Range asked for, with CORS headers, on 127.0.0.1, and then
// breaks its word in the body, as the path's first part says:
//
//   /endless/NAME       the bytes asked for, then — after a pause, so they come alone — more, without end
//   /more/NAME          the bytes asked for and 1 MiB more, in one write, then the end
//   /short/NAME         half the bytes asked for, then the end
//   /silent-body/NAME   the headers, then nothing, ever
//   /silent/NAME        nothing at all, ever
//   /plain/NAME         the truth (any other first part too)
//
// It counts the bytes it sent, and keeps the Authorization headers it was sent (there should be none). `close()` ends every connection and the server.
//
//   node scripts/lying-server.mjs DIR    prints its origin, then serves until stopped

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** How long `/endless/` waits after the bytes asked for before it sends more. */
const PAUSE_MS = 1000;

/**
 * Starts the server for the files in `root` on 127.0.0.1 (a free port).
 * @returns {Promise<{origin: string, bytesSent(): number, authorizations(): string[], close(): Promise<void>}>}
 */
export async function startLyingServer(root) {
  const sockets = new Set();
  const authorizations = [];
  const server = createServer((req, res) => {
    if (req.headers.authorization !== undefined) authorizations.push(req.headers.authorization);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Content-Range, Content-Length');
    const [, kind, name] = /^\/([a-z-]+)\/([^/]+)$/.exec(new URL(req.url, 'http://localhost').pathname) ?? [];
    if (kind === 'silent') return; // no answer
    let bytes;
    try {
      bytes = readFileSync(path.join(root, path.basename(decodeURIComponent(name ?? ''))));
    } catch {
      res.writeHead(404);
      return res.end();
    }
    const [, a, b] = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '') ?? [];
    const first = Number(a ?? 0);
    const last = Math.min(b ? Number(b) : bytes.length - 1, bytes.length - 1);
    const body = bytes.subarray(first, last + 1);
    res.writeHead(206, {
      'Content-Type': 'application/octet-stream',
      'Content-Range': `bytes ${first}-${last}/${bytes.length}`,
    });
    if (kind === 'silent-body') return res.flushHeaders();
    if (kind === 'short') return res.end(body.subarray(0, body.length >> 1));
    if (kind === 'more') return res.end(Buffer.concat([body, Buffer.alloc(1 << 20, 'x')]));
    if (kind !== 'endless') return res.end(body);
    const more = Buffer.alloc(1 << 20, 'x');
    const flood = () => {
      while (!res.destroyed && res.write(more));
    };
    let timer;
    res.write(body, () => {
      res.on('drain', flood);
      timer = setTimeout(flood, PAUSE_MS);
    });
    res.on('close', () => clearTimeout(timer));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  let sent = 0;
  server.on('connection', (socket) => socket.on('close', () => (sent += socket.bytesWritten)));
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    authorizations: () => [...authorizations],
    bytesSent: () => sent + [...sockets].reduce((sum, socket) => sum + socket.bytesWritten, 0),
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.length !== 3) {
    console.error('usage: node scripts/lying-server.mjs DIR');
    process.exit(2);
  }
  console.log((await startLyingServer(path.resolve(process.argv[2]))).origin);
}
