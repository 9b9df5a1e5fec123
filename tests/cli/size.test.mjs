// kvcalc size as a user runs it: every shared config, the plain formula output, exit codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectedConfigs, expectedFixtures, repoRoot, configsDir } from '../expected/expected.mjs';

const kvcalc = process.env.KVCALC || join(repoRoot, process.env.KVCALC_BUILD_DIR || 'build', 'kvcalc');
const run = (args, input) => spawnSync(kvcalc, args, { input, encoding: 'utf8' });
const json = (args, input) => {
  const r = run([...args, '--json'], input);
  return { ...r, out: JSON.parse(r.stdout) };
};

test('every fixture config (tests/fixtures/): its figures at two contexts and tp 8, or its refusal by name', () => {
  const all = expectedFixtures();
  assert.ok(all.length >= 29, String(all.length));
  for (const e of all) {
    if (e.refused) {
      const r = json(['size', e.path]);
      assert.equal(r.status, 1, e.file);
      assert.deepEqual(r.out.error, e.refused, e.file);
      continue;
    }
    const encoder = e.encoderTokens === undefined ? [] : ['--max-num-encoder-input-tokens', String(e.encoderTokens)];
    for (const at of e.ats) {
      const a = json(['size', e.path, '--context', String(at.context), ...encoder]);
      assert.equal(a.status, 0, `${e.file}: ${a.stderr}`);
      assert.equal(a.out.bytes_per_token, e.bytesPerToken, e.file);
      assert.deepEqual([a.out.sequence_bytes_naive, a.out.sequence_bytes_resident, a.out.sequence_bytes_vllm, a.out.state_bytes],
        [at.naive, at.resident, at.vllm, at.state], `${e.file} at ${at.context}`);
    }
    const t = json(['size', e.path, '--context', '4096', '--tp', '8', ...encoder]);
    if (e.tp8.refused) {
      assert.equal(t.status, 1, e.file);
      assert.equal(t.out.error.field, e.tp8.refused.field, e.file);
    } else {
      assert.equal(t.out.kv_bytes_per_gpu, e.tp8.kvBytesPerGpu, `${e.file} at tp 8`);
    }
  }
});

test('every shared config: bytes per token and the three figures at 4,096 and at max context', () => {
  const all = expectedConfigs();
  assert.equal(all.length, 30);
  for (const e of all) {
    const a = json(['size', e.path, '--context', '4096']);
    assert.equal(a.status, 0, `${e.file}: ${a.stderr}`);
    assert.equal(a.out.bytes_per_token, e.bytesPerToken, e.file);
    assert.deepEqual([a.out.sequence_bytes_naive, a.out.sequence_bytes_resident, a.out.sequence_bytes_vllm, a.out.state_bytes],
      [e.at4096.naive, e.at4096.resident, e.at4096.vllm, e.at4096.state], e.file);
    const m = run(['size', e.path, '--json']);
    if (!e.atMax) {
      assert.equal(m.status, 1, e.file);
      assert.equal(JSON.parse(m.stdout).error.field, 'context');
      continue;
    }
    const out = JSON.parse(m.stdout);
    assert.equal(out.context, e.atMax.context, e.file);
    assert.deepEqual([out.sequence_bytes_naive, out.sequence_bytes_resident, out.sequence_bytes_vllm, out.state_bytes],
      [e.atMax.naive, e.atMax.resident, e.atMax.vllm, e.atMax.state], e.file);
  }
});

test('--json carries the keys DESIGN.md lists', () => {
  const { out } = json(['size', join(configsDir, 'Qwen--Qwen2.5-7B-Instruct.json'), '--context', '32768', '--batch', '2']);
  for (const k of ['model', 'bytes_per_token', 'bytes_per_token_per_gpu', 'context', 'batch', 'kv_dtype', 'accounting',
    'sequence_bytes_naive', 'sequence_bytes_resident', 'sequence_bytes_vllm', 'state_bytes', 'kv_bytes',
    'kv_bytes_per_gpu', 'layers', 'warnings', 'groups']) assert.ok(k in out, k);
  assert.equal(out.kv_bytes, 2 * 57344 * 32768);  // 2 x 1.75 GiB = 3,758,096,384
  assert.equal(out.kv_dtype, 'bf16');
  assert.equal(out.layers.full_attention, 28);
  assert.equal(out.groups[0].head_dim.source, 'hidden_size 3584 / num_attention_heads 28');
});

test('the plain output shows the formula with the numbers and their sources', () => {
  const r = run(['size', join(configsDir, 'Qwen--Qwen2.5-7B-Instruct.json'), '--context', '32768']);
  assert.equal(r.status, 0);
  assert.match(r.stdout, /2 \(K and V\) x 28 layers x 4 KV heads x 128 head size x 2 B = 57,344 B\n/);
  assert.match(r.stdout, /KV heads num_key_value_heads; head size hidden_size 3584 \/ num_attention_heads 28\n/);
  assert.match(r.stdout, /total: 57,344 B \(56 KiB\) per token/);
  assert.match(r.stdout, /naive {5}1,879,048,192 B \(1\.75 GiB\)/);
  const mla = run(['size', 'deepseek-ai/DeepSeek-V3', '--context', '4096']);
  assert.match(mla.stdout, /61 layers x 576 latent x 2 B = 70,272 B/);
  assert.match(mla.stdout, /latent kv_lora_rank 512 \+ qk_rope_head_dim 64/);
  assert.match(mla.stderr, /warning: num_nextn_predict_layers: 1 multi-token-prediction layer\(s\) not counted/);
  // fp8_ds_mla stores one 656 B entry per token per MLA layer, not latent x bytes per element.
  const ds = run(['size', 'deepseek-ai/DeepSeek-V3', '--context', '4096', '--kv-dtype', 'fp8_ds_mla']);
  assert.equal(ds.status, 0);
  assert.match(ds.stdout, /61 layers x 656 B per token per layer = 40,016 B\n/);  // 61 x 656
  assert.match(ds.stdout, /656 B fixed by kv_dtype fp8_ds_mla\n/);
  assert.doesNotMatch(ds.stdout, /latent x/);
  assert.match(ds.stdout, /total: 40,016 B \(39\.08 KiB\) per token/);
  const swa = run(['size', 'mistralai/Mistral-7B-v0.1', '--context', '32768']);
  assert.match(swa.stdout, /keeps at most 4,096 tokens \(sliding_window\)/);
  assert.match(swa.stdout, /resident {2}536,870,912 B \(512 MiB\)/);
  assert.match(swa.stdout, /vllm {6}1,612,709,888 B \(1\.5 GiB\)/);
});

test('CONFIG may be a path, - for stdin, or a preset id, all with the same answer', () => {
  const path = join(configsDir, 'Qwen--Qwen3-8B.json');
  const a = json(['size', path, '--context', '4096']).out;
  const b = json(['size', '-', '--context', '4096'], readFileSync(path)).out;
  const c = json(['size', 'Qwen/Qwen3-8B', '--context', '4096']).out;
  assert.equal(a.bytes_per_token, 147456);  // 2 x 36 x 8 x 128 x 2
  assert.equal(b.kv_bytes, a.kv_bytes);
  assert.equal(c.kv_bytes, a.kv_bytes);
  assert.equal(c.model, 'Qwen/Qwen3-8B');
});

test('exit codes: 1 bad input with the error on stderr (and as JSON with --json), 2 usage', () => {
  const bad = run(['size', '-', '--context', '4096'], '{"num_hidden_layers": 32,,}');
  assert.equal(bad.status, 1);
  assert.equal(bad.stderr, "kvcalc: malformed JSON at line 1, column 26: syntax error while parsing object key - unexpected ','; expected string literal\n");
  const badJson = json(['size', '-'], '{"num_hidden_layers": 0, "hidden_size": 64, "num_attention_heads": 4}');
  assert.equal(badJson.status, 1);
  assert.deepEqual(badJson.out, { error: { code: 'invalid_value', field: 'num_hidden_layers',
    message: 'num_hidden_layers: must be a positive integer, got 0' } });
  const missing = run(['size', '/nonexistent/config.json']);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /"\/nonexistent\/config.json" is neither a readable file nor a bundled preset id/);
  assert.equal(run(['size']).status, 2);
  assert.equal(run(['size', 'Qwen/Qwen3-8B', '--bogus']).status, 2);
  assert.equal(run(['frobnicate']).status, 2);
  // --help after a command is the usage, as before one, and succeeds.
  for (const args of [['--help'], ['size', '--help'], ['check', 'Qwen/Qwen3-8B', '-h'], ['table', '--help']]) {
    const help = run(args);
    assert.equal(help.status, 0, args.join(' '));
    assert.match(help.stderr, /usage: kvcalc size CONFIG/);
    assert.doesNotMatch(help.stderr, /unknown option/);
  }
  const notNumber = run(['size', 'Qwen/Qwen3-8B', '--context', '4k']);
  assert.equal(notNumber.status, 1);
  assert.equal(notNumber.stderr, 'kvcalc: --context: must be a whole number, got "4k"\n');
});

test('parallelism and accounting options reach the core', () => {
  const { out } = json(['size', 'meta-llama/Llama-3.1-70B', '--context', '8192', '--tp', '4', '--pp', '2',
    '--accounting', 'vllm', '--block-size', '32', '--kv-dtype', 'fp8']);
  assert.equal(out.tp, 4);
  assert.equal(out.accounting, 'vllm');
  assert.equal(out.bytes_per_token, 163840);          // 2 x 80 x 8 x 128 x 1 (fp8)
  assert.equal(out.bytes_per_token_per_gpu, 20480);   // 40 layers a stage x 2 x 2 heads x 128 x 1
  assert.equal(out.kv_bytes_per_gpu, 20480 * 8192);   // 8,192 tokens = 256 blocks of 32
});
