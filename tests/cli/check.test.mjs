// kvcalc check as a CI job runs it: exit 0 when the advertised context fits the pool,
// 3 when it does not, 1 for bad input, 2 for usage; pools given, parsed from logs, derived.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, configsDir } from '../expected/expected.mjs';

const kvcalc = process.env.KVCALC || join(repoRoot, process.env.KVCALC_BUILD_DIR || 'build', 'kvcalc');
const run = (args, input) => spawnSync(kvcalc, args, { input, encoding: 'utf8' });
const checkJson = (args, input) => {
  const r = run(['check', ...args, '--json'], input);
  return { ...r, out: JSON.parse(r.stdout) };
};
const scratch = mkdtempSync(join(tmpdir(), 'kvcalc-check-'));
const file = (name, text) => { const p = join(scratch, name); writeFileSync(p, text); return p; };

const scout = 'meta-llama/Llama-4-Scout-17B-16E-Instruct';  // advertises up to 10,485,760 tokens

test('the reference case: 1,048,576 advertised on a 681,280-token pool does not fit, exit 3', () => {
  const r = checkJson([scout, '--max-context', '1048576', '--pool-tokens', '681280']);
  assert.equal(r.status, 3, r.stderr);
  for (const k of ['pool_tokens', 'max_context', 'fits', 'max_concurrency', 'max_safe_context']) assert.ok(k in r.out, k);
  assert.equal(r.out.pool_tokens, 681280);
  assert.equal(r.out.max_context, 1048576);
  assert.equal(r.out.fits, false);
  assert.equal(r.out.max_concurrency, 0.65);  // 681,280 / 1,048,576 = 0.6497, printed %.2f as vLLM does
  assert.equal(r.out.max_concurrency_text, '0.65');
  assert.equal(r.out.max_safe_context, 681280);  // 42,580 whole blocks of 16
  assert.deepEqual(r.out.advice, [
    'Does not fit: one request of 1,048,576 tokens needs 65,536 blocks of 16 tokens; the pool has 42,580.',
    'Set --max-model-len 681280 (vLLM) / --context-length 681280 (SGLang), and advertise no more than 681,280 tokens.',
    'Test it: a prompt of 681,281 tokens must get an error (HTTP 400), not a 200.',
  ]);
  // --json carries the raw JSON text 0.65, not a float's long tail.
  assert.match(r.stdout, /"max_concurrency": 0\.65,/);
});

test('the plain report says what to set and what to test', () => {
  const r = run(['check', scout, '--max-context', '1048576', '--pool-tokens', '681280']);
  assert.equal(r.status, 3);
  assert.match(r.stdout, /^meta-llama\/Llama-4-Scout-17B-16E-Instruct: vllm pool 681,280 tokens \(pool_tokens\)\n/);
  assert.match(r.stdout, /\nDOES NOT FIT: one request of 1,048,576 tokens needs 65,536 blocks of 16 tokens; the pool has 42,580\n/);
  assert.match(r.stdout, /\nmax concurrency 0\.65x\n/);
  assert.match(r.stdout, /\nmax safe context 681,280 tokens \(the pool of 681,280 tokens in whole 16-token blocks\)\n/);
  assert.match(r.stdout, /  - Set --max-model-len 681280 \(vLLM\) \/ --context-length 681280 \(SGLang\)/);
  assert.match(r.stdout, /  - Test it: a prompt of 681,281 tokens must get an error \(HTTP 400\), not a 200\.\n/);
});

test('a context that fits exits 0; block rounding of the safe context', () => {
  const fits = checkJson([scout, '--max-context', '681280', '--pool-tokens', '681290']);
  assert.equal(fits.status, 0, fits.stderr);
  assert.equal(fits.out.fits, true);
  assert.equal(fits.out.max_safe_context, 681280);  // 681,290 rounds down to 42,580 blocks of 16
  const big = checkJson([scout, '--max-context', '681280', '--pool-tokens', '681290', '--block-size', '64']);
  assert.equal(big.out.max_safe_context, 681280);    // 10,645 blocks of 64
  assert.equal(big.out.blocks_available, 10645);
  const over = checkJson([scout, '--max-context', '681281', '--pool-tokens', '681290', '--block-size', '64']);
  assert.equal(over.status, 3);                       // needs 10,646 blocks
  // Capped at the model's own max: Qwen2.5-7B stops at 32,768.
  const capped = checkJson(['Qwen/Qwen2.5-7B-Instruct', '--max-context', '32768', '--pool-tokens', '681280']);
  assert.equal(capped.status, 0);
  assert.equal(capped.out.max_safe_context, 32768);
});

test('a vLLM log file: pool and advertised context both from the log', () => {
  const log = file('vllm.log', [
    'INFO 05-12 10:30:41 [__init__.py:239] Automatically detected platform cuda.',
    'INFO 05-12 10:30:58 [core.py:455] Initializing a V1 LLM engine (v0.9.1) with config: model=\'meta-llama/Llama-4-Scout-17B-16E-Instruct\', max_seq_len=1048576, tensor_parallel_size=8',
    '(VllmWorker rank=0 pid=2871) INFO 05-12 10:31:58 [gpu_worker.py:227] Available KV cache memory: 43.21 GiB',
    'INFO 05-12 10:31:02 [kv_cache_utils.py:716] GPU KV cache size: 681,280 tokens',
    'INFO 05-12 10:31:02 [kv_cache_utils.py:720] Maximum concurrency for 1,048,576 tokens per request: 0.65x',
    'INFO 05-12 10:31:30 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000',
  ].join('\n'));
  // tp 8 from the engine's config line; the lines were made up and do not agree with each other:
  // Scout's 4 KV cache groups make 43.21 GiB 471,913 to 472,023 blocks, a 6.88x pool, where the
  // engine printed 0.65x. The verdict follows the engine's own line, and the report says both.
  const r = checkJson([scout, '--engine-log', log]);
  assert.equal(r.status, 3, r.stderr);
  assert.equal(r.out.tp, 8);
  assert.equal(r.out.max_context, 1048576);
  assert.equal(r.out.fits, false);
  assert.equal(r.out.verdict_source, 'the engine\'s own verdict (line 5: maximum concurrency 0.65x)');
  assert.equal(r.out.max_concurrency_text, r.out.log.max_concurrency_text);
  assert.deepEqual(r.out.cross_checks.map((c) => [c.figure, c.agree]),
    [['GPU KV cache size', false], ['concurrency', false], ['verdict', false]]);
  assert.match(r.out.cross_checks[1].kvcalc, /^6\.88x \(num_blocks \/ blocks per request, 68,608 blocks per request\), from 471,913 to 472,023 blocks/);
  assert.equal(r.out.log.understood.length, 6);  // version, tp, max_seq_len, memory, tokens, concurrency
  assert.match(r.stderr, /warning: verdict_from: 3 of the engine's printed figures disagree with kvcalc's derivation/);
});

test('an SGLang log on stdin', () => {
  const log = [
    '[2025-06-10 14:02:19 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=63.05 GB, mem usage=15.49 GB.',
    '[2025-06-10 14:02:20 TP0] KV Cache is allocated. #tokens: 386961, K size: 26.57 GB, V size: 26.57 GB',
    '[2025-06-10 14:02:24 TP0] max_total_num_tokens=386961, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=4096, context_len=40960, available_gpu_mem=7.98 GB',
  ].join('\n');
  const r = checkJson(['Qwen/Qwen3-8B', '--engine-log', '-', '--max-context', '524288'], log);
  assert.equal(r.status, 3);
  assert.equal(r.out.engine, 'sglang');
  assert.equal(r.out.block_size, 1);          // SGLang's page size
  assert.equal(r.out.max_safe_context, 40960);  // the pool holds 386,961 but the model stops at 40,960
  assert.match(r.out.advice.join('\n'), /SGLang starts anyway and caps each request at the pool/);
  assert.match(r.stderr, /warning: max_context: the engine logged a max context of 40,960/);
});

test('a memory-only log: tokens from the per-GPU bytes at the given tp', () => {
  const log = file('mem.log', 'INFO 05-12 10:31:58 [gpu_worker.py:227] Available KV cache memory: 43.21 GiB\n');
  // 43.21 GiB = 46,396,384,215 B / (16 x 81,920 B per token per GPU at tp 4) = 35,397 blocks.
  const r = checkJson(['meta-llama/Llama-3.1-70B', '--engine-log', log, '--tp', '4', '--max-context', '131072']);
  assert.equal(r.status, 0);
  assert.equal(r.out.pool_tokens, 566352);
  const tp1 = checkJson(['meta-llama/Llama-3.1-70B', '--engine-log', log, '--max-context', '131072']);
  assert.equal(tp1.out.pool_tokens, 141584);  // 327,680 B per token at tp 1: 8,849 blocks
  assert.match(tp1.stderr, /warning: tp: the logged KV memory is per GPU/);
});

test('a pool derived for Qwen2.5-72B on H100s: 8 users at 32K', () => {
  const four = checkJson(['Qwen/Qwen2.5-72B-Instruct', '--max-context', '32768', '--gpu', 'h100-80gb', '--tp', '4',
    '--concurrency', '8']);
  assert.equal(four.status, 0, four.stderr);
  assert.equal(four.out.weight_bytes, 145410768896);  // about 145 GB of bf16 weights
  assert.equal(four.out.pool_tokens, 463216);
  assert.deepEqual(four.out.pool.steps, [
    'GPU memory 84,943,715,696 B (79.11 GiB) (gpu h100-80gb, 79.11 GiB as CUDA reports it)',
    'x gpu_memory_utilization 0.9 (vLLM\'s default 0.9) = 76,449,344,126 B (71.2 GiB)',
    '- weights 36,354,670,592 B (33.86 GiB) per GPU (72.71B parameters, bf16, the busiest of tp 4 x pp 1 GPUs)',
    '- activation peak 1,610,612,736 B (1.5 GiB) (default 1.5 GiB)',
    '- non-torch memory 536,870,912 B (512 MiB) (default 0.5 GiB)',
    '= 37,947,189,886 B (35.34 GiB) for the KV cache per GPU',
    '/ (16 tokens x 81,920 B per token per GPU) = 28,951 whole blocks = 463,216 tokens',
  ]);
  // Two GPUs hold the weights but not 8 x 32K: exit 3.
  const two = checkJson(['Qwen/Qwen2.5-72B-Instruct', '--max-context', '32768', '--gpu', 'h100-80gb', '--tp', '2',
    '--concurrency', '8']);
  assert.equal(two.status, 3);
  assert.equal(two.out.pool_tokens, 9728);
  // One request fits, but 8 at once do not: still exit 3 for the gate.
  const eight = checkJson(['Qwen/Qwen2.5-72B-Instruct', '--max-context', '32768', '--gpu', 'h100-80gb', '--tp', '4',
    '--concurrency', '16']);
  assert.equal(eight.out.fits, true);
  assert.equal(eight.out.concurrency_fits, false);
  assert.equal(eight.status, 3);
  // The plain output shows the derivation.
  const plain = run(['check', 'Qwen/Qwen2.5-72B-Instruct', '--max-context', '32768', '--gpu', 'h100-80gb', '--tp', '4']);
  assert.match(plain.stdout, /\npool per GPU:\n  GPU memory 84,943,715,696 B/);
});

test('SGLang derivation with mem_fraction_static', () => {
  const r = checkJson(['Qwen/Qwen2.5-72B-Instruct', '--max-context', '32768', '--gpu', 'h100-80gb', '--tp', '4',
    '--mem-fraction-static', '0.88']);
  assert.equal(r.status, 0);
  assert.equal(r.out.engine, 'sglang');
  assert.equal(r.out.pool_tokens, 462145);  // (74,750,469,812 - 36,354,670,592 - 536,870,912) / 81,920
});

test('bad input exits 1 with the error object; usage exits 2', () => {
  const gpu = checkJson(['Qwen/Qwen3-8B', '--max-context', '4096', '--gpu', 'v100']);
  assert.equal(gpu.status, 1);
  assert.equal(gpu.out.error.field, 'gpu');
  const log = file('junk.log', 'hello\nworld\n');
  const junk = checkJson(['Qwen/Qwen3-8B', '--max-context', '4096', '--engine-log', log]);
  assert.equal(junk.status, 1);
  assert.equal(junk.out.error.code, 'unrecognised_log');
  assert.match(junk.out.error.message, /looked for vLLM's "GPU KV cache size: N tokens"/);
  const util = checkJson(['Qwen/Qwen3-8B', '--max-context', '4096', '--gpu', 'l40s', '--gpu-memory-utilization', '1.5']);
  assert.equal(util.status, 1);
  assert.equal(util.out.error.message, 'gpu_memory_utilization: must be at most 1, got "1.5"');
  const missing = run(['check', 'Qwen/Qwen3-8B', '--max-context', '4096']);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /check needs one pool/);
  const both = run(['check', 'Qwen/Qwen3-8B', '--max-context', '4096', '--pool-tokens', '1', '--gpu', 'l40s']);
  assert.equal(both.status, 2);
  const ctx = run(['check', 'Qwen/Qwen3-8B', '--pool-tokens', '4096']);
  assert.equal(ctx.status, 2);
  assert.match(ctx.stderr, /check needs --max-context N/);
  const num = checkJson(['Qwen/Qwen3-8B', '--max-context', '4k', '--pool-tokens', '4096']);
  assert.equal(num.status, 1);
  assert.equal(num.out.error.message, '--max-context: must be a whole number, got "4k"');
  const path = checkJson([join(configsDir, 'Qwen--Qwen3-8B.json'), '--max-context', '4096', '--pool-tokens', '4096']);
  assert.equal(path.status, 0);  // a config path works as well as a preset id
});

test('MiniMax-M3: the block vLLM sets and the indexer keys\' dtype read from the log, the pool checked in bytes', () => {
  // Lines in the shape vLLM 0.23.1rc1 prints them serving MiniMax-M3 on two GPUs (non-default args, the block it
  // sets for the sparse block, the indexer selection, the memory and the pool).
  const lines = (dtype) => [
    "INFO [api_utils.py:273] non-default args: {'max_model_len': 8192, 'tensor_parallel_size': 2}",
    'INFO [config.py:77] Setting KV cache block size to 128 to match MiniMax-M3 sparse block size (was 16).',
    `(Worker_TP0 pid=1) INFO [indexer.py:497] MiniMax M3 indexer: selected MSA (fmha_sm100 score + Triton top-k) [topk_blocks=16, indexer_kv_dtype=${dtype}]`,
    '(Worker_TP0 pid=1) INFO [gpu_worker.py:515] Available KV cache memory: 16.81 GiB',
    'INFO [kv_cache_utils.py:2146] GPU KV cache size: 237,312 tokens',
    'INFO [kv_cache_utils.py:2147] Maximum concurrency for 8,192 tokens per request: 28.97x',
  ].join('\n') + '\n';
  const m3 = join(repoRoot, 'tests', 'fixtures', 'configs', 'reconstructed', 'nvidia--MiniMax-M3-NVFP4-written.json');
  const bf16 = checkJson([m3, '--engine-log', file('m3-bf16.log', lines('bf16'))]);
  assert.equal(bf16.status, 0, bf16.stderr);
  assert.equal(bf16.out.block_size, 128);
  assert.equal(bf16.out.bytes_per_token_per_gpu, 76032);  // 60 x 2 x 2 x 128 x 2 + 57 x 128 x 2
  assert.equal(bf16.out.log_blocks.block_bytes_per_gpu, 9732096);  // 128 x 76,032
  // 16.81 GiB holds 1,854 or 1,855 such blocks: the engine's 237,312 tokens (1,854 x 128) and 28.97x (1,854 / 64).
  assert.deepEqual(bf16.out.cross_checks.map((c) => [c.figure, c.agree]),
    [['GPU KV cache size', true], ['concurrency', true], ['verdict', true]]);
  // The same memory with fp8 keys (57 x 128 B less a token) would hold 2,050 to 2,052 blocks.
  const fp8 = checkJson([m3, '--engine-log', file('m3-fp8.log', lines('fp8'))]);
  assert.equal(fp8.out.bytes_per_token_per_gpu, 68736);  // 60 x 2 x 2 x 128 x 2 + 57 x 128
  assert.deepEqual(fp8.out.cross_checks.map((c) => [c.figure, c.agree]),
    [['GPU KV cache size', false], ['concurrency', false], ['verdict', true]]);
  // The option wins over the log.
  const given = checkJson([m3, '--engine-log', file('m3-given.log', lines('fp8')), '--indexer-kv-dtype', 'bf16']);
  assert.equal(given.out.bytes_per_token_per_gpu, 76032);
  // Another --block-size is refused, naming the option.
  const b16 = checkJson([m3, '--engine-log', file('m3-b16.log', lines('bf16')), '--block-size', '16']);
  assert.equal(b16.status, 1);
  assert.equal(b16.out.error.field, 'block_size');
  // SGLang's pool of these keys was not read: refused by name.
  const sglang = checkJson([m3, '--max-context', '8192', '--pool-tokens', '100000', '--engine', 'sglang']);
  assert.equal(sglang.status, 1);
  assert.equal(sglang.out.error.field, 'engine');
  assert.match(sglang.out.error.message, /how SGLang pools the minimax_m3_sparse layers' indexer keys/);
});
