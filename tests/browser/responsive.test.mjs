// Small and large screens, light and dark: at 320 (a small phone), 390 (a phone), 768 (a
// tablet) and 1280 px (a laptop), every element fits its page, every table column can be
// reached (the table scrolls in a focusable, labelled box with its first column in view), no
// word is broken across lines, no select cuts its choice short, and the inputs keep columns
// of at least 10 em of the element's text. The same under a docs theme's small root font
// (14 px, and mdBook's 10 px with its text at 16 px): the element lays out by its own width
// and text size, never the root's. Screenshots of each case are saved in build/screenshots/
// for a person to look at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowser, openPage, waitForWidgets, problems, CLEAN, ROOT } from './harness.mjs';

const SHOTS = join(ROOT, 'build/screenshots');
const WIDTHS = [320, 390, 768, 1280];
// all.html: every view, with the check of Llama-4-Scout (long names); table.html: the
// per-model table of every preset (about 1,750 px wide).
const PAGES = ['all', 'table'];

let env;
before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  env = await startBrowser();
});
after(async () => { await env?.close(); });

// Everything wrong with the layout of every <kv-calc> on the page, as text ([] when fine).
function layoutProblems() {
  const out = [];
  const vw = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > vw) out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${vw}`);
  for (const el of document.querySelectorAll('kv-calc')) {
    const id = `#${el.id}`;
    const host = el.getBoundingClientRect();
    if (host.left < 0 || host.right > vw + 0.5) out.push(`${id} is outside the viewport: ${host.left}..${host.right} of ${vw}`);
    const root = el.shadowRoot;
    const visible = (n) => n.getClientRects().length > 0;
    // Nothing sticks out of the element, but what scrolls inside a table box.
    for (const n of root.querySelectorAll('*')) {
      if (!visible(n) || n.closest('.table-wrap') || n.closest('svg') && n.localName !== 'svg') continue;
      const r = n.getBoundingClientRect();
      if (r.width && (r.right > host.right + 0.5 || r.left < host.left - 0.5)) {
        out.push(`${id} ${n.localName}.${n.className?.baseVal ?? n.className}: ${Math.round(r.left)}..${Math.round(r.right)} outside ${Math.round(host.left)}..${Math.round(host.right)}`);
      }
    }
    // Every column reachable: a table wider than its box scrolls in a focusable, labelled
    // region, and scrolled to its end shows its last column beside the first.
    for (const wrap of root.querySelectorAll('.table-wrap')) {
      if (!visible(wrap) || wrap.scrollWidth <= wrap.clientWidth) continue;
      const label = wrap.getAttribute('aria-label') || root.getElementById(wrap.getAttribute('aria-labelledby'))?.textContent;
      if (wrap.tabIndex !== 0 || wrap.getAttribute('role') !== 'region' || !label) out.push(`${id}: a scrolling table box that is not a focusable, labelled region`);
      const hint = wrap.previousElementSibling;
      if (root.host.getAttribute('view') === 'table' && !(hint && visible(hint) && /scrolls sideways/.test(hint.textContent))) out.push(`${id}: no hint that the table scrolls`);
      const first = wrap.querySelector('tbody tr > :first-child');
      const last = wrap.querySelector('tbody tr > :last-child');
      const before = first.getBoundingClientRect().left;
      wrap.scrollLeft = wrap.scrollWidth;
      const box = wrap.getBoundingClientRect();
      const l = last.getBoundingClientRect();
      if (l.right > box.right + 1 || l.left < first.getBoundingClientRect().right - 1) out.push(`${id}: the last column is not beside the first once scrolled`);
      if (Math.abs(first.getBoundingClientRect().left - before) > 1) out.push(`${id}: the first column moved when the table scrolled`);
      wrap.scrollLeft = 0;
    }
    // No word broken across lines: each run of letters and digits (with its trailing "-",
    // "/", "_" or ".", after which a line may break) lies on one line.
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const p = t.parentElement;
      if (!p || p.closest('svg, math, option, textarea, select, datalist') || !visible(p)) continue;
      for (const m of t.data.matchAll(/[^\s\-/]+[-/]?/g)) {
        const range = document.createRange();
        range.setStart(t, m.index);
        range.setEnd(t, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) out.push(`${id}: "${m[0]}" is broken across lines (${p.localName}.${p.className})`);
      }
    }
    // The inputs in columns a reader can read: each at least 10 em of the element's text wide
    // (one column on a phone).
    const em = parseFloat(getComputedStyle(el).fontSize);
    for (const f of root.querySelectorAll('.controls > .field')) {
      const w = f.getBoundingClientRect().width;
      if (visible(f) && w < 10 * em) out.push(`${id}: the input "${f.querySelector('label, summary')?.textContent}" is ${Math.round(w)} px wide, less than 10 em (${10 * em} px)`);
    }
    // No select cuts its choice short: a copy of it with the chosen option alone, at its
    // natural width, is no wider.
    for (const s of root.querySelectorAll('select')) {
      if (!visible(s) || !s.selectedOptions[0]) continue;
      const copy = s.cloneNode(false);
      copy.append(s.selectedOptions[0].cloneNode(true));
      copy.style.width = 'auto';
      copy.style.position = 'absolute';
      copy.style.visibility = 'hidden';
      s.parentElement.append(copy);
      const need = copy.getBoundingClientRect().width;
      copy.remove();
      if (need > s.getBoundingClientRect().width + 0.5) out.push(`${id} select[name=${s.name}] shows "${s.selectedOptions[0].text}" in ${Math.round(s.getBoundingClientRect().width)} px of the ${Math.round(need)} it needs`);
    }
  }
  return out;
}

for (const name of PAGES) {
  for (const width of WIDTHS) {
    test(`${name}.html at ${width} px, light and dark: everything fits and every column is reachable`, async () => {
      for (const colorScheme of ['light', 'dark']) {
        const { page, log } = await openPage(env, `/${name}.html`, { viewport: { width, height: 900 }, colorScheme });
        await waitForWidgets(page);
        assert.deepEqual(await page.evaluate(layoutProblems), [], `${name}.html at ${width} px, ${colorScheme}`);
        // The dark page gets the dark element.
        assert.equal(await page.$eval('kv-calc', (el) => el.matches(':state(dark)')), colorScheme === 'dark');
        await page.screenshot({ path: join(SHOTS, `${name}-${width}-${colorScheme}.png`), fullPage: true });
        assert.deepEqual(await problems(page, log), CLEAN);
        await page.close();
      }
    });
  }
}

// A docs theme's root font size: the element's text is the page's, and its inputs and tables
// lay out by the element's own width and text, as at 16 px.
for (const [sheet, width] of [['root-14px', 1280], ['root-14px', 320], ['root-mdbook', 1280], ['root-mdbook', 390]]) {
  test(`all.html under a ${sheet} theme at ${width} px: everything fits, inputs readable`, async () => {
    const { page, log } = await openPage(env, '/all.html', { viewport: { width, height: 900 } });
    await page.addStyleTag({ url: `/${sheet}.css` });
    await waitForWidgets(page);
    const sizes = await page.$eval('kv-calc', (el) => [getComputedStyle(document.documentElement).fontSize, getComputedStyle(el).fontSize]);
    assert.deepEqual(sizes, sheet === 'root-14px' ? ['14px', '14px'] : ['10px', '16px']);
    assert.deepEqual(await page.evaluate(layoutProblems), [], `${sheet} at ${width} px`);
    await page.screenshot({ path: join(SHOTS, `all-${sheet}-${width}.png`), fullPage: true });
    assert.deepEqual(await problems(page, log), CLEAN);
    await page.close();
  });
}
