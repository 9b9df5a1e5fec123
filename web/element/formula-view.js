// The formula view: the per-token formula as MathML with the model's own values put in, each
// value focusable and hoverable to show where it came from, then the result per token, per
// sequence at the chosen context and for the batch. Models with MLA, sliding-window,
// chunked or linear-state layers show their own terms, one line per layer group. With a
// llama.cpp engine, llama.cpp's arithmetic instead (llamacpp-view.js): one cell's bytes by
// the cache types' blocks, the cells, and each memory object as its log prints it.

import { h, math, replace, setText } from './dom.js';
// The chart, shown under this view (sections.js takes it from here).
export * as chart from './chart-view.js';

const KIND_LABEL = {
  full_attention: 'full attention',
  sliding_window: 'sliding window',
  chunked_local: 'chunked local attention',
  mla: 'MLA latent',
  linear_state: 'linear state',
  no_cache: 'no cache',
};

const ACCOUNTING_LABEL = {
  resident: 'resident: tokens each layer keeps',
  naive: 'naive: bytes per token × context',
  vllm: 'vLLM: whole blocks reserved per request',
};
const HEADINGS = { token: ['Bytes per token', 'Per sequence and batch'], cell: ['Bytes per cell', 'Cells and memory, as llama.cpp allocates them'] };

export class FormulaView {
  constructor() {
    this.tip = h('p', { class: 'source-tip', part: 'source', 'aria-live': 'polite' });
    this.perToken = h('div', { class: 'formula-block' });
    this.perSequence = h('div', { class: 'formula-block' });
    this.results = h('dl', { class: 'results', part: 'results' });
    this.warnings = h('ul', { class: 'warnings' });
    this.defaultTip = 'Hover over or focus (Tab) a value in the formula to see where it comes from.';
    this.root = h('section', { class: 'view formula', part: 'view formula' },
      this.heading = h('h2', null, 'Bytes per token'),
      this.perToken,
      this.tip,
      this.subheading = h('h3', null, 'Per sequence and batch'),
      this.perSequence,
      this.results,
      this.warnings);
    setText(this.tip, this.defaultTip);
    const show = (ev) => {
      const t = ev.target.closest && ev.target.closest('.term');
      if (!t || !this.root.contains(t)) return;
      for (const a of this.root.querySelectorAll('.term.active')) a.classList.remove('active');
      t.classList.add('active');
      setText(this.tip, t.getAttribute('data-source'));
    };
    this.root.addEventListener('mouseover', show);
    this.root.addEventListener('focusin', show);
  }

  // formula: the JS API's formula() for the result (terms with values and sources);
  // llamacpp: llamacpp-view.js, for a result of a llama.cpp engine.
  update({ result: r, formula, fmt, llamacpp = null }) {
    const llama = r.llamacpp && llamacpp;
    const [heading, subheading] = HEADINGS[llama ? 'cell' : 'token'];
    setText(this.heading, heading);
    setText(this.subheading, subheading);
    // The per-token lines change with the model and options, not with the context or batch:
    // a new context sets only the figures below them.
    const key = JSON.stringify([fmt.locale, formula.bytesPerToken, formula.groups,
      r.groups.map((g) => [g.kind, g.layers, g.name, g.mixer, g.stateBytesLayer]), llama && r.llamacpp.cacheTypeV]);
    if (key !== this.perTokenKey) {
      this.perTokenKey = key;
      replace(this.perToken, llama ? llamacpp.cellLines(r, fmt) : this.perTokenLines(r, formula, fmt));
    } else {
      // As after a rebuild: no term highlighted, the tip back to its default below.
      for (const a of this.perToken.querySelectorAll('.term.active')) a.classList.remove('active');
    }
    replace(this.perSequence, llama ? llamacpp.memoryLines(r, fmt) : sequenceLines(r, fmt));
    this.renderResults(r, fmt, llama);
    replace(this.warnings, r.warnings.map((w) => h('li', null, w.field ? `${w.field}: ${w.message}` : w.message)));
    setText(this.tip, this.defaultTip);
  }

  perTokenLines(r, formula, fmt) {
    const lines = [];
    const perToken = formula.groups.filter((g) => g.per === 'token');
    const multi = r.groups.length > 1;
    if (perToken.length === 0) lines.push(h('p', null, 'No layer of this model keeps a per-token cache.'));
    for (const g of perToken) {
      const label = multi ? `${KIND_LABEL[g.kind] || g.kind} (${fmt.int(g.layers)} layers)` : null;
      lines.push(symbolLine(g.terms.map((t) => SYMBOL[t.name] ?? t.name)));
      lines.push(equationLine(label, times(g.terms.map((t) => formulaTerm(t, g, fmt))), fmt.int(g.bytes), 'B'));
    }
    // Several cached groups: their sum.
    if (perToken.length > 1) {
      const sumTerms = [];
      perToken.forEach((g, i) => {
        if (i) sumTerms.push(mo('+'));
        sumTerms.push(termMn(fmt.int(g.bytes), `${fmt.int(g.bytes)} B per token: the ${KIND_LABEL[g.kind] || g.kind} layers (${g.name})`));
      });
      lines.push(equationLine('bytes per token', sumTerms, fmt.int(formula.bytesPerToken), 'B'));
    }
    for (const g of r.groups.filter((x) => x.kind === 'linear_state')) {
      lines.push(h('p', { class: 'note' }, `${fmt.int(g.layers)} linear-state layers (${g.mixer}) keep no per-token cache: ` +
        `a fixed state of ${fmt.bytes(g.stateBytesLayer)} per layer and sequence, counted below.`));
    }
    const noCache = r.groups.filter((g) => g.kind === 'no_cache');
    for (const g of noCache) {
      lines.push(h('p', { class: 'note' }, `${fmt.int(g.layers)} ${g.name} layers keep no cache.`));
    }
    return lines;
  }

  renderResults(r, fmt, llamacpp) {
    const rows = llamacpp ? llamacpp.resultRows(r, fmt) : [
      ['Bytes per token', `${fmt.bytes(r.bytesPerToken)}`],
      [`Per sequence (${fmt.tokens(r.context)}, ${r.accounting})`, fmt.bytesBoth(sequenceBytes(r))],
      [`For the batch (${fmt.int(r.batch)} ${r.batch === 1 ? 'sequence' : 'sequences'})`, fmt.bytesBoth(r.kvBytes)],
    ];
    if (!llamacpp && (r.tp > 1 || r.pp > 1)) rows.push([`Per GPU (TP ${fmt.int(r.tp)})`, fmt.bytesBoth(r.kvBytesPerGpu), fmt.replicated(r)]);
    if (r.stateBytes > 0) rows.push(['Fixed state per sequence', fmt.bytesBoth(r.stateBytes)]);
    if (r.weightBytes != null) {
      rows.push([`Weights (${r.weightDtype}, for comparison)`, `${fmt.binary(r.weightBytes)}, ${fmt.params(r.paramCount)} parameters`]);
    }
    replace(this.results, rows.map(([k, v, note]) => [h('dt', null, k), h('dd', null, h('strong', null, v), note && h('p', { class: 'note' }, note))]));
  }
}

// How the formula line in words names each term of the API's formula().
const SYMBOL = { 'K and V': '2', 'bytes per element': 'bytes', latent: '(kv_lora_rank + qk_rope_head_dim)' };

// One term with its source: "128 = hidden_size 3584 / num_attention_heads 28 (head size)".
function formulaTerm(t, g, fmt) {
  const text = Number.isInteger(t.value) ? fmt.int(t.value) : String(t.value).replace('.', fmt.decimal);
  let source = `${text} = ${t.source} (${t.name})`;
  if (t.name === 'head size' && g.window) source += `; kept for the last ${fmt.int(g.window.value)} tokens (${g.window.source})`;
  return termMn(text, source);
}

export function mo(op) {
  // infix: a "+" that starts a wrapped piece keeps its spacing
  return math('mo', op === '+' || op === '=' ? { form: 'infix' } : null, op);
}

// A value in the formula that shows its source on hover and focus.
export function termMn(text, source) {
  return math('mn', { class: 'term', tabindex: '0', 'data-source': source }, text);
}

function sourced(fmt, s, what) {
  return `${fmt.int(s.value)} = ${s.source}${what ? ` (${what})` : ''}`;
}

function times(terms) {
  const out = [];
  terms.forEach((t, i) => {
    if (i) out.push(mo('×'));
    out.push(t);
  });
  return out;
}

// One equation, "label: terms = value unit", as <math> pieces that break after "×"
// and before "+" and "="
// (MathML in browsers does not wrap a long line; a phone needs it to).
export function equationLine(label, termNodes, value, unit, symbolic = false) {
  const pieces = [];
  let current = [];
  for (const n of termNodes) {
    const op = n.localName === 'mo' ? n.textContent : null;
    if (op === '+' && current.length) {
      pieces.push(current);
      current = [n];
    } else {
      current.push(n);
      if (op === '×') {
        pieces.push(current);
        current = [];
      }
    }
  }
  if (current.length) pieces.push(current);
  const tail = value === null ? [] : [[mo('='), math('mn', null, value), math('mtext', null, `\u00a0${unit}`)]];
  return h('div', { class: symbolic ? 'eq symbolic' : 'eq' },
    label ? h('span', { class: 'eq-label' }, `${label}:`) : null,
    [...pieces, ...tail].map((p) => math('math', null, math('mrow', null, ...p))));
}

// The formula in words, above the same formula with the model's values.
function symbolLine(names) {
  return equationLine(null, times(names.map((n) => (n === '2' ? math('mn', null, '2') : math('mi', null, n)))), null, '', true);
}

// The bytes of one sequence in the result's accounting.
function sequenceBytes(r) {
  return r.accounting === 'naive' ? r.sequenceBytesNaive
    : r.accounting === 'vllm' ? r.sequenceBytesVllm : r.sequenceBytesResident;
}

// Per sequence at the chosen context, in the chosen accounting, then the batch.
function sequenceLines(r, fmt) {
  const seq = sequenceBytes(r);
  const C = r.context;
  const lines = [h('p', { class: 'note' }, `Accounting: ${ACCOUNTING_LABEL[r.accounting] || r.accounting}.`)];
  const parts = [];
  if (BigInt(r.bytesPerToken) * BigInt(C) === BigInt(seq)) {
    parts.push(termMn(fmt.int(r.bytesPerToken), `${fmt.int(r.bytesPerToken)} = bytes per token (above)`), mo('×'),
      termMn(fmt.int(C), `${fmt.int(C)} = context in tokens (${r.contextSource})`));
  } else {
    for (const g of r.groups) {
      const value = r.accounting === 'naive' ? g.sequenceBytesNaive
        : r.accounting === 'vllm' ? g.sequenceBytesVllm : g.sequenceBytesResident;
      if (g.kind === 'no_cache' || value === 0) continue;
      if (parts.length) parts.push(mo('+'));
      parts.push(...groupSequenceTerms(r, g, fmt, value));
    }
  }
  if (parts.length) lines.push(equationLine('one sequence', parts, fmt.int(seq), 'B'));
  if (BigInt(r.batch) * BigInt(seq) === BigInt(r.kvBytes)) {
    lines.push(equationLine('the batch', [
      termMn(fmt.int(r.batch), `${fmt.int(r.batch)} = batch: sequences held at once`), mo('×'),
      termMn(fmt.int(seq), `${fmt.int(seq)} = bytes for one sequence (above)`)], fmt.int(r.kvBytes), 'B'));
  }
  return lines;
}

// One group's bytes for one sequence, decomposed only when the factors multiply out exactly
// to the core's figure (otherwise the figure is shown whole, never a guessed breakdown).
function groupSequenceTerms(r, g, fmt, value) {
  const label = `${KIND_LABEL[g.kind] || g.kind} layers (${g.name})`;
  const whole = () => [termMn(fmt.int(value), `${fmt.int(value)} B = ${label}, one sequence`)];
  const L = BigInt(g.layers);
  if (g.kind === 'linear_state') {
    const per = r.accounting === 'vllm' ? null : g.stateBytesLayer;
    if (per && L * BigInt(per) === BigInt(value)) {
      return [termMn(fmt.int(g.layers), `${fmt.int(g.layers)} = ${label}`), mo('×'),
        termMn(fmt.int(per), `${fmt.int(per)} B = fixed state per layer and sequence: ${g.stateSource}`)];
    }
    return whole();
  }
  const perLayerToken = BigInt(g.bytesPerTokenLayer);
  if (r.accounting === 'vllm') {
    if (L * BigInt(g.vllmBlocks) * BigInt(g.vllmBlockSize) * perLayerToken === BigInt(value)) {
      return [termMn(fmt.int(g.layers), `${fmt.int(g.layers)} = ${label}`), mo('×'),
        termMn(fmt.int(g.vllmBlocks), `${fmt.int(g.vllmBlocks)} = blocks reserved per layer for one request`), mo('×'),
        termMn(fmt.int(g.vllmBlockSize), `${fmt.int(g.vllmBlockSize)} = tokens per block`), mo('×'),
        termMn(fmt.int(g.bytesPerTokenLayer), `${fmt.int(g.bytesPerTokenLayer)} = bytes per token per layer`)];
    }
    return whole();
  }
  if (L * BigInt(g.residentTokens) * perLayerToken === BigInt(value)) {
    const kept = g.window && g.residentTokens < r.context
      ? `${fmt.int(g.residentTokens)} = tokens kept per layer: min(context ${fmt.int(r.context)}, window ${sourced(fmt, g.window)})`
      : `${fmt.int(g.residentTokens)} = tokens kept per layer`;
    return [termMn(fmt.int(g.layers), `${fmt.int(g.layers)} = ${label}`), mo('×'),
      termMn(fmt.int(g.bytesPerTokenLayer), `${fmt.int(g.bytesPerTokenLayer)} = bytes per token per layer`), mo('×'),
      termMn(fmt.int(g.residentTokens), kept)];
  }
  return whole();
}
