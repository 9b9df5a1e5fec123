// formula(): the terms behind bytes per token, with values and provenance, read from the
// size report. Real configs; the arithmetic is written beside each expectation.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { configFiles, loadDist, sharedConfigs } from './support.mjs';

const { kv } = await loadDist();
const config = (name) => readFileSync(join(sharedConfigs, name), 'utf8');
const slim = (g) => ({ kind: g.kind, per: g.per, terms: g.terms, expression: g.expression, bytes: g.bytes, window: g.window });

test('a sliding-window GQA model: 2 x layers x KV heads x head size x bytes, and its window', () => {
  const f = kv.formula(config('mistralai--Mistral-7B-v0.1.json'));
  assert.equal(f.groups.length, 1);
  assert.deepEqual(slim(f.groups[0]), {
    kind: 'sliding_window', per: 'token',
    terms: [
      { name: 'K and V', value: 2, source: 'one key and one value vector per head' },
      { name: 'layers', value: 32, source: 'num_hidden_layers' },
      { name: 'KV heads', value: 8, source: 'num_key_value_heads' },
      { name: 'head size', value: 128, source: 'hidden_size 4096 / num_attention_heads 32' },
      { name: 'bytes per element', value: 2, source: 'auto: torch_dtype bfloat16' },
    ],
    expression: '2 x 32 x 8 x 128 x 2',
    bytes: 131_072, // 2 x 32 x 8 x 128 x 2
    window: { name: 'window', value: 4096, source: 'sliding_window' },
  });
  assert.equal(f.bytesPerToken, 131_072);
  assert.equal(f.report.bytesPerToken, 131_072);
});

test('MLA: layers x latent x bytes; fp8_ds_mla: layers x 656 B', () => {
  const f = kv.formula('deepseek-ai/DeepSeek-V3');
  assert.deepEqual(slim(f.groups[0]), {
    kind: 'mla', per: 'token',
    terms: [
      { name: 'layers', value: 61, source: 'num_hidden_layers' },
      { name: 'latent', value: 576, source: 'kv_lora_rank 512 + qk_rope_head_dim 64' },
      { name: 'bytes per element', value: 2, source: 'auto: torch_dtype bfloat16' },
    ],
    expression: '61 x 576 x 2',
    bytes: 70_272, // 61 x 576 x 2
    window: undefined,
  });
  const ds = kv.formula('deepseek-ai/DeepSeek-V3', { kvDtype: 'fp8_ds_mla' });
  assert.deepEqual(ds.groups[0].terms, [
    { name: 'layers', value: 61, source: 'num_hidden_layers' },
    { name: 'bytes per token per layer', value: 656, source: 'kv_dtype fp8_ds_mla' },
  ]);
  assert.equal(ds.groups[0].bytes, 40_016); // 61 x 656
});

test('int4 is half a byte per element', () => {
  const f = kv.formula(config('mistralai--Mistral-7B-v0.1.json'), { kvDtype: 'int4' });
  assert.deepEqual(f.bytesPerElement, { name: 'bytes per element', value: 0.5, source: 'kv_dtype int4' });
  assert.equal(f.groups[0].expression, '2 x 32 x 8 x 128 x 0.5');
  assert.equal(f.bytesPerToken, 32_768); // 2 x 32 x 8 x 128 x 0.5
});

test('two layer groups: each counted by the layer plan (gpt-oss-20b: 12 sliding, 12 full)', () => {
  const f = kv.formula(config('openai--gpt-oss-20b.json'));
  assert.deepEqual(f.groups.map((g) => [g.kind, g.expression, g.bytes, g.terms[1].source]), [
    ['sliding_window', '2 x 12 x 8 x 64 x 2', 24_576, 'layer_types'], // 2 x 12 x 8 x 64 x 2
    ['full_attention', '2 x 12 x 8 x 64 x 2', 24_576, 'layer_types'],
  ]);
  assert.deepEqual(f.groups[0].window, { name: 'window', value: 128, source: 'sliding_window' });
  assert.equal(f.bytesPerToken, 49_152); // 24,576 + 24,576
});

test('linear state is per sequence, no-cache layers have no terms (Nemotron-H)', () => {
  const f = kv.formula(config('nvidia--Nemotron-H-56B-Base-8K.json'));
  const [mamba, mlp, attention] = f.groups;
  assert.equal(mamba.per, 'sequence');
  assert.deepEqual(mamba.terms, [
    { name: 'layers', value: 54, source: 'hybrid_override_pattern' },
    // conv 3 x (16,384 + 2 x 8 x 256) x 2 B = 122,880 B + SSM state 256 x 64 x 256 x 4 B
    // (float32 in vLLM) = 16,777,216 B
    { name: 'state bytes per layer', value: 16_900_096, source: mamba.terms[1].source },
  ]);
  assert.match(mamba.terms[1].source, /^conv \(conv_kernel 4 - 1\) x /);
  assert.equal(mamba.bytes, 912_605_184); // 54 x 16,900,096
  assert.equal(f.stateBytes, 912_605_184);
  assert.deepEqual([mlp.per, mlp.terms, mlp.bytes, mlp.expression], ['none', [], 0, '']);
  assert.equal(attention.expression, '2 x 10 x 8 x 128 x 2');
  assert.equal(f.bytesPerToken, 40_960); // 2 x 10 x 8 x 128 x 2
});

test('for every shared config, each group\'s terms multiply to its bytes, and the groups sum to the report', () => {
  for (const file of configFiles()) {
    const f = kv.formula(readFileSync(file, 'utf8'), { context: 4096 });
    for (const g of f.groups) {
      const product = g.terms.reduce((p, t) => p * t.value, g.terms.length ? 1 : 0);
      assert.equal(product, g.bytes, `${file} ${g.name}`);
      for (const t of g.terms) assert.ok(t.source.length > 0, `${file} ${g.name} ${t.name} has no source`);
    }
    const sum = (per) => f.groups.filter((g) => g.per === per).reduce((s, g) => s + g.bytes, 0);
    assert.equal(sum('token'), f.report.bytesPerToken, file);
    assert.equal(sum('sequence'), f.report.stateBytes, file);
  }
});
