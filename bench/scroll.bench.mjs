// <kv-calc> scrolled into view, cold: one element three screens down (bench/pages), a fresh
// browser profile per run (nothing cached), the files served compressed as a docs host does
// (scripts/serve.mjs). The page loads kvcalc.js and goes quiet; then the element is scrolled
// into view, and the bench times, from that moment:
//   - live: its main figure on screen (the frame after the first kvcalc-change),
//   - complete: every section drawn (the frame after updateComplete resolves),
// for view="formula" and view="all", unthrottled and under mobile throttling (150 ms RTT,
// 1.6 Mbps down, 750 kbps up: CDP Network.emulateNetworkConditions). Median of RUNS (5)
// fresh profiles. It also prints, for the median run, when each file's request started and
// its response ended (Playwright's request timings), so the chain of requests shows.
// Prints the figures; asserts nothing (speed is not a test).
//   node bench/scroll.bench.mjs      (needs dist/: bash scripts/build.sh)
//   KVCALC_DIST_DIR=../main/dist node bench/scroll.bench.mjs   (another build's files)
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/serve.mjs';
import { median, requireDist } from './support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// KVCALC_DIST_DIR: another build's dist/ (for a before/after of the same pages).
const DIST = resolve(process.env.KVCALC_DIST_DIR || join(ROOT, 'dist'));
const RUNS = +(process.env.RUNS || 5);

requireDist(DIST);

// Mobile throttling, as the issue measures it: 150 ms round trip, 1.6 Mbps down, 750 kbps up.
const MOBILE = { offline: false, latency: 150, downloadThroughput: (1.6e6 / 8), uploadThroughput: (750e3 / 8) };

const server = await startServer({ mounts: [['/', join(ROOT, 'tests/browser/pages')], ['/bench/', join(ROOT, 'bench/pages')], ['/dist/', DIST]] });
const base = `http://127.0.0.1:${server.address().port}`;

async function once(view, throttle) {
  const profile = mkdtempSync(join(tmpdir(), 'kvcalc-scroll-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1100, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = context.pages()[0] ?? await context.newPage();
    if (throttle) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', throttle);
    }
    const requests = [];
    page.on('requestfinished', (r) => {
      if (r.url().includes('/dist/')) requests.push({ file: r.url().replace(/^.*\/dist\//, ''), timing: r.timing() });
    });
    await page.goto(`${base}/bench/scroll-${view}.html`);
    await page.waitForFunction(() => customElements.get('kv-calc'));
    await page.waitForLoadState('networkidle');
    const t = await page.evaluate(() => new Promise((ok) => {
      const el = document.getElementById('el');
      const t0 = performance.now();
      const out = { t0: performance.timeOrigin + t0 };
      el.addEventListener('kvcalc-change', () => requestAnimationFrame(() => { out.live = performance.now() - t0; }), { once: true });
      el.scrollIntoView({ block: 'center' });
      // updateComplete of a lazy element not yet started resolves after it goes live.
      requestAnimationFrame(() => el.updateComplete.then(() => requestAnimationFrame(() => {
        out.complete = performance.now() - t0;
        const wait = () => (out.live === undefined ? requestAnimationFrame(wait) : ok(out));
        wait();
      })));
    }));
    // Each file's request after the scroll: start and response end, ms from the scroll.
    const files = requests.filter((r) => r.timing.startTime + r.timing.requestStart >= t.t0 - 1).map(({ file, timing }) => ({
      file,
      start: +(timing.startTime - t.t0).toFixed(1),
      end: +(timing.startTime + timing.responseEnd - t.t0).toFixed(1),
    })).sort((a, b) => a.start - b.start);
    return { live: t.live, complete: t.complete, files };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const figures = {};
console.log(`kv-calc scrolled into view, cold (a fresh profile per run, median of ${RUNS}), files served compressed`);
for (const [name, throttle] of [['unthrottled', null], ['mobile (150 ms RTT, 1.6 Mbps down)', MOBILE]]) {
  for (const view of ['formula', 'all']) {
    const runs = [];
    for (let i = 0; i < RUNS; i += 1) runs.push(await once(view, throttle));
    const live = median(runs.map((r) => r.live));
    const complete = median(runs.map((r) => r.complete));
    const mid = [...runs].sort((a, b) => a.live - b.live)[runs.length >> 1];
    const key = `${throttle ? 'mobile' : 'unthrottled'} view=${view}`;
    figures[key] = { live_median_ms: +live.toFixed(1), complete_median_ms: +complete.toFixed(1),
      live_runs_ms: runs.map((r) => +r.live.toFixed(1)), requests_of_median_run: mid.files };
    console.log(`${name}, view="${view}": main figure live ${live.toFixed(1)} ms (runs ${runs.map((r) => r.live.toFixed(0)).join(', ')}), ` +
      `every section ${complete.toFixed(1)} ms`);
    console.log(`  requests after the scroll (median run), ms from it: ${mid.files.map((f) => `${f.file} ${f.start}-${f.end}`).join(', ')}`);
  }
}
const { loadavg, cpus } = await import('node:os');
console.log(`(load average during the run: ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${cpus().length} cores)`);
console.log(`BENCH_JSON ${JSON.stringify({ scroll: figures })}`);
await new Promise((ok) => server.close(ok));
