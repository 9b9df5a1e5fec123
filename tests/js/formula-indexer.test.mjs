// formulaOf() on the native CLI's report of models with an indexer's keys beside the layer's cache: the terms
// still multiply to each group's bytes (the keys are a sum, so the layer's bytes are one term).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { formulaOf } from '../../web/api/formula.js';
import { camelDeep, cliSize, root } from './support.mjs';

const fixtures = join(root, 'tests', 'fixtures', 'configs');
const formula = (file, args) => formulaOf(camelDeep(cliSize(join(fixtures, file), args)));

test('MiniMax-M3: the sparse layers\' K and V and bf16 indexer keys, one term a layer', () => {
  const f = formula(join('reconstructed', 'nvidia--MiniMax-M3-NVFP4-written.json'), ['--context', '8192']);
  const [plain, sparse] = f.groups;
  assert.equal(plain.expression, '2 x 3 x 4 x 128 x 2');  // 6,144
  assert.equal(sparse.expression, '57 x 2304');  // 57 x (2 x 4 x 128 x 2 + 128 x 2) = 131,328
  assert.equal(sparse.bytes, 131_328);
  assert.equal(sparse.terms[1].name, 'bytes per token per layer');
  assert.match(sparse.terms[1].source, /^2048 B of K and V \+ 256 B of indexer keys \(text_config\.sparse_attention_config\.sparse_index_dim 128 x the bytes of indexer_kv_dtype\)$/);
  assert.equal(f.groups.reduce((s, g) => s + g.bytes, 0), f.report.bytesPerToken);  // 137,472
  const fp8 = formula(join('reconstructed', 'nvidia--MiniMax-M3-NVFP4-written.json'), ['--context', '8192', '--indexer-kv-dtype', 'fp8']);
  assert.equal(fp8.groups[1].expression, '57 x 2176');  // 2,048 + 128 x 1
});

test('DeepSeek-V3.2: the latent and the fixed fp8 indexer keys, one term a layer', () => {
  const f = formula('deepseek-ai--DeepSeek-V3.2.json', ['--context', '4096']);
  assert.equal(f.groups[0].expression, '61 x 1284');  // 61 x (576 x 2 + 128 + 128 / 128 x 4) = 78,324
  assert.match(f.groups[0].terms[1].source, /^1152 B of the latent \+ 132 B of indexer keys \(index_head_dim 128/);
  for (const g of f.groups) assert.equal(g.terms.reduce((p, t) => p * t.value, 1), g.bytes, g.name);
});
