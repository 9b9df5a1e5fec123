// An author's page baked by plain `kvcalc bake` (no browser at build time) does not move when
// its elements go live (DESIGN.md section 4: a layout shift of at most 0.01, summed over
// Chromium's layout-shift entries), as the project's site does not: the plain-HTML example's
// page (its strict CSP included) with text below each of four elements (formula, gqa, check,
// table), on a site folder that holds the package's dist/ as the package README says. Bake
// writes each element's first render as its declarative shadow root, linking kvcalc.css
// beside the page's kvcalc.js; the live element takes it over. Each element is jumped to, so
// it goes live in view; on a desktop and on a phone, cold and then cached. Then what the baked
// render must keep: what a reader typed before the element went live, the page's dark mode
// and the theme attribute, ::part and --kv-* properties, loading="lazy" (no wasm until an
// element is near), a fallback a Markdown renderer pushed out of its element (shown once),
// the strict CSP; and the build plugins (kvcalc/docusaurus's bakeSite, and kvcalc/vite in a
// real `vite build` of a page that bundles the package: kvcalc.css at the build's root).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, CSP, DIST, ROOT } from './harness.mjs';
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

// The example's page with these elements (default: four empty ones), each followed by text
// that would move; html: the page's own changes.
const TEXT = '<p>Text below the element, which moves if the element changes height when it goes live.</p>\n'.repeat(6);
const FOUR = [
  '<kv-calc model="Qwen/Qwen2.5-7B-Instruct" context="32768"></kv-calc>',
  '<kv-calc model="Qwen/Qwen2.5-7B-Instruct" context="32768" view="gqa"></kv-calc>',
  '<kv-calc model="Qwen/Qwen2.5-7B-Instruct" view="check" max-context="1048576" pool-tokens="681280"></kv-calc>',
  '<kv-calc view="table" models="Qwen/Qwen2.5-7B-Instruct Qwen/Qwen3-8B"></kv-calc>',
];
function site(name, { elements = FOUR, html = (p) => p } = {}) {
  const dir = join(scratch, name);
  cpSync(join(ROOT, 'examples/plain-html'), dir, { recursive: true });
  cpSync(DIST, join(dir, 'kvcalc'), { recursive: true });
  const example = readFileSync(join(ROOT, 'examples/plain-html/index.html'), 'utf8');
  const page = example.replace(/<kv-calc[\s\S]*<\/kv-calc>\n/, elements.map((e) => `${e}\n${TEXT}`).join(''));
  assert.notEqual(page, example);
  writeFileSync(join(dir, 'index.html'), html(page));
  return dir;
}

const bake = (args, status = 0) => {
  const r = spawnSync(process.execPath, [join(DIST, 'cli.mjs'), 'bake', ...args], { encoding: 'utf8' });
  assert.equal(r.status, status, r.stderr);
  return r;
};

// Serves dir under the strict CSP while fn(url) runs.
async function served(dir, fn) {
  const server = await startServer({ mounts: [['/', dir]], csp: CSP });
  try {
    return await fn(`http://127.0.0.1:${server.address().port}/index.html`);
  } finally {
    await new Promise((ok) => server.close(ok));
  }
}

// A page of a new browser context (nothing cached) that sums its layout shift and records
// console errors and CSP violations.
async function newPage(viewport, options = {}) {
  const context = await browser.newContext({ viewport, locale: 'en-US', ...options });
  const page = await context.newPage();
  page.errors = [];
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.addInitScript(() => {
    window.__shift = 0;
    window.__csp = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  page.done = () => context.close();
  return page;
}

// Jumps to each element in turn (it goes live where it is, in view): the layout shift of
// the load, and each element's height before it started (its baked render) and once live.
const jumpToEach = (page) => page.evaluate(async () => {
  await customElements.whenDefined('kv-calc');
  const heights = [];
  for (const el of document.querySelectorAll('kv-calc')) {
    const baked = el.getBoundingClientRect().height;
    el.scrollIntoView({ block: 'center' });
    await el.updateComplete;
    heights.push({ baked, live: el.getBoundingClientRect().height, isLive: el.matches(':state(live)') });
  }
  await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
  return { shift: window.__shift, heights, csp: window.__csp };
});

const VIEWPORTS = [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]];

// Every element of the page at dir goes live, with a layout shift of at most 0.01, cold and
// then cached, on a desktop and a phone; no console error, no CSP violation.
async function assertStill(dir, label, count = 4) {
  await served(dir, async (url) => {
    for (const [name, viewport] of VIEWPORTS) {
      const page = await newPage(viewport);
      for (const load of ['cold', 'cached']) {
        await page.goto(url);
        const { shift, heights, csp } = await jumpToEach(page);
        const where = `${label}, ${name}, ${load}`;
        assert.equal(heights.filter((h) => h.isLive).length, count, where);
        assert.ok(shift <= 0.01, `${where}: layout shift ${shift} (${JSON.stringify(heights)})`);
        assert.deepEqual(csp, [], where);
      }
      assert.deepEqual(page.errors, [], label);
      await page.done();
    }
  });
}

test('plain kvcalc bake: each element\'s first render and figures in words; every element goes live without moving the page, cold and cached', async () => {
  const dir = site('plain');
  const r = bake([dir]);
  assert.match(r.stdout, /^kvcalc bake: 4 <kv-calc> in 1 file; 1 file changed\n$/);
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  // Each: the declarative shadow root linking kvcalc.css beside the page's kvcalc.js, its
  // render marked as baked, then the words for readers and search engines without it.
  assert.equal(html.match(/<template shadowrootmode="open"><link rel="stylesheet" href="kvcalc\/kvcalc\.css"><div class="kv" part="base" data-kvcalc-baked="0\.1\.0">/g).length, 4);
  assert.equal(html.match(/<\/template>\n<(p|div) class="fallback(-table)?" data-kvcalc-baked="0\.1\.0">/g).length, 4);
  assert.ok(existsSync(join(dir, 'kvcalc/kvcalc.css')));
  assert.ok(!existsSync(join(dir, 'kvcalc.css')), 'no copy at the root: the page loads kvcalc.js from kvcalc/');
  // No inline style anywhere (the strict CSP would refuse it), no script.
  assert.doesNotMatch(html, /<style|\sstyle=|<script(?![^>]*(src=|application\/json))/);
  await assertStill(dir, 'plain bake');
  // A second bake changes nothing; --check agrees.
  assert.match(bake([dir]).stdout, /; 0 files changed\n$/);
  assert.equal(readFileSync(join(dir, 'index.html'), 'utf8'), html);
  bake([dir, '--check']);
});

test('--reserve is no longer needed: it measures nothing and writes nothing, and says so', () => {
  const dir = site('reserve');
  const r = bake([dir, '--reserve', '--chromium=/nonexistent/chromium']);
  assert.match(r.stdout, /kvcalc bake --reserve: no longer needed, nothing measured/);
  assert.ok(!existsSync(join(dir, 'kvcalc-reserve.css')));
  assert.doesNotMatch(readFileSync(join(dir, 'index.html'), 'utf8'), /data-kvcalc-box|kvcalc-reserve/);
});

test('what a reader typed into a baked element before it went live is kept: the value applied, the focus where it was', async () => {
  const dir = site('typed');
  bake([dir]);
  await served(dir, async (url) => {
    const page = await newPage({ width: 1280, height: 900 });
    // The element's code arrives when the test lets it.
    let release;
    const held = new Promise((ok) => { release = ok; });
    await page.route('**/kvcalc/live.js', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(url);
    const context = page.locator('kv-calc').first().locator('input[name="context"]');
    await context.fill('65536');
    await page.locator('kv-calc').first().locator('select[name="kv-dtype"]').selectOption('fp8');
    await context.focus();
    assert.equal(await page.$eval('kv-calc', (el) => el.matches(':state(live)')), false);
    release();
    const after = await page.$eval('kv-calc', async (el) => {
      await el.updateComplete;
      const active = el.shadowRoot.activeElement;
      return { live: el.matches(':state(live)'), context: el.getAttribute('context'), kvDtype: el.getAttribute('kv-dtype'),
        bytes: el.result.kvBytes, focused: active?.name, value: active?.value };
    });
    // 28 layers x 4 KV heads x 128 x 2 (K and V) x 1 B (fp8) = 28,672 B per token; x 65,536 = 1,879,048,192 B.
    assert.deepEqual(after, { live: true, context: '65536', kvDtype: 'fp8', bytes: 1879048192, focused: 'context', value: '65536' });
    assert.deepEqual(page.errors, []);
    await page.done();
  });
});

test('a baked element no one touched goes live at the state it was baked at: no attribute added, nothing written to the URL', async () => {
  // The baked selects choose their first option without writing it selected (as the live
  // ones): that is no reader's choice, nor a reason to render twice.
  const all = '<kv-calc view="all" model="Qwen/Qwen2.5-7B-Instruct" context="32768" pool-tokens="681280" max-context="1048576"></kv-calc>';
  const dir = site('untouched', { elements: [...FOUR, all] });
  bake([dir]);
  await served(dir, async (url) => {
    const page = await newPage({ width: 1280, height: 900 });
    await page.goto(url);
    const attributes = () => page.$$eval('kv-calc', (els) => els.map((el) => el.getAttributeNames().map((n) => `${n}=${el.getAttribute(n)}`).join(' ')));
    const before = await attributes();
    assert.equal((await jumpToEach(page)).heights.filter((h) => h.isLive).length, 5);
    // The hash is written a moment (250 ms) after an edit.
    await page.waitForTimeout(400);
    assert.deepEqual(await attributes(), before);
    assert.equal(await page.evaluate(() => location.hash), '');
    assert.deepEqual(page.errors, []);
    await page.done();
  });
});

test('the baked render follows the page\'s dark mode and the theme attribute before it is live, and takes ::part and --kv-* styles', async () => {
  const dir = site('themed', {
    elements: ['<kv-calc id="a" model="Qwen/Qwen3-8B" context="4K"></kv-calc>', '<kv-calc id="b" model="Qwen/Qwen3-8B" context="4K" theme="light"></kv-calc>'],
    html: (p) => p.replace('<html lang="en">', '<html lang="en" class="dark">')
      .replace('</head>', '<link rel="stylesheet" href="page.css">\n</head>'),
  });
  writeFileSync(join(dir, 'page.css'), 'kv-calc { --kv-accent: rgb(200, 0, 100); }\nkv-calc::part(model-name) { text-decoration: underline; }\n');
  bake([dir]);
  await served(dir, async (url) => {
    const page = await newPage({ width: 1280, height: 900 });
    // The element's code never arrives: what shows is the baked render.
    await page.route('**/kvcalc/live.js', (route) => route.abort());
    await page.goto(url);
    await page.waitForFunction(() => customElements.get('kv-calc'));
    const look = await page.$$eval('kv-calc', (els) => els.map((el) => ({
      live: el.matches(':state(live)'),
      dark: el.matches(':state(dark)'),
      background: getComputedStyle(el).backgroundColor,
      underline: getComputedStyle(el.shadowRoot.querySelector('[part="model-name"]')).textDecorationLine,
      pressed: getComputedStyle(el.shadowRoot.querySelector('button[aria-pressed="true"]')).backgroundColor,
    })));
    assert.deepEqual(look, [
      { live: false, dark: true, background: 'rgb(22, 26, 32)', underline: 'underline', pressed: 'rgb(200, 0, 100)' },
      { live: false, dark: false, background: 'rgb(255, 255, 255)', underline: 'underline', pressed: 'rgb(200, 0, 100)' },
    ]);
    await page.done();
  });
  // Where no script runs, theme="dark" is the style sheet's own.
  const dark = site('theme-attribute', { elements: ['<kv-calc model="Qwen/Qwen3-8B" theme="dark"></kv-calc>'] });
  bake([dark]);
  await served(dark, async (url) => {
    const page = await newPage({ width: 1280, height: 900 }, { javaScriptEnabled: false });
    await page.goto(url);
    assert.equal(await page.$eval('kv-calc', (el) => getComputedStyle(el).backgroundColor), 'rgb(22, 26, 32)');
    await page.done();
  });
});

test('loading="lazy" still waits: a baked page fetches kvcalc.js and kvcalc.css, no wasm, until an element is near', async () => {
  const dir = site('lazy', { html: (p) => p.replace('<h1>', '<div class="tall"></div>\n<h1>') });
  writeFileSync(join(dir, 'tall.css'), '.tall { min-height: 400vh; }\n');
  writeFileSync(join(dir, 'index.html'), readFileSync(join(dir, 'index.html'), 'utf8').replace('</head>', '<link rel="stylesheet" href="tall.css">\n</head>'));
  bake([dir]);
  await served(dir, async (url) => {
    const page = await newPage({ width: 1280, height: 900 });
    const requests = [];
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    await page.goto(url);
    await page.waitForFunction(() => customElements.get('kv-calc'));
    await page.waitForLoadState('networkidle');
    assert.deepEqual(requests.filter((p) => p.startsWith('/kvcalc/')).sort(), ['/kvcalc/kvcalc.css', '/kvcalc/kvcalc.js']);
    const { shift, heights } = await jumpToEach(page);
    assert.equal(heights.filter((h) => h.isLive).length, 4);
    assert.ok(shift <= 0.01, `layout shift ${shift}`);
    assert.ok(requests.includes('/kvcalc/kvcalc_core.wasm'));
    // The baked page needs no style module of its own: its elements keep the baked link.
    assert.ok(!requests.includes('/kvcalc/styles.js'));
    await page.done();
  });
});

test('a fallback a Markdown renderer pushed out of its element (the element inside a <p>) shows once the element is there', async () => {
  // CommonMark keeps an element written inside a line of text in that paragraph: the
  // fallback bake writes inside it then closes the paragraph, and the element, in the browser.
  const dir = site('pushed', { elements: [
    '<p>The cache: <kv-calc model="Qwen/Qwen2.5-7B-Instruct" context="32768"></kv-calc></p>',
    '<p>And every view: <kv-calc model="Qwen/Qwen2.5-7B-Instruct" view="all" pool-tokens="681280" max-context="1048576"></kv-calc></p>',
  ] });
  bake([dir]);
  await served(dir, async (url) => {
    const page = await newPage({ width: 1280, height: 900 });
    await page.goto(url);
    await page.waitForFunction(() => customElements.get('kv-calc'));
    // Outside every element, no baked figure is left on the page.
    const outside = () => page.evaluate(() => [...document.querySelectorAll('[data-kvcalc-baked]')]
      .filter((n) => !n.closest('kv-calc')).map((n) => n.textContent.slice(0, 40)));
    assert.deepEqual(await outside(), []);
    const { heights } = await jumpToEach(page);
    assert.equal(heights.filter((h) => h.isLive).length, 2);
    assert.deepEqual(await outside(), []);
    // The words are inside each element (3: one sentence, then the formula's and the check's), where they do not show.
    assert.deepEqual(await page.$$eval('kv-calc', (els) => els.map((el) => el.querySelectorAll('[data-kvcalc-baked]').length)), [1, 2]);
    assert.deepEqual(page.errors, []);
    await page.done();
  });
});

test('a baked page whose kvcalc.css does not arrive: the live element uses its own styles', async () => {
  const dir = site('no-css', { elements: [FOUR[0]] });
  bake([dir]);
  unlinkSync(join(dir, 'kvcalc/kvcalc.css'));
  await served(dir, async (url) => {
    const page = await newPage({ width: 1280, height: 900 });
    await page.goto(url);
    const state = await page.$eval('kv-calc', async (el) => {
      el.scrollIntoView();
      await el.updateComplete;
      return { live: el.matches(':state(live)'), sheets: el.shadowRoot.adoptedStyleSheets.length,
        links: el.shadowRoot.querySelectorAll('link').length, border: getComputedStyle(el).borderTopStyle };
    });
    assert.deepEqual(state, { live: true, sheets: 1, links: 0, border: 'solid' });
    // (The server answers the missing file with a 404 page in text/plain.)
    assert.deepEqual(page.errors.filter((e) => !/404|Refused to apply style from '.*kvcalc\.css'/.test(e)), []);
    await page.done();
  });
});

test('kvcalc/docusaurus (bakeSite): the pages baked, each element goes live without moving the page', async () => {
  const dir = site('docusaurus');
  const { default: plugin } = await import(join(DIST, 'docusaurus.mjs'));
  await plugin({}, {}).postBuild({ outDir: dir });
  assert.equal(readFileSync(join(dir, 'index.html'), 'utf8').match(/<template shadowrootmode="open">/g).length, 4);
  await assertStill(dir, 'kvcalc/docusaurus');
});

test('kvcalc/vite: `vite build` writes the baked page and kvcalc.css at its root; each element goes live without moving the page', async () => {
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
  await build({ root: src, configFile: false, logLevel: 'warn', plugins: [kvcalc()], build: { outDir: out, emptyOutDir: true } });
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  assert.equal(html.match(/<template shadowrootmode="open"><link rel="stylesheet" href="\/kvcalc\.css">/g).length, 4);
  assert.equal(readFileSync(join(out, 'kvcalc.css'), 'utf8'), readFileSync(join(DIST, 'kvcalc.css'), 'utf8'));
  await assertStill(out, 'kvcalc/vite');
});
