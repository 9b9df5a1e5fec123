// Standalone SVG figures: kv.svg() and `kvcalc svg` give the same bytes for the same input,
// byte for byte the golden files in tests/fixtures/svg/ (drawn by the element's own chart
// code), with the figures in <title> and <desc>, light and dark inside the file, and nothing
// that a reader's viewer would fetch.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDist, dist, root } from './support.mjs';

const golden = (name) => readFileSync(join(root, 'tests/fixtures/svg', name), 'utf8');
const cli = (args, input) => spawnSync(process.execPath, [join(dist, 'cli.mjs'), 'svg', ...args], { encoding: 'utf8', input });

let kv;
let KvCalcError;
before(async () => { ({ kv, kvcalc: { KvCalcError } } = await loadDist()); });

const CASES = [
  { file: 'qwen2.5-7b-context-32k.svg', config: 'Qwen/Qwen2.5-7B-Instruct', options: { context: 32768 }, args: ['--context', '32768'] },
  { file: 'qwen2.5-7b-check-1m-681280.svg', config: 'Qwen/Qwen2.5-7B-Instruct', options: { chart: 'check', maxContext: 1048576, poolTokens: 681280 },
    args: ['--chart', 'check', '--max-context', '1M', '--pool-tokens', '681280'] },
  { file: 'deepseek-v3-context-128k-fp8-tp8.svg', config: 'deepseek-ai/DeepSeek-V3', options: { context: 131072, kvDtype: 'fp8', tp: 8 },
    args: ['--context', '128K', '--kv-dtype', 'fp8', '--tp', '8'] },
  { file: 'qwen2.5-7b-gqa-32k.svg', config: 'Qwen/Qwen2.5-7B-Instruct', options: { chart: 'gqa', context: 32768 }, args: ['--chart', 'gqa', '--context', '32K'] },
  { file: 'deepseek-v3-gqa-128k.svg', config: 'deepseek-ai/DeepSeek-V3', options: { chart: 'gqa', context: 131072 }, args: ['--context', '131072', '--chart=gqa'] },
  // A sliding window (4,096 tokens a layer) against an MLA variant that keeps all 32,768:
  // the MLA point lies past the middle and its text, too long after it, has a line of its own.
  { file: 'mistral-7b-gqa-32k.svg', config: 'mistralai/Mistral-7B-v0.1', options: { chart: 'gqa', context: 32768 }, args: ['--chart', 'gqa', '--context', '32K'] },
];

test('kv.svg() and kvcalc svg print the golden files, byte for byte, every time', async () => {
  for (const c of CASES) {
    const a = await kv.svg(c.config, c.options);
    assert.equal(a, golden(c.file), c.file);
    assert.equal(await kv.svg(c.config, c.options), a, `${c.file}: the same again`);
    const r = cli([c.config, ...c.args]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, a, `${c.file}: the CLI`);
  }
});

test('the figures in words: <title> and <desc>', () => {
  const ctx = golden(CASES[0].file);
  assert.match(ctx, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 720 \d+" width="720" height="\d+" role="img" aria-labelledby="kvcalc-title kvcalc-desc">/);
  assert.match(ctx, /<title id="kvcalc-title">KV cache memory against context for Qwen\/Qwen2\.5-7B-Instruct<\/title>/);
  // 28 layers x 4 KV heads x 128 x 2 (K, V) x 2 B = 57,344 B per token; x 32,768 = 1.75 GiB.
  assert.match(ctx, /<desc id="kvcalc-desc">[^<]*auto \(bf16\): 57,344 B per token: 1\.75 GiB at 32,768 tokens\.[^<]*<\/desc>/);
  const check = golden(CASES[1].file);
  // The pool: 681,280 x 57,344 B = 39,067,402,240 B = 36.38 GiB; 681,280 / 1,048,576 = 0.65x.
  assert.match(check, /<title id="kvcalc-title">Qwen\/Qwen2\.5-7B-Instruct: 1,048,576 tokens advertised against a pool of 681,280 tokens<\/title>/);
  assert.match(check, /The pool 681,280 tokens × 57,344 B = 36\.38 GiB\. Does not fit: one 1,048,576-token request needs more than the pool \(max concurrency 0\.65x\)/);
  assert.match(check, /class="pool-line"/);
  assert.match(check, />advertised 1M<\/text>/);
  // DeepSeek-V3: 61 layers x (512 + 64) latent x 1 B (fp8) = 35,136 B per token, not split by TP.
  assert.match(golden(CASES[2].file), /fp8: 35,136 B per token/);
  // The GQA figure: 28 layers x d KV heads x 128 x 2 (K, V) x 2 B = 14,336 B x d per token, for
  // each divisor d of the 28 query heads; at 32,768 tokens d = 4 (configured) is 1.75 GiB, MHA
  // (d = 28) 12.25 GiB, 4 / 28 = 0.14x. MLA at DeepSeek-V3's 512 + 64: 28 x 576 x 2 B = 32,256 B.
  const gqa = golden(CASES[3].file);
  assert.match(gqa, /<title id="kvcalc-title">Qwen\/Qwen2\.5-7B-Instruct: KV cache at 32,768 tokens for each KV-head count, from MQA to MHA, and MLA<\/title>/);
  assert.match(gqa, /<desc id="kvcalc-desc">[^<]*1 KV head \(MQA\): 14,336 B per token, 448 MiB, 0\.04x of MHA; [^<]*4 KV heads \(GQA, configured\): 57,344 B per token, 1\.75 GiB, 0\.14x of MHA; [^<]*28 KV heads \(MHA\): 401,408 B per token, 12\.25 GiB, 1\.00x of MHA; MLA \(latent 576, as DeepSeek-V3: 512 \+ 64\): 32,256 B per token/);
  // One bar per divisor of 28 (1, 2, 4, 7, 14, 28), the configured one marked, and the MLA point.
  assert.equal(gqa.match(/<rect class="bar[ "]/g).length, 6);
  assert.equal(gqa.match(/<rect class="bar configured"/g).length, 1);
  assert.equal(gqa.match(/<circle class="pt mla"/g).length, 1);
  // The heads picture as the element draws it: 28 query heads, 4 KV heads, a link each.
  assert.equal(gqa.match(/<rect class="q"/g).length, 28);
  assert.equal(gqa.match(/<rect class="kvh"/g).length, 4);
  // DeepSeek-V3 expanded to heads: 61 layers x 128 x (192 + 128) x 2 B = 4,997,120 B per token
  // at MHA; its own latent: 61 x 576 x 2 B = 70,272 B.
  assert.match(golden(CASES[4].file), /128 KV heads \(MHA\): 4,997,120 B per token[^<]*MLA \(this model: latent 576\): 70,272 B per token/);
});

test('light and dark inside the file; no script, font, link or other address to fetch', () => {
  for (const c of CASES) {
    const s = golden(c.file);
    assert.match(s, /<style>svg\{--_fg:#1d2430;--_bg:#ffffff;[^}]*color-scheme:light\}@media \(prefers-color-scheme: dark\)\{svg\{--_fg:#e6e9ee;--_bg:#161a20;/, c.file);
    assert.doesNotMatch(s, /<script|@import|@font-face|url\(|href=|xlink|<image|<foreignObject/i, c.file);
    // Only the SVG namespace's own address.
    assert.deepEqual(s.match(/https?:\/\/[^"]+/g), ['http://www.w3.org/2000/svg'], c.file);
  }
});

test('text from a config is escaped; bad input is an error that names the option', async () => {
  const config = JSON.stringify({ _name_or_path: '<script>alert("x")</script> & co', num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, hidden_size: 256 });
  const s = await kv.svg(config, { context: 4096 });
  assert.ok(!s.includes('<script>'));
  assert.match(s, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; &amp; co/);
  await assert.rejects(kv.svg('Qwen/Qwen3-8B', { chart: 'pie' }),
    (e) => e instanceof KvCalcError && e.field === 'chart' && e.message === 'chart: must be one of context, gqa, check, got "pie"');
  const g = await kv.svg(config, { chart: 'gqa', context: 4096 });
  assert.ok(!g.includes('<script>'));
  assert.match(g, /<title id="kvcalc-title">&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; &amp; co: KV cache/);
  await assert.rejects(kv.svg('Qwen/Qwen3-8B', { chart: 'check', poolTokens: 1000 }), (e) => e instanceof KvCalcError && e.field === 'maxContext');
  await assert.rejects(kv.svg('Qwen/Qwen3-8B', { kvDtype: 'fp7' }), (e) => e instanceof KvCalcError && e.field === 'kvDtype');
  const bad = cli(['Qwen/Qwen3-8B', '--context', 'lots']);
  assert.equal(bad.status, 1);
  assert.equal(bad.stderr, 'kvcalc: --context: expected a whole number of tokens (or 4K, 128K, 1M), got "lots"\n');
  // Each error names the flags as the user typed them, never the API's names (poolTokens).
  const missing = cli(['Qwen/Qwen3-8B', '--chart', 'check', '--max-context', '32K']);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^kvcalc: svg --chart check needs --pool-tokens N\nusage: kvcalc svg CONFIG/);
  const noPool = cli(['Qwen/Qwen3-8B', '--chart', 'check']);
  assert.equal(noPool.status, 2);
  assert.match(noPool.stderr, /^kvcalc: svg --chart check needs --pool-tokens N and --max-context N\n/);
  // 36 layers x 8 KV heads x 128 x 2 x 2 B = 147,456 B a token for Qwen3-8B: x 2^50 tokens is
  // above 2^53 - 1 bytes.
  const huge = cli(['Qwen/Qwen3-8B', '--chart', 'check', '--max-context', '1125899906842624', '--pool-tokens', '681280']);
  assert.equal(huge.status, 1);
  assert.equal(huge.stderr, 'kvcalc: --max-context: the KV cache of 1,125,899,906,842,624 tokens in the full_attention layers exceeds ' +
    '2^53 - 1 bytes (8 PiB), the largest figure kvcalc reports exactly: check --max-context\n');
  const unknown = cli(['No/Such-Model']);
  assert.equal(unknown.status, 1);
  assert.equal(unknown.stderr, 'kvcalc: "No/Such-Model" is neither a readable file nor a bundled preset id (kvcalc presets lists them)\n');
  const fp7 = cli(['Qwen/Qwen3-8B', '--kv-dtype', 'fp8_ds_mla']);
  assert.equal(fp7.stderr, 'kvcalc: --kv-dtype: fp8_ds_mla applies only to MLA layers, and this model has none\n');
  const noConfig = cli([]);
  assert.equal(noConfig.status, 2);
  assert.match(noConfig.stderr, /usage: kvcalc svg CONFIG \[--chart context\|gqa\|check\]/);
  const pie = cli(['Qwen/Qwen3-8B', '--chart', 'pie']);
  assert.equal(pie.status, 1);
  assert.equal(pie.stderr, 'kvcalc: --chart: must be one of context, gqa, check, got "pie"\n');
  assert.equal(cli(['Qwen/Qwen3-8B', '--colour', 'red']).status, 2);
  // A config on stdin.
  const piped = cli(['-', '--context', '4096'], config);
  assert.equal(piped.status, 0, piped.stderr);
  assert.equal(piped.stdout, s);
});
