// The JS API's figures: the raw and gzip size of every dist/ file (and of what a page
// loads), the cold load() time in a fresh Node process, and the per-call time of size()
// (and check(), and a model's figures()) on real configs, as the median over many calls.
// Run: node bench/api.bench.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadsReport, pageLoads } from '../scripts/page-loads.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const configs = join(root, '..', 'shared', 'configs');
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

console.log('# JS API (dist/)');
const loads = pageLoads(dist);
for (const { file, raw, gzip } of loads.files) {
  console.log(`${file.padEnd(24)} raw ${String(raw).padStart(7)}  gzip ${String(gzip).padStart(6)}${file.endsWith('.d.ts') ? '  (types)' : ''}`);
}
// What a page fetches, before any element is near the viewport and with one element of each
// view, baked and not, against DESIGN.md's budgets (scripts/page-loads.mjs).
for (const line of loadsReport(loads)) console.log(line);
const gzipOf = (views) => Object.fromEntries(Object.entries(views).map(([v, x]) => [v, x.gzip]));
const bytes = {
  before_viewport_gzip: loads.beforeViewport.gzip, before_viewport_baked_gzip: loads.beforeViewportBaked.gzip,
  views_gzip: gzipOf(loads.views), baked_views_gzip: gzipOf(loads.bakedViews),
  over_budget: [...Object.entries(loads.views), ...Object.entries(loads.bakedViews).map(([v, x]) => [`${v} (baked)`, x])]
    .filter(([, x]) => x.gzip > x.budget).map(([v, x]) => ({ view: v, gzip: x.gzip, budget: x.budget })),
};

// Cold load: a fresh process each time, from import to the resolved load() (compiling the wasm).
const coldScript = `
  const t0 = performance.now();
  const { readFileSync } = await import('node:fs');
  const kvcalc = await import(${JSON.stringify(join(dist, 'kvcalc.js'))});
  await kvcalc.load({ wasmBinary: readFileSync(kvcalc.wasmUrl) });
  const t1 = performance.now();
  kvcalc.size('Qwen/Qwen3-8B');
  console.log(JSON.stringify([t1 - t0, performance.now() - t1]));`;
const colds = Array.from({ length: 7 }, () => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', coldScript], { encoding: 'utf8' })));
console.log(`load average ${(await import('node:os')).loadavg()[0].toFixed(1)} on ${(await import('node:os')).availableParallelism()} cores`);
console.log(`cold load() in Node: median ${median(colds.map((c) => c[0])).toFixed(1)} ms over ${colds.length} processes; ` +
  `first size() after it ${median(colds.map((c) => c[1])).toFixed(2)} ms`);

const kvcalc = await import(join(dist, 'kvcalc.js'));
const kv = await kvcalc.load({ wasmBinary: readFileSync(kvcalc.wasmUrl) });
// Wall time per call (median of batches) and CPU time per call (this process's user +
// system time over all calls: steadier than wall time when other work shares the cores).
const perCall = (fn) => {
  for (let i = 0; i < 50; i++) fn(); // warm up
  const batch = 10;
  const samples = [];
  const cpu = process.cpuUsage();
  for (let s = 0; s < 200; s++) {
    const t = performance.now();
    for (let i = 0; i < batch; i++) fn();
    samples.push((performance.now() - t) / batch);
  }
  const used = process.cpuUsage(cpu);
  return { wall: median(samples), cpu: (used.user + used.system) / 1000 / (200 * batch) };
};
const us = ({ wall, cpu }) => `${(wall * 1000).toFixed(0).padStart(5)} us per call (cpu ${(cpu * 1000).toFixed(0)} us)`;
const cases = [
  ['Qwen2.5-7B-Instruct (GQA)', 'Qwen--Qwen2.5-7B-Instruct.json'],
  ['DeepSeek-V3 (MLA)', 'deepseek-ai--DeepSeek-V3.json'],
  ['gpt-oss-120b (sliding + full)', 'openai--gpt-oss-120b.json'],
  ['Nemotron-H-56B (Mamba hybrid)', 'nvidia--Nemotron-H-56B-Base-8K.json'],
];
for (const [name, file] of cases) {
  const text = readFileSync(join(configs, file), 'utf8');
  const ms = perCall(() => kv.size(text, { context: 4096 }));
  console.log(`size() ${name.padEnd(32)} ${us(ms)}, median of 200 x 10, config text ${text.length} B`);
}
const preset = perCall(() => kv.size('Qwen/Qwen2.5-7B-Instruct'));
console.log(`size() preset Qwen/Qwen2.5-7B-Instruct    ${us(preset)}`);
const checkMs = perCall(() => kv.check('Qwen/Qwen3-8B', { maxContext: 1_048_576, poolTokens: 681_280 }));
console.log(`check() Qwen3-8B, pool tokens          ${us(checkMs)}`);
// A sliding-window model on a GPU: the check goes by bytes and searches for the safe context.
const bytesMs = perCall(() => kv.check('openai/gpt-oss-120b', { maxContext: 131_072, gpu: 'h100-80gb' }));
console.log(`check() gpt-oss-120b, H100 (by bytes) ${us(bytesMs)}`);
const bad = perCall(() => { try { kv.size('{"num_hidden_layers": 32,'); } catch { /* KvCalcError */ } });
console.log(`size() malformed JSON (KvCalcError)    ${us(bad)}`);

// Parse once: a config seen before is not read again (target at most 20 us in wasm).
const qwen = readFileSync(join(configs, 'Qwen--Qwen2.5-7B-Instruct.json'), 'utf8');
const seen = perCall(() => kv.size(qwen, { context: 4096 }));
console.log(`size() of a config already seen       ${us(seen)}  (target <= 20 us)`);
// A config never seen: 300 texts that differ in one value, more than the API and the core keep.
let n = 0;
const fresh = perCall(() => kv.size(qwen.replace('"max_position_embeddings": 32768', `"max_position_embeddings": ${32768 + (n++ % 300)}`), { context: 4096 }));
console.log(`size() of a config never seen         ${us(fresh)}`);
const model = kv.model(qwen);
const viaModel = perCall(() => model.size({ context: 4096 }));
console.log(`kv.model(config).size()               ${us(viaModel)}`);
// A live view's figures: size()'s headline numbers with no report text (target at most 20 us).
// At the same context each call, and at a new one each call (1,000 contexts in turn: more
// than the core keeps reports of, so size() builds every report afresh).
const viaFigures = perCall(() => model.figures({ context: 4096 }));
console.log(`kv.model(config).figures()            ${us(viaFigures)}  (target <= 20 us)`);
let c = 0;
const sizeNew = perCall(() => model.size({ context: 1024 + (c++ % 1000) }));
console.log(`kv.model(config).size() new context   ${us(sizeNew)}`);
const figuresNew = perCall(() => model.figures({ context: 1024 + (c++ % 1000) }));
console.log(`kv.model(config).figures() new context ${us(figuresNew)}  (target <= 20 us)`);
// A chart's worth of points in one call: 1,000 contexts (target at most 1 ms in wasm).
const thousand = Array.from({ length: 1000 }, (_, i) => 1024 * (i + 1));
const series1k = perCall(() => model.series({}, { contexts: thousand }));
console.log(`series() of 1,000 points              ${us(series1k)}  (target <= 1,000 us)`);
const chartLike = perCall(() => model.series({}, { contexts: thousand.slice(0, 334), kvDtypes: ['auto', 'fp8', 'int4'] }));
console.log(`series() 334 contexts x 3 KV dtypes   ${us(chartLike)}`);
const mistral = kv.model('mistralai/Mistral-7B-v0.1');
const gqa = perCall(() => mistral.series({ context: 32_768 }, { variants: [1, 2, 4, 8, 16, 32].map((d) => ({ kvHeads: d })).concat(['mla']) }));
console.log(`series() of the GQA view (7 variants) ${us(gqa)}`);
const micro = (x) => +(x.wall * 1000).toFixed(1);
console.log(`BENCH_JSON ${JSON.stringify({ api: { ...bytes, size_seen_us: micro(seen), size_fresh_us: micro(fresh), model_size_us: micro(viaModel),
  model_size_new_context_us: micro(sizeNew), model_figures_us: micro(viaFigures), model_figures_new_context_us: micro(figuresNew),
  series_1000_us: micro(series1k), series_gqa_us: micro(gqa) } })}`);
