// Keyboard-only use with real key events: every control is reached with Tab, operated with
// the keys a reader would use, and shows a visible focus ring.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, waitForWidgets, shadowText, problems, CLEAN } from './harness.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

// What has focus, looking through the element's shadow root.
function focused(page) {
  return page.evaluate(() => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    if (!a) return null;
    const cs = getComputedStyle(a);
    return {
      tag: a.localName, name: a.getAttribute('name'), text: a.textContent.trim().slice(0, 40),
      cls: a.getAttribute('class'), type: a.getAttribute('type'),
      outline: `${cs.outlineStyle} ${cs.outlineWidth}`,
    };
  });
}

// Presses Tab until the focused control matches, at most `limit` times.
async function tabTo(page, match, limit = 80) {
  for (let i = 0; i < limit; i += 1) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    if (f && match(f)) return f;
  }
  throw new Error('never reached the control with Tab');
}

test('every view can be used with the keyboard alone', async () => {
  const { page, log } = await openPage(env, '/all.html');
  await waitForWidgets(page);
  const results = () => shadowText(page, '#all', '.formula .results');

  // model select: arrow keys pick the next preset
  let f = await tabTo(page, (x) => x.name === 'model');
  assert.equal(f.outline, 'solid 3px');
  await page.keyboard.press('End');
  await page.keyboard.press('Home');
  const firstPreset = await page.$eval('#all', (el) => el.shadowRoot.querySelector('select[name=model]').value);
  assert.equal(await page.getAttribute('#all', 'model'), firstPreset);

  // back to Qwen2.5-7B by typing its name in the select
  await page.keyboard.type('Qwen/Qwen2.5-7B');
  assert.equal(await page.getAttribute('#all', 'model'), 'Qwen/Qwen2.5-7B-Instruct');

  // context: typed
  f = await tabTo(page, (x) => x.name === 'context');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('65536');
  // 57,344 x 65,536 = 3,758,096,384 B = 3.50 GiB
  assert.match(await results(), /3\.50 GiB \(3,758,096,384 B\)/);

  // the 1M shortcut, pressed with Enter; then 4K with Space
  f = await tabTo(page, (x) => x.tag === 'button' && x.text === '1M');
  assert.equal(f.outline, 'solid 3px');
  await page.keyboard.press('Enter');
  // 57,344 x 1,048,576 = 60,129,542,144 B
  assert.match(await results(), /60,129,542,144/);
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Shift+Tab');
  assert.equal((await focused(page)).text, '4K');
  await page.keyboard.press('Space');
  // 57,344 x 4,096 = 234,881,024
  assert.match(await results(), /234,881,024/);

  // batch: ArrowUp steps the number input from 1 to 2
  await tabTo(page, (x) => x.name === 'batch');
  await page.keyboard.press('ArrowUp');
  assert.match(await results(), /For the batch \(2 sequences\)\s+448 MiB \(469,762,048 B\)/);

  // KV dtype: ArrowDown from auto goes to bf16 (same 2 bytes), then fp16
  await tabTo(page, (x) => x.name === 'kv-dtype');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.getAttribute('#all', 'kv-dtype'), 'bf16');

  // the formula's values are focusable and show their source
  f = await tabTo(page, (x) => x.cls && x.cls.includes('term') && x.text === '128');
  assert.equal(await shadowText(page, '#all', '.source-tip'), '128 = hidden_size 3584 / num_attention_heads 28 (head size)');

  // table: sort by a column with Enter
  await tabTo(page, (x) => x.tag === 'button' && x.text === 'Bytes per token');
  await page.keyboard.press('Enter');
  const sortState = await page.$eval('#all', async (el) => {
    await el.updateComplete;
    return [...el.shadowRoot.querySelectorAll('.table thead th')]
      .find((th) => th.textContent === 'Bytes per token').getAttribute('aria-sort');
  });
  assert.equal(sortState, 'ascending');
  // the focus stays on the button, so Enter again sorts the other way
  assert.equal((await focused(page)).text, 'Bytes per token');

  // gqa: the range moves with the arrow keys, from 4 KV heads to 2, then Home = MQA
  await tabTo(page, (x) => x.type === 'range');
  await page.keyboard.press('ArrowLeft');
  assert.match(await shadowText(page, '#all', '[part~="gqa-readout"]'), /^2 KV heads \(GQA\), 14 query heads per KV head/);
  await page.keyboard.press('Home');
  assert.match(await shadowText(page, '#all', '[part~="gqa-readout"]'), /^1 KV head \(MQA\), 28 query heads per KV head/);

  // check: type the pool, read the verdict
  await tabTo(page, (x) => x.name === 'pool-tokens');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('2000000');
  assert.match(await shadowText(page, '#all', '[role="status"]'), /^Fits: one 1,048,576-token request fits the pool of 2,000,000 tokens/);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});
