// The JavaScript example on the site's reference page (site/snippets/api-model.mjs) runs
// against the built package and prints what the page says it prints.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { dist, root } from './support.mjs';

test('the reference page\'s model() and series() example prints its figures', () => {
  const snippet = readFileSync(join(root, 'site/snippets/api-model.mjs'), 'utf8');
  assert.ok(snippet.includes("from 'kvcalc'"));
  const dir = mkdtempSync(join(tmpdir(), 'kvcalc-snippet-'));
  try {
    const file = join(dir, 'example.mjs');
    writeFileSync(file, snippet.replace("from 'kvcalc'", `from ${JSON.stringify(pathToFileURL(join(dist, 'kvcalc.js')).href)}`));
    const lines = execFileSync(process.execPath, [file], { encoding: 'utf8' }).trim().split('\n');
    assert.deepEqual(lines, [
      // Qwen2.5-7B-Instruct: 28 layers x 2 x 4 KV heads x 128 x 2 B = 57,344 B per token; x 32,768.
      String(57_344 * 32_768),
      // Mistral-7B: 2 x 32 layers x d KV heads x 128 x 2 B per token, kept for the window's 4,096 tokens.
      `{"kvHeads":1} MQA, sliding window 16384 ${16_384 * 4096}`,
      `{"kvHeads":8} GQA, sliding window 131072 ${131_072 * 4096}`,
      `{"kvHeads":32} MHA, sliding window 524288 ${524_288 * 4096}`,
      // The MLA point: 32 x (512 + 64) x 2 B = 36,864 B per token, no window: x 32,768.
      `"mla" MLA 36864 ${36_864 * 32_768}`,
      // The chart: the window caps every context at 4,096 tokens; fp8 halves the bytes.
      `auto ${Array(3).fill(131_072 * 4096).join(' ')}`,
      `fp8 ${Array(3).fill(65_536 * 4096).join(' ')}`,
      'fp8_ds_mla kvDtype fp8_ds_mla applies only to MLA layers, and this model has none',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
