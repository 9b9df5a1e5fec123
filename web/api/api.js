// The JS API: load() once per page (one wasm instance), then size / formula / check / model
// / table / presets / gpuPresets, or the same calls on the object load() resolves to. This file is
// in kvcalc.js, which every page fetches; the calls and the Embind glue (api-calls.js) and
// the wasm are fetched by the first load(), so a page whose elements are not yet near the
// viewport fetches neither.

import { KvCalcError } from './errors.js';

export { KvCalcError };

/** Where the wasm module is, beside this module. In Node: load({ wasmBinary: readFileSync(wasmUrl) }). */
export const wasmUrl = new URL('./kvcalc_core.wasm', import.meta.url);

let pending = null; // the page's one promise of the API object
let loaded = null;  // the API object, once loaded

/**
 * Loads the wasm module, once per page: every call returns the same promise, whatever its
 * options (the first call's options are used). After a failed load, the next call retries.
 * @param {{wasmBinary?: ArrayBuffer | ArrayBufferView, wasmUrl?: string | URL}} [options]
 */
export function load(options = {}) {
  pending ??= start(options ?? {}).then(
    (api) => (loaded = api),
    (cause) => {
      pending = null;
      throw cause instanceof KvCalcError
        ? cause
        : new KvCalcError({ code: 'load_failed', message: `kvcalc: could not load the wasm module: ${cause?.message ?? cause}` +
            (globalThis.process?.versions?.node ? ' (in Node, pass load({ wasmBinary: readFileSync(wasmUrl) }))' : '') });
    },
  );
  return pending;
}

// In a page, the wasm is fetched and compiled (as it streams in) at the same time as the
// calls' code is fetched, not after: one round trip less before the first result.
async function start(options) {
  let compiled = null;
  if (options.wasmBinary === undefined && globalThis.location && typeof WebAssembly.compileStreaming === 'function') {
    const href = new URL(String(options.wasmUrl ?? wasmUrl), location.href).href;
    // A server that does not send application/wasm cannot stream it: fetched again whole.
    compiled = WebAssembly.compileStreaming(fetch(href)).catch(() => fetch(href).then((r) => {
      if (!r.ok) throw new Error(`${href}: HTTP ${r.status}`);
      return r.arrayBuffer();
    }).then((bytes) => WebAssembly.compile(bytes)));
    compiled.catch(() => {});  // reported by instantiate(), which awaits it
  }
  const { instantiate } = await import('./api-calls.js');
  return instantiate(options, wasmUrl, compiled);
}

// The loaded API, or a KvCalcError that says what to do.
function api() {
  if (loaded) return loaded;
  throw new KvCalcError({
    code: 'not_loaded',
    message: pending
      ? 'kvcalc is still loading: await the promise from load() before calling it (const kv = await load())'
      : 'kvcalc is not loaded: call load() first and await it (const kv = await load(); kv.size(...))',
  });
}

/** The calls of the loaded API object (api-calls.js), usable once load() has resolved. */
export const size = (config, options) => api().size(config, options);
export const formula = (config, options) => api().formula(config, options);
export const model = (config) => api().model(config);
export const check = (config, options) => api().check(config, options);
export const table = (configs, options) => api().table(configs, options);
export const gpuPresets = () => api().gpuPresets();
export const presets = () => api().presets();
export const presetConfig = (id) => api().presetConfig(id);
export const svg = (config, options) => api().svg(config, options);
export const readGguf = (blob, options) => api().readGguf(blob, options);
