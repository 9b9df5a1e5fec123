// The URL hash: an element's attributes and pasted config, kept across reloads and shared
// links. The hash holds URLSearchParams; each element's keys carry its prefix
// ("kv-calc.context"), so several elements on one page keep separate state and other keys
// are left alone.

const HASH_KEYS = ['model', 'context', 'batch', 'kv-dtype', 'tp', 'accounting', 'pool-tokens',
  'max-context', 'engine', 'parallel', 'cache-type-k', 'cache-type-v', 'flash-attn', 'config'];

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
