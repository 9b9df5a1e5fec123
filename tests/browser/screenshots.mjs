// Screenshots of every fixture page at desktop and phone widths (light, and dark at phone
// width), for a person to look at: node tests/browser/screenshots.mjs [outdir]
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowser, openPage, waitForWidgets } from './harness.mjs';

const out = process.argv[2] || '/tmp/kvcalc-shots';
mkdirSync(out, { recursive: true });
const PAGES = ['formula', 'table', 'gqa', 'check', 'all', 'inline', 'bad', 'xss', 'lang-de'];
const MODES = [
  ['desktop', { width: 1100, height: 900 }, 'light'],
  ['phone', { width: 375, height: 800 }, 'light'],
  ['phone-dark', { width: 375, height: 800 }, 'dark'],
];
const env = await startBrowser();
for (const name of PAGES) {
  for (const [mode, viewport, colorScheme] of MODES) {
    const { page } = await openPage(env, `/${name}.html`, { viewport, colorScheme });
    await waitForWidgets(page);
    // one picture per element, so each is legible at its real size
    for (const id of await page.$$eval('kv-calc', (els) => els.map((el) => el.id))) {
      const file = join(out, `${name}-${id}-${mode}.png`);
      await page.locator(`#${id}`).screenshot({ path: file });
      console.log(file);
    }
    await page.close();
  }
}
await env.close();
