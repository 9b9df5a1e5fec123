// Each view renders the core's exact figures for the seed models, names the model as its
// config gives it, and leaves nothing wrong behind (errors, CSP violations, stray requests).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, waitForWidgets, shadowText, problems, CLEAN, foreignRequests } from './harness.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

const OWN_FILES = ['/dist/', '/favicon.svg', '/page.css'];

test('formula view: Qwen2.5-7B, dense GQA', async () => {
  const { page, log } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  const text = await shadowText(page, '#qwen', '.formula');
  // bytes per token: 2 x 28 layers x 4 KV heads x 128 head size x 2 bytes (bf16) = 57,344
  assert.match(text, /57,344/);
  for (const v of ['2', '28', '4', '128']) assert.ok(text.includes(v), `term ${v}`);
  // one sequence of 32,768 tokens: 57,344 x 32,768 = 1,879,048,192 B = 1.75 GiB
  assert.match(text, /1,879,048,192/);
  assert.match(text, /1\.75 GiB/);
  // the model is named as the preset gives it (these configs carry no _name_or_path)
  assert.equal(await shadowText(page, '#qwen', '.model-name'), 'Qwen/Qwen2.5-7B-Instruct');
  // MathML, not an image or a downloaded font
  assert.equal(await page.$eval('#qwen', (el) => el.shadowRoot.querySelectorAll('.formula math').length > 0), true);
  assert.deepEqual(await problems(page, log), CLEAN);
  assert.deepEqual(foreignRequests(env, log, ['/formula.html', ...OWN_FILES]), []);
  await page.close();
});

test('formula view: each value shows its source on hover and on focus', async () => {
  const { page } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  const head = page.locator('#qwen .formula .term', { hasText: /^128$/ }).first();
  await head.hover();
  assert.equal(await shadowText(page, '#qwen', '.source-tip'),
    '128 = hidden_size 3584 / num_attention_heads 28 (head size)');
  const kv = page.locator('#qwen .formula .term', { hasText: /^4$/ }).first();
  await kv.focus();
  assert.equal(await shadowText(page, '#qwen', '.source-tip'), '4 = num_key_value_heads (KV heads)');
  await page.close();
});

test('formula view: MLA, sliding-window and hybrid models show their own terms', async () => {
  const { page } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  // DeepSeek-V3: 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64 = 576) x 2 = 70,272
  const ds = await shadowText(page, '#deepseek', '.formula');
  assert.match(ds, /61\s*×\s*576\s*×\s*2\s*=\s*70,272/);
  assert.equal(await shadowText(page, '#deepseek', '.model-name'), 'deepseek-ai/DeepSeek-V3');
  const latent = page.locator('#deepseek .formula .term', { hasText: /^576$/ }).first();
  await latent.focus();
  assert.match(await shadowText(page, '#deepseek', '.source-tip'), /^576 = kv_lora_rank 512 \+ qk_rope_head_dim 64/);

  // Mistral-7B: 2 x 32 x 8 x 128 x 2 = 131,072 per token, but each layer keeps only the
  // last 4,096 tokens: 32 x 4,096 B x 4,096 = 536,870,912 B for one 32,768-token sequence
  const mi = await shadowText(page, '#mistral', '.formula');
  assert.match(mi, /131,072/);
  assert.match(mi, /32\s*×\s*4,096\s*×\s*4,096\s*=\s*536,870,912/);
  const kept = page.locator('#mistral .formula .term', { hasText: /^4,096$/ }).last();
  await kept.focus();
  assert.match(await shadowText(page, '#mistral', '.source-tip'), /min\(context 32,768, window 4,096 = sliding_window\)/);

  // Qwen3-Next: 12 full-attention layers 2 x 12 x 2 x 256 x 2 = 24,576 B per token, plus
  // 36 linear-attention layers with a fixed 1,097,728 B state each: 36 x 1,097,728 = 39,518,208
  // one sequence: 12 x 2,048 x 32,768 + 39,518,208 = 844,824,576
  const nx = await shadowText(page, '#next', '.formula');
  assert.match(nx, /24,576/);
  assert.match(nx, /36\s*×\s*1,097,728/);
  assert.match(nx, /844,824,576/);
  assert.match(nx, /36 linear-state layers \(gated_delta_net\) keep no per-token cache: a fixed state of 1,097,728 B/);
  await page.close();
});

test('table view: the bundled presets by default, rows from models, sortable', async () => {
  const { page, log } = await openPage(env, '/table.html');
  await waitForWidgets(page);
  const presetRows = await page.$eval('#presets', (el) => el.shadowRoot.querySelectorAll('.table tbody tr').length);
  const presetCount = await page.$eval('#presets', (el) => el.shadowRoot.querySelectorAll('select[name=model] option').length);
  assert.equal(presetRows, presetCount);
  assert.ok(presetRows >= 24, `rows: ${presetRows}`);

  const rows = await page.$eval('#some', (el) => [...el.shadowRoot.querySelectorAll('.table tbody tr')]
    .map((tr) => [...tr.children].map((c) => c.textContent.trim())));
  assert.equal(rows.length, 3);
  const byName = Object.fromEntries(rows.map((r) => [r[0], r]));
  // Llama-3.1-8B: 2 x 32 x 8 x 128 x 2 = 131,072 B per token; at 4K 131,072 x 4,096 = 512 MiB,
  // at 64K (the chosen context) 131,072 x 65,536 = 8 GiB
  assert.deepEqual(byName['meta-llama/Llama-3.1-8B'].slice(1, 6), ['GQA', '32', '8 / 32', '128', '131,072 B']);
  assert.ok(byName['meta-llama/Llama-3.1-8B'].includes('512 MiB'));
  assert.ok(byName['meta-llama/Llama-3.1-8B'].includes('8 GiB'));
  // DeepSeek-V3: 61 x 576 x 2 = 70,272 B per token; at 4K 70,272 x 4,096 = 287,834,112 B = 274.5 MiB
  assert.deepEqual(byName['deepseek-ai/DeepSeek-V3'].slice(1, 6), ['MLA', '61', '1 latent / 128', '576 latent', '70,272 B']);
  assert.ok(byName['deepseek-ai/DeepSeek-V3'].includes('274.50 MiB'));
  // Mistral-7B: sliding window 4,096: 32 x 4,096 B x 4,096 = 512 MiB at 4K and 32K; its own
  // max is 32,768, so 64K and 128K get no figure ("—"), as kvcalc table prints them
  assert.equal(byName['mistralai/Mistral-7B-v0.1'][1], 'GQA, sliding window');
  assert.deepEqual(byName['mistralai/Mistral-7B-v0.1'].slice(6, 10), ['512 MiB', '512 MiB', '—', '—']);
  // the columns: 4K, 32K, the chosen 64K, 128K, then the weights
  const heads = await page.$eval('#some', (el) => [...el.shadowRoot.querySelectorAll('.table thead th')].map((th) => th.textContent));
  assert.deepEqual(heads.slice(6), ['Memory at 4K', 'Memory at 32K', 'Memory at 64K', 'Memory at 128K', 'Weights']);
  // Llama-3.1-8B weights: 8,030,261,248 parameters x 2 bytes (bf16) = 16,060,522,496 B = 14.96 GiB
  assert.equal(byName['meta-llama/Llama-3.1-8B'][10], '14.96 GiB (8.03 B, bf16)');

  // th scope on every header and row header
  const scopes = await page.$eval('#some', (el) => [...el.shadowRoot.querySelectorAll('.table th')].map((th) => th.getAttribute('scope')));
  assert.ok(scopes.every((s) => s === 'col' || s === 'row'), scopes.join());

  // sort by bytes per token, ascending then descending
  const sortBy = async (label) => page.locator('#some .table thead button', { hasText: label }).click();
  await sortBy('Bytes per token');
  const firstCol = async () => page.$eval('#some', (el) => [...el.shadowRoot.querySelectorAll('.table tbody th')].map((th) => th.textContent.trim()));
  assert.deepEqual(await firstCol(), ['deepseek-ai/DeepSeek-V3', 'meta-llama/Llama-3.1-8B', 'mistralai/Mistral-7B-v0.1']);
  assert.equal(await page.$eval('#some', (el) => [...el.shadowRoot.querySelectorAll('.table thead th')].find((th) => th.textContent.startsWith('Bytes per token')).getAttribute('aria-sort')), 'ascending');
  await sortBy('Bytes per token');
  assert.deepEqual((await firstCol())[2], 'deepseek-ai/DeepSeek-V3');
  await sortBy('Model');
  assert.deepEqual(await firstCol(), ['deepseek-ai/DeepSeek-V3', 'meta-llama/Llama-3.1-8B', 'mistralai/Mistral-7B-v0.1']);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('table view on a phone: the figures scroll sideways, the model column stays in view', async () => {
  const { page, log } = await openPage(env, '/table.html', { viewport: { width: 390, height: 844 } });
  await waitForWidgets(page);
  const geometry = () => page.$eval('#presets', (el) => {
    const wrap = el.shadowRoot.querySelector('.table-wrap');
    const name = wrap.querySelector('tbody th[scope="row"]').getBoundingClientRect();
    const figure = wrap.querySelector('tbody td:last-child').getBoundingClientRect();
    return { wrapLeft: wrap.getBoundingClientRect().left, wrapRight: wrap.getBoundingClientRect().right,
      scrollable: wrap.scrollWidth > wrap.clientWidth, nameLeft: name.left, nameRight: name.right,
      nameWidth: name.width, figureLeft: figure.left, figureRight: figure.right, scrollLeft: wrap.scrollLeft };
  });
  const before = await geometry();
  assert.ok(before.scrollable, 'the table is wider than a phone');
  assert.ok(before.figureLeft > before.wrapRight, 'the last column starts off screen');
  assert.ok(before.nameWidth >= 100, `the model column keeps a readable width: ${before.nameWidth}px`);
  await page.$eval('#presets', (el) => { const w = el.shadowRoot.querySelector('.table-wrap'); w.scrollLeft = w.scrollWidth; });
  const after = await geometry();
  assert.ok(after.scrollLeft > 0);
  assert.equal(Math.round(after.nameLeft), Math.round(before.nameLeft), 'the model column did not move');
  // Scrolled to the end, the last column ends at the box's right edge, beside the name column.
  assert.ok(Math.abs(after.figureRight - after.wrapRight) <= 1 && after.figureRight - after.nameRight >= 60,
    `the last column is now in view, right of the model column: ${JSON.stringify(after)}`);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('gqa view: every divisor of the query heads, cache and ratio to MHA, MLA point', async () => {
  const { page, log } = await openPage(env, '/gqa.html');
  await waitForWidgets(page);
  const rows = await page.$eval('#gqa', (el) => [...el.shadowRoot.querySelectorAll('.gqa tbody tr')]
    .map((tr) => [...tr.children].map((c) => c.textContent.trim())));
  // Qwen2.5-7B has 28 query heads: divisors 1, 2, 4, 7, 14, 28, then the MLA point
  assert.deepEqual(rows.map((r) => r[0].replace(' (configured)', '')).slice(0, 6), ['1', '2', '4', '7', '14', '28']);
  assert.deepEqual(rows.map((r) => r[1]).slice(0, 6), ['MQA', 'GQA', 'GQA', 'GQA', 'GQA', 'MHA']);
  // bytes per token with d KV heads: 2 x 28 x d x 128 x 2 = 14,336 x d
  assert.deepEqual(rows.map((r) => r[3]).slice(0, 6),
    ['14,336 B', '28,672 B', '57,344 B', '100,352 B', '200,704 B', '401,408 B']);
  // at 32,768 tokens: 4 KV heads 57,344 x 32,768 = 1.75 GiB, MHA 401,408 x 32,768 = 12.25 GiB; 4/28 = 0.14x
  assert.equal(rows[2][4], '1.75 GiB');
  assert.equal(rows[5][4], '12.25 GiB');
  assert.equal(rows[2][5], '0.14x');
  assert.equal(rows[5][5], '1.00x');
  // MLA with DeepSeek-V3's latent on Qwen's 28 layers: 28 x 576 x 2 = 32,256 B per token
  assert.match(rows[6][0], /^MLA/);
  assert.equal(rows[6][3], '32,256 B');
  // the control starts at the model's own 4 KV heads
  const readout = await shadowText(page, '#gqa', '.gqa [part~="gqa-readout"]');
  assert.match(readout, /^4 KV heads \(GQA\), 7 query heads per KV head: 1\.75 GiB/);
  // the picture: 28 query heads, 4 KV heads
  const shapes = await page.$eval('#gqa', (el) => ({
    q: el.shadowRoot.querySelectorAll('.heads rect.q').length,
    kv: el.shadowRoot.querySelectorAll('.heads rect.kvh').length,
  }));
  assert.deepEqual(shapes, { q: 28, kv: 4 });

  // DeepSeek-V3: MLA itself; 128 query heads; MHA with full heads: 2? no: 61 x 128 x (192 + 128) x 2
  const mla = await page.$eval('#gqa-mla', (el) => [...el.shadowRoot.querySelectorAll('.gqa tbody tr')]
    .map((tr) => [...tr.children].map((c) => c.textContent.trim())));
  assert.equal(mla.length, 8 + 1);  // divisors of 128: 1, 2, 4, ..., 128, then MLA
  // 61 layers x 128 heads x (qk_nope 128 + qk_rope 64 = 192 key + 128 value) x 2 bytes = 4,997,120 B
  assert.equal(mla[7][3], '4,997,120 B');
  assert.equal(mla[8][3], '70,272 B');
  // 70,272 / 4,997,120 = 0.014 -> 0.01x
  assert.equal(mla[8][5], '0.01x');

  // Mistral-7B: every layer has a sliding window of 4,096 tokens, which its KV-head rows keep
  // and the MLA point (a latent on every layer, no window) does not.
  const windowed = await page.$eval('#gqa-window', (el) => [...el.shadowRoot.querySelectorAll('.gqa tbody tr')]
    .map((tr) => [...tr.children].map((c) => c.textContent.trim())));
  assert.equal(windowed.length, 6 + 1);  // divisors of 32: 1, 2, 4, 8, 16, 32, then MLA
  // 8 KV heads, as configured: 2 x 32 layers x 8 x 128 x 2 B = 131,072 B per token; the cache
  // at 32,768 tokens keeps the window's 4,096: 131,072 x 4,096 = 512 MiB.
  assert.deepEqual(windowed[3].slice(3, 5), ['131,072 B', '512 MiB']);
  // MLA with DeepSeek-V3's latent on Mistral's 32 layers: 32 x (512 + 64) x 2 B = 36,864 B per
  // token, for all 32,768 tokens: 36,864 x 32,768 = 1,207,959,552 B = 1.13 GiB (1.125).
  assert.match(windowed[6][0], /^MLA/);
  assert.deepEqual(windowed[6].slice(3, 5), ['36,864 B', '1.13 GiB']);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('every view follows a typed context: the table, the GQA rows and the formula keep their rows and show the new figures', async () => {
  const { page, log } = await openPage(env, '/all.html');
  await waitForWidgets(page);
  const q = '#all';
  const tableRow = (name) => page.$eval(q, (el, n) => [...el.shadowRoot.querySelectorAll('.table tbody tr')]
    .map((tr) => [...tr.children].map((c) => c.textContent.trim())).find((r) => r[0] === n), name);
  const heads = () => page.$eval(q, (el) => [...el.shadowRoot.querySelectorAll('.table thead th')].map((th) => th.textContent).slice(6, 10));
  const gqa = () => page.$eval(q, (el) => [...el.shadowRoot.querySelectorAll('.gqa tbody tr')]
    .map((tr) => [...tr.children].map((c) => c.textContent.trim())));
  const type = async (tokens) => {
    await page.locator(`${q} input[name=context]`).fill(String(tokens));
    await page.$eval(q, (el) => el.updateComplete);
  };

  // 65,536 tokens: the chosen column sits between 32K and 128K.
  await type(65536);
  assert.deepEqual(await heads(), ['Memory at 4K', 'Memory at 32K', 'Memory at 64K', 'Memory at 128K']);
  // Llama-3.1-8B: 131,072 B per token: 512 MiB at 4K, 4 GiB at 32K, 8 GiB at 64K, 16 GiB at 128K
  assert.deepEqual((await tableRow('meta-llama/Llama-3.1-8B')).slice(6, 10), ['512 MiB', '4 GiB', '8 GiB', '16 GiB']);
  // Mistral-7B keeps its 4,096-token window (32 x 4,096 B x 4,096 = 512 MiB) and has no figure past its own 32,768
  assert.deepEqual((await tableRow('mistralai/Mistral-7B-v0.1')).slice(6, 10), ['512 MiB', '512 MiB', '—', '—']);
  let rows = await gqa();
  // Qwen2.5-7B at 65,536: 4 KV heads 57,344 x 65,536 = 3.5 GiB, MHA 401,408 x 65,536 = 24.5 GiB,
  // MLA 32,256 x 65,536 = 2,113,929,216 B = 1.97 GiB
  assert.deepEqual(rows[2].slice(3), ['57,344 B', '3.50 GiB', '0.14x']);
  assert.deepEqual(rows[5].slice(3), ['401,408 B', '24.50 GiB', '1.00x']);
  assert.deepEqual(rows[6].slice(3), ['32,256 B', '1.97 GiB', '0.08x']);
  assert.equal(await page.$eval(q, (el) => el.shadowRoot.querySelectorAll('.gqa tbody tr')[6].cells[4].title), '2,113,929,216 B');
  // The rows stay the same nodes from one context to the next (a focus or selection in them stays).
  await page.$eval(q, (el) => {
    window.__kept = [el.shadowRoot.querySelector('.table tbody tr'), el.shadowRoot.querySelector('.gqa tbody tr'),
      el.shadowRoot.querySelector('.formula .term')];
  });

  // 8,192 tokens: the chosen column moves between 4K and 32K, every cell with it.
  await type(8192);
  assert.deepEqual(await heads(), ['Memory at 4K', 'Memory at 8K', 'Memory at 32K', 'Memory at 128K']);
  // Llama-3.1-8B at 8,192: 131,072 x 8,192 = 1 GiB
  assert.deepEqual((await tableRow('meta-llama/Llama-3.1-8B')).slice(6, 10), ['512 MiB', '1 GiB', '4 GiB', '16 GiB']);
  assert.deepEqual((await tableRow('mistralai/Mistral-7B-v0.1')).slice(6, 10), ['512 MiB', '512 MiB', '512 MiB', '—']);
  const cell = await page.$eval(q, (el) => [...el.shadowRoot.querySelectorAll('.table tbody tr')]
    .find((tr) => tr.cells[0].textContent.trim() === 'meta-llama/Llama-3.1-8B').cells[7].title);
  assert.equal(cell, '1,073,741,824 B');
  rows = await gqa();
  // 57,344 x 8,192 = 448 MiB; 401,408 x 8,192 = 3,136 MiB = 3.06 GiB; 32,256 x 8,192 = 252 MiB
  assert.deepEqual(rows[2].slice(3), ['57,344 B', '448 MiB', '0.14x']);
  assert.deepEqual(rows[5].slice(3), ['401,408 B', '3.06 GiB', '1.00x']);
  assert.deepEqual(rows[6].slice(3), ['32,256 B', '252 MiB', '0.08x']);
  // the formula's per-token line is unchanged: 2 x 28 x 4 x 128 x 2 = 57,344 B; the sequence: 57,344 x 8,192 = 448 MiB
  assert.match(await shadowText(page, q, '.formula'), /57,344/);
  assert.match(await shadowText(page, q, '.formula .results'), /448 MiB \(469,762,048 B\)/);
  assert.deepEqual(await page.$eval(q, (el) => [el.shadowRoot.querySelector('.table tbody tr'), el.shadowRoot.querySelector('.gqa tbody tr'),
    el.shadowRoot.querySelector('.formula .term')].map((n, i) => n === window.__kept[i])), [true, true, true]);

  // Another model rebuilds them, with its own figures: DeepSeek-V3, 70,272 B per token; its GQA
  // rows are the divisors of 128 and its own MLA point.
  await page.locator(`${q} select[name=model]`).selectOption('deepseek-ai/DeepSeek-V3');
  await page.$eval(q, (el) => el.updateComplete);
  rows = await gqa();
  assert.equal(rows.length, 9);
  // 70,272 x 8,192 = 575,668,224 B = 549 MiB
  assert.deepEqual(rows[8].slice(3, 5), ['70,272 B', '549 MiB']);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('chart: memory against context on a log axis, one line per KV dtype, the pool as a line', async () => {
  const { page, log } = await openPage(env, '/all.html');
  await waitForWidgets(page);
  const chart = await page.$eval('#all', async (el) => {
    await el.updateComplete;
    const c = el.shadowRoot.querySelector('.chart');
    return {
      series: c.querySelectorAll('path.series').length,
      pool: c.querySelectorAll('.pool-line').length,
      ticks: [...c.querySelectorAll('.tick')].map((t) => t.textContent),
      legend: [...c.querySelectorAll('.legend li')].map((li) => li.textContent),
    };
  });
  assert.equal(chart.series, 3);
  assert.ok(chart.pool >= 1);
  assert.ok(chart.ticks.includes('1K') && chart.ticks.includes('1M'), chart.ticks.join());
  // auto is bf16 here (torch_dtype bfloat16): 57,344 B per token; fp8 half, 28,672; int4 a quarter, 14,336
  assert.deepEqual(chart.legend.slice(0, 3), ['auto (bf16): 57,344 B per token', 'fp8: 28,672 B per token', 'int4: 14,336 B per token']);
  // pool 681,280 tokens x 57,344 B = 39,067,893,760 B = 36.38 GiB
  assert.match(chart.legend[3], /681,280 tokens × 57,344 B = 36\.38 GiB/);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('numbers follow the page language', async () => {
  const { page } = await openPage(env, '/lang-de.html');
  await waitForWidgets(page);
  const text = await shadowText(page, '#de', '.formula');
  // de groups thousands with "." and uses "," for decimals: 57.344 and 1,75 GiB
  assert.match(text, /57\.344/);
  assert.match(text, /1,75 GiB/);
  await page.close();
});

test('the light-DOM content is the fallback until the first result', async () => {
  const { page } = await openPage(env, '/inline.html');
  await waitForWidgets(page);
  // the inline config is used and named as its _name_or_path gives it
  assert.equal(await shadowText(page, '#inline', '.model-name'), 'example/toy-2-layer');
  // 2 x 2 layers x 2 KV heads x (1024 / 8 = 128) x 2 bytes = 2,048 B per token
  assert.match(await shadowText(page, '#inline', '.formula'), /2,048/);
  // with JS the shadow root replaces the fallback (no slot left)
  assert.equal(await page.$eval('#inline', (el) => el.shadowRoot.querySelector('slot')), null);
  // without JS the fallback text is what shows
  const noJs = await env.context.newPage();
  await noJs.route('**/dist/kvcalc.js', (route) => route.abort());
  await noJs.goto(`${env.base}/inline.html`);
  assert.match(await noJs.locator('#inline').innerText(), /No-JS fallback: a 2-layer toy model/);
  await noJs.close();
  await page.close();
});

test('bad attributes are reported by name and the widget keeps working', async () => {
  const { page, log } = await openPage(env, '/bad.html');
  await waitForWidgets(page);
  const err = await shadowText(page, '#bad-context', '[part="error"]');
  assert.match(err, /context: expected a whole number of tokens .* got "lots"/);
  assert.match(err, /batch: must be at least 1, got "0"/);
  assert.match(await shadowText(page, '#bad-model', '[part="error"]'), /model: "no\/such-model" is not a bundled preset/);
  assert.match(await shadowText(page, '#bad-dtype', '[part="error"]'), /^kv-dtype: fp8_ds_mla applies only to MLA layers, and this model has none; not applied$/);
  // still a result: the defaults (said so), Qwen2.5-7B's 57,344 B per token
  assert.match(await shadowText(page, '#bad-dtype', '.formula'), /57,344/);
  assert.deepEqual(log.pageErrors, []);
  await page.close();
});

test('twenty widgets share one wasm instance', async () => {
  const { page, log } = await openPage(env, '/many.html');
  await waitForWidgets(page);
  const count = await page.$$eval('kv-calc', (els) => els.filter((el) => el.result).length);
  assert.equal(count, 20);
  assert.equal(await page.evaluate(() => window.__wasmInstantiations), 1);
  assert.ok(log.requests.filter((u) => u.endsWith('.wasm')).length <= 1);
  // w8 is Qwen2.5-7B (8 % 4 = 0) at 8 x 4,096 = 32,768 tokens: 1,879,048,192 B
  assert.match(await shadowText(page, '#w8', '.formula'), /1,879,048,192/);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});
