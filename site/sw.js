// The site's service worker. On install it caches every file of the built site (the list
// and the version below are written by site/build.mjs), then answers the site's requests
// from that cache first, so a page visited once renders and computes with the network off.
// A new build writes a new VERSION, so the browser installs the new worker, which deletes
// the old cache when it takes over. Requests for anything not in the list go to the network.

const VERSION = 'unbuilt';
const FILES = [];
const CACHE = `kvcalc-site-${VERSION}`;
const PREFIX = 'kvcalc-site-';

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // cache: 'reload' skips the HTTP cache, so the files stored are the ones of this build.
    await cache.addAll(FILES.map((file) => new Request(file, { cache: 'reload' })));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names.filter((n) => n.startsWith(PREFIX) && n !== CACHE).map((n) => caches.delete(n)));
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  event.respondWith(answer(request, url));
});

async function answer(request, url) {
  const cache = await caches.open(CACHE);
  // A folder URL is its index.html, as static hosts serve it.
  const key = url.pathname.endsWith('/') ? new URL('index.html', url).href : url.href;
  const hit = await cache.match(key, { ignoreSearch: true });
  return hit || fetch(request);
}
