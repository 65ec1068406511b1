// A read-only Blob look-alike over an HTTP resource, so the read loop can read a header from a
// server without downloading the file: the size comes from a HEAD request, each slice is one
// Range request. Used for the same-origin URLs the viewer is asked to open (`?file=`).

export class HttpBlob {
  /** Asks the server for the size of `url`; throws when it cannot be had. */
  static async open(url) {
    const response = await fetch(url, { method: 'HEAD', cache: 'no-store' });
    const size = Number(response.headers.get('content-length'));
    if (!response.ok || !Number.isSafeInteger(size)) {
      throw new Error(`cannot open ${url}: HTTP ${response.status}${response.ok ? ', no Content-Length' : ''}`);
    }
    return new HttpBlob(url, 0, size);
  }

  constructor(url, start, end) {
    this.url = url;
    this.start = start;
    this.size = end - start;
  }

  /** Bytes `start..end` of this blob, clamped to it, like `Blob.slice` with non-negative bounds. */
  slice(start = 0, end = this.size) {
    const clamp = (i) => Math.max(0, Math.min(i, this.size));
    return new HttpBlob(this.url, this.start + clamp(start), this.start + Math.max(clamp(start), clamp(end)));
  }

  async arrayBuffer() {
    if (this.size === 0) return new ArrayBuffer(0);
    const last = this.start + this.size - 1;
    const response = await fetch(this.url, { headers: { Range: `bytes=${this.start}-${last}` }, cache: 'no-store' });
    if (response.status !== 206) {
      throw new Error(`the server answered HTTP ${response.status} to a Range request (it must honour Range)`);
    }
    return response.arrayBuffer();
  }
}
