// npm run bench: runs every benchmark and prints the figures; writes build/bench.json.
// Native and wasm sweeps of one million (model, context) evaluations, a plain-JS baseline
// of the bare formula over the same pairs, then every bench/*.bench.mjs (the JS API's sizes
// and per-call times, the element's timings in headless Chromium). No figure is asserted.
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const build = join(root, process.env.KVCALC_BUILD_DIR || 'build');
const buildWasm = join(root, process.env.KVCALC_WASM_BUILD_DIR || 'build-wasm');
const N = Number(process.env.KVCALC_BENCH_EVALUATIONS || 1000000);
const results = { evaluations: N };

function runJson(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

console.log(`== sizing sweep: ${N.toLocaleString('en-US')} (model, context) evaluations`);
results.native = runJson(join(build, 'sweep_bench'), [String(N)]);
results.wasm = runJson('node', [join(buildWasm, 'sweep_bench.cjs'), String(N)]);
if (results.native.checksum !== results.wasm.checksum) throw new Error('native and wasm sweeps disagree');

// Plain-JS baseline: the bare formula (bytes per token x context) over the same pairs.
const presets = JSON.parse(spawnSync(join(build, 'kvcalc'), ['presets', '--json'], { encoding: 'utf8' }).stdout);
const perToken = presets.map((p) => p.bytes_per_token);
const contexts = [];
for (let c = 1; contexts.length < 997; c = Math.floor((c * 1014) / 1000) + 1) contexts.push(c);
let sum = 0;
const t0 = performance.now();
for (let i = 0; i < N; i++) sum += perToken[i % perToken.length] * contexts[Math.floor(i / perToken.length) % contexts.length];
const jsMs = performance.now() - t0;
results.js_baseline = { sweep_ms: +jsMs.toFixed(1), ns_per_evaluation: +((jsMs * 1e6) / N).toFixed(1), sum };

const row = (name, ms, ns) => console.log(`${name.padEnd(34)} ${ms.toFixed(1).padStart(10)} ms ${ns.toFixed(1).padStart(10)} ns/eval`);
// Each sweep runs twice (bench/sweep.cpp): the first pass is what a page's first evaluations
// get (V8 starts wasm code in its baseline compiler), the second what a chart or a search
// that keeps evaluating gets, once V8 has optimised the hot functions.
row('native size_model', results.native.sweep_ms, results.native.ns_per_evaluation);
row('wasm size_model (Node), first pass', results.wasm.sweep_ms, results.wasm.ns_per_evaluation);
row('native size_model, second pass', results.native.warm_sweep_ms, results.native.warm_ns_per_evaluation);
row('wasm size_model, second pass', results.wasm.warm_sweep_ms, results.wasm.warm_ns_per_evaluation);
row('plain JS bare formula', results.js_baseline.sweep_ms, results.js_baseline.ns_per_evaluation);
results.ratios = {
  wasm_over_native: +(results.wasm.sweep_ms / results.native.sweep_ms).toFixed(2),
  warm_wasm_over_native: +(results.wasm.warm_sweep_ms / results.native.warm_sweep_ms).toFixed(2),
  native_over_js_baseline: +(results.native.sweep_ms / results.js_baseline.sweep_ms).toFixed(2),
  wasm_over_js_baseline: +(results.wasm.sweep_ms / results.js_baseline.sweep_ms).toFixed(2),
};
console.log(`ratios: wasm/native ${results.ratios.wasm_over_native}x (second pass ${results.ratios.warm_wasm_over_native}x), native/JS-formula ${results.ratios.native_over_js_baseline}x, ` +
  `wasm/JS-formula ${results.ratios.wasm_over_js_baseline}x (the full sizing does per-layer groups, windows, blocks, TP/PP; the baseline one multiply)`);
if (results.native.size_model_ns !== undefined) {
  row('native size_model (whole report)', results.native.size_model_ms, results.native.size_model_ns);
  row('wasm size_model (whole report)', results.wasm.size_model_ms, results.wasm.size_model_ns);
}
// The sweep's per-call figures, native against wasm: size of a config text seen before (the
// core keeps what it read) and never seen.
for (const [key, label] of [['size_seen_us', 'size() of a config seen before'], ['size_fresh_us', 'size() of a config never seen'],
  ['size_json_us', 'size_json (config text in, report text out)']]) {
  if (!results.native[key]) continue;
  console.log(`\n== ${label}, microseconds per call`);
  for (const id of Object.keys(results.native[key])) {
    const a = results.native[key][id];
    const b = results.wasm[key][id];
    console.log(`${id.padEnd(34)} native ${a.toFixed(1).padStart(8)}  wasm ${b.toFixed(1).padStart(8)}  (${(b / a).toFixed(1)}x)`);
  }
}

// Every other benchmark: its output is shown; a line "BENCH_JSON {...}" is collected.
for (const f of readdirSync(join(root, 'bench')).filter((f) => f.endsWith('.bench.mjs')).sort()) {
  console.log(`\n== ${f}`);
  const r = spawnSync('node', [join(root, 'bench', f)], { encoding: 'utf8', maxBuffer: 16 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = r.stdout.split('\n');
  for (const l of lines) if (!l.startsWith('BENCH_JSON ')) console.log(l);
  const j = lines.filter((l) => l.startsWith('BENCH_JSON ')).map((l) => JSON.parse(l.slice(11)));
  results[f.replace('.bench.mjs', '')] = j.length ? Object.assign({}, ...j) : { exit: r.status };
  if (r.status !== 0) console.log(`(${f} exited ${r.status})`);
}

mkdirSync(build, { recursive: true });
writeFileSync(join(build, 'bench.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nwrote ${join(build, 'bench.json')}`);
