// The documentation site as built (site-build/), served alone on 127.0.0.1 by
// scripts/serve.mjs under the strict CSP, in Debian's Chromium: every page loads with no
// console error and no CSP violation, has the structure every page must have, every
// <kv-calc> computes and agrees with the native CLI, the baked no-JS tables give the same
// bytes as the live ones, every internal link resolves, and the pages fit a phone. Axe's
// checks are in site-axe.test.mjs, the offline behaviour in site-offline.test.mjs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CSP } from '../../scripts/serve.mjs';
import { PAGES } from '../../site/tools/layout.mjs';
import { binaryBytes, groupThousands } from '../../site/tools/cli.mjs';
import { NODE_ONLY } from '../../scripts/page-loads.mjs';
import { parseElementHeader } from '../../site/tools/reference.mjs';
import { listFiles } from '../../site/tools/service-worker.mjs';
import { snippetPath } from '../../site/build.mjs';
import { llamacppCases } from '../expected/expected.mjs';
import {
  ROOT, SITE_BUILD, SITE_PAGES, ALL_PAGES, kvcalc, openPage, servedSite, waitForWidgets, widgets, sizeOf,
} from './site-pages/support.mjs';

const siteFiles = existsSync(SITE_BUILD) ? listFiles(SITE_BUILD) : [];
const site = servedSite('index.html');

test('the build lists every page, and every page is built', () => {
  // 12 pages in the navigation (Architectures, Conformance and Running locally among them) + the runnable snippet.
  assert.equal(SITE_PAGES.length, 12);
  for (const file of ALL_PAGES) assert.ok(siteFiles.includes(file), `site-build/${file}`);
  assert.ok(siteFiles.includes('dist/kvcalc.js'), 'site-build/dist/kvcalc.js: the site carries its own copy of the package');
  // Every file a page may fetch, as built; not the Node-only ones (the kvcalc command, the baker).
  for (const f of listFiles(join(ROOT, 'dist'))) {
    if (NODE_ONLY.includes(f)) {
      assert.ok(!siteFiles.includes(`dist/${f}`), `site-build/dist/${f}: Node-only, not hosted`);
      continue;
    }
    assert.deepEqual(readFileSync(join(SITE_BUILD, 'dist', f)), readFileSync(join(ROOT, 'dist', f)), `site-build/dist/${f} is dist/${f}`);
  }
});

test('every page loads with no console error, no failed request, no CSP violation, and fetches only site files', async () => {
  for (const file of ALL_PAGES) {
    const { page, log } = await openPage(site.browser, `${site.base}/${file}`);
    await waitForWidgets(page);
    assert.deepEqual(await log.problems(), { consoleErrors: [], pageErrors: [], failed: [], csp: [] }, file);
    const foreign = log.requests.filter((url) => {
      if (!url.startsWith(`${site.base}/`)) return true;
      const path = decodeURIComponent(new URL(url).pathname.slice(1));
      return !(path === '' || siteFiles.includes(path));
    });
    assert.deepEqual(foreign, [], `${file}: requests for anything but the site's own files`);
    await page.close();
  }
});

test('every page has lang="en", a skip link, landmarks, one h1, the nav marking it, an icon, and no inline style or script', async () => {
  for (const { file } of PAGES) {
    const { page } = await openPage(site.browser, `${site.base}/${file}`);
    const s = await page.evaluate(() => {
      const focusable = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')]
        .filter((e) => e.tabIndex >= 0);
      const current = [...document.querySelectorAll('nav a[aria-current="page"]')];
      return {
        lang: document.documentElement.getAttribute('lang'),
        firstFocusable: focusable[0] ? `${focusable[0].className} ${focusable[0].getAttribute('href')}` : null,
        skipTarget: document.querySelector('#main')?.localName ?? null,
        h1: document.querySelectorAll('h1').length,
        banner: document.querySelectorAll('body > header').length,
        main: document.querySelectorAll('main').length,
        contentinfo: document.querySelectorAll('body > footer').length,
        siteNav: document.querySelectorAll('header nav[aria-label="Site"]').length,
        current: current.map((a) => a.getAttribute('href')),
        icon: document.querySelector('link[rel~="icon"]')?.getAttribute('href') ?? null,
        styleAttributes: document.querySelectorAll('[style]').length,
        styleElements: document.querySelectorAll('style').length,
        inlineScripts: [...document.scripts].filter((x) => !x.src && x.type !== 'application/json').length,
        stylesheets: [...document.querySelectorAll('link[rel="stylesheet"]')].map((l) => new URL(l.href).pathname),
        title: document.title,
      };
    });
    assert.deepEqual(s, {
      lang: 'en',
      firstFocusable: 'skip-link #main',
      skipTarget: 'main',
      h1: 1,
      banner: 1,
      main: 1,
      contentinfo: 1,
      siteNav: 1,
      current: [file],
      icon: 'favicon.svg',
      styleAttributes: 0,
      styleElements: 0,
      inlineScripts: 0,
      stylesheets: ['/site.css'],
      title: s.title,
    }, file);
    assert.match(s.title, /kvcalc/, `${file}: the title names the site`);
    // The skip link works from the keyboard: Tab, Enter, and focus is in <main>.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.className), 'skip-link', `${file}: Tab reaches the skip link first`);
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'main', `${file}: the skip link moves focus to <main>`);
    await page.close();
  }
});

test('light and dark: the page follows prefers-color-scheme', async () => {
  const colours = {};
  for (const scheme of ['light', 'dark']) {
    const { page } = await openPage(site.browser, `${site.base}/index.html`, { colorScheme: scheme });
    colours[scheme] = await page.evaluate(() => {
      const b = getComputedStyle(document.body);
      return { background: b.backgroundColor, color: b.color };
    });
    await page.close();
  }
  assert.deepEqual(colours.light, { background: 'rgb(255, 255, 255)', color: 'rgb(29, 36, 48)' });
  assert.deepEqual(colours.dark, { background: 'rgb(17, 20, 24)', color: 'rgb(230, 233, 238)' });
});

test('every widget computes, and its figures are the native CLI\'s for the same attributes', async () => {
  let checked = 0;
  for (const file of ALL_PAGES) {
    const { page } = await openPage(site.browser, `${site.base}/${file}`);
    await waitForWidgets(page);
    for (const w of await widgets(page)) {
      const where = `${file} #${w.id || '?'} (view=${w.attrs.view || 'formula'})`;
      assert.match(w.shownText, /\d/, `${where}: shows a number`);
      const view = w.attrs.view || 'formula';
      if (view === 'table') continue;   // the next test compares tables cell by cell
      const cli = sizeOf(w);
      assert.equal(w.result.bytesPerToken, cli.bytes_per_token, `${where}: bytes per token`);
      assert.equal(w.result.kvBytes, cli.kv_bytes, `${where}: KV bytes`);
      assert.equal(w.result.context, cli.context, `${where}: context`);
      // What the reader sees includes the exact figures.
      assert.ok(w.shownText.includes(`${groupThousands(cli.bytes_per_token)} B`), `${where}: shows ${cli.bytes_per_token} B per token`);
      if (view === 'check') {
        const c = kvcalc(['check', w.attrs.model, '--max-context', w.attrs['max-context'], '--pool-tokens', w.attrs['pool-tokens']], [0, 3]);
        assert.ok(w.check, `${where}: has a check result`);
        assert.deepEqual([w.check.fits, w.check.maxConcurrency, w.check.maxSafeContext, w.check.poolTokens],
          [c.fits, c.max_concurrency, c.max_safe_context, c.pool_tokens], `${where}: the check`);
        assert.match(w.verdict, c.fits ? /^Fits/ : /^Does not fit/, `${where}: verdict`);
      }
      checked += 1;
    }
    await page.close();
  }
  assert.ok(checked >= 10, `checked ${checked} widgets`);
});

test('the reference case: 1,048,576 tokens advertised on a 681,280-token pool does not fit (0.65x)', async () => {
  const { page } = await openPage(site.browser, `${site.base}/pools.html`);
  await waitForWidgets(page);
  const [w] = (await widgets(page)).filter((x) => x.id === 'reference-check');
  // 681,280 / 1,048,576 = 0.6497 -> 0.65; 681,280 = 42,580 blocks of 16, so all of it is safe.
  assert.deepEqual([w.check.fits, w.check.maxConcurrency, w.check.maxSafeContext], [false, 0.65, 681280]);
  assert.match(w.verdict, /^Does not fit: one 1,048,576-token request needs more than the pool of 681,280 tokens \(0\.65x\)/);
  // The baked fallback says the same.
  assert.match(w.fallbackText, /^Does not fit: one 1,048,576-token request needs more than the pool of 681,280 tokens \(max concurrency 0\.65x\)\. Safe max context: 681,280 tokens\.$/);
  await page.close();
});

test('Running locally: llama.cpp\'s allocations as tests/expected/llamacpp.json gives them, and each element keeps its attributes', async () => {
  const { page } = await openPage(site.browser, `${site.base}/local.html`);
  const written = await page.evaluate(() => [...document.querySelectorAll('kv-calc')].map((el) => [el.id, el.getAttributeNames().sort()]));
  await waitForWidgets(page);
  const { cases } = llamacppCases();
  const bytes = (name) => cases.find((c) => c.name === name).bytes;
  const shown = Object.fromEntries((await widgets(page)).map((w) => [w.id, w]));
  const allocated = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('kv-calc')]
    .map((el) => [el.id, { engine: el.result.engine, cells: el.result.llamacpp.memory.map((m) => m.cells), bytes: el.result.llamacpp.bytes }])));
  // gpt-oss-20b at 131,072 tokens: llama-server on one slot keeps 768 SWA cells, LM Studio (swa_full) all 131,072.
  assert.deepEqual(allocated['oss-server'], { engine: 'llamacpp', cells: [131072, 768], bytes: bytes('gpt-oss-20b, 131,072 tokens, one slot: 768 SWA cells (18 MiB)') });
  assert.deepEqual(allocated['oss-studio'], { engine: 'llamacpp', cells: [131072, 131072], bytes: bytes('gpt-oss-20b in LM Studio: swa_full, the SWA layers keep 131,072 cells (3 GiB)') });
  assert.equal(allocated['q8-calc'].bytes, bytes('Qwen2.5-7B, q8_0 K and V: 34 B per 32 values'));
  assert.equal(allocated['slots-calc'].bytes, bytes('current, 3 separate slots: PAD(PAD(n_ctx, 256) / 3, 256) a stream, n_ctx grows'));
  assert.equal(allocated['ollama-calc'].bytes, bytes('Ollama: num_ctx 8192 x OLLAMA_NUM_PARALLEL 2 on gpt-oss-20b'));
  assert.equal(allocated['hybrid-calc'].bytes, bytes('Qwen3-Next-80B: 12 attention layers and 36 gated-delta-net states, 2 separate slots'));
  // The inline GGUF metadata, no engine attribute: llama-server's 4 unified slots at -c 32,768:
  // 12 x 32,768 x 2,048 B + 12 x ceildiv(min(32768, 128 x 4 + 512), 256) x 256 x 2,048 B.
  assert.deepEqual(allocated['gguf-calc'], { engine: 'llamacpp', cells: [32768, 1024], bytes: 12 * 32768 * 2048 + 12 * 1024 * 2048 });
  assert.match(shown['gguf-calc'].shownText, /llama\.cpp: what a GGUF file runs in/);
  // The q8_0 block and the log lines, as the page's text says them.
  assert.match(shown['q8-calc'].shownText.replace(/\s+/g, ''), /K\(q8_0\):512÷32×34=544B/);
  assert.match(shown['oss-server'].shownText, /llama_kv_cache: size = {3}18\.00 MiB \( {3}768 cells, {2}12 layers, {2}1\/1 seqs\)/);
  // Taking over the baked render changed no attribute (and wrote nothing in the URL).
  assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('kv-calc')].map((el) => [el.id, el.getAttributeNames().sort()])), written);
  assert.equal(await page.evaluate(() => location.hash), '');
  await page.close();
});

test('the baked no-JS tables and the live tables give the same bytes, row by row, as kvcalc table --format json', async () => {
  let cells = 0;
  const presets = kvcalc(['presets']).map((p) => p.id);
  for (const file of ALL_PAGES) {
    const { page } = await openPage(site.browser, `${site.base}/${file}`);
    await waitForWidgets(page);
    for (const w of (await widgets(page)).filter((x) => x.attrs.view === 'table')) {
      const where = `${file} #${w.id}`;
      const models = w.attrs.models ? w.attrs.models.split(/[\s,]+/) : presets;
      const json = kvcalc(['table', ...models, '--contexts', '4096,32768,131072', '--format', 'json']);
      assert.deepEqual(json.contexts, [4096, 32768, 131072]);
      const { live, baked } = w.tables;
      assert.deepEqual(live.models, models, `${where}: live rows`);
      assert.deepEqual(baked.models, models, `${where}: baked rows`);
      assert.deepEqual(baked.contextHeads, ['4K tokens', '32K tokens', '128K tokens'], `${where}: baked columns`);
      assert.deepEqual(live.contextHeads, ['Memory at 4K', 'Memory at 32K', 'Memory at 128K'], `${where}: live columns`);
      json.rows.forEach((row, i) => {
        const m = `${where} ${row.model}`;
        assert.equal(row.model, models[i]);
        // Per token: the live cell is the exact count, the baked one the CLI's rounding of it.
        assert.equal(live.bytesPerToken[i], `${groupThousands(row.bytes_per_token)} B`, `${m}: live bytes per token`);
        assert.equal(baked.bytesPerToken[i], binaryBytes(row.bytes_per_token), `${m}: baked bytes per token`);
        row.kv_bytes.forEach((bytes, j) => {
          const c = json.contexts[j];
          if (bytes === null) {
            // Beyond the model's own max context the CLI prints a dash.
            assert.ok(row.max_context !== null && c > row.max_context, `${m} at ${c}: null only beyond the max context`);
            assert.equal(baked.memory[i][j], '—', `${m} at ${c}: baked dash`);
            assert.deepEqual(live.memory[i][j], { value: null, text: '—' }, `${m} at ${c}: live dash`);
          } else {
            assert.equal(live.memory[i][j].value, String(bytes), `${m} at ${c}: live exact bytes`);
            assert.equal(baked.memory[i][j], binaryBytes(bytes), `${m} at ${c}: baked`);
          }
          cells += 1;
        });
      });
    }
    await page.close();
  }
  // models.html: 14 rows + every bundled preset, 3 contexts each.
  assert.equal(cells, (14 + presets.length) * 3);
});

test('every internal link, script, style sheet and image resolves (200), and every #fragment exists', async () => {
  const ids = {};
  const links = [];
  for (const file of ALL_PAGES) {
    const { page } = await openPage(site.browser, `${site.base}/${file}`);
    const found = await page.evaluate(() => ({
      ids: [...document.querySelectorAll('[id]')].map((e) => e.id),
      refs: [...document.querySelectorAll('[href], [src]')].map((e) => e.getAttribute('href') ?? e.getAttribute('src')),
    }));
    ids[file] = new Set(found.ids);
    for (const value of found.refs) links.push({ file, value });
    await page.close();
  }
  // 9 nav links + prev/next + skip link + icon, CSS, 2 scripts on each page, and the text's links.
  assert.ok(links.length > 150, `${links.length} links`);
  const status = new Map();
  for (const { file, value } of links) {
    const url = new URL(value, `${site.base}/${file}`);
    assert.equal(url.origin, site.base, `${file}: "${value}" leaves the site (it links nothing external)`);
    if (!status.has(url.pathname)) status.set(url.pathname, (await fetch(`${site.base}${url.pathname}`)).status);
    assert.equal(status.get(url.pathname), 200, `${file}: ${value}`);
    if (url.hash) {
      const target = url.pathname === '/' ? 'index.html' : url.pathname.slice(1);
      assert.ok(ids[target]?.has(url.hash.slice(1)), `${file}: ${value}: no id="${url.hash.slice(1)}" in ${target}`);
    }
  }
  // The service worker's list resolves too: it is what a first visit caches.
  const sw = readFileSync(join(SITE_BUILD, 'sw.js'), 'utf8');
  const list = JSON.parse(/const FILES = (\[[\s\S]*?\]);/.exec(sw)[1]);
  assert.deepEqual(list, siteFiles.filter((f) => f !== 'sw.js'));
  for (const f of list) assert.equal((await fetch(`${site.base}/${f}`)).status, 200, f);
});

test('every page fits a phone: nothing wider than 390 px', async () => {
  for (const file of ALL_PAGES) {
    const { page } = await openPage(site.browser, `${site.base}/${file}`, { viewport: { width: 390, height: 844 } });
    await waitForWidgets(page);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.equal(width, 390, `${file}: the page scrolls sideways (${width} px wide)`);
    await page.close();
  }
});

test('the reference page lists what web/element/element.js documents, and the element renders exactly the parts it documents', async () => {
  const doc = parseElementHeader(readFileSync(join(ROOT, 'web/element/element.js'), 'utf8'));
  const { page } = await openPage(site.browser, `${site.base}/reference.html`);
  await waitForWidgets(page);
  const listed = await page.evaluate(() => Object.fromEntries(
    ['attr', 'prop', 'event', 'part', 'cssstate', 'cssprop'].map((k) => [k,
      [...document.querySelectorAll(`#ref-${k}-caption ~ tbody th[scope="row"] code`)].map((c) => c.textContent)])));
  assert.deepEqual(listed, {
    attr: doc.attr.map((e) => e.name),
    prop: doc.prop.map((e) => e.name),
    event: doc.event.map((e) => e.name),
    part: doc.part.map((e) => e.name),
    cssstate: doc.cssstate.map((e) => e.name),
    cssprop: doc.cssprop.map((e) => e.name),
  });
  // The documented states are the element's: live once it has replaced the fallback.
  assert.deepEqual(doc.cssstate.map((e) => e.name), ['live', 'dark']);
  assert.equal(await page.$eval('kv-calc[view="all"]', (el) => el.matches(':state(live)')), true);
  // The documented attributes are the ones the element observes.
  const observed = await page.evaluate(() => customElements.get('kv-calc').observedAttributes);
  assert.deepEqual([...doc.attr.map((e) => e.name)].sort(), [...observed].sort());
  // Every documented part is there in a rendered element (view="all" shows every view), with
  // its paste panel opened (the panel's input is built when it is first opened).
  await page.locator('kv-calc[view="all"] summary', { hasText: 'Use your own config.json' }).first().click();
  await page.waitForFunction(() => document.querySelector('kv-calc[view="all"]').shadowRoot.querySelector('[part~="dropzone"]'));
  const rendered = await page.evaluate(() => {
    const parts = new Set();
    const el = document.querySelector('kv-calc[view="all"]');
    for (const n of el.shadowRoot.querySelectorAll('[part]')) for (const p of n.getAttribute('part').split(/\s+/)) parts.add(p);
    return [...parts];
  });
  // Every part documented is rendered, and every part rendered is documented.
  assert.deepEqual([...rendered].sort(), doc.part.map((p) => p.name).sort());
  await page.close();
});

test('the snippets on the embedding page are the files in site/snippets, and the plain-HTML one runs', async () => {
  const { page } = await openPage(site.browser, `${site.base}/embed.html`);
  const shown = await page.$$eval('.snippet', (boxes) => boxes.map((b) => ({
    label: b.querySelector('.snippet-label').textContent, code: b.querySelector('pre code').textContent,
  })));
  const html = readFileSync(join(ROOT, 'site/pages/embed.html'), 'utf8');
  const names = [...html.matchAll(/<!--\s*snippet:\s*(\S+)\s*\|/g)].map((m) => m[1]);
  assert.equal(shown.length, names.length);
  names.forEach((name, i) => {
    assert.equal(shown[i].code, readFileSync(snippetPath(name), 'utf8').replace(/\n$/, ''), name);
  });
  // One source: the recipes for plain HTML, Vite, VitePress and MkDocs are the tested
  // examples' own files.
  for (const example of ['plain-html/index.html', 'vite-app/main.js', 'vite-app/vite.config.js', 'vitepress-site/docs/.vitepress/config.mjs',
    'vitepress-site/docs/.vitepress/theme/index.js', 'mkdocs-site/mkdocs.yml', 'mkdocs-site/overrides/main.html']) {
    assert.ok(names.includes(`examples/${example}`), `the guide shows examples/${example}`);
  }
  await page.close();
  // The runnable copy differs from the example only in where the package is, and in what
  // the bake its comment asks for wrote into its element (linking the site's kvcalc.css).
  const snippet = readFileSync(join(ROOT, 'examples/plain-html/index.html'), 'utf8');
  const copy = readFileSync(join(SITE_BUILD, 'examples/plain.html'), 'utf8');
  assert.equal(copy.replace(/(<kv-calc [^>]*>)[\s\S]*?<\/kv-calc>/, '$1</kv-calc>'), snippet.replace('kvcalc/kvcalc.js', '../dist/kvcalc.js'));
  assert.match(copy, /<kv-calc [^>]*>\n<template shadowrootmode="open"><link rel="stylesheet" href="\.\.\/dist\/kvcalc\.css">/);
  // The CSP in the snippets is the one the site is served with.
  for (const name of ['csp-header.txt', 'nginx.conf', 'apache.conf', 'headers.txt', 'meta-csp.html']) {
    const text = readFileSync(join(ROOT, 'site/snippets', name), 'utf8').replace(/\s+/g, ' ');
    assert.ok(text.includes(CSP), `${name} carries the policy`);
  }
});

test('the Markdown snippet is a CommonMark HTML block: a <div> at the start of a line, no blank line inside', () => {
  const lines = readFileSync(join(ROOT, 'site/snippets/markdown.md'), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith('<div'));
  const end = lines.findIndex((l) => l === '</div>');
  assert.ok(start > 0 && end > start, 'a <div> ... </div> block');
  assert.equal(lines[start - 1], '', 'a blank line before the block');
  assert.equal(lines[end + 1], '', 'a blank line after the block');
  for (const l of lines.slice(start, end + 1)) {
    assert.notEqual(l.trim(), '', 'no blank line inside the block (it would end it)');
    assert.ok(!/^ {4}/.test(l), 'no line indented as code');
  }
  assert.ok(lines.slice(start, end).some((l) => l.startsWith('<kv-calc ')), 'the element inside');
});
