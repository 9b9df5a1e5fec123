// What a page loads: before any <kv-calc> is near the viewport, kvcalc.js alone (with what
// it imports statically: nothing); once one is, per view: the element's code (live.js), the
// API's calls with the Embind glue (api-calls.js), the view's own code, and the one wasm
// module. Read from the built files in dist/, so the figures are of what ships. The paste
// panel's input (config-input.js) is not counted: it loads when a reader opens the panel.
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
export const VIEWS = {
  formula: { lazy: [...LIVE, 'formula-view.js'], budget: 112 * KiB },
  gqa: { lazy: [...LIVE, 'gqa-view.js'], budget: 128 * KiB },
  table: { lazy: [...LIVE, 'table-view.js'], budget: 128 * KiB },
  check: { lazy: [...LIVE, 'check-view.js'], budget: 128 * KiB },
  all: { lazy: [...LIVE, 'formula-view.js', 'table-view.js', 'gqa-view.js', 'check-view.js'], budget: 128 * KiB },
};
// What the package runs in Node only (the `kvcalc` command, the baker, the Vite and Docusaurus plugins):
// never fetched by a page, so a site that hosts the package's files leaves them out.
export const NODE_ONLY = ['cli.mjs', 'kvcalc_cli.cjs', 'bake.mjs', 'bake.d.ts', 'vite.mjs', 'vite.d.ts', 'docusaurus.mjs', 'docusaurus.d.ts'];
// Before any element is near the viewport: at most 8 KiB gzip, and no wasm.
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
    for (const f of importsOf(text(start)).static) closure(f, into);
    return into;
  };
  const views = {};
  for (const [view, { lazy }] of Object.entries(VIEWS)) {
    const set = closure('kvcalc.js', new Set());
    for (const f of lazy) closure(f, set);
    set.add(WASM);
    const list = [...set];
    views[view] = {
      files: list,
      budget: VIEWS[view].budget,
      raw: list.reduce((s, f) => s + gz.get(f).raw, 0),
      gzip: list.reduce((s, f) => s + gz.get(f).gzip, 0),
    };
  }
  const early = [...closure('kvcalc.js', new Set())];
  const beforeViewport = {
    files: early,
    raw: early.reduce((s, f) => s + gz.get(f).raw, 0),
    gzip: early.reduce((s, f) => s + gz.get(f).gzip, 0),
    budget: BEFORE_VIEWPORT_BUDGET,
  };
  return { files: files.map((f) => ({ file: f, ...gz.get(f) })), views, beforeViewport };
}
