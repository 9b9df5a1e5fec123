// The site offline: one visit installs the service worker, which caches every file of the
// build; then, with Chromium offline and the server itself shut down, a reload and every
// other page (never visited) still render and compute the same figures.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CSP, startServer } from '../../scripts/serve.mjs';
import { ALL_PAGES, SITE_BUILD, kvcalc, launch, openPage, sizeArgs, sizeOf, waitForWidgets, widgets } from './site-pages/support.mjs';

test('after one visit, with the network off, a reload and every page render and compute from the cache', async () => {
  const sw = readFileSync(join(SITE_BUILD, 'sw.js'), 'utf8');
  const version = /const VERSION = '([0-9a-f]{16})';/.exec(sw)?.[1];
  assert.ok(version, 'sw.js carries the build version');
  const files = JSON.parse(/const FILES = (\[[\s\S]*?\]);/.exec(sw)[1]);

  const server = await startServer({ mounts: [['/', SITE_BUILD]], csp: CSP });
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await launch();
  let serverOpen = true;
  try {
    const { page, log } = await openPage(browser, `${base}/index.html`);
    await waitForWidgets(page);
    // The worker is active (its install cached every file) and controls the page. (Playwright
    // gives up after 30 s, so a site without a worker fails here instead of hanging.)
    await page.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated')
      .catch(() => assert.fail('no active service worker controls the page'));
    const cache = await page.evaluate(async () => {
      const names = await caches.keys();
      const keys = names.length === 1 ? await (await caches.open(names[0])).keys() : [];
      return { names, paths: keys.map((r) => new URL(r.url).pathname).sort() };
    });
    assert.deepEqual(cache.names, [`kvcalc-site-${version}`]);
    assert.deepEqual(cache.paths, files.map((f) => `/${f}`).sort());

    // The network off, twice over: Chromium's offline mode, and no server to reach.
    await browser.context.setOffline(true);
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
    serverOpen = false;
    await assert.rejects(fetch(`${base}/index.html`), 'the server is gone');

    const expected = kvcalc(sizeArgs({ model: 'Qwen/Qwen2.5-7B-Instruct', context: '32768' }));
    const reload = await page.reload();
    assert.equal(reload.status(), 200);
    assert.ok(reload.fromServiceWorker(), 'the reload came from the service worker');
    await waitForWidgets(page);
    const [overview] = await widgets(page);
    // 2 x 28 x 4 x 128 x 2 = 57,344 B per token; x 32,768 = 1,879,048,192 B.
    assert.deepEqual([overview.result.bytesPerToken, overview.result.kvBytes], [57344, 1879048192]);
    assert.deepEqual([overview.result.bytesPerToken, overview.result.kvBytes], [expected.bytes_per_token, expected.kv_bytes]);
    assert.match(overview.shownText, /57,344 B/);

    for (const file of ALL_PAGES) {
      const response = await page.goto(`${base}/${file}`);
      assert.ok(response.fromServiceWorker(), `${file} from the service worker`);
      await waitForWidgets(page);
      for (const w of await widgets(page)) {
        if (w.attrs.view === 'table') {
          assert.ok(w.tables.live.models.length > 0, `${file} #${w.id}: the live table has rows`);
          continue;
        }
        const cli = sizeOf(w);
        assert.equal(w.result.kvBytes, cli.kv_bytes, `${file} #${w.id} offline`);
      }
    }
    assert.deepEqual(await log.problems(), { consoleErrors: [], pageErrors: [], failed: [], csp: [] });
    await page.close();
  } finally {
    await browser.close();
    if (serverOpen) await new Promise((ok) => server.close(ok));
  }
});
