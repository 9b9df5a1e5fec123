// Finding and reading: a link with an element's state in its fragment scrolls to it; the
// model picker is in natural order and searchable; the chart reads out its figures on
// hover and on keyboard focus.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, waitForWidgets, shadowText, problems, CLEAN } from './harness.mjs';

let env;
before(async () => { env = await startBrowser({ viewport: { width: 1100, height: 800 } }); });
after(async () => { await env?.close(); });

test('a link with an element\'s state in its fragment restores it and scrolls to the element', async () => {
  // lazy.html: #table starts six screens down; the link sets its context.
  const { page, log } = await openPage(env, '/lazy.html#table.context=65536');
  await page.waitForFunction(() => document.querySelector('#table').matches(':state(live)'));
  await page.$eval('#table', (el) => el.updateComplete);
  const where = await page.$eval('#table', (el) => ({ top: el.getBoundingClientRect().top, height: innerHeight, context: el.result.context }));
  assert.equal(where.context, 65536);
  assert.ok(where.top >= 0 && where.top < where.height / 2, `the element is at the top of the viewport: ${JSON.stringify(where)}`);
  // The other element, three screens above, was not brought in.
  assert.equal(await page.$eval('#formula', (el) => el.matches(':state(live)')), false);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('the model picker lists the presets in natural order, case aside, and finds one by search', async () => {
  const { page, log } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  const ids = await page.$eval('#qwen', (el) => [...el.shadowRoot.querySelectorAll('select[name=model] option')].map((o) => o.value));
  const natural = [...ids].sort(new Intl.Collator('en', { numeric: true, sensitivity: 'base' }).compare);
  assert.deepEqual(ids, natural);
  // "deepseek" before "Qwen", and Qwen3-8B before Qwen3-30B-A3B.
  assert.ok(ids.indexOf('deepseek-ai/DeepSeek-V3') < ids.indexOf('Qwen/Qwen2.5-7B-Instruct'));
  assert.ok(ids.indexOf('Qwen/Qwen3-8B') < ids.indexOf('Qwen/Qwen3-30B-A3B'));
  // The search suggests every preset (the browser's list narrows it as one types).
  assert.deepEqual(await page.$eval('#qwen', (el) => {
    const search = el.shadowRoot.querySelector('input[name=model-search]');
    return [...search.list.options].map((o) => o.value);
  }), ids);
  const search = page.locator('#qwen input[name=model-search]');
  // Part of a name and Enter: the first preset, in the list's order, that holds it.
  await search.fill('llama-3.1');
  await search.press('Enter');
  await page.$eval('#qwen', (el) => el.updateComplete);
  assert.equal(await page.getAttribute('#qwen', 'model'), 'meta-llama/Llama-3.1-8B');
  assert.equal(await search.inputValue(), '');
  // A whole id, as picked from the suggestions: chosen at once.
  await search.fill('mistralai/Mistral-7B-v0.1');
  await page.$eval('#qwen', (el) => el.updateComplete);
  assert.equal(await page.getAttribute('#qwen', 'model'), 'mistralai/Mistral-7B-v0.1');
  assert.equal(await page.$eval('#qwen', (el) => el.shadowRoot.querySelector('select[name=model]').value), 'mistralai/Mistral-7B-v0.1');
  // Text no preset holds: nothing changes.
  await search.fill('no such model');
  await search.press('Enter');
  assert.equal(await page.getAttribute('#qwen', 'model'), 'mistralai/Mistral-7B-v0.1');
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('the chart reads out its figures under the pointer and from the keyboard', async () => {
  const { page, log } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  const readout = () => shadowText(page, '#qwen', '.chart [aria-live]');
  assert.match(await readout(), /^Hover over the chart, or focus it/);
  // Keyboard: Tab to the chart; it starts at the chosen context (32K).
  // Qwen2.5-7B: 57,344 B per token (bf16); x 32,768 = 1.75 GiB; fp8 half, int4 a quarter.
  await page.$eval('#qwen', (el) => el.shadowRoot.querySelector('[part=chart-svg]').focus());
  assert.equal(await readout(), 'At 32,768 tokens: auto 1.75 GiB, fp8 896 MiB, int4 448 MiB.');
  await page.keyboard.press('ArrowRight');
  assert.equal(await readout(), 'At 65,536 tokens: auto 3.50 GiB, fp8 1.75 GiB, int4 896 MiB.');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await readout(), 'At 16,384 tokens: auto 896 MiB, fp8 448 MiB, int4 224 MiB.');
  const guide = () => page.$eval('#qwen', (el) => {
    const g = el.shadowRoot.querySelector('.chart .guide');
    return g.hasAttribute('hidden') ? null : Number(g.getAttribute('x1'));
  });
  assert.ok((await guide()) > 0, 'a guide line marks the context read');
  // Pointer: at the right edge, the largest sampled context (1M).
  const box = await page.locator('#qwen [part=chart-svg]').boundingBox();
  await page.mouse.move(box.x + box.width - 14, box.y + box.height / 2);
  assert.match(await readout(), /^At 1,048,576 tokens: auto 56 GiB, fp8 28 GiB, int4 14 GiB\.$/);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height + 200);
  assert.match(await readout(), /^Hover over the chart/);
  assert.equal(await guide(), null);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});
