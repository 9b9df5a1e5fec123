// Assembles dist/ from web/ and the wasm build: the modules kvcalc.js imports (followed
// from its import statements), the Embind glue and wasm, and the hand-written kvcalc.d.ts.
// Prints the raw and gzip size of each file and of everything a page loads.
// Run by scripts/build.sh after the wasm build: node web/build-dist.mjs
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const web = join(root, 'web');
const dist = join(root, 'dist');
const wasmBuild = join(root, process.env.KVCALC_WASM_BUILD_DIR ?? 'build-wasm');
const budget = 64 * 1024; // DESIGN.md section 4: everything a page loads, gzip

const fail = (message) => {
  console.error(`build-dist: ${message}`);
  process.exit(1);
};

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist);

// The wasm module: copied as built; it must run under a CSP without 'unsafe-eval'.
const glue = ['kvcalc_core.mjs', 'kvcalc_core.wasm'];
for (const file of glue) {
  if (!existsSync(join(wasmBuild, file))) fail(`${relative(root, join(wasmBuild, file))} is missing: build the wasm first`);
  copyFileSync(join(wasmBuild, file), join(dist, file));
}
const glueText = readFileSync(join(dist, 'kvcalc_core.mjs'), 'utf8');
for (const banned of ['new Function', 'eval(']) {
  if (glueText.includes(banned)) fail(`kvcalc_core.mjs contains "${banned}": link it with -sDYNAMIC_EXECUTION=0`);
}

// The JS modules: kvcalc.js and whatever it imports, transitively.
const importPattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.\.?\/[^'"]+)['"]/g;
const modules = [];
const queue = ['kvcalc.js'];
while (queue.length) {
  const file = queue.shift();
  if (modules.includes(file) || glue.includes(file)) continue;
  const source = join(web, file);
  if (!existsSync(source)) fail(`web/${file} is imported but missing`);
  modules.push(file);
  // Specifiers are relative to the importing module (web/element/*.js import '../api.js').
  for (const [, spec] of readFileSync(source, 'utf8').matchAll(importPattern)) {
    const target = posix.normalize(posix.join(posix.dirname(file), spec));
    if (target.startsWith('../')) fail(`web/${file} imports ${spec}, outside web/`);
    queue.push(target);
  }
}
for (const file of modules) {
  mkdirSync(dirname(join(dist, file)), { recursive: true });
  copyFileSync(join(web, file), join(dist, file));
}
copyFileSync(join(web, 'kvcalc.d.ts'), join(dist, 'kvcalc.d.ts'));

// Sizes. gzip -9, as a server would send them.
const rows = [...modules, ...glue, 'kvcalc.d.ts'].map((file) => {
  const bytes = readFileSync(join(dist, file));
  return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, loaded: file !== 'kvcalc.d.ts' };
});
const pad = (s, n) => String(s).padStart(n);
console.log('dist/                    raw     gzip');
for (const r of rows) console.log(`  ${r.file.padEnd(20)} ${pad(r.raw, 8)} ${pad(r.gzip, 8)}${r.loaded ? '' : '  (types, not loaded)'}`);
const page = rows.filter((r) => r.loaded);
const raw = page.reduce((s, r) => s + r.raw, 0);
const gzip = page.reduce((s, r) => s + r.gzip, 0);
console.log(`  ${'a page loads'.padEnd(20)} ${pad(raw, 8)} ${pad(gzip, 8)}  (budget ${budget} gzip: ` +
  (gzip <= budget ? `${budget - gzip} left)` : `OVER by ${gzip - budget})`));
