// What a page loads for one <kv-calc>, per view: kvcalc.js (with the Embind glue in it) and
// anything it imports, the view's own lazily imported code, and the one wasm core the view needs
// (web/element.js: the table view needs the table core, the check view the check core, all
// views the full one, the others the size-only one). Read from the built files in dist/, so
// the figures are of what ships. The paste
// panel's input (config-input.js) is not counted: it loads when a reader opens the panel.
// Used by web/build-dist.mjs (which checks it against esbuild's own graph) and the site's
// build; the browser tests check it against the requests a page really makes.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const VIEWS = {
  formula: { lazy: ['formula-view.js'], core: 'kvcalc_size.wasm' },
  gqa: { lazy: ['gqa-view.js'], core: 'kvcalc_size.wasm' },
  table: { lazy: ['table-view.js'], core: 'kvcalc_table.wasm' },
  check: { lazy: ['check-view.js'], core: 'kvcalc_check.wasm' },
  all: { lazy: ['formula-view.js', 'table-view.js', 'gqa-view.js', 'check-view.js'], core: 'kvcalc_core.wasm' },
};

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
  for (const [view, { lazy, core }] of Object.entries(VIEWS)) {
    const set = closure('kvcalc.js', new Set());
    for (const f of lazy) closure(f, set);
    set.add(core);
    const list = [...set];
    views[view] = {
      files: list,
      raw: list.reduce((s, f) => s + gz.get(f).raw, 0),
      gzip: list.reduce((s, f) => s + gz.get(f).gzip, 0),
    };
  }
  return { files: files.map((f) => ({ file: f, ...gz.get(f) })), views };
}
