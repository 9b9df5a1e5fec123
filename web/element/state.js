// The element's state: what its attributes say, read and checked in one place. A bad value
// is reported with the attribute's name and is not used; it never turns silently into a
// default. (The URL hash, which can set them too, is hash.js.)

import { readEndpoint } from '../api/hub-ref.js';

export const VIEWS = ['formula', 'table', 'gqa', 'check', 'all'];
export const ACCOUNTINGS = ['resident', 'naive', 'vllm', 'llamacpp'];
// The engines whose allocation is sized; the last three are llama.cpp (Ollama and LM Studio
// with their own defaults), whose options carry llama-server's names.
export const ENGINES = ['vllm', 'sglang', 'llamacpp', 'ollama', 'lmstudio'];
const LLAMACPP_ENGINES = ENGINES.slice(2);
export const isLlamacpp = (engine) => LLAMACPP_ENGINES.includes(engine);
// A llama.cpp report's host ("lmstudio") as its users name it.
export const hostName = (host) => ({ ollama: 'Ollama', lmstudio: 'LM Studio' })[host] ?? host;
export const LOADINGS = ['lazy', 'eager'];
export const THEMES = ['auto', 'light', 'dark'];
export const HUB = ['on', 'off'];
export const CONTEXT_SHORTCUTS = [['4K', 4096], ['32K', 32768], ['128K', 131072], ['1M', 1048576]];
export const DEFAULT_MODEL = 'Qwen/Qwen2.5-7B-Instruct';

// The attributes, their property names and how each is read.
export const ATTRIBUTES = {
  model: { prop: 'model', read: readText },
  context: { prop: 'context', read: readTokens },
  batch: { prop: 'batch', read: readCount },
  'kv-dtype': { prop: 'kvDtype', read: readText },
  tp: { prop: 'tp', read: readCount },
  view: { prop: 'view', read: (v) => readChoice(v, VIEWS) },
  models: { prop: 'models', read: readList },
  'pool-tokens': { prop: 'poolTokens', read: readTokens },
  'max-context': { prop: 'maxContext', read: readTokens },
  accounting: { prop: 'accounting', read: (v) => readChoice(v, ACCOUNTINGS) },
  engine: { prop: 'engine', read: (v) => readChoice(v, ENGINES) },
  // llama.cpp's options (the core checks their values): slots, cache types, flash attention,
  // and the rarer ones a page sets as attributes only.
  parallel: { prop: 'parallel', read: readCount },
  'cache-type-k': { prop: 'cacheTypeK', read: readText },
  'cache-type-v': { prop: 'cacheTypeV', read: readText },
  'flash-attn': { prop: 'flashAttn', read: readText },
  'swa-full': { prop: 'swaFull', read: readFlag },
  'ubatch-size': { prop: 'ubatchSize', read: readCount },
  'kv-unified': { prop: 'kvUnified', read: readFlag },
  'llamacpp-build': { prop: 'llamacppBuild', read: readCount },
  'ollama-version': { prop: 'ollamaVersion', read: readText },
  loading: { prop: 'loading', read: (v) => readChoice(v, LOADINGS) },
  theme: { prop: 'theme', read: (v) => readChoice(v, THEMES) },
  hub: { prop: 'hub', read: (v) => readChoice(v, HUB) },
  'hub-endpoint': { prop: 'hubEndpoint', read: readEndpoint },
};

// The attributes that are size() options, by their property (the API's option) names.
export const SIZE_OPTIONS = ['context', 'batch', 'kvDtype', 'tp', 'accounting', 'engine', 'parallel', 'cacheTypeK',
  'cacheTypeV', 'flashAttn', 'swaFull', 'ubatchSize', 'kvUnified', 'llamacppBuild', 'ollamaVersion'];

// An API error about an option, told in the attribute's terms: the attribute the option
// comes from (by its JS name, kvDtype, or the core's, kv_dtype: read from ATTRIBUTES), and
// the message without the option's name in front. attribute is undefined for a field no
// attribute sets.
export function attributeError(err) {
  const field = err.field ?? '';
  const attribute = Object.keys(ATTRIBUTES).find((name) => ATTRIBUTES[name].prop === field || name.replace(/-/g, '_') === field);
  const prefix = [`${field}: `, `${field} `].find((p) => attribute && err.message.startsWith(p));
  let message = prefix ? err.message.slice(prefix.length) : err.message;
  // An option the message names inside (the API's "check maxContext"), named as its attribute.
  for (const [name, { prop }] of Object.entries(ATTRIBUTES)) {
    if (prop !== name) message = message.replace(new RegExp(`\\b${prop}\\b`, 'g'), name);
  }
  return { attribute, message };
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function readText(v) {
  const s = v.trim();
  return s ? { value: s } : { error: 'is empty' };
}

// A whole number of tokens, or a shorthand with K (x 1,024) or M (x 1,048,576): "128K".
export function readTokens(v) {
  const m = /^\s*([0-9][0-9_,]*)\s*([kKmM]?)\s*$/.exec(v);
  if (!m) return { error: `expected a whole number of tokens (or 4K, 128K, 1M), got "${v}"` };
  let n = BigInt(m[1].replace(/[_,]/g, ''));
  if (m[2]) n *= m[2].toLowerCase() === 'k' ? 1024n : 1048576n;
  if (n < 1n) return { error: `must be at least 1, got "${v}"` };
  if (n > MAX_SAFE) return { error: `is too large (at most 9,007,199,254,740,991), got "${v}"` };
  return { value: Number(n) };
}

export function readCount(v) {
  if (!/^\s*[0-9]+\s*$/.test(v)) return { error: `expected a whole number, got "${v}"` };
  const n = BigInt(v.trim());
  if (n < 1n) return { error: `must be at least 1, got "${v}"` };
  if (n > MAX_SAFE) return { error: `is too large, got "${v}"` };
  return { value: Number(n) };
}

// A boolean attribute: present (or "true") is true, "false" is false.
function readFlag(v) {
  const s = v.trim();
  return s === '' || s === 'true' ? { value: true } : s === 'false' ? { value: false }
    : { error: `expected true or false (or no value, for true), got "${v}"` };
}

function readChoice(v, choices) {
  const s = v.trim();
  return choices.includes(s) ? { value: s } : { error: `must be one of ${choices.join(', ')}, got "${v}"` };
}

// Preset ids separated by commas or white space.
function readList(v) {
  const ids = v.split(/[\s,]+/).filter(Boolean);
  return ids.length ? { value: ids } : { error: 'lists no model' };
}

// Reads every attribute of el: { values: {prop: value}, errors: [{attribute, message}] }.
export function readAttributes(el) {
  const values = {};
  const errors = [];
  for (const [name, { prop, read }] of Object.entries(ATTRIBUTES)) {
    const raw = el.getAttribute(name);
    if (raw === null) continue;
    const r = read(raw);
    if (r.error) errors.push({ attribute: name, message: `${name}: ${r.error}` });
    else values[prop] = r.value;
  }
  return { values, errors };
}
