// The JS API over the wasm core: load() once per page, then size / formula / check / table /
// presets / gpuPresets, each answering with the CLI's JSON report in camelCase, or throwing
// KvCalcError.
// The core does all the work; this file only moves text in and out of it.

import { KvCalcError } from './errors.js';
import { camelKeys, optionsText, renameOptionError, toJsonText } from './convert.js';
import { formulaOf } from './formula.js';
import { CORES as ORDER, covers } from './cores.js';

export { KvCalcError };

/** Where the full module's wasm is, beside this module. In Node: load({ wasmBinary: readFileSync(wasmUrl) }). */
export const wasmUrl = new URL('./kvcalc_core.wasm', import.meta.url);
/** Where the table module's wasm is: load({ core: 'table', wasmBinary: readFileSync(tableWasmUrl) }). */
export const tableWasmUrl = new URL('./kvcalc_table.wasm', import.meta.url);
/** Where the check module's wasm is: load({ core: 'check', wasmBinary: readFileSync(checkWasmUrl) }). */
export const checkWasmUrl = new URL('./kvcalc_check.wasm', import.meta.url);
/** Where the size-only module's wasm is: load({ core: 'size', wasmBinary: readFileSync(sizeWasmUrl) }). */
export const sizeWasmUrl = new URL('./kvcalc_size.wasm', import.meta.url);

// The four cores (web/cores.js) are the same C++ built four times with more or fewer calls;
// 'size' is a third smaller than 'full', for pages that only size. They share one Embind
// glue (kvcalc_core.mjs), which is told which wasm to run.
const CORES = {
  size: { url: sizeWasmUrl, file: 'kvcalc_size.wasm', name: 'size-only' },
  table: { url: tableWasmUrl, file: 'kvcalc_table.wasm', name: 'table' },
  check: { url: checkWasmUrl, file: 'kvcalc_check.wasm', name: 'check' },
  full: { url: wasmUrl, file: 'kvcalc_core.wasm', name: 'full' },
};
const pending = {}; // core -> the page's one promise for it
const loaded = {}; // core -> its API object, once loaded
// The most capable core in `have` (core -> promise or API object) with every call of `core`.
const mostCapable = (core, have) => [...ORDER].reverse().find((c) => have[c] && covers(c, core));

/**
 * Loads the wasm module, once per page: every call returns the same promise, whatever its
 * other options (the first call's options are used). After a failed load, the next call
 * retries. `core: 'table'`, `'check'` and `'size'` load a smaller core, unless one that
 * does everything it does is already loading.
 * @param {{core?: 'full' | 'table' | 'check' | 'size', wasmBinary?: ArrayBuffer | ArrayBufferView, wasmUrl?: string | URL}} [options]
 */
export function load(options = {}) {
  const core = options?.core ?? 'full';
  if (!Object.hasOwn(CORES, core)) {
    return Promise.reject(new KvCalcError({ code: 'bad_option', message: `core: must be "full", "table", "check" or "size", got ${JSON.stringify(String(core))}`, field: 'core' }));
  }
  const serving = mostCapable(core, pending);
  if (serving) return pending[serving];
  if (!pending[core]) {
    pending[core] = instantiate(core, options ?? {}).then(
      (module) => {
        loaded[core] = makeApi(module, core);
        return loaded[core];
      },
      (cause) => {
        pending[core] = null;
        throw cause instanceof KvCalcError
          ? cause
          : new KvCalcError({ code: 'load_failed', message: `kvcalc: could not load the wasm module: ${cause?.message ?? cause}` +
              (globalThis.process?.versions?.node ? ' (in Node, pass load({ wasmBinary: readFileSync(wasmUrl) }))' : '') });
      },
    );
  }
  return pending[core];
}

async function instantiate(core, { wasmBinary, wasmUrl: url }) {
  const args = {};
  if (wasmBinary !== undefined) {
    if (!(wasmBinary instanceof ArrayBuffer) && !ArrayBuffer.isView(wasmBinary)) {
      throw new KvCalcError({ code: 'bad_option', message: `wasmBinary: must be an ArrayBuffer or a typed array (the bytes of ${CORES[core].file})`, field: 'wasmBinary' });
    }
    args.wasmBinary = wasmBinary instanceof ArrayBuffer ? new Uint8Array(wasmBinary) : wasmBinary;
  } else {
    const href = url === undefined ? CORES[core].url.href : new URL(String(url), globalThis.location?.href ?? import.meta.url).href;
    args.locateFile = () => href;
  }
  const { default: createKvcalcModule } = await import('./kvcalc_core.mjs');
  return createKvcalcModule(args);
}

// The core refuses JSON texts above 1 MiB (core/json_text.hpp max_json_bytes). A text far
// above that never reaches the wasm memory: copying it in could exhaust it. Same words.
const MAX_JSON_BYTES = 1024 * 1024;
function refuseHugeText(text) {
  if (text.length * 3 <= MAX_JSON_BYTES) return;  // UTF-8 is at most 3 bytes per UTF-16 unit
  const bytes = new Blob([text]).size;
  if (bytes > MAX_JSON_BYTES) {
    throw new KvCalcError({ code: 'invalid_value', message: `the JSON text is ${bytes} bytes, more than kvcalc reads (1 MiB, ${MAX_JSON_BYTES} bytes: a config.json is kilobytes)` });
  }
}

// The API object load() resolves to; the module-level functions below forward to it.
function makeApi(module, core) {
  // Runs one core call; the core answers text, with bad input as {"error": {...}}.
  const callText = (fn, ...texts) => {
    for (const text of texts) refuseHugeText(text);
    try {
      return module[fn](...texts);
    } catch (cause) {
      // Only a bug can get here (the core never throws; an abort in the wasm would).
      throw new KvCalcError({ code: 'internal_error', message: `kvcalc: the wasm module failed in ${fn}: ${cause?.message ?? cause}` });
    }
  };
  const call = (fn, ...texts) => JSON.parse(callText(fn, ...texts));
  // A report call: the first argument as text, the options as the core's JSON.
  const report = (fn, firstText, options) => {
    const { text, names } = optionsText(options);
    const result = call(fn, firstText, text);
    if (result.error) throw new KvCalcError(renameOptionError(result.error, names));
    return camelKeys(result);
  };
  const sized = (fn, config, options) => report(fn, configTextOf(config), options);
  let presetList = null; // the core's text; parsed afresh per call so callers may mutate
  // A smaller core lacks the table, or the check and GPU list, or both: asking for them says
  // how to get them.
  const full = (fn, run) => (typeof module[fn] === 'function' ? run : () => {
    throw new KvCalcError({ code: 'not_loaded', message: `${fn}() is not in the ${CORES[core].name} core: load the full one with load() (kvcalc_core.wasm)` });
  });
  return Object.freeze({
    core,
    size: (config, options) => sized('size', config, options),
    formula: (config, options) => formulaOf(sized('size', config, options)),
    check: full('check', (config, options) => sized('check', config, options)),
    table: full('table', (configs, options) => {
      if (!Array.isArray(configs)) {
        throw new KvCalcError({ code: 'bad_option', message: 'configs: must be a list of preset ids, config texts or config objects', field: 'configs' });
      }
      return report('table', toJsonText(configs, 'configs'), options);
    }),
    gpuPresets: full('gpuPresets', () => camelKeys(call('gpuPresets'))),
    presets: () => camelKeys(JSON.parse((presetList ??= callText('presets')))),
    presetConfig(id) {
      const text = typeof id === 'string' ? callText('presetConfig', id) : '';
      if (!text) {
        throw new KvCalcError({ code: 'unknown_preset', message: `${JSON.stringify(String(id))} is not a bundled preset id (see presets())`, field: 'id' });
      }
      return text;
    },
    heapStats: () => ({ ...camelKeys(call('heapStats')), memoryBytes: module.HEAPU8.buffer.byteLength }),
  });
}

function configTextOf(config) {
  if (typeof config === 'string') return config;
  if (config === null || typeof config !== 'object') {
    const got = config === null ? 'null' : typeof config;
    throw new KvCalcError({ code: 'invalid_value', message: `config: must be JSON text, a config object or a preset id, got ${got}`, field: 'config' });
  }
  return toJsonText(config, 'config');
}

// The loaded core that answers a module-level call needing core `need`: the most capable
// one that has the call, else the most capable one (whose call then says how to get it).
function api(need = 'size') {
  const core = mostCapable(need, loaded) ?? mostCapable('size', loaded);
  if (core) return loaded[core];
  throw new KvCalcError({
    code: 'not_loaded',
    message: Object.values(pending).some(Boolean)
      ? 'kvcalc is still loading: await the promise from load() before calling it (const kv = await load())'
      : 'kvcalc is not loaded: call load() first and await it (const kv = await load(); kv.size(...))',
  });
}

/** @see makeApi: the same calls, usable once load() has resolved. */
export const size = (config, options) => api().size(config, options);
export const formula = (config, options) => api().formula(config, options);
export const check = (config, options) => api('check').check(config, options);
export const table = (configs, options) => api('table').table(configs, options);
export const gpuPresets = () => api('check').gpuPresets();
export const presets = () => api().presets();
export const presetConfig = (id) => api().presetConfig(id);
export const heapStats = () => api().heapStats();
