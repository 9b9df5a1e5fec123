// The element's one door to the JS API: every <kv-calc> on a page shares one core (one
// wasm instance), and a small memo of results, since views ask for the same sizes again on
// every re-render (the table, the chart, the GQA points).
//
// Which core (web/cores.js): formula, chart and GQA views need only the size-only core (a
// third smaller); the table view the table core (size and table); the check view the check
// core (size and check); a page with a table and a check the full one. The elements a page's
// parse connects ask in the same task, and one core serves them all: the smallest that has
// every call any of them needs. An element that needs another call later (its view changed
// to check) loads the smallest core with that call and every call of the one loaded, and
// every element moves to it at its next render.

import { load } from '../api.js';
import { coreFor, covers } from '../cores.js';

let batch = null;          // this task's askers: { core, promise }
let asked = 'size';        // the smallest core with every call asked for so far
const engines = new Map(); // the API object of a core -> its Engine
let best = null;           // the Engine of the most capable core loaded so far

// Resolves to the page's Engine for a core. load() answers with a more capable core when one
// is loaded or loading, and one Engine serves each core's API object.
export function engine(core = 'full') {
  if (!batch) {
    const b = (batch = { core: asked });
    b.promise = Promise.resolve().then(() => {
      batch = null;
      return load({ core: b.core }).then((kv) => {
        if (!engines.has(kv)) engines.set(kv, new Engine(kv));
        const e = engines.get(kv);
        if (!best || e.serves(best.kv.core)) best = e;
        return e;
      });
    });
  }
  batch.core = asked = coreFor([batch.core, core]);
  return batch.promise;
}

// The Engine of the most capable core loaded so far, else null.
export function loadedEngine() {
  return best;
}

const MEMO_LIMIT = 2000;

export class Engine {
  constructor(kv) {
    this.kv = kv;
    this.memo = new Map();
    this.configIds = new Map();  // config text -> short key for the memo
    this.lists = {};
  }

  // The bundled presets and GPUs, read when first needed (the preset list sizes every
  // preset, so the first result does not wait for it).
  get presetList() {
    return (this.lists.presets ??= this.kv.presets());
  }

  get gpuList() {
    return (this.lists.gpus ??= this.serves('check') ? this.kv.gpuPresets() : []);
  }

  configKey(config) {
    // A preset id is short; a config text gets a number (texts can be long).
    if (config.length < 200 && !/^\s*[{["]/.test(config)) return `p:${config}`;
    let id = this.configIds.get(config);
    if (id === undefined) {
      id = this.configIds.size;
      this.configIds.set(config, id);
    }
    return `t:${id}`;
  }

  memoized(kind, config, options, call) {
    const key = `${kind}|${kind === 'table' ? config : this.configKey(config)}|${JSON.stringify(options)}`;
    let hit = this.memo.get(key);
    if (hit === undefined) {
      try {
        hit = { value: call() };
      } catch (error) {
        hit = { error };
      }
      if (this.memo.size >= MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value);
      this.memo.set(key, hit);
    }
    if (hit.error) throw hit.error;
    return hit.value;
  }

  // The size result (camelCase keys) of a config text or preset id; throws KvCalcError.
  size(config, options) {
    return this.memoized('size', config, options, () => this.kv.size(config, options));
  }

  // The formula terms (the JS API's formula()), with the size result as .report.
  formula(config, options) {
    return this.memoized('formula', config, options, () => this.kv.formula(config, options));
  }

  // The per-model table over a list of configs (preset ids or texts).
  table(configs, options) {
    return this.memoized('table', configs.map((c) => this.configKey(c)).join('\u0000'), options,
      () => this.kv.table(configs, options));
  }

  check(config, options) {
    return this.memoized('check', config, options, () => this.kv.check(config, options));
  }

  // The text of a bundled preset's config.json.
  presetConfig(id) {
    return this.kv.presetConfig(id);
  }

  // True when this Engine's core has every call of `core`.
  serves(core) {
    return covers(this.kv.core, core);
  }
}
