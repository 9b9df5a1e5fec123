// The element with a llama.cpp engine (llamacpp, ollama, lmstudio), in Chromium: every case of
// tests/expected/llamacpp.json drawn by an element whose attributes are the case's options
// (its figures exact, the formula showing each memory object's arithmetic and its log line);
// the q8_0 block arithmetic in the formula; the engine input and llama.cpp's inputs used from
// the keyboard, each change an attribute; a picked GGUF file sized as llama.cpp allocates it
// (llama.cpp is the default engine for a GGUF file, said beside the engine input); no axe
// violation; nothing fetched but the package's files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { startBrowser, openPage, waitForWidgets, shadowText, problems, axeViolations, CLEAN } from './harness.mjs';
import { llamacppCases } from '../expected/expected.mjs';
import { readDescription, writeGguf } from '../gguf/write-gguf.mjs';

let env;
let dir;
before(async () => {
  env = await startBrowser({ axe: true });
  dir = mkdtempSync(join(tmpdir(), 'kvcalc-llamacpp-browser-'));
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const { cases } = llamacppCases();
const grouped = (n) => BigInt(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
// A shadow root's text without white space: MathML pieces are separate elements.
const squeezed = (text) => text.replace(/\s+/g, '');

// Each case as an element: a bundled config by its preset id, any other (a fixture config, a
// GGUF metadata document) as the element's config; its options as attributes.
function elementOf(c, i) {
  const preset = /shared\/configs\/(.+?)--(.+)\.json$/.exec(c.path);
  const attributes = { id: `case-${i}`, loading: 'eager' };
  for (const [k, v] of Object.entries(c.options)) attributes[k.replace(/_/g, '-')] = v === true ? '' : String(v);
  if (preset) attributes.model = `${preset[1]}/${preset[2]}`;
  return { attributes, config: preset ? null : readFileSync(c.path, 'utf8') };
}

test('every llama.cpp case of tests/expected/llamacpp.json, drawn with its arithmetic and log lines', async () => {
  const { page, log } = await openPage(env, '/llamacpp.html');
  await waitForWidgets(page);
  const elements = cases.map(elementOf);
  await page.evaluate((list) => {
    for (const { attributes, config } of list) {
      const el = document.createElement('kv-calc');
      for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, v);
      if (config !== null) el.config = config;
      document.querySelector('main').append(el);
    }
  }, elements);
  await waitForWidgets(page, '[id^=case-]');
  for (const [i, c] of cases.entries()) {
    const id = `#case-${i}`;
    const r = await page.$eval(id, (el) => el.result);
    assert.equal(r.engine, 'llamacpp', c.name);
    assert.equal(await shadowText(page, id, '.error'), '', c.name);
    // The cells and bytes of each memory object, and their sum, as the table's arithmetic gives them.
    assert.deepEqual([r.llamacpp.nCtx, r.llamacpp.nCtxSeq, r.llamacpp.nStream], [c.nCtx, c.nCtxSeq, c.nStream], c.name);
    assert.deepEqual(r.llamacpp.memory.map((m) => ({ cache: m.cache, layers: m.layers, cells: m.cells, bytes: m.bytes })), c.memory, c.name);
    assert.equal(r.llamacpp.bytes, c.bytes, c.name);
    assert.equal(r.kvBytes, c.bytes, c.name);
    // The formula shows each object as cells x streams x one cell's bytes (or layers x cells x
    // a state), equal to its bytes, then the line llama.cpp's log prints for it.
    const formula = await shadowText(page, id, '.formula');
    for (const m of r.llamacpp.memory) {
      const lhs = m.cache === 'recurrent' ? `${grouped(m.layers)}×${grouped(m.cells)}×` : `${grouped(m.cells)}×${grouped(m.streams)}×`;
      assert.ok(squeezed(formula).includes(lhs), `${c.name}: ${m.cache}: ${lhs}`);
      assert.ok(squeezed(formula).includes(`=${grouped(m.bytes)}B`), `${c.name}: ${m.cache} = ${m.bytes}`);
      assert.ok(formula.includes(m.logLine), `${c.name}: ${m.logLine}`);
    }
    if (c.mib) assert.deepEqual(r.llamacpp.memory.map((m) => /size = +([\d.]+) MiB/.exec(m.logLine)[1]), c.mib, c.name);
  }
  assert.deepEqual(await problems(page, log), CLEAN);
});

test('the q8_0 cache: 34 B per 32 values, K and V apart, each value with where it comes from', async () => {
  const { page, log } = await openPage(env, '/llamacpp.html');
  await waitForWidgets(page);
  const c = cases.find((x) => x.name === 'Qwen2.5-7B, q8_0 K and V: 34 B per 32 values');
  const r = await page.$eval('#q8', (el) => el.result);
  assert.equal(r.llamacpp.bytes, c.bytes);
  // 4 KV heads x 128 = 512 values a cell of a layer: 512 / 32 x 34 B = 544 B for K and for V
  // (1.0625 B a value, 6.25% above 1 B); 28 layers x (544 + 544) = 30,464 B a cell.
  const formula = squeezed(await shadowText(page, '#q8', '.formula'));
  assert.ok(formula.includes('K(q8_0):512÷32×34=544B'), formula);
  assert.ok(formula.includes('V(q8_0):512÷32×34=544B'), formula);
  assert.ok(formula.includes('28×(544+544)=30,464B'), formula);
  // 32,768 cells x 1 stream x 30,464 B = 998,244,352 B.
  assert.ok(formula.includes('32,768×1×30,464=998,244,352B'), formula);
  const sources = await page.$eval('#q8', (el) => [...el.shadowRoot.querySelectorAll('.formula .term')].map((t) => t.getAttribute('data-source')));
  assert.ok(sources.includes("34 = 34 B per block of 32 values, 1.0625 B a value: ggml's q8_0 block (ggml-common.h)"), sources.join('\n'));
  assert.ok(sources.some((s) => s.startsWith('512 values = 4 KV heads (num_key_value_heads) × 128 (hidden_size 3584 / num_attention_heads 28)')), sources.join('\n'));
  // Focusing a value shows its source, as the other formulas do.
  await page.$eval('#q8', (el) => [...el.shadowRoot.querySelectorAll('.formula .term')].find((t) => t.textContent === '34').focus());
  assert.match(await shadowText(page, '#q8', '.source-tip'), /^34 = 34 B per block of 32 values/);
  // The chart's lines: the types as set, then f16 and q4_0 for K and V.
  assert.match(await shadowText(page, '#q8', '.legend'), /q8_0 \(as set\): 30,464 B per token\s+f16 K and V: 57,344 B per token\s+q4_0 K and V: 16,128 B per token/);
  assert.deepEqual(await problems(page, log), CLEAN);
});

test('gpt-oss-20b: 768 SWA cells on llama-server, the whole context in LM Studio; Ollama one type for K and V', async () => {
  const { page, log } = await openPage(env, '/llamacpp.html');
  await waitForWidgets(page);
  const server = await page.$eval('#server', (el) => el.result.llamacpp);
  // One slot: the SWA layers keep ceildiv(min(131072, 128 x 1 + 512), 256) x 256 = 768 cells, 18 MiB.
  assert.deepEqual(server.memory.map((m) => [m.cache, m.cells, m.bytes]), [['base', 131072, 12 * 131072 * 2048], ['swa', 768, 12 * 768 * 2048]]);
  assert.match(await shadowText(page, '#server', '.formula'), /18\.00 MiB \( +768 cells/);
  // The formula's values say the rules: the cells of a slot's stream with the padding, and the SWA cells.
  const sources = await page.$eval('#server', (el) => [...el.shadowRoot.querySelectorAll('.formula .term')].map((t) => t.getAttribute('data-source')));
  assert.ok(sources.includes('131,072 cells = n_ctx_seq = PAD(PAD(n_ctx, 256) / n_seq_max, 256) a stream; 1 slot (parallel); ' +
    'padding 256 (the current rules (b10573), build b10573)'), sources.join('\n'));
  assert.ok(sources.includes('768 cells = PAD(min(131072, 128 x 1 + 512), 256); window n_swa 128 (sliding_window), n_ubatch 512 (default); ' +
    "swa_full false (llama-server's default)"), sources.join('\n'));
  // 768 cells x 1 stream x 24,576 B (12 layers x (1,024 + 1,024)) = 18,874,368 B.
  assert.ok(squeezed(await shadowText(page, '#server', '.formula')).includes('768×1×24,576=18,874,368B'));
  const studio = await page.$eval('#studio', (el) => el.result.llamacpp);
  // swa_full: 12 x 131,072 x 2,048 B = 3 GiB on the SWA layers too.
  assert.deepEqual(studio.memory.map((m) => [m.cache, m.cells, m.bytes]), [['base', 131072, 3221225472], ['swa', 131072, 3221225472]]);
  assert.match(await shadowText(page, '#studio', '.formula .results'), /LM Studio allocates \(-c 131,072, 1 slot\)\s+6 GiB \(6,442,450,944 B\)/);
  // Ollama: one input for K and V (OLLAMA_KV_CACHE_TYPE); the V input is not shown.
  const labels = await page.$eval('#ollama', (el) => [...el.shadowRoot.querySelectorAll('.controls label')]
    .filter((l) => l.closest('.field') && !l.closest('.field').hidden).map((l) => l.textContent));
  assert.ok(labels.includes('Cache type (OLLAMA_KV_CACHE_TYPE)'), labels.join(' | '));
  assert.ok(!labels.includes('V cache type (-ctv)'));
  assert.ok(labels.includes('Context (num_ctx, tokens)'));
  assert.deepEqual(await problems(page, log), CLEAN);
});

test('the table, the chart and the GQA figure with llama.cpp: what llama-server allocates, its SWA cells and cache types', async () => {
  const { page, log } = await openPage(env, '/llamacpp.html');
  await waitForWidgets(page);
  await page.$eval('#all', (el) => el.scrollIntoView());
  await page.$eval('#all', (el) => el.updateComplete);
  // gpt-oss-20b on llama-server's 4 unified slots, f16: 12 full layers x c cells x 2,048 B
  // (8 KV heads x 64 x 2 B, K and V) + 12 SWA layers x PAD(min(c, 128 x 4 + 512), 256) = 1,024 cells x 2,048 B.
  const at = (c) => 12 * c * 2048 + 12 * 1024 * 2048;
  assert.deepEqual([at(4096), at(32768), at(131072)], [125_829_120, 830_472_192, 3_246_391_296]);
  const titles = await page.$eval('#all', (el) => [...[...el.shadowRoot.querySelectorAll('.table tbody tr')]
    .find((tr) => tr.children[0].textContent.trim() === 'openai/gpt-oss-20b').children].map((c) => c.getAttribute('title')));
  assert.deepEqual(titles.slice(6, 9), ['125,829,120 B', '830,472,192 B', '3,246,391,296 B']);
  assert.match(await shadowText(page, '#all', '.table .caption'), /^What llama\.cpp allocates per model \(llama-server, the context as -c\), 4 slots, K f16, V f16/);
  // A model llama.cpp has no rules for is its own row's error; the other rows are sized.
  assert.match(await shadowText(page, '#all', '.table tbody'), /openai-community\/gpt2-large\s*engine llamacpp: kvcalc has no mapping from model_type "gpt2"/);
  // The GQA figure: with 1 KV head instead of 8, each memory object is an eighth:
  // 3,246,391,296 / 8 = 405,798,912 B (387 MiB); 64 KV heads (MHA) 8x: 25,971,130,368 B (24.19 GiB).
  const gqa = await shadowText(page, '#all', '.gqa');
  assert.match(gqa, /openai\/gpt-oss-20b: KV cache at 131,072 tokens, 4 slots, K f16, V f16, llamacpp/);
  assert.match(gqa, /1\s+MQA\s+64\s+6,144 B\s+387 MiB\s+0\.02x/);
  assert.match(gqa, /8 \(configured\)\s+GQA\s+8\s+49,152 B\s+3\.02 GiB\s+0\.13x/);
  assert.match(gqa, /64\s+MHA\s+1\s+393,216 B\s+24\.19 GiB\s+1\.00x/);
  // The chart's lines: f16 as set, then q8_0 and q4_0 for K and V, a token's bytes over the 24
  // layers: 24 x 2 x 512 values x 2 B = 49,152; 24 x 2 x 512 / 32 x 34 B = 26,112; 24 x 2 x 512 / 32 x 18 B = 13,824.
  assert.match(await shadowText(page, '#all', '.chart .legend'),
    /f16 \(as set\): 49,152 B per token\s+q8_0 K and V: 26,112 B per token\s+q4_0 K and V: 13,824 B per token/);
  // Read out at the chosen context, 131,072 tokens: f16 3,246,391,296 B (3.02 GiB); q8_0
  // (12 x 131,072 + 12 x 1,024) x 1,088 B = 1,724,645,376 B (1.61 GiB); q4_0 x 576 B = 913,047,552 B (870.75 MiB).
  assert.equal(12 * (131072 + 1024) * 1088, 1_724_645_376);
  assert.equal(12 * (131072 + 1024) * 576, 913_047_552);
  await page.$eval('#all', (el) => el.shadowRoot.querySelector('[part=chart-svg]').focus());
  assert.equal(await shadowText(page, '#all', '.chart [aria-live]'), 'At 131,072 tokens: f16 3.02 GiB, q8_0 1.61 GiB, q4_0 870.75 MiB.');
  assert.deepEqual(await problems(page, log), CLEAN);
});

// What has focus, through the element's shadow root.
const focused = (page) => page.evaluate(() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a ? { name: a.getAttribute('name'), outline: getComputedStyle(a).outlineStyle } : null;
});
async function tabTo(page, name) {
  for (let i = 0; i < 60; i += 1) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    if (f && f.name === name) return f;
  }
  throw new Error(`never reached ${name} with Tab`);
}

test('the engine input and llama.cpp\'s inputs, from the keyboard: each an attribute, the figures exact', async () => {
  const { page, log } = await openPage(env, '/llamacpp.html');
  await waitForWidgets(page);
  await page.$eval('#switch', (el) => el.scrollIntoView());
  await page.$eval('#switch', (el) => el.shadowRoot.querySelector('select[name=model]').focus());
  const visible = () => page.$eval('#switch', (el) => [...el.shadowRoot.querySelectorAll('.controls .field')]
    .filter((f) => !f.hidden && f.localName === 'div').map((f) => f.querySelector('input, select').getAttribute('name')));
  assert.deepEqual(await visible(), ['model', 'engine', 'context', 'batch', 'kv-dtype', 'accounting', 'tp']);
  // vLLM: 2 x 28 x 4 x 128 x 2 B x 32,768 tokens.
  assert.equal(await page.$eval('#switch', (el) => el.result.kvBytes), 1879048192);

  const f = await tabTo(page, 'engine');
  assert.equal(f.outline, 'solid');
  await page.keyboard.press('ArrowDown');  // SGLang
  await page.keyboard.press('ArrowDown');  // llama.cpp
  await page.$eval('#switch', (el) => el.updateComplete);
  assert.equal(await page.getAttribute('#switch', 'engine'), 'llamacpp');
  assert.deepEqual(await visible(), ['model', 'engine', 'context', 'parallel', 'cache-type-k', 'cache-type-v', 'flash-attn', 'accounting']);
  assert.match(await shadowText(page, '#switch', '.controls'), /Slots \(-np\)[\s\S]*4 slots, one stream of 32,768 cells shared \(llama-server's automatic -np \(b6931\+\)\)/);

  // One slot, q8_0 for K and V: tests/expected/llamacpp.json's case.
  await tabTo(page, 'parallel');
  await page.keyboard.type('1');
  await tabTo(page, 'cache-type-k');
  await page.keyboard.press('ArrowDown');  // f16 -> bf16
  await page.keyboard.press('ArrowDown');  // q8_0
  await tabTo(page, 'cache-type-v');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.$eval('#switch', (el) => el.updateComplete);
  assert.deepEqual(await page.$eval('#switch', (el) => ['parallel', 'cache-type-k', 'cache-type-v'].map((a) => el.getAttribute(a))), ['1', 'q8_0', 'q8_0']);
  const c = cases.find((x) => x.name === 'Qwen2.5-7B, q8_0 K and V: 34 B per 32 values');
  assert.equal(await page.$eval('#switch', (el) => el.result.kvBytes), c.bytes);
  // Properties mirror the attributes.
  assert.deepEqual(await page.$eval('#switch', (el) => [el.engine, el.parallel, el.cacheTypeK, el.flashAttn]), ['llamacpp', 1, 'q8_0', null]);
  // The URL remembers them.
  await page.waitForFunction(() => location.hash.includes('switch.engine=llamacpp') && location.hash.includes('switch.cache-type-k=q8_0'));

  // Back to vLLM: llama.cpp's inputs go, with their values; the figures are vLLM's again.
  await page.$eval('#switch', (el) => el.shadowRoot.querySelector('select[name=engine]').focus());
  await page.keyboard.press('Home');
  await page.$eval('#switch', (el) => el.updateComplete);
  assert.deepEqual(await page.$eval('#switch', (el) => ['engine', 'parallel', 'cache-type-k', 'cache-type-v'].map((a) => el.getAttribute(a))),
    ['vllm', null, null, null]);
  assert.equal(await page.$eval('#switch', (el) => el.result.kvBytes), 1879048192);
  assert.equal(await shadowText(page, '#switch', '.error'), '');
  assert.deepEqual(await problems(page, log), CLEAN);
});

test('a bad llama.cpp attribute is said, naming it, and not applied', async () => {
  const { page, log } = await openPage(env, '/llamacpp.html');
  await waitForWidgets(page);
  await page.$eval('#server', (el) => { el.setAttribute('cache-type-v', 'q8_0'); el.setAttribute('flash-attn', 'off'); });
  await page.$eval('#server', (el) => el.updateComplete);
  assert.match(await shadowText(page, '#server', '.error'), /^cache-type-v: q8_0: llama\.cpp refuses a quantized V cache without flash attention.*; not applied$/);
  await page.$eval('#server', (el) => el.setAttribute('engine', 'tgi'));
  await page.$eval('#server', (el) => el.updateComplete);
  assert.match(await shadowText(page, '#server', '.error'), /engine: must be one of vllm, sglang, llamacpp, ollama, lmstudio, got "tgi"/);
  assert.deepEqual(await problems(page, log), CLEAN);
});

test('a picked GGUF file is sized as llama.cpp allocates it, which the engine input says', async () => {
  const file = join(dir, 'gpt-oss-120b.gguf');
  writeFileSync(file, writeGguf(readDescription('gpt-oss-120b')));
  const { page, log } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  await page.locator('#qwen button', { hasText: /^4K$/ }).click();
  await page.locator('#qwen summary', { hasText: 'Use your own config.json' }).click();
  await page.locator('#qwen input[type=file]').setInputFiles(file);
  await page.waitForFunction(() => /^(Using|Not used)/.test(document.querySelector('#qwen').shadowRoot.querySelector('[role=status]').textContent));
  await page.$eval('#qwen', (el) => el.updateComplete);
  assert.match(await shadowText(page, '#qwen', '[role=status]'), new RegExp(`^Using .*: the metadata of ${basename(file).replace('.', '\\.')}`));
  const r = await page.$eval('#qwen', (el) => el.result);
  assert.equal(r.engine, 'llamacpp');
  assert.equal(await page.getAttribute('#qwen', 'engine'), null);
  // -c 4,096 on llama-server's 4 unified slots: 18 full layers x 4,096 cells x (1,024 + 1,024) B
  // (8 KV heads x 64, f16) + 18 SWA layers x ceildiv(min(4096, 128 x 4 + 512), 256) x 256 = 1,024 cells.
  assert.deepEqual(r.llamacpp.memory.map((m) => [m.cache, m.cells, m.bytes]),
    [['base', 4096, 18 * 4096 * 2048], ['swa', 1024, 18 * 1024 * 2048]]);
  assert.equal(r.kvBytes, 188743680);
  assert.equal(await page.$eval('#qwen', (el) => el.shadowRoot.querySelector('select[name=engine]').value), 'llamacpp');
  assert.match(await shadowText(page, '#qwen', '.controls'), /llama\.cpp: what a GGUF file runs in \(choose vLLM to size it as vLLM serves it\)/);
  // Chosen, vLLM sizes the same file as it serves it.
  await page.$eval('#qwen', (el) => { el.engine = 'vllm'; });
  await page.$eval('#qwen', (el) => el.updateComplete);
  assert.equal(await page.$eval('#qwen', (el) => el.result.engine), undefined);
  assert.equal(await page.$eval('#qwen', (el) => el.result.kvBytes), 155713536);
  assert.deepEqual(await problems(page, log), CLEAN);
});

test('axe: no violation with llama.cpp\'s inputs and formula shown', async () => {
  const { page, log } = await openPage(env, '/llamacpp.html');
  await waitForWidgets(page);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(await problems(page, log), CLEAN);
});
