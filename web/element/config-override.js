// Variants of a config for the GQA view: the same model with another KV-head count, with an
// MLA latent, or without one. The core sizes each variant, so every figure the view shows
// comes from the same code as the main result. Real configs may hold Python-style NaN and
// Infinity tokens (Nemotron-H does); they survive the round trip unchanged.

const SENTINEL = '\u0000kvcalc-token:';

// JSON.parse, with bare NaN / Infinity / -Infinity outside strings kept as sentinels.
export function parseConfigText(text) {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const rest = text.startsWith('-Infinity', i) ? '-Infinity'
      : text.startsWith('Infinity', i) ? 'Infinity' : text.startsWith('NaN', i) ? 'NaN' : null;
    if (rest) {
      out += JSON.stringify(SENTINEL + rest);
      i += rest.length;
      continue;
    }
    out += c;
    i += 1;
  }
  return JSON.parse(out);
}

export function serializeConfig(obj) {
  return JSON.stringify(obj).replace(/"\\u0000kvcalc-token:(-?Infinity|NaN)"/g, '$1');
}

// The object that holds the text model's fields ("" = root, "text_config", ...).
function textObject(root, textPath) {
  let o = root;
  for (const part of (textPath || '').split('.').filter(Boolean)) {
    if (!o || typeof o[part] !== 'object') return null;
    o = o[part];
  }
  return o;
}

// A plain field path ("text_config.num_key_value_heads"), or null for a derivation.
function fieldPath(source) {
  return /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(source || '') ? source : null;
}

function setPath(root, path, value) {
  const parts = path.split('.');
  let o = root;
  for (const p of parts.slice(0, -1)) {
    if (!o[p] || typeof o[p] !== 'object') o[p] = {};
    o = o[p];
  }
  o[parts[parts.length - 1]] = value;
}

// The field that sets the KV heads of the model's first attention group (what the view
// varies), as a full path.
export function kvHeadsField(r) {
  const g = r.groups.find((x) => x.kvHeads);
  const path = g && fieldPath(g.kvHeads.source);
  if (path && !path.startsWith('multi_query')) return path;
  return r.textConfig ? `${r.textConfig}.num_key_value_heads` : 'num_key_value_heads';
}

// Config text with the KV-head field set to kvHeads (an MLA config is first made plain).
export function withKvHeads(text, r, kvHeads) {
  const root = parseConfigText(text);
  const t = textObject(root, r.textConfig) || root;
  if (r.groups.some((g) => g.kind === 'mla')) {
    // Each head keeps its full key (nope + rope) and value: what MLA compresses away.
    const nope = Number(t.qk_nope_head_dim);
    const rope = Number(t.qk_rope_head_dim);
    const v = Number(t.v_head_dim);
    if (!(nope > 0 && rope > 0 && v > 0)) return null;
    delete t.kv_lora_rank;
    t.head_dim = nope + rope;
    t.v_head_dim = v;
    t.num_key_value_heads = kvHeads;
    return serializeConfig(root);
  }
  setPath(root, kvHeadsField(r), kvHeads);
  return serializeConfig(root);
}

// DeepSeek-V3's latent (kv_lora_rank 512 + qk_rope_head_dim 64), for a model without MLA.
export const REFERENCE_LATENT = { kv_lora_rank: 512, qk_rope_head_dim: 64 };

export function withReferenceMla(text, r) {
  const root = parseConfigText(text);
  const t = textObject(root, r.textConfig) || root;
  t.kv_lora_rank = REFERENCE_LATENT.kv_lora_rank;
  t.qk_rope_head_dim = REFERENCE_LATENT.qk_rope_head_dim;
  return serializeConfig(root);
}

// Every divisor of n, ascending.
export function divisors(n) {
  const small = [];
  const large = [];
  for (let d = 1; d * d <= n; d += 1) {
    if (n % d === 0) {
      small.push(d);
      if (d * d !== n) large.unshift(n / d);
    }
  }
  return [...small, ...large];
}
