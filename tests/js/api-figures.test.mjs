// kv.model(config).figures(options): size()'s headline figures as numbers, with no report
// text in between (the core's figures as an Embind value object). Each figure is size()'s
// field of the same name, for every shared config and option mix; bad options throw size()'s
// KvCalcError; a model whose handle the API dropped still answers; nothing leaks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertFlatAfterBadInputs, configFiles, heapOf, loadDist, sharedConfigs } from './support.mjs';

const { kv, kvcalc } = await loadDist();

const KEYS = ['accounting', 'context', 'batch', 'tp', 'pp', 'kvDtypeBits', 'bytesPerToken', 'bytesPerTokenPerGpu',
  'stateBytes', 'sequenceBytesNaive', 'sequenceBytesResident', 'sequenceBytesVllm', 'sequenceBytesLlamacpp', 'kvBytes',
  'kvBytesPerGpu', 'kvBytesDeployment'];
// A vLLM or SGLang report has no llama.cpp figure (0 among the figures); a llama.cpp report
// has no batch, TP, PP, dtype bits or vLLM figure (1, 1, 1, 0 and 0 among them).
const ABSENT = { batch: 1, tp: 1, pp: 1, kvDtypeBits: 0, sequenceBytesVllm: 0, sequenceBytesLlamacpp: 0 };
const headline = (report) => Object.fromEntries(KEYS.map((k) => [k, report[k] ?? ABSENT[k]]));

const outcome = (fn) => {
  try {
    return fn();
  } catch (e) {
    assert.ok(e instanceof kvcalc.KvCalcError, `not a KvCalcError: ${e}`);
    return { error: { code: e.code, field: e.field, message: e.message, line: e.line, column: e.column } };
  }
};
const config = (name) => readFileSync(join(sharedConfigs, name), 'utf8');

test('Qwen2.5-7B-Instruct: the figures, with their arithmetic', () => {
  const m = kv.model(config('Qwen--Qwen2.5-7B-Instruct.json'));
  // 2 (K and V) x 28 layers x 4 KV heads x 128 x 2 B (bf16) = 57,344 B per token;
  // x 32,768 tokens = 1,879,048,192 B for one sequence (every layer keeps every token).
  assert.deepEqual(m.figures({ context: 32_768 }), {
    accounting: 'resident', context: 32_768, batch: 1, tp: 1, pp: 1, kvDtypeBits: 16,
    bytesPerToken: 57_344, bytesPerTokenPerGpu: 57_344, stateBytes: 0,
    sequenceBytesNaive: 1_879_048_192, sequenceBytesResident: 1_879_048_192, sequenceBytesVllm: 1_879_048_192, sequenceBytesLlamacpp: 0,
    kvBytes: 1_879_048_192, kvBytesPerGpu: 1_879_048_192, kvBytesDeployment: 1_879_048_192,
  });
  // A batch of 4 at TP 2: 4 x 1,879,048,192 = 7,516,192,768 B; each GPU holds 2 of the 4 KV
  // heads: 28,672 B per token and 3,758,096,384 B; the two GPUs together the whole batch.
  const f = m.figures({ context: 32_768, batch: 4, tp: 2 });
  assert.deepEqual([f.batch, f.tp, f.bytesPerTokenPerGpu, f.kvBytes, f.kvBytesPerGpu, f.kvBytesDeployment],
    [4, 2, 28_672, 7_516_192_768, 3_758_096_384, 7_516_192_768]);
  // No context: the config's max_position_embeddings, 32,768.
  assert.equal(m.figures().context, 32_768);
  // fp8: 1 B an element, 28,672 B per token; x 4,096 = 117,440,512 B.
  const fp8 = m.figures({ context: 4096, kvDtype: 'fp8' });
  assert.deepEqual([fp8.kvDtypeBits, fp8.bytesPerToken, fp8.kvBytes], [8, 28_672, 117_440_512]);
});

test('the figures are size()\'s fields of the same name: MLA, sliding, Mamba hybrid, linear, tp, pp, batch', () => {
  const cases = [
    ['deepseek-ai--DeepSeek-V3.json', { context: 131_072, tp: 8, accounting: 'vllm' }],
    ['deepseek-ai--DeepSeek-V3.json', { kvDtype: 'fp8_ds_mla', numSpeculativeTokens: 1 }],
    ['openai--gpt-oss-120b.json', { context: 100_000, batch: 3, blockSize: 32 }],
    ['openai--gpt-oss-120b.json', { context: 8192, accounting: 'naive', sharedPrefix: 1000, batch: 5 }],
    ['nvidia--Nemotron-H-56B-Base-8K.json', { context: 4096, tp: 2, pp: 2, accounting: 'vllm' }],
    ['Qwen--Qwen3-Next-80B-A3B-Instruct.json', { numSpeculativeTokens: 2, mambaCacheMode: 'align', accounting: 'vllm', tp: 4 }],
    ['moonshotai--Kimi-Linear-48B-A3B-Instruct.json', { context: 65_536, kvDtype: 'fp8', batch: 16 }],
    ['google--gemma-4-26B-A4B.json', undefined],
  ];
  for (const [file, options] of cases) {
    const m = kv.model(config(file));
    assert.deepEqual(m.figures(options), headline(m.size(options)), `${file} ${JSON.stringify(options)}`);
  }
  // llama.cpp's engines: what it allocates (the fast path the element's views use), with the
  // report's accounting; tests/expected/llamacpp.json's cases are compared in api-cli-parity.
  for (const [file, options] of [['openai--gpt-oss-20b.json', { engine: 'llamacpp', context: 131_072, parallel: 1 }],
    ['openai--gpt-oss-20b.json', { engine: 'lmstudio', context: 131_072, accounting: 'naive' }],
    ['Qwen--Qwen3-Next-80B-A3B-Instruct.json', { engine: 'ollama', context: 8192, parallel: 2, cacheTypeK: 'q8_0', cacheTypeV: 'q8_0' }],
    ['deepseek-ai--DeepSeek-V2-Lite.json', { engine: 'llamacpp', llamacppBuild: 7000, accounting: 'resident' }]]) {
    const m = kv.model(config(file));
    assert.deepEqual(m.figures(options), headline(m.size(options)), `${file} ${JSON.stringify(options)}`);
  }
  // gpt-oss-20b at -c 131,072 on one slot: 12 full layers x 131,072 cells x 2,048 B + 12 SWA layers x
  // 768 cells (ceildiv(min(131072, 128 x 1 + 512), 256) x 256) x 2,048 B = 3,221,225,472 + 18,874,368.
  assert.equal(kv.model(config('openai--gpt-oss-20b.json')).figures({ engine: 'llamacpp', context: 131_072, parallel: 1 })
    .sequenceBytesLlamacpp, 12 * 131_072 * 2048 + 12 * 768 * 2048);
  // The hybrids have their fixed state: Nemotron-H's Mamba layers, Qwen3-Next's gated delta net.
  assert.ok(kv.model(config('nvidia--Nemotron-H-56B-Base-8K.json')).figures({ context: 4096 }).stateBytes > 0);
});

test('every shared config: figures equal size(), or fail as it fails', () => {
  const optionSets = [undefined, { context: 4096 }, { context: 4096, batch: 8, kvDtype: 'fp8', tp: 2, accounting: 'vllm' },
    { context: 1_000_000, pp: 2, accounting: 'naive' }];
  let compared = 0;
  for (const file of configFiles()) {
    const text = readFileSync(file, 'utf8');
    let m;
    if (outcome(() => { m = kv.model(text); })?.error) continue;  // api-model.test.mjs covers these
    for (const options of optionSets) {
      const size = outcome(() => m.size(options));
      assert.deepEqual(outcome(() => m.figures(options)), size.error ? size : headline(size), `${file} ${JSON.stringify(options)}`);
      compared += 1;
    }
  }
  assert.ok(compared >= 4 * 20, `${compared} compared`);
});

test('bad options throw the KvCalcError size() throws, naming the field as the caller wrote it', () => {
  const m = kv.model('Qwen/Qwen2.5-7B-Instruct');
  const cases = [
    { kvDtype: 'nope' }, { context: 0 }, { context: 4096.5 }, { context: '4096' }, { context: -1 },
    { batch: 0, tp: 3 }, { tp: 3 }, { sharedPrefix: 5000, context: 4096 }, { numSpeculativeTokens: 1 },
    { poolTokens: 1000 }, { contxt: 1 }, { kv_dtype: 'fp8' }, { context: 2 ** 53 },
    { context: 2 ** 52, batch: 4096 }, { accounting: 'lazy' }, [1], 'fp8', { context: NaN }, { context: 10n ** 20n },
  ];
  for (const options of cases) {
    const size = outcome(() => m.size(options));
    assert.ok(size.error, JSON.stringify(options, (k, v) => (typeof v === 'bigint' ? `${v}n` : v)));
    assert.deepEqual(outcome(() => m.figures(options)), size);
  }
  // The field as the caller wrote it, and the core's words.
  assert.throws(() => m.figures({ kvDtype: 'fp7' }), {
    name: 'KvCalcError', code: 'bad_option', field: 'kvDtype',
    message: 'kvDtype: unknown "fp7" (expected auto, fp32, fp16, bf16, fp8, fp8_e4m3, fp8_e5m2, int8, int4, fp8_ds_mla)',
  });
  // A figure past 2^53 - 1 is refused by name, never rounded: 57,344 B x 2^40 tokens x 1,024 sequences.
  assert.throws(() => m.figures({ context: 2 ** 40, batch: 1024 }), { name: 'KvCalcError', code: 'overflow', field: 'batch' });
  // A config without a max context needs one from the options (Qwen2.5-7B's fields without
  // max_position_embeddings: written here); its missing context is reported before a TP the
  // heads do not divide, as size() reports it.
  const noMax = JSON.parse(config('Qwen--Qwen2.5-7B-Instruct.json'));
  delete noMax.max_position_embeddings;
  delete noMax.model_type;  // and no config class whose default length would apply
  const bare = kv.model(noMax);
  for (const options of [undefined, { tp: 3 }]) {
    assert.deepEqual(outcome(() => bare.figures(options)), outcome(() => bare.size(options)));
    assert.equal(outcome(() => bare.figures(options)).error.field, 'context');
  }
  assert.equal(bare.figures({ context: 2 }).kvBytes, 114_688);  // 57,344 x 2
});

// Configs that differ in their layer count only: L layers x 2 x 8 KV heads x 128 x 2 B = 4,096 x L B per token.
const numbered = (layers) => JSON.stringify({ num_hidden_layers: layers, num_attention_heads: 32, num_key_value_heads: 8,
  hidden_size: 4096, max_position_embeddings: 4096, torch_dtype: 'bfloat16' });

test('a model whose handle the API closed still answers figures, from a re-read', () => {
  const first = kv.model(numbered(1));
  assert.equal(first.figures({ context: 16 }).kvBytes, 4096 * 16);
  // 200 other configs push the first one's handle out of the API's 64 (its wasm memory freed).
  for (let l = 2; l <= 201; l++) assert.equal(kv.model(numbered(l)).figures({ context: 16 }).kvBytes, 4096 * l * 16);
  assert.deepEqual(first.figures({ context: 3 }), headline(first.size({ context: 3 })));
  assert.equal(first.figures({ context: 3 }).kvBytes, 12_288);  // 4,096 x 1 layer x 3 tokens
});

test('figures stay right after the wasm memory grows (its buffer replaced)', () => {
  const m = kv.model('Qwen/Qwen2.5-7B-Instruct');
  assert.equal(m.figures({ context: 4096 }).kvBytes, 234_881_024);  // 57,344 x 4,096
  const before = heapOf(kv).memoryBytes;
  // A pasted engine log of 48 MB is copied into the wasm memory, which grows to hold it.
  assert.throws(() => m.check({ maxContext: 4096, engineLog: 'x'.repeat(48_000_000) }), { name: 'KvCalcError' });
  assert.ok(heapOf(kv).memoryBytes > before, `the memory did not grow from ${before} B`);
  assert.deepEqual(m.figures({ context: 8192 }), headline(m.size({ context: 8192 })));
  assert.equal(m.figures({ context: 8192 }).kvBytes, 469_762_048);  // 57,344 x 8,192
});

test('figures leave the heap where it was: 10,000 good calls, then 10,000 bad ones', () => {
  const m = kv.model('mistralai/Mistral-7B-v0.1');
  const good = (i) => m.figures({ context: 1 + (i % 5000), batch: 1 + (i % 3) });
  for (let i = 0; i < 100; i++) good(i);
  const before = heapOf(kv);
  for (let i = 0; i < 10_000; i++) good(i);
  assert.deepEqual(heapOf(kv), before);
  assertFlatAfterBadInputs(kv, [
    () => m.figures({ kvDtype: 'fp7' }),
    () => m.figures({ context: 0 }),
    () => m.figures({ tp: 3 }),
  ]);
  // Mistral-7B at 4,096 tokens: 2 x 32 x 8 x 128 x 2 B = 131,072 B per token x 4,096.
  assert.equal(m.figures({ context: 4096 }).kvBytes, 536_870_912);
});
