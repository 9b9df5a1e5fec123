// The sections each view shows, and the code of each: a file of its own, loaded when an
// element first shows it, so a page loads the code of the views it shows and of no other
// (and llama.cpp's only where its engine shows).
// The chart has no file: the formula and check views, which show it, each carry it (their
// `chart` export).

export const SECTIONS = {
  formula: ['formula', 'chart'],
  table: ['table'],
  gqa: ['gqa'],
  check: ['check', 'chart'],   // in this order on screen
  all: ['formula', 'chart', 'table', 'gqa', 'check'],
};

const SECTION_CODE = {
  // Not a section: llama.cpp's controls and arithmetic, which its engine's elements add.
  llamacpp: () => import('./llamacpp-view.js'),
  formula: () => import('./formula-view.js'),
  table: () => import('./table-view.js'),
  gqa: () => import('./gqa-view.js'),
  check: () => import('./check-view.js'),
};
const loads = {};   // section -> Promise of its module
const modules = {}; // section -> its module, once loaded

// Resolves when the code of every named section is here; a failure is retried next time.
export const loadSections = (names) => Promise.all(names.filter((n) => SECTION_CODE[n]).map((n) =>
  (loads[n] ??= SECTION_CODE[n]().then((m) => (modules[n] = m), (err) => {
    delete loads[n];
    throw err;
  }))));

// A section's module once loaded, else undefined: the chart's is in whichever file of its
// views came first.
export const sectionModule = (name) => (name === 'chart' ? (modules.formula ?? modules.check)?.chart : modules[name]);
