// An author's page, baked by `kvcalc bake --reserve`, does not move when its elements go live
// (DESIGN.md section 4: a layout shift of at most 0.01, summed over Chromium's layout-shift
// entries), as the project's site does not: the plain-HTML example's page (its strict CSP
// included) with text below each element, on a site folder that holds the package's dist/
// as the package README says. Without --reserve the same page moves (the measure can fail);
// with it, each fallback holds its live element's height (kvcalc-reserve.css, linked from
// the page), and a second run changes no page. Each element is jumped to, so it goes live in
// view; on a desktop and on a phone. The build plugins' reserve option does the same: the
// Docusaurus plugin's postBuild (kvcalc/bake's bakeSite) on the same page, and the Vite
// plugin in a real `vite build` (the Vite of examples/vite-app, from
// scripts/setup-examples.sh) of a page that imports the package.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, CSP, DIST, ROOT, jumpToEach } from './harness.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { toolFile } from './examples-support.mjs';
import { chromium } from 'playwright-core';

const scratch = mkdtempSync(join(tmpdir(), 'kvcalc-bake-shift-'));
let browser;
before(async () => { browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }); });
after(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

// The example's page with four empty elements, each followed by text that would move.
const TEXT = '<p>Text below the element, which moves if the element changes height when it goes live.</p>\n'.repeat(6);
function site(name) {
  const dir = join(scratch, name);
  cpSync(join(ROOT, 'examples/plain-html'), dir, { recursive: true });
  cpSync(DIST, join(dir, 'kvcalc'), { recursive: true });
  const example = readFileSync(join(ROOT, 'examples/plain-html/index.html'), 'utf8');
  const elements = [
    '<kv-calc model="Qwen/Qwen2.5-7B-Instruct" context="32768"></kv-calc>',
    '<kv-calc model="Qwen/Qwen2.5-7B-Instruct" context="32768" view="gqa"></kv-calc>',
    '<kv-calc model="Qwen/Qwen2.5-7B-Instruct" view="check" max-context="1048576" pool-tokens="681280"></kv-calc>',
    '<kv-calc view="table" models="Qwen/Qwen2.5-7B-Instruct Qwen/Qwen3-8B"></kv-calc>',
  ].map((e) => `${e}\n${TEXT}`).join('');
  const page = example.replace(/<kv-calc[\s\S]*<\/kv-calc>\n/, elements);
  assert.notEqual(page, example);
  writeFileSync(join(dir, 'index.html'), page);
  return dir;
}

const bake = (args) => {
  const r = spawnSync(process.execPath, [join(DIST, 'cli.mjs'), 'bake', ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r;
};

// The summed layout shift of the page as each element goes live in view, and how many did.
async function shiftOf(dir, viewport) {
  const server = await startServer({ mounts: [['/', dir]], csp: CSP });
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  try {
    await page.addInitScript(() => {
      window.__shift = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
      }).observe({ type: 'layout-shift', buffered: true });
    });
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    const live = await jumpToEach(page);
    assert.deepEqual(errors, []);
    return { shift: await page.evaluate(() => window.__shift), live };
  } finally {
    await page.close();
    await new Promise((ok) => server.close(ok));
  }
}

// The page's four elements each baked and named for the reservation style sheet.
function assertBakedAndMarked(html) {
  assert.equal(html.match(/data-kvcalc-baked="/g).length, 4);
  assert.equal(html.match(/<kv-calc [^>]*data-kvcalc-box="[0-9a-f]{8}-[1-4]">/g).length, 4);
}

const VIEWPORTS = [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]];

test('baked without --reserve, the page moves as its elements go live', async () => {
  const dir = site('plain');
  bake([dir]);
  assert.ok(!existsSync(join(dir, 'kvcalc-reserve.css')));
  for (const [name, viewport] of VIEWPORTS) {
    const { shift, live } = await shiftOf(dir, viewport);
    assert.equal(live, 4);
    assert.ok(shift > 0.1, `${name}: layout shift ${shift}`);
  }
});

test('kvcalc bake --reserve: every element goes live with a layout shift of at most 0.01; a second run changes no page', async () => {
  const dir = site('reserved');
  const r = bake([dir, '--reserve']);
  assert.match(r.stdout, /kvcalc bake: 4 <kv-calc> in 1 file; 1 file changed\n/);
  assert.match(r.stdout, /kvcalc bake --reserve: .*kvcalc-reserve\.css: the live heights of 4 elements in 1 file\n/);
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  // The style sheet from the page's own origin (the CSP refuses inline styles), each element
  // named for it, its baked fallback kept.
  assert.equal(html.match(/<link rel="stylesheet" href="kvcalc-reserve\.css" data-kvcalc-reserve>\n<\/head>/g).length, 1);
  assertBakedAndMarked(html);
  const css = readFileSync(join(dir, 'kvcalc-reserve.css'), 'utf8');
  assert.match(css, /@media \(scripting: enabled\) and \(min-width: 1280px\) \{\n {2}kv-calc\[data-kvcalc-box="[0-9a-f]{8}-1"\]:not\(:state\(live\)\) \{ min-height: \d+(\.\d+)?px; \}/);
  for (const [name, viewport] of VIEWPORTS) {
    const { shift, live } = await shiftOf(dir, viewport);
    assert.equal(live, 4);
    assert.ok(shift <= 0.01, `${name}: layout shift ${shift}`);
  }
  bake([dir, '--reserve']);
  assert.equal(readFileSync(join(dir, 'index.html'), 'utf8'), html);
});

test('--reserve without a Chromium: an error naming it, the page left as baked', () => {
  const dir = site('no-chromium');
  const r = spawnSync(process.execPath, [join(DIST, 'cli.mjs'), 'bake', dir, '--reserve', '--chromium=/nonexistent/chromium'], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /kvcalc bake --reserve: .*: no Chromium at \/nonexistent\/chromium/);
  assert.doesNotMatch(readFileSync(join(dir, 'index.html'), 'utf8'), /data-kvcalc-box|kvcalc-reserve/);
  assert.ok(!existsSync(join(dir, 'kvcalc-reserve.css')));
});

// The reserved page holds still, on a desktop and on a phone, all 4 elements live.
async function assertStill(dir, label) {
  for (const [name, viewport] of VIEWPORTS) {
    const { shift, live } = await shiftOf(dir, viewport);
    assert.equal(live, 4, `${label}, ${name}`);
    assert.ok(shift <= 0.01, `${label}, ${name}: layout shift ${shift}`);
  }
}

test('kvcalc/docusaurus with reserve (bakeSite\'s reserve): baked, then each fallback at its live height', async () => {
  const dir = site('docusaurus');
  const { default: plugin } = await import(join(DIST, 'docusaurus.mjs'));
  await plugin({}, { reserve: true }).postBuild({ outDir: dir });
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  assertBakedAndMarked(html);
  assert.match(html, /<link rel="stylesheet" href="kvcalc-reserve\.css" data-kvcalc-reserve>\n<\/head>/);
  await assertStill(dir, 'kvcalc/docusaurus');
  // Without a Chromium to measure with, the build fails naming it; the pages stay as baked.
  const { bakeSite } = await import(join(DIST, 'bake.mjs'));
  const other = site('docusaurus-no-chromium');
  await assert.rejects(bakeSite(other, { reserve: true, chromium: '/nonexistent/chromium' }), /no Chromium at \/nonexistent\/chromium/);
  assert.equal(readFileSync(join(other, 'index.html'), 'utf8').match(/data-kvcalc-baked="/g).length, 4);
  assert.doesNotMatch(readFileSync(join(other, 'index.html'), 'utf8'), /data-kvcalc-box|kvcalc-reserve/);
});

test('kvcalc/vite with reserve: `vite build` writes the baked page, then each fallback at its live height', async () => {
  // The Vite examples/vite-app builds with (installed by scripts/setup-examples.sh).
  const vite = toolFile(join(ROOT, 'examples/vite-app'), 'vite', 'dist/node/index.js');
  // The author's project: the example's page with the four elements, its script importing
  // the package (node_modules/kvcalc: this checkout, whose exports are dist/).
  const src = join(scratch, 'vite-src');
  const page = readFileSync(join(site('vite-page'), 'index.html'), 'utf8')
    .replace('<script type="module" src="kvcalc/kvcalc.js"></script>', '<script type="module" src="/main.js"></script>');
  mkdirSync(join(src, 'node_modules'), { recursive: true });
  writeFileSync(join(src, 'index.html'), page);
  writeFileSync(join(src, 'main.js'), "import 'kvcalc';\n");
  cpSync(join(ROOT, 'examples/plain-html/favicon.svg'), join(src, 'favicon.svg'));
  symlinkSync(ROOT, join(src, 'node_modules/kvcalc'));
  const out = join(scratch, 'vite-out');
  const { build } = await import(vite);
  const { default: kvcalc } = await import(join(DIST, 'vite.mjs'));
  await build({ root: src, configFile: false, logLevel: 'warn', plugins: [kvcalc({ reserve: true })], build: { outDir: out, emptyOutDir: true } });
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  assertBakedAndMarked(html);
  assert.ok(existsSync(join(out, 'kvcalc-reserve.css')));
  await assertStill(out, 'kvcalc/vite');
  // A build that writes no page through Vite's HTML step (as VitePress and Astro, which
  // render theirs later; here a library build) fails saying what to run instead.
  await assert.rejects(build({ root: src, configFile: false, logLevel: 'silent', plugins: [kvcalc({ reserve: true })],
    build: { outDir: join(scratch, 'vite-lib'), lib: { entry: join(src, 'main.js'), formats: ['es'] } } }),
  /no page of this build went through Vite's HTML step .*npx kvcalc bake --reserve/);
});
