// The site's service worker: it makes ggufscope an app that works with no network. On install it
// stores every file of one build — the page, its scripts and styles, the wasm modules and the
// sample — in a cache named after that build, and from then on answers for those files, and only
// those, from the cache. Anything else (a model opened by URL, a ?file= path, another site) is
// left to the network untouched: models are never cached.
//
// A new build is a new worker (scripts/stamp-service-worker.mjs writes BUILD below, so any
// change to any file changes this script): it fills its own cache while the old worker keeps
// serving the old files, then waits until the page, told "a new version is ready", asks it to
// take over, and reloads; only then is the old cache deleted. The browser switches any other
// open tab of the site to the new worker too: such a tab says that it needs a reload.
//
// Registered by app.js only: the <gguf-viewer> embed and the npm package register nothing.

/** This script's global scope, a service worker's (tsconfig.sw.json checks it as one). */
const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

/** The build: its version and the files it consists of, relative to this script. */
const BUILD = { version: 'unbuilt', files: [] };

const CACHE_PREFIX = 'ggufscope-';
const CACHE = CACHE_PREFIX + BUILD.version;
const SCOPE = new URL('./', worker.location.href);
const PAGE = 'index.html';
const PRECACHED = new Set(BUILD.files);

worker.addEventListener('install', (event) => {
  // `reload`: straight from the server, so that the HTTP cache cannot slip an old file in.
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(BUILD.files.map((file) => new Request(file, { cache: 'reload' })))),
  );
});

worker.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const names = await caches.keys();
      await Promise.all(
        names.filter((name) => name.startsWith(CACHE_PREFIX) && name !== CACHE).map((name) => caches.delete(name)),
      );
      // The first visit's page then loads its lazy modules (the dequantizers, the template
      // engine) through this worker too.
      await worker.clients.claim();
    })(),
  );
});

worker.addEventListener('message', (event) => {
  if (event.data?.type === 'activate-update') worker.skipWaiting();
});

worker.addEventListener('fetch', (event) => {
  const file = precachedFile(event.request);
  if (file !== null) event.respondWith(answer(event.request, file));
});

/** The precached file `request` asks for (the page for any navigation to the scope), or null. */
function precachedFile(request) {
  if (request.method !== 'GET') return null;
  const url = new URL(request.url);
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return null;
  const file = url.pathname.slice(SCOPE.pathname.length) || PAGE;
  return PRECACHED.has(file) ? file : null;
}

/**
 * The cached answer for `file`: whole, or the part a Range request asks for (the page reads the
 * sample as it reads any URL). A file missing from the cache — storage the browser cleared —
 * comes from the network.
 */
async function answer(request, file) {
  const cached = await caches.match(file, { cacheName: CACHE });
  if (!cached) return fetch(request);
  const range = request.headers.get('range');
  return range === null ? cached : part(cached, range);
}

/** A 206 with the bytes `bytes=FIRST-[LAST]` names of `whole`, or a 416 for any other range. */
async function part(whole, range) {
  const body = await whole.blob();
  const [, first, last] = /^bytes=(\d+)-(\d*)$/.exec(range) ?? [];
  const start = Number(first);
  const end = last ? Math.min(Number(last), body.size - 1) : body.size - 1;
  if (first === undefined || start > end) {
    return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${body.size}` } });
  }
  return new Response(body.slice(start, end + 1), {
    status: 206,
    headers: {
      'Content-Type': whole.headers.get('content-type') ?? 'application/octet-stream',
      'Content-Range': `bytes ${start}-${end}/${body.size}`,
      'Content-Length': String(end - start + 1),
      'Accept-Ranges': 'bytes',
    },
  });
}
