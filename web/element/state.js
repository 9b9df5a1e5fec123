// The element's state: what its attributes (or the URL hash) say, read and checked in one
// place. A bad value is reported with the attribute's name and is not used; it never turns
// silently into a default.

export const VIEWS = ['formula', 'table', 'gqa', 'check', 'all'];
export const ACCOUNTINGS = ['resident', 'naive', 'vllm'];
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
};

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

// --- URL hash -------------------------------------------------------------------------
// The hash holds URLSearchParams; each element's keys carry its prefix ("kv-calc.context"),
// so several elements on one page keep separate state and other keys are left alone.

const HASH_KEYS = ['model', 'context', 'batch', 'kv-dtype', 'tp', 'accounting', 'pool-tokens',
  'max-context', 'config'];

function hashParams() {
  const raw = location.hash.replace(/^#/, '');
  return new URLSearchParams(raw.includes('=') ? raw : '');
}

// { attributes: {name: value}, config: text|null } for one element's prefix.
export function readHash(prefix) {
  const params = hashParams();
  const attributes = {};
  let config = null;
  for (const key of HASH_KEYS) {
    const v = params.get(`${prefix}.${key}`);
    if (v === null) continue;
    if (key === 'config') config = v;
    else attributes[key] = v;
  }
  return { attributes, config };
}

// Writes the element's state into the hash without a navigation or a history entry.
export function writeHash(prefix, attributes, config) {
  const params = hashParams();
  for (const key of HASH_KEYS) params.delete(`${prefix}.${key}`);
  for (const [key, v] of Object.entries(attributes)) {
    if (v !== null && v !== undefined && v !== '') params.set(`${prefix}.${key}`, String(v));
  }
  if (config) params.set(`${prefix}.config`, config);
  const text = params.toString();
  const url = `${location.pathname}${location.search}${text ? `#${text}` : ''}`;
  if (url !== `${location.pathname}${location.search}${location.hash}`) {
    history.replaceState(history.state, '', url);
  }
}
