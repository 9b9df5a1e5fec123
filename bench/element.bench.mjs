// <kv-calc> in headless Chromium: the time from the element coming into view to its first
// computed result on screen (target <= 100 ms): for elements in the first screen, from the
// page's first paint (and, as before, from DOMContentLoaded); for one three screens down,
// from the jump that brings it into view (it starts loading then). And the median
// re-render time over 200 input changes (target < 4 ms). Prints the figures; asserts
// nothing (speed is not a test).
//   node bench/element.bench.mjs      (needs dist/: bash scripts/build.sh)
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/serve.mjs';
import { median, requireDist } from './support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PAGES = join(ROOT, 'tests/browser/pages');
const DIST = join(ROOT, 'dist');
const LOADS = +(process.env.LOADS || 15);
const CHANGES = +(process.env.CHANGES || 200);

requireDist(DIST);
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x) => `${x.toFixed(2)} ms`;

const server = await startServer({ mounts: [['/', PAGES], ['/dist/', DIST]] });
const base = `http://127.0.0.1:${server.address().port}`;
const profile = mkdtempSync(join(tmpdir(), 'kvcalc-bench-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1100, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

// In the page before any script: DOMContentLoaded, then the first kvcalc-change (the
// element dispatches it right after it wrote the result), then the frame that shows it.
await context.addInitScript(() => {
  window.__bench = {};
  document.addEventListener('DOMContentLoaded', () => { window.__bench.dcl = performance.now(); });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') window.__bench.fcp = e.startTime;
  }).observe({ type: 'paint', buffered: true });
  document.addEventListener('kvcalc-change', () => {
    if (window.__bench.result !== undefined) return;
    window.__bench.result = performance.now();
    requestAnimationFrame(() => { window.__bench.frame = performance.now(); });
  }, true);
});

async function firstResult(path) {
  const toResult = [];
  const toFrame = [];
  const fromPaint = [];
  for (let i = 0; i < LOADS; i += 1) {
    const page = await context.newPage();
    await page.goto(base + path);
    await page.waitForFunction(() => window.__bench.frame !== undefined && window.__bench.fcp !== undefined);
    const b = await page.evaluate(() => window.__bench);
    toResult.push(b.result - b.dcl);
    toFrame.push(b.frame - b.dcl);
    fromPaint.push(b.frame - b.fcp);
    await page.close();
  }
  return { toResult, toFrame, fromPaint };
}

// lazy.html: an element three screens down is jumped to; from the jump to its result on
// screen (the next frame after kvcalc-change).
async function afterJump() {
  const times = [];
  for (let i = 0; i < LOADS; i += 1) {
    const page = await context.newPage();
    await page.goto(`${base}/lazy.html`);
    await page.waitForLoadState('networkidle');
    times.push(await page.evaluate(() => new Promise((ok) => {
      const el = document.getElementById('formula');
      const t0 = performance.now();
      el.addEventListener('kvcalc-change', () => requestAnimationFrame(() => ok(performance.now() - t0)), { once: true });
      el.scrollIntoView({ block: 'center' });
    })));
    await page.close();
  }
  return times;
}

// Types a new context into one element's input CHANGES times; each time measures from the
// input event to the main figures on screen (the kvcalc-change event that closes the
// render of the view's first section) and to every section drawn (updateComplete).
async function rerender(path, selector) {
  const page = await context.newPage();
  await page.goto(base + path);
  await page.waitForFunction((sel) => document.querySelector(sel)?.result, selector);
  const times = await page.evaluate(async ({ sel, n }) => {
    const el = document.querySelector(sel);
    const input = el.shadowRoot.querySelector('input[name=context]');
    const main = [];
    const all = [];
    for (let i = 0; i < n; i += 1) {
      let tMain = 0;
      el.addEventListener('kvcalc-change', () => { tMain = performance.now(); }, { once: true });
      const t0 = performance.now();
      input.value = String(4096 + i * 1237);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await el.updateComplete;
      all.push(performance.now() - t0);
      main.push(tMain - t0);
      await new Promise((ok) => setTimeout(ok, 0));
    }
    return { main, all };
  }, { sel: selector, n: CHANGES });
  await page.close();
  return times;
}

console.log(`kv-calc element bench (headless Chromium, ${LOADS} loads, ${CHANGES} input changes)`);
const figures = { first_result_ms: {}, rerender_ms: {} };
for (const [path, label] of [['/formula.html', 'formula page (4 elements)'], ['/all.html', 'all views (1 element)'], ['/many.html', '20 elements']]) {
  const { toResult, toFrame, fromPaint } = await firstResult(path);
  figures.first_result_ms[path] = { from_first_paint_median: +median(fromPaint).toFixed(2), median: +median(toResult).toFixed(2),
    next_frame_median: +median(toFrame).toFixed(2) };
  console.log(`first result on screen after the first paint, ${label}: median ${ms(median(fromPaint))} (worst ${ms(Math.max(...fromPaint))}); ` +
    `after DOMContentLoaded: ${ms(median(toResult))}, on screen ${ms(median(toFrame))} target <= 100 ms`);
}
const jumps = await afterJump();
figures.first_result_ms['/lazy.html jump'] = { median: +median(jumps).toFixed(2) };
console.log(`first result on screen after a jump to an element three screens down (lazy: it starts loading then): median ${ms(median(jumps))} ` +
  `(worst ${ms(Math.max(...jumps))}) target <= 100 ms`);
for (const [path, sel, label] of [['/formula.html', '#qwen', 'formula view + chart'], ['/all.html', '#all', 'all views'],
  ['/table.html', '#presets', 'table of every preset'], ['/gqa.html', '#gqa', 'GQA view']]) {
  const { main, all } = await rerender(path, sel);
  figures.rerender_ms[`${path} ${sel}`] = { main_median: +median(main).toFixed(2), all_sections_median: +median(all).toFixed(2) };
  console.log(`re-render after an input change, ${label}: main figures median ${ms(median(main))} (p95 ${ms(pct(main, 0.95))}), ` +
    `every section median ${ms(median(all))} (p95 ${ms(pct(all, 0.95))}) target < 4 ms`);
}
const { loadavg, cpus } = await import('node:os');
figures.load_average = loadavg().map((x) => +x.toFixed(2));
console.log(`(load average during the run: ${figures.load_average.join(' ')} on ${cpus().length} cores)`);
console.log(`BENCH_JSON ${JSON.stringify({ element: figures })}`);

await context.close();
await new Promise((ok) => server.close(ok));
rmSync(profile, { recursive: true, force: true });
