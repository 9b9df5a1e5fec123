// What a page loads: before any <kv-calc> is near the viewport, kvcalc.js alone (with what
// it imports statically: nothing), and on a baked page the element's style sheet
// (kvcalc.css, which its baked renders link: needed at first paint); once one is, per view:
// the element's code (live.js), the API's calls with the Embind glue (api-calls.js), the
// view's own code, the one wasm module, and on a page without baked renders the element's
// styles (styles.js). Read from the built files in dist/, so the figures are of what ships.
// The paste panel's input (config-input.js) and the Hugging Face panel (hub-panel.js) are not
// counted: each loads when a reader first uses it.
// Used by scripts/build-dist.mjs (which checks it against esbuild's own graph) and the site's
// build; the browser tests check it against the requests a page really makes.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const WASM = 'kvcalc_core.wasm';

// Each view's lazily loaded code, and its budget in gzip bytes (DESIGN.md section 4:
// view="formula" at most 112 KiB, view="all" at most 128 KiB; a view that shows less than
// all of them is held to the budget of all).
const KiB = 1024;
const LIVE = ['live.js', 'api-calls.js'];
// The element's style sheet: a file a baked page links, or a module a page without one loads.
export const STYLESHEET = 'kvcalc.css';
const STYLES_MODULE = 'styles.js';
export const VIEWS = {
  formula: { lazy: [...LIVE, 'formula-view.js'], budget: 112 * KiB },
  gqa: { lazy: [...LIVE, 'gqa-view.js'], budget: 128 * KiB },
  table: { lazy: [...LIVE, 'table-view.js'], budget: 128 * KiB },
  check: { lazy: [...LIVE, 'check-view.js'], budget: 128 * KiB },
  all: { lazy: [...LIVE, 'formula-view.js', 'table-view.js', 'gqa-view.js', 'check-view.js'], budget: 128 * KiB },
  // view="formula" with a llama.cpp engine (or a GGUF file): llama.cpp's inputs and arithmetic too.
  'formula (llama.cpp)': { lazy: [...LIVE, 'formula-view.js', 'llamacpp-view.js'], budget: 112 * KiB },
};
// What the package runs in Node only (the `kvcalc` command, the baker, the Vite, Docusaurus and MDX plugins):
// never fetched by a page, so a site that hosts the package's files leaves them out.
export const NODE_ONLY = ['cli.mjs', 'kvcalc_cli.cjs', 'bake.mjs', 'bake.d.ts', 'vite.mjs', 'vite.d.ts', 'docusaurus.mjs', 'docusaurus.d.ts', 'mdx.mjs', 'mdx.d.ts'];
// Before any element is near the viewport: at most 8 KiB gzip (with the style sheet a baked
// page needs at first paint), and no wasm.
export const BEFORE_VIEWPORT_BUDGET = 8 * KiB;

// The relative imports of one built JS file: static (`from"./x.js"`, `import"./x.js"`) and
// dynamic (`import("./x.js")`), as esbuild writes them.
export function importsOf(text) {
  const found = (re) => [...text.matchAll(re)].map((m) => m[1].slice(2));
  return {
    static: found(/(?:\bfrom|\bimport)\s*["'](\.\/[\w.-]+)["']/g),
    dynamic: found(/\bimport\(\s*["'](\.\/[\w.-]+)["']\s*\)/g),
  };
}

// { files, views, bakedViews, beforeViewport, beforeViewportBaked }: views and
// beforeViewport for a page whose elements have no baked render (their fallbacks written by
// hand), bakedViews and beforeViewportBaked for a page `kvcalc bake` baked.
export function pageLoads(dist) {
  const files = readdirSync(dist).sort();
  const text = (f) => readFileSync(join(dist, f), 'utf8');
  const gz = new Map(files.map((f) => {
    const bytes = readFileSync(join(dist, f));
    return [f, { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }];
  }));
  // A JS file with everything it imports statically, transitively.
  const closure = (start, into) => {
    if (into.has(start)) return into;
    if (!gz.has(start)) throw new Error(`dist/ has no ${start}, which the bundle imports`);
    into.add(start);
    if (start.endsWith('.js')) for (const f of importsOf(text(start)).static) closure(f, into);
    return into;
  };
  const sum = (list, budget) => ({
    files: list,
    budget,
    raw: list.reduce((s, f) => s + gz.get(f).raw, 0),
    gzip: list.reduce((s, f) => s + gz.get(f).gzip, 0),
  });
  const page = (first, extra) => Object.fromEntries(Object.entries(VIEWS).map(([view, { lazy, budget }]) => {
    const set = new Set();
    for (const f of [...first, ...lazy, ...extra]) closure(f, set);
    set.add(WASM);
    return [view, sum([...set], budget)];
  }));
  const early = [...closure('kvcalc.js', new Set())];
  return {
    files: files.map((f) => ({ file: f, ...gz.get(f) })),
    views: page(['kvcalc.js'], [STYLES_MODULE]),
    bakedViews: page(['kvcalc.js', STYLESHEET], []),
    beforeViewport: sum(early, BEFORE_VIEWPORT_BUDGET),
    beforeViewportBaked: sum([...early, STYLESHEET], BEFORE_VIEWPORT_BUDGET),
  };
}
