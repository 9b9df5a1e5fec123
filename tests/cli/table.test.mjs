// kvcalc table bakes a per-model table into docs at build time: exact Markdown, HTML that a
// page can include, CSV with exact integers, and every config string escaped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, configsDir } from '../expected/expected.mjs';

const kvcalc = process.env.KVCALC || join(repoRoot, process.env.KVCALC_BUILD_DIR || 'build', 'kvcalc');
const run = (args, input) => spawnSync(kvcalc, args, { input, encoding: 'utf8' });
const seeds = ['Qwen/Qwen2.5-7B-Instruct', 'mistralai/Mistral-7B-v0.1', 'Qwen/Qwen3-8B', 'Qwen/Qwen2.5-72B-Instruct',
  'meta-llama/Llama-2-7b-hf'];
const scratch = mkdtempSync(join(tmpdir(), 'kvcalc-table-'));
const renamed = (name) => {
  const config = JSON.parse(readFileSync(join(configsDir, 'Qwen--Qwen2.5-7B-Instruct.json'), 'utf8'));
  config._name_or_path = name;
  const p = join(scratch, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(p, JSON.stringify(config));
  return p;
};

// Per token: 2 x layers x KV heads x head size x 2 B (Llama-2 fp16); a sequence is that x
// the context, capped at Mistral's 4,096-token window; "—" past a model's max context.
test('the seed models as Markdown, exactly', () => {
  const r = run(['table', ...seeds]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, [
    '| Model | Attention | Layers | KV heads / query heads | Head size | Per token | 4K tokens | 32K tokens | 128K tokens | Weights |',
    '| --- | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |',
    '| Qwen/Qwen2.5-7B-Instruct | GQA | 28 | 4 / 28 | 128 | 56 KiB | 224 MiB | 1.75 GiB | — | 14.18 GiB (7.62B, bf16) |',
    '| mistralai/Mistral-7B-v0.1 | GQA, sliding window | 32 | 8 / 32 | 128 | 128 KiB | 512 MiB | 512 MiB | — | 13.49 GiB (7.24B, bf16) |',
    '| Qwen/Qwen3-8B | GQA | 36 | 8 / 32 | 128 | 144 KiB | 576 MiB | 4.5 GiB | — | 15.26 GiB (8.19B, bf16) |',
    '| Qwen/Qwen2.5-72B-Instruct | GQA | 80 | 8 / 64 | 128 | 320 KiB | 1.25 GiB | 10 GiB | — | 135.42 GiB (72.71B, bf16) |',
    '| meta-llama/Llama-2-7b-hf | MHA | 32 | 32 / 32 | 128 | 512 KiB | 2 GiB | — | — | 12.55 GiB (6.74B, fp16) |',
    '',
    'KV cache of one sequence, resident accounting, KV dtype auto; 1 KiB = 1024 B. — : beyond the model\'s max context.',
    '',
  ].join('\n'));
});

test('the seed models as HTML, exactly, one table a page can include', () => {
  const r = run(['table', ...seeds.slice(0, 2), '--contexts', '4096,32768', '--format', 'html']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, [
    '<table class="kvcalc-table">',
    '<caption>KV cache of one sequence, resident accounting, KV dtype auto; 1 KiB = 1024 B.</caption>',
    '<thead>',
    '<tr><th scope="col">Model</th><th scope="col">Attention</th><th scope="col">Layers</th><th scope="col">KV heads / query heads</th><th scope="col">Head size</th><th scope="col">Per token</th><th scope="col">4K tokens</th><th scope="col">32K tokens</th><th scope="col">Weights</th></tr>',
    '</thead>',
    '<tbody>',
    '<tr><th scope="row">Qwen/Qwen2.5-7B-Instruct</th><td>GQA</td><td>28</td><td>4 / 28</td><td>128</td><td>56 KiB</td><td>224 MiB</td><td>1.75 GiB</td><td>14.18 GiB (7.62B, bf16)</td></tr>',
    '<tr><th scope="row">mistralai/Mistral-7B-v0.1</th><td>GQA, sliding window</td><td>32</td><td>8 / 32</td><td>128</td><td>128 KiB</td><td>512 MiB</td><td>512 MiB</td><td>13.49 GiB (7.24B, bf16)</td></tr>',
    '</tbody>',
    '</table>',
    '',
  ].join('\n'));
});

test('a model name with markup is escaped in HTML, Markdown and CSV', () => {
  const evil = renamed('<img src=x onerror=alert(1)>');
  const html = run(['table', evil, '--format', 'html']);
  assert.equal(html.status, 0, html.stderr);
  assert.ok(!html.stdout.includes('<img'), html.stdout);
  assert.match(html.stdout, /<th scope="row">&lt;img src=x onerror=alert\(1\)&gt;<\/th>/);
  const md = run(['table', evil]);
  assert.ok(!md.stdout.includes('<img'), md.stdout);
  assert.match(md.stdout, /\n\| &lt;img src=x onerror=alert\(1\)&gt; \| GQA \|/);
  const pipes = renamed('a|b "c" & \'d\', e');
  const md2 = run(['table', pipes]);
  assert.match(md2.stdout, /\n\| a\\\|b "c" &amp; 'd', e \| GQA \|/);
  const html2 = run(['table', pipes, '--format', 'html']);
  assert.match(html2.stdout, /<th scope="row">a\|b &quot;c&quot; &amp; &#39;d&#39;, e<\/th>/);
  const csv = run(['table', pipes, '--format', 'csv']);
  assert.match(csv.stdout, /\r\n"a\|b ""c"" & 'd', e",GQA,28,/);
});

test('CSV and JSON carry the exact integers', () => {
  const csv = run(['table', 'Qwen/Qwen2.5-7B-Instruct', '--contexts', '4096,32768', '--format', 'csv']);
  assert.equal(csv.stdout,
    'model,attention_kind,layers,kv_heads,query_heads,head_size,bytes_per_token,kv_bytes_4096,kv_bytes_32768,param_count,weight_bytes,weight_dtype\r\n' +
    'Qwen/Qwen2.5-7B-Instruct,GQA,28,4,28,128,57344,234881024,1879048192,7615487488,15230974976,bf16\r\n');
  const j = run(['table', 'deepseek-ai/DeepSeek-V3', '--contexts', '4096', '--format', 'json']);
  const t = JSON.parse(j.stdout);
  assert.deepEqual(t.contexts, [4096]);
  assert.equal(t.rows[0].kv_bytes[0], 61 * 576 * 2 * 4096);  // MLA: 61 layers x 576 latent x 2 B x 4,096
  assert.equal(t.rows[0].weight_dtype, 'fp8');
  assert.equal(t.rows[0].param_count, 671026404352);
});

test('errors: unknown format, bad contexts, no config', () => {
  const fmt = run(['table', 'Qwen/Qwen3-8B', '--format', 'pdf']);
  assert.equal(fmt.status, 1);
  assert.match(fmt.stderr, /format: must be md, html, csv or json, got "pdf"/);
  const ctx = run(['table', 'Qwen/Qwen3-8B', '--contexts', '4096,x']);
  assert.equal(ctx.status, 1);
  assert.match(ctx.stderr, /contexts: must be positive whole numbers separated by commas/);
  const none = run(['table']);
  assert.equal(none.status, 2);
  const unknown = run(['table', 'Qwen/Qwen3-8B', 'no/such-model']);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /"no\/such-model" is neither a readable file nor a bundled preset id/);
});
