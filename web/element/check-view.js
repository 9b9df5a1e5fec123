// The check view: does one request of the advertised context fit the engine's KV pool? The
// pool comes typed in tokens, from a pasted vLLM / SGLang log excerpt, or derived from a GPU
// preset, a GPU count, the memory utilization and TP. It shows the verdict (announced
// through role="status"), the max concurrency, the safe max context, the advice lines, and
// a bar of one max-length request against the pool.

import { h, replace, setText, svg, uid, watchWidth } from './dom.js';
import { readTokens, readCount } from './state.js';
import { textWidth } from './text-width.js';
// The chart, shown under this view (sections.js takes it from here).
export * as chart from './chart-view.js';

const SOURCES = [['tokens', 'Pool in tokens'], ['log', 'From an engine log'], ['gpu', 'From GPUs']];

function labelled(text, control, note) {
  const id = uid('kv-check');
  control.id = id;
  const error = h('p', { class: 'field-error', id: `${id}-error` });
  control.setAttribute('aria-describedby', `${id}-error`);
  return { el: h('div', { class: 'field' }, h('label', { for: id }, text), control, note || null, error), control, error };
}

export class CheckView {
  // onChange(attribute, value) for max-context / pool-tokens; onInput() for the rest.
  constructor(onChange, onInput) {
    this.onChange = onChange;
    this.onInput = onInput;
    this.source = 'tokens';
    const name = uid('kv-pool-source');
    this.radios = SOURCES.map(([value, text]) => {
      const input = h('input', { type: 'radio', name, value, part: 'input' });
      input.addEventListener('change', () => {
        if (input.checked) {
          this.source = value;
          this.showSource();
          this.onInput();
        }
      });
      return { value, input, label: h('label', null, input, text) };
    });
    this.maxContext = labelled('Advertised max context (tokens)',
      h('input', { type: 'text', inputmode: 'numeric', autocomplete: 'off', part: 'input', name: 'max-context' }));
    this.poolTokens = labelled('KV pool (tokens)',
      h('input', { type: 'text', inputmode: 'numeric', autocomplete: 'off', part: 'input', name: 'pool-tokens' }));
    this.log = labelled('Engine log excerpt (vLLM or SGLang)',
      h('textarea', { rows: '4', spellcheck: 'false', part: 'input', name: 'engine-log',
        placeholder: 'INFO ... GPU KV cache size: 681,280 tokens' }));
    this.gpu = labelled('GPU', h('select', { part: 'input', name: 'gpu' }));
    this.utilization = labelled('Memory utilization (%)',
      h('input', { type: 'number', min: '1', max: '100', step: '1', value: '90', part: 'input', name: 'gpu-memory-utilization' }),
      h('p', { class: 'note' }, 'vLLM --gpu-memory-utilization, default 90%'));
    this.tokensBox = h('div', { class: 'check-inputs' }, this.poolTokens.el);
    this.logBox = h('div', { class: 'check-inputs' }, this.log.el);
    this.gpuCountNote = h('p', { class: 'note' });
    this.gpuBox = h('div', { class: 'check-inputs' }, this.gpu.el, this.utilization.el, this.gpuCountNote);

    this.verdict = h('p', { class: 'verdict', role: 'status', part: 'verdict' });
    this.figures = h('dl', { class: 'results', part: 'check-results' });
    this.advice = h('ul', { class: 'advice', part: 'advice' });
    // How the pool was found: the log lines understood, or the derivation's steps.
    this.poolSteps = h('ol', { class: 'advice', part: 'pool-steps' });
    this.poolStepsBox = h('details', null, h('summary', null, 'How the pool was found'), this.poolSteps);
    this.bar = svg('svg', { class: 'bar', role: 'img', part: 'check-bar' });
    this.error = h('p', { class: 'error', role: 'alert', part: 'check-error' });
    this.root = h('section', { class: 'view check', part: 'view check' },
      h('h2', null, 'Context against the KV pool'),
      h('div', { class: 'check-inputs' }, this.maxContext.el),
      this.poolBox = h('fieldset', null, h('legend', null, 'Pool'),
        h('div', { class: 'radios' }, this.radios.map((r) => r.label)),
        this.tokensBox, this.logBox, this.gpuBox),
      // llama.cpp's pool is the cache its context (-c) and slots allocate, above.
      this.llamaPool = h('p', { class: 'note', hidden: true }, 'Pool: the cells llama.cpp allocates for the context (-c) and the slots above; each slot holds at most the model\'s training context.'),
      this.error, this.verdict, this.figures, this.bar, this.advice, this.poolStepsBox);

    this.size = watchWidth(this.root, () => this.lastBar && this.drawBar(...this.lastBar));
    this.bindTokens(this.maxContext, 'max-context');
    this.bindTokens(this.poolTokens, 'pool-tokens');
    this.log.control.addEventListener('input', () => this.onInput());
    for (const f of [this.gpu, this.utilization]) f.control.addEventListener('input', () => this.onInput());
    this.gpuListKey = '';
    this.showSource();
  }

  bindTokens(f, attribute) {
    f.control.addEventListener('input', () => {
      if (!f.control.value.trim()) return;
      const r = readTokens(f.control.value);
      setText(f.error, r.error ? r.error : '');
      if (r.error) f.control.setAttribute('aria-invalid', 'true');
      else {
        f.control.removeAttribute('aria-invalid');
        this.onChange(attribute, String(r.value));
      }
    });
  }

  showSource() {
    for (const r of this.radios) r.input.checked = r.value === this.source;
    this.tokensBox.hidden = this.source !== 'tokens';
    this.logBox.hidden = this.source !== 'log';
    this.gpuBox.hidden = this.source !== 'gpu';
  }

  setGpus(list) {
    const key = JSON.stringify(list.map((g) => g.id));
    if (key === this.gpuListKey) return;
    this.gpuListKey = key;
    this.gpuNames = Object.fromEntries(list.map((g) => [g.id, g.name || g.id]));
    replace(this.gpu.control, list.map((g) => h('option', { value: g.id }, g.name || g.id)));
  }

  // The core's words with the reader's names: a GPU by its name, not its preset id, and
  // the steps by their heading here, not the report's field.
  plain(text) {
    return String(text).replace(/\(see pool\.steps\)/g, '(see "How the pool was found")')
      .replace(/\bgpu ([\w.-]+)/g, (m, id) => this.gpuNames?.[id] ?? m);
  }

  // The pool inputs as the API's check options, or { error } for a bad one.
  // The check of the element's config against the pool these inputs give: { check, message }
  // (message says what is missing or what the core refused).
  run(e, config, state, r, options) {
    this.poolBox.hidden = Boolean(r.llamacpp);
    this.llamaPool.hidden = !r.llamacpp;
    const pool = r.llamacpp ? {} : this.poolOptions(state);
    if (pool.missing) return { check: null, message: pool.missing };
    const maxContext = state.maxContext ?? (r.maxContext ? r.maxContext.value : undefined);
    if (maxContext === undefined) return { check: null, message: 'Type the advertised max context: the config gives none.' };
    const opts = { maxContext, ...pool };
    if (r.llamacpp) {
      for (const [k, v] of Object.entries(options)) if (k !== 'batch') opts[k] = v;
    } else {
      for (const k of ['kvDtype', 'tp', 'accounting']) if (state[k] !== undefined) opts[k] = state[k];
    }
    try {
      return { check: e.check(config, opts), message: '' };
    } catch (err) {
      return { check: null, message: err.message ?? String(err) };  // the core's words name the input
    }
  }

  poolOptions(state) {
    if (this.source === 'log') {
      const text = this.log.control.value;
      return text.trim() ? { engineLog: text } : { missing: 'Paste the engine log lines that report the KV cache.' };
    }
    if (this.source === 'gpu') {
      const util = readCount(this.utilization.control.value);
      const bad = util.error || (util.value > 100 ? 'must be at most 100' : '');
      setText(this.utilization.error, bad);
      if (bad) return { missing: 'Fix the memory utilization.' };
      if (!this.gpu.control.value) return { missing: 'This build lists no GPUs.' };
      // The GPU count is tp (x pp 1): the TP input above.
      return { gpu: this.gpu.control.value, gpuMemoryUtilization: util.value / 100 };
    }
    if (state.poolTokens === undefined) return { missing: 'Type the pool size in tokens (vLLM logs it as "GPU KV cache size").' };
    return { poolTokens: state.poolTokens };
  }

  setInput(f, text, same) {
    const focused = f.control.getRootNode().activeElement === f.control;
    if (focused && same(f.control.value)) return;
    if (f.control.value !== text) f.control.value = text;
  }

  // check: the API's check result, or null; message: why there is none.
  update({ r, state, check, message, fmt }) {
    const adv = state.maxContext ?? (r.maxContext ? r.maxContext.value : undefined);
    if (adv !== undefined) this.setInput(this.maxContext, String(adv), (v) => readTokens(v).value === adv);
    if (state.poolTokens !== undefined) {
      this.setInput(this.poolTokens, String(state.poolTokens), (v) => readTokens(v).value === state.poolTokens);
    }
    setText(this.gpuCountNote, `GPUs: ${fmt.int(state.tp ?? 1)}, one per tensor-parallel rank (the TP input above).`);
    setText(this.error, this.plain(message || ''));
    if (!check) {
      this.poolStepsBox.hidden = true;
      this.verdict.className = 'verdict';
      setText(this.verdict, message ? 'No verdict yet.' : '');
      replace(this.figures);
      replace(this.advice);
      replace(this.bar);
      this.bar.setAttribute('hidden', '');  // SVG elements have no .hidden property
      return;
    }
    const fits = check.fits;
    const byBytes = check.fitsBy === 'bytes';  // windows or states: one request's bytes against the pool's
    const pool = byBytes ? `${fmt.bytesBoth(check.poolBytesPerGpu)} per GPU` : fmt.tokens(check.poolTokens);
    this.verdict.className = fits ? 'verdict fits' : 'verdict fails';
    // A GPU whose memory the weights and reservations already fill has no pool: say why.
    const p = check.pool;
    setText(this.verdict, p && p.memoryLeft === false
      ? `Does not fit: on each ${this.gpuNames?.[this.gpu.control.value] ?? 'GPU'}, ${r.model}'s weights (${fmt.binary(p.weightBytesPerGpu)} per GPU) ` +
        `and the engine's reservations exceed the ${fmt.binary(p.requestedBytes)} it may use (${Math.round(p.fraction * 100)}% of ` +
        `${fmt.binary(p.gpuMemoryBytes)}): no memory is left for a KV pool. More GPUs (tensor parallel) or larger ones would leave some.`
      : fits
        ? `Fits: one ${fmt.int(check.maxContext)}-token request fits the pool of ${pool} (${fmt.ratio(check.maxConcurrency)} concurrency) for ${r.model}.`
        : `Does not fit: one ${fmt.int(check.maxContext)}-token request needs more than the pool of ${pool} (${fmt.ratio(check.maxConcurrency)}) for ${r.model}.`);
    const rows = [
      ['Pool', `${fmt.tokens(check.poolTokens)}${check.poolSource ? ` (${this.plain(check.poolSource)})` : ''}`],
      ['Advertised max context', fmt.tokens(check.maxContext)],
      ['Max concurrency', `${fmt.ratio(check.maxConcurrency)} (${byBytes ? 'pool bytes ÷ one request\'s bytes' : 'pool ÷ max context'})`],
      ['Safe max context', `${fmt.tokens(check.maxSafeContext)}${check.maxSafeContextSource ? ` (${check.maxSafeContextSource})` : ''}`],
    ];
    if (check.poolBytesPerGpu != null) rows.splice(1, 0, ['Pool memory per GPU', fmt.bytesBoth(check.poolBytesPerGpu)]);
    if (byBytes) rows.splice(3, 0, ['One request per GPU', fmt.bytesBoth(check.requestBytesPerGpu)]);
    replace(this.figures, rows.map(([k, v]) => [h('dt', null, k), h('dd', null, h('strong', null, v))]),
      fmt.replicated(r) && [h('dt', null, 'Per GPU'), h('dd', { class: 'note' }, fmt.replicated(r))]);
    replace(this.advice, (check.advice || []).map((line) => h('li', null, this.plain(line))));
    const steps = check.pool && check.pool.steps ? check.pool.steps
      : check.log && check.log.understood ? [...check.log.understood.map((u) => `line ${u.line}: ${u.what}`),
        ...(check.crossChecks || []).map((c) => `${c.agree ? 'Agrees' : 'Differs'}: ${c.text}`),
        `Verdict: ${check.verdictSource}`] : [];
    this.poolStepsBox.hidden = steps.length === 0;
    replace(this.poolSteps, steps.map((t) => h('li', null, this.plain(t))));
    this.drawBar(check, fmt);
  }

  drawBar(check, fmt) {
    this.lastBar = [check, fmt];
    this.bar.removeAttribute('hidden');
    const W = Math.max(260, this.size.width());
    const H = 58;
    const span = Math.max(check.poolTokens, check.maxContext);
    const x = (t) => 4 + (t / span) * (W - 8);
    const over = check.maxContext > check.poolTokens;
    const label = `One ${fmt.int(check.maxContext)}-token request against a pool of ${fmt.tokens(check.poolTokens)}`;
    const poolText = `pool: ${fmt.tokens(check.poolTokens)}`;
    this.bar.setAttribute('viewBox', `0 0 ${W} ${H}`);
    this.bar.setAttribute('height', String(H));
    this.bar.setAttribute('aria-label', label);
    replace(this.bar,
      svg('title', null, label),
      svg('rect', { class: 'pool', x: '4', y: '18', width: (x(check.poolTokens) - 4).toFixed(1), height: '18', rx: '3' }),
      svg('rect', { class: over ? 'req over' : 'req', x: '4', y: '22', width: (x(check.maxContext) - 4).toFixed(1), height: '10', rx: '2' }),
      svg('line', { class: 'limit', x1: x(check.poolTokens).toFixed(1), x2: x(check.poolTokens).toFixed(1), y1: '12', y2: '42' }),
      svg('text', { x: '4', y: '12' }, `request: ${fmt.tokens(check.maxContext)}`),
      // Ends at the pool's line, but never past either edge (a pool far below the request).
      svg('text', { x: Math.max(Math.min(x(check.poolTokens), W - 4), 4 + textWidth(poolText, 12)).toFixed(1), y: '54', 'text-anchor': 'end' }, poolText));
  }
}
