// The table core: load({ core: 'table' }) runs dist/kvcalc_table.wasm, which answers size,
// formula, presets, presetConfig and table exactly as the full core does (table as the CLI
// prints it), and says how to get check and gpuPresets. The tests run in order in this one
// process, so the module-level state is exactly what a fresh page has.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertFlatAfterBadInputs, camelDeep, cliJson, configFiles, dist, importDist, loadFirstCore, notInCore } from './support.mjs';

const kvcalc = await importDist();
const tableBinary = readFileSync(join(dist, 'kvcalc_table.wasm'));
const fullBinary = readFileSync(join(dist, 'kvcalc_core.wasm'));
let tableCore = null; // the table core's API promise of the second test
const notInTableCore = (fn) => notInCore('table', fn);

test('core must be "full", "table", "check" or "size"', async () => {
  await assert.rejects(kvcalc.load({ core: 'tables' }), {
    name: 'KvCalcError', code: 'bad_option', field: 'core', message: 'core: must be "full", "table", "check" or "size", got "tables"',
  });
  assert.equal(kvcalc.tableWasmUrl.href, new URL('kvcalc_table.wasm', new URL(`file://${dist}/`)).href);
});

test('the table core sizes and tables as the CLI does; check and gpuPresets say how to get them', async () => {
  tableCore = loadFirstCore(kvcalc, 'table', tableBinary);
  const kv = await tableCore;
  assert.equal(kv.core, 'table');
  // Qwen3-8B: 36 layers x 2 x 8 KV heads x 128 (head_dim) x 2 B = 147,456 B per token;
  // at 4096 tokens, 603,979,776 B.
  assert.equal(kv.size('Qwen/Qwen3-8B').bytesPerToken, 147_456);
  const row = kvcalc.table(['Qwen/Qwen3-8B'], { contexts: [4096] }).rows[0];
  assert.equal(row.kvBytes[0], 603_979_776);
  const files = configFiles().slice(0, 6);
  const expected = camelDeep(cliJson(['table', ...files, '--format', 'json', '--contexts', '4096,32768,1048576']));
  assert.deepEqual(kv.table(files.map((f) => readFileSync(f, 'utf8')), { contexts: [4096, 32_768, 1_048_576] }), expected);
  assert.throws(() => kv.check('Qwen/Qwen3-8B', { maxContext: 1_048_576, poolTokens: 681_280 }), notInTableCore('check'));
  assert.throws(() => kv.gpuPresets(), notInTableCore('gpuPresets'));
  assert.throws(() => kv.table(['nope/model']), {
    name: 'KvCalcError', code: 'unknown_preset', field: 'config',
    message: 'configs[0]: "nope/model" is neither config JSON nor a bundled preset id (see presets)',
  });
});

test('the table core keeps working after 10,000 bad inputs in a row, its heap flat', async () => {
  const kv = await tableCore;
  const bad = [
    () => kv.table(['Qwen/Qwen3-8B'], { contexts: 'many' }),
    () => kv.table(['{"num_hidden_layers": 32,']),
    () => kv.table([]),
    () => kv.size('Qwen/Qwen3-8B', { kvDtype: 'fp7' }),
    () => kv.table(['['.repeat(5000)]),
  ];
  assertFlatAfterBadInputs(kv, bad);
  assert.equal(kv.table(['Qwen/Qwen3-8B'], { contexts: [4096] }).rows[0].kvBytes[0], 603_979_776);
});

test('the table and full cores give the same tables and sizes for every preset and shared config', async () => {
  const small = await tableCore;
  const full = await kvcalc.load({ wasmBinary: fullBinary });
  assert.equal(full.core, 'full');
  assert.equal(await kvcalc.load({ core: 'table' }), full);  // once the full core is here, it answers
  const ids = full.presets().map((p) => p.id);
  for (const options of [{}, { contexts: [1024, 131_072], kvDtype: 'fp8', accounting: 'vllm' }, { weightDtype: 'int4', format: 'md' },
    { format: 'csv' }, { format: 'html' }]) {
    assert.deepEqual(small.table(ids, options), full.table(ids, options), JSON.stringify(options));
  }
  const texts = configFiles().map((f) => readFileSync(f, 'utf8'));
  assert.deepEqual(small.table(texts), full.table(texts));
  for (const text of texts) assert.deepEqual(small.size(text, { context: 4096 }), full.size(text, { context: 4096 }));
  // The module-level functions now have the check: 1,048,576 tokens on 681,280 is 0.65x.
  assert.equal(kvcalc.check('Qwen/Qwen3-8B', { maxContext: 1_048_576, poolTokens: 681_280 }).maxConcurrency, 0.65);
});
