// Every kind of bad input throws one KvCalcError with the core's exact message, naming the
// field; and the instance keeps answering correctly after thousands of them, without
// leaking wasm heap.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertFlatAfterBadInputs, cliJson, heapOf, loadDist, sharedConfigs } from './support.mjs';

const { kv, kvcalc } = await loadDist();
const { KvCalcError } = kvcalc;

// A plain GQA model: 32 layers, 32 query heads, 8 KV heads, head size 4096 / 32 = 128.
const base = {
  num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, hidden_size: 4096,
  max_position_embeddings: 4096, torch_dtype: 'bfloat16',
};

/** Asserts that fn throws a KvCalcError with exactly these properties (and no others unset). */
function throwsKv(fn, { code, message, field, line, column }) {
  let error;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof KvCalcError, `expected a KvCalcError, got ${error}`);
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'KvCalcError');
  assert.deepEqual({ code: error.code, message: error.message, field: error.field, line: error.line, column: error.column },
    { code, message, field, line, column });
}

test('malformed JSON: line and column of the problem', () => {
  // Line 3 is `  "hidden_size": }`: the '}' is its 18th character.
  throwsKv(() => kv.size('{\n  "num_hidden_layers": 32,\n  "hidden_size": }'), {
    code: 'malformed_json', field: '', line: 3, column: 18,
    message: "malformed JSON at line 3, column 18: syntax error while parsing value - unexpected '}'; expected '[', '{', or a literal",
  });
  // A trailing comma after a Python-style NaN: the column is counted in the caller's text.
  throwsKv(() => kv.size('{"num_hidden_layers": 32, "x": NaN, }'), {
    code: 'malformed_json', field: '', line: 1, column: 37,
    message: "malformed JSON at line 1, column 37: syntax error while parsing object key - unexpected '}'; expected string literal",
  });
  throwsKv(() => kv.size('{"a": 1, "a": 2}'), {
    code: 'malformed_json', field: 'a', message: 'duplicate key "a" in the top-level object',
  });
});

test('missing layer count', () => {
  throwsKv(() => kv.size({ num_attention_heads: 32, hidden_size: 4096 }), {
    code: 'missing_field', field: 'num_hidden_layers',
    message: 'missing layer count: none of num_hidden_layers, n_layer, num_layers, n_layers is in the config or its text_config',
  });
});

test('query heads that do not divide hidden_size, and no head_dim', () => {
  const { num_key_value_heads, ...mha } = base; // MHA: KV heads = query heads
  throwsKv(() => kv.size({ ...mha, num_attention_heads: 3, hidden_size: 100 }), {
    code: 'inconsistent', field: 'hidden_size',
    message: 'hidden_size 100 is not divisible by num_attention_heads 3, and there is no head_dim',
  });
});

test('zero, negative, non-integer and non-number values', () => {
  const layers = (value, why) => throwsKv(() => kv.size({ ...base, num_hidden_layers: value }), {
    code: 'invalid_value', field: 'num_hidden_layers', message: `num_hidden_layers: ${why}`,
  });
  layers(0, 'must be a positive integer, got 0');
  layers(-4, 'must be a positive integer, got -4');
  layers(2.5, 'must be an integer, got 2.5');
  layers('32', 'must be a number, got "32"');
  layers(true, 'must be a number, got true');
  layers(NaN, 'must be a positive integer, got NaN');
  layers(2 ** 53, 'is too large, got 9007199254740992');
  layers(1e300, 'is too large, got 1e+300');
  throwsKv(() => kv.size('[1]'), { code: 'invalid_value', field: '', message: 'the config must be a JSON object, got [1]' });
});

test('KV heads that do not divide query heads', () => {
  throwsKv(() => kv.size({ ...base, num_key_value_heads: 5 }), {
    code: 'inconsistent', field: 'num_key_value_heads', message: 'num_key_value_heads 5 does not divide num_attention_heads 32',
  });
});

test('overflow beyond 2^53 - 1 bytes', () => {
  // 32 layers x 2 x 8 x 128 x 2 B = 131,072 B per token; x 2^40 tokens = 2^57 B > 2^53 - 1.
  throwsKv(() => kv.size({ ...base, max_position_embeddings: 2 ** 40 }), {
    code: 'overflow', field: 'context',
    message: 'the KV cache of 1,099,511,627,776 tokens in the full_attention layers exceeds 2^53 - 1 bytes (8 PiB), the largest figure kvcalc reports exactly: check context',
  });
});

test('unknown preset, and what is not a config at all', () => {
  throwsKv(() => kv.size('nope/model'), {
    code: 'unknown_preset', field: 'config', message: '"nope/model" is neither config JSON nor a bundled preset id (see presets)',
  });
  throwsKv(() => kv.size(''), {
    code: 'malformed_json', field: 'config', message: 'the config is empty: give config.json text or a bundled preset id',
  });
  for (const [value, got] of [[5, 'number'], [null, 'null'], [undefined, 'undefined'], [true, 'boolean']]) {
    throwsKv(() => kv.size(value), {
      code: 'invalid_value', field: 'config', message: `config: must be JSON text, a config object or a preset id, got ${got}`,
    });
  }
  const cyclic = { ...base };
  cyclic.text_config = cyclic;
  throwsKv(() => kv.size(cyclic), { code: 'invalid_value', field: 'config', message: 'config: contains a circular reference' });
  throwsKv(() => kv.presetConfig('nope/model'), {
    code: 'unknown_preset', field: 'id', message: '"nope/model" is not a bundled preset id (see presets())',
  });
});

test('bad options, named as the caller wrote them', () => {
  const option = (options, field, message) => throwsKv(() => kv.size(base, options), { code: 'bad_option', field, message });
  option({ context: 0 }, 'context', 'context: must be a positive integer, got 0');
  option({ context: -1 }, 'context', 'context: must be a positive integer, got -1');
  option({ context: 1.5 }, 'context', 'context: must be an integer, got 1.5');
  option({ context: '4096' }, 'context', 'context: must be a number, got "4096"');
  option({ context: 2 ** 53 }, 'context', 'context: is too large, got 9007199254740992');
  option({ kvDtype: 'fp7' }, 'kvDtype', 'kvDtype: unknown "fp7" (expected auto, fp32, fp16, bf16, fp8, fp8_e4m3, fp8_e5m2, int8, int4, fp8_ds_mla)');
  option({ kvDtype: 8 }, 'kvDtype', 'kvDtype: must be a string, got 8');
  option({ kvDtype: 'fp8_ds_mla' }, 'kvDtype', 'kvDtype fp8_ds_mla applies only to MLA layers, and this model has none');
  option({ accounting: 'x' }, 'accounting', 'accounting: must be naive, resident, vllm or llamacpp, got "x"');
  option({ blockSize: 0 }, 'blockSize', 'blockSize: must be a positive integer, got 0');
  option({ maxNumBatchedTokens: 0 }, 'maxNumBatchedTokens', 'maxNumBatchedTokens: must be a positive integer, got 0');
  option({ sharedPrefix: -1 }, 'sharedPrefix', 'sharedPrefix: must be a non-negative integer, got -1');
  option({ sharedPrefix: 8192 }, 'sharedPrefix', 'sharedPrefix 8192 is longer than the context 4096');
  option({ tp: 3 }, 'tp', 'tp 3 does not divide num_attention_heads 32 (engines shard query heads evenly)');
  option({ numSpeculativeTokens: -1 }, 'numSpeculativeTokens', 'numSpeculativeTokens: must be a non-negative integer, got -1');
  option({ numSpeculativeTokens: 1025 }, 'numSpeculativeTokens', 'numSpeculativeTokens: must be from 0 to 1024, got 1025');
  option({ mambaCacheMode: 'all' }, 'mambaCacheMode', 'mambaCacheMode: must be none or align, got "all"');
  option({ fooBar: 1 }, 'fooBar', 'unknown option "fooBar"');
  option({ block_size: 16 }, 'block_size', 'unknown option "block_size" (options are camelCase: blockSize)');
  option({ 'Block Size': 16 }, 'Block Size', 'unknown option "Block Size"');
  option(5, 'options', 'options: must be an object, got 5');
  option([], 'options', 'options: must be an object, got []');
  // Unset options are the defaults, as on the CLI: undefined and null are both "not given".
  assert.equal(kv.size(base, { context: undefined, batch: null }).context, 4096);
});

test('10,000 bad inputs in a row: the same instance still answers, and the heap does not grow', () => {
  const configText = readFileSync(join(sharedConfigs, 'Qwen--Qwen2.5-7B-Instruct.json'), 'utf8');
  const expected = kv.size(configText, { context: 4096 });
  // 28 layers x 2 x 4 KV heads x 128 x 2 B = 57,344 B per token; x 4096 = 234,881,024 B.
  assert.equal(expected.kvBytes, 234_881_024);
  const bad = [
    () => kv.size('{"num_hidden_layers": 32,'),
    () => kv.size({ ...base, num_hidden_layers: -1 }),
    () => kv.size({ ...base, num_key_value_heads: 5 }),
    () => kv.size({ ...base, max_position_embeddings: 2 ** 40 }),
    () => kv.size('nope/model'),
    () => kv.size(base, { kvDtype: 'fp7' }),
    () => kv.size('['.repeat(5000)),
    () => kv.size('{"a":"\u0001"}'),
    // table and check take the same paths into the core
    () => kv.table(['Qwen/Qwen3-8B'], { contexts: 'many' }),
    () => kv.table(['{"num_hidden_layers": 32,']),
    () => kv.table([]),
    () => kv.check('Qwen/Qwen3-8B', { maxContext: 4096 }),
    () => kv.check('Qwen/Qwen3-8B', { maxContext: 4096, engineLog: 'no pool here' }),
  ];
  // How the heap is measured: a private hook asks the wasm module for the bytes its
  // allocator has handed out, and reads the WebAssembly.Memory's size. A leak shows in
  // both; they are read after a warm-up so one-time growth (first use of a code path, a
  // config the core keeps) is not counted. Every call frees what it allocated, so the bytes
  // in use come back exactly.
  assertFlatAfterBadInputs(kv, bad);
  assert.deepEqual(kv.size(configText, { context: 4096 }), expected);
});

test('a JSON text above 1 MiB is refused, in the words of the CLI, and the instance goes on', async () => {
  const { kv } = await loadDist();
  // 1,100,000 x's in a string value: 1,100,000 + 8 bytes of JSON ({"a":"...."}).
  const text = `{"a":"${'x'.repeat(1_100_000)}"}`;
  const message = 'the JSON text is 1100008 bytes, more than kvcalc reads (1 MiB, 1048576 bytes: a config.json is kilobytes)';
  throwsKv(() => kv.size(text), { code: 'invalid_value', message, field: '' });
  const dir = mkdtempSync(join(tmpdir(), 'kvcalc-big-'));
  try {
    writeFileSync(join(dir, 'config.json'), text);
    assert.deepEqual(cliJson(['size', join(dir, 'config.json'), '--json']), { error: { code: 'invalid_value', message, field: '' } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // 100 MB of text is refused before it is copied into the wasm memory, which does not grow.
  const before = heapOf(kv).memoryBytes;
  throwsKv(() => kv.size(' '.repeat(100_000_000)), { code: 'invalid_value', field: '',
    message: 'the JSON text is 100000000 bytes, more than kvcalc reads (1 MiB, 1048576 bytes: a config.json is kilobytes)' });
  assert.equal(heapOf(kv).memoryBytes, before);
  // Qwen3-8B: 36 layers x 2 x 8 KV heads x 128 x 2 B = 147,456 B per token.
  assert.equal(kv.size('Qwen/Qwen3-8B').bytesPerToken, 147_456);
});

test('the largest texts kvcalc reads, of the most values per byte, claim under 64 MiB of wasm memory', async () => {
  const { kv } = await loadDist();
  // Exactly 1 MiB each: [1,1,...,1,11] is 524,287 values (a value per two bytes), [[],[],...,[]]
  // 349,525 empty arrays. Both parse and are then refused as configs; what the parse
  // claimed is reused by the next call, so a second round claims nothing more.
  const texts = [`[${'1,'.repeat(524_286)}11]`, `[${'[],'.repeat(349_524)}[]]`];
  const refused = (t) => `the config must be a JSON object, got ${t.slice(0, 37)}...`;
  for (const t of texts) {
    assert.equal(t.length, 1_048_576);
    throwsKv(() => kv.size(t), { code: 'invalid_value', field: '', message: refused(t) });
  }
  const after = heapOf(kv);
  assert.ok(after.memoryBytes <= 64 * 1024 * 1024, `the wasm memory grew to ${after.memoryBytes} B`);
  for (const t of texts) throwsKv(() => kv.size(t), { code: 'invalid_value', field: '', message: refused(t) });
  assert.deepEqual(heapOf(kv), after);
});
