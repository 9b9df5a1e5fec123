// kvcalc with engine llamacpp (ollama, lmstudio): every case of tests/expected/llamacpp.json through the
// CLI's flags (llama-server's names, --swa-full and --kv-unified as switches), the text output in the log's
// own shape, the check's slots, the table, and the errors for options of another engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { llamacppCases, repoRoot, configsDir } from '../expected/expected.mjs';

const kvcalc = process.env.KVCALC || join(repoRoot, process.env.KVCALC_BUILD_DIR || 'build', 'kvcalc');
const run = (args) => spawnSync(kvcalc, args, { encoding: 'utf8' });
const flags = (o) => Object.entries(o).flatMap(([k, v]) => {
  const f = `--${k.replace(/_/g, '-')}`;
  return v === true ? [f] : [f, String(v)];
});
const oss = join(configsDir, 'openai--gpt-oss-20b.json');

test('every llama.cpp case through the CLI flags', () => {
  const { cases } = llamacppCases();
  assert.ok(cases.length >= 15);
  for (const c of cases) {
    const r = run(['size', c.path, '--json', ...flags(c.options)]);
    assert.equal(r.status, 0, `${c.name}: ${r.stderr}`);
    const l = JSON.parse(r.stdout).llamacpp;
    assert.deepEqual([l.n_ctx, l.n_ctx_seq, l.n_stream], [c.nCtx, c.nCtxSeq, c.nStream], c.name);
    assert.deepEqual(l.memory.map((m) => ({ cache: m.cache, layers: m.layers, cells: m.cells, bytes: m.bytes })), c.memory, c.name);
    assert.equal(l.bytes, c.bytes, c.name);
  }
});

test('every llama.cpp refusal through the CLI: exit 1, the field named', () => {
  for (const e of llamacppCases().errors) {
    const r = run(['size', e.path, '--json', ...flags(e.options)]);
    assert.equal(r.status, 1, `${e.name}: ${r.stdout}`);
    const err = JSON.parse(r.stdout).error;
    assert.equal(err.field, e.field, e.name);
    if (e.message) assert.equal(err.message, e.message, e.name);
    assert.equal(r.stderr.split('\n')[0], `kvcalc: ${err.message}`);
  }
});

test('the text output prints each memory object in the log\'s own shape beside the exact bytes', () => {
  const r = run(['size', oss, '--engine', 'llamacpp', '--context', '131072', '--parallel', '1']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /llama_kv_cache: size = 3072\.00 MiB \(131072 cells, {2}12 layers, {2}1\/1 seqs\), K \(f16\): 1536\.00 MiB, V \(f16\): 1536\.00 MiB/);
  assert.match(r.stdout, /llama_kv_cache: size = {3}18\.00 MiB \( {3}768 cells, {2}12 layers, {2}1\/1 seqs\)/);
  // 12 x 768 x 2,048 B, and the rule that gave the cells
  assert.match(r.stdout, /18,874,368 B \(18 MiB\): 768 cells \(PAD\(min\(131072, 128 x 1 \+ 512\), 256\)\)/);
  assert.match(r.stdout, /llamacpp {2}3,240,099,840 B/);  // 12 x (131,072 + 768) x 2,048
});

test('--swa-full and --kv-unified are switches, and take =true / =false', () => {
  const full = JSON.parse(run(['size', oss, '--engine', 'llamacpp', '--context', '131072', '--parallel', '2', '--swa-full', '--json']).stdout);
  assert.equal(full.llamacpp.swa_full, true);
  assert.equal(full.llamacpp.memory[1].cells, 65536);  // the SWA layers keep n_ctx_seq
  const unified = JSON.parse(run(['size', oss, '--engine', 'llamacpp', '--context', '131072', '--parallel', '2', '--kv-unified', '--json']).stdout);
  assert.equal(unified.llamacpp.n_stream, 1);
  assert.equal(unified.llamacpp.memory[1].cells, 768);  // PAD(min(131072, 128 x 2 + 512), 256)
  const notUnified = JSON.parse(run(['size', oss, '--engine', 'llamacpp', '--context', '131072', '--kv-unified=false', '--json']).stdout);
  assert.equal(notUnified.llamacpp.n_stream, 4);  // llama-server's 4 slots, each its own stream
  const bad = run(['size', oss, '--engine', 'llamacpp', '--swa-full=yes']);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /--swa-full: must be true or false, got "yes"/);
});

test('check with engine llamacpp: the advertised context against a slot', () => {
  const fits = run(['check', oss, '--engine', 'llamacpp', '--context', '131072', '--max-context', '65536', '--json']);
  assert.equal(fits.status, 0);
  const f = JSON.parse(fits.stdout);
  assert.equal(f.slot_context, 131072);  // 4 unified slots share 131,072 cells
  assert.equal(f.max_concurrency, 2);
  const split = run(['check', oss, '--engine', 'llamacpp', '--context', '131072', '--parallel', '4', '--max-context', '65536']);
  assert.equal(split.status, 3, 'does not fit: exit 3');
  assert.match(split.stdout, /a slot holds 32,768 tokens/);
  assert.match(split.stdout, /Set -c 262144 = 65536 x 4/);
  const vllm = run(['check', oss, '--context', '4096', '--max-context', '4096', '--pool-tokens', '100000']);
  assert.equal(vllm.status, 1);
  assert.match(vllm.stderr, /context is llama\.cpp's -c/);
});

test('table with engine ollama: num_ctx columns, the note names the host', () => {
  const r = run(['table', oss, '--engine', 'ollama', '--contexts', '4096,32768', '--format', 'json']);
  assert.equal(r.status, 0, r.stderr);
  const t = JSON.parse(r.stdout);
  // num_ctx 4096: 12 x 4096 x 2048 + 12 x 768 x 2048
  assert.deepEqual(t.rows[0].kv_bytes, [12 * 4096 * 2048 + 12 * 768 * 2048, 12 * 32768 * 2048 + 12 * 768 * 2048]);
  assert.equal(t.accounting, 'llamacpp');
  const md = run(['table', oss, '--engine', 'ollama']).stdout;
  assert.match(md, /KV cache ollama allocates for a context \(-c\) of each column, llamacpp accounting, cache type f16/);
});

test('--help lists llama-server\'s flags from the options table', () => {
  const r = run(['--help']);
  for (const f of ['--parallel N', '--cache-type-k f32|f16|bf16|q8_0|q4_0|q4_1|q5_0|q5_1|iq4_nl', '--flash-attn on|off|auto',
    '[--swa-full]', '--ubatch-size N', '[--kv-unified]', '--llamacpp-build N', '--engine vllm|sglang|llamacpp|ollama|lmstudio']) {
    assert.ok(r.stderr.includes(f), f);
  }
});
