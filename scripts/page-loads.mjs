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
// view="formula" at most 165 KB and view="all" at most 180 KB, with the llama.cpp engine, the
// GGUF reader and the Hub fetch included; a view that shows less than all of them is held to
// the budget of all).
const KiB = 1024;
const FORMULA_BUDGET = 165000;
const ALL_BUDGET = 180000;
const LIVE = ['live.js', 'api-calls.js'];
// The element's style sheet: a file a baked page links, or a module a page without one loads.
export const STYLESHEET = 'kvcalc.css';
const STYLES_MODULE = 'styles.js';
export const VIEWS = {
  formula: { lazy: [...LIVE, 'formula-view.js'], budget: FORMULA_BUDGET },
  gqa: { lazy: [...LIVE, 'gqa-view.js'], budget: ALL_BUDGET },
  table: { lazy: [...LIVE, 'table-view.js'], budget: ALL_BUDGET },
  check: { lazy: [...LIVE, 'check-view.js'], budget: ALL_BUDGET },
  all: { lazy: [...LIVE, 'formula-view.js', 'table-view.js', 'gqa-view.js', 'check-view.js'], budget: ALL_BUDGET },
  // view="formula" with a llama.cpp engine (or a GGUF file): llama.cpp's inputs and arithmetic too.
  'formula (llama.cpp)': { lazy: [...LIVE, 'formula-view.js', 'llamacpp-view.js'], budget: FORMULA_BUDGET },
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

// What pageLoads(dist) found, as lines to print: for a baked page and a page without baked
// renders, what loads before any element is near the viewport and with one element of each
// view, each against its budget; a load over its budget says OVER.
export function loadsReport(loads) {
  const pad = (v, n) => String(v).padStart(n);
  const against = (v) => (v.gzip <= v.budget ? `${v.budget - v.gzip} left of ${v.budget}` : `OVER ${v.budget} by ${v.gzip - v.budget}`);
  const lines = [];
  for (const [which, early, views] of [['baked by kvcalc bake', loads.beforeViewportBaked, loads.bakedViews],
    ['not baked', loads.beforeViewport, loads.views]]) {
    lines.push(`a page ${which}: before any <kv-calc> is near the viewport it loads ${early.files.join(' ')}: ${early.gzip} gzip, ${against(early)}`);
    lines.push('  with one <kv-calc> (gzip, against the budget of scripts/page-loads.mjs):');
    for (const [view, v] of Object.entries(views)) {
      lines.push(`    view=${view.padEnd(13)} ${pad(v.raw, 8)} ${pad(v.gzip, 8)}  ${against(v)}  (${v.files.join(' ')})`);
    }
  }
  const over = [['before any element is near (baked)', loads.beforeViewportBaked], ['before any element is near', loads.beforeViewport],
    ...Object.entries(loads.bakedViews).map(([v, x]) => [`view=${v} (baked)`, x]),
    ...Object.entries(loads.views).map(([v, x]) => [`view=${v}`, x])].filter(([, x]) => x.gzip > x.budget);
  if (over.length) {
    lines.push(`OVER BUDGET (DESIGN.md section 4): ${over.map(([what, x]) => `${what} ${x.gzip} > ${x.budget}`).join('; ')}`);
  }
  return lines;
}
