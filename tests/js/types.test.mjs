// dist/kvcalc.d.ts type-checks against a usage file, with tsc --strict, imported by the
// package name (so package.json's "exports" and "types" are checked too).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { camelDeep, cliSize, dist, loadDist, root } from './support.mjs';

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

test('dist/kvcalc.d.ts is the hand-written web/kvcalc.d.ts', () => {
  assert.equal(readFileSync(join(dist, 'kvcalc.d.ts'), 'utf8'), readFileSync(join(root, 'web', 'kvcalc.d.ts'), 'utf8'));
});

test('tests/js/usage.ts type-checks with tsc --noEmit --strict (tests/js/tsconfig.usage.json)', () => {
  assert.ok(existsSync(tsc), 'typescript is not installed: run scripts/setup.sh');
  // tests/js/tsconfig.usage.json: --strict, es2022 and the DOM, and no ambient @types packages
  // ("types": []): the root's dev dependencies bring some (@types/mdx with @mdx-js/mdx, which
  // needs React's JSX namespace); usage.ts imports every type it uses.
  const args = ['-p', join('tests', 'js', 'tsconfig.usage.json')];
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, ...args], { cwd: root, encoding: 'utf8' });
  } catch (e) {
    output = `${e.stdout}${e.stderr}`;
  }
  assert.equal(output, '');
});

// tsc checks the usage against the declarations; this checks the declarations against what
// the API returns: the members an interface declares are the keys a real result has.
function declaredMembers(name, { optional = false } = {}) {
  const source = readFileSync(join(root, 'web', 'kvcalc.d.ts'), 'utf8');
  const body = source.match(new RegExp(`(?:export )?interface ${name}(?:<[^>]*>)?(?: extends [\\w, ]+)? \\{\\n([\\s\\S]*?)\\n\\}`))[1];
  return [...body.matchAll(/^ {2}(?:readonly )?(\w+)(\??):/gm)].filter((m) => !optional || m[2]).map((m) => m[1]).sort();
}

// The members a result of this model lacks: the optional ones that only encoder-decoders have.
const ENCODER_DECODER_ONLY = {
  SizeReport: ['maxNumEncoderInputTokens'], GroupFigures: ['crossAttention'], TableRow: ['encoderTokens'],
};
const withoutEncoderDecoder = (name) => declaredMembers(name).filter((k) => !ENCODER_DECODER_ONLY[name]?.includes(k));
// ... and those only a model with an indexer's keys beside a layer's cache has (DeepSeek-V3.2, MiniMax-M3).
const INDEXER_ONLY = { SizeReport: ['indexerKvDtype'], AttentionGroup: ['indexerBytes'], MlaGroup: ['indexerBytes'] };
const withoutIndexer = (name, members) => members.filter((k) => !INDEXER_ONLY[name]?.includes(k));

test('the declared interfaces have exactly the keys of real results', async () => {
  const { kv } = await loadDist();
  const report = kv.size('deepseek-ai/DeepSeek-V3', { context: 4096 });
  assert.deepEqual(Object.keys(report).sort(), withoutIndexer('SizeReport', withoutEncoderDecoder('SizeReport')));
  assert.deepEqual(Object.keys(kv.presets()[0]).sort(), declaredMembers('Preset'));
  const f = kv.formula('openai/gpt-oss-20b', { context: 4096 });
  assert.deepEqual(Object.keys(f).sort(), declaredMembers('Formula'));
  assert.deepEqual(Object.keys(f.groups[0]).sort(), declaredMembers('GroupFormula'));
  assert.deepEqual(Object.keys(f.groups[0].terms[0]).sort(), declaredMembers('Term'));
  const verdict = kv.check('Qwen/Qwen3-8B', { maxContext: 32_768, gpu: 'h100-80gb' });
  assert.deepEqual(Object.keys(verdict).sort(), declaredMembers('CheckReport'));
  assert.deepEqual(Object.keys(verdict.pool).sort(), declaredMembers('PoolDerivation'));
  const logged = kv.check('Qwen/Qwen3-8B', { maxContext: 32_768, engineLog: 'GPU KV cache size: 681,280 tokens' });
  assert.deepEqual(Object.keys(logged.log).sort(), declaredMembers('EngineLogReading'));
  const crossed = kv.check('meta-llama/Llama-3.1-8B', { engineLog: 'Available KV cache memory: 58.11 GiB\n'
    + 'GPU KV cache size: 476,016 tokens\nMaximum concurrency for 8,192 tokens per request: 58.11x\n' });
  assert.deepEqual(Object.keys(crossed.crossChecks[0]).sort(), declaredMembers('CrossCheck'));
  assert.deepEqual(Object.keys(crossed.logBlocks).sort(), declaredMembers('LogBlocks'));
  assert.deepEqual(Object.keys(crossed.engineVerdict).sort(), declaredMembers('EngineVerdict'));
  const t = kv.table(['Qwen/Qwen3-8B'], { format: 'csv' });
  // engine: a llama.cpp table's host only.
  assert.deepEqual(Object.keys(t).sort(), declaredMembers('TableReport').filter((k) => k !== 'engine'));
  assert.equal(kv.table(['Qwen/Qwen3-8B'], { engine: 'lmstudio' }).engine, 'lmstudio');
  assert.deepEqual(Object.keys(t.rows[0]).sort(), withoutEncoderDecoder('TableRow'));
  assert.deepEqual(Object.keys(kv.gpuPresets()[0]).sort(), declaredMembers('GpuPreset'));
  assert.deepEqual(Object.keys(kv.model('Qwen/Qwen3-8B').figures()).sort(), declaredMembers('SizeFigures'));
  const series = kv.model('deepseek-ai/DeepSeek-V3').series({}, { contexts: [4096], variants: ['model', { kvHeads: 8 }] });
  assert.deepEqual(Object.keys(series).sort(), declaredMembers('SeriesReport'));
  for (const s of series.series) assert.deepEqual(Object.keys(s).sort(), declaredMembers('Series'));
  const common = withoutEncoderDecoder('GroupFigures');
  const groups = [['AttentionGroup', 'openai/gpt-oss-20b', 'sliding_window'], ['MlaGroup', 'deepseek-ai/DeepSeek-V3', 'mla'],
    ['LinearStateGroup', 'nvidia/Nemotron-H-56B-Base-8K', 'linear_state'], ['NoCacheGroup', 'nvidia/Nemotron-H-56B-Base-8K', 'no_cache']];
  for (const [name, id, kind] of groups) {
    const g = kv.size(id, { context: 4096 }).groups.find((x) => x.kind === kind);
    assert.deepEqual(Object.keys(g).sort(), [...common, ...withoutIndexer(name, declaredMembers(name))].sort(), name);
  }
});

test('an encoder-decoder report has the optional members the others lack, and only those', async () => {
  const { kv } = await loadDist();
  // whisper-large-v3's decoder shape (d_model 1280, 32 layers of 20 heads), written here.
  const whisper = JSON.stringify({ architectures: ['WhisperForConditionalGeneration'], model_type: 'whisper', d_model: 1280,
    decoder_layers: 32, decoder_attention_heads: 20, encoder_layers: 32, encoder_attention_heads: 20,
    max_target_positions: 448, max_source_positions: 1500, torch_dtype: 'float16' });
  const r = kv.size(whisper, { context: 448, maxNumEncoderInputTokens: 1500 });
  assert.deepEqual(Object.keys(r).sort(), withoutIndexer('SizeReport', declaredMembers('SizeReport')));
  assert.deepEqual(withoutIndexer('SizeReport', declaredMembers('SizeReport', { optional: true })).filter((k) => !(k in r)), []);
  assert.equal(r.maxNumEncoderInputTokens, 1500);
  const cross = r.groups.find((g) => g.crossAttention);
  // A full-attention group: no window (AttentionGroup's window is for sliding and chunked layers).
  assert.deepEqual(Object.keys(cross).sort(), [...declaredMembers('GroupFigures'),
    ...withoutIndexer('AttentionGroup', declaredMembers('AttentionGroup'))].filter((k) => k !== 'window').sort());
  // 32 layers x 2 x 20 heads x 64 x 2 B = 163,840 B a token (the self-attention only).
  assert.equal(r.bytesPerToken, 32 * 2 * 20 * 64 * 2);
  const t = kv.table([whisper], { contexts: [256], maxNumEncoderInputTokens: 1500 });
  assert.deepEqual(Object.keys(t.rows[0]).sort(), declaredMembers('TableRow'));
  assert.equal(t.rows[0].encoderTokens, 1500);
  assert.equal(t.rows[0].kvBytes[0], 163_840 * (256 + 1500));  // the context's tokens and the encoder's
});

test('a model with an indexer\'s keys has the indexer members (from the native CLI\'s report, the API\'s JSON)', () => {
  const fixtures = join(root, 'tests', 'fixtures', 'configs');
  const m3 = camelDeep(cliSize(join(fixtures, 'reconstructed', 'nvidia--MiniMax-M3-NVFP4-written.json'), ['--context', '8192']));
  assert.deepEqual(Object.keys(m3).sort(), withoutEncoderDecoder('SizeReport'));
  assert.equal(m3.indexerKvDtype, 'bf16');
  const common = withoutEncoderDecoder('GroupFigures');
  const sparse = m3.groups.find((g) => g.indexerBytes);
  assert.deepEqual(Object.keys(sparse).sort(), [...common, ...declaredMembers('AttentionGroup')].filter((k) => k !== 'window').sort());
  const v32 = camelDeep(cliSize(join(fixtures, 'deepseek-ai--DeepSeek-V3.2.json'), ['--context', '4096']));
  assert.deepEqual(Object.keys(v32.groups[0]).sort(), [...common, ...declaredMembers('MlaGroup')].sort());
  assert.ok(!('indexerKvDtype' in v32));  // its keys are fixed fp8 bytes, whatever the option
});

test('the llama.cpp interfaces have exactly the keys of real llama.cpp results', async () => {
  const { kv } = await loadDist();
  const members = (...names) => names.flatMap((n) => declaredMembers(n)).sort();
  const optional = (name) => declaredMembers(name, { optional: true });
  const r = kv.size('openai/gpt-oss-20b', { engine: 'llamacpp', context: 131_072 });
  assert.deepEqual(Object.keys(r).sort(), declaredMembers('LlamacppSizeReport'));
  // ollamaVersion: engine ollama only.
  assert.deepEqual(Object.keys(r.llamacpp).sort(), declaredMembers('LlamacppAllocation').filter((k) => k !== 'ollamaVersion'));
  assert.ok('ollamaVersion' in kv.size('openai/gpt-oss-20b', { engine: 'ollama' }).llamacpp);
  const cacheKeys = members('LlamacppMemory').filter((k) => !['rType', 'sType', 'rBytes', 'sBytes'].includes(k));
  for (const m of r.llamacpp.memory) assert.deepEqual(Object.keys(m).sort(), cacheKeys);
  const hybrid = kv.size('Qwen/Qwen3-Next-80B-A3B-Instruct', { engine: 'llamacpp', context: 4096 });
  const state = hybrid.llamacpp.memory.find((m) => m.cache === 'recurrent');
  assert.deepEqual(Object.keys(state).sort(), members('LlamacppMemory').filter((k) => !['kType', 'vType', 'kBytes', 'vBytes'].includes(k)));
  assert.deepEqual(optional('LlamacppMemory').sort(), ['kBytes', 'kType', 'rBytes', 'rType', 'sBytes', 'sType', 'vBytes', 'vType']);
  const rows = members('LlamacppGroupFigures', 'LlamacppCellRows');
  const groups = [
    [r.groups.find((g) => g.kind === 'sliding_window'), [...rows, ...declaredMembers('LlamacppAttentionGroup')]],
    [r.groups.find((g) => g.kind === 'full_attention'), [...rows, ...declaredMembers('LlamacppAttentionGroup').filter((k) => k !== 'window')]],
    [kv.size('deepseek-ai/DeepSeek-V2-Lite', { engine: 'llamacpp', context: 4096 }).groups[0], [...rows, ...declaredMembers('LlamacppMlaGroup')]],
    [hybrid.groups.find((g) => g.kind === 'linear_state'), [...members('LlamacppGroupFigures'), ...declaredMembers('LlamacppStateGroup')]],
    [kv.size('nvidia/Nemotron-H-56B-Base-8K', { engine: 'llamacpp', context: 4096 }).groups.find((g) => g.kind === 'no_cache'),
      [...members('LlamacppGroupFigures'), ...declaredMembers('LlamacppNoCacheGroup')]],
  ];
  for (const [g, expected] of groups) assert.deepEqual(Object.keys(g).sort(), [...new Set(expected)].sort(), g.kind);
  const c = kv.check('Qwen/Qwen3-8B', { engine: 'llamacpp', context: 65_536, maxContext: 32_768 });
  assert.deepEqual(Object.keys(c).sort(), declaredMembers('LlamacppCheckReport'));
  assert.deepEqual(Object.keys(kv.model('Qwen/Qwen3-8B').figures({ engine: 'llamacpp' })).sort(), declaredMembers('SizeFigures'));
});
