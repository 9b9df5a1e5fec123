// Messages that match the state: what the element says after the reader corrects an input,
// after a bad paste, when a GPU has no room for a pool, and with TP above the KV heads; and
// it names things as the reader knows them, not by the report's internal names.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, waitForWidgets, shadowText, readConfig, problems, CLEAN } from './harness.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

const banner = (page, id) => page.$eval(id, async (el) => {
  await el.updateComplete;
  return el.shadowRoot.querySelector('[part="error"]').innerText;
});

test('after a context the core refuses, emptying the field clears the "not applied" banner', async () => {
  const { page, log } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  const input = page.locator('#qwen input[name=context]');
  await input.fill('99999999999999');
  assert.match(await banner(page, '#qwen'), /^context: the KV cache of 99,999,999,999,999 tokens .*; not applied$/);
  await input.fill('');
  assert.equal(await banner(page, '#qwen'), '');
  // Empty stands for the default, the model's max context: the figures and the hint say so,
  // the field stays empty while the reader types, and shows the figure once left.
  assert.equal(await page.getAttribute('#qwen', 'context'), null);
  assert.equal(await page.$eval('#qwen', (el) => el.result.context), 32768);
  assert.match(await shadowText(page, '#qwen', '.controls'), /32,768: the model's max \(max_position_embeddings\)/);
  assert.equal(await input.inputValue(), '');
  await page.locator('#qwen select[name=kv-dtype]').focus();
  await page.$eval('#qwen', (el) => el.updateComplete);
  assert.equal(await input.inputValue(), '32768');
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('a paste with a JSON error says the config was not used, never "Using the pasted config."', async () => {
  const { page, log } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  await page.locator('#qwen summary', { hasText: 'Use your own config.json' }).click();
  const area = page.locator('#qwen textarea[name=config]');
  const use = page.locator('#qwen button', { hasText: 'Use this config' });
  const status = () => page.$eval('#qwen', (el) => el.shadowRoot.querySelector('.dropzone .note').textContent);
  const good = readConfig('meta-llama--Llama-3.1-8B.json');
  await area.fill(good);
  await use.click();
  assert.equal(await status(), 'Using the pasted config.');
  // The same config with a comma missing.
  await area.fill(good.replace(/,(\s*"num_attention_heads")/, '$1'));
  await use.click();
  assert.match(await page.$eval('#qwen', (el) => el.shadowRoot.querySelector('[part="config-error"]').textContent),
    /^config: malformed JSON: .*\(line \d+, column \d+\)$|line \d+, column \d+/);
  assert.equal(await status(), 'Not used: the figures are still those of the config before.');
  // Still the config before.
  assert.equal(await page.$eval('#qwen', (el) => el.result.bytesPerToken), 131072);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('a GPU whose memory the weights fill says why there is no pool, in the reader\'s names', async () => {
  const { page, log } = await openPage(env, '/check.html');
  await waitForWidgets(page);
  await page.locator('#check input[type=radio][value=gpu]').check();
  await page.locator('#check select[name=gpu]').selectOption('h100-80gb');
  const verdict = await shadowText(page, '#check', '[part="verdict"]');
  // Llama-4-Scout in bf16 on one H100: 107.77 B parameters x 2 B = 215,539,722,240 B (200.74 GiB)
  // against 84,943,715,696 B x 0.9 = 76,449,344,126 B (71.2 GiB) it may use.
  assert.equal(verdict, 'Does not fit: on each NVIDIA H100 80GB, meta-llama/Llama-4-Scout-17B-16E-Instruct\'s weights ' +
    '(200.74 GiB per GPU) and the engine\'s reservations exceed the 71.20 GiB it may use (90% of 79.11 GiB): ' +
    'no memory is left for a KV pool. More GPUs (tensor parallel) or larger ones would leave some.');
  const all = await shadowText(page, '#check', '[part~="check"]');
  assert.doesNotMatch(all, /pool\.steps|gpu h100-80gb|\bgpu [a-z0-9]+-\d+gb/);
  assert.match(all, /derived from NVIDIA H100 80GB, 79\.11 GiB as CUDA reports it \(see "How the pool was found"\)/);
  // On 8 GPUs there is a pool again, and the usual verdict.
  await page.locator('#check input[name=tp]').fill('8');
  assert.match(await shadowText(page, '#check', '[part="verdict"]'), /^Fits: one 1,048,576-token request fits the pool of .* per GPU/);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('per-GPU figures at TP above the KV heads say that the heads are replicated', async () => {
  const { page, log } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  await page.locator('#qwen summary', { hasText: 'Use your own config.json' }).click();
  await page.locator('#qwen textarea[name=config]').fill(readConfig('meta-llama--Llama-3.1-8B.json'));
  await page.locator('#qwen button', { hasText: 'Use this config' }).click();
  await page.locator('#qwen input[name=tp]').fill('16');
  const results = await shadowText(page, '#qwen', '.formula .results');
  // Llama-3.1-8B: 8 KV heads on 16 GPUs; one sequence of 32,768 tokens 4 GiB, per GPU one head
  // of 32 layers: 2 x 32 x 1 x 128 x 2 B = 16,384 B per token x 32,768 = 512 MiB; in all 16 x 512 MiB = 8 GiB.
  assert.match(results, /Per GPU \(TP 16\)\s+512 MiB \(536,870,912 B\)\s+TP 16 is above the model's 8 KV heads: each GPU keeps a whole head, so heads are replicated; the 16 GPUs hold 8 GiB in all\./);
  await page.locator('#qwen input[name=tp]').fill('8');
  assert.doesNotMatch(await shadowText(page, '#qwen', '.formula .results'), /replicated/);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});
