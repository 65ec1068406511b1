// The page as an installed app (app.js only, never the embed): its service worker (sw.js, which
// keeps the site for offline use) and the offer to reload into a new version, the Install
// button, and the files the operating system opens with the app ("Open with" on a .gguf).

import { h, replaceChildren } from './dom.js';

/**
 * Registers the site's service worker and, when a new version of the site has been stored and
 * waits, says so in `banner` with a Reload button: the page keeps running on the files it
 * started with until the person chooses, then reloads as the new version takes over, so it never
 * runs on two versions' files. A tab switched by another tab's choice offers the same reload, and
 * keeps loading its own version's files meanwhile (sw.js).
 * @param {HTMLElement} banner  A live region (role="status"), empty until there is news.
 */
export async function keepForOffline(banner) {
  if (!('serviceWorker' in navigator)) return;
  let asked = false;
  const offer = (registration) => {
    const reload = h(
      'button',
      { type: 'button', class: 'button primary small', dataset: { action: 'reload-update' } },
      'Reload',
    );
    reload.addEventListener('click', () => {
      asked = true;
      if (registration?.waiting) registration.waiting.postMessage({ type: 'activate-update' });
      else location.reload();
    });
    replaceChildren(banner, h('span', {}, 'A new version of ggufscope is ready.'), reload);
  };
  // The first worker takes an uncontrolled page: nothing to reload. Later a change of worker is
  // an update, which this page asked for (it reloads) or another tab did (it is offered).
  let controlled = navigator.serviceWorker.controller !== null;
  // This page is its worker's build: an old build's cache, kept for tabs open on it, may go.
  navigator.serviceWorker.controller?.postMessage({ type: 'prune' });
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (asked) location.reload();
    else if (controlled) offer(null);
    controlled = true;
  });

  // `updateViaCache: 'none'`: the browser asks the server for sw.js itself on every check.
  const registration = await navigator.serviceWorker.register('sw.js', { scope: './', updateViaCache: 'none' });
  const offerWhenInstalled = (worker) => {
    worker.addEventListener('statechange', () => {
      if (worker.state === 'installed' && navigator.serviceWorker.controller) offer(registration);
    });
  };
  if (registration.waiting && navigator.serviceWorker.controller) offer(registration);
  if (registration.installing) offerWhenInstalled(registration.installing);
  registration.addEventListener('updatefound', () => offerWhenInstalled(registration.installing));
}

/** Shows `button` where the browser offers to install the site as an app, and installs it on a click. */
export function offerInstall(button) {
  let prompt = null;
  window.addEventListener('beforeinstallprompt', (event) => {
    event.preventDefault(); // the page's own button asks, not the browser's bar
    prompt = event;
    button.hidden = false;
  });
  button.addEventListener('click', async () => {
    if (!prompt) return;
    const offered = prompt;
    prompt = null;
    button.hidden = true;
    await offered.prompt();
  });
  window.addEventListener('appinstalled', () => {
    prompt = null;
    button.hidden = true;
  });
}

/**
 * The Launch Handler API's queue (`window.launchQueue`), which TypeScript's DOM types lack.
 * @typedef {{setConsumer(consumer: (params: {files: FileSystemFileHandle[]}) => void): void}} LaunchQueue
 */

/**
 * Opens the files the app was launched with (the manifest's `file_handlers`: "Open with
 * ggufscope" on one .gguf, or on every shard of a split model) as one model, as a drop does.
 * @param {(files: File[]) => void} openFiles
 */
export function openLaunchedFiles(openFiles) {
  if (!('launchQueue' in window)) return;
  /** @type {LaunchQueue} */ (window.launchQueue).setConsumer(async ({ files }) => {
    if (files.length === 0) return; // launched without files: the page shows what it would
    openFiles(await Promise.all(files.map((handle) => handle.getFile())));
  });
}
