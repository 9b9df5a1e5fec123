// The JS API gives exactly the CLI's JSON (camelCase keys) for every shared config, at the
// model's default context and with option sets, errors included: both run the same core,
// natively and as wasm, so any difference is a bug in one of the builds or in the JS layer.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { test } from 'node:test';
import { camelDeep, cliJson, cliSize, configFiles, loadDist } from './support.mjs';
import { llamacppCases } from '../expected/expected.mjs';

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

// llama.cpp's cases (tests/expected/llamacpp.json): the JS API takes the CLI's flags as its
// camelCase options (--swa-full and --kv-unified as true) and gives the CLI's report, errors
// included; size, check and table alike; the figures' fast path gives the same allocation.
const flags = (o) => Object.entries(o).flatMap(([k, v]) => (v === true ? [`--${k.replace(/_/g, '-')}`] : [`--${k.replace(/_/g, '-')}`, String(v)]));
const camelOptions = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/_([a-z0-9])/g, (m, c) => c.toUpperCase()), v]));
const outcome = (fn) => {
  try {
    return fn();
  } catch (e) {
    assert.ok(e instanceof kvcalc.KvCalcError, `not a KvCalcError: ${e}`);
    return { error: { code: e.code, field: e.field, message: e.message } };
  }
};
const { cases: llamaCases, errors: llamaErrors } = llamacppCases();

test('llama.cpp: every case of tests/expected/llamacpp.json, size() as the CLI sizes it', () => {
  assert.ok(llamaCases.length >= 15);
  for (const c of llamaCases) {
    const text = readFileSync(c.path, 'utf8');
    const expected = camelDeep(cliSize(c.path, flags(c.options)));
    const actual = kv.size(text, camelOptions(c.options));
    assert.deepEqual(actual, expected, c.name);
    // The figures the table's arithmetic gives, K and V per memory object summed.
    assert.equal(actual.llamacpp.bytes, c.bytes, c.name);
    assert.deepEqual(actual.llamacpp.memory.map((m) => m.bytes), c.memory.map((m) => m.bytes), c.name);
    const f = kv.model(text).figures(camelOptions(c.options));
    assert.deepEqual([f.accounting, f.sequenceBytesLlamacpp, f.kvBytes, f.bytesPerToken, f.stateBytes],
      ['llamacpp', c.bytes, c.bytes, actual.bytesPerToken, actual.stateBytes], c.name);
  }
});

test('llama.cpp: every refusal of tests/expected/llamacpp.json, the same error as the CLI\'s (in JS names)', () => {
  for (const e of llamaErrors) {
    const cli = cliSize(e.path, flags(e.options)).error;
    const js = outcome(() => kv.size(readFileSync(e.path, 'utf8'), camelOptions(e.options))).error;
    assert.ok(js, e.name);
    assert.equal(js.code, cli.code, e.name);
    // The JS API names an option as its caller wrote it (cacheTypeV, not cache_type_v); a
    // config's key (llama.block_count) as the file has it.
    assert.equal(js.field, e.field.includes('.') ? e.field : Object.keys(camelOptions({ [e.field]: 0 }))[0], e.name);
    const words = (t) => t.replace(/_/g, '').toLowerCase();
    assert.equal(words(js.message), words(cli.message), e.name);
  }
});

test('llama.cpp: check() and table() give the CLI\'s reports', () => {
  const oss = llamaCases.find((c) => c.path.endsWith('openai--gpt-oss-20b.json')).path;
  const text = readFileSync(oss, 'utf8');
  for (const options of [{ engine: 'llamacpp', context: 131072, parallel: 1 }, { engine: 'lmstudio', context: 131072 },
    { engine: 'ollama', context: 8192, parallel: 2, cache_type_k: 'q8_0', cache_type_v: 'q8_0' }]) {
    const cli = camelDeep(cliJson(['check', oss, '--json', '--max-context', '131072', ...flags(options)]));
    assert.deepEqual(kv.check(text, { ...camelOptions(options), maxContext: 131072 }), cli, JSON.stringify(options));
    const { context, ...tableOptions } = options;  // a table's contexts are its columns
    const table = camelDeep(cliJson(['table', oss, '--format', 'json', '--contexts', `4096,${context}`, ...flags(tableOptions)]));
    const { format, text: rendered, ...js } = kv.table([text], { ...camelOptions(tableOptions), contexts: [4096, context] });
    assert.deepEqual(js, table, JSON.stringify(options));
    assert.equal(format, undefined);
    assert.equal(rendered, undefined);
  }
});
