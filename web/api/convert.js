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

// A report's keys are a few hundred names, met again in every report: each is converted once.
const camelNames = new Map();
const camelName = (key) => {
  let name = camelNames.get(key);
  if (name === undefined) {
    name = key.includes('_') ? camelCase(key) : key;
    if (camelNames.size < 4096) camelNames.set(key, name);
  }
  return name;
};

/** A parsed report with every object key camelCased (values untouched). */
export function camelKeys(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = camelKeys(value[i]);
    return out;
  }
  const out = {};
  for (const key in value) out[camelName(key)] = camelKeys(value[key]);
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

/**
 * The axes of a series as the core's JSON text ({kvDtypes, variants: [{kvHeads}]} ->
 * {"kv_dtypes", "variants": [{"kv_heads"}]}), and a map back from the core's keys to the
 * caller's, as optionsText gives for options.
 * @returns {{text: string, names: Map<string, string>}}
 */
// The axes' names and their variants' keys with more than one word, as the core's messages
// name them, and in JS.
const AXIS_WORDS = [['kv_dtypes', 'kvDtypes'], ['kv_heads', 'kvHeads']];

export function axesText(axes) {
  const names = new Map(AXIS_WORDS);
  if (axes === undefined || axes === null) return { text: '', names };
  const snake = (v, depth) => {
    if (Array.isArray(v)) return v.map((x) => snake(x, depth + 1));
    if (v === null || typeof v !== 'object' || depth > 3) return v;
    const out = {};
    for (const key of Object.keys(v)) {
      if (!/^[a-z][a-zA-Z0-9]*$/.test(key)) {
        const hint = /^[a-z][a-z0-9_]*$/.test(key) ? ` (axes are camelCase: ${camelCase(key)})` : '';
        throw new KvCalcError({ code: 'bad_option', message: `unknown axis ${JSON.stringify(key)}${hint}`, field: key });
      }
      names.set(snakeCase(key), key);
      out[snakeCase(key)] = snake(v[key], depth + 1);
    }
    return out;
  };
  return { text: toJsonText(typeof axes === 'object' ? snake(axes, 0) : axes, 'axes'), names };
}

/**
 * An error from the core, told in the caller's names when it is about an option: the keys
 * the caller wrote (names: the core's key -> the caller's) and the JS names of the core's
 * options (jsNames: the core's table of options, "kv_dtype" -> "kvDtype").
 */
export function renameOptionError(error, names, jsNames) {
  const about = (key) => names.has(key) || jsNames.has(key);
  if (error.code !== 'bad_option' && !about(error.field)) return error;
  const renamed = new Map(jsNames);
  for (const [snake, key] of names) renamed.set(snake, key);
  let { field, message } = error;
  for (const [snake, key] of renamed) {
    if (snake === key) continue;
    const word = new RegExp(`\\b${snake}\\b`, 'g');
    field = field.replace(word, key);  // "kv_dtype", "variants[0].kv_heads"
    message = message.replace(word, key);
  }
  return { ...error, field, message };
}
