// The viewer page: opens the built-in sample (or the same-origin file named by `?file=`), then
// any file the user picks or drops. The parsing happens in the worker (web/); this module wires
// the page's controls to it and hands the results to the views.

import { Cancelled, GgufClient } from './web/gguf-client.js';
import { replaceChildren } from './dom.js';
import { bytes, grouped, hex } from './format.js';
import { dropTarget } from './drop-target.js';
import { renderSummary } from './summary-view.js';
import { renderFindings } from './findings-view.js';
import { renderTypeMix } from './type-mix-view.js';
import { renderMetadata } from './metadata-view.js';
import { renderTensors } from './tensor-view.js';

const SAMPLE = 'sample.gguf';

const $ = (id) => document.getElementById(id);
const client = new GgufClient();

/**
 * Opens one file: a File/Blob, or `{url, name}` for a same-origin URL. The page's state is on
 * `<body data-state="loading|ready|error">`, and the open-to-summary time is a performance
 * measure named "summary", both for people and for the tests and benchmark.
 */
async function open(source, name, { sample = false } = {}) {
  performance.clearMarks();
  performance.clearMeasures();
  performance.mark('open');
  document.body.dataset.state = 'loading';
  document.body.dataset.file = name;
  $('file-name').textContent = name;
  $('sample-note').hidden = !sample;
  $('error').hidden = true;
  $('progress').hidden = false;
  $('status').textContent = 'Reading the header…';
  const onProgress = (p) => ($('status').textContent = `Reading the header… ${bytes(p.bytesRead)} read`);
  try {
    const { report, stats } = source instanceof Blob ? await client.open(source, onProgress) : await client.openUrl(source.url, onProgress);
    show(report, stats);
  } catch (e) {
    if (!(e instanceof Cancelled)) fail(e);
  }
}

function show(report, stats) {
  $('progress').hidden = true;
  $('view').hidden = false;
  renderSummary($('summary'), report, stats);
  // The summary is painted first; the tables, which can be long, follow in the next frame.
  requestAnimationFrame(() => {
    performance.measure('summary', 'open');
    const ms = performance.getEntriesByName('summary')[0].duration;
    $('status').textContent = `Header read in ${Math.round(ms)} ms: ${bytes(stats.bytesRead)} in ${stats.reads} read${stats.reads === 1 ? '' : 's'}, of ${bytes(stats.fileSize)}`;
    $('findings-count').textContent = grouped(report.findings.length);
    renderFindings($('findings'), report.findings);
    renderTypeMix($('type-mix'), report.type_mix);
    $('metadata-count').textContent = grouped(report.kv_count);
    renderMetadata($('metadata'), report.metadata, (kv, start, count) => client.arrayPage(kv, start, count));
    renderTensors($('tensors'), $('tensor-filter'), $('tensor-count'), report.tensors);
    document.body.dataset.state = 'ready';
  });
}

/** Shows a ParseError (or any failure) and leaves the page ready for the next file. */
function fail(error) {
  $('progress').hidden = true;
  $('view').hidden = true;
  $('status').textContent = '';
  $('error').hidden = false;
  document.querySelector('[data-field="error_message"]').textContent = error.message ?? String(error);
  const offset = document.querySelector('[data-field="error_offset"]');
  offset.dataset.value = error.offset ?? '';
  replaceChildren(offset, error.offset === null || error.offset === undefined ? 'unknown' : `${hex(error.offset)} (${grouped(error.offset)})`);
  offset.closest('p').hidden = error.offset === null || error.offset === undefined;
  document.body.dataset.state = 'error';
}

const input = $('file-input');
$('open-button').addEventListener('click', () => input.click());
input.addEventListener('change', () => {
  if (input.files[0]) open(input.files[0], input.files[0].name);
  input.value = ''; // so that choosing the same file again opens it again
});
dropTarget($('drop-overlay'), (file) => open(file, file.name));

/** `?file=PATH` names a same-origin file to open first (scripts/run.sh FILE uses it). */
function firstFile() {
  const param = new URLSearchParams(location.search).get('file');
  const url = param && new URL(param, location.href);
  if (url && url.origin === location.origin) return { url, name: decodeURIComponent(url.pathname.split('/').pop()) };
  if (url) fail({ message: `only files from this site can be opened by URL, not ${url.origin}`, offset: null });
  return null;
}

const first = firstFile();
if (first) open(first, first.name);
else if (document.body.dataset.state !== 'error') open({ url: new URL(SAMPLE, location.href) }, SAMPLE, { sample: true });
