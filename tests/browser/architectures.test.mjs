// The site's Architectures page, generated at build time from the core's inventory
// (kvcalc architectures --json): it renders in Chromium with a row for every architecture,
// exact or refused as the core says, and the four cases of issue 16 read as the core reads them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kvcalc, openPage, servedSite } from './site-pages/support.mjs';

const site = servedSite('architectures.html');

test('the Architectures page shows the core inventory, row by row', async () => {
  const inventory = kvcalc(['architectures']);
  const { page } = await openPage(site.browser, `${site.base}/architectures.html`);
  const rows = await page.$eval('#inventory-caption', (c) => [...c.closest('table').querySelectorAll('tbody tr')].map((tr) =>
    [...tr.children].map((td) => td.textContent)));
  assert.equal(rows.length, inventory.architectures.length);
  assert.equal(rows.length, 273);
  const byName = new Map(rows.map((r) => [r[0], r]));
  for (const a of inventory.architectures) {
    const r = byName.get(a.architecture);
    assert.ok(r, a.architecture);
    assert.equal(r[2], a.support === 'exact' ? 'sized exactly' : 'refused', a.architecture);
    // The site keeps a number and its unit on one line ("584 B" with a no-break space).
    assert.equal(r[3], a.caches.replace(/(\d) (B|KiB|MiB|GiB)(?![A-Za-z])/g, '$1\u00a0$2'), a.architecture);
  }
  // Issue 16's four cases.
  assert.equal(byName.get('JambaForCausalLM')[2], 'sized exactly');
  assert.match(byName.get('FalconH1ForCausalLM')[3], /both a full-attention cache and a Mamba-2 state/);
  assert.equal(byName.get('FalconH1ForCausalLM')[2], 'sized exactly');
  assert.match(byName.get('DbrxForCausalLM')[3], /attn_config\.kv_n_heads/);
  assert.match(byName.get('Gemma2ForCausalLM')[3], /every other layer slides/);
  // Which published config of each family the tests size (fixtures and shared configs).
  assert.equal(byName.get('Gemma2ForCausalLM')[4], 'google/gemma-2-9b-it');
  assert.equal(byName.get('MambaForCausalLM')[4], 'state-spaces/mamba-2.8b-hf');
  assert.equal(byName.get('DbrxForCausalLM')[4], 'none yet: sized by its family\'s rule');
  // Falcon-H1's config in the tests is written from its published fields (reconstructed/): not counted.
  assert.equal(byName.get('FalconH1ForCausalLM')[4], 'none yet: sized by its family\'s rule');
  assert.match(byName.get('LlamaForCausalLM')[4], /^meta-llama\/[^,]+, [^,]+, [^,]+ and \d+ more$/);
  // 22 families had a published config in the tests before the second search, 20 more after it;
  // issue 24 sized MiMo-V2, Nemotron-NAS (both with published configs) and Rnj1 (none found), then
  // LFM2 (LFM2.5-VL-1.6B), Falcon-H1, Zamba2, MiniMax-Text-01 and MiniCPM3 (no published config found for those),
  // then the Omni thinkers, Aria, Chameleon, Molmo, Molmo2, PLaMo2, Bailing linear, Step-3, Step-3.5, LongCat-Flash and the Step vision wrappers (none found either),
  // then Ouro and IQuest-LoopCoder (configs written from their fields), then openPangu
  // (openPangu-Embedded-7B-V1.1), then HRM-Text, then PLaMo3, Cosmos3, Moondream3 and Unlimited-OCR (all written),
  // then MiniMax-M3 (written: nvidia/MiniMax-M3-NVFP4's config without its quantization_config); Whisper (openai/whisper-small); DiffusionGemma (written);
  // then Nemotron Parse (NVIDIA-Nemotron-Parse-v1.1) and Cohere ASR (written).
  assert.match(await page.$eval('#inventory + p', (p) => p.textContent), /a published config of 48 of the 124 families sized exactly/);
  assert.equal(byName.get('NemotronParseForConditionalGeneration')[4], 'nvidia/NVIDIA-Nemotron-Parse-v1.1');
  const heading = await page.$eval('#inventory', (h) => h.textContent);
  const exact = inventory.architectures.filter((a) => a.support === 'exact').length;
  assert.equal(heading, `Every architecture (273: ${exact} sized, ${273 - exact} refused)`);
  const defaults = await page.$$eval('#defaults-caption', (c) => c[0].closest('table').querySelectorAll('tbody tr').length);
  assert.equal(defaults, inventory.class_defaults.length);
  await page.close();
});
