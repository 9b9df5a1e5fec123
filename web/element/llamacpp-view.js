// llama.cpp's side of the element, for an engine that is llama.cpp (Ollama and LM Studio are
// llama.cpp with their defaults): the controls a local user sets (slots, the K and V cache
// types, flash attention), and the formula view's arithmetic as llama.cpp does it, from the
// core's report (r.llamacpp, r.groups): one cell's bytes by the cache type's blocks, the
// cells of each stream (the context's padding, the slots, the SWA cells), and each memory
// object as llama.cpp's log prints it, K and V apart. Every value shows where it comes from
// (the core's sources); a product that does not multiply out to the core's figure is shown
// whole, never a guessed breakdown. Loaded only when such an engine shows.

import { h, setText } from './dom.js';
import { hostName, readCount } from './state.js';
import { equationLine, mo, termMn } from './formula-view.js';

// The types -ctk / -ctv take, with ggml's blocks (values, bytes) for the select's labels; the
// formula reads each block from the core's report (the same table: a test compares them).
const CACHE_TYPES = [['f32', 1, 4], ['f16', 1, 2], ['bf16', 1, 2], ['q8_0', 32, 34], ['q4_0', 32, 18],
  ['q4_1', 32, 20], ['q5_0', 32, 22], ['q5_1', 32, 24], ['iq4_nl', 32, 18]];
const FLASH_ATTN = [['auto', 'auto (on when the cache is made)'], ['on', 'on'], ['off', 'off']];

const options = (list) => list.map(([value, label]) => h('option', { value }, label));
const typeOptions = () => options(CACHE_TYPES.map(([name, block, bytes]) =>
  [name, block > 1 ? `${name} (${bytes} B per ${block} values)` : `${name} (${bytes} B)`]));

// The controls: made into the shared ones (controls.js's Controls, whose field() makes each,
// so its ids are the page's), before the accounting; hidden for vLLM and SGLang.
export class LlamacppControls {
  constructor(controls, field) {
    const select = (name, choices) => {
      const el = h('select', { name, part: 'input' }, choices);
      el.addEventListener('change', () => {
        // Ollama has one type for K and V (OLLAMA_KV_CACHE_TYPE): its one input sets both.
        if (name === 'cache-type-k' && this.engine === 'ollama') controls.onChange('cache-type-v', el.value);
        controls.onChange(name, el.value);
      });
      return el;
    };
    this.parallel = h('input', { name: 'parallel', type: 'number', min: '1', max: '256', step: '1', inputmode: 'numeric', part: 'input' });
    this.typeK = select('cache-type-k', typeOptions());
    this.typeV = select('cache-type-v', typeOptions());
    this.flash = select('flash-attn', options(FLASH_ATTN));
    this.fields = {
      parallel: field('Slots (-np)', this.parallel, { hint: true }),
      'cache-type-k': field('K cache type (-ctk)', this.typeK),
      'cache-type-v': field('V cache type (-ctv)', this.typeV, { hint: true }),
      'flash-attn': field('Flash attention (-fa)', this.flash),
    };
    // The fields a reader's switch to vLLM or SGLang clears (controls.js).
    this.names = Object.keys(this.fields);
    Object.assign(controls.fields, this.fields);
    controls.fields.accounting.el.before(...Object.values(this.fields).map((f) => f.el));
    controls.bindNumber('parallel', this.parallel, readCount);
    this.controls = controls;
  }

  // shown: the engine is llama.cpp's (engine: which); state: the element's values; result:
  // its size report.
  update({ shown, engine, state, result, fmt }) {
    this.engine = engine;
    for (const f of Object.values(this.fields)) f.el.hidden = !shown;
    this.fields['cache-type-v'].el.hidden ||= engine === 'ollama';
    setText(this.fields['cache-type-k'].label, engine === 'ollama' ? 'Cache type (OLLAMA_KV_CACHE_TYPE)' : 'K cache type (-ctk)');
    const a = shown && result?.llamacpp;
    if (!a) return;
    // No -np: the input is empty, its default the placeholder (typing it is an explicit -np,
    // which llama-server does not unify).
    if (state.parallel === undefined) this.parallel.setAttribute('placeholder', String(a.nSeqMax));
    this.controls.setValue(this.parallel, state.parallel === undefined ? '' : String(state.parallel),
      (v) => readCount(v).value === state.parallel);
    setText(this.fields.parallel.hint, `${fmt.int(a.nSeqMax)} ${a.nSeqMax === 1 ? 'slot' : 'slots'}, ` +
      `${a.kvUnified ? `one stream of ${fmt.int(a.nCtxSeq)} cells shared` : `each its own stream of ${fmt.int(a.nCtxSeq)} cells`}` +
      ` (${a.kvUnifiedSource})`);
    for (const [el, value] of [[this.typeK, a.cacheTypeK], [this.typeV, a.cacheTypeV], [this.flash, a.flashAttn]]) {
      if (el.value !== value) el.value = value;
    }
    setText(this.fields['cache-type-v'].hint, a.cacheTypeVBlock > 1 ? 'A quantized V cache needs flash attention.' : '');
  }
}

// "q8_0: 34 B per 32 values (1.0625 B a value, ggml's block)"
function blockSource(name, block, bytes, fmt) {
  if (block === 1) return `${fmt.int(bytes)} B a value: ${name}`;
  const tenThousandths = (BigInt(bytes) * 10000n) / BigInt(block);
  const perValue = `${tenThousandths / 10000n}${fmt.decimal}${String(tenThousandths % 10000n).padStart(4, '0')}`.replace(/0+$/, '');
  return `${fmt.int(bytes)} B per block of ${fmt.int(block)} values, ${perValue} B a value: ggml's ${name} block (ggml-common.h)`;
}

// One cell's K (or V) in one layer: values ÷ block × bytes per block, or values × bytes.
function rowTerms(values, valuesSource, block, bytes, typeName, fmt) {
  const source = blockSource(typeName, block, bytes, fmt);
  const n = termMn(fmt.int(values), `${fmt.int(values)} values = ${valuesSource}`);
  return block === 1 ? [n, mo('×'), termMn(fmt.int(bytes), `${fmt.int(bytes)} = ${source}`)]
    : [n, mo('÷'), termMn(fmt.int(block), `${fmt.int(block)} = ${source}`), mo('×'), termMn(fmt.int(bytes), `${fmt.int(bytes)} = ${source}`)];
}

// Where a group's K and V widths come from.
function widthSources(g, fmt) {
  if (g.kind === 'mla') {
    return { k: `the latent: ${g.latentDim.source}`, v: g.latentVDim ? `the latent's ${g.latentVDim.source}, as builds b5137 to b7835 allocate it` : '' };
  }
  const heads = (dim) => `${fmt.int(g.kvHeads.value)} KV heads (${g.kvHeads.source}) × ${fmt.int(dim.value)} (${dim.source})`;
  const v = g.vWidth === g.kvHeads.value * g.vHeadDim.value ? heads(g.vHeadDim)
    : 'the widest layer\'s V: without flash attention llama.cpp stores V transposed, each layer padded to the widest';
  return { k: heads(g.headDim), v };
}

// The formula view's first part: the bytes of one cell (one token of one stream) in each
// layer group, K and V apart, and the fixed state of recurrent layers.
export function cellLines(r, fmt) {
  const a = r.llamacpp;
  const lines = [];
  const parts = [];
  for (const g of r.groups) {
    const label = `${g.name} (${fmt.int(g.layers)} layers, ${g.cache} cache)`;
    if (g.cache === 'recurrent') {
      const state = BigInt(g.rBytesPerSequence) + BigInt(g.sBytesPerSequence);
      lines.push(equationLine(`${label}, a state per sequence in f32`, [
        termMn(fmt.int(g.layers), `${fmt.int(g.layers)} = ${g.name} layers`), mo('×'), mo('('),
        termMn(fmt.int(g.rBytesPerSequence), `${fmt.int(g.rBytesPerSequence)} B = R, the conv rows of one sequence, 4 B a value: ${g.stateSource}`), mo('+'),
        termMn(fmt.int(g.sBytesPerSequence), `${fmt.int(g.sBytesPerSequence)} B = S, the recurrent state of one sequence, 4 B a value`), mo(')')],
      fmt.int(BigInt(g.layers) * state), 'B'));
      continue;
    }
    if (g.kWidth === undefined) continue;  // no cache
    const w = widthSources(g, fmt);
    const perCell = BigInt(g.kBytesPerCell) + BigInt(g.vBytesPerCell);
    parts.push([g, perCell]);
    lines.push(equationLine(`${label}, a cell`, [
      termMn(fmt.int(g.layers), `${fmt.int(g.layers)} = ${g.name} layers`), mo('×'), mo('('),
      termMn(fmt.int(g.kBytesPerCell), `${fmt.int(g.kBytesPerCell)} B = K of one cell of one layer, below`), mo('+'),
      termMn(fmt.int(g.vBytesPerCell), `${fmt.int(g.vBytesPerCell)} B = V of one cell of one layer, below`), mo(')')],
    fmt.int(BigInt(g.layers) * perCell), 'B'));
    const kOk = BigInt(g.kWidth) * BigInt(a.cacheTypeKBlockBytes) === BigInt(g.kBytesPerCell) * BigInt(a.cacheTypeKBlock);
    lines.push(equationLine(`K (${a.cacheTypeK})`,
      kOk ? rowTerms(g.kWidth, w.k, a.cacheTypeKBlock, a.cacheTypeKBlockBytes, a.cacheTypeK, fmt) : [termMn(fmt.int(g.kBytesPerCell), w.k)],
      fmt.int(g.kBytesPerCell), 'B'));
    if (g.vWidth) {
      const vOk = BigInt(g.vWidth) * BigInt(a.cacheTypeVBlockBytes) === BigInt(g.vBytesPerCell) * BigInt(a.cacheTypeVBlock);
      lines.push(equationLine(`V (${a.cacheTypeV})`,
        vOk ? rowTerms(g.vWidth, w.v, a.cacheTypeVBlock, a.cacheTypeVBlockBytes, a.cacheTypeV, fmt) : [termMn(fmt.int(g.vBytesPerCell), w.v)],
        fmt.int(g.vBytesPerCell), 'B'));
    } else {
      lines.push(h('p', { class: 'note' }, g.kind === 'mla'
        ? 'No V: llama.cpp keeps the MLA latent as K only (builds b7836 and later).' : 'No V cache.'));
    }
  }
  if (parts.length > 1) {
    const sum = [];
    let total = 0n;
    for (const [g, perCell] of parts) {
      const bytes = BigInt(g.layers) * perCell;
      total += bytes;
      if (sum.length) sum.push(mo('+'));
      sum.push(termMn(fmt.int(bytes), `${fmt.int(bytes)} B = the ${g.name} layers`));
    }
    lines.push(equationLine('one cell, every layer', sum, fmt.int(total), 'B'));
  }
  return lines;
}

// The second part: the cells (context, padding, slots, streams), then each memory object as
// cells × streams × one cell's bytes, with the line llama.cpp's log prints for it.
export function memoryLines(r, fmt) {
  const a = r.llamacpp;
  const streams = `${fmt.int(a.nStream)} = streams: ${a.kvUnified ? 'one, shared by the slots' : 'one a slot'} (${a.kvUnifiedSource})`;
  const lines = [equationLine('cells of a stream (n_ctx_seq)', [
    termMn(fmt.int(a.nCtxRequested), `${fmt.int(a.nCtxRequested)} = -c, the context asked for (${r.contextSource})`), mo('→'),
    termMn(fmt.int(a.nCtxSeq), `${fmt.int(a.nCtxSeq)} cells = ${a.contextRule}; ${fmt.int(a.nSeqMax)} ${a.nSeqMax === 1 ? 'slot' : 'slots'} (${a.nSeqMaxSource}); ` +
      `padding ${fmt.int(a.padding)} (${a.buildSource}, build b${a.build})`)], null, '')];
  lines.push(h('p', { class: 'note' }, `-c ${fmt.int(a.nCtxRequested)} gives n_ctx ${fmt.int(a.nCtx)}: ${fmt.int(a.nSeqMax)} ` +
    `${a.nSeqMax === 1 ? 'slot' : 'slots'}, ${a.kvUnified ? 'unified: one stream' : `${fmt.int(a.nStream)} ${a.nStream === 1 ? 'stream' : 'streams'}`} of ` +
    `${fmt.int(a.nCtxSeq)} cells (padded to ${fmt.int(a.padding)}); flash attention ${a.flashAttn} (${a.flashAttnSource}).`));
  for (const m of a.memory) {
    const groups = r.groups.filter((g) => g.cache === m.cache);
    const label = `${m.cache} ${m.object === 'llama_memory_recurrent' ? 'state' : 'cache'} (${fmt.int(m.layers)} layers)`;
    let cellSource = `${fmt.int(m.cells)} cells = ${m.cellsRule}`;
    if (m.cache === 'swa' && a.nSwa !== null) {
      const w = groups.find((g) => g.window)?.window;
      cellSource += `; window n_swa ${fmt.int(a.nSwa)}${w ? ` (${w.source})` : ''}, n_ubatch ${fmt.int(a.nUbatch)} (${a.nUbatchSource}); swa_full ${a.swaFull} (${a.swaFullSource})`;
    }
    let terms;
    if (m.cache === 'recurrent') {
      const g = groups[0];
      const per = g ? BigInt(g.rBytesPerSequence) + BigInt(g.sBytesPerSequence) : 0n;
      terms = g && BigInt(m.layers) * BigInt(m.cells) * per === BigInt(m.bytes) ? [
        termMn(fmt.int(m.layers), `${fmt.int(m.layers)} = layers with a state`), mo('×'),
        termMn(fmt.int(m.cells), `${fmt.int(m.cells)} = ${m.cellsRule}`), mo('×'),
        termMn(fmt.int(per), `${fmt.int(per)} B = R + S of one layer and sequence, above`)] : null;
    } else {
      const perCell = groups.reduce((s, g) => s + BigInt(g.layers) * (BigInt(g.kBytesPerCell) + BigInt(g.vBytesPerCell)), 0n);
      terms = BigInt(m.cells) * BigInt(m.streams) * perCell === BigInt(m.bytes) ? [
        termMn(fmt.int(m.cells), cellSource), mo('×'),
        termMn(fmt.int(m.streams), streams), mo('×'),
        termMn(fmt.int(perCell), `${fmt.int(perCell)} B = one cell of these ${fmt.int(m.layers)} layers, K and V, above`)] : null;
    }
    lines.push(equationLine(label, terms ?? [termMn(fmt.int(m.bytes), `${fmt.int(m.bytes)} B = ${label}`)], fmt.int(m.bytes), 'B'));
    lines.push(h('p', { class: 'log-line' }, h('code', null, m.logLine)));
  }
  if (a.memory.length > 1) {
    lines.push(equationLine('llama.cpp allocates', a.memory.flatMap((m, i) => [i ? mo('+') : null,
      termMn(fmt.int(m.bytes), `${fmt.int(m.bytes)} B = the ${m.cache} ${m.object === 'llama_memory_recurrent' ? 'state' : 'cache'}`)]).filter(Boolean),
    fmt.int(a.bytes), 'B'));
  }
  return lines;
}

// The figures under the formula: llama.cpp's allocation beside the two other accountings.
export function resultRows(r, fmt) {
  const a = r.llamacpp;
  const host = hostName(a.host);
  return [
    ['Bytes per token (every layer)', fmt.bytes(r.bytesPerToken)],
    [`${host} allocates (-c ${fmt.int(a.nCtxRequested)}, ${fmt.int(a.nSeqMax)} ${a.nSeqMax === 1 ? 'slot' : 'slots'})`, fmt.bytesBoth(a.bytes)],
    [`Resident: what ${fmt.tokens(r.context)} occupy`, fmt.bytesBoth(r.sequenceBytesResident)],
    [`Naive: bytes per token × ${fmt.tokens(r.context)}`, fmt.bytesBoth(r.sequenceBytesNaive)],
  ];
}
