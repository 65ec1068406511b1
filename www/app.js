// The viewer page: the top bar's controls, the drop target and the address's parameters around
// one Viewer (viewer.js). Opens the built-in sample (or the same-origin file named by `?file=`),
// then any file the user picks or drops.

import { GgufClient } from './web/gguf-client.js';
import { Viewer } from './viewer.js';
import { dropTarget } from './drop-target.js';

const SAMPLE = 'sample.gguf';
const SAMPLE_NOTE = 'This is a built-in sample. Open a file or drop one anywhere on this page to inspect your own model.';

const $ = (id) => document.getElementById(id);
const viewer = new Viewer($('viewer'), { client: new GgufClient(), host: document.body, measure: 'summary' });

const input = $('file-input');
$('open-button').addEventListener('click', () => input.click());
input.addEventListener('change', () => {
  if (input.files[0]) viewer.open(input.files[0], input.files[0].name);
  input.value = ''; // so that choosing the same file again opens it again
});
dropTarget($('drop-overlay'), (file) => viewer.open(file, file.name));

/** `?file=PATH` names a same-origin file to open first (scripts/run.sh FILE uses it). */
function firstFile() {
  const param = new URLSearchParams(location.search).get('file');
  const url = param && new URL(param, location.href);
  if (url && url.origin === location.origin) return { url, name: decodeURIComponent(url.pathname.split('/').pop()) };
  if (url) viewer.fail({ message: `only files from this site can be opened by URL, not ${url.origin}`, offset: null }, param);
  return null;
}

const first = firstFile();
if (first) viewer.open(first, first.name);
else if (document.body.dataset.state !== 'error') viewer.open({ url: new URL(SAMPLE, location.href) }, SAMPLE, { note: SAMPLE_NOTE });
