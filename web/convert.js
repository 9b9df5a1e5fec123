// Between JS values and the core's JSON text: configs and options go in as text with the
// core's snake_case keys, reports come back with camelCase keys.

import { KvCalcError } from './errors.js';

// Far beyond the core's own limit (128 levels, which it reports); only stops a JS stack
// overflow on absurdly deep objects.
const maxDepth = 1000;

/**
 * JSON text of a JS value, as JSON.stringify writes it except that non-finite numbers stay
 * NaN / Infinity / -Infinity (the core reads these Python-style tokens and reports them by
 * name, where JSON.stringify would turn them into null) and BigInts are written as integers.
 * @param {unknown} value
 * @param {string} what  the argument's name, for errors: "config" or "options"
 * @param {(key: string) => string} [renameKey]
 */
export function toJsonText(value, what, renameKey = (k) => k) {
  const open = new Set(); // objects being written, to catch cycles
  const write = (v, depth) => {
    if (v !== null && typeof v === 'object' && typeof v.toJSON === 'function') v = v.toJSON();
    switch (typeof v) {
      case 'string':
        return JSON.stringify(v);
      case 'number':
        return Number.isFinite(v) ? JSON.stringify(v) : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
      case 'bigint':
        return v.toString();
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object':
        break;
      default:
        return undefined; // undefined, functions, symbols: left out, as JSON.stringify does
    }
    if (v === null) return 'null';
    if (open.has(v)) {
      throw new KvCalcError({ code: 'invalid_value', message: `${what}: contains a circular reference`, field: what });
    }
    if (depth > maxDepth) {
      throw new KvCalcError({ code: 'malformed_json', message: `${what}: nested more than ${maxDepth} levels deep`, field: what });
    }
    open.add(v);
    let text;
    if (Array.isArray(v)) {
      text = '[' + v.map((item) => write(item, depth + 1) ?? 'null').join(',') + ']';
    } else {
      const parts = [];
      for (const key of Object.keys(v)) {
        const item = write(v[key], depth + 1);
        if (item !== undefined) parts.push(JSON.stringify(depth === 0 ? renameKey(key) : key) + ':' + item);
      }
      text = '{' + parts.join(',') + '}';
    }
    open.delete(v);
    return text;
  };
  return write(value, 0);
}

/** "kvDtype" -> "kv_dtype" */
export const snakeCase = (key) => key.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());

/** "kv_dtype" -> "kvDtype" */
export const camelCase = (key) => key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

/** A parsed report with every object key camelCased (values untouched). */
export function camelKeys(value) {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const key of Object.keys(value)) out[camelCase(key)] = camelKeys(value[key]);
  return out;
}

/**
 * The options object as the core's JSON text, and a map back from the core's key to the
 * caller's, so that an error about "kv_dtype" names "kvDtype", the key the caller wrote.
 * @returns {{text: string, names: Map<string, string>}}
 */
export function optionsText(options) {
  const names = new Map();
  if (options === undefined || options === null) return { text: '', names };
  if (typeof options === 'object' && !Array.isArray(options)) {
    for (const key of Object.keys(options)) {
      // Option names are camelCase identifiers; anything else cannot name an option.
      if (!/^[a-z][a-zA-Z0-9]*$/.test(key)) {
        const hint = /^[a-z][a-z0-9_]*$/.test(key) ? ` (options are camelCase: ${camelCase(key)})` : '';
        throw new KvCalcError({ code: 'bad_option', message: `unknown option ${JSON.stringify(key)}${hint}`, field: key });
      }
      names.set(snakeCase(key), key);
    }
  }
  return { text: toJsonText(options, 'options', snakeCase), names };
}

// The core's options with more than one word, as its messages name them ("no pool: give
// pool_tokens, ..."): an error about options is told with the JS names (poolTokens).
const optionWords = [
  'kv_dtype', 'block_size', 'max_num_batched_tokens', 'shared_prefix', 'max_context', 'pool_tokens', 'gpu_count',
  'gpu_memory_utilization', 'gpu_memory', 'activation_peak', 'non_torch', 'engine_log', 'weight_dtype',
  'mem_fraction_static',
];

/**
 * An error from the core, told in the caller's names when it is about an option: the keys
 * the caller wrote (names: the core's key -> the caller's) and the core's option names.
 */
export function renameOptionError(error, names) {
  const about = (key) => names.has(key) || optionWords.includes(key);
  if (error.code !== 'bad_option' && !about(error.field)) return error;
  const renamed = new Map(optionWords.map((w) => [w, camelCase(w)]));
  for (const [snake, key] of names) renamed.set(snake, key);
  let { field, message } = error;
  for (const [snake, key] of renamed) {
    if (snake === key) continue;
    if (field === snake) field = key;
    message = message.replace(new RegExp(`\\b${snake}\\b`, 'g'), key);
  }
  return { ...error, field, message };
}
