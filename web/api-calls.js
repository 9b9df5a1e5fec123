// The JS API's calls over the wasm module: instantiate() runs the Embind glue (bundled into
// this file) and answers the API object load() resolves to: size / formula / check / table /
// presets / gpuPresets, each the CLI's JSON report in camelCase, or a KvCalcError. Fetched
// by the first load() (web/api.js), so a page that only shows fallbacks never fetches it.
// The core does all the work; this file only moves text in and out of it.

import { KvCalcError } from './errors.js';
import { camelKeys, optionsText, renameOptionError, toJsonText } from './convert.js';
import { formulaOf } from './formula.js';
import createKvcalcModule from './kvcalc_core.mjs';

/**
 * The API object over a new instance of the wasm module.
 * @param {{wasmBinary?: ArrayBuffer | ArrayBufferView, wasmUrl?: string | URL}} options
 * @param {URL} wasmUrl  where the wasm is by default (beside kvcalc.js)
 */
export async function instantiate({ wasmBinary, wasmUrl: url }, wasmUrl) {
  return makeApi(await createKvcalcModule(moduleArgs(wasmBinary, url, wasmUrl)));
}

function moduleArgs(wasmBinary, url, wasmUrl) {
  const args = {};
  if (wasmBinary !== undefined) {
    if (!(wasmBinary instanceof ArrayBuffer) && !ArrayBuffer.isView(wasmBinary)) {
      throw new KvCalcError({ code: 'bad_option', message: `wasmBinary: must be an ArrayBuffer or a typed array (the bytes of kvcalc_core.wasm)`, field: 'wasmBinary' });
    }
    args.wasmBinary = wasmBinary instanceof ArrayBuffer ? new Uint8Array(wasmBinary) : wasmBinary;
  } else {
    const href = url === undefined ? wasmUrl.href : new URL(String(url), globalThis.location?.href ?? import.meta.url).href;
    args.locateFile = () => href;
  }
  return args;
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

// The key of the private heap hook on the API object.
const HEAP_HOOK = Symbol.for('kvcalc.heap');

// The API object load() resolves to; the module-level functions below forward to it.
function makeApi(module) {
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
  const calls = {
    size: (config, options) => sized('size', config, options),
    formula: (config, options) => formulaOf(sized('size', config, options)),
    check: (config, options) => sized('check', config, options),
    table(configs, options) {
      if (!Array.isArray(configs)) {
        throw new KvCalcError({ code: 'bad_option', message: 'configs: must be a list of preset ids, config texts or config objects', field: 'configs' });
      }
      return report('table', toJsonText(configs, 'configs'), options);
    },
    gpuPresets: () => camelKeys(call('gpuPresets')),
    presets: () => camelKeys(JSON.parse((presetList ??= callText('presets')))),
    presetConfig(id) {
      const text = typeof id === 'string' ? callText('presetConfig', id) : '';
      if (!text) {
        throw new KvCalcError({ code: 'unknown_preset', message: `${JSON.stringify(String(id))} is not a bundled preset id (see presets())`, field: 'id' });
      }
      return text;
    },
  };
  // Not API: the bytes the wasm allocator has handed out and the memory's size, for the
  // tests that check the heap stays flat (tests/js/support.mjs heapOf).
  Object.defineProperty(calls, HEAP_HOOK, {
    value: () => ({
      inUse: typeof module.heapInUse === 'function' ? module.heapInUse() : JSON.parse(module.heapStats()).in_use,
      memoryBytes: module.HEAPU8.buffer.byteLength,
    }),
  });
  return Object.freeze(calls);
}

function configTextOf(config) {
  if (typeof config === 'string') return config;
  if (config === null || typeof config !== 'object') {
    const got = config === null ? 'null' : typeof config;
    throw new KvCalcError({ code: 'invalid_value', message: `config: must be JSON text, a config object or a preset id, got ${got}`, field: 'config' });
  }
  return toJsonText(config, 'config');
}
