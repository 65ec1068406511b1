// Shared by the read-loop and tensor-read tests (no tests of its own).

import { promises as fs } from 'node:fs';

/**
 * A file as a Blob look-alike, closed with `close()`. Node 20's `openAsBlob` reports the size of
 * files over 4 GiB modulo 2^32, so the 40 GB file is read through a file handle instead.
 */
export async function hugeFileBlob(path) {
  const handle = await fs.open(path);
  const { size } = await handle.stat();
  const part = (start, end) => ({
    size: end - start,
    slice: (s, e) => part(start + s, start + Math.min(e, end - start)),
    async arrayBuffer() {
      const buffer = new Uint8Array(end - start);
      await handle.read(buffer, 0, buffer.length, start);
      return buffer.buffer;
    },
  });
  return { ...part(0, size), close: () => handle.close() };
}
