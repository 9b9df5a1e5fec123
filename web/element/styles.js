// The element's style sheet, built once and shared by every instance through
// adoptedStyleSheets (no <style> element, no style attribute: the strict CSP allows this).
// Each view (formula, chart, table, GQA, check) is loaded when an element first shows it and
// brings CSS texts of its own (its `styles`), adopted the same way through sheetFor().
// Every colour and size reads a --kv-* custom property with a fallback, documented in
// element.js; the internal --_* names only hold the resolved values.
const CSS = `
:host {
  color-scheme: light;
  --_fg: var(--kv-color, #1d2430);
  --_bg: var(--kv-background, #ffffff);
  --_muted: var(--kv-muted-color, #56606e);
  --_border: var(--kv-border-color, #c5ccd6);
  --_surface: var(--kv-surface, #f3f5f8);
  --_accent: var(--kv-accent, #1f5fbf);
  --_accent-fg: var(--kv-accent-contrast, #ffffff);
  --_ok: var(--kv-ok-color, #17663a);
  --_bad: var(--kv-bad-color, #a8201a);
  --_focus: var(--kv-focus-color, #c2410c);
  --_series-1: var(--kv-series-1, #1f5fbf);
  --_series-2: var(--kv-series-2, #b4530f);
  --_series-3: var(--kv-series-3, #6d3fb8);
  --_pool: var(--kv-pool-color, #a8201a);
  --_radius: var(--kv-radius, 6px);
  --_gap: var(--kv-gap, 0.75rem);
  display: block;
  container-type: inline-size;
  color: var(--_fg);
  background: var(--_bg);
  font-family: var(--kv-font-family, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  font-size: var(--kv-font-size, 1em);
  line-height: 1.45;
  border: 1px solid var(--_border);
  border-radius: var(--_radius);
  padding: var(--_gap);
  max-width: 100%;
  box-sizing: border-box;
}
:host(:state(dark)) {
    color-scheme: dark;
    --_fg: var(--kv-color, #e6e9ee);
    --_bg: var(--kv-background, #161a20);
    --_muted: var(--kv-muted-color, #a9b2bf);
    --_border: var(--kv-border-color, #3d4653);
    --_surface: var(--kv-surface, #20262e);
    --_accent: var(--kv-accent, #7fb0ff);
    --_accent-fg: var(--kv-accent-contrast, #0b1320);
    --_ok: var(--kv-ok-color, #6fd39a);
    --_bad: var(--kv-bad-color, #ff8f87);
    --_focus: var(--kv-focus-color, #ffb36b);
    --_series-1: var(--kv-series-1, #7fb0ff);
    --_series-2: var(--kv-series-2, #f0a35e);
    --_series-3: var(--kv-series-3, #c6a2ff);
    --_pool: var(--kv-pool-color, #ff8f87);
}
:host([hidden]) { display: none; }
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }

/* The rows keep their heights in a box taller than them (the first render holds the fallback's
   height until every section is drawn). */
.kv { display: grid; grid-template-columns: minmax(0, 1fr); align-content: start; gap: var(--_gap); min-width: 0; }
h2, h3 { margin: 0; font-size: 1.05em; line-height: 1.3; }
h3 { font-size: 1em; }
p { margin: 0; }
.muted, .note { color: var(--_muted); font-size: 0.9em; }
.note { overflow-wrap: break-word; }
.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
.model-line { display: flex; flex-wrap: wrap; gap: 0.25rem 0.75rem; align-items: baseline; }
.model-name { font-weight: 600; overflow-wrap: break-word; }
.loading { color: var(--_muted); }
.view { display: grid; grid-template-columns: minmax(0, 1fr); gap: calc(var(--_gap) * 0.75); min-width: 0; }

/* Messages */
.error {
  color: var(--_bad);
  border-left: 3px solid var(--_bad);
  padding: 0.25rem 0.5rem;
  overflow-wrap: break-word;
}
.error:empty { display: none; }
.warnings { margin: 0; padding-left: 1.2rem; color: var(--_muted); font-size: 0.9em; }

/* Controls */
.controls {
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr));
  gap: 0.5rem var(--_gap);
  align-items: start;
  padding: calc(var(--_gap) * 0.75);
  background: var(--_surface);
  border-radius: var(--_radius);
}
.field { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.2rem; min-width: 0; }
.field > input:not([type="radio"]):not([type="checkbox"]):not([type="range"]), .field > select { width: 100%; }
.field.wide { grid-column: 1 / -1; }
label, .label { font-size: 0.85em; font-weight: 600; color: var(--_fg); }
input, select, textarea, button {
  font: inherit;
  color: var(--_fg);
  background: var(--_bg);
  border: 1px solid var(--_border);
  border-radius: calc(var(--_radius) * 0.7);
  padding: 0.3rem 0.45rem;
  min-width: 0;
  max-width: 100%;
}
input[type="range"] { padding: 0; accent-color: var(--_accent); }
textarea { width: 100%; min-height: 6rem; font-family: var(--kv-mono-font-family, ui-monospace, "SFMono-Regular", Menlo, monospace); font-size: 0.85em; }
button { cursor: pointer; background: var(--_surface); }
button:hover { border-color: var(--_accent); }
button[aria-pressed="true"] { background: var(--_accent); color: var(--_accent-fg); border-color: var(--_accent); }
.download { justify-self: start; font: inherit; font-size: 0.85em; }
.shortcuts { display: flex; flex-wrap: wrap; gap: 0.25rem; }
.shortcuts button { padding: 0.1rem 0.45rem; font-size: 0.85em; }
[aria-invalid="true"] { border-color: var(--_bad); outline: 1px solid var(--_bad); }
.field-error { color: var(--_bad); font-size: 0.85em; overflow-wrap: break-word; }
.field-error:empty { display: none; }
:focus-visible {
  outline: 3px solid var(--_focus);
  outline-offset: 2px;
}
input:focus-visible, select:focus-visible, textarea:focus-visible { outline-offset: 0; }
.dropzone { border: 1px dashed var(--_border); border-radius: var(--_radius); padding: 0.5rem; display: grid; gap: 0.4rem; }
.dropzone.dragging { border-color: var(--_accent); background: var(--_surface); }
.row { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
details > summary { cursor: pointer; font-size: 0.9em; font-weight: 600; }
details[open] > summary { margin-bottom: 0.4rem; }

/* The figures of the formula and check views */
.results { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 0.75rem; margin: 0; }
.results dt { color: var(--_muted); }
.results dd { margin: 0; font-variant-numeric: tabular-nums; overflow-wrap: break-word; }
.results dd strong { font-weight: 600; }

@container (max-width: 30rem) {
  .controls { grid-template-columns: 1fr 1fr; grid-auto-flow: dense; }
  .controls .w2 { grid-column: 1 / -1; }
  .results { grid-template-columns: 1fr; }
  .results dd { margin-bottom: 0.3rem; }
}
@media (prefers-reduced-motion: no-preference) {
  button, input, select, .verdict { transition: background-color 120ms ease, border-color 120ms ease; }
}
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { transition: none !important; animation: none !important; scroll-behavior: auto !important; }
}
`;

// One CSSStyleSheet per CSS text, built when first asked for and shared after: every element
// adopts the same objects (the views' texts come from their own lazily loaded files).
const sheets = new Map();
export function sheetFor(css) {
  let sheet = sheets.get(css);
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    sheets.set(css, sheet);
  }
  return sheet;
}

export const styleSheet = () => sheetFor(CSS);

// The element's style sheet as text: the standalone SVG figures (web/api/svg.js) read its colours.
export const elementCss = CSS;
