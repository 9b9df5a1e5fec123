// Space reserved for the live elements. A baked fallback is a line or a table; the live
// element it turns into is a calculator, taller. So that the page does not move when an
// element goes live (DESIGN.md section 4: a layout shift of at most 0.01), each fallback
// takes the box its live element will take: the site's style sheet gives it, until the
// element matches :state(live), the live element's height. The heights are measured here, in
// headless Chromium, on the built site, at several viewport widths (an element's height
// depends on its width); each rule holds from its width up to the next one measured. On
// another machine the fonts differ, so there the reservation is close rather than exact.
// Without scripting there is nothing to reserve for: the rules are inside
// @media (scripting: enabled).

import { existsSync } from 'node:fs';
import { CSP, startServer } from '../../scripts/serve.mjs';

// Every 40 px from a small phone to a desktop (1280 px and wider: the site's columns stop
// growing at about 1100 px, but a table view takes the window's whole width).
export const WIDTHS = [...Array.from({ length: 24 }, (_, i) => 320 + 40 * i), 1280];
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// The live height (border box, CSS px) of every <kv-calc> of each page, at each of WIDTHS:
// [{ file, selector, heights: { [width]: px } }], or null when there is no Chromium here.
export async function measureLiveHeights(outDir, files) {
  if (!existsSync(CHROMIUM)) return null;
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return null;
  }
  const server = await startServer({ mounts: [['/', outDir]], csp: CSP });
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const widest = WIDTHS[WIDTHS.length - 1];
  const out = [];
  try {
    for (const file of files) {
      const page = await browser.newPage({ viewport: { width: widest, height: 900 }, locale: 'en-US', reducedMotion: 'reduce' });
      await page.goto(`${base}/${file}`);
      // Each element, brought near the viewport, goes live; its selector is its id, or its
      // parent's (an example that shows a snippet as it is written has none of its own).
      const selectors = await page.evaluate(async () => {
        await customElements.whenDefined('kv-calc');
        const found = [];
        for (const el of document.querySelectorAll('kv-calc')) {
          el.scrollIntoView();
          await el.updateComplete;
          found.push(el.id ? `kv-calc#${el.id}` : el.parentElement.id ? `#${el.parentElement.id} > kv-calc` : null);
        }
        return found;
      });
      const missing = selectors.indexOf(null);
      if (missing >= 0) throw new Error(`${file}: its <kv-calc> number ${missing + 1} has no id, nor has its parent: the reserved space needs one`);
      const heights = selectors.map(() => ({}));
      for (const width of [...WIDTHS].reverse()) {
        await page.setViewportSize({ width, height: 900 });
        // Two frames: the charts redraw at their new width (ResizeObserver), then lay out.
        const hs = await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() =>
          ok([...document.querySelectorAll("kv-calc")].map((el) => Math.round(el.getBoundingClientRect().height * 100) / 100))))));
        hs.forEach((h, i) => { heights[i][width] = h; });
      }
      selectors.forEach((selector, i) => out.push({ file, selector, heights: heights[i] }));
      await page.close();
    }
  } finally {
    await browser.close();
    await new Promise((ok) => server.close(ok));
  }
  const seen = new Map();
  for (const { file, selector } of out) {
    if (seen.has(selector)) throw new Error(`${selector} is on ${seen.get(selector)} and ${file}: the reserved space needs site-wide unique ids`);
    seen.set(selector, file);
  }
  return out;
}

// The style sheet text that reserves the measured heights: for each width, the rules whose
// height differs from the one below it.
export function reserveCss(measured) {
  const blocks = [];
  WIDTHS.forEach((width, w) => {
    const rules = measured.filter((m) => w === 0 || m.heights[width] !== m.heights[WIDTHS[w - 1]])
      .map((m) => `  ${m.selector}:not(:state(live)) { min-height: ${m.heights[width]}px; }`);
    if (!rules.length) return;
    const query = w === 0 ? '(scripting: enabled)' : `(scripting: enabled) and (min-width: ${width}px)`;
    blocks.push(`@media ${query} {\n${rules.join('\n')}\n}`);
  });
  const selectors = measured.map((m) => `  ${m.selector}:not(:state(live))`).join(',\n');
  return `
/* Generated when the site is built (site/tools/reserve.mjs): each element's fallback keeps
   the height its live element will have at this width, so the page does not move when it
   goes live. */
@media (scripting: enabled) {
${selectors} { box-sizing: border-box; }
}
${blocks.join('\n')}
`;
}
