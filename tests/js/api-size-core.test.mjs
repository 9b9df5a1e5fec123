// The size-only core: load({ core: 'size' }) runs dist/kvcalc_size.wasm, which answers
// size, formula, presets and presetConfig exactly as the full core does, and says how to get
// check, table and gpuPresets. The tests run in order in this one process, so the
// module-level state is exactly what a fresh page has.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertFlatAfterBadInputs, configFiles, dist, importDist, loadFirstCore, notInCore } from './support.mjs';

const kvcalc = await importDist();
const sizeBinary = readFileSync(join(dist, 'kvcalc_size.wasm'));
const fullBinary = readFileSync(join(dist, 'kvcalc_core.wasm'));
let smallCore = null; // the size-only API of the second test, kept for the last one
const notInSizeCore = (fn) => notInCore('size-only', fn);

test('core must be "full", "table", "check" or "size"; the bytes must be bytes', async () => {
  await assert.rejects(kvcalc.load({ core: 'small' }), {
    name: 'KvCalcError', code: 'bad_option', field: 'core', message: 'core: must be "full", "table", "check" or "size", got "small"',
  });
  await assert.rejects(kvcalc.load({ core: 'size', wasmBinary: 'kvcalc_size.wasm' }), {
    name: 'KvCalcError', code: 'bad_option', field: 'wasmBinary',
    message: 'wasmBinary: must be an ArrayBuffer or a typed array (the bytes of kvcalc_size.wasm)',
  });
});

test('the size-only core sizes; check, table and gpuPresets say how to get them', async () => {
  smallCore = loadFirstCore(kvcalc, 'size', sizeBinary);
  const kv = await smallCore;
  assert.equal(kv.core, 'size');
  // Qwen3-8B: 36 layers x 2 x 8 KV heads x 128 (head_dim) x 2 B = 147,456 B per token.
  assert.equal(kv.size('Qwen/Qwen3-8B').bytesPerToken, 147_456);
  assert.equal(kvcalc.size('Qwen/Qwen3-8B', { context: 4096 }).kvBytes, 147_456 * 4096);
  assert.throws(() => kv.check('Qwen/Qwen3-8B', { maxContext: 1_048_576, poolTokens: 681_280 }), notInSizeCore('check'));
  assert.throws(() => kv.table(['Qwen/Qwen3-8B']), notInSizeCore('table'));
  assert.throws(() => kv.gpuPresets(), notInSizeCore('gpuPresets'));
  assert.throws(() => kvcalc.check('Qwen/Qwen3-8B', { maxContext: 1_048_576, poolTokens: 681_280 }), notInSizeCore('check'));
  // Bad input is the same KvCalcError as in the full core.
  assert.throws(() => kv.size('{"num_hidden_layers": 0}'), {
    name: 'KvCalcError', code: 'invalid_value', field: 'num_hidden_layers',
    message: 'num_hidden_layers: must be a positive integer, got 0',
  });
});

test('the size-only core keeps working after 10,000 bad inputs in a row, its heap flat', async () => {
  const kv = await smallCore;
  const bad = [
    () => kv.size('{"num_hidden_layers": 32,'),
    () => kv.size('{"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 256, "num_key_value_heads": 3}'),
    () => kv.size('nope/model'),
    () => kv.size('Qwen/Qwen3-8B', { kvDtype: 'fp7' }),
    () => kv.size('['.repeat(5000)),
  ];
  assertFlatAfterBadInputs(kv, bad);
  // Qwen3-8B: 36 layers x 2 x 8 KV heads x 128 x 2 B = 147,456 B per token.
  assert.equal(kv.size('Qwen/Qwen3-8B').bytesPerToken, 147_456);
});

test('once the full core loads, the API and load({ core: "size" }) answer with it', async () => {
  const small = await kvcalc.load({ core: 'size' });
  const full = await kvcalc.load({ wasmBinary: fullBinary });
  assert.equal(full.core, 'full');
  assert.notEqual(full, small);
  assert.equal(await kvcalc.load({ core: 'size' }), full);
  // The module-level functions now have the check: 1,048,576 tokens on 681,280 is 0.65x.
  assert.equal(kvcalc.check('Qwen/Qwen3-8B', { maxContext: 1_048_576, poolTokens: 681_280 }).maxConcurrency, 0.65);
});

test('both cores give the same answer for every shared config and every preset', async () => {
  const small = await smallCore;
  const full = await kvcalc.load();
  assert.equal(small.core, 'size');
  assert.deepEqual(small.presets(), full.presets());
  for (const { id } of full.presets()) {
    assert.equal(small.presetConfig(id), full.presetConfig(id));
    assert.deepEqual(small.formula(id, { context: 4096 }), full.formula(id, { context: 4096 }));
  }
  const answer = (kv, text, options) => {
    try {
      return kv.size(text, options);
    } catch (e) {
      return { error: { name: e.name, code: e.code, message: e.message, field: e.field } };
    }
  };
  let compared = 0;
  for (const file of configFiles()) {
    const text = readFileSync(file, 'utf8');
    for (const options of [{}, { context: 4096, kvDtype: 'fp8', tp: 2 }, { accounting: 'vllm', batch: 3 }, { kvDtype: 'fp8_ds_mla' }]) {
      assert.deepEqual(answer(small, text, options), answer(full, text, options), `${file} ${JSON.stringify(options)}`);
      compared += 1;
    }
  }
  assert.equal(compared, configFiles().length * 4);
});
