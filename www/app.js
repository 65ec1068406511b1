// The viewer page: the top bar's controls, the drop target and the address's parameters around
// one Viewer (viewer.js). Opens the built-in sample, the URL named by `?url=` (any server that
// honours Range and allows this page by CORS), or the same-origin file named by `?file=`; then
// any file — or every shard of a split model — the user picks or drops, or any URL they enter,
// and those the operating system opens with the installed app (pwa.js, which also keeps the site
// for offline use).
// `?watchdog=MS` sets the parser's watchdog budget (gguf-client.js; the tests set it low);
// `?simd=off` makes peeks and value comparisons use the values module's fallback build where the
// browser runs wasm SIMD.

import { GgufClient } from './web/gguf-client.js';
import { withoutUserInfo } from './web/http-blob.js';
import { Viewer } from './viewer.js';
import { dropTarget } from './drop-target.js';
import { upstreamFiles } from './upstream-view.js';
import { keepForOffline, offerInstall, openLaunchedFiles } from './pwa.js';

const SAMPLE = 'sample.gguf';
const SAMPLE_NOTE =
  'This is a built-in sample. Open a file or drop one anywhere on this page to inspect your own model.';

/** The hosts the page may fetch from over plain http (index.html's connect-src). */
const LOOPBACK = new Set(['127.0.0.1', 'localhost']);

const $ = (id) => document.getElementById(id);
const urlInput = /** @type {HTMLInputElement} */ ($('url-input'));
const params = new URLSearchParams(location.search);
const watchdogMs = Number(params.get('watchdog'));
const options = { watchdogMs: watchdogMs > 0 ? watchdogMs : undefined, simd: params.get('simd') !== 'off' };
const client = new GgufClient(options);
GgufClient.shared(options); // edits, comparisons and upstream checks: their worker, as the viewer's
const viewer = new Viewer($('viewer'), {
  client,
  host: document.body,
  measure: 'summary',
  editable: true,
  comparable: true,
  standalone: true,
});

/**
 * Opens files: one model, whatever their number (the shards of a split model are one). Upstream's
 * configuration files (config.json, …, by name) go to the "Compare with upstream" panel.
 */
function openFiles(files) {
  if (files.length === 0) return;
  if (upstreamFiles(files)) return viewer.upstreamView.take([...files]);
  history.replaceState(null, '', location.pathname); // the address no longer names what is shown
  urlInput.value = '';
  viewer.open([...files]);
}

/**
 * Opens the URL `text` (relative to this page) and names it in the address, so it can be shared.
 * @returns {Promise<unknown>|undefined}  The viewer's open, or nothing when `text` cannot be opened.
 */
function openUrl(text) {
  const given = URL.parse(text, location.href);
  if (given === null) return viewer.fail({ message: `not a URL: ${text}`, offset: null }, text);
  // A user name and password are neither sent nor kept: not in the address, its history or the field.
  const url = new URL(withoutUserInfo(given));
  const userInfo = url.href !== given.href;
  urlInput.value = url.href;
  history.replaceState(null, '', `?url=${encodeURIComponent(url.href)}${location.hash}`);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return viewer.fail(
      { message: `only http and https URLs can be opened, not ${url.protocol}`, offset: null },
      url.href,
    );
  }
  // The page's policy (index.html's connect-src) lets it fetch over https, and over plain http
  // only from this computer: say so, rather than the browser's bare "failed to fetch".
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname) && url.origin !== location.origin) {
    return viewer.fail(
      {
        message: `plain http is only allowed from this computer (localhost, 127.0.0.1): open ${url.host} over https instead`,
        offset: null,
      },
      url.href,
    );
  }
  const note = userInfo ? 'The user name and password in the URL were left out: this page sends no credentials.' : null;
  return viewer.open({ url }, { note });
}

const input = /** @type {HTMLInputElement} */ ($('file-input'));
$('open-button').addEventListener('click', () => input.click());
input.addEventListener('change', () => {
  openFiles(input.files);
  input.value = ''; // so that choosing the same file again opens it again
});
$('url-form').addEventListener('submit', (e) => {
  e.preventDefault();
  openUrl(urlInput.value.trim());
});
dropTarget($('drop-overlay'), openFiles);
openLaunchedFiles(openFiles);
offerInstall($('install-button'));
keepForOffline($('update-banner')).catch((e) => console.warn(`ggufscope is not kept for offline use: ${e.message}`));

/**
 * `?file=PATH` opens a file of this site (scripts/run.sh FILE uses it).
 * @returns {Promise<unknown>|undefined}  The viewer's open, or nothing when `path` is not of this site.
 */
function openSiteFile(path) {
  const url = URL.parse(path, location.href);
  if (url?.origin !== location.origin) {
    return viewer.fail(
      { message: `only files from this site can be opened with ?file=, not ${url?.origin ?? path}`, offset: null },
      path,
    );
  }
  return viewer.open({ url });
}

/** A link to a panel (`#panel-tensors`) is followed once the model is shown: the panels come with it. */
function followHash() {
  if (location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
}

if (params.has('url')) openUrl(params.get('url'))?.then(followHash);
else if (params.has('file')) openSiteFile(params.get('file'))?.then(followHash);
else viewer.open({ url: new URL(SAMPLE, location.href) }, { note: SAMPLE_NOTE }).then(followHash);
