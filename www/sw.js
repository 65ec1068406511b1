// The site's service worker: it makes ggufscope an app that works with no network. On install it
// stores every file of one build — the page, its scripts and styles, the wasm modules and the
// sample — in a cache named after that build, and from then on answers for those files, and only
// those, from the cache. Anything else (a model opened by URL, a ?file= path, another site) is
// left to the network untouched: models are never cached.
//
// A new build is a new worker (scripts/stamp-service-worker.mjs writes BUILD below, so any
// change to any file changes this script): it fills its own cache while the old worker keeps
// serving the old files, then waits until the page, told "a new version is ready", asks it to
// take over, and reloads. The browser switches any other open tab of the site to the new worker
// too: such a tab says that it needs a reload, and until it does it keeps loading its own build's
// files — what it loads after the page (the worker, the wasm modules) has names with a hash of
// their content (scripts/version-lazy-files.mjs), which this worker answers from any build's
// cache it has. So an old build's cache is deleted only once no tab that was open when the new
// worker took over is left (each page loaded says so: `prune`).
//
// Registered by app.js only: the <gguf-viewer> embed and the npm package register nothing.

/** This script's global scope, a service worker's (tsconfig.sw.json checks it as one). */
const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

/** The build: its version and the files it consists of, relative to this script. */
const BUILD = { version: 'unbuilt', files: [] };

const CACHE_PREFIX = 'ggufscope-';
const CACHE = CACHE_PREFIX + BUILD.version;
/** The cache listing the tabs that may still load from the old builds' caches. */
const RETIRED = CACHE_PREFIX + 'retired';
const SCOPE = new URL('./', worker.location.href);
const PAGE = 'index.html';
const PRECACHED = new Set(BUILD.files);
/** A file named by its content (scripts/version-lazy-files.mjs's VERSIONED): any build's is the same. */
const VERSIONED = /\.[0-9a-f]{12}\.(?:js|wasm)$/;

worker.addEventListener('install', (event) => {
  // `reload`: straight from the server, so that the HTTP cache cannot slip an old file in.
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(BUILD.files.map((file) => new Request(file, { cache: 'reload' })))),
  );
});

worker.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      // The tabs open now run an older build (or none): its cache stays until they are gone.
      const old = (await caches.keys()).filter(
        (name) => name.startsWith(CACHE_PREFIX) && name !== CACHE && name !== RETIRED,
      );
      if (old.length > 0) {
        const tabs = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
        const before = await retired();
        const record = {
          caches: [...new Set([...before.caches, ...old])],
          tabs: [...new Set([...before.tabs, ...tabs.map((tab) => tab.id)])],
        };
        await (await caches.open(RETIRED)).put('retired', Response.json(record));
      }
      await prune();
      // The first visit's page then loads its lazy modules (the dequantizers, the template
      // engine) through this worker too.
      await worker.clients.claim();
    })(),
  );
});

worker.addEventListener('message', (event) => {
  if (event.data?.type === 'activate-update') worker.skipWaiting();
  else if (event.data?.type === 'prune') event.waitUntil(prune());
});

worker.addEventListener('fetch', (event) => {
  const file = precachedFile(event.request);
  if (file !== null) event.respondWith(answer(event.request, file));
  else if (oldBuildFile(event.request)) event.respondWith(fromAnyBuild(event.request));
});

/**
 * The old builds' caches this worker, or one before it, found as it took over, and the tabs
 * (client ids) open then. Only these are ever deleted: a build installed after this one, waiting
 * for its turn, keeps its cache.
 */
async function retired() {
  const record = await caches.match('retired', { cacheName: RETIRED });
  return record ? record.json() : { caches: [], tabs: [] };
}

/** Deletes the old builds' caches once no tab that may load from them is open. */
async function prune() {
  const { caches: old, tabs } = await retired();
  const open = await Promise.all(tabs.map((id) => worker.clients.get(id)));
  if (open.some((tab) => tab !== undefined)) return;
  await Promise.all([...old, RETIRED].filter((name) => name !== CACHE).map((name) => caches.delete(name)));
}

/** Whether `request` asks for a file named by its content that is not this build's: an old tab's. */
function oldBuildFile(request) {
  if (request.method !== 'GET') return false;
  const url = new URL(request.url);
  return url.origin === SCOPE.origin && url.pathname.startsWith(SCOPE.pathname) && VERSIONED.test(url.pathname);
}

/** The old build's file from whichever cache has it, else from the network (a 404 once deployed over). */
async function fromAnyBuild(request) {
  return (await caches.match(request.url)) ?? fetch(request);
}

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
