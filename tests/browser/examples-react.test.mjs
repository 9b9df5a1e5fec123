// The React docs frameworks' recipes besides Docusaurus (examples-js-docs.test.mjs):
// examples/nextra-site (Nextra 4 on Next.js 16, App Router, exported as a static site) and
// examples/rspress-site (Rspress 2), their npm tools installed by scripts/setup-examples.sh (in the
// examples' workspace).
// Each gets the packed package installed (offline) and is built as its author builds it, its
// calculators baked as its pages are rendered (Nextra: a server component calling
// kvcalc/bake's fallbackHtml; Rspress: the kvcalc/mdx remark plugin), so that the figures are
// in the built HTML and in what the framework's router renders a page from. In Chromium: the
// live figure; React's hydration keeping the baked element (no <kv-calc> rendered again, the
// words bake wrote still inside it) and no console error (React's #418 would be one);
// nothing moving as it goes live, on a desktop and on a phone; a client-side navigation from
// another page showing the baked figures at once, styled, and going live in the same box;
// the framework's dark mode followed; the strict policy with only the framework's own inline
// scripts added, by hash. Its own file, so it can run beside the other suites.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BAKED_AS, BAKED_TEXT, COUNT_REMOVED, EXAMPLES, afterHydration, assertClean, checkClientNavigation, checkSite, examplesSetup,
  followsGeneratorDark, hashedScriptsCsp, installTarball, keyedCache, run, toolFile } from './examples-support.mjs';

// Next.js asks to send telemetry from its builds: nothing leaves the machine.
process.env.NEXT_TELEMETRY_DISABLED = '1';

let env;
before(async () => {
  env = await examplesSetup();
  await env.browser.context.addInitScript(COUNT_REMOVED);
});
after(async () => { await env?.close(); });

// What React wrote: the element's attributes, then its dangerouslySetInnerHTML (the render first).
const BAKED_BY_REACT = BAKED_AS('<kv-calc model="Qwen/Qwen2\\.5-7B-Instruct" context="32768">', '');

// What every React recipe's built site must show, from the built folder out (its first page at
// path): the baked figures in the HTML, under the strict policy with the framework's inline
// scripts by hash (checkSite: live, no shift on a desktop and a phone); hydration keeping the
// baked element; the framework's dark mode (toDark: its switch; themeKey: where it keeps the
// choice, cleared after); a client-side navigation (nav: checkClientNavigation's from, link,
// path) keeping the baked figures; then no console error, failed request or CSP violation
// (notFailed: failed requests that are the framework's own, explained where they are passed).
async function checkReactSite(out, path, { toDark, themeKey, nav: navigation, notFailed = () => false }) {
  assert.match(readFileSync(join(out, path.endsWith('/') ? `${path}index.html` : path), 'utf8'), BAKED_BY_REACT);
  // The style sheet the baked render links, written by the recipe's config where the site
  // serves files at its root.
  assert.equal(readFileSync(join(out, 'kvcalc.css'), 'utf8'), readFileSync(join(env.packageDist, 'kvcalc.css'), 'utf8'));
  const site = await checkSite(env, out, path, hashedScriptsCsp(out));
  try {
    const { page } = site;
    assert.deepEqual(await afterHydration(page), { removed: 0, words: BAKED_TEXT });
    await followsGeneratorDark(page, () => toDark(page), () => document.documentElement.classList.contains('dark'), true);
    await page.evaluate((key) => localStorage.removeItem(key), themeKey);
    const nav = await checkClientNavigation(env, site, navigation);
    try {
      for (const s of [site, nav]) s.log.failed = s.log.failed.filter((f) => !notFailed(f));
      await assertClean(site);
      await assertClean(nav);
    } finally {
      await nav.close();
    }
  } finally {
    await site.close();
  }
}

test('Nextra 4 (Next.js 16, static export): a server component bakes the element; hydration and a client-side navigation keep the baked figures; dark class followed; inline scripts by hash', async () => {
  const dir = join(EXAMPLES, 'nextra-site');
  installTarball(env, dir);
  run(process.execPath, [toolFile(dir, 'next', 'dist/bin/next'), 'build'], dir);
  // Next.js writes inline scripts on every page (the page's payload for React, its router's
  // state) and Nextra its theme's first paint (next-themes) and inline styles: a static
  // export has no per-request nonce, so they are allowed by their hashes. The element needs
  // nothing more than the strict policy.
  await checkReactSite(join(dir, 'out'), '/', {
    // Nextra's theme switch (light, dark, system): <html class="dark">, kept in localStorage "theme".
    toDark: async (page) => {
      await page.click('button[title="Change theme"]:visible');
      await page.click('[role="option"]:has-text("Dark")');
    },
    themeKey: 'theme',
    nav: { from: '/about/', link: 'main a[href="/"]', path: '/' },
    // Next.js's router asks for each page a link points to with a HEAD request before it
    // prefetches its route tree; Chromium reports a HEAD request as aborted once answered.
    notFailed: (f) => /^http:\/\/127\.0\.0\.1:\d+\/[^ ]* net::ERR_ABORTED$/.test(f),
  });
});

test('Rspress 2: kvcalc/mdx bakes the element as the MDX compiles; hydration and a client-side navigation keep the baked figures; dark class followed; its inline script by hash', async () => {
  const dir = join(EXAMPLES, 'rspress-site');
  installTarball(env, dir);
  // Rspack's persistent cache (node_modules/.cache/rspack in the recipe's folder), keyed by
  // every input of the build (keyedCache): Rspack's own check takes an installed package for
  // unchanged while its version is (0.1.0 in every build of kvcalc).
  keyedCache(env, dir, join(dir, 'node_modules/.cache'), 'rspress-rspack', ['node_modules', 'doc_build', 'docs/public/kvcalc.css']);
  run(process.execPath, [toolFile(dir, '@rspress/core', 'bin/rspress.js'), 'build'], dir);
  // Rspress writes an inline script (its theme's first paint, from localStorage) and style
  // attributes of its own. Its layout narrows the content when its outline column, written
  // after the content, is parsed: the line above the element is short enough not to wrap then
  // (a paragraph that wraps moves what is below it, element or not).
  await checkReactSite(join(dir, 'doc_build'), '/index.html', {
    // Rspress's appearance switch (at 1,280 px in the menu that opens on hovering its button):
    // <html class="dark rp-dark">, kept in localStorage "rspress-theme-appearance".
    toDark: async (page) => {
      await page.hover('.rp-nav-hamburger__md');
      await page.click('.rp-nav-hamburger__md .rp-switch-appearance');
    },
    themeKey: 'rspress-theme-appearance',
    nav: { from: '/about.html', link: '.rp-doc a[href="/index.html"]', path: '/index.html' },
  });
});
