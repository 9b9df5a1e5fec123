// Assembles dist/ from web/ and the wasm build: kvcalc.js with every module it imports
// bundled and minified by esbuild (a dev dependency), the Embind glue and wasm, and the
// hand-written kvcalc.d.ts.
// Prints the raw and gzip size of each file and of everything a page loads.
// Run by scripts/build.sh after the wasm build: node web/build-dist.mjs
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build, transform } from 'esbuild';
import { dirname, join, relative } from 'node:path';
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
// Text a CSP without 'unsafe-eval' refuses to run.
const refuseDynamicCode = (text, file, hint) => {
  for (const banned of ['new Function', 'eval(']) {
    if (text.includes(banned)) fail(`${file} contains "${banned}"${hint}`);
  }
};
refuseDynamicCode(readFileSync(join(dist, 'kvcalc_core.mjs'), 'utf8'), 'kvcalc_core.mjs', ': link it with -sDYNAMIC_EXECUTION=0');

// The JS modules: kvcalc.js and whatever it imports, transitively, bundled into one minified
// dist/kvcalc.js (one request, no comments, short local names). The glue stays its own file,
// imported at load(); the sources in web/ stay readable and are what the tests lint and the
// site's reference page reads.
// The element's style sheet is one CSS text in a template literal (web/element/styles.js):
// minified as CSS here, which the JS minifier cannot do inside a string.
const cssText = {
  name: 'minify-element-css',
  setup(b) {
    b.onLoad({ filter: /[\\/]element[\\/]styles\.js$/ }, async ({ path }) => {
      const source = readFileSync(path, 'utf8');
      // The literal's text as JS reads it: no ${}, and \\ is its only escape (CSS's \2195).
      const m = source.match(/const CSS = `((?:[^`$\\]|\\\\)*)`;/);
      if (!m) fail('web/element/styles.js: expected one `const CSS = `...`;` with no ${} and no escape but \\\\');
      const cooked = m[1].replace(/\\\\/g, '\\');
      const css = (await transform(cooked, { loader: 'css', minify: true })).code.trim();
      return { contents: source.replace(m[0], () => `const CSS = ${JSON.stringify(css)};`), loader: 'js' };
    });
  },
};
const bundled = await build({
  plugins: [cssText],
  entryPoints: [join(web, 'kvcalc.js')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  external: glue.map((f) => `./${f}`),
  write: false,
  metafile: true,
  absWorkingDir: root,
  logLevel: 'silent',
}).catch((e) => fail(`bundling web/kvcalc.js: ${e.message}`));
// The modules esbuild followed from kvcalc.js's imports (paths relative to the repo root).
const inputs = Object.keys(bundled.metafile.inputs);
const outside = inputs.filter((f) => !f.startsWith('web/'));
if (outside.length) fail(`web/kvcalc.js imports files outside web/: ${outside.join(', ')}`);
writeFileSync(join(dist, 'kvcalc.js'), bundled.outputFiles[0].contents);
const bundleText = bundled.outputFiles[0].text;
refuseDynamicCode(bundleText, 'the bundle', ', which a strict CSP refuses');
if (!bundleText.includes('./kvcalc_core.mjs')) fail('the bundle no longer imports ./kvcalc_core.mjs');
console.log(`build-dist: bundled ${inputs.length} modules of web/ into dist/kvcalc.js`);
copyFileSync(join(web, 'kvcalc.d.ts'), join(dist, 'kvcalc.d.ts'));

// Sizes. gzip -9, as a server would send them.
const rows = ['kvcalc.js', ...glue, 'kvcalc.d.ts'].map((file) => {
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
