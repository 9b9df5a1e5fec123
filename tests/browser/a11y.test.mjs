// axe-core finds no violations on any fixture page, in light and dark schemes and at
// desktop and phone widths, with every view showing and after the reader changed things.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, waitForWidgets, runAxe } from './harness.mjs';

let env;
before(async () => { env = await startBrowser({ axe: true }); });
after(async () => { await env?.close(); });

const PAGES = ['/formula.html', '/table.html', '/gqa.html', '/check.html', '/all.html', '/inline.html', '/bad.html', '/xss.html'];
const MODES = [
  { name: 'light, desktop', colorScheme: 'light', viewport: { width: 1100, height: 900 } },
  { name: 'dark, phone', colorScheme: 'dark', viewport: { width: 375, height: 800 } },
];

for (const mode of MODES) {
  test(`axe: zero violations (${mode.name})`, async () => {
    for (const path of PAGES) {
      const { page } = await openPage(env, path, mode);
      await waitForWidgets(page);
      assert.deepEqual(await runAxe(page), [], `${path} (${mode.name})`);
      await page.close();
    }
  });
}

test('axe: zero violations with errors shown and the config panel open', async () => {
  const { page } = await openPage(env, '/all.html');
  await waitForWidgets(page);
  await page.locator('#all summary', { hasText: 'Use your own config.json' }).click();
  await page.locator('#all textarea[name=config]').fill('{ "num_hidden_layers": 2 }');
  await page.locator('#all button', { hasText: 'Use this config' }).click();
  await page.locator('#all input[name=context]').fill('abc');
  await page.locator('#all input[type=radio][value=log]').check();
  assert.deepEqual(await runAxe(page), []);
  await page.close();
});
