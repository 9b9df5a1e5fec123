// The live <kv-calc>: everything the element does once it is near the viewport (or
// loading="eager"): reads its attributes, the URL hash and an inline config, sizes through
// the page's one wasm instance, and draws its view's sections in its shadow root, replacing
// the baked fallback in one step. web/element/element.js, which every page loads, holds the
// element class and its documentation, and hands over to this file; the element's interface
// is documented there.

import { h, replace, setText } from './dom.js';
import { sheetFor, styleSheet } from './styles.js';
import { ATTRIBUTES, DEFAULT_MODEL, attributeError, readAttributes } from './state.js';
import { readHash, writeHash } from './hash.js';
import { engine, loadedEngine } from './engine.js';
import { formatterFor } from './format.js';
import { Controls, INLINE, PASTED } from './controls.js';
import { describeError } from './error-text.js';
import { followTheme } from './theme.js';
import { SECTIONS, loadSections, sectionModule } from './sections.js';
import { KvCalcChangeEvent } from './change-event.js';

// Attributes the reader can change, written to the URL hash after an edit.
const SHARED_ATTRIBUTES = ['model', 'context', 'batch', 'kv-dtype', 'tp', 'accounting', 'pool-tokens', 'max-context'];

const HASH_DELAY_MS = 250;

// An element went live in this task (see #render).
let firstRenderInTask = false;

// Work for idle time (with a bound, so a busy page still gets it), else the next task.
const IDLE_TIMEOUT_MS = 150;
const whenIdle = (fn) => {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(fn, { timeout: IDLE_TIMEOUT_MS });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(fn, 0);
  return () => clearTimeout(id);
};

// The option fields of size() that a bad attribute can name.
export class Live {
  #host;
  #shadow;
  #queued = false;
  #engine = null;
  #preparing = null;     // the sections whose code (and the wasm) is loading
  #loadError = null;
  #ui = null;
  #shown = false;        // the live content has replaced the fallback
  #inline = null;        // text of the child <script type="application/json">
  #pasted = null;        // text of a pasted / dropped / hash config
  #source = null;        // 'pasted' | 'inline' | 'preset' (null: inline if present)
  #userEdited = false;   // write the hash only after the reader changed something
  #lastKey = '';
  #result = null;
  #check = null;
  #options = {};         // the size() options of the last render
  #hashTimer = 0;
  #deferTimer = 0;       // the task that draws this element when another went live in this one
  #later = null;         // cancels the idle callback that draws the first render's other sections
  #cold;                 // the page's wasm module was not ready when this element started
  #settled = null;       // updateComplete's promise while work is pending
  #resolveSettled = null;
  #observer = null;
  #onHashChange = () => this.#readHash();
  #state;
  #theme = null;        // follows the page's light or dark mode once shown
  #scrollTo = false;    // the URL's fragment set this element's state: scroll to it once drawn

  // host: the <kv-calc>; shadow: its shadow root, which shows the fallback through a slot
  // until the first render replaces it; config: a config the page set before (or null);
  // state(name, on): sets the host's custom states (live once the fallback is replaced, dark).
  constructor(host, shadow, { config, state }) {
    this.#host = host;
    this.#shadow = shadow;
    this.#state = state;
    this.#cold = !loadedEngine();
    // The first Intl.NumberFormat costs milliseconds (locale data): build it while the wasm
    // module compiles, not after.
    formatterFor(host);
    this.#readHash();
    this.#readInline();
    if (config !== null) this.config = config;
    if (host.isConnected) this.connected();
    else this.#queue();
  }

  /** Resolves when every section shows the current state (the first section shows it as
   * soon as kvcalc-change fires; on a first render, the others follow in idle time). */
  get updateComplete() {
    return this.#settled ?? Promise.resolve(true);
  }

  get result() { return this.#result; }
  get checkResult() { return this.#check; }

  get config() {
    return this.#pasted ?? this.#inline;
  }

  set config(value) {
    this.#pasted = value === null || value === undefined ? null
      : typeof value === 'string' ? value : JSON.stringify(value);
    this.#source = this.#pasted !== null ? 'pasted' : null;
    this.#queue();
  }

  connected() {
    window.addEventListener('hashchange', this.#onHashChange);
    this.#observer ??= new MutationObserver(() => {
      if (this.#readInline()) this.#queue();
    });
    this.#observer.observe(this.#host, { childList: true, subtree: true, characterData: true });
    if (this.#shown) this.#theme = followTheme(this.#host, this.#state);
    this.#queue();
  }

  disconnected() {
    window.removeEventListener('hashchange', this.#onHashChange);
    this.#observer?.disconnect();
    this.#theme?.forget();
  }

  attributeChanged(name, oldValue, newValue) {
    if (name === 'theme') this.#theme?.apply();
    else if (oldValue !== newValue) this.#queue();
  }

  // Several attribute changes in one task become one render.
  #queue() {
    this.#settled ??= new Promise((ok) => { this.#resolveSettled = ok; });
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      if (this.#host.isConnected) this.#render();
      else this.#settle();
    });
  }

  // Nothing left to draw: updateComplete resolves (unless the module is still loading).
  #settle() {
    if (this.#queued || this.#deferTimer || this.#later || this.#preparing || (!this.#engine && !this.#loadError)) return;
    const ok = this.#resolveSettled;
    this.#settled = null;
    this.#resolveSettled = null;
    ok?.(true);
  }

  #hashPrefix() {
    if (this.#host.id) return this.#host.id;
    const all = [...document.querySelectorAll(this.#host.localName)];
    const i = all.indexOf(this.#host);
    return i > 0 ? `${this.#host.localName}-${i + 1}` : this.#host.localName;
  }

  #readHash() {
    const { attributes, config } = readHash(this.#hashPrefix());
    if (config !== null || Object.keys(attributes).length) this.#scrollTo = true;
    for (const [name, value] of Object.entries(attributes)) {
      if (this.#host.getAttribute(name) !== value) this.#host.setAttribute(name, value);
    }
    if (config !== null && config !== this.#pasted) {
      this.#pasted = config;
      this.#source = 'pasted';
      this.#queue();
    }
  }

  // Returns true when the inline config changed.
  #readInline() {
    const script = [...this.#host.children].find((c) => c.localName === 'script' && c.type === 'application/json');
    const text = script ? script.textContent : null;
    if (text === this.#inline) return false;
    this.#inline = text;
    return true;
  }

  // The reader changed an input: it becomes the attribute, and the hash remembers it.
  #userSet(attribute, value) {
    this.#userEdited = true;
    if (attribute === 'model') {
      if (value === PASTED) this.#source = 'pasted';
      else if (value === INLINE) this.#source = 'inline';
      else {
        this.#source = 'preset';
        this.#host.setAttribute('model', value);
      }
      this.#queue();
      return;
    }
    // An emptied input (null) goes back to the default, and what was said about its value goes.
    if (value === null) this.#host.removeAttribute(attribute);
    else if (this.#host.getAttribute(attribute) !== value) this.#host.setAttribute(attribute, value);
    this.#queue();
  }

  // The config is tried with the element's current options (its context, dtype...), so an
  // error shows next to the config input before anything else changes: its figures only,
  // the render that follows builds the report.
  #usePastedConfig(text) {
    const e = this.#engine;
    try {
      e.figures(text, this.#options);
    } catch (err) {
      return err;
    }
    this.#pasted = text;
    this.#source = 'pasted';
    this.#userEdited = true;
    this.#queue();
    return null;
  }

  #build() {
    const ui = {};
    ui.modelName = h('span', { class: 'model-name', part: 'model-name' });
    ui.modelFacts = h('span', { class: 'muted' });
    ui.header = h('div', { class: 'model-line', part: 'header' }, ui.modelName, ui.modelFacts);
    ui.error = h('div', { class: 'error', role: 'alert', part: 'error' });
    ui.controls = new Controls((a, v) => this.#userSet(a, v));
    // The paste panel's input is built (and its code loaded) when it is first opened.
    ui.configPanel = h('details', { class: 'config-input field wide', part: 'config' }, h('summary', null, 'Use your own config.json or .gguf'));
    ui.configPanel.addEventListener('toggle', () => {
      if (ui.configPanel.open) this.#configInput().catch(() => {});
    });
    ui.controls.root.append(ui.configPanel);
    ui.sections = {};  // built when a view first shows them
    // Built apart from the page: it replaces the fallback once every section is drawn (#show).
    ui.base = h('div', { class: 'kv', part: 'base' }, ui.header, ui.error, ui.controls.root);
    this.#ui = ui;
  }

  // The live content replaces the fallback in one step, with its styles, once its sections
  // are drawn, so the page never sees a half-drawn section. pending: the sections of a cold
  // first render still to draw (in idle time): the live content keeps the box the fallback
  // had (on a page that reserved the live height, that height), so they appear in it
  // without moving the page.
  #show(pending = []) {
    if (this.#shown) return;
    this.#shown = true;
    const height = pending.length ? this.#host.getBoundingClientRect().height : 0;
    this.#shadow.adoptedStyleSheets = [styleSheet(), ...this.#shadow.adoptedStyleSheets];
    replace(this.#shadow, this.#ui.base);
    // The pictures (chart, GQA heads, check bar) were drawn at a guessed width: now on the
    // page, they are drawn again at their own, before any frame shows them.
    const drawn = Object.values(this.#ui.sections).filter((view) => view.size);
    for (const view of drawn) view.size.measure();
    for (const view of drawn) view.size.fit();
    this.#state('live', true);
    this.#theme = followTheme(this.#host, this.#state);
    if (height) {
      // The host's box (border-box) stays as tall: its content box, less the live padding
      // and border.
      const cs = getComputedStyle(this.#host);
      const frame = ['paddingTop', 'paddingBottom', 'borderTopWidth', 'borderBottomWidth'].reduce((sum, k) => sum + parseFloat(cs[k]), 0);
      this.#ui.base.style.minHeight = `${Math.max(0, height - frame)}px`;
    }
  }

  // Resolves to the paste panel's ConfigInput, loading its code the first time.
  #configInput() {
    const ui = this.#ui;
    ui.configInput ??= import('./config-input.js').then(
      ({ ConfigInput }) => new ConfigInput(ui.configPanel, (text) => this.#usePastedConfig(text),
        (file, options) => this.#engine.kv.readGguf(file, options)),
      (err) => {
        ui.configInput = null;  // opening the panel again retries
        replace(ui.configPanel, ui.configPanel.firstChild, h('p', { class: 'field-error', role: 'alert' },
          `kvcalc could not load the config input: ${describeError(err)}`));
        throw err;
      });
    return ui.configInput;
  }

  #section(name) {
    const ui = this.#ui;
    if (!ui.sections[name]) {
      const make = {
        formula: () => new (sectionModule('formula').FormulaView)(),
        chart: () => new (sectionModule('chart').ChartView)(),
        table: () => Object.assign(new (sectionModule('table').TableView)(), { onSort: () => this.#queue() }),
        gqa: () => new (sectionModule('gqa').GqaView)(() => this.#queue()),
        check: () => new (sectionModule('check').CheckView)((a, v) => this.#userSet(a, v), () => this.#queue()),
      };
      ui.sections[name] = make[name]();
      ui.base.append(ui.sections[name].root);
      // The view's own styles, each sheet adopted once.
      for (const css of sectionModule(name).styles) {
        const sheet = sheetFor(css);
        if (!this.#shadow.adoptedStyleSheets.includes(sheet)) this.#shadow.adoptedStyleSheets = [...this.#shadow.adoptedStyleSheets, sheet];
      }
    }
    return ui.sections[name];
  }

  #render() {
    if (this.#loadError) {
      replace(this.#shadow, h('div', { class: 'error', role: 'alert', part: 'error' },
        `kvcalc could not load: ${describeError(this.#loadError)}`), h('slot'));
      this.#settle();
      return;
    }
    const { values, errors } = readAttributes(this.#host);
    if (!this.#prepared(SECTIONS[values.view ?? 'formula'])) return;
    clearTimeout(this.#deferTimer);
    this.#deferTimer = 0;
    // A render before the first one's other sections were drawn draws them all now; the
    // box the fallback had goes (see #drawLater).
    if (this.#later) {
      this.#later();
      this.#later = null;
    }
    if (this.#shown) this.#ui.base.style.minHeight = '';
    // Elements that go live together (the wasm arrived for all of them) do so one per task,
    // so the page can paint the first before the others are drawn.
    if (!this.#shown) {
      if (firstRenderInTask) {
        this.#deferTimer = setTimeout(() => {
          this.#deferTimer = 0;
          this.#queue();
        }, 0);
        return;
      }
      firstRenderInTask = true;
      setTimeout(() => { firstRenderInTask = false; }, 0);
    }
    if (!this.#ui) this.#build();
    const e = this.#engine;
    const ui = this.#ui;
    const fmt = formatterFor(this.#host);
    const messages = errors.map((x) => x.message);

    // The config: pasted, else inline, else the preset the model attribute names.
    let source = this.#source;
    if (source === 'pasted' && this.#pasted === null) source = null;
    if (source === 'inline' && this.#inline === null) source = null;
    if (source === null) source = this.#inline !== null ? 'inline' : 'preset';
    let presetId = values.model ?? DEFAULT_MODEL;
    if (/^\s*[{["]/.test(presetId)) {
      // The core would read JSON text as a config; the attribute names a preset only.
      messages.push(`model: "${presetId}" is not a bundled preset id (a config goes in a <script type="application/json"> child); showing ${DEFAULT_MODEL}`);
      presetId = DEFAULT_MODEL;
    }
    const configFor = (s) => (s === 'pasted' ? this.#pasted : s === 'inline' ? this.#inline : presetId);
    let config = configFor(source);

    const options = {};
    if (values.context !== undefined) options.context = values.context;
    if (values.batch !== undefined) options.batch = values.batch;
    if (values.kvDtype !== undefined) options.kvDtype = values.kvDtype;
    if (values.tp !== undefined) options.tp = values.tp;
    if (values.accounting !== undefined) options.accounting = values.accounting;

    // Size; an option the core rejects is reported and left out, a config it cannot read is
    // reported and the preset used instead: always said, never silent.
    let r = null;
    let formula = null;
    for (let attempt = 0; attempt < 4 && !r; attempt += 1) {
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
        } else {
          messages.push(describeError(err));
          break;
        }
      }
    }
    replace(ui.error, messages.length > 1 ? h('ul', null, messages.map((m) => h('li', null, m))) : messages[0] ?? '');
    if (!r) {
      this.#show();
      this.#settle();
      return;
    }

    this.#options = options;
    // What is in use: the attributes, less the options the core refused.
    const applied = { ...values };
    for (const prop of ['context', 'batch', 'kvDtype', 'tp', 'accounting']) {
      if (options[prop] === undefined) delete applied[prop];
    }
    const state = { ...applied, view: values.view ?? 'formula', source, presetId };
    const isMla = r.groups.some((g) => g.kind === 'mla');

    // Header and controls.
    setText(ui.modelName, r.model);
    setText(ui.modelFacts, `${r.attentionKind} · ${fmt.int(r.numLayers.value)} layers` +
      `${r.maxContext ? ` · max context ${fmt.int(r.maxContext.value)}` : ''}`);
    const extra = [];
    if (this.#pasted !== null) extra.push({ value: PASTED, label: `Your config: ${source === 'pasted' ? r.model : 'pasted'}` });
    if (this.#inline !== null) extra.push({ value: INLINE, label: `This page's config${source === 'inline' ? `: ${r.model}` : ''}` });
    // The full preset list fills the select after the first result is on screen.
    const selected = source === 'pasted' ? PASTED : source === 'inline' ? INLINE : presetId;
    const presetsReady = e.lists.presets !== undefined;
    ui.controls.setModels(presetsReady ? e.presetList : [{ id: presetId }], extra, selected);
    ui.controls.update({ state, result: r, fmt, isMla });
    if (source === 'pasted') {
      const text = this.#pasted;
      this.#configInput().then((input) => input.show(text), () => {});
    }

    const sections = SECTIONS[state.view];
    // The table names its own rows; its header would name a model it may not show.
    const tableOnly = state.view === 'table';
    ui.header.hidden = tableOnly;
    ui.controls.fields.model.el.hidden = tableOnly;
    // The table is one sequence of the whole model, as `kvcalc table` bakes it.
    ui.controls.fields.batch.el.hidden = tableOnly;
    ui.controls.fields.tp.el.hidden = tableOnly;
    if (ui.order !== state.view) {
      // The view's sections, in its order (moving nodes keeps their state); others hidden.
      ui.order = state.view;
      for (const view of Object.values(ui.sections)) view.root.hidden = true;
      for (const name of sections) {
        const view = this.#section(name);
        view.root.hidden = false;
        ui.base.append(view.root);
      }
    }

    // The check is one core call; its result goes with the event, so it is run now.
    let check = null;
    let checkMessage = '';
    if (sections.includes('check')) {
      ({ check, message: checkMessage } = this.#section('check').run(e, config, state, r));
    }
    const ctx = {
      e, fmt, r, formula, state, options, config, source, presetId, isMla, check, checkMessage,
      models: values.models, sizeOpts: (extra) => ({ ...options, ...extra }),
    };
    // The first render of an element that waited for the wasm module draws the view's main
    // section and replaces the fallback with it: the other sections (the chart, the table of
    // every preset, the GQA rows, the check) follow in idle time, one per callback, in their
    // order on screen, each shown once drawn. Other renders (and the first of an element
    // that starts once the module is here) draw every section in their task (a few core
    // calls: the size, one series for the chart, one for the GQA rows, the table's new
    // column, the check), so no frame shows some sections at the new state and others at
    // the old.
    const pending = this.#shown || !this.#cold ? [] : sections.slice(1);
    for (const name of sections) {
      const view = this.#section(name);
      view.root.hidden = pending.includes(name);
      if (!view.root.hidden) this.#renderSection(name, ctx);
    }
    this.#show(pending);
    if (this.#scrollTo) {
      this.#scrollTo = false;
      this.#host.scrollIntoView();
    }

    this.#result = r;
    this.#check = check;
    if (this.#userEdited) this.#scheduleHash(source);
    const key = JSON.stringify([source, config.length, options, state.view, check && [check.poolTokens, check.maxContext], r.kvBytes]);
    if (key !== this.#lastKey) {
      this.#lastKey = key;
      this.#host.dispatchEvent(new KvCalcChangeEvent(r, check, state));
    }
    // The preset list sizes every bundled preset: it fills the model select in idle time,
    // after the sections.
    if (pending.length || !presetsReady) {
      this.#drawLater(ctx, [...pending, () => ui.controls.setModels(e.presetList, extra, selected)]);
    } else {
      this.#settle();
    }
  }

  // Draws the first render's other sections (names) and runs the other steps (functions),
  // one per idle callback. The box keeps at least the fallback's height until the next
  // render: where a page reserved the live height for the fallback and the live element is
  // a little shorter (the reservation measured at a nearby width), shrinking now, perhaps in
  // view, would move the page; the next render follows a change, which may.
  #drawLater(ctx, steps) {
    this.#later = whenIdle(() => {
      const step = steps.shift();
      if (typeof step === 'function') step();
      else {
        const view = this.#section(step);
        view.root.hidden = false;
        this.#renderSection(step, ctx);
        // Drawn at its last known width (a guess the first time): now at its own.
        view.size?.measure();
        view.size?.fit();
      }
      if (steps.length) {
        this.#drawLater(ctx, steps);
        return;
      }
      this.#later = null;
      this.#settle();
    });
  }

  // True when the wasm module and the view's section code are here; else starts loading them
  // (the element renders again when they arrive) and returns false.
  #prepared(sections) {
    this.#engine ??= loadedEngine();
    if (this.#engine && sections.every((s) => sectionModule(s))) return true;
    const key = String(sections);
    if (this.#preparing !== key) {
      this.#preparing = key;
      Promise.all([engine(), loadSections(sections)]).then(([e]) => {
        if (this.#preparing === key) this.#preparing = null;
        this.#engine = e;
        this.#queue();
      }, (err) => {
        if (this.#preparing === key) this.#preparing = null;
        this.#loadError = err;
        this.#queue();
      });
    }
    return false;
  }

  #renderSection(name, c) {
    const view = this.#section(name);
    const { e, fmt, r, state } = c;
    if (name === 'formula') view.update({ result: r, formula: c.formula, fmt });
    else if (name === 'check') {
      view.setGpus(e.gpuList);
      view.update({ r, state, check: c.check, message: c.checkMessage, fmt });
    } else if (name === 'chart') this.#renderChart(e, c.config, r, state, c.check, fmt, c.sizeOpts);
    else if (name === 'table') view.render(c);
    else if (name === 'gqa') {
      const options = c.sizeOpts({ context: r.context });
      view.update({ result: r, key: e.configKey(c.config), fmt, series: (axes) => e.series(c.config, options, axes),
        download: () => e.kv.svg(c.config, { ...options, chart: 'gqa' }) });
    }
  }

  // The hash is written a moment after the last edit: history.replaceState is slow and
  // rate-limited in browsers, and typing a number is many edits.
  #scheduleHash(source) {
    clearTimeout(this.#hashTimer);
    this.#hashTimer = setTimeout(() => {
      const attrs = {};
      for (const a of SHARED_ATTRIBUTES) attrs[a] = this.#host.getAttribute(a);
      if (source !== 'preset') attrs.model = null;
      writeHash(this.#hashPrefix(), attrs, source === 'pasted' && this.#pasted.length <= 32768 ? this.#pasted : null);
    }, HASH_DELAY_MS);
  }

  #renderChart(e, config, r, state, check, fmt, sizeOpts) {
    const options = sizeOpts({});
    const poolTokens = check ? check.poolTokens : state.poolTokens;
    const data = sectionModule('chart').chartData((...a) => e.series(...a), config, r, {
      options, kvDtype: state.kvDtype, poolTokens, maxContext: check && check.maxContext,
    }, fmt);
    // "Download SVG": the figure kv.svg() draws for the same inputs.
    const figure = check ? { chart: 'check', poolTokens, maxContext: check.maxContext } : {};
    data.download = () => e.kv.svg(config, { ...options, ...figure });
    this.#section('chart').update(data);
  }
}
