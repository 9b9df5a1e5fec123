// Reading a whole pasted log: a 5 MB paste (the real v0.19 startup logs of the conformance set,
// one after another, the gpt-oss-20b start last), checked against gpt-oss-20b, natively by the
// CLI (a fresh process: read the file, read the log, check) and in wasm through the JS API
// (median of 5 in one Node process). Figures only; the budget is one second. Run:
// node bench/log.bench.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const logs = join(root, 'tests', 'fixtures', 'engine-logs');
const cli = join(root, process.env.KVCALC_BUILD_DIR || 'build', 'kvcalc');
const config = join(root, '..', 'shared', 'configs', 'openai--gpt-oss-20b.json');
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const MB = 5 * 1024 * 1024;

const last = 'vllm-v0.19-gpt-oss-20b-h100-tp2.log';
const others = readdirSync(logs).filter((f) => f.startsWith('vllm-v0.19-') && f !== last).sort();
let text = '';
for (let i = 0; text.length < MB - 300000; i++) text += readFileSync(join(logs, others[i % others.length]), 'utf8');
text += readFileSync(join(logs, last), 'utf8');
const lines = text.split('\n').length;
const file = join(mkdtempSync(join(tmpdir(), 'kvcalc-log-bench-')), 'paste.log');
writeFileSync(file, text);
console.log(`# a ${(text.length / 1048576).toFixed(2)} MiB pasted log (${lines.toLocaleString('en-US')} lines), checked against gpt-oss-20b`);

const native = [];
let report;
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  report = JSON.parse(execFileSync(cli, ['check', config, '--engine-log', file, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 }));
  native.push(performance.now() - t0);
}
console.log(`native CLI, whole process      ${median(native).toFixed(1).padStart(8)} ms  (pool ${report.pool_blocks.toLocaleString('en-US')} blocks, ${report.max_concurrency_text}x, ${report.log.understood.length} kinds of line used)`);

let wasm = null;
try {
  const kvcalc = await import(join(root, 'dist', 'kvcalc.js'));
  const kv = await kvcalc.load({ wasmBinary: readFileSync(join(root, 'dist', 'kvcalc_core.wasm')) });
  const configText = readFileSync(config, 'utf8');
  const times = [];
  let r;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    r = kv.check(configText, { engineLog: text + '\n'.repeat(i) });  // a new text each time: no cached report
    times.push(performance.now() - t0);
  }
  wasm = median(times);
  console.log(`wasm, JS API check()           ${wasm.toFixed(1).padStart(8)} ms  (pool ${r.poolBlocks.toLocaleString('en-US')} blocks, ${r.maxConcurrencyText}x)`);
} catch (e) {
  console.log(`wasm: not measured (${e.message})`);
}
console.log(`budget: 1,000 ms for a 5 MB paste`);
console.log(`BENCH_JSON ${JSON.stringify({ log_bytes: text.length, log_lines: lines, native_cli_ms: +median(native).toFixed(1), wasm_check_ms: wasm === null ? null : +wasm.toFixed(1) })}`);
