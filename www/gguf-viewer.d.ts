// Declarations of gguf-viewer.js, the package's `ggufscope/viewer` entry: importing it defines
// the <gguf-viewer> element.

import type { ModelSource, Report } from './web/gguf.js';

export type { Report } from './web/gguf.js';

/** The `error` event's detail: why the model cannot be shown. */
export interface GgufViewerErrorDetail {
  /** The error's code (docs/json.md, "Errors"); null for a bug. */
  code: string | null;
  message: string;
  /** 'file' for a file that cannot be read, or how the parser was stopped: 'stalled', 'out-of-memory', 'crashed'. */
  kind: string;
}

/**
 * `<gguf-viewer src="URL">`: the viewer in a shadow root. `data-state` is loading, ready or
 * error; it fires `load` (detail: the report) or `error`.
 */
export class GgufViewerElement extends HTMLElement {
  static observedAttributes: string[];
  /** Opens a File or Blob, several (a split model's shards), or a URL; resolves the report, or null when it cannot be read. */
  open(fileOrUrl: ModelSource): Promise<Report | null>;
  addEventListener<K extends keyof GgufViewerEventMap>(
    type: K,
    listener: (this: GgufViewerElement, ev: GgufViewerEventMap[K]) => any,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
}

export interface GgufViewerEventMap {
  load: CustomEvent<Report>;
  error: CustomEvent<GgufViewerErrorDetail>;
}

declare global {
  interface HTMLElementTagNameMap {
    'gguf-viewer': GgufViewerElement;
  }
}
