// The element's whole style sheet: its box and controls, then each view's rules (formula,
// chart, tables, GQA, check). One text, used two ways, each allowed by a strict CSP (no
// <style> element, no style attribute):
// - a baked page (kvcalc bake) links it as a file from the element's declarative shadow
//   root (dist/kvcalc.css, written from ELEMENT_CSS by scripts/build-dist.mjs): it is there
//   at first paint, and the live element keeps that link;
// - an element without a baked render loads this module when it goes live and adopts the
//   text as one CSSStyleSheet shared by every instance (adoptedStyleSheets).
// Every colour and size reads a --kv-* custom property with a fallback, documented in
// element.js; the internal --_* names only hold the resolved values. Sizes are in em (the
// element's own font size, which is the page's text size unless --kv-font-size says), so a
// page's root font size does not change the layout; the controls and tables lay out by the
// element's own width (container queries on the host). Every picture's box is sized here
// (the chart by its width, the others by their height attribute), never by the drawing:
// the baked render and the live one take the same box at any width.

const BASE_CSS = `
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
  --_gap: var(--kv-gap, 0.75em);
  display: block;
  container-type: inline-size;
  color: var(--_fg);
  background: var(--_bg);
  font-family: var(--kv-font-family, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  font-size: var(--kv-font-size, 1em);
  line-height: 1.45;
  text-align: start;
  border: 1px solid var(--_border);
  border-radius: var(--_radius);
  padding: var(--_gap);
  max-width: 100%;
  box-sizing: border-box;
}
:host(:state(dark)), :host([theme="dark"]) {
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
.model-line { display: flex; flex-wrap: wrap; gap: 0.25em 0.75em; align-items: baseline; }
.model-name { font-weight: 600; overflow-wrap: break-word; }
.loading { color: var(--_muted); }
.view { display: grid; grid-template-columns: minmax(0, 1fr); gap: calc(var(--_gap) * 0.75); min-width: 0; }

/* Messages */
.error {
  color: var(--_bad);
  border-left: 3px solid var(--_bad);
  padding: 0.25em 0.5em;
  overflow-wrap: break-word;
}
.error:empty { display: none; }
.warnings { margin: 0; padding-left: 1.2em; color: var(--_muted); font-size: 0.9em; }

/* Controls: one column on a phone, on the element's background (a model id needs all the
   width there is); two from 22em of the element's width (the wide ones then on a row of
   their own), on a panel; as many 11em columns as fit from 40em. */
.controls {
  display: grid;
  grid-template-columns: minmax(0, 1fr);
  gap: 0.5em var(--_gap);
  align-items: start;
  border-radius: var(--_radius);
}
@container (min-width: 22em) {
  .controls { grid-template-columns: repeat(2, minmax(0, 1fr)); grid-auto-flow: dense; padding: calc(var(--_gap) * 0.75); background: var(--_surface); }
  .controls .w2 { grid-column: 1 / -1; }
}
@container (min-width: 40em) {
  .controls { grid-template-columns: repeat(auto-fill, minmax(11em, 1fr)); grid-auto-flow: row; }
  .controls .w2 { grid-column: auto; }
}
.field { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.2em; min-width: 0; }
.field > input:not([type="radio"]):not([type="checkbox"]):not([type="range"]), .field > select { width: 100%; }
.field.wide, .controls .field.wide { grid-column: 1 / -1; }
label, .label { font-size: 0.85em; font-weight: 600; color: var(--_fg); }
input, select, textarea, button {
  font: inherit;
  color: var(--_fg);
  background: var(--_bg);
  border: 1px solid var(--_border);
  border-radius: calc(var(--_radius) * 0.7);
  padding: 0.3em 0.45em;
  min-width: 0;
  max-width: 100%;
}
input[type="range"] { padding: 0; accent-color: var(--_accent); }
textarea { width: 100%; min-height: 6em; font-family: var(--kv-mono-font-family, ui-monospace, "SFMono-Regular", Menlo, monospace); font-size: 0.85em; }
button { cursor: pointer; background: var(--_surface); }
button:hover { border-color: var(--_accent); }
button[aria-pressed="true"] { background: var(--_accent); color: var(--_accent-fg); border-color: var(--_accent); }
.download { justify-self: start; font: inherit; font-size: 0.85em; }
.shortcuts { display: flex; flex-wrap: wrap; gap: 0.25em; }
.shortcuts button { padding: 0.1em 0.45em; font-size: 0.85em; }
[aria-invalid="true"] { border-color: var(--_bad); outline: 1px solid var(--_bad); }
.field-error { color: var(--_bad); font-size: 0.85em; overflow-wrap: break-word; }
.field-error:empty, .field > .note:empty { display: none; }
:focus-visible {
  outline: 3px solid var(--_focus);
  outline-offset: 2px;
}
input:focus-visible, select:focus-visible, textarea:focus-visible { outline-offset: 0; }
.dropzone { border: 1px dashed var(--_border); border-radius: var(--_radius); padding: 0.5em; display: grid; gap: 0.4em; }
.dropzone.dragging { border-color: var(--_accent); background: var(--_surface); }
.row { display: flex; flex-wrap: wrap; gap: 0.5em; align-items: center; }
details > summary { cursor: pointer; font-size: 0.9em; font-weight: 600; }
details[open] > summary { margin-bottom: 0.4em; }
/* Kept in the layout when not needed (a line that comes and goes would move the page). */
.unneeded { visibility: hidden; }

/* The figures of the formula and check views */
.results { display: grid; grid-template-columns: max-content 1fr; gap: 0.2em 0.75em; margin: 0; }
.results dt { color: var(--_muted); }
.results dd { margin: 0; font-variant-numeric: tabular-nums; overflow-wrap: break-word; }
.results dd strong { font-weight: 600; }

@container (max-width: 30em) {
  .results { grid-template-columns: 1fr; }
  .results dd { margin-bottom: 0.3em; }
}
@media (prefers-reduced-motion: no-preference) {
  button, input, select, .verdict { transition: background-color 120ms ease, border-color 120ms ease; }
}
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { transition: none !important; animation: none !important; scroll-behavior: auto !important; }
}
`;

// The formula view: each equation is a row of <math> pieces that wraps at "=" and "+".
const FORMULA_CSS = `
.formula-block { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.5em; padding: 0.25em 0; }
.eq { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.1em 0.25em; }
.eq-label { color: var(--_muted); font-size: 0.9em; }
.eq.symbolic { color: var(--_muted); }
.log-line code { font-family: var(--kv-mono-font-family, ui-monospace, monospace); font-size: 0.85em; white-space: pre-wrap; overflow-wrap: anywhere; }
math { font-size: 1.15em; }
.term { color: var(--_accent); cursor: help; border-radius: 3px; }
.term:focus-visible { outline: 2px solid var(--_focus); outline-offset: 1px; }
.term.active { background: var(--_surface); }
.source-tip {
  font-size: 0.9em;
  padding: 0.3em 0.5em;
  border-radius: var(--_radius);
  background: var(--_surface);
  border-left: 3px solid var(--_accent);
  min-height: 2.1em;
  overflow-wrap: anywhere;
}
`;

// The chart (under the formula and check views). Its box: as wide as the element's content
// and as tall as chart-view.js draws it for that width (chartHeight: half the width, within
// 200 and 320 px; below 280 px wide, the drawing of 280 px scaled down).
const CHART_CSS = `
.chart .plot { display: block; width: 100%; height: clamp(min(200px, 71.43cqi), 50cqi, 320px); }
.chart .grid { stroke: var(--_border); stroke-width: 1; }
.chart .axis-label, .chart .tick { fill: var(--_muted); font-size: 11px; }
.chart .series { fill: none; stroke-width: 2; }
.chart .s1 { stroke: var(--_series-1); }
.chart .s2 { stroke: var(--_series-2); stroke-dasharray: 6 3; }
.chart .s3 { stroke: var(--_series-3); stroke-dasharray: 2 3; }
.chart .series.current { stroke-width: 3; }
.chart .pool-line { stroke: var(--_pool); stroke-width: 2; stroke-dasharray: 4 4; }
.chart .pool-label { fill: var(--_pool); font-size: 11px; }
.chart .marker { stroke: var(--_fg); stroke-width: 1; stroke-dasharray: 2 2; }
.chart .guide { stroke: var(--_focus); stroke-width: 2; }
.legend { display: flex; flex-wrap: wrap; gap: 0.25em 1em; margin: 0; padding: 0; list-style: none; font-size: 0.85em; }
.legend li { display: inline-flex; align-items: center; gap: 0.35em; }
.legend svg { width: 1.6em; height: 0.6em; }
`;

// The element's tables: the per-model table and the GQA view's.
const TABLE_CSS = `
.table-wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.9em; min-width: 100%; }
caption, .caption { text-align: left; font-weight: 500; color: var(--_muted); }
th, td { padding: 0.3em 0.5em; border-bottom: 1px solid var(--_border); text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
th[scope="row"] { font-weight: 500; min-width: 9em; }
.nobreak { white-space: nowrap; }
thead th { background: var(--_surface); white-space: nowrap; vertical-align: bottom; }
td.kind, th.kind { text-align: left; }
thead th button {
  border: 0; background: transparent; padding: 0.1em 0.2em; font-weight: 600; color: inherit; text-align: inherit;
}
thead th button::after { content: " \\2195"; color: var(--_muted); }
thead th[aria-sort="ascending"] button::after { content: " \\2191"; color: var(--_fg); }
thead th[aria-sort="descending"] button::after { content: " \\2193"; color: var(--_fg); }
tr.pasted th, tr.pasted td { background: var(--_surface); }
tr.current th[scope="row"] { font-weight: 700; }
/* The first column stays in view while the table scrolls sideways, so every figure keeps
   its row's name beside it; its cells are opaque to cover what scrolls under them. */
tbody th[scope="row"], thead th:first-child { position: sticky; left: 0; z-index: 1; }
tbody th[scope="row"] { background: var(--_bg); box-shadow: 1px 0 0 var(--_border); }
tr.pasted th[scope="row"] { background: var(--_surface); }
@container (max-width: 45em) {
  tbody th[scope="row"] { min-width: 7em; max-width: 9em; }
  td.weights { white-space: normal; min-width: 7em; }
  tbody th[scope="row"] .nobreak { white-space: normal; }
  thead th { white-space: normal; min-width: 4.5em; }
}
`;

// The GQA view. Its pictures' boxes are their height attribute (in px) by the element's width.
const GQA_CSS = `
.gqa-control { display: grid; gap: 0.3em; }
.gqa-control input[type="range"] { width: 100%; }
.ticks { display: flex; justify-content: space-between; font-size: 0.8em; color: var(--_muted); gap: 0.25em; }
.heads, .gqa-bars { width: 100%; display: block; }
.heads .q { fill: var(--_surface); stroke: var(--_series-1); }
.heads .kvh { fill: var(--_series-1); }
.heads .link { stroke: var(--_muted); stroke-width: 1; }
.heads text { fill: var(--_muted); font-size: 11px; }
.gqa-bars .bar { fill: var(--_series-1); }
.gqa-bars .bar.configured { fill: var(--_focus); }
.gqa-bars .pt.mla { fill: var(--_series-3); }
.gqa-bars .mla-guide { stroke: var(--_series-3); stroke-width: 1; stroke-dasharray: 2 3; }
.gqa-bars .axis { stroke: var(--_border); }
.gqa-bars text { fill: var(--_muted); font-size: 11px; }
.gqa-bars .label { fill: var(--_fg); font-size: 12px; }
`;

// The check view. Its bar's box is its height attribute (in px) by the element's width.
const CHECK_CSS = `
.check-inputs { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(12em, 100%), 1fr)); gap: 0.5em var(--_gap); }
fieldset { border: 1px solid var(--_border); border-radius: var(--_radius); padding: 0.5em 0.75em 0.75em; margin: 0; min-width: 0; display: grid; gap: 0.5em; }
legend { font-weight: 600; font-size: 0.9em; padding: 0 0.25em; }
.radios { display: flex; flex-wrap: wrap; gap: 0.25em 1em; }
.radios label { font-weight: 400; display: inline-flex; gap: 0.3em; align-items: center; }
.verdict { font-weight: 600; padding: 0.4em 0.6em; border-radius: var(--_radius); border-left: 4px solid var(--_muted); background: var(--_surface); }
.verdict.fits { border-left-color: var(--_ok); color: var(--_ok); }
.verdict.fails { border-left-color: var(--_bad); color: var(--_bad); }
.advice { margin: 0; padding-left: 1.2em; }
.advice li + li { margin-top: 0.2em; }
.bar { width: 100%; display: block; }
.bar .pool { fill: var(--_surface); stroke: var(--_border); }
.bar .req { fill: var(--_ok); }
.bar .req.over { fill: var(--_bad); }
.bar .limit { stroke: var(--_fg); stroke-width: 2; }
.bar text { fill: var(--_fg); font-size: 12px; }
`;

// A baked render where no script runs: the figures, without inputs that could not work
// (last: it wins over the views' own display).
const NO_SCRIPT_CSS = `
@media (scripting: none) {
  .controls, .download, .gqa-control, .check-inputs, fieldset, .source-tip, .readout { display: none; }
}
`;

/** The element's whole style sheet (dist/kvcalc.css is this text, minified). */
export const ELEMENT_CSS = BASE_CSS + FORMULA_CSS + CHART_CSS + TABLE_CSS + GQA_CSS + CHECK_CSS + NO_SCRIPT_CSS;

// The parts the standalone SVG figures (web/api/svg.js) read: the element's colours (its
// box's rules) and the figures' rules.
export { BASE_CSS, CHART_CSS, GQA_CSS };

let sheet = null;
/** ELEMENT_CSS as one CSSStyleSheet, made once and adopted by every element without a baked one. */
export function elementSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(ELEMENT_CSS);
  }
  return sheet;
}
