// A reader's own config.json: pasted, dropped or opened, of each family (dense, MLA,
// sliding window, hybrid), sized exactly as tests/expected/configs.json says; a bad one
// shows the error naming the field next to the input, and the widget keeps working.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowser, openPage, waitForWidgets, shadowText, readConfig, problems, CLEAN, ROOT, CONFIGS } from './harness.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

const EXPECTED = JSON.parse(readFileSync(join(ROOT, 'tests/expected/configs.json'), 'utf8'));
const expected = (file) => EXPECTED.configs.find((c) => c.file === file);
const en = (n) => n.toLocaleString('en-US');

async function openWithConfigPanel() {
  const { page, log } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  await page.locator('#qwen button', { hasText: /^4K$/ }).click();
  await page.locator('#qwen summary', { hasText: 'Use your own config.json' }).click();
  return { page, log };
}

async function useConfig(page, text) {
  await page.locator('#qwen textarea[name=config]').fill(text);
  await page.locator('#qwen button', { hasText: 'Use this config' }).click();
}

const FAMILIES = [
  ['dense', 'Qwen--Qwen2.5-7B-Instruct.json', 'Qwen2ForCausalLM'],
  ['MLA', 'deepseek-ai--DeepSeek-V2-Lite.json', 'DeepseekV2ForCausalLM'],
  ['sliding window', 'openai--gpt-oss-20b.json', 'GptOssForCausalLM'],
  ['hybrid (Mamba, NaN/Infinity tokens)', 'nvidia--Nemotron-H-56B-Base-8K.json', 'NemotronHForCausalLM'],
  ['hybrid (linear attention)', 'Qwen--Qwen3-Next-80B-A3B-Instruct.json', 'Qwen3NextForCausalLM'],
];

for (const [family, file, name] of FAMILIES) {
  test(`a pasted ${family} config sizes as the expected table says (${file})`, async () => {
    const { page, log } = await openWithConfigPanel();
    await useConfig(page, readConfig(file));
    const e = expected(file);
    // named as the config gives it: no _name_or_path, so architectures[0]
    assert.equal(await shadowText(page, '#qwen', '.model-name'), name);
    const shown = await shadowText(page, '#qwen', '.formula .results');
    // e.bytes_per_token.arithmetic / e.at_4096.resident.arithmetic, evaluated in the table
    assert.match(shown, new RegExp(`Bytes per token\\s+${en(e.bytes_per_token.value)} B`), e.bytes_per_token.arithmetic);
    assert.ok(shown.includes(`${en(e.at_4096.resident.value)} B`) || e.at_4096.resident.value < 1024,
      `${e.at_4096.resident.arithmetic} = ${e.at_4096.resident.value}\n${shown}`);
    assert.equal(await page.$eval('#qwen', (el) => el.result.kvBytes), e.at_4096.resident.value);
    // the model select now offers the pasted config
    assert.match(await page.locator('#qwen select[name=model] option:checked').innerText(), /^Your config: /);
    assert.deepEqual(await problems(page, log), CLEAN);
    await page.close();
  });
}

test('a real clipboard paste and a dropped file are read too', async () => {
  const { page } = await openWithConfigPanel();
  await env.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.base });
  const mistral = readConfig('mistralai--Mistral-7B-v0.1.json');
  await page.evaluate((t) => navigator.clipboard.writeText(t), mistral);
  await page.locator('#qwen textarea[name=config]').focus();
  await page.keyboard.press('Control+V');
  // 2 x 32 x 8 x 128 x 2 = 131,072 B per token
  await page.waitForFunction(() => document.querySelector('#qwen').result.model === 'MistralForCausalLM');
  assert.match(await shadowText(page, '#qwen', '.formula .results'), /Bytes per token\s+131,072 B/);

  // drop: a File in a DataTransfer, dropped on the zone
  const llama = readConfig('meta-llama--Llama-2-7b-hf.json');
  await page.evaluate((t) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], 'config.json', { type: 'application/json' }));
    const zone = document.querySelector('#qwen').shadowRoot.querySelector('.dropzone');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, llama);
  // this config names itself by _name_or_path
  await page.waitForFunction(() => document.querySelector('#qwen').result.model === 'meta-llama/Llama-2-7b-hf');
  // Llama-2-7B, MHA: 2 x 32 x 32 x 128 x 2 = 524,288 B per token
  assert.match(await shadowText(page, '#qwen', '.formula .results'), /Bytes per token\s+524,288 B/);
  assert.match(await shadowText(page, '#qwen', '.dropzone'), /Using config\.json/);

  // open a file through the file input
  await page.locator('#qwen input[type=file]').setInputFiles(join(CONFIGS, 'Qwen--Qwen3-0.6B.json'));
  await page.waitForFunction(() => document.querySelector('#qwen').result.model === 'Qwen3ForCausalLM');
  // Qwen3-0.6B: 2 x 28 x 8 x 128 x 2 = 114,688 B per token
  assert.match(await shadowText(page, '#qwen', '.formula .results'), /Bytes per token\s+114,688 B/);
  assert.match(await shadowText(page, '#qwen', '.dropzone'), /Using Qwen--Qwen3-0\.6B\.json/);
  await page.close();
});

test('a bad config shows the error naming the field, and the widget keeps working', async () => {
  const { page, log } = await openWithConfigPanel();
  const error = () => shadowText(page, '#qwen', '[part="config-error"]');
  const cfg = JSON.parse(readConfig('Qwen--Qwen2.5-7B-Instruct.json'));

  // Without model_type too: Qwen2Config's default head count would fill it in.
  delete cfg.num_attention_heads;
  delete cfg.model_type;
  await useConfig(page, JSON.stringify(cfg));
  assert.equal(await error(), 'num_attention_heads: missing (also looked for n_head, num_heads, n_heads)');
  assert.equal(await page.locator('#qwen textarea[name=config]').getAttribute('aria-invalid'), 'true');

  cfg.num_attention_heads = 'many';
  await useConfig(page, JSON.stringify(cfg));
  assert.equal(await error(), 'num_attention_heads: must be a number, got "many"');

  cfg.num_attention_heads = 24;  // 3584 / 24 is not whole, and there is no head_dim
  await useConfig(page, JSON.stringify(cfg));
  assert.equal(await error(), 'hidden_size 3584 is not divisible by num_attention_heads 24, and there is no head_dim');

  cfg.num_attention_heads = 27;  // 4 KV heads cannot share 27 query heads evenly
  await useConfig(page, JSON.stringify(cfg));
  assert.equal(await error(), 'num_key_value_heads 4 does not divide num_attention_heads 27');

  await useConfig(page, '{ "num_hidden_layers": 28,\n  "num_attention_heads": }');
  assert.equal(await error(), "malformed JSON at line 2, column 26: syntax error while parsing value - unexpected '}'; expected '[', '{', or a literal");

  await useConfig(page, '[1, 2]');
  assert.equal(await error(), 'the config must be a JSON object, got [1,2]');

  // the previous model is still in use, and still answers: 57,344 x 32,768 = 1,879,048,192
  assert.equal(await shadowText(page, '#qwen', '.model-name'), 'Qwen/Qwen2.5-7B-Instruct');
  await page.locator('#qwen button', { hasText: /^32K$/ }).click();
  assert.match(await shadowText(page, '#qwen', '.formula .results'), /1,879,048,192/);
  // and a good config after the bad ones is taken
  await useConfig(page, readConfig('meta-llama--Llama-3.1-8B.json'));
  assert.equal(await error(), '');
  assert.match(await shadowText(page, '#qwen', '.formula .results'), /Bytes per token\s+131,072 B/);
  assert.deepEqual(log.pageErrors, []);
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  await page.close();
});

test('a pasted config round-trips through the hash and shows as a table row', async () => {
  const { page } = await openWithConfigPanel();
  await useConfig(page, readConfig('Qwen--Qwen3-8B.json'));
  await page.waitForFunction(() => location.hash.includes('qwen.config='));
  const url = page.url();
  const { page: shared } = await openPage(env, url.replace(env.base, ''));
  await waitForWidgets(shared);
  assert.equal(await shadowText(shared, '#qwen', '.model-name'), 'Qwen3ForCausalLM');
  // Qwen3-8B: 2 x 36 x 8 x 128 x 2 = 147,456 B per token
  assert.match(await shadowText(shared, '#qwen', '.formula .results'), /Bytes per token\s+147,456 B/);
  // in the table view the pasted config is a row of its own
  // (the table view's code and the table core load first: updateComplete waits for them)
  await shared.$eval('#qwen', (el) => { el.view = 'table'; });
  await waitForWidgets(shared);
  assert.equal(await shared.$eval('#qwen', (el) => el.shadowRoot.querySelector('.table').hidden), false);
  const first = await shared.$eval('#qwen', (el) => [...el.shadowRoot.querySelector('.table tbody tr.pasted').children].map((c) => c.textContent.trim()));
  assert.equal(first[0], 'Qwen3ForCausalLM (your config)');
  assert.equal(first[5], '147,456 B');
  await shared.close();
  await page.close();
});
