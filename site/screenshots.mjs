// Screenshots of every page of the built site, desktop (1280 wide) and phone (390 wide), in
// light and dark, under the strict CSP, after every <kv-calc> has computed: for a person to
// look at. `node site/screenshots.mjs [OUT_DIR]` (default /tmp/site-shots).

import { chromium } from 'playwright-core';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/serve.mjs';
import { PAGES } from './tools/layout.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = resolve(process.argv[2] || '/tmp/site-shots');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };

mkdirSync(join(OUT, 'parts'), { recursive: true });
const server = await startServer({ mounts: [['/', join(ROOT, 'site-build')]] });
const base = `http://127.0.0.1:${server.address().port}/`;
const profile = mkdtempSync(join(tmpdir(), 'kvcalc-shots-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS, locale: 'en-US', reducedMotion: 'reduce',
});
const files = [...PAGES.map((p) => p.file), 'examples/plain.html'];
const schemes = (process.env.SHOT_SCHEMES || 'light,dark').split(',');
try {
  for (const file of files) {
    for (const [size, viewport] of Object.entries(SIZES)) {
      for (const scheme of schemes) {
        const page = await context.newPage();
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme: scheme });
        const problems = [];
        page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
        await page.goto(base + file);
        // Elements go live as they near the viewport (loading="lazy", the default): bring each
        // near, as a reader scrolling down does, then back to the top.
        for (const el of await page.$$('kv-calc')) {
          await el.scrollIntoViewIfNeeded();
          await el.evaluate((e) => e.updateComplete).catch(() => {});
        }
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.waitForFunction(() => [...document.querySelectorAll('kv-calc')].every((el) => el.result), null, { timeout: 15000 })
          .catch(() => problems.push('a <kv-calc> did not compute within 15 s'));
        const name = `${file.replace(/\//g, '_').replace(/\.html$/, '')}-${size}-${scheme}.png`;
        await page.screenshot({ path: join(OUT, name), fullPage: true });
        // Tall pages also in parts a screen high, which are easier to look at closely.
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        const tile = size === 'phone' ? 1100 : 1400;
        for (let y = 0, i = 1; height > tile * 1.2 && y < height; y += tile, i += 1) {
          await page.screenshot({ path: join(OUT, 'parts', name.replace(/\.png$/, `-part${i}.png`)), fullPage: true,
            clip: { x: 0, y, width: viewport.width, height: Math.min(tile, height - y) } });
        }
        const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
        console.log(`${name}${wide ? '  (wider than the viewport!)' : ''}${problems.length ? `  problems: ${problems.join(' | ')}` : ''}`);
        await page.close();
      }
    }
  }
} finally {
  await context.close();
  await new Promise((ok) => server.close(ok));
  rmSync(profile, { recursive: true, force: true });
}
