// A first render goes live with its main section, and draws the others (the chart, the table
// of every preset, the GQA rows, the check) and the model list in slices, leaving the main
// thread to the page between them (live.js #drawInSlices: scheduler.yield()). Here the page's
// scheduler.yield() is held by the test, which lets the slices go one at a time: a reader's
// input while the table is being built is applied at once, and the slices that follow draw
// the typed state, not the one they started from; on a baked page, the baked sections still
// to draw hold their place until drawn, show nothing of a state no longer the element's, and
// the live sections drawn in slices show the same figures as the baked ones.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrowser, CSP, DIST, ROOT } from './harness.mjs';
import { startServer } from '../../scripts/serve.mjs';

let env;
const scratch = mkdtempSync(join(tmpdir(), 'kvcalc-slices-'));
before(async () => { env = await startBrowser(); });
after(async () => {
  await env?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const ALL = 'view="all" model="Qwen/Qwen2.5-7B-Instruct" context="32768" pool-tokens="681280" max-context="1048576"';

// A page at url whose scheduler.yield() waits for the test: window.__release() lets the
// oldest waiting slice go. Records page errors.
async function heldPage(url) {
  const page = await env.context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  await page.addInitScript(() => {
    const held = [];
    window.__held = held;
    window.__release = () => held.shift()?.();
    scheduler.yield = () => new Promise((ok) => held.push(ok));
  });
  await page.goto(url);
  return page;
}

// Lets slices go, one at a time, until check() (run in the page on the element) is true.
async function releaseUntil(page, check) {
  for (let i = 0; i < 200; i += 1) {
    if (await page.$eval('kv-calc', check)) return;
    await page.waitForFunction(() => window.__held.length > 0);
    await page.evaluate(() => window.__release());
  }
  throw new Error(`not reached: ${check}`);
}

// Lets every slice go until the element's updateComplete resolves.
const finish = (page) => page.$eval('kv-calc', async (el) => {
  let done = false;
  el.updateComplete.then(() => { done = true; });
  while (!done) {
    while (window.__held.length) window.__release();
    await new Promise((ok) => setTimeout(ok, 5));
  }
});

// The table's memory cell (its exact bytes) of a model's row at a column named "Memory at <label>".
const tableBytes = (page, model, label) => page.$eval('kv-calc', (el, [model, label]) => {
  const table = el.shadowRoot.querySelector('.view.table table');
  const col = [...table.tHead.rows[0].cells].findIndex((th) => th.textContent.startsWith(`Memory at ${label}`));
  const row = [...table.tBodies[0].rows].find((tr) => tr.cells[0].textContent === model);
  return col < 0 || !row ? null : row.cells[col].querySelector('data')?.value ?? row.cells[col].textContent;
}, [model, label]);

test('a context typed while the table of every preset is being built wins: shown at once, and the slices after it draw it', async () => {
  const page = await heldPage(`${env.base}/all.html`);
  await page.$eval('kv-calc', (el) => el.scrollIntoView());
  // Live (the formula on screen), the table's section made and hidden, its rows not yet in
  // (they are built apart and put in at once).
  await releaseUntil(page, (el) => {
    const table = el.shadowRoot.querySelector('.view.table');
    return el.matches(':state(live)') && table !== null && table.hidden && table.querySelectorAll('tbody tr').length === 0;
  });
  const input = page.locator('kv-calc input[name="context"]');
  await input.fill('16384');
  // Applied before any slice went on: 57,344 B per token x 16,384 = 939,524,096 B.
  const now = await page.$eval('kv-calc', (el) => ({
    results: el.shadowRoot.querySelector('.formula .results').innerText,
    table: el.shadowRoot.querySelector('.view.table').hidden,
    bytes: el.result.kvBytes,
  }));
  assert.equal(now.bytes, 939524096);
  assert.match(now.results, /939,524,096/);
  assert.equal(now.table, true, 'the table is still being built');
  await finish(page);
  assert.equal(await page.$eval('kv-calc', (el) => el.getAttribute('context')), '16384');
  assert.equal(await page.$eval('kv-calc', (el) => el.shadowRoot.querySelector('.view.table').hidden), false);
  // Every row at the typed context: Qwen2.5-7B 57,344 x 16,384; Qwen3-8B 2 x 36 x 8 x 128 x 2 B = 147,456 x 16,384.
  assert.equal(await tableBytes(page, 'Qwen/Qwen2.5-7B-Instruct', '16K'), '939524096');
  assert.equal(await tableBytes(page, 'Qwen/Qwen3-8B', '16K'), '2415919104');
  // The GQA readout and the chart's marker follow it too.
  assert.match(await page.$eval('kv-calc', (el) => el.shadowRoot.querySelector('[part="gqa-readout"]').textContent), /at 16,384 tokens/);
  assert.match(await page.$eval('kv-calc', (el) => el.shadowRoot.querySelector('.chart svg').textContent), /context 16K/);
  assert.equal(await page.$eval('kv-calc', (el) => el.shadowRoot.querySelectorAll('.view.table tbody tr').length), 30);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The plain-HTML example's page with one view="all" element, baked by plain `kvcalc bake`.
function bakedSite(name) {
  const dir = join(scratch, name);
  cpSync(join(ROOT, 'examples/plain-html'), dir, { recursive: true });
  cpSync(DIST, join(dir, 'kvcalc'), { recursive: true });
  const example = readFileSync(join(ROOT, 'examples/plain-html/index.html'), 'utf8');
  writeFileSync(join(dir, 'index.html'), example.replace(/<kv-calc[\s\S]*<\/kv-calc>\n/, `<kv-calc ${ALL}></kv-calc>\n`));
  const r = spawnSync(process.execPath, [join(DIST, 'cli.mjs'), 'bake', dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return dir;
}

// The text of every section the element shows, by section (its figures; the pictures' text
// is left out, drawn at the element's width, and what is hidden, which bake leaves out).
const sectionTexts = (page) => page.$eval('kv-calc', (el) => Object.fromEntries(
  [...el.shadowRoot.querySelectorAll('section.view')].filter((s) => getComputedStyle(s).display !== 'none')
    .map((s) => {
      const copy = s.cloneNode(true);
      for (const gone of copy.querySelectorAll('svg, [hidden]')) gone.remove();
      return [s.className, copy.textContent.replace(/\s+/g, ' ').replace(/kv-[a-z-]+-\w+/g, '').trim()];
    })));

test('over a baked render: the live sections drawn in slices show the baked figures, and a baked section of a state no longer the element\'s shows nothing', async () => {
  const dir = bakedSite('baked');
  const server = await startServer({ mounts: [['/', dir]], csp: CSP });
  try {
    const url = `http://127.0.0.1:${server.address().port}/index.html`;
    // Untouched: the same text in every section, baked (drawn at once in Node) and live.
    let page = await heldPage(url);
    const baked = await sectionTexts(page);
    assert.deepEqual(Object.keys(baked), ['view formula', 'view chart', 'view table', 'view gqa', 'view check']);
    await page.$eval('kv-calc', (el) => el.scrollIntoView());
    await releaseUntil(page, (el) => el.matches(':state(live)'));
    await finish(page);
    assert.deepEqual(await sectionTexts(page), baked);
    assert.deepEqual(page.errors, []);
    await page.close();

    // A context typed once the element is live, while the table is still the baked one: the
    // baked sections still to draw keep their place and show nothing, until drawn.
    page = await heldPage(url);
    await page.$eval('kv-calc', (el) => el.scrollIntoView());
    await releaseUntil(page, (el) => el.matches(':state(live)'));
    // The table's sections: the baked one holding the place (the live one is made when its
    // slices start).
    const tables = () => page.$eval('kv-calc', (el) => [...el.shadowRoot.querySelectorAll('section.view.table')]
      .map((s) => ({ hidden: s.hidden, visibility: getComputedStyle(s).visibility, rows: s.querySelectorAll('tbody tr').length })));
    assert.deepEqual(await tables(), [{ hidden: false, visibility: 'visible', rows: 30 }]);
    const height = await page.$eval('kv-calc', (el) => el.getBoundingClientRect().height);
    await page.locator('kv-calc input[name="context"]').fill('16384');
    assert.match(await page.$eval('kv-calc', (el) => el.shadowRoot.querySelector('.formula .results').innerText), /939,524,096/);
    assert.deepEqual(await tables(), [{ hidden: false, visibility: 'hidden', rows: 30 }]);
    assert.equal(await page.$eval('kv-calc', (el) => el.getBoundingClientRect().height), height, 'the hidden baked section keeps its place');
    await finish(page);
    assert.deepEqual(await tables(), [{ hidden: false, visibility: 'visible', rows: 30 }]);
    assert.equal(await tableBytes(page, 'Qwen/Qwen3-8B', '16K'), '2415919104');
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await new Promise((ok) => server.close(ok));
  }
});
