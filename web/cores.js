// The four wasm cores and the calls each adds to the size core's (size, formula, presets,
// presetConfig): 'table' the table, 'check' the check and GPU list, 'full' all of them.
// Smallest first. web/api.js loads them; the element picks the one its views need.
const EXTRA = { size: [], table: ['table'], check: ['check'], full: ['table', 'check'] };
export const CORES = Object.keys(EXTRA);

// True when core `have` has every call of core `need`.
export const covers = (have, need) => EXTRA[need].every((call) => EXTRA[have].includes(call));

// The smallest core that has every call of each of `needs` ('size' for none).
export const coreFor = (needs) => CORES.find((c) => needs.every((n) => covers(c, n)));
