// The JS API's calls over the wasm module: instantiate() runs the Embind glue (bundled into
// this file) and answers the API object load() resolves to: size / formula / check / model /
// table / presets / gpuPresets, each the CLI's JSON report in camelCase, or a KvCalcError. Fetched
// by the first load() (web/api/api.js), so a page that only shows fallbacks never fetches it.
// The core does all the work; this file only moves text in and out of it (and a model's
// figures(), numbers the core writes into the wasm memory).

import { KvCalcError } from './errors.js';
import { axesText, camelKeys, optionsText, renameOptionError, toJsonText } from './convert.js';
import { formulaOf } from './formula.js';
import createKvcalcModule from './kvcalc_core.mjs';

/**
 * The API object over a new instance of the wasm module.
 * @param {{wasmBinary?: ArrayBuffer | ArrayBufferView, wasmUrl?: string | URL}} options
 * @param {URL} wasmUrl  where the wasm is by default (beside kvcalc.js)
 * @param {Promise<WebAssembly.Module> | null} compiled  the wasm, already being fetched and compiled
 */
export async function instantiate({ wasmBinary, wasmUrl: url }, wasmUrl, compiled) {
  const args = {};
  if (wasmBinary !== undefined) {
    if (!(wasmBinary instanceof ArrayBuffer) && !ArrayBuffer.isView(wasmBinary)) {
      throw new KvCalcError({ code: 'bad_option', message: `wasmBinary: must be an ArrayBuffer or a typed array (the bytes of kvcalc_core.wasm)`, field: 'wasmBinary' });
    }
    args.wasmBinary = wasmBinary instanceof ArrayBuffer ? new Uint8Array(wasmBinary) : wasmBinary;
  } else if (compiled) {
    const wasm = await compiled;
    let fail;
    const failed = new Promise((_, reject) => { fail = reject; });
    // Emscripten's hook for a module compiled elsewhere: it waits for receive().
    args.instantiateWasm = (imports, receive) => {
      WebAssembly.instantiate(wasm, imports).then((instance) => receive(instance, wasm), fail);
      return {};
    };
    return makeApi(await Promise.race([createKvcalcModule(args), failed]));
  } else {
    const href = url === undefined ? wasmUrl.href : new URL(String(url), globalThis.location?.href ?? import.meta.url).href;
    args.locateFile = () => href;
  }
  return makeApi(await createKvcalcModule(args));
}

// The core refuses JSON texts above 1 MiB (core/config/json.hpp max_json_bytes). A text far
// above that never reaches the wasm memory: copying it in could exhaust it. Same words.
const MAX_JSON_BYTES = 1024 * 1024;
// Options may carry a whole engine log as pasted (core/config/json.hpp max_options_bytes).
const MAX_OPTIONS_BYTES = 64 * 1024 * 1024;
function refuseHugeText(text, max = MAX_JSON_BYTES) {
  if (text.length * 3 <= max) return;  // UTF-8 is at most 3 bytes per UTF-16 unit
  const bytes = new Blob([text]).size;
  if (bytes > max) {
    throw new KvCalcError({ code: 'invalid_value', message: max === MAX_JSON_BYTES
      ? `the JSON text is ${bytes} bytes, more than kvcalc reads (1 MiB, ${MAX_JSON_BYTES} bytes: a config.json is kilobytes)`
      : `the JSON text is ${bytes} bytes, more than kvcalc reads (${max} bytes)` });
  }
}

// The key of the private heap hook on the API object.
const HEAP_HOOK = Symbol.for('kvcalc.heap');

// Parsed models kept by their config text, each a handle the core gave (openModel): sizing
// a config seen before re-reads nothing. Bounded; a handle pushed out is closed (its wasm
// memory freed). No caller ever holds a handle (a KvModel holds its text and asks here), so
// pushing one out costs at most a re-read.
export const MODEL_HANDLES = 64;

class Handles {
  #module;
  #byText = new Map(); // text -> { handle, error }, least recently used first

  constructor(module) {
    this.#module = module;
  }

  // The entry for a config text: { handle, error: null | the core's error object }.
  get(text) {
    let entry = this.#byText.get(text);
    if (entry) {
      this.#byText.delete(text);
    } else {
      refuseHugeText(text);
      const opened = JSON.parse(this.#module.openModel(text));
      entry = { handle: opened.handle ?? 0, error: opened.error ?? null };
      if (this.#byText.size >= MODEL_HANDLES) {
        const [oldest, old] = this.#byText.entries().next().value;
        this.#byText.delete(oldest);
        if (old.handle) this.#module.closeModel(old.handle);
      }
    }
    this.#byText.set(text, entry);
    return entry;
  }
}

// The API object load() resolves to; the module-level functions below forward to it.
function makeApi(module) {
  // Runs one core call (fn on the module, or a method on a Model handle); the core answers
  // text, with bad input as {"error": {...}}.
  const callText = (what, fn, ...texts) => callWithin(MAX_JSON_BYTES, what, fn, ...texts);
  const callWithin = (max, what, fn, ...texts) => {
    for (const text of texts) refuseHugeText(text, max);
    try {
      return fn(...texts);
    } catch (cause) {
      // Only a bug can get here (the core never throws; an abort in the wasm would).
      throw new KvCalcError({ code: 'internal_error', message: `kvcalc: the wasm module failed in ${what}: ${cause?.message ?? cause}` });
    }
  };
  const call = (name, ...texts) => JSON.parse(callText(name, (...a) => module[name](...a), ...texts));
  // The option names the core's messages use, and the JS names they are told in: the
  // core's one table of options (kv_dtype -> kvDtype), read at the first error: a call that
  // succeeds does not wait for it.
  let optionNames = null;
  const jsNames = () => (optionNames ??= new Map(call('options').map((o) => [o.name, o.js])));
  const failure = (error, names) => new KvCalcError(renameOptionError(error, names, jsNames()));
  // A report from the core's text: its object with camelCase keys, or the KvCalcError.
  const answer = (text, names) => {
    const result = JSON.parse(text);
    if (result.error) throw failure(result.error, names);
    return camelKeys(result);
  };
  const handles = new Handles(module);
  // The model handle of a config (text, object or preset id); throws its reading's error.
  const modelOf = (text) => {
    const entry = handles.get(text);
    if (entry.error) throw failure(entry.error, new Map());
    return entry.handle;
  };
  // A model's report call: fn 'size' or 'check', the options as the core's JSON.
  const modelCall = { size: module.modelSize, check: module.modelCheck };
  const modelReport = (text, fn, options) => {
    const handle = modelOf(text);
    const { text: optionsJson, names } = optionsText(options);
    return answer(callWithin(MAX_OPTIONS_BYTES, `${fn}()`, (o) => modelCall[fn](handle, o), optionsJson), names);
  };
  // A model's figures: the core writes them into the wasm memory (no report text to build or
  // parse) and answers their accounting, or the error's report. Their names, in the order it
  // writes them, and where, are read at the first call; the view is made again when the
  // memory grows (a grown memory has a new buffer).
  let figureNames = null;
  let figureView = null;
  const figures = (text, options) => {
    const handle = modelOf(text);
    const { text: optionsJson, names } = optionsText(options);
    const answer = callWithin(MAX_OPTIONS_BYTES, 'figures()', (o) => module.modelFigures(handle, o), optionsJson);
    if (answer[0] === '{') throw failure(JSON.parse(answer).error, names);
    figureNames ??= module.figureNames().split(',');
    if (figureView?.buffer !== module.HEAPU8.buffer) {
      figureView = new Float64Array(module.HEAPU8.buffer, module.figuresAddress(), figureNames.length);
    }
    const out = { accounting: answer };
    for (let i = 0; i < figureNames.length; i++) out[figureNames[i]] = figureView[i];
    return out;
  };
  const series = (text, options, axes) => {
    const handle = modelOf(text);
    const { text: optionsJson, names } = optionsText(options);
    const { text: axesJson, names: axisNames } = axesText(axes);
    for (const [k, v] of axisNames) names.set(k, v);
    const result = answer(callText('series()', (o, a) => module.modelSeries(handle, o, a), optionsJson, axesJson), names);
    // A series the core could not figure (fp8_ds_mla on a model without MLA, a KV-head
    // count that does not divide the query heads) carries its error; the others stand.
    for (const s of result.series) if (s.error) s.error = renameOptionError(s.error, names, jsNames());
    return result;
  };

  let presetList = null; // the core's text; parsed afresh per call so callers may mutate
  const calls = {
    size: (config, options) => modelReport(configTextOf(config), 'size', options),
    formula: (config, options) => formulaOf(modelReport(configTextOf(config), 'size', options)),
    check: (config, options) => modelReport(configTextOf(config), 'check', options),
    model(config) {
      const text = configTextOf(config);
      modelOf(text);  // a config that cannot be read throws now
      return new KvModel(text, { modelReport, figures, series });
    },
    table(configs, options) {
      if (!Array.isArray(configs)) {
        throw new KvCalcError({ code: 'bad_option', message: 'configs: must be a list of preset ids, config texts or config objects', field: 'configs' });
      }
      const { text, names } = optionsText(options);
      return answer(callText('table()', (c, o) => module.table(c, o), toJsonText(configs, 'configs'), text), names);
    },
    gpuPresets: () => camelKeys(call('gpuPresets')),
    // A standalone SVG figure, drawn by the element's chart code (web/api/svg.js, fetched when
    // first asked for).
    svg: (config, options) => import('./svg.js').then(({ svgFigure }) => svgFigure(calls, config, options)),
    // A GGUF file's metadata as the config text the other calls take, read in slices
    // (web/api/gguf-read.js, fetched when first asked for).
    readGguf: (blob, options) => import('./gguf-read.js').then(({ readGguf }) => readGguf(module, blob, options)),
    presets: () => camelKeys(JSON.parse((presetList ??= callText('presets()', () => module.presets())))),
    presetConfig(id) {
      const text = typeof id === 'string' ? callText('presetConfig()', (i) => module.presetConfig(i), id) : '';
      if (!text) {
        throw new KvCalcError({ code: 'unknown_preset', message: `${JSON.stringify(String(id))} is not a bundled preset id (see presets())`, field: 'id' });
      }
      return text;
    },
  };
  // Not API: the bytes the wasm allocator has handed out and the memory's size, for the
  // tests that check the heap stays flat (tests/js/support.mjs heapOf).
  Object.defineProperty(calls, HEAP_HOOK, {
    value: () => ({ inUse: module.heapInUse(), memoryBytes: module.HEAPU8.buffer.byteLength }),
  });
  return Object.freeze(calls);
}

/**
 * One model, read once, evaluated many times: what kv.model(config) answers. Its calls take
 * and give what the API's do (camelCase options in, the CLI's JSON in camelCase out,
 * KvCalcError on bad input), without reading the config again.
 */
class KvModel {
  #text;
  #calls;

  constructor(text, calls) {
    this.#text = text;
    this.#calls = calls;
  }

  /** As the API's size(config, options). */
  size(options) {
    return this.#calls.modelReport(this.#text, 'size', options);
  }

  /** As the API's formula(config, options). */
  formula(options) {
    return formulaOf(this.#calls.modelReport(this.#text, 'size', options));
  }

  /**
   * size()'s headline figures without its report, for a view redrawn on every input: the
   * report's context, batch, tp, pp, accounting, kvDtypeBits, bytesPerToken,
   * bytesPerTokenPerGpu, stateBytes, sequenceBytesNaive / Resident / Vllm, kvBytes,
   * kvBytesPerGpu and kvBytesDeployment, each equal to size(options)'s. The options are
   * checked as size() checks them (the same KvCalcError).
   */
  figures(options) {
    return this.#calls.figures(this.#text, options);
  }

  /** As the API's check(config, options). */
  check(options) {
    return this.#calls.modelReport(this.#text, 'check', options);
  }

  /**
   * Many figures in one call: for each variant (the model as configured, {kvHeads: n}, or
   * 'mla') and KV dtype, the bytes per token and the KV bytes at each context.
   */
  series(options, axes) {
    return this.#calls.series(this.#text, options, axes);
  }
}

function configTextOf(config) {
  if (typeof config === 'string') return config;
  if (config === null || typeof config !== 'object') {
    const got = config === null ? 'null' : typeof config;
    throw new KvCalcError({ code: 'invalid_value', message: `config: must be JSON text, a config object or a preset id, got ${got}`, field: 'config' });
  }
  return toJsonText(config, 'config');
}
