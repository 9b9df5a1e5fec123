// The JavaScript docs platforms' recipes (examples/docusaurus-site, examples/astro-starlight,
// examples/eleventy-site), their npm tools installed by scripts/setup-examples.sh (Docusaurus
// and Astro in the examples' workspace, Eleventy in its own folder; slow: installed once, kept
// while the lock files stay as they are).
// Each gets the packed package installed (offline) and is built as its author builds it,
// baking the figures into the built pages (kvcalc/docusaurus after `docusaurus build`,
// kvcalc/bake's bakeSite on Astro's astro:build:done and on Eleventy's eleventy.after). In
// Chromium: the live figure, the baked figures with JavaScript off, every .wasm served as
// application/wasm, no console error, failed request or CSP violation, and the generator's
// dark mode followed, switched live and after a reload; Eleventy's page still as its element
// goes live; and `astro dev` serving the wasm (kvcalc/vite). Its own file, so it can run
// beside the other suites.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.mjs';
import { BAKED, CSP, EXAMPLES, GENERATOR_CSP, assertClean, checkSite, examplesSetup, followsGeneratorDark, installTarball, keyedCache, run, toolFile } from './examples-support.mjs';
import { launch, openPage } from './site-pages/support.mjs';

let env;
before(async () => { env = await examplesSetup(); });
after(async () => { await env?.close(); });

// What a reader without JavaScript sees of the first <kv-calc> of the built page (its baked
// render, the element's declarative shadow root), and its figures in words (in the page for
// search engines, shown by a browser without declarative shadow DOM).
async function withoutJavaScript(dir, path) {
  const server = await startServer({ mounts: [['/', dir]] });
  const browser = await launch({ javaScriptEnabled: false });
  try {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}${path}`);
    return await page.$eval('kv-calc', (el) => ({
      shown: el.shadowRoot?.querySelector('.kv[data-kvcalc-baked]')?.innerText.replace(/\s+/g, ' ').trim() ?? '',
      words: el.querySelector('[data-kvcalc-baked]')?.textContent ?? '',
    }));
  } finally {
    await browser.close();
    await new Promise((ok) => server.close(ok));
  }
}

// The one .wasm the page fetched, its path matching where, served as application/wasm.
async function assertWasmServed(page, requests, where) {
  const wasm = requests.filter((u) => /\.wasm(\?|$)/.test(u));
  assert.equal(wasm.length, 1, wasm.join('\n'));
  assert.match(new URL(wasm[0]).pathname, where);
  assert.equal(await page.evaluate(async (u) => (await fetch(u)).headers.get('content-type'), wasm[0]), 'application/wasm');
}

// The baked sentence, read as text: 28 x 4 x 128 x 2 x 2 B = 57,344 B per token, x 32,768 = 1.75 GiB.
const BAKED_TEXT = 'Qwen/Qwen2.5-7B-Instruct keeps 57,344 B of KV cache per token (bf16) and 1.75 GiB (1,879,048,192 B) for one sequence of 32,768 tokens (resident accounting).';

test('Docusaurus 3 (MDX): the element from a client module, baked by kvcalc/docusaurus after the build, data-theme on <html> followed', async () => {
  const dir = join(EXAMPLES, 'docusaurus-site');
  installTarball(env, dir);
  // webpack's persistent cache, keyed by every input of the build (keyedCache): webpack's own
  // check takes an installed package for unchanged while its version is (0.1.0 in every build
  // of kvcalc), so the key holds the tarball's hash too.
  keyedCache(env, dir, join(dir, 'node_modules/.cache/webpack'), 'docusaurus-webpack', ['node_modules', 'build', '.docusaurus']);
  const out = join(env.scratch, 'docusaurus-out');
  run(process.execPath, [toolFile(dir, '@docusaurus/core', 'bin/docusaurus.mjs'), 'build', '--out-dir', out], dir);
  assert.match(readFileSync(join(out, 'index.html'), 'utf8'), BAKED);
  const nojs = await withoutJavaScript(out, '/');
  assert.equal(nojs.words, BAKED_TEXT);
  assert.match(nojs.shown, /Bytes per token 57,344 B Per sequence \(32,768 tokens, resident\) 1\.75 GiB \(1,879,048,192 B\)/);
  // Docusaurus writes inline scripts (its theme's first paint, from localStorage) and styles
  // of its own, and draws its menu arrows from data: addresses; the element needs nothing
  // more than the strict policy.
  const site = await checkSite(env, out, '/', `${GENERATOR_CSP}; img-src 'self' data:`);
  try {
    const { page } = site;
    // React hydrated the page and left the baked figures inside the element (no hydration
    // error: assertClean below).
    await page.waitForFunction(() => document.documentElement.dataset.hasHydrated === 'true');
    assert.equal(await page.$eval('kv-calc', (el) => el.querySelector('p.fallback[data-kvcalc-baked]')?.textContent), BAKED_TEXT);
    // webpack emits it as an asset of its own, named by its hash, at the site's root.
    await assertWasmServed(page, site.log.requests, /^\/[0-9a-f]+\.wasm$/);
    // The navbar's switch (light, dark, system): <html data-theme="dark">, kept in localStorage "theme".
    const toggle = page.locator('button[aria-label*="dark and light mode"]');
    await followsGeneratorDark(page, async () => {
      while (await page.evaluate(() => document.documentElement.dataset.theme) !== 'dark') await toggle.click();
    }, () => document.documentElement.dataset.theme, 'dark');
    await assertClean(site);
  } finally {
    await site.close();
  }
});

test('Astro Starlight (MDX): the element from a component\'s <script>, baked after astro build, data-theme on <html> followed', async () => {
  const dir = join(EXAMPLES, 'astro-starlight');
  installTarball(env, dir);
  // Built where its author builds it (dist/): with an --outDir outside the project, Astro
  // leaves files of its own build there.
  const out = join(dir, 'dist');
  run(process.execPath, [toolFile(dir, 'astro', 'astro.js'), 'build', '--silent'], dir);
  assert.match(readFileSync(join(out, 'index.html'), 'utf8'), BAKED);
  const nojs = await withoutJavaScript(out, '/');
  assert.equal(nojs.words, BAKED_TEXT);
  assert.match(nojs.shown, /Bytes per token 57,344 B Per sequence \(32,768 tokens, resident\) 1\.75 GiB \(1,879,048,192 B\)/);
  // Starlight writes inline scripts (its theme picker, from localStorage, and its sidebar)
  // and style attributes of its own; the element needs nothing more than the strict policy.
  const site = await checkSite(env, out, '/', GENERATOR_CSP);
  try {
    const { page } = site;
    await assertWasmServed(page, site.log.requests, /^\/_astro\/kvcalc_core\.[\w-]+\.wasm$/);
    // Starlight's theme picker: "auto" (the system's: light here) is <html data-theme="light">;
    // "dark" is data-theme="dark", kept in localStorage "starlight-theme".
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
    await followsGeneratorDark(page, () => page.locator('starlight-theme-select select:visible').selectOption('dark'),
      () => document.documentElement.dataset.theme, 'dark');
    await assertClean(site);
  } finally {
    await site.close();
  }
});

test('Eleventy 3 (markdown-it): the page\'s files by passthrough copy, baked on eleventy.after, a dark class on <body> followed, under the strict CSP; the page still as it goes live', async () => {
  const dir = join(EXAMPLES, 'eleventy-site');
  installTarball(env, dir);
  const out = join(env.scratch, 'eleventy-out');
  const build = spawnSync(process.execPath, [toolFile(dir, '@11ty/eleventy', 'cmd.cjs'), '--quiet', `--output=${out}`],
    { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  assert.equal(build.status, 0, build.stderr);
  // In its <div>, the element and its baked figures stay one block: bake warns of nothing.
  assert.doesNotMatch(build.stderr, /kvcalc bake/);
  assert.match(readFileSync(join(out, 'index.html'), 'utf8'), new RegExp(`<div class="kv-calc-box">\n${BAKED.source}`));
  // The files a page may load, and not the Node-only ones (the command, the baker, the plugins).
  // Every file of the package's dist/ a page loads (its .js, .css and .wasm), none of the .mjs
  // and .d.ts that Node loads.
  const pageFiles = readdirSync(join(dir, 'node_modules/kvcalc/dist')).filter((f) => /\.(js|css|wasm)$/.test(f)).sort();
  assert.ok(pageFiles.includes('kvcalc.js') && pageFiles.includes('kvcalc_core.wasm') && pageFiles.includes('live.js'));
  assert.deepEqual(readdirSync(join(out, 'kvcalc')).sort(), pageFiles);
  assert.ok(!readdirSync(join(out, 'kvcalc')).some((f) => /\.(mjs|cjs|ts)$/.test(f)));
  const nojs = await withoutJavaScript(out, '/');
  assert.equal(nojs.words, BAKED_TEXT);
  assert.match(nojs.shown, /Bytes per token 57,344 B Per sequence \(32,768 tokens, resident\) 1\.75 GiB \(1,879,048,192 B\)/);
  // No inline script or style in this recipe: the strict policy as it is.
  const site = await checkSite(env, out, '/', CSP);
  try {
    const { page } = site;
    await assertWasmServed(page, site.log.requests, /^\/kvcalc\/kvcalc_core\.wasm$/);
    await followsGeneratorDark(page, () => page.click('#theme-toggle'), () => document.body.classList.contains('dark'), true);
    await assertClean(site);
  } finally {
    await site.close();
  }
});

test('astro dev serves the wasm: kvcalc/vite keeps kvcalc out of Vite\'s dependency pre-bundling', async () => {
  const dir = join(EXAMPLES, 'astro-starlight');
  installTarball(env, dir);
  const port = await new Promise((ok) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => ok(free));
    });
  });
  const dev = spawn(process.execPath, [toolFile(dir, 'astro', 'astro.js'), 'dev', '--host', '127.0.0.1', '--port', String(port)],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', NO_COLOR: '1' } });
  let output = '';
  try {
    await new Promise((ok, fail) => {
      const seen = (chunk) => {
        output += chunk;
        if (output.includes(`http://127.0.0.1:${port}/`)) ok();
      };
      dev.stdout.on('data', seen);
      dev.stderr.on('data', seen);
      dev.on('exit', (code) => fail(new Error(`astro dev exited (${code}): ${output}`)));
    });
    const { page, log } = await openPage(env.browser, `http://127.0.0.1:${port}/`);
    try {
      // 2 x 28 x 4 x 128 x 2 B = 57,344 B per token (the element is in the first screen).
      await page.waitForFunction(() => document.querySelector('kv-calc')?.result?.bytesPerToken === 57344, null, { timeout: 30000 })
        .catch(() => assert.fail(`no live figure; failed requests: ${log.failed.join(', ')}`));
      // From the package's own folder, not from Vite's pre-bundling cache.
      await assertWasmServed(page, log.requests, /\/node_modules\/kvcalc\/dist\/kvcalc_core\.wasm$/);
      assert.deepEqual(log.failed, []);
    } finally {
      await page.close();
    }
  } finally {
    dev.kill();
  }
});
