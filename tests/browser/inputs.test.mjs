// Editing inputs re-renders the figures; attributes and properties mirror each other;
// attribute changes are batched into one render; the state round-trips through the hash.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, waitForWidgets, shadowText, problems, CLEAN } from './harness.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

const results = (page, sel) => shadowText(page, sel, '.formula .results');

test('context, batch, KV dtype, accounting and TP inputs update the figures', async () => {
  const { page, log } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  const q = '#qwen';
  // 128K shortcut: 57,344 x 131,072 = 7,516,192,768 B = 7 GiB
  await page.locator(`${q} button`, { hasText: /^128K$/ }).click();
  assert.match(await results(page, q), /7 GiB \(7,516,192,768 B\)/);
  assert.equal(await page.getAttribute(q, 'context'), '131072');
  assert.equal(await page.locator(`${q} button`, { hasText: /^128K$/ }).getAttribute('aria-pressed'), 'true');

  // typed context: 4,096 tokens: 57,344 x 4,096 = 234,881,024 B = 224 MiB
  await page.locator(`${q} input[name=context]`).fill('4096');
  assert.match(await results(page, q), /224 MiB \(234,881,024 B\)/);

  // batch 8: 8 x 234,881,024 = 1,879,048,192 B = 1.75 GiB
  await page.locator(`${q} input[name=batch]`).fill('8');
  assert.match(await results(page, q), /For the batch \(8 sequences\)\s+1\.75 GiB \(1,879,048,192 B\)/);

  // fp8: 1 byte per element, 2 x 28 x 4 x 128 x 1 = 28,672 B per token
  await page.locator(`${q} select[name=kv-dtype]`).selectOption('fp8');
  assert.match(await results(page, q), /Bytes per token\s+28,672 B/);
  assert.equal(await page.getAttribute(q, 'kv-dtype'), 'fp8');

  // TP 2: 4 KV heads split 2 per GPU: per GPU half of 8 x 4,096 x 28,672 = 939,524,096 / 2
  await page.locator(`${q} input[name=tp]`).fill('2');
  assert.match(await results(page, q), /Per GPU \(TP 2\)\s+448 MiB \(469,762,048 B\)/);

  // accounting: the sliding-window model differs by accounting
  const m = '#mistral';
  // naive: 131,072 x 32,768 = 4,294,967,296 B = 4 GiB; resident (default) 512 MiB
  assert.match(await results(page, m), /Per sequence \(32,768 tokens, resident\)\s+512 MiB/);
  await page.locator(`${m} select[name=accounting]`).selectOption('naive');
  assert.match(await results(page, m), /Per sequence \(32,768 tokens, naive\)\s+4 GiB \(4,294,967,296 B\)/);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('a value that does not parse is shown next to its input and not applied', async () => {
  const { page } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  const input = page.locator('#qwen input[name=context]');
  await input.fill('12abc');
  assert.equal(await input.getAttribute('aria-invalid'), 'true');
  const errId = (await input.getAttribute('aria-describedby')).split(' ')[0];
  assert.match(await page.$eval('#qwen', (el, id) => el.shadowRoot.getElementById(id).textContent, errId),
    /expected a whole number of tokens .* got "12abc"/);
  // still the previous figures
  assert.match(await results(page, '#qwen'), /1,879,048,192/);
  await input.fill('1M');
  assert.equal(await input.getAttribute('aria-invalid'), null);
  // 57,344 x 1,048,576 = 60,129,542,144 B = 56 GiB, above the model's 32,768 max: warned
  assert.match(await results(page, '#qwen'), /56 GiB \(60,129,542,144 B\)/);
  assert.match(await shadowText(page, '#qwen', '.formula .warnings'), /above the model's max context 32768/);
  await page.close();
});

test('properties mirror attributes; several changes render once, with one event', async () => {
  const { page } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  const out = await page.$eval('#qwen', async (el) => {
    const events = [];
    el.addEventListener('kvcalc-change', (e) => events.push({ kv: e.result.kvBytes, bubbles: e.bubbles, composed: e.composed }));
    el.context = 8192;
    el.batch = 2;
    el.kvDtype = 'int4';
    const attrs = [el.getAttribute('context'), el.getAttribute('batch'), el.getAttribute('kv-dtype')];
    await new Promise((r) => setTimeout(r, 0));
    return { events, attrs, props: [el.context, el.batch, el.kvDtype], shown: el.shadowRoot.querySelector('.formula .results').innerText };
  });
  assert.deepEqual(out.attrs, ['8192', '2', 'int4']);
  assert.deepEqual(out.props, [8192, 2, 'int4']);
  // int4: 2 x 28 x 4 x 128 x 0.5 = 14,336 B per token; 2 x 14,336 x 8,192 = 234,881,024
  assert.deepEqual(out.events, [{ kv: 234881024, bubbles: true, composed: true }]);
  assert.match(out.shown, /234,881,024/);
  await page.close();
});

test('the state round-trips through the URL hash', async () => {
  const { page } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  await page.locator('#qwen button', { hasText: /^32K$/ }).click();
  await page.locator('#qwen input[name=batch]').fill('3');
  await page.locator('#qwen select[name=model]').selectOption('meta-llama/Llama-3.1-8B');
  // written a moment after the last edit (an earlier edit's write may come first: wait for
  // the last one's, the model picked)
  await page.waitForFunction(() => location.hash.includes('qwen.model=meta-llama'));
  const url = page.url();
  assert.match(url, /#.*qwen\.batch=3/);
  assert.match(url, /qwen\.model=meta-llama%2FLlama-3\.1-8B/);
  // a reader opening the shared link sees the same: 3 x 131,072 x 32,768 = 12 GiB
  const { page: shared } = await openPage(env, url.replace(env.base, ''));
  await waitForWidgets(shared);
  assert.equal(await shadowText(shared, '#qwen', '.model-name'), 'meta-llama/Llama-3.1-8B');
  assert.match(await results(shared, '#qwen'), /For the batch \(3 sequences\)\s+12 GiB \(12,884,901,888 B\)/);
  // other elements on the page are untouched
  assert.match(await results(shared, '#deepseek'), /2,302,672,896/);
  await shared.close();
  await page.close();
});
