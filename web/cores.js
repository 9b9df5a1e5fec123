// The three wasm cores, least capable first: each has every call of the ones before it
// ('size': size, formula, presets, presetConfig; 'table': those and table; 'full': every
// call). web/api.js loads them; the element picks the one its views need.
export const CORES = ['size', 'table', 'full'];

// True when core `have` has every call of core `need`.
export const covers = (have, need) => CORES.indexOf(have) >= CORES.indexOf(need);

// The least capable core that has every call of each of `needs` ('size' for none).
export const coreFor = (needs) => needs.reduce((a, b) => (covers(a, b) ? a : b), 'size');
