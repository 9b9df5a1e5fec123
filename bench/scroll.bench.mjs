// <kv-calc> scrolled into view, cold, on the slow phone of issue 35 (Lighthouse's mobile
// profile: the CPU 4x slower through CDP Emulation.setCPUThrottlingRate, 150 ms round trip,
// 1.6 Mbps down and 750 kbps up through CDP Network.emulateNetworkConditions, a 412 x 823
// phone screen) and on the desktop (1100 x 900, unthrottled). One element three screens
// down (bench/pages), on a page without a baked render (a fallback written by hand) and on
// the same page baked by plain `kvcalc bake` (the element's first render as its
// declarative shadow root), each in a fresh browser context (nothing cached), the files
// served compressed as a docs host does (scripts/serve.mjs). The page loads kvcalc.js and
// goes quiet; then the element is scrolled into view, and the bench times, from that moment:
//   - live: its main figure on screen (the frame after the first kvcalc-change),
//   - complete: every section drawn (the frame after updateComplete resolves),
//   - longest task: the longest main-thread task from the scroll until a moment after
//     complete (PerformanceObserver 'longtask': tasks over 50 ms; "<50" when none was),
//     and, from a Chromium trace of the same span, the most main-thread time one task took
//     (the thread's own time, 'tdur', which the throttling counts and the machine's other
//     processes do not: on a shared machine, the figure a quiet one would show),
// for view="formula" and view="all". Median of RUNS (5). It also prints, for the median
// run, when each file's request started and its response ended (Playwright's request
// timings), so the chain of requests shows, the bytes they brought (as served: brotli),
// and its tasks over 30 ms.
// A/B: KVCALC_DIST_DIR=/path/to/other/dist measures that build (A, the parent) and this
// one's dist/ (B) in the same run, pair by pair, alternating which goes first, each page
// baked by its own build's baker, and prints both medians and B - A.
// Prints the figures; asserts nothing (speed is not a test).
//   node bench/scroll.bench.mjs      (needs dist/: bash scripts/build.sh)
//   KVCALC_DIST_DIR=../parent/dist node bench/scroll.bench.mjs
//   RUNS=9 PROFILES=phone VIEWS=formula PAGES=baked node bench/scroll.bench.mjs   (a subset)
import { chromium } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/serve.mjs';
import { median, requireDist } from './support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = +(process.env.RUNS || 5);
const list = (name, all) => (process.env[name] ? process.env[name].split(',').map((s) => s.trim()) : all);
const VIEWS = list('VIEWS', ['formula', 'all']);
const PAGES = list('PAGES', ['unbaked', 'baked']);

// The builds measured: this one's dist/ (B), and with KVCALC_DIST_DIR another (A).
const BUILDS = [{ name: 'B', dist: join(ROOT, 'dist') }];
if (process.env.KVCALC_DIST_DIR) BUILDS.unshift({ name: 'A', dist: resolve(process.env.KVCALC_DIST_DIR) });
for (const b of BUILDS) requireDist(b.dist);

// Lighthouse's mobile profile as the issue measures it (its "devtools" throttling would add
// request latency to stand for the round trips CDP does not simulate: 562.5 ms, 1.47 Mbps).
const SLOW_PHONE = {
  cpu: 4,
  network: { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 },
  context: { viewport: { width: 412, height: 823 }, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true },
};
const DESKTOP = { cpu: 0, network: null, context: { viewport: { width: 1100, height: 900 } } };
const PROFILES = Object.entries({ phone: ['slow phone (CPU 4x, 150 ms RTT, 1.6 Mbps)', SLOW_PHONE], desktop: ['desktop', DESKTOP] })
  .filter(([key]) => list('PROFILES', ['phone', 'desktop']).includes(key));
// How long after complete a task still counts (slow phone time): what the element does
// after updateComplete (a redraw at a measured width) belongs to the scroll.
const AFTER_COMPLETE_MS = 500;

// Each build's site: the fixture pages' style sheet, the bench pages as written (their
// fallbacks by hand) and the same pages with an empty element, baked by the build's baker.
const scratch = mkdtempSync(join(tmpdir(), 'kvcalc-scroll-'));
for (const b of BUILDS) {
  b.site = join(scratch, b.name);
  mkdirSync(join(b.site, 'bench'), { recursive: true });
  cpSync(join(ROOT, 'tests/browser/pages/page.css'), join(b.site, 'page.css'));
  cpSync(b.dist, join(b.site, 'dist'), { recursive: true });
  for (const view of VIEWS) {
    const page = readFileSync(join(ROOT, `bench/pages/scroll-${view}.html`), 'utf8');
    writeFileSync(join(b.site, 'bench', `unbaked-${view}.html`), page);
    writeFileSync(join(b.site, 'bench', `baked-${view}.html`), page.replace(/(<kv-calc [^>]*>)[\s\S]*?(<\/kv-calc>)/, '$1$2'));
  }
  const r = spawnSync(process.execPath, [join(b.dist, 'cli.mjs'), 'bake', join(b.site, 'bench')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`kvcalc bake (${b.dist}): ${r.stderr}`);
  b.server = await startServer({ mounts: [['/', b.site]] });
  b.base = `http://127.0.0.1:${b.server.address().port}`;
  // The server compresses a file the first time it is asked for (then keeps it): asked for
  // once here, so no run waits for that.
  for (const file of readdirSync(b.dist)) {
    for (const encoding of ['br', 'gzip']) await (await fetch(`${b.base}/dist/${file}`, { headers: { 'accept-encoding': encoding } })).arrayBuffer();
  }
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'] });

// One cold load of a page and a scroll to its element: { live, complete, longest, tasks, files }.
async function once(build, path, { cpu, network, context: options }) {
  const context = await browser.newContext({ ...options, locale: 'en-US' });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    if (cpu) await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
    if (network) {
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', network);
    }
    await page.addInitScript(() => {
      window.__tasks = [];
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) window.__tasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
    });
    const requests = [];
    page.on('requestfinished', async (r) => {
      if (r.url().includes('/dist/')) requests.push({ file: r.url().replace(/^.*\/dist\//, ''), timing: r.timing(), sizes: r.sizes() });
    });
    await page.goto(`${build.base}${path}`);
    await page.waitForFunction(() => customElements.get('kv-calc'));
    await page.waitForLoadState('networkidle');
    // The main thread's tasks, from a trace: how long each held the thread (wall) and the
    // thread's own time in it, which the machine's other processes do not lengthen.
    await browser.startTracing(page, { categories: ['disabled-by-default-devtools.timeline', 'blink.user_timing'] });
    const t = await page.evaluate((after) => new Promise((ok) => {
      const el = document.getElementById('el');
      performance.mark('kvcalc-bench-scroll');
      const t0 = performance.now();
      const out = { t0, origin: performance.timeOrigin + t0 };
      el.addEventListener('kvcalc-change', () => requestAnimationFrame(() => { out.live = performance.now() - t0; }), { once: true });
      el.scrollIntoView({ block: 'center' });
      // updateComplete of a lazy element not yet started resolves after it goes live.
      requestAnimationFrame(() => el.updateComplete.then(() => requestAnimationFrame(() => {
        out.complete = performance.now() - t0;
        const wait = () => (out.live === undefined ? requestAnimationFrame(wait) : setTimeout(() => {
          out.end = performance.now() - t0;
          out.tasks = window.__tasks.filter((x) => x.start + x.duration > t0)
            .map((x) => ({ start: +(x.start - t0).toFixed(0), duration: +x.duration.toFixed(0) }));
          ok(out);
        }, after));
        wait();
      })));
    }), AFTER_COMPLETE_MS * (cpu || 1));
    const traced = threadTasks(JSON.parse(await browser.stopTracing()), t.end);
    // Each file's request after the scroll: start and response end, ms from the scroll.
    const files = await Promise.all(requests.filter((r) => r.timing.startTime + r.timing.requestStart >= t.origin - 1).map(async ({ file, timing, sizes }) => ({
      file,
      bytes: (await sizes).responseBodySize,
      start: +(timing.startTime - t.origin).toFixed(0),
      end: +(timing.startTime + timing.responseEnd - t.origin).toFixed(0),
    }))).then((list) => list.sort((a, b) => a.start - b.start));
    // From the last byte of the files the element asked for to its main figure on screen: the
    // CPU's part of live (what the bytes do not set).
    const lastByte = Math.max(0, ...files.map((f) => f.end));
    return { live: t.live, complete: t.complete, longest: Math.max(0, ...t.tasks.map((x) => x.duration)), tasks: t.tasks, files,
      lastByte, afterLastByte: t.live - lastByte,
      // ...and the main thread's own time in it: that part on a quiet machine.
      threadAfterLastByte: traced.filter((x) => x.start + x.wall > lastByte && x.start < t.live)
        .reduce((sum, x) => sum + x.thread * Math.min(1, (x.start + x.wall - lastByte) / Math.max(1, x.wall)), 0),
      thread: Math.max(0, ...traced.map((x) => x.thread)), traced };
  } finally {
    await context.close();
  }
}

// The renderer's main-thread tasks in a trace (DevTools' tasks: 'RunTask', with the
// microtasks that follow), from the scroll's mark for `span` ms: [{ start, wall, thread }]
// in ms from the mark (thread: the thread's own time, 'tdur').
function threadTasks(trace, span) {
  const events = trace.traceEvents ?? trace;
  const mark = events.find((e) => e.name === 'kvcalc-bench-scroll');
  if (!mark) return [];
  return events.filter((e) => e.pid === mark.pid && e.tid === mark.tid && e.ph === 'X' && e.name === 'RunTask' &&
    e.ts >= mark.ts && e.ts <= mark.ts + span * 1000)
    .map((e) => ({ start: Math.round((e.ts - mark.ts) / 1000), wall: Math.round(e.dur / 1000), thread: Math.round((e.tdur ?? e.dur) / 1000) }));
}

const fmt = (x) => (x === 0 ? '<50' : x.toFixed(0));
const figures = {};
console.log(`kv-calc scrolled into view, cold (a fresh browser context per run, median of ${RUNS}), files served compressed` +
  `${BUILDS.length > 1 ? `; A/B: A ${BUILDS[0].dist}, B ${BUILDS[1].dist}, pair by pair` : ''}`);
const loads = [];
for (const [key, [label, profile]] of PROFILES) {
  console.log(`\n${label}`);
  for (const view of VIEWS) {
    for (const kind of PAGES) {
      const runs = Object.fromEntries(BUILDS.map((b) => [b.name, []]));
      for (let i = 0; i < RUNS; i += 1) {
        // Pair by pair, the order alternating, so a change in the machine's load falls on both.
        const order = i % 2 ? [...BUILDS].reverse() : BUILDS;
        for (const b of order) runs[b.name].push(await once(b, `/bench/${kind}-${view}.html`, profile));
        loads.push(loadavg()[0]);
      }
      for (const b of BUILDS) {
        const rs = runs[b.name];
        const m = { live: median(rs.map((r) => r.live)), complete: median(rs.map((r) => r.complete)),
          lastByte: median(rs.map((r) => r.lastByte)), afterLastByte: median(rs.map((r) => r.afterLastByte)),
          threadAfterLastByte: median(rs.map((r) => r.threadAfterLastByte)),
          longest: median(rs.map((r) => r.longest)), thread: median(rs.map((r) => r.thread)) };
        const mid = [...rs].sort((x, y) => x.live - y.live)[rs.length >> 1];
        figures[`${key} view=${view} ${kind}${BUILDS.length > 1 ? ` ${b.name}` : ''}`] = {
          live_median_ms: +m.live.toFixed(1), complete_median_ms: +m.complete.toFixed(1), longest_task_median_ms: +m.longest.toFixed(0),
          longest_task_thread_median_ms: m.thread, last_byte_median_ms: m.lastByte, live_after_last_byte_median_ms: +m.afterLastByte.toFixed(1),
          thread_time_after_last_byte_median_ms: +m.threadAfterLastByte.toFixed(1),
          live_runs_ms: rs.map((r) => +r.live.toFixed(0)), complete_runs_ms: rs.map((r) => +r.complete.toFixed(0)),
          longest_task_runs_ms: rs.map((r) => r.longest), longest_task_thread_runs_ms: rs.map((r) => r.thread),
          requests_of_median_run: mid.files, long_tasks_of_median_run: mid.tasks,
        };
        b.last = m;
        console.log(`  view="${view}" ${kind.padEnd(7)}${BUILDS.length > 1 ? ` ${b.name}` : ''}: live ${m.live.toFixed(0).padStart(5)} ms, ` +
          `every section ${m.complete.toFixed(0).padStart(5)} ms, longest task ${fmt(m.longest).padStart(4)} ms (thread time ${m.thread.toFixed(0).padStart(3)} ms); ` +
          `last byte ${m.lastByte.toFixed(0)} ms, live ${m.afterLastByte.toFixed(0)} ms after it (thread time ${m.threadAfterLastByte.toFixed(0)} ms)`);
        console.log(`      runs: live ${rs.map((r) => r.live.toFixed(0)).join(' ')}; every section ${rs.map((r) => r.complete.toFixed(0)).join(' ')}; ` +
          `longest ${rs.map((r) => fmt(r.longest)).join(' ')}; thread time ${rs.map((r) => r.thread).join(' ')}`);
        console.log(`      median run: requests (ms from the scroll) ${mid.files.map((f) => `${f.file} ${f.start}-${f.end}`).join(', ')}; ` +
          `${mid.files.reduce((sum, f) => sum + f.bytes, 0).toLocaleString('en-US')} B`);
        console.log(`      long tasks (start+duration): ${mid.tasks.map((x) => `${x.start}+${x.duration}`).join(", ") || "none"}`);
        console.log(`      tasks over 30 ms (start+wall/thread) ${mid.traced.filter((x) => x.wall > 30 || x.thread > 30)
          .map((x) => `${x.start}+${x.wall}/${x.thread}`).join(', ') || 'none'}`);
      }
      if (BUILDS.length > 1) {
        const [a, b] = BUILDS.map((x) => x.last);
        const d = (k) => `${b[k] - a[k] >= 0 ? '+' : ''}${(b[k] - a[k]).toFixed(0)}`;
        console.log(`    B - A: live ${d('live')} ms, every section ${d('complete')} ms, longest task ${d('longest')} ms (thread time ${d('thread')} ms), ` +
          `live after the last byte ${d('afterLastByte')} ms (thread time ${d('threadAfterLastByte')} ms)`);
      }
    }
  }
}
const load = { during_median: +median(loads).toFixed(2), max: +Math.max(...loads).toFixed(2), now: loadavg().map((x) => +x.toFixed(2)) };
console.log(`(load average during the runs: median ${load.during_median}, max ${load.max} on ${cpus().length} cores)`);
console.log(`BENCH_JSON ${JSON.stringify({ scroll: { ...figures, load_average: load } })}`);
await browser.close();
for (const b of BUILDS) await new Promise((ok) => b.server.close(ok));
rmSync(scratch, { recursive: true, force: true });
