// The site's pages do not move when their elements go live (DESIGN.md section 4: a layout
// shift of at most 0.01, summed over Chromium's layout-shift entries). Each fallback keeps
// the box its live element will take (the heights the site's build measured, reserved in
// site.css until the element matches :state(live)), and the element replaces it in one step.
// The hardest case is checked: each element is jumped to, so it goes live in view, as after
// following a link to a heading below it; the elements in the first screen go live as the
// page opens. On a desktop and on a phone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jumpToEach } from './harness.mjs';
import { SITE_PAGES, launch, servedSite } from './site-pages/support.mjs';

const site = servedSite('index.html');

// Opens file at viewport, jumps to each element in turn (each goes live where it is), and
// returns the layout-shift entries (value and what moved) and how many elements went live.
async function shiftsOf(file, viewport) {
  const page = await site.browser.context.newPage();
  await page.setViewportSize(viewport);
  await page.addInitScript(() => {
    window.__shifts = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (e.hadRecentInput) continue;
        window.__shifts.push({ value: e.value, moved: e.sources.map((s) => `${s.node?.nodeName ?? '(inside an element)'} ` +
          `y ${Math.round(s.previousRect.y)} -> ${Math.round(s.currentRect.y)}, height ${Math.round(s.previousRect.height)} -> ${Math.round(s.currentRect.height)}`) });
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
  await page.goto(`${site.base}/${file}`);
  const live = await jumpToEach(page);
  const shifts = await page.evaluate(() => window.__shifts);
  await page.close();
  return { shifts, live };
}

for (const [name, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
  test(`${name}: every element of every page goes live with a layout shift of at most 0.01`, async () => {
    let elements = 0;
    for (const file of SITE_PAGES) {
      const { shifts, live } = await shiftsOf(file, viewport);
      elements += live;
      const total = shifts.reduce((sum, s) => sum + s.value, 0);
      assert.ok(total <= 0.01, `${file}: layout shift ${total.toFixed(4)}: ${JSON.stringify(shifts, null, 1)}`);
    }
    // 13 elements on 8 of the 9 pages (the FAQ has none).
    assert.equal(elements, 13);
  });
}

test('the space is reserved only where scripting runs: without it, a fallback is its own height', async () => {
  const page = await site.browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  // Until its element goes live a fallback (on the index page, one paragraph) holds the live
  // element's height: seen here on a page where the element's code never arrives.
  await page.route('**/dist/live.js', (route) => route.abort());
  await page.goto(`${site.base}/index.html`);
  const reserved = await page.$eval('#overview', (el) => el.getBoundingClientRect().height);
  await page.close();
  const off = await launch({ javaScriptEnabled: false });
  try {
    const p = await off.context.newPage();
    await p.setViewportSize({ width: 1280, height: 900 });
    await p.goto(`${site.base}/index.html`);
    const { minHeight, height } = await p.$eval('#overview', (el) => ({
      minHeight: getComputedStyle(el).minHeight, height: el.getBoundingClientRect().height }));
    assert.equal(minHeight, 'auto');
    assert.ok(height < 200, `the fallback is ${height} px tall`);
    assert.ok(reserved > 4 * height, `reserved ${reserved} px for a fallback of ${height} px`);
  } finally {
    await off.close();
  }
});
