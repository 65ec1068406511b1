// <gguf-viewer src="https://…/model-00001-of-00003.gguf">: the viewer as an element that any page —
// a model hub's — can embed without an iframe. The viewer (viewer.js, the page's own) lives in the
// element's shadow root with the viewer's stylesheet, so neither the page's styles nor the
// viewer's cross over. It defines nothing global but the element's name, runs no inline script
// and no eval, and reads models in a Web Worker: a page with a strict Content-Security-Policy
// needs script-src 'self' 'wasm-unsafe-eval', worker-src 'self', style-src 'self', and
// connect-src 'self' plus the model's host (and the host it redirects to).
//
//   <script type="module" src="gguf-viewer.js"></script>
//   <gguf-viewer src="https://huggingface.co/…/resolve/main/model.gguf"></gguf-viewer>
//
// `src` opens a URL (one shard's URL opens the whole split model); `element.open(fileOrUrl)` opens
// a File, several Files (the shards of a split model) or a URL and resolves the report. The
// element carries `data-state` (loading, ready, error) and fires `load` (detail: the report) or
// `error` (detail: `{code, message, kind}`; `code` the error's (docs/json.md, "Errors"; null for a
// bug); kind 'file' for a file that cannot be read, or how the parser was stopped: 'stalled',
// 'out-of-memory', 'crashed').

import { GgufClient, prewarm } from './web/gguf-client.js';
import { h } from './dom.js';
import { Viewer } from './viewer.js';
import css from './viewer-style.js';

// The first file finds the worker started and its parser compiled, in the page's idle time.
prewarm();

/**
 * The viewer's stylesheet (style.css, which the build writes as a module: viewer-style.js),
 * made once and adopted by every element's shadow root: drawn styled from its first frame, with
 * no request, and found by every bundler as a plain import.
 * @type {CSSStyleSheet|null}
 */
let sheet = null;

export class GgufViewerElement extends HTMLElement {
  static observedAttributes = ['src'];

  #client = null;
  #viewer = null;

  connectedCallback() {
    if (this.#viewer) return;
    const root = this.attachShadow({ mode: 'open' });
    const container = h('div', { class: 'embedded' });
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
    }
    root.adoptedStyleSheets = [sheet];
    root.append(container);
    this.#client = new GgufClient();
    this.#viewer = new Viewer(container, { client: this.#client, host: this });
    if (this.hasAttribute('src')) this.open(this.getAttribute('src'));
  }

  disconnectedCallback() {
    // Moved elsewhere in the page, the element is connected again at once: keep it then.
    queueMicrotask(() => {
      if (this.isConnected || !this.#client) return;
      this.#client.close();
      this.#client = null;
      this.#viewer = null;
      this.shadowRoot.replaceChildren();
    });
  }

  attributeChangedCallback(name, old, value) {
    if (this.#viewer && value !== null && value !== old) this.open(value);
  }

  /**
   * Opens a File or Blob, several (the shards of a split model), or a URL (relative to the page);
   * resolves the report (`ggufscope info --json`'s document), or null when the model cannot be
   * read (the element shows why) or another was opened meanwhile.
   * @param {File|Blob|File[]|string|URL} fileOrUrl
   */
  async open(fileOrUrl) {
    if (!this.#viewer) throw new Error('a <gguf-viewer> must be in the document to open a model');
    const files = fileOrUrl instanceof Blob || Array.isArray(fileOrUrl);
    const url = files ? null : URL.parse(String(fileOrUrl), document.baseURI);
    let report = null;
    if (files || url !== null) report = await this.#viewer.open(files ? fileOrUrl : { url });
    else this.#viewer.fail({ message: `not a URL: ${fileOrUrl}`, offset: null }, String(fileOrUrl));
    if (report) this.dispatchEvent(new CustomEvent('load', { detail: report }));
    else if (this.dataset.state === 'error') {
      const { errorMessage, error } = this.#viewer;
      this.dispatchEvent(
        new CustomEvent('error', {
          detail: { code: error.dataset.code || null, message: errorMessage.textContent, kind: error.dataset.kind },
        }),
      );
    }
    return report;
  }
}

if (!customElements.get('gguf-viewer')) customElements.define('gguf-viewer', GgufViewerElement);
