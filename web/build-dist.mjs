// Assembles dist/ from web/ and the wasm build: kvcalc.js with every module it imports
// bundled and minified by esbuild (a dev dependency), the Embind glue and wasm, and the
// hand-written kvcalc.d.ts.
// Prints the raw and gzip size of each file and of everything a page loads.
// Run by scripts/build.sh after the wasm build: node web/build-dist.mjs
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build, transform } from 'esbuild';
import { minify } from 'terser';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { importsOf, pageLoads, VIEWS } from './page-loads.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const web = join(root, 'web');
const dist = join(root, 'dist');
const wasmBuild = join(root, process.env.KVCALC_WASM_BUILD_DIR ?? 'build-wasm');

const fail = (message) => {
  console.error(`build-dist: ${message}`);
  process.exit(1);
};

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist);

// The one wasm module, copied as built; its Embind glue (kvcalc_core.mjs) is bundled into
// kvcalc.js below. It runs under a CSP without 'unsafe-eval'.
for (const file of ['kvcalc_core.wasm', 'kvcalc_core.mjs']) {
  if (!existsSync(join(wasmBuild, file))) fail(`${relative(root, join(wasmBuild, file))} is missing: build the wasm first`);
}
copyFileSync(join(wasmBuild, 'kvcalc_core.wasm'), join(dist, 'kvcalc_core.wasm'));
const glueText = readFileSync(join(wasmBuild, 'kvcalc_core.mjs'), 'utf8');
// Text a CSP without 'unsafe-eval' refuses to run.
const refuseDynamicCode = (text, file, hint) => {
  for (const banned of ['new Function', 'eval(']) {
    if (text.includes(banned)) fail(`${file} contains "${banned}"${hint}`);
  }
};
refuseDynamicCode(glueText, 'kvcalc_core.mjs', ': link it with -sDYNAMIC_EXECUTION=0');

// The JS: kvcalc.js is web/kvcalc.js with everything it imports, the glue included, bundled
// and minified by esbuild (no comments, short local names), then by terser: one file, one
// request. Each view (formula, table, GQA, check; the formula and check views with the
// chart), which web/element.js imports dynamically, is a file of its own (bundled with the
// few helpers it shares with kvcalc.js: a copy costs less than the shared chunks code
// splitting makes), fetched when an element first shows it. The sources in web/ stay readable and are what the tests lint and the
// site's reference page reads. The element's styles are CSS texts in template literals
// (web/element/styles.js, the tables' table-styles.js, and each view's own): minified as CSS
// here, which the JS minifier cannot do in a string.
const cssText = {
  name: 'minify-element-css',
  setup(b) {
    b.onLoad({ filter: /[\\/]element[\\/][a-z-]+\.js$/ }, async ({ path }) => {
      const source = readFileSync(path, 'utf8');
      if (!source.includes('const CSS = `')) return undefined;
      // The literal's text as JS reads it: no ${}, and \\ is its only escape (CSS's \2195).
      const m = source.match(/const CSS = `((?:[^`$\\]|\\\\)*)`;/);
      if (!m) fail(`${relative(root, path)}: expected one \`const CSS = \`...\`;\` with no \${} and no escape but \\\\`);
      const cooked = m[1].replace(/\\\\/g, '\\');
      const css = (await transform(cooked, { loader: 'css', minify: true })).code.trim();
      return { contents: source.replace(m[0], () => `const CSS = ${JSON.stringify(css)};`), loader: 'js' };
    });
  },
};
// What web/element.js imports dynamically (the views, each with its CSS, and the paste panel's
// input), as esbuild finds it while bundling kvcalc.js: each is then bundled on its own.
const lazyFiles = new Set();
const glueInBuild = join(wasmBuild, 'kvcalc_core.mjs');
const layout = {
  name: 'dist-layout',
  setup(b) {
    // The dynamic imports stay imports, of the files' own bundles beside kvcalc.js.
    b.onResolve({ filter: /^\.\/element\/[a-z-]+\.js$/ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const file = args.path.slice('./element/'.length);
      lazyFiles.add(file);
      return { path: `./${file}`, external: true };
    });
    // web/api.js imports the glue at load(): it is bundled in, from the wasm build.
    b.onResolve({ filter: /^\.\/kvcalc_core\.mjs$/ }, () => ({ path: glueInBuild }));
  },
};
const bundle = (entries) => build({
  plugins: [cssText, layout],
  entryPoints: entries,
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  outdir: dist,
  entryNames: '[name]',
  write: false,
  metafile: true,
  absWorkingDir: root,
  logLevel: 'silent',
}).catch((e) => fail(`bundling ${entries.map((f) => relative(root, f)).join(', ')}: ${e.message}`));
const main = await bundle([join(web, 'kvcalc.js')]);
const builds = [main, await bundle([...lazyFiles].sort().map((f) => join(web, 'element', f)))];
const inputs = [...new Set(builds.flatMap((r) => Object.keys(r.metafile.inputs)))];
const outside = inputs.filter((f) => !f.startsWith('web/') && join(root, f) !== glueInBuild);
if (outside.length) fail(`web/kvcalc.js imports files outside web/: ${outside.join(', ')}`);
const outputs = builds.flatMap((r) => r.outputFiles);
const gz = (t) => gzipSync(t, { level: 9 }).length;
// terser (a dev dependency) compresses esbuild's output further: several passes of dead-code
// and expression folding, names mangled again (about 4% smaller after gzip).
for (const out of outputs) {
  const file = relative(dist, out.path);
  if (file.includes('/') || !file.endsWith('.js')) fail(`esbuild wrote ${file}: expected .js files in dist/ itself`);
  const squeezed = await minify(out.text, { module: true, compress: { passes: 3 }, mangle: true })
    .catch((e) => fail(`terser on ${file}: ${e.message}`));
  console.log(`build-dist: ${file}: esbuild ${gz(out.text)} B gzip, terser ${gz(squeezed.code)}`);
  writeFileSync(join(dist, file), squeezed.code);
  refuseDynamicCode(squeezed.code, file, ', which a strict CSP refuses');
}
if (!builds[0].metafile.inputs[relative(root, glueInBuild)]) fail('kvcalc.js no longer bundles the glue');
// web/page-loads.mjs reads the import graph back from the files: it must be esbuild's.
for (const r of builds) {
  for (const [path, out] of Object.entries(r.metafile.outputs)) {
    const file = relative(dist, join(root, path));
    const found = importsOf(readFileSync(join(dist, file), 'utf8'));
    for (const kind of ['static', 'dynamic']) {
      const want = out.imports.filter((i) => i.kind === (kind === 'static' ? 'import-statement' : 'dynamic-import'))
        .map((i) => i.path.replace(/^\.\//, '')).sort();
      if (JSON.stringify(found[kind].sort()) !== JSON.stringify(want)) {
        fail(`${file}: web/page-loads.mjs finds ${kind} imports ${found[kind]} where esbuild wrote ${want}`);
      }
    }
  }
}
const lazy = Object.values(VIEWS).flatMap((v) => v.lazy);
for (const f of lazy) if (!existsSync(join(dist, f))) fail(`web/page-loads.mjs names ${f}, which the bundle does not have`);
console.log(`build-dist: bundled ${inputs.length} modules into ${outputs.length} files: ` +
  outputs.map((f) => relative(dist, f.path)).join(', '));
copyFileSync(join(web, 'kvcalc.d.ts'), join(dist, 'kvcalc.d.ts'));

// Sizes. gzip -9, as a server would send them.
const { files, views } = pageLoads(dist);
const pad = (v, n) => String(v).padStart(n);
console.log('dist/                    raw     gzip');
for (const r of files) console.log(`  ${r.file.padEnd(20)} ${pad(r.raw, 8)} ${pad(r.gzip, 8)}${r.file.endsWith('.d.ts') ? '  (types, not loaded)' : ''}`);
console.log('a page with one <kv-calc> loads (gzip, against the budget of web/page-loads.mjs):');
for (const [view, v] of Object.entries(views)) {
  console.log(`  view=${view.padEnd(15)} ${pad(v.raw, 8)} ${pad(v.gzip, 8)}  ` +
    (v.gzip <= v.budget ? `${v.budget - v.gzip} left of ${v.budget}` : `OVER ${v.budget} by ${v.gzip - v.budget}`) + `  (${v.files.join(' ')})`);
}
