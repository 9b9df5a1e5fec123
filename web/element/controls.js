// The shared inputs: model (a select in natural order, and a search field with the ids as
// suggestions), engine,
// context (with 4K/32K/128K/1M shortcuts), batch, KV dtype, accounting and tensor
// parallelism; with a llama.cpp engine, llama.cpp's own (llamacpp-view.js) in place of batch,
// KV dtype and tensor parallelism, which it has not. Each change goes back to the element as an attribute value
// (onChange(attribute, text), null for an emptied input: the default); a value that does
// not parse is shown next to its input and not applied.

import { h, replace, setText, uid } from './dom.js';
import { CONTEXT_SHORTCUTS, isLlamacpp, readCount, readTokens } from './state.js';

const DTYPE_CHOICES = [
  ['bf16', 'bf16 (2 bytes)'], ['fp16', 'fp16 (2 bytes)'], ['fp32', 'fp32 (4 bytes)'],
  ['fp8', 'fp8 (1 byte)'], ['int8', 'int8 (1 byte)'], ['int4', 'int4 (0.5 byte)'],
];
// Short, so that a select in a narrow column shows its whole choice; the formula view says
// what each one counts.
const ACCOUNTING_CHOICES = [['resident', 'resident'], ['naive', 'naive'], ['vllm', 'vLLM blocks']];
const LLAMACPP_ACCOUNTING_CHOICES = [['llamacpp', 'llama.cpp allocates'], ['resident', 'resident'], ['naive', 'naive']];
const ENGINE_CHOICES = [['vllm', 'vLLM'], ['sglang', 'SGLang'], ['llamacpp', 'llama.cpp (llama-server)'],
  ['ollama', 'Ollama'], ['lmstudio', 'LM Studio']];
// llama.cpp's context is -c, the whole cache (split among the slots unless unified);
// Ollama's num_ctx is one slot's.
const CONTEXT_LABELS = { vllm: 'Context (tokens)', llamacpp: 'Context (-c, tokens)', ollama: 'Context (num_ctx, tokens)',
  lmstudio: 'Context length (tokens)' };
// The fields only one kind of engine has: a reader who switches the engine clears the others'.
const SERVING_FIELDS = ['batch', 'kv-dtype', 'tp'];

// Model ids in natural order, case aside: "deepseek" before "Qwen", "Qwen3-8B" before "Qwen3-30B".
// Made at the first sort, after the sections are drawn: a page's first collator costs milliseconds of locale data.
let collator = null;
const natural = (a, b) => (collator ??= new Intl.Collator('en', { numeric: true, sensitivity: 'base' })).compare(a, b);

export const PASTED = '#pasted';
export const INLINE = '#inline';

// wide: a whole row; w2: a whole row when the element is narrow.
export function field(labelText, control, { wide = false, w2 = false, extra = null, hint = null } = {}) {
  const id = uid('kv-in');
  control.id = id;
  const error = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert' });
  const describedBy = [`${id}-error`];
  let hintEl = null;
  if (hint) {
    hintEl = h('p', { class: 'note', id: `${id}-hint` });
    describedBy.push(`${id}-hint`);
  }
  control.setAttribute('aria-describedby', describedBy.join(' '));
  const el = h('div', { class: `field${wide ? ' wide' : w2 ? ' w2' : ''}` },
    h('label', { for: id }, labelText), control, extra, hintEl, error);
  return { el, control, error, hint: hintEl, label: el.firstChild };
}

export class Controls {
  constructor(onChange) {
    this.onChange = onChange;
    this.modelSelect = h('select', { name: 'model', part: 'input model-select' });
    const listId = uid('kv-models');
    this.modelList = h('datalist', { id: listId });
    this.modelSearch = h('input', {
      type: 'search', name: 'model-search', list: listId, placeholder: 'Find a model', 'aria-label': 'Find a model',
      autocomplete: 'off', spellcheck: 'false', part: 'input',
    });
    this.contextInput = h('input', {
      name: 'context', type: 'text', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false',
      part: 'input',
    });
    this.shortcuts = CONTEXT_SHORTCUTS.map(([label, n]) => h('button', {
      type: 'button', 'data-context': n, 'aria-pressed': 'false', part: 'button shortcut',
      'aria-label': `context ${label} (${n} tokens)`,
    }, label));
    this.engineSelect = h('select', { name: 'engine', part: 'input' },
      ENGINE_CHOICES.map(([v, t]) => h('option', { value: v }, t)));
    this.batchInput = h('input', { name: 'batch', type: 'number', min: '1', step: '1', inputmode: 'numeric', part: 'input' });
    this.dtypeSelect = h('select', { name: 'kv-dtype', part: 'input' });
    this.accountingSelect = h('select', { name: 'accounting', part: 'input' });
    this.tpInput = h('input', { name: 'tp', type: 'number', min: '1', step: '1', inputmode: 'numeric', part: 'input' });

    this.fields = {
      model: field('Model', this.modelSelect, { wide: true, extra: [this.modelSearch, this.modelList] }),
      engine: field('Engine', this.engineSelect, { w2: true, hint: true }),
      context: field('Context (tokens)', this.contextInput, {
        w2: true,
        extra: h('div', { class: 'shortcuts', role: 'group', 'aria-label': 'Context shortcuts' }, this.shortcuts),
        hint: true,
      }),
      batch: field('Batch (sequences)', this.batchInput),
      'kv-dtype': field('KV cache dtype', this.dtypeSelect, { w2: true }),
      accounting: field('Accounting', this.accountingSelect, { w2: true }),
      tp: field('Tensor parallel (GPUs)', this.tpInput),
    };
    this.root = h('div', { class: 'controls', part: 'controls', role: 'group', 'aria-label': 'Inputs' },
      Object.values(this.fields).map((f) => f.el));

    this.modelSelect.addEventListener('change', () => this.onChange('model', this.modelSelect.value));
    // The search suggests the ids that hold its text (the browser's list); an id picked
    // there, or Enter (the first id, in the select's order, that holds the text), chooses.
    const pick = (enter) => {
      const q = this.modelSearch.value.trim().toLowerCase();
      const m = this.models.find((x) => (enter ? x.id.toLowerCase().includes(q) : x.id.toLowerCase() === q));
      if (q && m) {
        this.modelSearch.value = '';
        this.onChange('model', m.id);
      }
    };
    this.modelSearch.addEventListener('input', () => pick(false));
    this.modelSearch.addEventListener('keydown', (ev) => ev.key === 'Enter' && pick(true));
    this.dtypeSelect.addEventListener('change', () => this.onChange('kv-dtype', this.dtypeSelect.value));
    // Another kind of engine: the fields it has not, which go, take their values with them.
    this.engineSelect.addEventListener('change', () => {
      const engine = this.engineSelect.value;
      const gone = isLlamacpp(engine) ? SERVING_FIELDS : this.llamacpp?.names ?? [];
      for (const name of gone) this.onChange(name, null);
      if (this.accountingSelect.value !== 'resident' && this.accountingSelect.value !== 'naive') this.onChange('accounting', null);
      this.onChange('engine', engine);
    });
    this.accountingSelect.addEventListener('change', () => this.onChange('accounting', this.accountingSelect.value));
    this.bindNumber('context', this.contextInput, readTokens);
    this.bindNumber('batch', this.batchInput, readCount);
    this.bindNumber('tp', this.tpInput, readCount);
    for (const b of this.shortcuts) {
      b.addEventListener('click', () => {
        this.contextInput.value = b.getAttribute('data-context');
        this.setError('context', '');
        this.onChange('context', b.getAttribute('data-context'));
      });
    }
    this.presetKey = '';
  }

  // An emptied input stands for the default (the model's max context, one sequence, one
  // GPU): the figures show it, and the input shows it again once it loses the focus.
  bindNumber(name, input, read) {
    input.addEventListener('input', () => {
      const r = input.value.trim() === '' ? { value: null } : read(input.value);
      this.setError(name, r.error || '');
      if (!r.error) this.onChange(name, r.value === null ? null : String(r.value));
    });
    input.addEventListener('blur', () => {
      if (input.value.trim() === '') this.onChange(name, null);
    });
  }

  setError(name, message) {
    const f = this.fields[name];
    setText(f.error, message);
    if (message) f.control.setAttribute('aria-invalid', 'true');
    else f.control.removeAttribute('aria-invalid');
  }

  // Sets a control's value unless the user is typing a value that already means the same.
  setValue(input, text, same) {
    const focused = input.getRootNode().activeElement === input;
    if (focused && (!input.value.trim() || same(input.value))) return;
    if (input.value !== text) input.value = text;
  }

  // models: [{id, name}], extra: [{value, label}] for inline and pasted configs.
  setModels(models, extra, selected) {
    const key = JSON.stringify([models.map((m) => m.id), extra]);
    if (key !== this.presetKey) {
      this.presetKey = key;
      this.models = [...models].sort((a, b) => natural(a.id, b.id));
      replace(this.modelList, this.models.map((m) => h('option', { value: m.id })));
      replace(this.modelSelect,
        extra.map((e) => h('option', { value: e.value }, e.label)),
        this.models.map((m) => h('option', { value: m.id }, m.name && m.name !== m.id ? `${m.name} (${m.id})` : m.id)));
    }
    if (this.modelSelect.value !== selected) this.modelSelect.value = selected;
  }

  // state: the element's values; result: the size result (or null); fmt: the formatter;
  // engine: the engine in use (an attribute's, or llama.cpp's for a GGUF file), engineNote
  // why when no attribute says; llamacpp: llamacpp-view.js, when that engine shows.
  update({ state, result, fmt, isMla, engine = 'vllm', engineNote = '', llamacpp = null }) {
    const llama = isLlamacpp(engine);
    if (this.engineSelect.value !== engine) this.engineSelect.value = engine;
    setText(this.fields.engine.hint, engineNote);
    for (const name of SERVING_FIELDS) this.fields[name].el.hidden = llama;
    if (llama && llamacpp && !this.llamacpp) this.llamacpp = new llamacpp.LlamacppControls(this, field);
    this.llamacpp?.update({ shown: llama, engine, state, result, fmt });
    setText(this.fields.context.label, CONTEXT_LABELS[engine] ?? CONTEXT_LABELS.vllm);
    const context = state.context ?? (result ? result.context : null);
    if (context !== null) {
      this.setValue(this.contextInput, String(context), (v) => readTokens(v).value === context);
    }
    for (const b of this.shortcuts) {
      b.setAttribute('aria-pressed', String(Number(b.getAttribute('data-context')) === context));
    }
    const hint = this.fields.context.hint;
    if (result) {
      setText(hint, state.context === undefined
        ? `${fmt.int(result.context)}: ${result.llamacpp ? 'the default' : "the model's max"} (${result.contextSource})`
        : `${fmt.int(result.context)} tokens`);
    }
    this.setValue(this.batchInput, String(state.batch ?? 1), (v) => readCount(v).value === (state.batch ?? 1));
    this.setValue(this.tpInput, String(state.tp ?? 1), (v) => readCount(v).value === (state.tp ?? 1));

    const dtype = state.kvDtype ?? 'auto';
    const autoLabel = result && (state.kvDtype ?? 'auto') === 'auto' ? `auto (${result.kvDtype})` : 'auto (the model dtype)';
    const choices = [['auto', autoLabel], ...DTYPE_CHOICES];
    if (isMla) choices.push(['fp8_ds_mla', 'fp8_ds_mla (656 B)']);
    if (!choices.some(([v]) => v === dtype)) choices.push([dtype, dtype]);
    const dkey = JSON.stringify(choices);
    if (dkey !== this.dtypeKey) {
      this.dtypeKey = dkey;
      replace(this.dtypeSelect, choices.map(([v, t]) => h('option', { value: v }, t)));
    }
    if (this.dtypeSelect.value !== dtype) this.dtypeSelect.value = dtype;
    const accKey = llama ? LLAMACPP_ACCOUNTING_CHOICES : ACCOUNTING_CHOICES;
    if (this.accountingChoices !== accKey) {
      this.accountingChoices = accKey;
      replace(this.accountingSelect, accKey.map(([v, t]) => h('option', { value: v }, t)));
    }
    const acc = state.accounting ?? (llama ? 'llamacpp' : 'resident');
    if (this.accountingSelect.value !== acc) this.accountingSelect.value = acc;
  }
}
