// The check core: load({ core: 'check' }) runs dist/kvcalc_check.wasm, which answers size,
// formula, presets, presetConfig, check and gpuPresets exactly as the full core does (check as
// the CLI prints it), and says how to get the table. The tests run in order in this one
// process, so the module-level state is exactly what a fresh page has.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertFlatAfterBadInputs, camelDeep, cliJson, configFiles, dist, importDist, loadFirstCore, notInCore } from './support.mjs';

const kvcalc = await importDist();
const checkBinary = readFileSync(join(dist, 'kvcalc_check.wasm'));
const tableBinary = readFileSync(join(dist, 'kvcalc_table.wasm'));
const fullBinary = readFileSync(join(dist, 'kvcalc_core.wasm'));
let checkCore = null; // the check core's API promise of the first test
const notInCheckCore = (fn) => notInCore('check', fn);
// A vLLM V1 startup log: 681,280 tokens in the pool, the outage's figures.
const logText = [
  'INFO 05-01 12:00:00 [gpu_worker.py:276] Available KV cache memory: 50.32 GiB',
  'INFO 05-01 12:00:00 [kv_cache_utils.py:716] GPU KV cache size: 681,280 tokens',
  'INFO 05-01 12:00:00 [kv_cache_utils.py:720] Maximum concurrency for 1,048,576 tokens per request: 0.65x',
].join('\n');
const checkOptions = [
  { maxContext: 1_048_576, poolTokens: 681_280 },
  { maxContext: 32_768, engineLog: logText, tp: 2 },
  { maxContext: 8192, gpu: 'h100-80gb', tp: 8, concurrency: 16 },
  { maxContext: 4096, gpu: 'a100-80gb', engine: 'sglang', memFractionStatic: 0.85, kvDtype: 'fp8' },
  { maxContext: 131_072, gpuMemory: '24GiB', weightDtype: 'int4', accounting: 'resident' },
];
// The outcome of a call: its result, or the KvCalcError's fields.
const outcome = (fn) => {
  try {
    return fn();
  } catch (e) {
    assert.equal(e.name, 'KvCalcError', String(e));
    return { code: e.code, field: e.field, message: e.message };
  }
};

test('the check core sizes and checks as the CLI does; table says how to get it', async () => {
  assert.equal(kvcalc.checkWasmUrl.href, new URL('kvcalc_check.wasm', new URL(`file://${dist}/`)).href);
  checkCore = loadFirstCore(kvcalc, 'check', checkBinary);
  const kv = await checkCore;
  assert.equal(kv.core, 'check');
  // Qwen3-8B: 36 layers x 2 x 8 KV heads x 128 (head_dim) x 2 B = 147,456 B per token.
  assert.equal(kv.size('Qwen/Qwen3-8B').bytesPerToken, 147_456);
  // 1,048,576 advertised tokens on a 681,280-token pool: 681,280 / 1,048,576 = 0.65x, no fit.
  const outage = kvcalc.check('Qwen/Qwen3-8B', { maxContext: 1_048_576, poolTokens: 681_280 });
  assert.equal(outage.fits, false);
  assert.equal(outage.maxConcurrency, 0.65);
  for (const file of configFiles().slice(0, 6)) {
    const expected = camelDeep(cliJson(['check', file, '--json', '--max-context', '32768', '--pool-tokens', '681280', '--concurrency', '4']));
    assert.deepEqual(kv.check(readFileSync(file, 'utf8'), { maxContext: 32_768, poolTokens: 681_280, concurrency: 4 }), expected, file);
  }
  assert.deepEqual(kv.gpuPresets().map((g) => g.id),
    ['h100-80gb', 'h200-141gb', 'a100-40gb', 'a100-80gb', 'l40s', 'rtx-4090', 'b200', 'mi300x']);
  assert.throws(() => kv.table(['Qwen/Qwen3-8B']), notInCheckCore('table'));
  assert.throws(() => kvcalc.table(['Qwen/Qwen3-8B']), notInCheckCore('table'));
});

test('with the check and table cores both loaded, each module-level call goes to the one that has it', async () => {
  // Neither core has every call of the other: asking for the table core loads it.
  const tables = await kvcalc.load({ core: 'table', wasmBinary: tableBinary });
  assert.equal(tables.core, 'table');
  // Mistral-7B at 4096 tokens: 32 layers x 2 x 8 KV heads x 128 x 2 B = 131,072 B per token; x 4096 = 536,870,912 B.
  assert.equal(kvcalc.table(['mistralai/Mistral-7B-v0.1'], { contexts: [4096] }).rows[0].kvBytes[0], 536_870_912);
  assert.equal(kvcalc.check('Qwen/Qwen3-8B', { maxContext: 1_048_576, poolTokens: 681_280 }).maxConcurrency, 0.65);
  assert.equal(kvcalc.gpuPresets().length, 8);
});

test('the check core keeps working after 10,000 bad inputs in a row, its heap flat', async () => {
  const kv = await checkCore;
  const bad = [
    () => kv.check('Qwen/Qwen3-8B', { maxContext: 4096 }),
    () => kv.check('Qwen/Qwen3-8B', { maxContext: 4096, gpu: 'nope' }),
    () => kv.check('Qwen/Qwen3-8B', { maxContext: 4096, engineLog: 'no pool here' }),
    () => kv.check('{"num_hidden_layers": 32,', { maxContext: 4096, poolTokens: 1 }),
    () => kv.check('Qwen/Qwen3-8B', { maxContext: 4096, gpuMemory: '80 parsecs' }),
  ];
  assertFlatAfterBadInputs(kv, bad);
  assert.equal(kv.check('Qwen/Qwen3-8B', { maxContext: 1_048_576, poolTokens: 681_280 }).blocksAvailable, 42_580); // 681,280 / 16
});

test('the check and full cores give the same checks and sizes for every preset and shared config', async () => {
  const small = await checkCore;
  const full = await kvcalc.load({ wasmBinary: fullBinary });
  assert.equal(full.core, 'full');
  assert.equal(await kvcalc.load({ core: 'check' }), full);  // once the full core is here, it answers
  assert.deepEqual(small.gpuPresets(), full.gpuPresets());
  const configs = [...full.presets().map((p) => p.id), ...configFiles().map((f) => readFileSync(f, 'utf8'))];
  for (const config of configs) {
    for (const options of checkOptions) {
      assert.deepEqual(outcome(() => small.check(config, options)), outcome(() => full.check(config, options)),
        `${config.slice(0, 60)} ${JSON.stringify(options).slice(0, 80)}`);
    }
    assert.deepEqual(outcome(() => small.size(config, { context: 4096 })), outcome(() => full.size(config, { context: 4096 })));
  }
});
