// The element's one door to the JS API: every <kv-calc> on a page shares one wasm instance
// (load() is idempotent) and one Engine, with a small memo of results, since views ask for
// the same sizes again on every re-render (the table, the chart, the GQA points).

import { load } from '../api/api.js';

let shared = null; // the page's promise of its Engine
let ready = null;  // the Engine, once loaded

// Resolves to the page's Engine; a failed load is retried by the next call.
export function engine() {
  shared ??= load().then((kv) => (ready = new Engine(kv)), (err) => {
    shared = null;
    throw err;
  });
  return shared;
}

// The page's Engine once loaded, else null.
export function loadedEngine() {
  return ready;
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
    return (this.lists.gpus ??= this.kv.gpuPresets());
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

  // The JS API's KvModel of a config text or preset id: read once, evaluated many times.
  // Throws the KvCalcError of a config that cannot be read.
  model(config) {
    return this.memoized('model', config, null, () => this.kv.model(config));
  }

  // size()'s headline numbers without its report (the JS API's KvModel.figures()): for a
  // caller that needs the figures, or only to know the options and config are good.
  figures(config, options) {
    return this.memoized('figures', config, options, () => this.model(config).figures(options));
  }

  // The formula terms (the JS API's formula()), with the size result as .report.
  formula(config, options) {
    return this.memoized('formula', config, options, () => this.model(config).formula(options));
  }

  // Many figures of one model in one core call (the JS API's KvModel.series()).
  series(config, options, axes) {
    return this.memoized('series', config, [options, axes], () => this.model(config).series(options, axes));
  }

  // The per-model table over a list of configs (preset ids or texts).
  table(configs, options) {
    return this.memoized('table', configs.map((c) => this.configKey(c)).join('\u0000'), options,
      () => this.kv.table(configs, options));
  }

  check(config, options) {
    return this.memoized('check', config, options, () => this.model(config).check(options));
  }
}
