// The docs platforms' recipes (examples/), as Debian 12 ships the generators: Sphinx 5.3 with
// furo, MkDocs 1.4 with Material 8.2, Hugo 0.111. Each is copied out, gets the packed
// package installed (offline) and its dist/ where the recipe says, and is built as its
// author builds it; the recipe's own hook runs `npx kvcalc bake`, so the built HTML holds
// the baked figures (what a reader without JavaScript sees). In Chromium: the live figure,
// no console error, failed request or CSP violation, and the generator's dark mode followed,
// switched live and after a reload.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BAKED, CSP, EXAMPLES, GENERATOR_CSP, assertClean, checkSite, examplesSetup, followsGeneratorDark, npmInstall, run } from './examples-support.mjs';

let env;
before(async () => { env = await examplesSetup(); });
after(async () => { await env?.close(); });

// The recipe copied out with the package installed into it (npx kvcalc finds it there) and
// its dist/ copied where the recipe's pages load it from.
function recipe(name, distTo) {
  const dir = join(env.scratch, name);
  cpSync(join(EXAMPLES, name), dir, { recursive: true });
  npmInstall(['--no-save', env.tarball], dir);
  cpSync(env.packageDist, join(dir, distTo), { recursive: true });
  return dir;
}

test('Sphinx + furo: the module through html_js_files, baked on build-finished, furo\'s data-theme on <body> followed', async () => {
  const dir = recipe('sphinx-furo', '_static/kvcalc');
  const out = join(dir, '_build');
  run('sphinx-build', ['-q', '-b', 'html', dir, out], dir);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  assert.match(html, /<script type="module" src="_static\/kvcalc\/kvcalc\.js"><\/script>/);
  assert.match(html, BAKED);
  // furo writes inline scripts and styles of its own, and data: icons; the element needs
  // nothing more than the strict policy. Debian's furo imports normalize.css from
  // /javascript/, which Debian's javascript-common serves from /usr/share/javascript.
  const site = await checkSite(env, out, '/index.html', `${GENERATOR_CSP}; img-src 'self' data:`, [['/javascript/', '/usr/share/javascript']]);
  try {
    const { page } = site;
    // Debian's furo ships furo.js unbuilt, so its own switch is hidden: the page's attribute is
    // set as furo.js sets it (<body data-theme="dark|light|auto">, kept in localStorage "theme").
    assert.equal(await page.evaluate(() => document.body.dataset.theme), 'auto');
    // After the reload furo's inline script sets it from localStorage.
    await followsGeneratorDark(page, () => page.evaluate(() => { document.body.dataset.theme = 'dark'; localStorage.setItem('theme', 'dark'); }),
      () => document.body.dataset.theme, 'dark');
    // Debian's furo ships furo.js as its unbuilt ES module source, which the page loads as a
    // classic script: the browser refuses it (so furo's own switch stays hidden). That error
    // is furo's; nothing else may fail.
    assert.match(readFileSync(join(out, '_static/scripts/furo.js'), 'utf8'), /^import /);
    await assertClean(site, ['SyntaxError: Cannot use import statement outside a module']);
  } finally {
    await site.close();
  }
});

test('MkDocs + Material: the module through the theme\'s extrahead, baked by a hooks: file, data-md-color-scheme followed, text at 16 px', async () => {
  const dir = recipe('mkdocs-material', 'docs/kvcalc');
  const out = join(dir, 'site');
  run('mkdocs', ['build', '--quiet', '--config-file', join(dir, 'mkdocs.yml'), '--site-dir', out], dir);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  assert.match(html, /<script type="module" src="kvcalc\/kvcalc.js"><\/script>/);
  // In its <div>, the element and its fallback stay one block (not wrapped in a <p>).
  assert.match(html, new RegExp(`<div class="kv-calc-box">\n${BAKED.source}`));
  const site = await checkSite(env, out, '/index.html', GENERATOR_CSP);
  try {
    const { page } = site;
    // Material's palette switch: <body data-md-color-scheme="slate">, remembered across pages.
    await followsGeneratorDark(page, () => page.locator('label[for="__palette_2"]:visible, label[for="__palette_1"]:visible').first().click(),
      () => document.body.getAttribute('data-md-color-scheme'), 'slate');
    // Material's root font is 125% (20 px); its body text is 0.8rem (16 px): so is the element's.
    const sizes = await page.$eval('kv-calc', (el) => [getComputedStyle(document.documentElement).fontSize,
      getComputedStyle(el.parentElement).fontSize, getComputedStyle(el).fontSize]);
    assert.equal(sizes[0], '20px');
    assert.equal(sizes[2], sizes[1]);
    await assertClean(site);
  } finally {
    await site.close();
  }
});

test('Hugo: raw HTML kept (goldmark unsafe), baked after hugo, a dark class on <body> followed, under the strict CSP', async () => {
  const dir = recipe('hugo-site', 'static/kvcalc');
  const out = join(dir, 'public');
  run('hugo', ['--quiet', '--source', dir, '--destination', out], dir);
  run('npx', ['--offline', '--no-install', 'kvcalc', 'bake', out], dir);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  assert.match(html, BAKED);
  // No inline script or style in this recipe: the strict policy as it is.
  const site = await checkSite(env, out, '/index.html', CSP);
  try {
    const { page } = site;
    await followsGeneratorDark(page, () => page.click('#theme-toggle'), () => document.body.classList.contains('dark'), true);
    await assertClean(site);
  } finally {
    await site.close();
  }
});
