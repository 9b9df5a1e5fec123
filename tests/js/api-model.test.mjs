// kv.model(config): a model read once, evaluated many times. Its size/check/formula are the
// API's (so the CLI's, which api-cli-parity and api-check compare); its series() gives many
// figures in one call, the variants made by the core. The API keeps a bounded set of the
// core's Model handles by config text and deletes those it drops, which no caller can see.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { assertFlatAfterBadInputs, configFiles, heapOf, loadDist } from './support.mjs';

const { kv, kvcalc } = await loadDist();
const files = configFiles();

const outcome = (fn) => {
  try {
    return fn();
  } catch (e) {
    assert.ok(e instanceof kvcalc.KvCalcError, `not a KvCalcError: ${e}`);
    return { error: { code: e.code, field: e.field, message: e.message } };
  }
};

test('a model answers size, formula and check as the API does, for every shared config', () => {
  const sizeOptions = [undefined, { context: 4096 }, { context: 4096, batch: 8, kvDtype: 'fp8', tp: 2, accounting: 'vllm' }];
  const checkOptions = { maxContext: 32_768, poolTokens: 681_280, concurrency: 4 };
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    let m;
    const made = outcome(() => { m = kv.model(text); });
    if (made?.error) {
      // A config that cannot be read fails as size() fails on it.
      assert.deepEqual(made, outcome(() => kv.size(text, { context: 4096 })), file);
      continue;
    }
    for (const options of sizeOptions) {
      assert.deepEqual(outcome(() => m.size(options)), outcome(() => kv.size(text, options)), `${file} ${JSON.stringify(options)}`);
    }
    assert.deepEqual(outcome(() => m.formula({ context: 4096 })), outcome(() => kv.formula(text, { context: 4096 })), file);
    assert.deepEqual(outcome(() => m.check(checkOptions)), outcome(() => kv.check(text, checkOptions)), file);
  }
  // A preset id and a config object make models too, under the module-level function as well.
  // Qwen3-8B: 36 layers x 2 x 8 KV heads x 128 x 2 B = 147,456 B per token.
  assert.equal(kv.model('Qwen/Qwen3-8B').size().bytesPerToken, 147_456);
  assert.equal(kvcalc.model(JSON.parse(kv.presetConfig('Qwen/Qwen3-8B'))).size().bytesPerToken, 147_456);
});

test('series: every KV-head count, and the MLA point, made by the core (Mistral-7B)', () => {
  const m = kv.model('mistralai/Mistral-7B-v0.1');
  const { contexts, series } = m.series({}, { contexts: [1024, 32_768], variants: [{ kvHeads: 1 }, { kvHeads: 8 }, { kvHeads: 32 }, 'mla'] });
  assert.deepEqual(contexts, [1024, 32_768]);
  // Mistral-7B: 32 layers, head size 128, bf16, a sliding window of 4,096 tokens on every layer.
  // d KV heads: 2 x 32 x d x 128 x 2 B = 16,384 x d B per token; resident: min(C, 4096) tokens kept.
  // MLA: 32 x (512 + 64) x 2 B = 36,864 B per token, no window.
  assert.deepEqual(series.map((s) => [s.variant, s.kvHeads, s.bytesPerToken, s.kvBytes, s.attentionKind, s.latentDim, s.error]), [
    [{ kvHeads: 1 }, 1, 16_384, [16_384 * 1024, 16_384 * 4096], 'MQA, sliding window', null, null],
    [{ kvHeads: 8 }, 8, 131_072, [131_072 * 1024, 131_072 * 4096], 'GQA, sliding window', null, null],
    [{ kvHeads: 32 }, 32, 524_288, [524_288 * 1024, 524_288 * 4096], 'MHA, sliding window', null, null],
    ['mla', null, 36_864, [36_864 * 1024, 36_864 * 32_768], 'MLA', 576, null],
  ]);
  assert.deepEqual(series.map((s) => [s.kvDtype, s.kvDtypeName]), Array(4).fill(['auto', 'bf16']));
  // The model as configured is the size() report's figures.
  const [own] = m.series({ context: 32_768 }).series;
  assert.equal(own.variant, 'model');
  assert.equal(own.kvBytes[0], m.size({ context: 32_768 }).kvBytes);
  // Per GPU with TP 8: one KV head on each of 8 GPUs, 16,384 B per token per GPU.
  assert.equal(m.series({ tp: 8 }, { contexts: [1024] }).series[0].bytesPerTokenPerGpu, 16_384);
});

test('series: KV dtypes, an MLA model, and a series the core cannot figure keeps its own error', () => {
  // DeepSeek-V3: 61 layers x (512 + 64) latent x 2 B = 70,272 B per token; fp8_ds_mla 61 x 656 = 40,016 B.
  // Expanded into 128 full heads: 61 x 128 x (128 + 64 key + 128 value) x 2 B = 4,997,120 B.
  const d = kv.model('deepseek-ai/DeepSeek-V3').series({ context: 4096 },
    { kvDtypes: ['auto', 'fp8_ds_mla'], variants: ['model', { kvHeads: 128 }] });
  assert.deepEqual(d.series.map((s) => [s.variant, s.kvDtype, s.kvDtypeName, s.bytesPerToken, s.kvBytes?.[0] ?? null, s.error]), [
    ['model', 'auto', 'bf16', 70_272, 70_272 * 4096, null],
    ['model', 'fp8_ds_mla', 'fp8_ds_mla', 40_016, 40_016 * 4096, null],
    [{ kvHeads: 128 }, 'auto', 'bf16', 4_997_120, 4_997_120 * 4096, null],
    [{ kvHeads: 128 }, 'fp8_ds_mla', null, null, null,
      { code: 'bad_option', field: 'kvDtype', message: 'kvDtype fp8_ds_mla applies only to MLA layers, and this model has none' }],
  ]);
  const m = kv.model('mistralai/Mistral-7B-v0.1');
  const [five] = m.series({}, { contexts: [1024], variants: [{ kvHeads: 5 }] }).series;
  assert.deepEqual(five.error, { code: 'bad_option', field: 'kvHeads', message: '5 KV heads do not divide num_attention_heads 32' });
});

test('series: a malformed axis throws KvCalcError in the JS names, and the model goes on', () => {
  const m = kv.model('mistralai/Mistral-7B-v0.1');
  const cases = [
    [{ foo: 1 }, 'foo', 'unknown axis "foo" (axes: contexts, kvDtypes, variants)'],
    [{ kv_dtypes: ['fp8'] }, 'kv_dtypes', 'unknown axis "kv_dtypes" (axes are camelCase: kvDtypes)'],
    [{ kvDtypes: 'fp8' }, 'kvDtypes', 'kvDtypes: must be a non-empty list, got "fp8"'],
    [{ contexts: [0] }, 'contexts[0]', 'contexts[0]: must be a positive integer, got 0'],
    [{ variants: ['gqa'] }, 'variants[0]', 'variants[0]: must be "model", "mla" or {"kvHeads": N}, got "gqa"'],
    [{ variants: [{ kvHeads: 0 }] }, 'variants[0].kvHeads', 'variants[0].kvHeads: must be a positive integer, got 0'],
    ['fp8', 'axes', 'axes: must be an object, got "fp8"'],
  ];
  for (const [axes, field, message] of cases) {
    assert.throws(() => m.series({}, axes), { name: 'KvCalcError', code: 'bad_option', field, message }, JSON.stringify(axes));
  }
  // A bad KV dtype in the options is that series' error, as a dtype in the axes would be.
  assert.deepEqual(m.series({ kvDtype: 'fp7' }).series[0].error, { code: 'bad_option', field: 'kvDtype',
    message: 'kvDtype: unknown "fp7" (expected auto, fp32, fp16, bf16, fp8, fp8_e4m3, fp8_e5m2, int8, int4, fp8_ds_mla)' });
  // Mistral-7B at 4,096 tokens: 131,072 B per token x 4,096.
  assert.equal(m.series({ context: 4096 }).series[0].kvBytes[0], 536_870_912);
});

test('a config that cannot be read throws when the model is made, with its position', () => {
  assert.throws(() => kv.model('{\n  "num_hidden_layers": 32,\n}'), (e) => {
    assert.equal(e.name, 'KvCalcError');
    assert.equal(e.code, 'malformed_json');
    assert.deepEqual([e.line, e.column], [3, 1]);
    return true;
  });
  assert.throws(() => kv.model('nope/model'), { code: 'unknown_preset', field: 'config' });
  assert.throws(() => kv.model(42), { code: 'invalid_value', field: 'config' });
  assert.equal(kv.model('Qwen/Qwen3-8B').size().bytesPerToken, 147_456);
});

// Configs that differ in their layer count only: L layers x 2 x 8 KV heads x 128 x 2 B = 4,096 x L B per token.
const numbered = (layers) => JSON.stringify({ num_hidden_layers: layers, num_attention_heads: 32, num_key_value_heads: 8,
  hidden_size: 4096, max_position_embeddings: 4096, torch_dtype: 'bfloat16' });

test('a model outlives its handle: after 200 other configs it still answers', () => {
  const first = kv.model(numbered(1));
  for (let l = 2; l <= 201; l++) assert.equal(kv.size(numbered(l)).bytesPerToken, 4096 * l);
  assert.equal(first.size().bytesPerToken, 4096);
  assert.equal(first.series({}, { contexts: [2] }).series[0].kvBytes[0], 8192);
});

test('the handles dropped are deleted: cycling through 300 configs leaves the heap where it was', () => {
  const cycle = () => {
    for (let l = 1; l <= 300; l++) assert.equal(kv.model(numbered(l)).size({ context: 16 }).kvBytes, 4096 * l * 16);
  };
  cycle();
  const before = heapOf(kv);
  for (let i = 0; i < 3; i++) cycle();
  const after = heapOf(kv);
  // A handle kept past its drop would keep its parsed model (kilobytes): 300 a cycle would
  // add hundreds of kilobytes. What moves is the core's own bounded cache of configs read,
  // a few hundred bytes either way as its entries are replaced.
  assert.ok(Math.abs(after.inUse - before.inUse) < 4096, `in use ${before.inUse} B, then ${after.inUse} B`);
  assert.equal(after.memoryBytes, before.memoryBytes);
});

test('10,000 bad calls on models in a row: the heap stays flat, the model answers', () => {
  const m = kv.model('mistralai/Mistral-7B-v0.1');
  assertFlatAfterBadInputs(kv, [
    () => m.size({ kvDtype: 'fp7' }),
    () => m.series({}, { variants: ['gqa'] }),
    () => m.series({}, { contexts: [] }),
    () => m.check({ maxContext: 4096 }),
    () => kv.model('{"num_hidden_layers": 32,'),
  ]);
  assert.equal(m.size({ context: 4096 }).kvBytes, 536_870_912);
});
