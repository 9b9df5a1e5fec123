// Reading a GGUF file's metadata: a sparse 8 GiB file whose first 8.3 MB are the Llama 3 8B
// test file's header and metadata (tests/gguf/write-gguf.mjs; 128,256 tokens and 280,147
// merges), read by the native CLI (a fresh process: `kvcalc size FILE`, the metadata read in
// 1 MiB chunks) and picked in headless Chromium's file input and read by kv.readGguf in 2 MB
// slices (median of 5 each, with the bytes read). Figures only; DESIGN.md's bar is one
// second. Run: node bench/gguf.bench.mjs
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './support.mjs';
import { readDescription, writeGguf } from '../tests/gguf/write-gguf.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, process.env.KVCALC_BUILD_DIR || 'build', 'kvcalc');
const dir = mkdtempSync(join(tmpdir(), 'kvcalc-gguf-bench-'));
const file = join(dir, 'llama-3-8b.gguf');
const metadata = writeGguf(readDescription('llama-3-8b-instruct'));
writeFileSync(file, metadata);
truncateSync(file, 8 * 1024 ** 3);
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
console.log(`# a sparse 8 GiB GGUF file with ${mb(metadata.length)} of metadata (Llama 3 8B's keys and tokenizer arrays)`);
const results = {};

// Native: the whole process, its reads counted by the shell's /proc/PID/io after it exits.
const native = [];
let rchar = 0;
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  const r = spawnSync('/bin/sh', ['-c', '"$@" >/dev/null 2>&1; grep rchar /proc/$$/io', 'sh', cli, 'size', file, '--json'], { encoding: 'utf8' });
  native.push(performance.now() - t0);
  rchar = Number(/rchar: (\d+)/.exec(r.stdout)?.[1] ?? NaN);
}
results.native_ms = +median(native).toFixed(1);
results.native_bytes_read = rchar;
console.log(`native CLI, whole process       ${results.native_ms.toFixed(1).padStart(8)} ms  (${mb(rchar)} read, the process's own reads included)`);

// Chromium: the file picked in a page's file input and read by kv.readGguf.
try {
  const { startBrowser, openPage } = await import('../tests/browser/harness.mjs');
  const env = await startBrowser();
  try {
    const { page } = await openPage(env, '/formula.html');
    await page.evaluate(() => {
      const input = document.createElement('input');
      input.type = 'file';
      input.id = 'bench-file';
      document.body.append(input);
    });
    await page.locator('#bench-file').setInputFiles(file);
    const times = [];
    let read;
    for (let i = 0; i < 5; i++) {
      read = await page.evaluate(async () => {
        const { load } = await import('/dist/kvcalc.js');
        const kv = await load();
        const f = document.querySelector('#bench-file').files[0];
        const t0 = performance.now();
        const r = await kv.readGguf(f);
        return { ms: performance.now() - t0, bytesRead: r.bytesRead, metadataBytes: r.metadataBytes };
      });
      times.push(read.ms);
    }
    results.chromium_ms = +median(times).toFixed(1);
    results.chromium_bytes_read = read.bytesRead;
    console.log(`Chromium, kv.readGguf(file)     ${results.chromium_ms.toFixed(1).padStart(8)} ms  (${mb(read.bytesRead)} sliced of ${mb(8 * 1024 ** 3)}; metadata ends at ${read.metadataBytes.toLocaleString('en-US')})`);
  } finally {
    await env.close();
  }
} catch (e) {
  console.log(`Chromium: not measured (${e.message})`);
}
rmSync(dir, { recursive: true, force: true });
console.log(`BENCH_JSON ${JSON.stringify({ gguf: results })}`);
