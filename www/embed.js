// The mock hub page's own script (embed.html), as a hub would write it: it opens the model named
// by `?src=` in the address instead of the sample (set before the element is defined, so only
// that one is read), and fills the page's sidebar from the element's `load` event.

import { bytes, count } from './format.js';

const viewer = /** @type {import('./gguf-viewer.js').GgufViewerElement} */ (document.getElementById('viewer'));
const src = new URLSearchParams(location.search).get('src');
if (src) viewer.setAttribute('src', src);

const show = (id, text) => (document.getElementById(id).textContent = text);
viewer.addEventListener('load', ({ detail: report }) => {
  show('hub-file', viewer.dataset.file);
  show('hub-size', bytes(report.file_size));
  show('hub-parameters', report.parameters === null ? '–' : count(report.parameters));
  show('hub-architecture', report.architecture ?? '–');
  show('hub-quantization', report.file_type?.label ?? '–');
});
viewer.addEventListener('error', ({ detail }) => show('hub-parameters', `cannot read the file: ${detail.message}`));
