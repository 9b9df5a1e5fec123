// The site's pages do not move when their elements go live (DESIGN.md section 4: a layout
// shift of at most 0.01, summed over Chromium's layout-shift entries). The site's build bakes
// them as any author's `kvcalc bake` does, with no browser: each element's first render, as
// its declarative shadow root, has the live element's layout, and the live element takes it
// over in one step.
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
    // 20 elements: 13 on the first pages, 7 on Running locally.
    assert.equal(elements, 20);
  });
}

test('without scripting, a baked element shows its first render: the figures, not the inputs; the words stay in the page', async () => {
  const off = await launch({ javaScriptEnabled: false });
  try {
    const p = await off.context.newPage();
    await p.setViewportSize({ width: 1280, height: 900 });
    await p.goto(`${site.base}/index.html`);
    const seen = await p.$eval('#overview', (el) => {
      const base = el.shadowRoot?.querySelector('.kv[data-kvcalc-baked]');
      const shown = (s) => [...el.shadowRoot.querySelectorAll(s)].filter((n) => getComputedStyle(n).display !== 'none').length;
      return { base: Boolean(base), text: base?.innerText ?? '', controls: shown('.controls, .download'),
        words: el.querySelector('p.fallback[data-kvcalc-baked]')?.textContent ?? '' };
    });
    // 28 layers x 4 KV heads x 128 x 2 (K and V) x 2 B = 57,344 B per token; x 32,768 = 1.75 GiB.
    assert.equal(seen.base, true);
    assert.match(seen.text, /Bytes per token\s+57,344 B/);
    assert.match(seen.text, /1\.75 GiB \(1,879,048,192 B\)/);
    assert.equal(seen.controls, 0);
    assert.match(seen.words, /^Qwen\/Qwen2\.5-7B-Instruct keeps 57,344\sB of KV cache per token/);
  } finally {
    await off.close();
  }
});
