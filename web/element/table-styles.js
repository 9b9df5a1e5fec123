// The styles of the element's tables (the per-model table and the GQA view's table): loaded
// with those views, not with kvcalc.js, since a formula page has no table.

const CSS = `
.table-wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.9em; min-width: 100%; }
caption, .caption { text-align: left; font-weight: 500; color: var(--_muted); }
th, td { padding: 0.3rem 0.5rem; border-bottom: 1px solid var(--_border); text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
th[scope="row"] { font-weight: 500; min-width: 9rem; }
.nobreak { white-space: nowrap; }
thead th { background: var(--_surface); white-space: nowrap; vertical-align: bottom; }
td.kind, th.kind { text-align: left; }
thead th button {
  border: 0; background: transparent; padding: 0.1rem 0.2rem; font-weight: 600; color: inherit; text-align: inherit;
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
@container (max-width: 45rem) {
  tbody th[scope="row"] { min-width: 7rem; max-width: 9rem; }
  td.weights { white-space: normal; min-width: 7rem; }
  tbody th[scope="row"] .nobreak { white-space: normal; }
  thead th { white-space: normal; min-width: 4.5rem; }
}
`;
export const TABLE_CSS = CSS;
