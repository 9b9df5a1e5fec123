// The element's source header documents its surface once (attributes, events, parts,
// custom properties) and says all of it: checked against what the element really has.
// Theming through those custom properties and parts works from a page's style sheet, and
// the element follows prefers-color-scheme and prefers-reduced-motion.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowser, openPage, waitForWidgets, ROOT } from './harness.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

const header = readFileSync(join(ROOT, 'web/element/element.js'), 'utf8').split('*/')[0];
const documented = (tag) => [...header.matchAll(new RegExp(`@${tag} (\\S+)`, 'g'))].map((m) => m[1]).sort();

test('the header documents every attribute, part, custom property and event, and no others', async () => {
  const { page } = await openPage(env, '/theme.html');
  await waitForWidgets(page);
  const attrs = await page.evaluate(() => [...customElements.get('kv-calc').observedAttributes].sort());
  assert.deepEqual(documented('attr'), attrs);

  // Every part any view renders, with the config panel and each pool source shown.
  await page.locator('#themed summary', { hasText: 'Use your own config.json' }).click();
  const parts = new Set();
  for (const source of ['tokens', 'log', 'gpu']) {
    await page.locator(`#themed input[type=radio][value=${source}]`).check();
    for (const p of await page.$eval('#themed', async (el) => {
      await el.updateComplete;
      return [...el.shadowRoot.querySelectorAll('[part]')].flatMap((n) => n.getAttribute('part').split(/\s+/));
    })) parts.add(p);
  }
  assert.deepEqual(documented('part'), [...parts].sort());

  const styles = readFileSync(join(ROOT, 'web/element/styles.js'), 'utf8');
  const used = [...new Set([...styles.matchAll(/var\((--kv-[a-z0-9-]+)/g)].map((m) => m[1]))].sort();
  assert.deepEqual(documented('cssprop'), used);
  assert.deepEqual(documented('event'), ['kvcalc-change']);
  await page.close();
});

test('a page themes the widget through --kv-* properties and ::part', async () => {
  const { page } = await openPage(env, '/theme.html');
  await waitForWidgets(page);
  const look = await page.$eval('#themed', (el) => {
    const q = (s) => el.shadowRoot.querySelector(s);
    const pressed = q('button[aria-pressed="true"]') || q('.term');
    return {
      host: getComputedStyle(el).backgroundColor,
      radius: getComputedStyle(el).borderTopLeftRadius,
      accent: getComputedStyle(q('.term')).color,
      verdictOutline: getComputedStyle(q('[part="verdict"]')).outline,
      name: getComputedStyle(q('[part="model-name"]')).textTransform,
      pressed: pressed ? 'ok' : 'none',
    };
  });
  assert.equal(look.host, 'rgb(250, 240, 230)');
  assert.equal(look.radius, '0px');
  assert.equal(look.accent, 'rgb(1, 2, 3)');
  assert.equal(look.verdictOutline, 'rgb(4, 5, 6) solid 5px');
  assert.equal(look.name, 'uppercase');
  await page.close();
});

test('prefers-color-scheme and prefers-reduced-motion are followed', async () => {
  const colours = {};
  for (const scheme of ['light', 'dark']) {
    const { page } = await openPage(env, '/formula.html', { colorScheme: scheme });
    await waitForWidgets(page);
    colours[scheme] = await page.$eval('#qwen', (el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
    await page.close();
  }
  assert.deepEqual(colours.light, ['rgb(255, 255, 255)', 'rgb(29, 36, 48)']);
  assert.deepEqual(colours.dark, ['rgb(22, 26, 32)', 'rgb(230, 233, 238)']);

  const durations = {};
  for (const motion of ['reduce', 'no-preference']) {
    const { page } = await openPage(env, '/formula.html');
    await page.emulateMedia({ reducedMotion: motion });
    await waitForWidgets(page);
    durations[motion] = await page.$eval('#qwen', (el) => getComputedStyle(el.shadowRoot.querySelector('button')).transitionDuration);
    await page.close();
  }
  assert.equal(durations.reduce, '0s');
  assert.match(durations['no-preference'], /^0\.12s/);
});

test('styles come only through one shared adopted style sheet: no <style>, no style=""', async () => {
  // An element without a baked render (these pages' fallbacks are written by hand) adopts the
  // element's style sheet (web/element/styles.js: its box, its controls and every view), one
  // CSSStyleSheet for every element of the page. (A baked element keeps the link to
  // kvcalc.css its baked render came with: bake-shift.test.mjs.)
  for (const path of ['/all.html', '/many.html', '/theme.html']) {
    const { page } = await openPage(env, path);
    await waitForWidgets(page);
    const found = await page.$$eval('kv-calc', (els) => ({
      inline: els.flatMap((el) => [...el.shadowRoot.querySelectorAll('style, link[rel=stylesheet], [style]')].map((n) => `${el.id}: ${n.localName}`)),
      sheets: els.map((el) => el.shadowRoot.adoptedStyleSheets.length),
      shared: els.every((el) => el.shadowRoot.adoptedStyleSheets[0] === els[0].shadowRoot.adoptedStyleSheets[0]),
    }));
    assert.deepEqual(found.inline, [], path);
    assert.ok(found.sheets.every((n) => n === 1), `${path}: ${found.sheets}`);
    assert.equal(found.shared, true, path);
    await page.close();
  }
});
