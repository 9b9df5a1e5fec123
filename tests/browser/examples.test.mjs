// The integration examples (examples/), each built from the packed package as a user would:
// `npm pack`, then the tarball installed (offline: the examples' own dev dependencies come
// from scripts/setup-examples.sh) into a Vite app, a VitePress site, an MkDocs site as Debian 12
// ships it, and a plain HTML page, each baked by plain `kvcalc bake` (or kvcalc/vite). In
// Chromium each built site shows the live figure, its built HTML holds the baked render and
// figures, nothing moves as its elements go live, and the browser reports no CSP violation,
// no console error and no failed request (examples-support.mjs). The docs platforms' recipes
// are examples-docs.test.mjs and examples-js-docs.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BAKED, BAKED_AS, CSP, DARK, EXAMPLES, LIGHT, MKDOCS_CSP, VITEPRESS_CSP, assertClean, checkSite, darkState, examplesSetup, installTarball, run, toolFile, underDarkSystem } from './examples-support.mjs';

let env;
before(async () => { env = await examplesSetup(); });
after(async () => { await env?.close(); });

// `npx kvcalc bake PATH`, from the installed package.
const bake = (path) => run(process.execPath, [join(env.packageDist, 'cli.mjs'), 'bake', path], env.scratch);

test('plain HTML under the strict CSP: the package\'s files beside the page, baked; the reader\'s dark system followed', async () => {
  const out = join(env.scratch, 'plain-html');
  mkdirSync(out);
  for (const f of ['index.html', 'favicon.svg']) cpSync(join(EXAMPLES, 'plain-html', f), join(out, f));
  cpSync(env.packageDist, join(out, 'kvcalc'), { recursive: true });
  bake(out);
  assert.match(readFileSync(join(out, 'index.html'), 'utf8'), BAKED);
  const site = await checkSite(env, out, '/index.html', CSP);
  // The page marks no dark mode and paints no background: the element follows the system.
  assert.deepEqual(await darkState(site.page), LIGHT);
  assert.deepEqual(await underDarkSystem(site.page), { live: DARK, reloaded: DARK });
  await assertClean(site);
  await site.close();
});

test('a Vite app: one import, the wasm found by the build, the figures baked by kvcalc/vite; the reader\'s dark system followed', async () => {
  const dir = join(EXAMPLES, 'vite-app');
  installTarball(env, dir);
  const out = join(env.scratch, 'vite-out');
  run(process.execPath, [toolFile(dir, 'vite', 'bin/vite.js'), 'build', '--outDir', out, '--emptyOutDir', '--logLevel', 'warn'], dir);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  // kvcalc/vite baked both elements, their renders linking the kvcalc.css it wrote at the root.
  assert.match(html, BAKED_AS('<kv-calc id="calc" model="Qwen/Qwen2\\.5-7B-Instruct" context="32768">'));
  assert.match(html, /<link rel="stylesheet" href="\/kvcalc\.css">/);
  assert.equal(readFileSync(join(out, 'kvcalc.css'), 'utf8'), readFileSync(join(env.packageDist, 'kvcalc.css'), 'utf8'));
  // kvcalc/vite baked the empty check element: 681,280 / 1,048,576 = 0.65x.
  assert.match(html, /<kv-calc id="check"[^>]*>\n<template[\s\S]*?<\/template>\n<p class="fallback" data-kvcalc-baked="0\.1\.0"><strong>Does not fit: one 1,048,576-token request needs more than the pool of 681,280 tokens<\/strong> \(max concurrency 0\.65x\)/);
  const site = await checkSite(env, out, '/index.html', CSP);
  await site.page.waitForFunction(() => document.getElementById('last-result').textContent.includes('57,344'));
  assert.equal(await site.page.textContent('#last-result'), 'Qwen/Qwen2.5-7B-Instruct: 57,344 bytes per token');
  // The wasm came from the build's own assets.
  assert.ok(site.log.requests.some((u) => /\/assets\/kvcalc_core[-.\w]*\.wasm$/.test(u)), site.log.requests.join('\n'));
  assert.deepEqual(await underDarkSystem(site.page), { live: DARK, reloaded: DARK });
  await assertClean(site);
  await site.close();
});

test('a VitePress site: the element survives server rendering, is baked after the build, and follows the dark switch', async () => {
  const dir = join(EXAMPLES, 'vitepress-site');
  installTarball(env, dir);
  const out = join(env.scratch, 'vitepress-out');
  run(process.execPath, [toolFile(dir, 'vitepress', 'bin/vitepress.js'), 'build', 'docs', '--outDir', out], dir);
  assert.match(readFileSync(join(out, 'index.html'), 'utf8'), /<kv-calc model="Qwen\/Qwen2.5-7B-Instruct" context="32768"><\/kv-calc>/,
    'the element is in the server-rendered HTML');
  // As the recipe says: npx kvcalc bake on the built folder (VitePress writes its pages after Vite).
  bake(out);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  assert.match(html, BAKED);
  const site = await checkSite(env, out, '/index.html', VITEPRESS_CSP);
  // VitePress's appearance switch puts class="dark" on <html>; the element follows it.
  assert.deepEqual(await darkState(site.page), LIGHT);
  await site.page.locator('button.VPSwitchAppearance:visible').click();
  assert.equal(await site.page.evaluate(() => document.documentElement.classList.contains('dark')), true);
  assert.deepEqual(await darkState(site.page), DARK);
  await assertClean(site);
  await site.close();
});

test('an MkDocs site as Debian 12 ships it (1.4.2): the script through the theme\'s extrahead block; light on its light-only theme', async () => {
  const dir = join(env.scratch, 'mkdocs-site');
  cpSync(join(EXAMPLES, 'mkdocs-site'), dir, { recursive: true, filter: (f) => !/[/\\](site|kvcalc)$/.test(f) });
  cpSync(env.packageDist, join(dir, 'docs/kvcalc'), { recursive: true });
  const out = join(env.scratch, 'mkdocs-out');
  run('mkdocs', ['build', '--quiet', '--config-file', join(dir, 'mkdocs.yml'), '--site-dir', out], dir);
  bake(out);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  assert.match(html, /<script type="module" src="kvcalc\/kvcalc.js"><\/script>/);
  assert.match(html, BAKED);
  const site = await checkSite(env, out, '/index.html', MKDOCS_CSP);
  try {
    // MkDocs' search fetches its index and lunr.js after the page loads: let them finish, so
    // the reload below does not abort them (a failed request the site did not cause).
    await site.page.waitForLoadState('networkidle');
    // The mkdocs theme has no dark mode and paints its page white: the element stays light on
    // it even when the reader's system is dark (the background behind it decides).
    assert.deepEqual(await underDarkSystem(site.page), { live: LIGHT, reloaded: LIGHT });
    await assertClean(site);
  } finally {
    await site.close();
  }
});
