// check(), table() and gpuPresets(): the CLI's JSON for the same inputs (camelCase keys),
// for every shared config, and the errors of the check's options in the JS names.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, test } from 'node:test';
import { camelDeep, cliJson, cliText, configFiles, loadDist } from './support.mjs';
import { cliFlags, conformanceCases } from '../expected/engine-logs.mjs';

const { kv, kvcalc } = await loadDist();
const files = configFiles();
const scratch = mkdtempSync(join(tmpdir(), 'kvcalc-check-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// A vLLM V1 startup log: the pool and the concurrency line of the DESIGN.md reference case.
const logText = [
  'INFO 05-01 12:00:00 [gpu_worker.py:276] Available KV cache memory: 50.32 GiB',
  'INFO 05-01 12:00:00 [kv_cache_utils.py:716] GPU KV cache size: 681,280 tokens',
  'INFO 05-01 12:00:00 [kv_cache_utils.py:720] Maximum concurrency for 1,048,576 tokens per request: 0.65x',
].join('\n');
const logFile = join(scratch, 'vllm.log');
writeFileSync(logFile, logText);

const run = (fn) => {
  try {
    return fn();
  } catch (e) {
    assert.ok(e instanceof kvcalc.KvCalcError, `not a KvCalcError: ${e}`);
    const error = { code: e.code, field: e.field, message: e.message };
    if (e.line !== undefined) Object.assign(error, { line: e.line, column: e.column });
    return { error };
  }
};

// [CLI arguments, the same options in JS]
const checks = [
  [['--max-context', '1048576', '--pool-tokens', '681280'], { maxContext: 1_048_576, poolTokens: 681_280 }],
  [['--max-context', '32768', '--engine-log', logFile, '--tp', '2'], { maxContext: 32_768, engineLog: logText, tp: 2 }],
  [['--max-context', '8192', '--gpu', 'h100-80gb', '--tp', '8', '--concurrency', '16'],
   { maxContext: 8192, gpu: 'h100-80gb', tp: 8, concurrency: 16 }],
  [['--max-context', '4096', '--gpu', 'a100-80gb', '--engine', 'sglang', '--mem-fraction-static', '0.85', '--kv-dtype', 'fp8'],
   { maxContext: 4096, gpu: 'a100-80gb', engine: 'sglang', memFractionStatic: 0.85, kvDtype: 'fp8' }],
];

for (const file of files) {
  const text = readFileSync(file, 'utf8');
  for (const [args, options] of checks) {
    test(`check ${basename(file)} ${args.filter((a) => a !== logFile).join(' ')}`, () => {
      // Options the CLI has no flag for are not used here; the error fields are option names
      // that are one word in both spellings, or renamed as the JS API documents.
      const expected = camelDeep(cliJson(['check', file, '--json', ...args]));
      assert.deepEqual(run(() => kv.check(text, options)), expected);
    });
  }
}

// The conformance set's real logs, with the options the manifest gives: the wasm module's
// check is the native CLI's, figure for figure (speculative tokens and align mode included).
for (const c of conformanceCases().filter((x) => x.configPath)) {
  test(`check ${c.file} as the CLI checks it`, () => {
    const options = camelDeep({ ...c.options, engine_log: readFileSync(c.logPath, 'utf8') });
    const expected = camelDeep(cliJson(['check', c.configPath, '--engine-log', c.logPath, '--json', ...cliFlags(c.options)]));
    assert.deepEqual(run(() => kv.check(readFileSync(c.configPath, 'utf8'), options)), expected);
  });
}

test('the reference case: 1,048,576 advertised on a 681,280-token pool does not fit (0.65x)', () => {
  const r = kv.check('Qwen/Qwen3-8B', { maxContext: 1_048_576, poolTokens: 681_280 });
  assert.equal(r.fits, false);
  assert.equal(r.maxConcurrency, 0.65); // 681,280 / 1,048,576 = 0.6497...
  assert.equal(r.blocksNeeded, 65_536); // 1,048,576 / 16
  assert.equal(r.blocksAvailable, 42_580); // 681,280 / 16
  assert.equal(r.maxSafeContext, 40_960); // the model's own max (681,280 would allow more)
});

test('check errors name the JS option', () => {
  const model = 'Qwen/Qwen3-8B';
  const fails = (options, code, field, message) => assert.throws(() => kv.check(model, options), { name: 'KvCalcError', code, field, message });
  fails({ maxContext: 4096 }, 'bad_option', 'poolTokens',
    "no pool: give poolTokens, engineLog (the engine's startup log), or gpu (a GPU preset, or gpuMemory) to derive it");
  fails({ maxContext: 4096, poolTokens: 1000, engineLog: logText }, 'bad_option', 'poolTokens',
    'give one pool source: poolTokens, engineLog or gpu/gpuMemory, not several');
  fails({ poolTokens: 1000 }, 'missing_field', 'maxContext',
    "maxContext: missing (the context the deployment advertises, e.g. vLLM's --max-model-len; an engine log can give it too)");
  fails({ maxContext: 4096, poolTokens: 1000, gpuMemoryUtilization: 0.9 }, 'bad_option', 'gpuMemoryUtilization',
    'gpuMemoryUtilization: applies only when the pool is derived from a GPU (gpu or gpuMemory)');
  fails({ maxContext: 4096, gpu: 'nope' }, 'bad_option', 'gpu',
    'gpu: unknown "nope" (known: h100-80gb, h200-141gb, a100-40gb, a100-80gb, l40s, rtx-4090, b200, mi300x)');
  fails({ maxContext: 4096, poolTokens: -1 }, 'bad_option', 'poolTokens', 'poolTokens: must be a non-negative integer, got -1');
  fails({ maxContext: 4096, poolTokens: 100, pool_tokens: 100 }, 'bad_option', 'pool_tokens',
    'unknown option "pool_tokens" (options are camelCase: poolTokens)');
  fails({ maxContext: 4096, engineLog: 'hello\nworld' }, 'unrecognised_log', 'engineLog',
    'engine log: no line states the KV pool; looked for vLLM\'s "GPU KV cache size: N tokens", "# GPU blocks: N", ' +
    '"Available KV cache memory: X GiB", V0\'s "kv_cache_size=X GiB" or "the rest of the memory reserved for KV Cache is X GiB", ' +
    'its refusal "To serve at least one request with the models\'s max seq len (N), (X GiB KV cache is needed ...", and ' +
    'SGLang\'s "KV Cache is allocated. #tokens: N" or "max_total_num_tokens=N". No line was understood');
  assert.throws(() => kv.check('nope/model', { maxContext: 4096, poolTokens: 1 }), { code: 'unknown_preset', field: 'config' });
});

test('table: the CLI\'s table as JSON, and the same Markdown', () => {
  const texts = files.map((f) => readFileSync(f, 'utf8'));
  const contexts = ['--contexts', '4096,32768,1048576'];
  const expected = camelDeep(JSON.parse(cliText(['table', ...files, '--format', 'json', ...contexts])));
  assert.deepEqual(kv.table(texts, { contexts: [4096, 32_768, 1_048_576] }), expected);
  const md = kv.table(texts, { contexts: '4096,32768,1048576', format: 'md' });
  assert.equal(md.text, cliText(['table', ...files, '--format', 'md', ...contexts]));
  // Row by row, the figures are size()'s: Qwen3-8B at 4096 tokens, 36 x 2 x 8 x 128 x 2 B x 4096.
  const qwen = kv.table(['Qwen/Qwen3-8B'], { contexts: [4096] }).rows[0];
  assert.equal(qwen.kvBytes[0], 603_979_776);
  assert.equal(qwen.kvBytes[0], kv.size('Qwen/Qwen3-8B', { context: 4096 }).kvBytes);
  assert.throws(() => kv.table('Qwen/Qwen3-8B'), {
    code: 'bad_option', field: 'configs', message: 'configs: must be a list of preset ids, config texts or config objects',
  });
  assert.throws(() => kv.table(['Qwen/Qwen3-8B', 'nope/model']), {
    code: 'unknown_preset', field: 'config', message: 'configs[1]: "nope/model" is neither config JSON nor a bundled preset id (see presets)',
  });
});

test('gpuPresets: ids the check accepts, memory as CUDA reports it', () => {
  const gpus = kv.gpuPresets();
  assert.ok(gpus.length >= 8);
  const h100 = gpus.find((g) => g.id === 'h100-80gb');
  assert.equal(h100.memoryGib, '79.11');
  // 79.11 GiB in bytes, within one GiB hundredth: 79.11 x 2^30 = 84,943,716,188.16
  assert.ok(Math.abs(h100.memoryBytes - 79.11 * 2 ** 30) < 2 ** 30 / 100);
  for (const g of gpus) assert.equal(kv.check('Qwen/Qwen3-0.6B', { maxContext: 4096, gpu: g.id }).pool.gpuMemoryBytes, g.memoryBytes);
});
