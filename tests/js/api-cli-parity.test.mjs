// The JS API gives exactly the CLI's JSON (camelCase keys) for every shared config, at the
// model's default context and with option sets, errors included: both run the same core,
// natively and as wasm, so any difference is a bug in one of the builds or in the JS layer.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { test } from 'node:test';
import { camelDeep, cliSize, configFiles, loadDist } from './support.mjs';

const { kv, kvcalc } = await loadDist();

// [CLI arguments, the same options as the JS API takes them]
const optionSets = [
  [[], undefined],
  [['--context', '4096'], { context: 4096 }],
  [['--context', '4096', '--batch', '8', '--kv-dtype', 'fp8', '--tp', '2', '--block-size', '32',
    '--accounting', 'vllm', '--max-num-batched-tokens', '2048', '--shared-prefix', '1024'],
   { context: 4096, batch: 8, kvDtype: 'fp8', tp: 2, blockSize: 32, accounting: 'vllm',
     maxNumBatchedTokens: 2048, sharedPrefix: 1024 }],
  [['--context', '4096', '--kv-dtype', 'int4', '--pp', '2', '--accounting', 'naive', '--batch', '3'],
   { context: 4096, kvDtype: 'int4', pp: 2, accounting: 'naive', batch: 3 }],
  // For the models with an MTP draft kvcalc sizes (the others refuse it, and the JS API names
  // the option in its own spelling: api-errors.test.mjs).
  [['--context', '4096', '--accounting', 'vllm', '--num-speculative-tokens', '2', '--mamba-cache-mode', 'align'],
   { context: 4096, accounting: 'vllm', numSpeculativeTokens: 2, mambaCacheMode: 'align' }, /Qwen3-Next|Qwen3\.5/],
];

const files = configFiles();
test('there are shared configs to compare', () => {
  assert.ok(files.length >= 29, `found ${files.length}`);
});

for (const file of files) {
  const text = readFileSync(file, 'utf8');
  for (const [args, options, only] of optionSets) {
    if (only && !only.test(basename(file))) continue;
    test(`${basename(file)} ${args.join(' ') || '(defaults)'}`, () => {
      const expected = camelDeep(cliSize(file, args));
      let actual;
      try {
        actual = kv.size(text, options);
      } catch (e) {
        assert.ok(e instanceof kvcalc.KvCalcError, `not a KvCalcError: ${e}`);
        actual = { error: { code: e.code, field: e.field, message: e.message } };
      }
      assert.deepEqual(actual, expected);
      // The same through a parsed object. JSON.parse keeps every number these configs hold,
      // but rejects the Python-style Infinity / NaN of Nemotron-H: those stay text-only.
      if (!expected.error && !/\b(NaN|Infinity)\b/.test(text)) {
        assert.deepEqual(kv.size(JSON.parse(text), options), expected);
      }
    });
  }
}

test('the comparisons compare reports: every config sizes at 4096, all but one at its default', () => {
  assert.deepEqual(files.filter((f) => cliSize(f, ['--context', '4096']).error), []);
  // falcon-7b-instruct's config has no max context, so its default-context case compares
  // the error (missing_field "context") instead.
  assert.deepEqual(files.filter((f) => cliSize(f).error).map((f) => basename(f)), ['tiiuae--falcon-7b-instruct.json']);
});

test('a config object with NaN and Infinity reaches the core as those tokens, as in the text', () => {
  // JSON.stringify would write null for both; the core names NaN in its error instead.
  const config = JSON.parse(readFileSync(files.find((f) => f.includes('Mistral-7B')), 'utf8'));
  assert.throws(() => kv.size({ ...config, num_key_value_heads: NaN }), {
    code: 'invalid_value', field: 'num_key_value_heads',
    message: 'num_key_value_heads: must be a positive integer, got NaN',
  });
  assert.throws(() => kv.size({ ...config, num_key_value_heads: -Infinity }), {
    message: 'num_key_value_heads: must be a positive integer, got -Infinity',
  });
});
