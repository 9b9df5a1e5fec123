// Node: npm install kvcalc (in a page: import from '/kvcalc/kvcalc.js', and load() fetches the wasm).
import { readFileSync } from 'node:fs';
import { load, wasmUrl } from 'kvcalc';

const kv = await load({ wasmBinary: readFileSync(wasmUrl) });

// One call, the CLI's report: bytes per token, per sequence, per GPU, the layer groups...
console.log(kv.size('Qwen/Qwen2.5-7B-Instruct', { context: 32768 }).kvBytes);

// A model read once, for many figures: here every KV-head count of Mistral-7B and the MLA
// point, at 32,768 tokens, in one call.
const mistral = kv.model('mistralai/Mistral-7B-v0.1');
const { series } = mistral.series({ context: 32768 }, {
  variants: [{ kvHeads: 1 }, { kvHeads: 8 }, { kvHeads: 32 }, 'mla'],
});
for (const s of series) {
  console.log(JSON.stringify(s.variant), s.attentionKind, s.bytesPerToken, s.kvBytes[0]);
}

// A chart's points: contexts x KV dtypes; a dtype the model cannot use has an error.
const chart = mistral.series({}, { contexts: [4096, 65536, 1048576], kvDtypes: ['auto', 'fp8', 'fp8_ds_mla'] });
for (const s of chart.series) console.log(s.kvDtype, s.error ? s.error.message : s.kvBytes.join(' '));
