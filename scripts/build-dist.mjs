// Assembles dist/ from web/ and the wasm build: kvcalc.js with every module it imports
// bundled and minified by esbuild (a dev dependency), the Embind glue and wasm, and the
// hand-written kvcalc.d.ts.
// Prints the raw and gzip size of each file and of everything a page loads.
// Run by scripts/build.sh after the wasm build: node scripts/build-dist.mjs
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build, transform } from 'esbuild';
import { minify } from 'terser';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { importsOf, loadsReport, pageLoads, STYLESHEET, VIEWS } from './page-loads.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const web = join(root, 'web');
const node = join(web, 'node');
const dist = join(root, 'dist');
const wasmBuild = resolve(root, process.env.KVCALC_WASM_BUILD_DIR ?? 'build-wasm');

const fail = (message) => {
  console.error(`build-dist: ${message}`);
  process.exit(1);
};

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist);

// The one wasm module, copied as built; its Embind glue (kvcalc_core.mjs) is bundled into
// api-calls.js below. It runs under a CSP without 'unsafe-eval'.
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

// The JS: kvcalc.js is web/kvcalc.js with everything it imports statically, bundled and
// minified by esbuild (no comments, short local names), then by terser: what every page
// fetches, kept small (DESIGN.md: at most 8 KiB gzip before an element is near the
// viewport). Each file web/ imports dynamically is a file of its own, fetched when needed:
// api-calls.js (the API's calls and the Embind glue) at load(), live.js (the element's code)
// when an element goes live, each view's code (formula, table, GQA, check; the formula and
// check views with the chart) when an element first shows it, config-input.js when a reader
// opens the paste panel, hub-panel.js when a reader first uses the Hugging Face offer, svg.js
// and gguf-read.js at the first kv.svg() and kv.readGguf(). A lazy file is bundled with the few helpers it needs (a copy costs
// less than the chunks code splitting makes); what must exist once per page (load() and its
// one module promise, the KvCalcError class, the change event) it imports from kvcalc.js,
// the same module the page loaded. The sources in web/ stay readable and are what the
// site's reference page reads. The element's styles are CSS texts in template literals
// (web/element/styles.js: `const NAME_CSS = \`...\`;`, one per part): minified as CSS here,
// which the JS minifier cannot do in a string, in the page's files and in the Node ones (the
// baker writes the same text as dist/kvcalc.css, below).
const CSS_LITERAL = /const ([A-Z_]*CSS) = `([^`]*)`;/g;
const cssText = {
  name: 'minify-element-css',
  setup(b) {
    b.onLoad({ filter: /[\\/]element[\\/][a-z-]+\.js$/ }, async ({ path }) => {
      const source = readFileSync(path, 'utf8');
      const literals = [...source.matchAll(CSS_LITERAL)];
      if (!literals.length) return undefined;
      let contents = source;
      for (const [whole, name, text] of literals) {
        // The literal's text as JS reads it: no ${}, and \\ is its only escape (CSS's \2195).
        if (/\$\{|\\(?!\\)/.test(text.replace(/\\\\/g, ''))) fail(`${relative(root, path)}: ${name} has \${} or an escape other than \\\\`);
        const css = (await transform(text.replace(/\\\\/g, '\\'), { loader: 'css', minify: true })).code.trim();
        contents = contents.replace(whole, () => `const ${name} = ${JSON.stringify(css)};`);
      }
      return { contents, loader: 'js' };
    });
  },
};
// The files web/ imports dynamically (source path -> its file in dist/), as esbuild finds
// them while bundling: each is then bundled on its own.
const lazyFiles = new Map();
const glueInBuild = join(wasmBuild, 'kvcalc_core.mjs');
// The modules that hold what exists once per page: in a lazy file, importing them is
// importing kvcalc.js, whose exports they are.
const ONCE_PER_PAGE = ['api/api.js', 'api/errors.js', 'element/element.js', 'element/change-event.js']
  .map((f) => join(web, f));
const layout = (lazy) => ({
  name: 'dist-layout',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      const path = join(args.resolveDir, args.path);
      // The glue is bundled in, from the wasm build.
      if (args.path === './kvcalc_core.mjs') return { path: glueInBuild };
      // A dynamic import stays one, of the file's own bundle beside kvcalc.js.
      if (args.kind === 'dynamic-import') {
        const file = basename(path);
        for (const [other, f] of lazyFiles) if (f === file && other !== path) fail(`${file}: two lazy files of that name`);
        lazyFiles.set(path, file);
        return { path: `./${file}`, external: true };
      }
      if (lazy && ONCE_PER_PAGE.includes(path)) return { path: './kvcalc.js', external: true };
      return undefined;
    });
  },
});
const bundle = (entries, lazy) => build({
  plugins: [cssText, layout(lazy)],
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
const builds = [await bundle([join(web, 'kvcalc.js')], false)];
// Each lazy file, as it is found (a lazy file may import others lazily: the views import
// nothing, live.js imports the views and the paste panel).
for (let done = new Set(); done.size < lazyFiles.size;) {
  const next = [...lazyFiles.keys()].filter((f) => !done.has(f));
  for (const f of next) {
    done.add(f);
    builds.push(await bundle([f], true));
  }
}
const inputs = [...new Set(builds.flatMap((r) => Object.keys(r.metafile.inputs)))];
const outside = inputs.filter((f) => !f.startsWith('web/') && join(root, f) !== glueInBuild);
for (const f of ONCE_PER_PAGE) {
  if (builds.slice(1).some((r) => r.metafile.inputs[relative(root, f)])) fail(`a lazy file bundles ${relative(root, f)}: it must import it from kvcalc.js`);
}
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
if (builds[0].metafile.inputs[relative(root, glueInBuild)]) fail('kvcalc.js bundles the glue: it belongs in api-calls.js, fetched at load()');
// scripts/page-loads.mjs reads the import graph back from the files: it must be esbuild's.
for (const r of builds) {
  for (const [path, out] of Object.entries(r.metafile.outputs)) {
    const file = relative(dist, join(root, path));
    const found = importsOf(readFileSync(join(dist, file), 'utf8'));
    for (const kind of ['static', 'dynamic']) {
      const want = out.imports.filter((i) => i.kind === (kind === 'static' ? 'import-statement' : 'dynamic-import'))
        .map((i) => i.path.replace(/^\.\//, '')).sort();
      if (JSON.stringify(found[kind].sort()) !== JSON.stringify(want)) {
        fail(`${file}: scripts/page-loads.mjs finds ${kind} imports ${found[kind]} where esbuild wrote ${want}`);
      }
    }
  }
}
const lazy = Object.values(VIEWS).flatMap((v) => v.lazy);
for (const f of lazy) if (!existsSync(join(dist, f))) fail(`scripts/page-loads.mjs names ${f}, which the bundle does not have`);
console.log(`build-dist: bundled ${inputs.length} modules into ${outputs.length} files: ` +
  outputs.map((f) => relative(dist, f.path)).join(', '));
copyFileSync(join(web, 'kvcalc.d.ts'), join(dist, 'kvcalc.d.ts'));

// What runs in Node, never in a page (web/node/): the `kvcalc` command (cli.mjs, the package's `bin`), the
// baker it and build plugins use (bake.mjs, `kvcalc/bake`, which draws the element's first
// render with the element's own code), the Vite plugin (vite.mjs,
// `kvcalc/vite`), the Docusaurus plugin (docusaurus.mjs, `kvcalc/docusaurus`), the remark plugin for MDX
// sites rendered by React (mdx.mjs, `kvcalc/mdx`), and the native CLI's code compiled
// for Node (kvcalc_cli.cjs, built with the wasm). Each imports the page's kvcalc.js, not a copy.
if (!existsSync(join(wasmBuild, 'kvcalc_cli.cjs'))) fail(`${relative(root, join(wasmBuild, 'kvcalc_cli.cjs'))} is missing: build the wasm first`);
copyFileSync(join(wasmBuild, 'kvcalc_cli.cjs'), join(dist, 'kvcalc_cli.cjs'));
// The files a Node file imports from dist/ rather than bundles (each its source's path from
// web/node/ -> its file in dist/): the page's kvcalc.js and the Node files of their own.
const nodeExternal = new Map([
  ['../kvcalc.js', './kvcalc.js'], ['./bake.mjs', './bake.mjs'], ['./kvcalc_cli.cjs', './kvcalc_cli.cjs'],
]);
// cli.mjs's svg command reads options as the element reads attributes: bundled in, as in bake.mjs.
const nodeBuild = await build({
  entryPoints: ['cli.mjs', 'bake.mjs', 'vite.mjs', 'docusaurus.mjs', 'mdx.mjs'].map((f) => join(node, f)),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir: dist,
  outExtension: { '.js': '.mjs' },
  entryNames: '[name]',
  legalComments: 'none',
  logLevel: 'silent',
  absWorkingDir: root,
  metafile: true,
  plugins: [cssText, {
    name: 'node-externals',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => {
        if (args.importer && nodeExternal.has(args.path) && dirname(args.importer) === node) return { path: nodeExternal.get(args.path), external: true };
        // The element's code the baker draws with imports the API as a page's lazy files do:
        // from kvcalc.js (one module, one wasm instance).
        if (ONCE_PER_PAGE.includes(join(args.resolveDir, args.path))) return { path: './kvcalc.js', external: true };
        return undefined;
      });
    },
  }],
}).catch((e) => fail(`bundling the Node files: ${e.message}`));
// The baker reads HTML with parse5 (and the entities it decodes with): a dev dependency
// bundled into bake.mjs, so the package still installs no dependency. Their licences
// (MIT, BSD-2-Clause) ask for their notices in copies: each Node file that bundles them
// starts with them.
const BUNDLED = ['parse5', 'entities'];
const bundledPackage = (f) => BUNDLED.find((name) => f.startsWith(`node_modules/${name}/`));
const nodeOutside = Object.keys(nodeBuild.metafile.inputs).filter((f) => !f.startsWith('web/') && !bundledPackage(f));
if (nodeOutside.length) fail(`the Node files import files outside web/: ${nodeOutside.join(', ')}`);
for (const [path, out] of Object.entries(nodeBuild.metafile.outputs)) {
  const names = [...new Set(Object.keys(out.inputs).map(bundledPackage).filter(Boolean))];
  if (!names.length) continue;
  if (basename(path) !== 'bake.mjs') fail(`${basename(path)} bundles ${names.join(', ')}: only bake.mjs should (the others import it)`);
  const notices = names.map((name) => {
    const dir = join(root, 'node_modules', name);
    const { version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return `${name} ${version} (${license}), bundled:\n\n${readFileSync(join(dir, 'LICENSE'), 'utf8').trim()}`;
  });
  const file = join(root, path);
  writeFileSync(file, `/*\n${notices.join('\n\n').replaceAll('*/', '* /')}\n*/\n${readFileSync(file, 'utf8')}`);
}
for (const f of ['bake.d.ts', 'vite.d.ts', 'docusaurus.d.ts', 'mdx.d.ts']) copyFileSync(join(node, f), join(dist, f));

// The element's style sheet as a file (web/element/styles.js's ELEMENT_CSS, minified: the very
// text the baker writes at the root of a bundled site), which a baked page links from its
// elements' declarative shadow roots.
const { stylesheetText } = await import(join(dist, 'bake.mjs'));
writeFileSync(join(dist, STYLESHEET), stylesheetText());

// Sizes. gzip -9, as a server would send them.
const loads = pageLoads(dist);
const pad = (v, n) => String(v).padStart(n);
console.log('dist/                    raw     gzip');
for (const r of loads.files) console.log(`  ${r.file.padEnd(20)} ${pad(r.raw, 8)} ${pad(r.gzip, 8)}${r.file.endsWith('.d.ts') ? '  (types, not loaded)' : ''}`);
for (const line of loadsReport(loads)) console.log(line);
