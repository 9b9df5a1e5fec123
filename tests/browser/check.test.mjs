// The check view: the reference case (1,048,576 advertised on a 681,280-token pool), pools
// from vLLM and SGLang log excerpts and from a GPU preset with TP, and bad logs reported
// with what was looked for while the widget keeps working.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, waitForWidgets, shadowText, problems, CLEAN } from './harness.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

const MODEL = 'meta-llama/Llama-4-Scout-17B-16E-Instruct';  // max context 10,485,760: the pool limits
const verdict = (page) => page.locator('#check [role="status"]').innerText();
const figures = (page) => shadowText(page, '#check', '.check .results');
// the steps sit in a closed <details>: read them as text, one line per step
const steps = (page) => page.$eval('#check', (el) => [...el.shadowRoot.querySelectorAll('[part="pool-steps"] li')]
  .map((li) => li.textContent).join('\n'));

test('1,048,576 advertised on a 681,280-token pool does not fit (0.65x)', async () => {
  const { page, log } = await openPage(env, '/check.html');
  await waitForWidgets(page);
  // 681,280 / 1,048,576 = 0.6497 -> 0.65x, as vLLM prints it
  assert.equal(await verdict(page),
    `Does not fit: one 1,048,576-token request needs more than the pool of 681,280 tokens (0.65x) for ${MODEL}.`);
  const f = await figures(page);
  assert.match(f, /Max concurrency\s+0\.65x \(pool ÷ max context\)/);
  // the pool in whole 16-token blocks: 681,280 / 16 = 42,580 blocks exactly
  assert.match(f, /Safe max context\s+681,280 tokens \(the pool of 681,280 tokens in whole 16-token blocks\)/);
  const advice = await shadowText(page, '#check', '.advice');
  // one request needs 1,048,576 / 16 = 65,536 blocks; the pool has 42,580
  assert.match(advice, /needs 65,536 blocks of 16 tokens; the pool has 42,580/);
  assert.match(advice, /Set --max-model-len 681280 \(vLLM\) \/ --context-length 681280 \(SGLang\)/);
  assert.match(advice, /a prompt of 681,281 tokens must get an error/);
  // the bar: the request runs past the pool
  assert.equal(await page.$eval('#check', (el) => el.shadowRoot.querySelector('.bar .req').classList.contains('over')), true);
  assert.equal(await shadowText(page, '#check', '.model-name'), MODEL);
  assert.equal(await page.$eval('#check', (el) => el.checkResult.fits), false);
  // the pool shows in the chart as a line: Scout keeps 2 x 48 x 8 x 128 x 2 = 196,608 B per
  // token, so 681,280 tokens are 681,280 x 196,608 = 133,945,098,240 B = 124.75 GiB
  assert.match(await shadowText(page, '#check', '.chart .legend'), /pool 681,280 tokens × 196,608 B = 124\.75 GiB/);

  // typing a pool that holds the request: 2,097,152 / 1,048,576 = 2.00x
  await page.locator('#check input[name=pool-tokens]').fill('2097152');
  assert.match(await verdict(page), /^Fits: one 1,048,576-token request fits the pool of 2,097,152 tokens \(2\.00x concurrency\)/);
  assert.equal(await page.$eval('#check', (el) => el.shadowRoot.querySelector('.bar .req').classList.contains('over')), false);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('the pool read from a pasted vLLM or SGLang log excerpt', async () => {
  const { page, log } = await openPage(env, '/check.html');
  await waitForWidgets(page);
  await page.locator('#check input[type=radio][value=log]').check();
  const area = page.locator('#check textarea[name=engine-log]');
  await area.fill([
    'INFO 05-01 12:00:00 [core.py:61] Initializing a V1 LLM engine with config: model=...',
    'INFO 05-01 12:00:09 [gpu_worker.py:100] GPU KV cache size: 681,280 tokens',
    'INFO 05-01 12:00:09 [executor.py:80] Maximum concurrency for 1,048,576 tokens per request: 0.65x',
  ].join('\n'));
  // Scout's chunked layers make the token line no capacity (issue 17): the verdict is the engine's own 0.65x.
  assert.match(await verdict(page), /^Does not fit: .* per GPU \(0\.65x\)/);
  assert.match(await figures(page), /Pool\s+[\d,]+ tokens \(the engine log: [\d,]+ to [\d,]+ blocks/);
  assert.match(await steps(page), /line 2: vLLM GPU KV cache size: 681,280 tokens/);
  assert.match(await steps(page), /Verdict: the engine's own verdict \(line 3: maximum concurrency 0\.65x\)/);

  await area.fill('[2025-05-01 12:00:00 TP0] KV Cache is allocated. #tokens: 681280, K size: 15.59 GB, V size: 15.59 GB');
  assert.match(await verdict(page), /^Does not fit: .* 681,280 tokens \(0\.65x\)/);
  assert.match(await figures(page), /SGLang's "KV Cache is allocated\. #tokens" \(line 1\)/);

  // a log with no pool line: the error says what was looked for; no verdict; still working
  await area.fill('INFO nothing about the cache here');
  assert.match(await shadowText(page, '#check', '[part="check-error"]'),
    /^engine log: no line states the KV pool; looked for vLLM's "GPU KV cache size: N tokens"/);
  assert.equal(await verdict(page), 'No verdict yet.');
  await page.locator('#check input[type=radio][value=tokens]').check();
  assert.match(await verdict(page), /^Does not fit/);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('the pool derived from a GPU preset, utilization and TP', async () => {
  const { page, log } = await openPage(env, '/check.html');
  await waitForWidgets(page);
  await page.locator('#check input[type=radio][value=gpu]').check();
  await page.locator('#check select[name=gpu]').selectOption('h100-80gb');
  await page.locator('#check input[name=tp]').fill('4');
  // H100 80GB as CUDA reports it, 84,943,715,696 B x 0.9 = 76,449,344,126 B,
  // - 53,891,573,760 B weights per GPU (107.77 B parameters in bf16 over 4 GPUs)
  // - 1,610,612,736 B activation peak - 536,870,912 B non-torch = 20,410,286,718 B per GPU;
  // / (16 tokens x 49,152 B per token per GPU) = 25,953 whole blocks = 415,248 tokens
  assert.match(await figures(page), /Pool\s+415,248 tokens/);
  assert.match(await steps(page), /= 20,410,286,718 B \(19\.01 GiB\) for the KV cache per GPU/);
  assert.match(await steps(page), /= 25,953 whole blocks = 415,248 tokens/);
  // Llama 4 Scout's 36 chunked layers keep 8,192 tokens, so the verdict goes by bytes, as vLLM
  // admits: one request per GPU is 12 full layers x 65,536 blocks + 36 chunked layers x
  // cdiv(min(8192 + 8192, 1,048,576), 16) = 1,024 blocks, x 16 tokens x 1,024 B
  // = 12,884,901,888 + 603,979,776 = 13,488,881,664 B; 20,410,286,718 / 13,488,881,664 = 1.513 -> 1.51x
  // (the pool in tokens, which charges every layer for every token, would say 0.40x).
  assert.match(await figures(page), /One request per GPU\s+12\.56 GiB \(13,488,881,664 B\)/);
  assert.match(await verdict(page), /^Fits: .* pool of 19\.01 GiB \(20,410,286,718 B\) per GPU \(1\.51x concurrency\)/);
  // 95% utilization: 84,943,715,696 x 0.95 leaves more for the cache: 501,648 tokens
  await page.locator('#check input[name=gpu-memory-utilization]').fill('95');
  assert.match(await figures(page), /Pool\s+501,648 tokens/);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});
