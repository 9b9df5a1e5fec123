// axe-core on every page of the built site (site-build/), served under the strict CSP:
// zero violations in light and dark, on a desktop and on a phone, once every element is live.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { AXE_PATH } from './harness.mjs';
import { ALL_PAGES, openPage, runAxe, servedSite, waitForWidgets } from './site-pages/support.mjs';

const site = servedSite('index.html', [['/axe/', dirname(AXE_PATH)]]);

test('axe-core: zero violations on every page, light and dark, desktop and phone', async () => {
  const modes = [
    { colorScheme: 'light', viewport: { width: 1280, height: 900 } },
    { colorScheme: 'dark', viewport: { width: 1280, height: 900 } },
    { colorScheme: 'light', viewport: { width: 390, height: 844 } },
    { colorScheme: 'dark', viewport: { width: 390, height: 844 } },
  ];
  for (const mode of modes) {
    for (const file of ALL_PAGES) {
      const { page } = await openPage(site.browser, `${site.base}/${file}`, mode);
      await waitForWidgets(page);
      assert.deepEqual(await runAxe(page), [], `${file} (${mode.colorScheme}, ${mode.viewport.width} wide)`);
      await page.close();
    }
  }
});
