// Layout shift as <kv-calc> elements go live on pages baked by plain `kvcalc bake` (no
// browser at build time): a short page (one formula element with text below it) and a page
// with four views (formula, gqa, check, table), each element followed by text that moves if
// the element changes height. Each element is jumped to (scrolled into the middle of the
// screen) and goes live there, the hardest case. On a desktop (1280 x 900), a phone
// (390 x 844) and the slow phone of issue 35 (the phone's screen, CPU 4x slower, 150 ms
// RTT, 1.6 Mbps down); cold (a fresh browser context: nothing cached) and cached (the same
// page loaded again in that context). The pages are served as a documentation host serves
// them (scripts/serve.mjs: compressed, revalidated) under the strict CSP. Prints the summed
// layout shift (Chromium's layout-shift entries without recent input) of each; asserts
// nothing (the tests assert the bound: bake-shift.test.mjs).
//   node bench/shift.bench.mjs
//   KVCALC_DIST_DIR=../main/dist node bench/shift.bench.mjs   (another build's files and baker)
import { chromium } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../scripts/serve.mjs';
import { requireDist } from './support.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = resolve(process.env.KVCALC_DIST_DIR || join(ROOT, 'dist'));
requireDist(DIST);

const TEXT = '<p>Text below the element, which moves if the element changes height when it goes live.</p>\n'.repeat(6);
const PAGES = {
  short: ['<kv-calc model="Qwen/Qwen2.5-7B-Instruct" context="32768"></kv-calc>'],
  'four views': [
    '<kv-calc model="Qwen/Qwen2.5-7B-Instruct" context="32768"></kv-calc>',
    '<kv-calc model="Qwen/Qwen2.5-7B-Instruct" context="32768" view="gqa"></kv-calc>',
    '<kv-calc model="Qwen/Qwen2.5-7B-Instruct" view="check" max-context="1048576" pool-tokens="681280"></kv-calc>',
    '<kv-calc view="table" models="Qwen/Qwen2.5-7B-Instruct Qwen/Qwen3-8B"></kv-calc>',
  ],
};
const MOBILE_NETWORK = { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 };
const DEVICES = {
  desktop: { viewport: { width: 1280, height: 900 } },
  phone: { viewport: { width: 390, height: 844 } },
  'slow phone': { viewport: { width: 390, height: 844 }, cpu: 4, network: MOBILE_NETWORK },
};

// The plain-HTML example's page (its CSP and script tag) with the elements, baked by the
// baker of the build measured.
const scratch = mkdtempSync(join(tmpdir(), 'kvcalc-shift-bench-'));
const example = readFileSync(join(ROOT, 'examples/plain-html/index.html'), 'utf8');
for (const [name, elements] of Object.entries(PAGES)) {
  const dir = join(scratch, name.replace(' ', '-'));
  cpSync(DIST, join(dir, 'kvcalc'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), example.replace(/<kv-calc[\s\S]*<\/kv-calc>\n/,
    `<p>A paragraph above the element.</p>\n${elements.map((e) => `${e}\n${TEXT}`).join('')}`));
  const r = spawnSync(process.execPath, [join(DIST, 'cli.mjs'), 'bake', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`kvcalc bake ${dir}: ${r.stderr}`);
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'] });

// The summed layout shift of one load of the page, each element jumped to in turn.
async function load(page, url) {
  await page.goto(url);
  return page.evaluate(async () => {
    for (const el of document.querySelectorAll('kv-calc')) {
      await customElements.whenDefined('kv-calc');
      el.scrollIntoView({ block: 'center' });
      await el.updateComplete;
    }
    await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    return window.__shift;
  });
}

const figures = {};
console.log(`layout shift as each element goes live, pages baked by plain \`kvcalc bake\` (${DIST})`);
for (const [name] of Object.entries(PAGES)) {
  const server = await startServer({ mounts: [['/', join(scratch, name.replace(' ', '-'))]] });
  const url = `http://127.0.0.1:${server.address().port}/index.html`;
  for (const [device, { viewport, cpu, network }] of Object.entries(DEVICES)) {
    const context = await browser.newContext({ viewport, locale: 'en-US' });
    const page = await context.newPage();
    if (cpu || network) {
      const cdp = await context.newCDPSession(page);
      if (cpu) await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
      if (network) {
        await cdp.send('Network.enable');
        await cdp.send('Network.emulateNetworkConditions', network);
      }
    }
    await page.addInitScript(() => {
      window.__shift = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
      }).observe({ type: 'layout-shift', buffered: true });
    });
    const cold = await load(page, url);
    const cached = await load(page, url);
    await context.close();
    figures[`${name}, ${device}`] = { cold: +cold.toFixed(4), cached: +cached.toFixed(4) };
    console.log(`  ${name.padEnd(10)} ${device.padEnd(10)}  cold ${cold.toFixed(4)}  cached ${cached.toFixed(4)}`);
  }
  await new Promise((ok) => server.close(ok));
}
await browser.close();
rmSync(scratch, { recursive: true, force: true });
console.log(`BENCH_JSON ${JSON.stringify({ shift: figures })}`);
