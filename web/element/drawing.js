// What an element shows for one state of its inputs, drawn into nodes (dom.js): the model
// line, the error line, the shared controls and the view's sections, under one
// <div class="kv" part="base">. The same code draws the live element (live.js, which owns
// everything else: the host, the URL hash, the loading, the events) and, at build time, the
// first render that `kvcalc bake` writes as the element's declarative shadow root
// (web/node/first-render.mjs, in a small document of its own): a baked render and the live
// one that replaces it are the same nodes under the same style sheet, so the page does not
// move when the element goes live.

import { h, replace, setText } from './dom.js';
import { ATTRIBUTES, DEFAULT_MODEL, SIZE_OPTIONS, attributeError, isLlamacpp } from './state.js';
import { Controls, INLINE, PASTED } from './controls.js';
import { describeError } from './error-text.js';
import { SECTIONS, sectionModule } from './sections.js';
import { runSteps } from './steps.js';

// A GGUF file's metadata document (kv.readGguf's text): what llama.cpp runs.
const isGguf = (text) => text !== null && /^\s*\{\s*"gguf"\s*:/.test(text);

// The size() options the attributes give for a config text, and the engine in use: the
// engine attribute's, else llama.cpp for a GGUF file (what its reader runs: said beside the
// engine input), else the core's default, vLLM.
export function sizeOptions(values, config) {
  const options = {};
  for (const prop of SIZE_OPTIONS) {
    if (values[prop] !== undefined) options[prop] = values[prop];
  }
  if (options.engine === undefined && isGguf(config)) {
    options.engine = 'llamacpp';
    return { options, engine: 'llamacpp', engineNote: 'llama.cpp: what a GGUF file runs in (choose vLLM to size it as vLLM serves it)' };
  }
  return { options, engine: options.engine ?? 'vllm', engineNote: '' };
}

// The element shows llama.cpp's controls and arithmetic (llamacpp-view.js, loaded first): its
// engine attribute says so, or, without one, a GGUF file may be the config.
export const usesLlamacpp = (values, texts) => isLlamacpp(values.engine) || (values.engine === undefined && texts.some(isGguf));

export class Drawing {
  // on: what the reader's actions do, { set(attribute, value) (an input changed: null for
  // an emptied one), redraw() (a view's own input changed), openConfig() (the paste panel
  // opened) }. The nodes are built here; the sections when a view first shows them.
  constructor(on) {
    this.on = on;
    this.modelName = h('span', { class: 'model-name', part: 'model-name' });
    this.modelFacts = h('span', { class: 'muted' });
    this.header = h('div', { class: 'model-line', part: 'header' }, this.modelName, this.modelFacts);
    this.error = h('div', { class: 'error', role: 'alert', part: 'error' });
    this.controls = new Controls((a, v) => on.set(a, v));
    // The paste panel's input is built (and its code loaded) when it is first opened.
    this.configPanel = h('details', { class: 'config-input field wide', part: 'config' }, h('summary', null, 'Use your own config.json or .gguf'));
    this.configPanel.addEventListener('toggle', () => {
      if (this.configPanel.open) on.openConfig();
    });
    this.controls.root.append(this.configPanel);
    this.sections = {};  // built when a view first shows them
    this.order = null;   // the view whose sections are in place
    this.base = h('div', { class: 'kv', part: 'base' }, this.header, this.error, this.controls.root);
  }

  // The section's view (formula, chart, table, gqa, check), built the first time, hidden,
  // in its place in the view's order; its code must be loaded (sections.js).
  section(name) {
    if (!this.sections[name]) {
      const on = this.on;
      const make = {
        formula: () => new (sectionModule('formula').FormulaView)(),
        chart: () => new (sectionModule('chart').ChartView)(),
        table: () => Object.assign(new (sectionModule('table').TableView)(), { onSort: () => on.redraw() }),
        gqa: () => new (sectionModule('gqa').GqaView)(() => on.redraw()),
        check: () => new (sectionModule('check').CheckView)((a, v) => on.set(a, v), () => on.redraw()),
      };
      const { root } = this.sections[name] = make[name]();
      root.hidden = true;
      const order = SECTIONS[this.order] ?? [];
      const next = order.includes(name) ? order.slice(order.indexOf(name) + 1).map((n) => this.sections[n]?.root)
        .find((r) => r?.parentNode === this.base) : null;
      if (next) next.before(root);
      else this.base.append(root);
    }
    return this.sections[name];
  }

  // Draws the state of the inputs with e (engine.js's Engine over the loaded API) and fmt
  // (format.js's Formatter):
  //   values, errors: the attributes as state.js reads them (readAttributes);
  //   source: 'pasted' | 'inline' | 'preset' | null (null: inline if present), with the
  //   texts pasted and inline (or null); fetched: the configs fetched from the Hugging Face
  //   Hub (hub-offer.js), { choices: their select entries, key: the entry of the pasted text
  //   if it is one of them }, or null;
  //   pending: the sections not to draw now (hidden; the caller draws them later with
  //   drawSection); presetsReady: the model select lists every preset (else only the one shown).
  // Answers null when nothing could be sized (the error line says why), else what was drawn:
  // { r, formula, check, state, source, config, presetId, options, messages, extra, selected, ctx }.
  // A pending section is made when it is first drawn.
  draw(...args) {
    return runSteps(this.drawSteps(...args));
  }

  // draw() in steps (each `yield` a point where the caller may leave the main thread): the
  // model read, the sizing, then the nodes.
  * drawSteps(e, fmt, { values, errors, source: chosen, pasted, inline, fetched = null }, { pending = [], presetsReady = true } = {}) {
    const messages = errors.map((x) => x.message);

    // The config: pasted, else inline, else the preset the model attribute names.
    let source = chosen;
    if (source === 'pasted' && pasted === null) source = null;
    if (source === 'inline' && inline === null) source = null;
    if (source === null) source = inline !== null ? 'inline' : 'preset';
    let presetId = values.model ?? DEFAULT_MODEL;
    if (/^\s*[{["]/.test(presetId)) {
      // The core would read JSON text as a config; the attribute names a preset only.
      messages.push(`model: "${presetId}" is not a bundled preset id (a config goes in a <script type="application/json"> child); showing ${DEFAULT_MODEL}`);
      presetId = DEFAULT_MODEL;
    }
    const configFor = (s) => (s === 'pasted' ? pasted : s === 'inline' ? inline : presetId);
    let config = configFor(source);

    let { options, engine, engineNote } = sizeOptions(values, config);

    // The model read first, apart (a model read before costs a look-up): a page's first
    // read is the first call into the module's config reader. Its error is the sizing's.
    try {
      e.model(config);
    } catch {
      // reported below
    }
    yield;

    // Size; an option the core rejects is reported and left out (an option of another engine
    // among them), a config it cannot read is reported and the preset used instead: always
    // said, never silent.
    let r = null;
    let formula = null;
    for (let attempt = 0; attempt < SIZE_OPTIONS.length + 4 && !r; attempt += 1) {
      try {
        formula = e.formula(config, options);
        r = formula.report;
      } catch (err) {
        const { attribute: attr, message: text } = attributeError(err);
        if (attr && options[ATTRIBUTES[attr].prop] !== undefined) {
          // The core's message starts with the option's API name; the reader set an attribute.
          messages.push(`${attr}: ${text}; not applied`);
          delete options[ATTRIBUTES[attr].prop];
        } else if (source === 'preset' && err.code === 'unknown_preset' && config !== DEFAULT_MODEL) {
          messages.push(`model: "${presetId}" is not a bundled preset; showing ${DEFAULT_MODEL}`);
          presetId = DEFAULT_MODEL;
          config = presetId;
        } else if (source !== 'preset') {
          messages.push(`${source === 'inline' ? 'inline config' : 'config'}: ${describeError(err)}; showing ${presetId}`);
          source = 'preset';
          config = presetId;
          ({ options, engine, engineNote } = sizeOptions(values, config));
        } else {
          messages.push(describeError(err));
          break;
        }
      }
    }
    replace(this.error, messages.length > 1 ? h('ul', null, messages.map((m) => h('li', null, m))) : messages[0] ?? '');
    if (!r) return null;
    yield;

    // What is in use: the attributes, less the options the core refused.
    const applied = { ...values };
    for (const prop of SIZE_OPTIONS) {
      if (options[prop] === undefined) delete applied[prop];
    }
    if (options.engine === undefined) {
      engine = 'vllm';  // the core refused the engine asked for (its message says why)
      engineNote = '';
    }
    const state = { ...applied, view: values.view ?? 'formula', source, presetId };
    const isMla = r.groups.some((g) => g.kind === 'mla');

    // Header and controls.
    setText(this.modelName, r.model);
    setText(this.modelFacts, `${r.attentionKind} · ${fmt.int(r.numLayers.value)} layers` +
      `${r.maxContext ? ` · max context ${fmt.int(r.maxContext.value)}` : ''}`);
    // A config fetched from the Hub is listed by its id, with the others fetched before.
    const hubKey = source === 'pasted' ? fetched?.key : undefined;
    const extra = [];
    if (pasted !== null && !hubKey) extra.push({ value: PASTED, label: `Your config: ${source === 'pasted' ? r.model : 'pasted'}` });
    if (inline !== null) extra.push({ value: INLINE, label: `This page's config${source === 'inline' ? `: ${r.model}` : ''}` });
    if (fetched) extra.push(...fetched.choices);
    const selected = hubKey ?? (source === 'pasted' ? PASTED : source === 'inline' ? INLINE : presetId);
    this.controls.setModels(presetsReady ? e.presetList : [{ id: presetId }], extra, selected);
    const llamacpp = sectionModule('llamacpp');
    const llama = Boolean(r.llamacpp);
    // The rules of which llama.cpp build apply, and why.
    const a = r.llamacpp;
    const build = !a ? '' : a.buildSource.includes(`b${a.build}`) ? a.buildSource : `llama.cpp b${a.build}'s rules (${a.buildSource})`;
    this.controls.update({ state, result: r, fmt, isMla, engine, llamacpp, engineNote: engineNote || build });

    const sections = SECTIONS[state.view];
    // The table names its own rows; its header would name a model it may not show.
    const tableOnly = state.view === 'table';
    this.header.hidden = tableOnly;
    this.controls.fields.model.el.hidden = tableOnly;
    // The table is one sequence of the whole model, as `kvcalc table` bakes it; llama.cpp has
    // neither a batch nor tensor parallelism.
    this.controls.fields.batch.el.hidden = tableOnly || llama;
    this.controls.fields.tp.el.hidden = tableOnly || llama;
    if (this.order !== state.view) {
      // The view's sections, in its order (moving nodes keeps their state); others hidden.
      this.order = state.view;
      for (const view of Object.values(this.sections)) view.root.hidden = true;
      for (const name of sections) {
        if (!this.sections[name] && pending.includes(name)) continue;
        this.base.append(this.section(name).root);
      }
    }

    // The check is one core call; its result goes with the event, so it is run now.
    let check = null;
    let checkMessage = '';
    if (sections.includes('check')) {
      ({ check, message: checkMessage } = this.section('check').run(e, config, state, r, options));
    }
    const ctx = {
      e, fmt, r, formula, state, options, config, source, presetId, isMla, check, checkMessage, llamacpp,
      models: values.models, sizeOpts: (more) => ({ ...options, ...more }),
    };
    for (const name of sections) {
      if (pending.includes(name)) {
        if (this.sections[name]) this.sections[name].root.hidden = true;
        continue;
      }
      this.section(name).root.hidden = false;
      yield* this.sectionSteps(name, ctx);
    }
    return { r, formula, check, state, source, config, presetId, options, messages, extra, selected, ctx, sections };
  }

  // Draws one section of the state ctx (what draw() answered as ctx).
  drawSection(name, c) {
    this.section(name).root.hidden = false;
    runSteps(this.sectionSteps(name, c));
  }

  // drawSection() in steps, the section left as it is (hidden, while it is drawn this way):
  // each `yield` is a point where the caller may leave the main thread (live.js draws a first
  // render's other sections so). The table of every preset and the GQA view have several.
  * sectionSteps(name, c) {
    const view = this.section(name);
    const { e, fmt, r, state } = c;
    if (name === 'formula') view.update({ result: r, formula: c.formula, fmt, llamacpp: c.llamacpp });
    else if (name === 'check') {
      view.setGpus(e.gpuList);
      view.update({ r, state, check: c.check, message: c.checkMessage, fmt });
    } else if (name === 'chart') this.#drawChart(c);
    else if (name === 'table') yield* view.steps(c);
    else if (name === 'gqa') {
      const options = c.sizeOpts({ context: r.context });
      yield* view.updateSteps({ result: r, key: e.configKey(c.config), fmt, series: (axes) => e.series(c.config, options, axes),
        download: () => e.kv.svg(c.config, { ...options, chart: 'gqa' }) });
    }
  }

  #drawChart({ e, config, r, state, check, fmt, sizeOpts }) {
    const options = sizeOpts({});
    // llama.cpp's cells are not a pool of tokens at bytes per token: no pool line.
    const poolTokens = r.llamacpp ? null : check ? check.poolTokens : state.poolTokens;
    const data = sectionModule('chart').chartData((...a) => e.series(...a), config, r, {
      options, kvDtype: state.kvDtype, poolTokens, maxContext: check && check.maxContext,
    }, fmt);
    // "Download SVG": the figure kv.svg() draws for the same inputs.
    const figure = check && poolTokens ? { chart: 'check', poolTokens, maxContext: check.maxContext } : {};
    data.download = () => e.kv.svg(config, { ...options, ...figure });
    this.section('chart').update(data);
  }
}
